"""The SQL engine beside the dedicated RT engine on the same dbgen tables (bench/gpu/sql.sh)."""
from .fmt import device_line, fmt_ms
from .registry import REG
from .rows import load, newest_by, device_dirs
from .ssb import SSB_QUERIES


def sql_section(results):
    out = []
    for d in device_dirs(results):
        rows = [r for r in load(d, "ssb.jsonl") if REG.in_family("sql", r.get("label"))]
        if not rows:
            continue
        best = newest_by(rows, lambda r: (r["sf"], r["query"], r["engine"]))
        r0 = next(iter(best.values()))
        out += [f"Source: `bench/results/{d.name}/ssb.jsonl`, labels `sql-sf*` (`bench/gpu/sql.sh`); "
                f"{device_line(r0)}. Both engines on the same rows (`raydb gen ssb` tables read with "
                "`--data`); query ms: the median launch (GPU timestamps) of each engine's repeats, the BVH "
                "build apart. SqlEngine's plan ms is its host encoding per query; compile: glslang, cold "
                "(a fresh SPIR-V cache) and cached. checked: against SQLite at SF 1, else against the "
                "dedicated engine's table.", ""]
        for sf in sorted({k[0] for k in best}):
            out += [f"SF {sf:g}:", "",
                    "| query | RT engine ms | SQL ms | SQL / RT | SQL operator | SQL plan ms | SQL BVH build ms | "
                    "compile cold ms | compile cached ms | checked (RT / SQL) |",
                    "|---|---|---|---|---|---|---|---|---|---|"]
            for q in sorted({k[1] for k in best if k[0] == sf},
                            key=lambda q: (SSB_QUERIES.index(q) if q in SSB_QUERIES else 99, q)):
                rt, sq = best.get((sf, q, "rt")), best.get((sf, q, "sql"))
                cell = lambda r, f: f(r) if r else "-"
                out.append(f"| {q} | {cell(rt, lambda r: fmt_ms(r['query_ms']))} | "
                           f"{cell(sq, lambda r: fmt_ms(r['query_ms']))} | "
                           f"{format(sq['query_ms'] / rt['query_ms'], '.2f') if rt and sq and rt['query_ms'] else '-'} | "
                           f"{cell(sq, lambda r: r['sql_path'])} | {cell(sq, lambda r: fmt_ms(r['plan_ms']))} | "
                           f"{cell(sq, lambda r: fmt_ms(r['bvh_build_ms']))} | "
                           f"{cell(sq, lambda r: fmt_ms(r['compile_cold_ms']))} | "
                           f"{cell(sq, lambda r: fmt_ms(r['compile_cached_ms']))} | "
                           f"{cell(rt, lambda r: r['checked_result'])} / {cell(sq, lambda r: r['checked_result'])} |")
            out.append("")
    return out or ["Not measured yet (`bench/gpu/sql.sh`).", ""]
