"""A conjunctive selection with RTScan, checked against numpy."""

import numpy as np

import raydb

ctx = raydb.Context()
rng = np.random.default_rng(3)
rows = 20_000
columns = rng.integers(0, 10_000, (3, rows)).astype(np.uint32)
# The default ray lattice suits a GPU; on a CPU ray tracer (lavapipe) a coarser one is faster.
cpu = ctx.info["type"].lower() == "cpu"
table = raydb.RtScanTable(ctx, columns, interval=rows / 48 if cpu else 0, segment=rows / 3 if cpu else 0)
predicates = [(0, "lt", 2_000), (1, "between", 100, 5_000), (2, "ge", 9_000)]
rows = table.select(predicates).row_ids()
want = np.flatnonzero((columns[0] < 2_000) & (columns[1] >= 100) & (columns[1] <= 5_000)
                      & (columns[2] >= 9_000))
assert np.array_equal(rows, want)
print(f"{rows.size} rows selected; stats {table.last_stats}")
