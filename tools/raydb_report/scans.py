"""Scans: DP-BIS, the sieve and the full scan (the RX section's tail), and bandwidth by pass."""
import json

from .fmt import device_line, fmt_ms, rows_e
from .registry import REG
from .rows import device_dirs, is_diagnostic, load, newest_by


def dpbis_table(d):
    """DP-BIS, the sieve and the scans against the full scan (dpbis.jsonl, diagnostics left out)."""
    path = d / "dpbis.jsonl"
    if not path.exists():
        return []
    every = [json.loads(l) for l in path.read_text().splitlines() if l.strip()]
    rows = [r for r in every if not is_diagnostic(r)]
    if not rows:
        return []
    # The newest measurement of each configuration.
    # DP-BIS and the sieve in their non-default refinement (DpBisOptions::refine) are their own rows.
    for r in rows:
        if r.get("refine") not in (None, "scatter"):
            r["index"] = f"{r['index']} ({r['refine']})"
    key = lambda r: (r["index"], r.get("backend", "vulkan"), r["rows"], r["columns"], r["selectivity"], r["combine"])
    newest_of = {}
    for r in rows:
        if key(r) not in newest_of or r["timestamp"] > newest_of[key(r)]["timestamp"]:
            newest_of[key(r)] = r
    order = {"full_scan": 0, "dpbis": 1, "dpbis (in_select)": 2, "sieve": 3, "sieve (in_select)": 4,
             "cpu_bindex": 5, "cpu_scan": 6}
    rows = sorted(newest_of.values(), key=lambda r: (r["rows"], r["columns"], r["selectivity"], r["combine"],
                                                      order.get(r["index"], 9), r.get("backend", "vulkan")))
    out = [f"Source: `bench/results/{d.name}/dpbis.jsonl`. DP-BIS against the full scan, uniform uint32 columns, "
           f"`lt` predicates, {device_line(rows[0])}; copy bandwidth measured in the same run: "
           f"{rows[0]['copy_gbps']:.1f} GB/s (read + write). GPU rows are GPU timestamps; `cpu` rows host "
           f"wall clock on all threads of the machine that ran them.", "",
           "| index | kernels | rows | columns | selectivity | combine | query ms | GB/s moved | of copy bandwidth | "
           "candidates | checked |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['index']} | {r.get('backend', 'vulkan')} | {r['rows']} | {r['columns']} | "
                   f"{r['selectivity']:g} | {r['combine']} | "
                   f"{fmt_ms(r['query_time_ms'])} | {r['achieved_gbps']:.1f} | "
                   f"{'-' if r.get('bandwidth_fraction') is None else format(r['bandwidth_fraction'], '.2f')} | "
                   f"{r['candidates']} | {r['checked_result']} |")
    out.append("")
    return out


def bandwidth_section(results):
    """bench/gpu/bandwidth.sh: each query beside its passes alone, as a fraction of the copy ceiling; streams."""
    out = []
    for d in device_dirs(results):
        every = load(d, "dpbis.jsonl")
        rows = [r for r in every if REG.in_family("bandwidth", r.get("label"))]
        if not rows:
            continue
        kernels = lambda r: r.get("backend", "vulkan") + (f", hold {r['cuda_hold_us']:g} us" if r.get("cuda_hold_us") else "")
        best = newest_by(rows, lambda r: (r["index"], kernels(r), r["rows"], r["columns"], r["selectivity"],
                                          r.get("stream_bytes", 0)))
        copy = sorted({round(r["copy_gbps"]) for r in rows if r.get("copy_gbps")})
        copy = f"{copy[0]} GB/s" if len(copy) == 1 else f"{copy[0]} to {copy[-1]} GB/s"
        out += [f"Source: `bench/results/{d.name}/dpbis.jsonl`, labels `{REG.prefix('bandwidth')}*` (`bench/gpu/bandwidth.sh`); "
                f"{device_line(rows[0])}. Each query (whole) beside its passes run alone: select = the codes (DP-BIS) "
                "or sieving vectors (sieve) pass, refine = the boundary bins' refinement (atomics into the bitmap not "
                "counted in bytes). Fraction: bytes moved / time over the copy bandwidth measured in the same run "
                f"({copy}). Kernels: Vulkan compute or CUDA; hold: the CUDA stream "
                "held (us) before the first event so host launch latency is out. One uint32 column for DP-BIS and "
                "the sieve; bitmaps of the row count for AND / OR (two inputs) and NOT. checked: the whole query's "
                "result against the CPU reference (passes alone are not checked).", "",
                "| operation | kernels | rows | selectivity | whole ms | whole fraction | select ms | select fraction | "
                "refine ms | refine fraction | checked |",
                "|---|---|---|---|---|---|---|---|---|---|---|"]
        frac = lambda r: "-" if r is None or r.get("bandwidth_fraction") is None else f"{r['bandwidth_fraction']:.2f}"
        ms = lambda r: "-" if r is None else fmt_ms(r["query_time_ms"])
        ops = ("dpbis", "sieve", "bitmap_and", "bitmap_or", "bitmap_not")
        confs = sorted({(k[2], k[0], k[1], k[4], k[3]) for k in best if k[0] in ops},
                       key=lambda c: (c[0], ops.index(c[1]), c[2] != "vulkan", c[2], c[3]))
        for n, op, kern, sel, cols in confs:
            w = best[(op, kern, n, cols, sel, 0)]
            s = best.get((f"{op}_select", kern, n, cols, sel, 0))
            f = best.get((f"{op}_refine", kern, n, cols, sel, 0))
            out.append(f"| {op} | {kern} | {rows_e(n)} | {sel:g} | {ms(w)} | {frac(w)} | {ms(s)} | {frac(s)} | {ms(f)} | "
                       f"{frac(f)} | {w['checked_result']} |")
        out.append("")
        failed = [r for r in rows if r["checked_result"] not in ("ok", "diagnostic") and r is not best[
            (r["index"], kernels(r), r["rows"], r["columns"], r["selectivity"], r.get("stream_bytes", 0))]]
        for r in failed:
            now = best[(r["index"], kernels(r), r["rows"], r["columns"], r["selectivity"], r.get("stream_bytes", 0))]
            out += [f"An earlier run of {r['index']} ({kernels(r)}, {rows_e(r['rows'])} rows, selectivity "
                    f"{r['selectivity']:g}, {r['timestamp']}) returned {r['checked_result']}; the newest run "
                    f"({now['timestamp']}, listed above) returned {now['checked_result']}.", ""]
        streams = sorted((r for k, r in best.items() if k[0] in ("read_only", "write_only", "copy", "full_scan")),
                         key=lambda r: (r["rows"], r.get("stream_bytes", 0), r["index"], r["selectivity"]))
        if streams:
            out += ["Streams of the same sizes (one compute pass; read_only / write_only / copy move the listed bytes, "
                    "full_scan reads one uint32 column and writes its bitmap), Vulkan:", "",
                    "| pass | rows | selectivity | MB moved | ms | GB/s | fraction of copy |", "|---|---|---|---|---|---|---|"]
            for r in streams:
                sel = "-" if r["index"] != "full_scan" else f"{r['selectivity']:g}"
                out.append(f"| {r['index']} | {rows_e(r['rows'])} | {sel} | {r['bytes_moved'] / 1e6:.1f} | "
                           f"{ms(r)} | {r['achieved_gbps']:.1f} | {frac(r)} |")
            out.append("")
    return out or ["Not measured yet (`bench/gpu/bandwidth.sh`).", ""]
