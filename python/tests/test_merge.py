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
@pytest.mark.parametrize("query", star_data.QUERIES + star_data.MERGE_QUERIES)
def test_merged_partials_equal_sqlite(tmp_path, rng, query, n):
    db = star_data.write(rng, tmp_path, fact_rows=800)
    split = SplitQuery(query)
    parts = [_columns(p, split.partial_sql) for p in _parts(db, n)]
    star_data.assert_equal(split.merge(parts), db, query)


@pytest.mark.parametrize("query, message", [
    ("select st_region, count(distinct sa_store) from sales, store group by st_region",
     r"COUNT\(DISTINCT"),
    ("select distinct st_region from store", "SELECT DISTINCT"),
    ("with s as (select * from sales) select sum(sa_qty) from s", "WITH before SELECT"),
    ("explain select sum(sa_qty) from sales", "EXPLAIN before SELECT"),
    ("select st_region, sum(sa_qty) from sales, store group by st_region "
     "having sum(sa_qty) like 3", "'like'"),
    ("select st_region, sum(sa_qty) from sales, store group by st_region "
     "having st_size > 3", "st_size is not an output column"),
    ("select st_region, sum(sa_qty) from sales, store", "without GROUP BY"),
    ("select sa_qty from sales having sa_qty > 1", "HAVING without GROUP BY"),
    ("select st_region, sum(sa_qty) from sales, store group by st_region limit 2.5", "LIMIT"),
    ("select sum(sa_qty) + 1 from sales", "aggregate inside an expression"),
    ("select st_region, sum(sa_qty) from sales, store group by st_region order by st_size",
     "ORDER BY st_size is not an output column"),
])
def test_refused(query, message):
    with pytest.raises(QueryUnsupported, match=message) as e:
        SplitQuery(query)
    assert isinstance(e.value, raydb.Error)


def test_refused_at_merge(tmp_path, rng):
    """Types are known only once the parts answer: text against a number is refused then."""
    db = star_data.write(rng, tmp_path, fact_rows=50)
    split = SplitQuery("select st_region, sum(sa_qty) from sales, store where sa_store = st_id "
                       "group by st_region having st_region > 3")
    parts = [_columns(p, split.partial_sql) for p in _parts(db, 2)]
    with pytest.raises(QueryUnsupported, match="comparison of text with a number"):
        split.merge(parts)


def test_aggregate_over_no_row(tmp_path, rng):
    """No partition has a matching row: SQL's one row, COUNT 0 and SUM/MIN/MAX/AVG NULL."""
    db = star_data.write(rng, tmp_path, fact_rows=50)
    query = ("select count(*), sum(sa_qty), min(sa_qty), max(sa_amount), avg(sa_qty) from sales "
             "where sa_qty > 1000")
    split = SplitQuery(query)
    star_data.assert_equal(split.merge([{c: np.zeros(0) for c in split.partial_columns}] * 3),
                           db, query)
    parts = [_columns(p, split.partial_sql) for p in _parts(db, 3)]  # SQLite's NULL row each
    star_data.assert_equal(split.merge(parts), db, query)
