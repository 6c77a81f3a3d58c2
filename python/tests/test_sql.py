"""raydb.SqlEngine against Python's sqlite3 on a generated star schema, EXPLAIN as text."""

import re

import numpy as np
import pytest

import raydb
import star_data

pytestmark = pytest.mark.skipif(not hasattr(raydb, "SqlEngine"), reason="built without RAYDB_SQL")


@pytest.fixture(scope="module")
def star(ctx, tmp_path_factory):
    folder = tmp_path_factory.mktemp("star")
    db = star_data.write(np.random.default_rng(), folder)
    engine = raydb.SqlEngine(ctx, schema=folder / "schema.sql", data=folder,
                             cache_dir=str(folder / "cache"))
    return engine, db, folder


@pytest.mark.parametrize("query", star_data.QUERIES)
def test_query_matches_sqlite(star, query):
    engine, db, _ = star
    got = engine.sql(query)
    assert all(isinstance(c, np.ndarray) for c in got.values())
    star_data.assert_equal(got, db, query)
    assert engine.last_stats["rows"] == engine.table_rows("sales")


def test_column_dtypes_and_tables(star):
    engine, _, _ = star
    got = engine.sql(star_data.QUERIES[0])
    region, total, count, low, high, avg = got.values()
    assert region.dtype.kind == "U" and total.dtype == np.int64 and avg.dtype == np.float64
    assert sorted(engine.tables) == ["product", "sales", "store"]
    assert "CREATE TABLE" in engine.table_ddl("store").upper()


def test_explain_is_text(star):
    engine, _, _ = star
    plan = engine.sql("EXPLAIN " + star_data.QUERIES[1])
    # The device memory left moves between calls (pipelines and caches come and go), and the host
    # encoding's timings with them: neither is compared.
    def left(text):
        text = re.sub(r"\d+ left", "N left", text)
        return re.sub(r"ms wall/CPU:.*", "ms wall/CPU: T", text)

    assert isinstance(plan, str) and left(plan) == left(engine.explain(star_data.QUERIES[1]))
    assert "sales" in plan


def test_separate_loading(ctx, star, rng):
    _, _, folder = star
    engine = raydb.SqlEngine(ctx, cache_dir=str(folder / "cache"))
    engine.load_schema_text(star_data.DDL)
    for table in ("store", "product", "sales"):
        engine.load_table(table, str(folder / f"{table}.tbl"))
    query = star_data.QUERIES[2]
    np.testing.assert_array_equal(engine.sql(query)["count(*)"],
                                  [engine.sqlite(query)["count(*)"][0]])
