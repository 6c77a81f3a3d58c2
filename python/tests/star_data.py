"""A small random star schema (sales facts, store and product dimensions) written as DDL and .tbl
files, the same rows in Python's sqlite3, and the queries the SQL tests compare."""

import math
import sqlite3
from pathlib import Path

DDL = """CREATE TABLE store (st_id INTEGER PRIMARY KEY, st_region TEXT, st_size INTEGER);
CREATE TABLE product (pr_id INTEGER PRIMARY KEY, pr_category TEXT, pr_price DECIMAL(8,2));
CREATE TABLE sales (sa_store INTEGER REFERENCES store (st_id),
  sa_product INTEGER REFERENCES product (pr_id), sa_qty INTEGER, sa_amount DECIMAL(10,2));
"""

REGIONS = ["EU", "ASIA", "AMERICA", "AFRICA", "OCEANIA"]
CATEGORIES = ["food", "tools", "toys", "garden", "books"]

# Every ORDER BY covers the grouping columns, so the order is unique and compared as is.
QUERIES = [
    "select st_region, sum(sa_qty), count(*), min(sa_qty), max(sa_qty), avg(sa_qty) "
    "from sales, store where sa_store = st_id group by st_region order by st_region",
    "select pr_category, st_region, sum(sa_amount) as amount from sales, store, product "
    "where sa_store = st_id and sa_product = pr_id and st_size between 20 and 70 "
    "group by pr_category, st_region order by pr_category, st_region desc",
    "select sum(sa_qty * 2 - 1), count(*) from sales, product "
    "where sa_product = pr_id and pr_category in ('food', 'toys')",
    "select st_region, sum(sa_qty) as q from sales, store where sa_store = st_id "
    "group by st_region order by q desc, st_region limit 2",
    "select pr_category, min(sa_amount), max(sa_amount), avg(sa_amount) from sales, product "
    "where sa_product = pr_id and sa_qty >= 3 group by pr_category order by pr_category",
]

# For the distributed merge only (the SQL engine's own HAVING takes <aggregate> <op> <constant>):
# HAVING on sum/count/avg/min/max, ORDER BY on aggregates (some not selected), LIMIT and OFFSET,
# applied to the merged groups. Each ORDER BY ends in the grouping columns: a unique order.
MERGE_QUERIES = [
    "select st_region, sum(sa_qty) as q, count(*) from sales, store where sa_store = st_id "
    "group by st_region having avg(sa_qty) > 25 and count(*) >= 2 order by q desc, st_region",
    "select pr_category, st_region, count(*) from sales, store, product "
    "where sa_store = st_id and sa_product = pr_id group by pr_category, st_region "
    "having avg(sa_qty) > 25.5 or min(sa_qty) <= 1 "
    "order by max(sa_amount) desc, pr_category, st_region limit 7",
    "select pr_category, sum(sa_amount) from sales, product where sa_product = pr_id "
    "group by pr_category having max(sa_qty) - min(sa_qty) between 10 and 60 "
    "and pr_category not in ('toys') order by 2 limit 3 offset 1",
    "select st_size, count(*) as n from sales, store where sa_store = st_id group by st_size "
    "having count(*) > 15 and not (sum(sa_amount) < 100) order by n desc, st_size limit 5",
    "select st_region, pr_category, max(sa_qty) from sales, store, product "
    "where sa_store = st_id and sa_product = pr_id group by st_region, pr_category "
    "having min(sa_amount) < 300 or max(sa_qty) < 48 "
    "order by sum(sa_qty) * 1.0 / count(*) desc, 1, 2",
]


def write(rng, folder, fact_rows=3000, stores=40, products=60):
    """Writes schema.sql and the three .tbl files into folder; returns a sqlite3 connection with
    the same rows (decimals as REAL)."""
    folder = Path(folder)
    (folder / "schema.sql").write_text(DDL)
    store = [(i, REGIONS[rng.integers(5)], int(rng.integers(10, 100))) for i in range(1, stores)]
    product = [(i, CATEGORIES[rng.integers(5)], int(rng.integers(100, 99999)))
               for i in range(1, products)]
    sales = [(int(rng.integers(1, stores)), int(rng.integers(1, products)),
              int(rng.integers(1, 50)), int(rng.integers(0, 1_000_000)))
             for _ in range(fact_rows)]
    # edges: the extreme quantity and an amount of zero
    sales += [(1, 1, 0, 0), (stores - 1, products - 1, 49, 99_999_999)]

    def cents(v):
        return f"{v // 100}.{v % 100:02d}"

    with open(folder / "store.tbl", "w") as f:
        f.writelines(f"{a}|{b}|{c}|\n" for a, b, c in store)
    with open(folder / "product.tbl", "w") as f:
        f.writelines(f"{a}|{b}|{cents(c)}|\n" for a, b, c in product)
    with open(folder / "sales.tbl", "w") as f:
        f.writelines(f"{a}|{b}|{c}|{cents(d)}|\n" for a, b, c, d in sales)
    db = sqlite3.connect(":memory:")
    db.executescript(DDL.replace("DECIMAL(8,2)", "REAL").replace("DECIMAL(10,2)", "REAL"))
    db.executemany("insert into store values (?, ?, ?)", store)
    db.executemany("insert into product values (?, ?, ?)", [(a, b, c / 100) for a, b, c in product])
    db.executemany("insert into sales values (?, ?, ?, ?)",
                   [(a, b, c, d / 100) for a, b, c, d in sales])
    return db


def assert_equal(got, db, query):
    """got ({column: array}) equals SQLite's rows for query, in order; numbers to 1e-9 relative
    (SQLite adds decimals as REAL)."""
    want = db.execute(query).fetchall()
    cols = list(got.values())
    assert all(len(c) == len(want) for c in cols), (query, {k: len(v) for k, v in got.items()},
                                                    len(want))
    assert len(cols) == (len(want[0]) if want else len(cols))
    for r, row in enumerate(want):
        for c, w in enumerate(row):
            g = cols[c][r]
            if isinstance(w, str):
                assert str(g) == w, (query, r, c, g, w)
            elif w is None:
                assert g is None or (isinstance(g, float) and math.isnan(g)), (query, r, c, g)
            else:
                assert math.isclose(float(g), w, rel_tol=1e-9, abs_tol=1e-9), (query, r, c, g, w)
