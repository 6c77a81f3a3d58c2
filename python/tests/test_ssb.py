"""The SSB engine against SQLite (Python's sqlite3) on generated tables, every query."""

import sqlite3

import numpy as np
import pytest

import raydb

PREFIX = {"lineorder": "lo_", "customer": "c_", "supplier": "s_", "part": "p_", "date": "d_"}
KEY_NAME = {"customer": "c_custkey", "supplier": "s_suppkey"}


def sqlite_db(tables):
    """The tables in an in-memory SQLite database under dbgen's column names."""
    db = sqlite3.connect(":memory:")
    for table, columns in tables.to_dict().items():
        names = [KEY_NAME[table] if (c == "key" and table in KEY_NAME) else PREFIX[table] + c
                 for c in columns]
        db.execute(f"create table {table} ({', '.join(names)})")
        rows = zip(*[c.tolist() if isinstance(c, np.ndarray) else c for c in columns.values()])
        db.executemany(f"insert into {table} values ({', '.join('?' * len(names))})", rows)
    return db


def run_sqlite(db, query):
    cur = db.execute(raydb.ssb.query_sql(query))
    names = [d[0] for d in cur.description]
    rows = cur.fetchall()
    return {n: [r[i] for r in rows] for i, n in enumerate(names)}


@pytest.fixture(scope="module")
def ssb(ctx):
    tables = raydb.ssb.Tables.generate(0.01, seed=int(np.random.default_rng().integers(1, 1000)))
    return raydb.ssb.Engine(ctx, tables), sqlite_db(tables)


@pytest.mark.parametrize("query", raydb.ssb.query_names() if hasattr(raydb, "ssb") else [])
def test_query_matches_sqlite(ssb, query):
    engine, db = ssb
    got = engine.run(query)
    want = run_sqlite(db, query)
    assert list(got) == list(want)
    for name in want:
        assert got[name].tolist() == want[name], name


def test_tables_pickle_and_slice():
    import pickle

    tables = raydb.ssb.Tables.generate(0.01)
    back = pickle.loads(pickle.dumps(tables))
    n = tables.lineorder_rows
    assert back.lineorder_rows == n
    part = tables.slice_lineorder(10, 20).to_dict()["lineorder"]["revenue"]
    np.testing.assert_array_equal(part, tables.to_dict()["lineorder"]["revenue"][10:20])
    with pytest.raises(raydb.InvalidArgument):
        tables.slice_lineorder(5, n + 1)
