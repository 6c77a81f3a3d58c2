"""SSB query 2.1 on generated tables (scale factor 0.01): results as numpy columns."""

import raydb

ctx = raydb.Context()
tables = raydb.ssb.Tables.generate(0.01)
engine = raydb.ssb.Engine(ctx, tables)
print(raydb.ssb.query_sql("q2.1"))
result = engine.run("q2.1")
for name, column in result.items():
    print(name, column[:5], "...")
print("trace ms:", engine.last_stats["trace_ms"])
