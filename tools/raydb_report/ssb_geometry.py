"""The SSB engine's two triangle placements side by side (bench/gpu/ssb.sh geometry, geometry-large)."""
from .fmt import device_line, fmt_ms
from .registry import REG
from .rows import load, newest_by, device_dirs
from .ssb import queries_at


def geometry_rows(d):
    rows = [r for r in load(d, "ssb.jsonl") if REG.in_family("ssb_geometry", r.get("label"))]
    # The baselines' rows name the context's API but have no geometry.
    key = lambda r: (r["sf"], r["query"], r["engine"], r.get("api", "-") if "geometry" in r else "-",
                     r.get("geometry", "-"))
    return newest_by(rows, key) if rows else {}


def ssb_geometry_section(results):
    out = []
    for d in device_dirs(results):
        best = geometry_rows(d)
        if not best:
            continue
        r0 = next(iter(best.values()))
        out += [f"Source: `bench/results/{d.name}/ssb.jsonl`, labels `ssb-geometry-*` (`bench/gpu/ssb.sh "
                f"geometry geometry-large`); {device_line(r0)}. `raydb gen ssb` tables; query ms: GPU "
                f"timestamps (OptiX: CUDA events), median of the repeats. value_group: RTCUDB's triangles (X the "
                "aggregated value, Y the group code); filter_only: every triangle on one X-Y footprint, value "
                "and group read by primitive index. checked: filter_only's table against SQLite (MATCH) where "
                "SF 1, and against value_group's in Vulkan (identical) everywhere both ran.", ""]
        for sf in sorted({k[0] for k in best}):
            out += [f"SF {sf:g}:", "",
                    "| query | value_group ms | filter_only ms | value_group / filter_only | OptiX value_group ms | "
                    "OptiX filter_only ms | CUDA Crystal ms | filter_only / CUDA Crystal | rays | checked |",
                    "|---|---|---|---|---|---|---|---|---|---|"]
            for q in queries_at(best, sf):
                get = lambda api, g: best.get((sf, q, "rt", api, g))
                vg, fo = get("vulkan", "value_group"), get("vulkan", "filter_only")
                ovg, ofo = get("optix", "value_group"), get("optix", "filter_only")
                cc = best.get((sf, q, "crystal_cuda", "-", "-"))
                ms = lambda r: fmt_ms(r["query_ms"]) if r else "-"
                ratio = lambda a, b: format(a["query_ms"] / b["query_ms"], ".1f") if a and b and b["query_ms"] else "-"
                check = "-"
                if fo:
                    check = fo["checked_result"] if fo["checked_result"] != "unchecked" else ""
                    if fo.get("api_check", "-") != "-":
                        check += (", " if check else "") + fo["api_check"]
                out.append(f"| {q} | {ms(vg)} | {ms(fo)} | {ratio(vg, fo)} | {ms(ovg)} | {ms(ofo)} | {ms(cc)} | "
                           f"{ratio(fo, cc)} | {fo['rays'] if fo else '-'} | {check or '-'} |")
            out.append("")
    return out or ["Not measured yet (`bench/gpu/ssb.sh geometry`).", ""]
