"""raydb._merge on its own: partial aggregates of row ranges, computed by SQLite, merged on the
client, equal SQLite on the whole table; and the queries the split refuses."""

import sqlite3

import numpy as np
import pytest

import raydb
import star_data
from raydb._merge import QueryUnsupported, SplitQuery


def _parts(db, n):
    """n SQLite databases with the whole dimensions and contiguous ranges of the facts."""
    rows = db.execute("select * from sales").fetchall()
    cuts = [len(rows) * i // n for i in range(n + 1)]
    out = []
    for i in range(n):
        part = sqlite3.connect(":memory:")
        part.executescript("".join(db.iterdump()))
        part.execute("delete from sales")
        part.executemany("insert into sales values (?, ?, ?, ?)", rows[cuts[i]:cuts[i + 1]])
        out.append(part)
    return out


def _columns(db, sql):
    cur = db.execute(sql)
    rows = cur.fetchall()
    return {d[0]: np.array([r[i] for r in rows]) for i, d in enumerate(cur.description)}


@pytest.mark.parametrize("n", [1, 2, 5])
@pytest.mark.parametrize("query", star_data.QUERIES)
def test_merged_partials_equal_sqlite(tmp_path, rng, query, n):
    db = star_data.write(rng, tmp_path, fact_rows=800)
    split = SplitQuery(query)
    parts = [_columns(p, split.partial_sql) for p in _parts(db, n)]
    star_data.assert_equal(split.merge(parts), db, query)


@pytest.mark.parametrize("query, message", [
    ("select st_region, sum(sa_qty) from sales, store where sa_store = st_id group by st_region "
     "having sum(sa_qty) > 3", "HAVING"),
    ("select sum(sa_qty) + 1 from sales", "aggregate inside an expression"),
    ("select st_region, sum(sa_qty) from sales, store group by st_region order by st_size",
     "ORDER BY st_size is not an output column"),
])
def test_refused(query, message):
    with pytest.raises(QueryUnsupported, match=message) as e:
        SplitQuery(query)
    assert isinstance(e.value, raydb.Error)
