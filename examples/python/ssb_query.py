"""SSB query 2.1 on generated tables (scale factor 0.01): results as numpy columns, checked
against SQLite (Python's sqlite3) on the same rows."""

import sqlite3

import raydb

ctx = raydb.Context()
tables = raydb.ssb.Tables.generate(0.01)
engine = raydb.ssb.Engine(ctx, tables)
print(raydb.ssb.query_sql("q2.1"))
result = engine.run("q2.1")
for name, column in result.items():
    print(name, column[:5], "...")
print("trace ms:", engine.last_stats["trace_ms"])

# The same query in SQLite: the three tables it reads, under dbgen's column names.
db = sqlite3.connect(":memory:")
t = tables.to_dict()
lo, part, supp, date = t["lineorder"], t["part"], t["supplier"], t["date"]
db.execute("create table lineorder (lo_orderdate, lo_partkey, lo_suppkey, lo_revenue)")
db.executemany("insert into lineorder values (?, ?, ?, ?)",
               zip(*(lo[c].tolist() for c in ("orderdate", "partkey", "suppkey", "revenue"))))
db.execute("create table part (p_partkey, p_category, p_brand1)")
db.executemany("insert into part values (?, ?, ?)",
               zip(part["partkey"].tolist(), part["category"], part["brand1"]))
db.execute("create table supplier (s_suppkey, s_region)")
db.executemany("insert into supplier values (?, ?)", zip(supp["key"].tolist(), supp["region"]))
db.execute("create table date (d_datekey, d_year)")
db.executemany("insert into date values (?, ?)",
               zip(date["datekey"].tolist(), date["year"].tolist()))
want = db.execute(raydb.ssb.query_sql("q2.1")).fetchall()
got = list(zip(*(c.tolist() for c in result.values())))
assert got == want, (got[:3], want[:3])
print(f"{len(got)} groups, equal to SQLite")
