"""raydb.SqlEngine: a small star schema from a DDL and .tbl files, one GROUP BY query as numpy
columns, its plan (EXPLAIN), and the same query through SQLite on the same rows."""

import tempfile
from pathlib import Path

import numpy as np

import raydb

DDL = """CREATE TABLE store (st_id INTEGER PRIMARY KEY, st_region TEXT);
CREATE TABLE sales (sa_store INTEGER REFERENCES store (st_id), sa_qty INTEGER,
  sa_amount DECIMAL(10,2));
"""
QUERY = ("SELECT st_region, sum(sa_qty) AS qty, avg(sa_amount) AS mean_amount "
         "FROM sales, store WHERE sa_store = st_id AND sa_qty > 2 "
         "GROUP BY st_region ORDER BY st_region")

rng = np.random.default_rng(3)
with tempfile.TemporaryDirectory() as tmp:
    folder = Path(tmp)
    (folder / "schema.sql").write_text(DDL)
    regions = ["EU", "ASIA", "AMERICA"]
    (folder / "store.tbl").write_text("".join(f"{i}|{regions[i % 3]}|\n" for i in range(1, 21)))
    rows = [f"{rng.integers(1, 21)}|{rng.integers(1, 10)}|{rng.integers(0, 10**5) / 100:.2f}|\n"
            for _ in range(5000)]
    (folder / "sales.tbl").write_text("".join(rows))

    ctx = raydb.Context()
    engine = raydb.SqlEngine(ctx, schema=folder / "schema.sql", data=folder,
                             cache_dir=str(folder / "cache"))
    result = engine.sql(QUERY)  # {column: numpy array}
    for name, column in result.items():
        print(f"{name:12} {column.dtype}: {column}")
    print(engine.sql("EXPLAIN " + QUERY))
    print("trace ms:", engine.last_stats["trace_ms"])

    want = engine.sqlite(QUERY)  # SQLite on the same rows (decimals as REAL)
    assert list(want["st_region"]) == list(result["st_region"])
    assert np.array_equal(want["qty"], result["qty"])
    assert np.allclose(want["mean_amount"], result["mean_amount"], rtol=1e-9)
    print("equal to SQLite")
