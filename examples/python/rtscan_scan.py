"""A conjunctive selection with RTScan, checked against numpy."""

import numpy as np

import raydb

ctx = raydb.Context()
rng = np.random.default_rng(3)
columns = rng.integers(0, 10_000, (3, 200_000)).astype(np.uint32)
table = raydb.RtScanTable(ctx, columns)
predicates = [(0, "lt", 2_000), (1, "between", 100, 5_000), (2, "ge", 9_000)]
rows = table.select(predicates).row_ids()
want = np.flatnonzero((columns[0] < 2_000) & (columns[1] >= 100) & (columns[1] <= 5_000)
                      & (columns[2] >= 9_000))
assert np.array_equal(rows, want)
print(f"{rows.size} rows selected; stats {table.last_stats}")
