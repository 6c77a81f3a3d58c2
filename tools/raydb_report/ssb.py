"""The SSB section: the RT engine against the star join (Vulkan) and its CUDA twin, per query."""
from .fmt import device_line, fmt_ms
from .registry import REG
from .rows import load, newest_by, device_dirs

SSB_QUERIES = ["Q1.1", "Q1.2", "Q1.3", "Q2.1", "Q2.2", "Q2.3", "Q3.1", "Q3.2", "Q3.3", "Q3.4", "Q4.1", "Q4.2", "Q4.3"]


def queries_at(best, sf):
    """The queries of rows keyed (sf, query, ...) at one scale factor, in SSB order."""
    return sorted({k[1] for k in best if k[0] == sf},
                  key=lambda q: (SSB_QUERIES.index(q) if q in SSB_QUERIES else 99, q))


def ssb_rows(d):
    # The ab experiment's rows (ssb-ab-*: older ray and atomic settings) are not the engine's defaults,
    # and the OptiX comparison's rows (optix-*: the twin, its switches and diagnostics) have their
    # own table in docs/optix.md or the README's OptiX section; bench/gpu/sql.sh's rows (sql-*: the
    # SQL engine beside the RT engine on dbgen tables) and ssb.sh geometry's (ssb-geometry-*: both
    # triangle placements side by side) are other experiments.
    rows = [r for r in load(d, "ssb.jsonl")
            if not any(REG.in_family(f, r.get("label")) for f in ("ssb_ab", "optix", "sql", "ssb_geometry"))]
    return newest_by(rows, lambda r: (r["sf"], r["query"], r["engine"])) if rows else {}


def ssb_section(results):
    out = []
    for d in device_dirs(results):
        best = ssb_rows(d)
        if not best:
            continue
        r0 = next(iter(best.values()))
        sfs = sorted({k[0] for k in best})
        out += [f"Source: `bench/results/{d.name}/ssb.jsonl` (`bench/gpu/ssb.sh`); {device_line(r0)}. RT engine "
                "(RTCUDB-style, one BVH per query) against the star-join baseline (Vulkan) and its CUDA twin in Crystal's "
                "style (fused probe kernel alone, CUDA events) on the same loaded columns; "
                f"query ms: GPU timestamps, median of {r0['repeats']} after {r0['warmup']} warm-up; BVH build "
                "and size reported apart from the query. checked: the query's result against SQLite (MATCH), "
                "`unchecked` where the bench skipped SQLite.", ""]
        for sf in sfs:
            lo = next(r for k, r in best.items() if k[0] == sf)
            out += [f"SF {sf:g} ({lo['rows']} lineorder rows):", "",
                    "| query | RT query ms | RT BVH build ms | RT BVH MiB | rays | star join ms | star join / RT | "
                    "CUDA Crystal ms | CUDA Crystal / RT | checked (RT / star join / CUDA Crystal) |",
                    "|---|---|---|---|---|---|---|---|---|---|"]
            for q in queries_at(best, sf):
                rt, sj = best.get((sf, q, "rt")), best.get((sf, q, "star_join"))
                cc = best.get((sf, q, "crystal_cuda"))
                cell = lambda r, f: f(r) if r else "-"
                out.append(f"| {q} | {cell(rt, lambda r: fmt_ms(r['query_ms']))} | "
                           f"{cell(rt, lambda r: fmt_ms(r['bvh_build_ms']))} | "
                           f"{cell(rt, lambda r: format(r['bvh_bytes'] / 2 ** 20, '.1f'))} | {cell(rt, lambda r: r['rays'])} | "
                           f"{cell(sj, lambda r: fmt_ms(r['query_ms']))} | "
                           f"{format(sj['query_ms'] / rt['query_ms'], '.2f') if rt and sj else '-'} | "
                           f"{cell(cc, lambda r: fmt_ms(r['query_ms']))} | "
                           f"{format(cc['query_ms'] / rt['query_ms'], '.2f') if rt and cc else '-'} | "
                           f"{cell(rt, lambda r: r['checked_result'])} / {cell(sj, lambda r: r['checked_result'])} / "
                           f"{cell(cc, lambda r: r['checked_result'])} |")
            out.append("")
        out.append(f"![SSB per query]({'bench/plots/' + d.name + '-ssb.png'})")
        out.append("")
    return out or ["Not measured yet (`bench/gpu/ssb.sh`).", ""]
