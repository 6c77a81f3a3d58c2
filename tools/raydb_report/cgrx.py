"""The cgRX section: its first ray (windowed or the whole line) and where its time goes, beside RX."""
from .fmt import device_line, fmt_ms
from .registry import REG
from .rows import device_dirs, load, method, newest, newest_by, order_of, plain, plain_or_diag


def cgrx_section(results):
    """cgRX's first ray (windowed vs whole line) and where its time goes, beside RX at the same size."""
    out = []
    cgrx_diagnostic = REG.label("cgrx_diagnostic", "")
    for d in device_dirs(results):
        rows = load(d)
        cg = [r for r in rows if r.get("index") == "cgrx" and
              (r.get("label") == REG.label("cgrx_ray") or str(r.get("label", "")).startswith(cgrx_diagnostic))]
        if not cg:
            continue
        best = newest_by(cg, lambda r: (r["bucket_size"], r.get("cgrx_rays", "window"), order_of(r),
                                        r.get("diagnostic", "none")))
        n, k = cg[0]["num_lookups"], cg[0]["num_keys"]
        rx = [r for r in plain(rows) if r.get("index", "rx") == "rx" and r.get("api", "vulkan") == "vulkan"
              and r["num_keys"] == k and r["num_lookups"] == n and r["hit_rate"] == 1.0 and r["key_bits"] == 32
              and method(r) == "hit_and_scan" and r.get("opaque_hits") and r.get("primitive", "triangles") == "triangles"
              and r.get("partitions", 1) == 1 and r.get("label") in (REG.label("paper_points"), REG.label("optix_points"))]
        out += [f"Source: `bench/results/{d.name}/rx.jsonl`, labels `{REG.label('cgrx_ray')}`, `{cgrx_diagnostic}*`; "
                f"{device_line(cg[0])}; {k} 32-bit uniform keys, {n} point lookups, hit rate 1. First ray: `window` "
                "(the ray covers a window of the representatives' line) or `full` (the whole line). Probe ms of the "
                "full lookup, the trace alone (`--diagnostic trace_only`) and the launch without rays "
                "(`no_trace`); the diagnostics return no lookups (not checked). RX: default lookup (hit_and_scan, "
                "opaque rays), the newest row at the same size; its trace only / no trace from RX's own `diagnostic-*` rows.", "",
                "| index | bucket size | first ray | probes | probe ms | trace only ms | no trace ms | rays per lookup | "
                "build ms | BVH MB | checked |",
                "|---|---|---|---|---|---|---|---|---|---|---|"]
        for (b, ray, order, diag), r in sorted(best.items(), key=lambda kv: (kv[0][0], kv[0][1] != "window", kv[0][2])):
            if diag != "none":
                continue
            t = best.get((b, ray, order, "trace_only"))
            nt = best.get((b, ray, order, "no_trace"))
            out.append(f"| cgrx | {b} | {ray} | {order} | {fmt_ms(r['probe_time_ms'])} | "
                       f"{fmt_ms(t['probe_time_ms']) if t else '-'} | {fmt_ms(nt['probe_time_ms']) if nt else '-'} | "
                       f"{r['rays'] / r['num_lookups']:.4f} | {fmt_ms(r['build_time_ms'])} | "
                       f"{r['build_bytes'] / 1e6:.1f} | {r['checked_result']} |")
        for order in ("unsorted", "sorted"):
            r = max((x for x in rx if order_of(x) == order), key=lambda x: x["timestamp"], default=None)
            if r:
                t = newest(plain_or_diag(rows, "trace_only"), sorted_probes=order == "sorted")
                nt = newest(plain_or_diag(rows, "no_trace"), sorted_probes=order == "sorted")
                out.append(f"| rx | - | - | {order} | {fmt_ms(r['probe_time_ms'])} | "
                           f"{fmt_ms(t['probe_time_ms']) if t else '-'} | {fmt_ms(nt['probe_time_ms']) if nt else '-'} | "
                           f"{r['rays'] / r['num_lookups']:.4f} | {fmt_ms(r['build_time_ms'])} | "
                           f"{r['build_bytes'] / 1e6:.1f} | {r['checked_result']} |")
        out.append("")
    return out or ["Not measured yet (`bench/gpu/rx.sh`, cgRX parts).", ""]
