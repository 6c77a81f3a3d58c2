"""The SQL engine beside the dedicated RT engine on the same dbgen tables (bench/gpu/sql.sh)."""
import math

from .fmt import device_line, fmt_ms
from .registry import REG
from .rows import load, newest_by, device_dirs
from .ssb import queries_at


def geomean(values):
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def sql_section(results):
    out = []
    for d in device_dirs(results):
        rows = [r for r in load(d, "ssb.jsonl") if REG.in_family("sql", r.get("label"))]
        if not rows:
            continue
        best = newest_by(rows, lambda r: (r["sf"], r["query"], r["engine"]))
        r0 = next(iter(best.values()))
        out += [f"Source: `bench/results/{d.name}/ssb.jsonl`, labels `sql-sf*` (`bench/gpu/sql.sh`); "
                f"{device_line(r0)}. Every engine on the same rows, read with `--data`: the reference dbgen's "
                "tables (labels `sql-sf<SF>-dbgen`) or `raydb gen ssb`'s (`-gen`); query ms: the median launch (GPU timestamps) of each engine's repeats over one built BVH "
                "(SqlEngine::rerun for SQL, rows of 2026-11-26 on), the BVH build apart; SQL first trace: the "
                "launch right after the whole query's BVH build, where recorded. SqlEngine's plan ms is its host encoding per query; compile: glslang, cold "
                "(a fresh SPIR-V cache) and cached. CUDA Crystal: raydb's Crystal-style star join (fused "
                "probe kernel, CUDA events) on the same rows, where it ran. checked: against SQLite at SF 1, "
                "else against the dedicated engine's table.", ""]
        for sf in sorted({k[0] for k in best}):
            out += [f"SF {sf:g}:", "",
                    "| query | RT engine ms | SQL ms | SQL / RT | SQL first trace ms | SQL operator | SQL plan ms | SQL BVH build ms | "
                    "compile cold ms | compile cached ms | CUDA Crystal ms | RT / CUDA Crystal | checked (RT / SQL) |",
                    "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
            for q in queries_at(best, sf):
                rt, sq = best.get((sf, q, "rt")), best.get((sf, q, "sql"))
                cc = best.get((sf, q, "crystal_cuda"))
                cell = lambda r, f: f(r) if r else "-"
                out.append(f"| {q} | {cell(rt, lambda r: fmt_ms(r['query_ms']))} | "
                           f"{cell(sq, lambda r: fmt_ms(r['query_ms']))} | "
                           f"{format(sq['query_ms'] / rt['query_ms'], '.2f') if rt and sq and rt['query_ms'] else '-'} | "
                           f"{cell(sq, lambda r: fmt_ms(r['cold_trace_ms']) if 'cold_trace_ms' in r else '-')} | "
                           f"{cell(sq, lambda r: r['sql_path'])} | {cell(sq, lambda r: fmt_ms(r['plan_ms']))} | "
                           f"{cell(sq, lambda r: fmt_ms(r['bvh_build_ms']))} | "
                           f"{cell(sq, lambda r: fmt_ms(r['compile_cold_ms']))} | "
                           f"{cell(sq, lambda r: fmt_ms(r['compile_cached_ms']))} | "
                           f"{cell(cc, lambda r: fmt_ms(r['query_ms']))} | "
                           f"{format(rt['query_ms'] / cc['query_ms'], '.2f') if rt and cc and cc['query_ms'] else '-'} | "
                           f"{cell(rt, lambda r: r['checked_result'])} / {cell(sq, lambda r: r['checked_result'])} |")
            gm = {e: geomean([r["query_ms"] for k, r in best.items() if k[0] == sf and k[2] == e])
                  for e in ("rt", "sql", "crystal_cuda")}
            ratios = [best[(sf, q, "sql")]["query_ms"] / best[(sf, q, "rt")]["query_ms"]
                      for q in queries_at(best, sf)
                      if (sf, q, "sql") in best and (sf, q, "rt") in best and best[(sf, q, "rt")]["query_ms"]]
            if ratios:
                out += ["", f"SQL within 1.2x of the RT engine: {sum(x <= 1.2 for x in ratios)} of {len(ratios)} "
                        f"queries (SQL / RT {min(ratios):.2f}-{max(ratios):.2f})."]
            out += ["", "Geometric means over the queries above, ms: " +
                    ", ".join(f"{name} {fmt_ms(gm[e])}" for e, name in
                              (("rt", "RT engine"), ("sql", "SQL"), ("crystal_cuda", "CUDA Crystal")) if gm[e]) + "."]
            out.append("")
    return out or ["Not measured yet (`bench/gpu/sql.sh`).", ""]
