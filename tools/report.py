#!/usr/bin/env python3
"""Turns bench/results/<device>/*.jsonl into the README's result tables and PNG plots.

    tools/report.py tables   # rewrites the README between <!-- results:rx:begin/end --> markers,
                             # each of SECTIONS (optix, cgrx, join, rtscan, ssb, bandwidth) between
                             # <!-- results:<name>:begin/end --> and (thesis below) <!-- results:thesis:... -->
    tools/report.py thesis   # only "Where each optimization helps" (bench/gpu/rx.sh thesis rows)
    tools/report.py plots    # writes bench/plots/*.png (needs matplotlib: apt install python3-matplotlib)
                             # (RTScan's main sweep and SSB per query among them)

Every number printed comes from a JSON line under bench/results/; for a configuration measured
more than once, the newest line wins. Figures and tables name the device and driver.
"""
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
README = ROOT / "RESULTS.md"  # the generated tables live in RESULTS.md
BEGIN, END = "<!-- results:rx:begin -->", "<!-- results:rx:end -->"
THESIS_BEGIN, THESIS_END = "<!-- results:thesis:begin -->", "<!-- results:thesis:end -->"


def load(device_dir, name="rx.jsonl"):
    rows = []
    path = device_dir / name
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                rows.append(json.loads(line))
    return rows


def method(r):
    return r.get("method", "automatic")


def all_of(rows, **match):
    return [r for r in rows if all((method(r) if k == "method" else r.get(k)) == v for k, v in match.items())]


def newest(rows, **match):
    hits = all_of(rows, **match)
    return max(hits, key=lambda r: r["timestamp"]) if hits else None


def fmt_ms(x):
    return f"{x:.1f}" if x >= 10 else f"{x:.2f}" if x >= 1 else f"{x:.3f}"


def gb(b):
    return f"{b / 1e9:.2f}"


def device_line(r):
    return f"{r['device']} ({r['driver']} {r['driver_info']}, Vulkan {r['vulkan_api']})"


def variant(r):
    """What a row measured: the index, and for RX its lookup method and hit reporting."""
    idx = r.get("index", "rx")
    if idx != "rx":
        layout = f", {r['sorted_layout']}" if idx == "sorted" and "sorted_layout" in r else ""
        return f"{idx} ({method(r)}{layout})"
    m = method(r)
    if m == "hit_and_scan" and r.get("primitive", "triangles") == "triangles" and "opaque_hits" in r:
        return f"rx {m}, " + ("opaque rays" if r["opaque_hits"] else "any-hit calls")
    return f"rx {m}"


def plain(rows):
    """Rows that are lookups (not --diagnostic runs) of the current implementation."""
    return [r for r in rows if r.get("diagnostic", "none") == "none" and "superseded" not in r]


def order_of(r):
    """unsorted, sorted (by the generator) or gpu_sorted (by the index on the GPU)."""
    return r.get("probe_order") or ("sorted" if r["sorted_probes"] else "unsorted")


# The issue's targets for an H100, 32-bit keys, 2^26 keys, 2^27 point lookups, hit rate 1.
H100_TARGETS = (("unsorted probes", "probe", False, 45.0), ("sorted probes", "probe", True, 30.0),
                ("BVH build with compaction", "build", False, 120.0), ("compacted BVH", "bytes", False, 5.7))


def targets_table(rows, base):
    if "H100" not in base["device"]:
        return []
    out = ["Targets (issue 2, H100): default lookup (hit_and_scan, opaque rays), hit rate 1.", "",
           "| target | limit | measured | met |", "|---|---|---|---|"]
    for name, kind, s, limit in H100_TARGETS:
        r = newest([x for x in rows if order_of(x) == ("sorted" if s else "unsorted")],
                   label="paper-points", index="rx", method="hit_and_scan", opaque_hits=True,
                   hit_rate=1.0)
        if not r:
            continue
        if kind == "probe":
            v, unit = r["probe_time_ms"], "ms"
        elif kind == "build":
            v, unit = r["build_time_ms"], "ms"
        else:
            v, unit = r["build_bytes"] / 1e9, "GB"
        out.append(f"| {name} | {limit:g} {unit} | {fmt_ms(v) if unit == 'ms' else f'{v:.2f}'} {unit} | "
                   f"{'yes' if v <= limit else 'no'} |")
    out.append("")
    return out


def key_sweep(rows):
    """{variant: [(keys, row)]}: 2^27 unsorted hit-rate-1 lookups against the key count."""
    pts = [r for r in plain(rows) if r.get("label") in ("key-sweep", "paper-points") and r["hit_rate"] == 1.0
           and order_of(r) == "unsorted" and r["key_bits"] == 32 and r["num_lookups"] == 2 ** 27
           and (r.get("index") != "rx" or (method(r) == "hit_and_scan" and r.get("opaque_hits")))]
    out = {}
    for v in sorted({variant(r) for r in pts}, key=lambda v: (not v.startswith("rx"), v)):
        by_keys = {}
        for r in pts:
            if variant(r) == v and (r["num_keys"] not in by_keys or r["timestamp"] > by_keys[r["num_keys"]]["timestamp"]):
                by_keys[r["num_keys"]] = r
        out[v] = sorted(by_keys.items())
    return out if any(len(x) > 1 for x in out.values()) else {}


def key_sweep_table(rows):
    sweep = key_sweep(rows)
    if not sweep:
        return []
    keys = sorted({k for pts in sweep.values() for k, _ in pts})
    out = ["Lookups against the index size: 2^27 unsorted point lookups, hit rate 1, 32-bit uniform keys, "
           "probe ms (build ms):", "",
           "| index / lookup | " + " | ".join(f"2^{k.bit_length() - 1} keys" for k in keys) + " |",
           "|---|" + "---|" * len(keys)]
    for v, pts in sweep.items():
        d = dict(pts)
        out.append(f"| {v} | " + " | ".join(
            f"{fmt_ms(d[k]['probe_time_ms'])} ({fmt_ms(d[k]['build_time_ms'])})" if k in d else "" for k in keys) + " |")
    out.append("")
    return out


def newer_tables(rows):
    """cgRX, and RX built in partitions: 2^27 lookups, hit rate 1."""
    out = []
    cg = [r for r in plain(rows) if r.get("index") == "cgrx" and r.get("label") == "cgrx"]
    if cg:
        out += [f"cgRX (issue 7), {cg[0]['num_keys']} 32-bit keys, {cg[0]['num_lookups']} point lookups, hit rate 1 "
                "(first measurement; see docs/cgrx.md):", "",
                "| bucket size | probes | probe ms | rays per lookup | build ms | BVH MB |", "|---|---|---|---|---|---|"]
        for r in sorted(cg, key=lambda r: (r.get("bucket_size", 0), r["sorted_probes"])):
            out.append(f"| {r.get('bucket_size')} | {order_of(r)} | {fmt_ms(r['probe_time_ms'])} | "
                       f"{r['rays'] / r['num_lookups']:.3f} | {fmt_ms(r['build_time_ms'])} | {r['build_bytes'] / 1e6:.1f} |")
        out.append("")
    parts = [r for r in plain(rows) if r.get("label") == "partitions"]
    if parts:
        out += ["RX built in partitions (issue 7; `--partitions`), 2^26 keys, 2^27 unsorted point lookups, hit rate 1:", "",
                "| partitions | probe ms | build ms | BVH GB | peak build memory GB |", "|---|---|---|---|---|"]
        for r in sorted(parts, key=lambda r: r.get("partitions", 1)):
            out.append(f"| {r.get('partitions', 1)} | {fmt_ms(r['probe_time_ms'])} | {fmt_ms(r['build_time_ms'])} | "
                       f"{gb(r['build_bytes'])} | {gb(r['build_peak_bytes'])} |")
        out.append("")
    return out


# Issue 3's targets for the baselines on an H100, same sizes, hit rate 1.
BASELINE_TARGETS = (("hash", False, 16.0), ("sorted", False, 32.0), ("sorted", True, 4.0))


def baseline_targets_table(pts):
    rows = [newest([x for x in pts if order_of(x) == ("sorted" if s else "unsorted")], index=i, hit_rate=1.0)
            for i, s, _ in BASELINE_TARGETS]
    if not all(rows) or "H100" not in rows[0]["device"]:
        return []
    out = ["Targets (issue 3, H100) for the baselines on the same keys and lookups, hit rate 1:", "",
           "| baseline | probes | limit | measured | met |", "|---|---|---|---|---|"]
    for (i, s, limit), r in zip(BASELINE_TARGETS, rows):
        out.append(f"| {variant(r)} | {'sorted' if s else 'unsorted'} | {limit:g} ms | "
                   f"{fmt_ms(r['probe_time_ms'])} ms | {'yes' if r['probe_time_ms'] <= limit else 'no'} |")
    out.append("")
    return out


def gpu_tables(rows):
    out = []
    pts = plain(all_of(rows, label="paper-points"))
    rx = [r for r in pts if r.get("index", "rx") == "rx" and order_of(r) == "unsorted"]
    base = newest(rx, method="hit_and_scan", opaque_hits=True, hit_rate=1.0) or newest(rx, hit_rate=1.0)
    if not base:
        return out
    out.append(f"**{device_line(base)}**: 32-bit uniform unique keys, 2^26 keys, 2^27 point lookups; RX over "
               f"triangles, compacted BVH, ray-tracing pipeline; median of {base['repeats']} after "
               f"{base['warmup']} warm-up runs, GPU timestamps; every result checked against the CPU reference.")
    if any(r.get("note") for r in rows):
        out.append("")
        out.append("All rows in this file ran the any_hit lookup path: a bug in that version (since fixed) kept "
                   "the hit_and_scan flag from reaching the shaders, so rows measured as hit_and_scan were "
                   "relabeled any_hit (each row's `note` keeps what was asked). Where a configuration was "
                   "measured in several runs, each run's median is listed.")
    out.append("")
    out += targets_table(pts, base)
    # The sorted array's default layout (lines) was measured at the same sizes under its own label.
    lines = [r for r in plain(all_of(rows, label="sorted-layout")) if r.get("sorted_layout") == "lines"
             and r["num_keys"] == base["num_keys"] and r["num_lookups"] == base["num_lookups"]
             and r.get("key_bits", 32) == 32 and r.get("range_width", 0) == 0]
    out += baseline_targets_table(pts + lines)
    out.append("| index / lookup | hit rate | probes | probe ms (median of each run) | fastest repeat | "
               "lookups/s (best median) | checked |")
    out.append("|---|---|---|---|---|---|---|")
    variants = sorted({variant(r) for r in pts}, key=lambda v: (not v.startswith("rx"), v))
    for v in variants:
        for h in (1.0, 0.5, 0.0):
            for s in ("unsorted", "sorted", "gpu_sorted"):
                runs = sorted((r for r in pts if variant(r) == v and r["hit_rate"] == h and order_of(r) == s),
                              key=lambda r: r["timestamp"])
                if runs:
                    best = min(runs, key=lambda r: r["probe_time_ms"])
                    if s == "gpu_sorted":
                        s = f"sorted on the GPU (+ {fmt_ms(runs[-1]['probe_sort_ms'])} ms sort)"
                    out.append(f"| {v} | {h:g} | {s} | "
                               f"{', '.join(fmt_ms(r['probe_time_ms']) for r in runs)} | "
                               f"{fmt_ms(min(min(r['probe_time_ms_all']) for r in runs))} | "
                               f"{best['lookups_per_s'] / 1e9:.2f} G | "
                               f"{', '.join(sorted({r['checked_result'] for r in runs}))} |")
    out.append("")
    out.append(f"Build of that index ({variant(base)}):")
    out.append("")
    out.append("| build (2^26 keys) | value |")
    out.append("|---|---|")
    out.append(f"| BVH build: convert + build + compact (the paper's build time) | {fmt_ms(base['build_time_ms'])} ms "
               f"({fmt_ms(base['build_convert_ms'])} + {fmt_ms(base['build_bvh_ms'])} + {fmt_ms(base['build_compact_ms'])}) |")
    out.append(f"| GPU layout before it (radix sort by key, records, duplicate check) | {fmt_ms(base['layout_sort_ms'])} ms |")
    out.append(f"| key and value upload | {fmt_ms(base['build_upload_ms'])} ms |")
    out.append(f"| BVH, compacted (BLAS + TLAS) | {gb(base['build_bytes'])} GB |")
    out.append(f"| BVH before compaction | {gb(base['bvh_uncompacted_bytes'])} GB |")
    out.append(f"| peak device memory during the build | {gb(base['build_peak_bytes'])} GB |")
    out.append(f"| resident after the build (BVH + 16-byte records) | {gb(base['gpu_resident_bytes'])} GB |")
    for idx in ("sorted", "hash"):
        r = newest([x for x in pts if order_of(x) == "unsorted"], index=idx, hit_rate=1.0)
        if r:
            out.append(f"| {idx} baseline on the same keys: build / index size | {fmt_ms(r['build_time_ms'])} ms / "
                       f"{gb(r['build_bytes'])} GB |")
    out.append("")

    diag = [newest(rows, label=f"diagnostic-{d}", sorted_probes=s) for d in ("none", "trace_only", "no_trace")
            for s in (False, True)]
    if all(diag):
        out.append("Where point-lookup time goes (`raydb bench rx --diagnostic`, hit rate 1, same sizes): the full "
                   "lookup; the trace alone (opaque ray, committed primitive stored, no exact re-check, no scan); "
                   "the launch alone (query read, result written, no ray). Probe ms:")
        out.append("")
        out.append("| probes | full lookup | trace only | no trace |")
        out.append("|---|---|---|---|")
        for s in (False, True):
            cells = [r for r in diag if r["sorted_probes"] == s]
            out.append(f"| {'sorted' if s else 'unsorted'} | " + " | ".join(fmt_ms(r["probe_time_ms"]) for r in cells) + " |")
        out.append("")

    out += key_sweep_table(rows)
    out += newer_tables(rows)

    k64 = [newest(rows, label="key64", hit_rate=h, sorted_probes=s) for h in (1.0, 0.0) for s in (False, True)]
    if any(k64):
        out.append("64-bit uniform keys (same sizes): ")
        out.append("")
        out.append("| hit rate | probes | probe ms | build ms | BVH GB |")
        out.append("|---|---|---|---|---|")
        for r in filter(None, k64):
            out.append(f"| {r['hit_rate']:g} | {'sorted' if r['sorted_probes'] else 'unsorted'} | "
                       f"{fmt_ms(r['probe_time_ms'])} | {fmt_ms(r['build_time_ms'])} | {gb(r['build_bytes'])} |")
        out.append("")

    rng = [r for r in plain(rows) if r.get("label") == "ranges"]
    if rng:
        widths = sorted({r["range_width"] for r in rng})
        n = rng[0]["num_lookups"]
        out.append(f"Range lookups [k, k + w - 1] on dense keys 0..2^26-1 (w hits each), 2^{n.bit_length() - 1} lookups, "
                   "probe ms:")
        out.append("")
        out.append("| index / lookup | probes | " + " | ".join(f"w={w}" for w in widths) + " |")
        out.append("|---|---|" + "---|" * len(widths))
        for v in sorted({variant(r) for r in rng}, key=lambda v: (not v.startswith("rx"), v)):
            for s in (False, True):
                cells = []
                for w in widths:
                    hits = [r for r in rng if variant(r) == v and r["range_width"] == w and r["sorted_probes"] == s]
                    cells.append(fmt_ms(max(hits, key=lambda r: r["timestamp"])["probe_time_ms"]) if hits else "")
                out.append(f"| {v} | {'sorted' if s else 'unsorted'} | " + " | ".join(cells) + " |")
        out.append("")

    box = [r for r in rows if r.get("label") == "aabb-any-hit"]
    if box:
        out.append("Both methods over boxes and triangles, checked against the CPU reference (any_hit over boxes "
                   "once over-counted multi-line ranges on NVIDIA), unsorted probes, probe ms:")
        out.append("")
        out.append("| primitive | lookup | keys | lookups | range width | probe ms | checked |")
        out.append("|---|---|---|---|---|---|---|")
        for r in sorted(box, key=lambda r: (r["range_width"], r["primitive"], method(r))):
            out.append(f"| {r['primitive']} | {method(r)} | {r['key_dist']} | {r['num_lookups']} | {r['range_width']} | "
                       f"{fmt_ms(r['probe_time_ms'])} | {r['checked_result']} |")
        out.append("")

    var = []
    for prim, layout in (("triangles", "key"), ("triangles", "row"), ("aabbs", "key")):
        for s in (False, True):
            r = newest(rows, label="primitive-layout", primitive=prim, layout=layout, sorted_probes=s)
            if r:
                var.append((f"{prim}, {layout} order", r))
    for p in ("fast_trace", "fast_build"):
        for s in (False, True):
            r = newest(rows, label=f"prefer-{p}", sorted_probes=s)
            if r:
                var.append((f"triangles, prefer {p}", r))
    if var:
        out.append("Variants (32-bit, 2^26 keys, 2^27 lookups, hit rate 1, lookup method "
                   f"{', '.join(sorted({method(r) for _, r in var}))}):")
        out.append("")
        out.append("| variant | probes | probe ms | build ms | BVH GB | peak GB |")
        out.append("|---|---|---|---|---|---|")
        for name, r in var:
            out.append(f"| {name} | {'sorted' if r['sorted_probes'] else 'unsorted'} | {fmt_ms(r['probe_time_ms'])} | "
                       f"{fmt_ms(r['build_time_ms'])} | {gb(r['build_bytes'])} | {gb(r['build_peak_bytes'])} |")
        out.append("")
    return out


def cpu_tables(rows):
    out = []
    lay = [newest(rows, label="lavapipe-layout", layout=l) for l in ("key", "row")]
    if all(lay):
        r0 = lay[0]
        out.append(f"**{device_line(r0)}** (no GPU: rays traced on the CPU). Primitive layout, "
                   f"2^16 uniform keys, 2^14 point lookups:")
        out.append("")
        out.append("| layout | probe ms | build ms |")
        out.append("|---|---|---|")
        for r in lay:
            out.append(f"| {r['layout']} order | {fmt_ms(r['probe_time_ms'])} | {fmt_ms(r['build_time_ms'])} |")
        out.append("")
    rng = [r for r in rows if r.get("label") == "lavapipe-ranges"]
    if rng:
        widths = sorted({r["range_width"] for r in rng})
        out.append(f"Range lookups on dense keys, {rng[0]['num_keys']} keys, {rng[0]['num_lookups']} lookups, probe ms:")
        out.append("")
        out.append("| method | probes | " + " | ".join(f"w={w}" for w in widths) + " |")
        out.append("|---|---|" + "---|" * len(widths))
        for m in ("any_hit", "hit_and_scan"):
            for s in (False, True):
                cells = [newest(rows, label="lavapipe-ranges", method=m, range_width=w, sorted_probes=s) for w in widths]
                out.append(f"| {m} | {'sorted' if s else 'unsorted'} | " +
                           " | ".join(fmt_ms(r["probe_time_ms"]) if r else "" for r in cells) + " |")
        out.append("")
    base = [r for r in rows if r.get("label") == "lavapipe-baseline"]
    if base:
        out.append(f"RX against the sorted-array baseline on the same keys and lookups ({base[0]['num_keys']} keys, "
                   f"{base[0]['num_lookups']} point lookups), probe ms:")
        out.append("")
        out.append("| index | method | hit rate | probes | probe ms | build ms |")
        out.append("|---|---|---|---|---|---|")
        for r in sorted(base, key=lambda r: (r.get("index", "rx"), -r["hit_rate"], r["sorted_probes"])):
            out.append(f"| {r.get('index', 'rx')} | {method(r)} | {r['hit_rate']:g} | "
                       f"{'sorted' if r['sorted_probes'] else 'unsorted'} | {fmt_ms(r['probe_time_ms'])} | "
                       f"{fmt_ms(r['build_time_ms'])} |")
        out.append("")
    mat = [r for r in rows if r.get("label") == "lavapipe-matrix" and r["hit_rate"] == 1.0 and not r["sorted_probes"]]
    if mat:
        out.append("Both traversal modes, both primitives, both methods (2^20 keys, 2^16 lookups, hit rate 1, unsorted):")
        out.append("")
        out.append("| traversal | primitive | method | probe ms | build ms |")
        out.append("|---|---|---|---|---|")
        for r in sorted(mat, key=lambda r: (r["traversal"], r["primitive"], method(r))):
            out.append(f"| {r['traversal']} | {r['primitive']} | {method(r)} | {fmt_ms(r['probe_time_ms'])} | "
                       f"{fmt_ms(r['build_time_ms'])} |")
        out.append("")
    return out


def is_diagnostic(r):
    """A bandwidth diagnostic: one pass alone, a stream pass, or CUDA timed after a held stream."""
    return r.get("pass", "all") != "all" or (r.get("cuda_hold_us") or 0) > 0


def dpbis_table(d):
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
           "| index | kernels | rows | columns | selectivity | combine | query ms | GB/s moved | of copy bandwidth | candidates | checked |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['index']} | {r.get('backend', 'vulkan')} | {r['rows']} | {r['columns']} | {r['selectivity']:g} | {r['combine']} | "
                   f"{fmt_ms(r['query_time_ms'])} | {r['achieved_gbps']:.1f} | "
                   f"{'-' if r.get('bandwidth_fraction') is None else format(r['bandwidth_fraction'], '.2f')} | "
                   f"{r['candidates']} | {r['checked_result']} |")
    out.append("")
    return out


def tables():
    lines = []
    for d in sorted(p for p in RESULTS.iterdir() if p.is_dir()):
        rows = load(d)
        t = []
        if rows:
            t = gpu_tables(rows) if rows[0].get("device_type") != "CPU" else cpu_tables(rows)
        if t:
            lines.append(f"Source: `bench/results/{d.name}/rx.jsonl`.")
            lines.append("")
            lines += t
        lines += dpbis_table(d)
    text = README.read_text()
    if BEGIN not in text or END not in text:
        sys.exit(f"README.md lacks the {BEGIN} / {END} markers")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    README.write_text(head + BEGIN + "\n" + "\n".join(lines) + "\n" + END + tail)
    print(f"README.md: {len(lines)} lines of results")
    write_sections()
    if THESIS_BEGIN in README.read_text():
        thesis()


# --- "Where each optimization helps": the thesis's sweeps (bench/gpu/rx.sh thesis) beside the
# ratios the thesis reports (seed 002, Y. Wu, MSc thesis, U. Victoria 2025; its figures carry
# only ratios in the prose, measured on an RTX 4060 Laptop GPU with OptiX).

def _ratio(a, b):
    """a / b as 'x.xx×', or None when either side is missing."""
    if a is None or b is None or b <= 0:
        return None
    return f"{a / b:.2f}×"


def _val(row, key):
    return None if row is None else row.get(key)


def _sum(*xs):
    return None if any(x is None for x in xs) else sum(xs)


def _newest(rows, **match):
    """newest(), matching absent fields to their defaults where the CLI writes none."""
    defaults = {"compress_duplicates": False, "partitions_requested": 1, "range_width": 0,
                "cgrx_rays": "window", "probe_order": None}
    hits = [r for r in rows
            if all((method(r) if k == "method" else r.get(k, defaults.get(k))) == v
                   for k, v in match.items())]
    return max(hits, key=lambda r: r["timestamp"]) if hits else None


def _largest(rows, key, **match):
    """The value of `key` that is largest among rows matching `match` (None if none match)."""
    vals = [r.get(key) for r in all_of(rows, **match) if r.get(key) is not None]
    return max(vals) if vals else None


def thesis_rows(rx, join):
    """(optimization, our measurement, ours, thesis, source) tuples; 'not measured' when a row
    is missing. Each 'ours' is a ratio in the thesis's direction (> 1: the optimization helps)."""
    out = []
    nm = "not measured"

    def add(what, measured, ours, thesis, cite):
        out.append((what, measured, ours or nm, thesis, cite))

    # Revised range query (Alg. 3/4): one closest hit + scan vs any-hit per key.
    rh = [r for r in rx if r.get("label") == "thesis-range-hits"]
    for w in (4, 1024):
        a = _newest(rh, index="rx", method="any_hit", range_width=w)
        h = _newest(rh, index="rx", method="hit_and_scan", range_width=w)
        add(f"Revised range query, {w} hits per range",
            "probe time any_hit / hit_and_scan", _ratio(_val(a, "probe_time_ms"), _val(h, "probe_time_ms")),
            "≈10× at 1024 hits, > 1 at every width" if w == 1024 else "> 1 (smaller than at 1024)",
            "Fig 5.5")
    # Duplicates without compression, then with.
    mu = [r for r in rx if r.get("label") == "thesis-multiplicity"]
    for m, thesis in ((1, "< 1 (revised slower: the scan costs)"), (1024, "≈2.5×")):
        a = _newest(mu, index="rx", method="any_hit", multiplicity=m)
        h = _newest(mu, index="rx", method="hit_and_scan", multiplicity=m, compress_duplicates=False)
        add(f"Revised point lookups, multiplicity {m}", "probe time any_hit / hit_and_scan",
            _ratio(_val(a, "probe_time_ms"), _val(h, "probe_time_ms")), thesis, "Fig 5.6")
    h = _newest(mu, index="rx", method="hit_and_scan", multiplicity=1024, compress_duplicates=False)
    c = _newest(mu, index="rx", method="hit_and_scan", multiplicity=1024, compress_duplicates=True)
    add("Duplicate compression, multiplicity 1024", "probe time uncompressed / compressed",
        _ratio(_val(h, "probe_time_ms"), _val(c, "probe_time_ms")),
        "> 1 (probes as fast as the range case); compression ≈1/15 of the build", "Figs 5.10-5.11")
    # Partitioned builds.
    pa = [r for r in rx if r.get("label") == "thesis-partitions"]
    p1 = _newest(pa, index="rx", partitions_requested=1)
    for p in (16, 256):
        pp = _newest(pa, index="rx", partitions_requested=p)
        add(f"{p} sub-BVHs", "peak build memory P=1 / P=" + str(p),
            _ratio(_val(p1, "build_peak_bytes"), _val(pp, "build_peak_bytes")),
            "≈3× at 256, little gain past 16" if p == 256 else "most of the gain", "Fig 5.8")
    pp = _newest(pa, index="rx", partitions_requested=16)
    add("16 sub-BVHs", "probe time P=1 / P=16",
        _ratio(_val(p1, "probe_time_ms"), _val(pp, "probe_time_ms")), "≈1× (no trend)", "Fig 5.7")
    # Sorted probes, the sort included.
    sp = [r for r in rx if r.get("label") == "thesis-sorted-probes"]
    n = _largest(sp, "num_lookups", index="rx")
    for w, thesis, fig in ((0, "up to 3×, growing with probe size", "Fig 5.12"),
                           (16, "≈4× at every probe size", "Fig 5.13")):
        u = _newest(sp, index="rx", range_width=w, num_lookups=n, probe_order="unsorted")
        g = _newest(sp, index="rx", range_width=w, num_lookups=n, probe_order="gpu_sorted")
        kind = "points" if w == 0 else f"{w}-key ranges"
        add(f"Sorted probes, {kind}", "unsorted / (GPU sort + sorted probe)",
            _ratio(_val(u, "probe_time_ms"), _sum(_val(g, "probe_time_ms"), _val(g, "probe_sort_ms"))),
            thesis, fig)
    # Inverse mapping: the larger side as rays, the smaller indexed.
    inv = [r for r in join if r.get("label") == "thesis-inverse"]
    big_build = [r for r in inv if r.get("build_rows", 0) > r.get("probe_rows", 0)]
    b = _newest(big_build, index="rx", indexed_side="build")
    q = _newest(big_build, index="rx", indexed_side="probe")
    total = lambda r: _sum(_val(r, "index_time_ms"), _val(r, "join_time_ms"))
    add("Inverse mapping (build 4× the probe side)", "(build + probe) indexing the build side / "
        "indexing the probe side", _ratio(total(b), total(q)), "≈3.5×", "Fig 5.14")
    # Final comparison: RX against cgRX and the sorted array.
    bs = [r for r in rx if r.get("label") == "thesis-build-size"]
    k = _largest(bs, "num_keys", index="rx")
    rxb = _newest(bs, index="rx", num_keys=k)
    cg = _newest(bs, index="cgrx", num_keys=k, bucket_size=32)
    sa = _newest(bs, index="sorted", num_keys=k)
    add("Build memory, RX vs cgRX (bucket 32)", "peak build bytes RX / cgRX",
        _ratio(_val(rxb, "build_peak_bytes"), _val(cg, "build_peak_bytes")),
        "≈2.5× (4.5× in the cgRX paper)", "Fig 5.17")
    add("Build time, RX vs sorted array", "build time RX / SA (SA: its sort)",
        _ratio(_val(rxb, "build_time_ms"), _val(sa, "build_time_ms")), "up to 15×", "Fig 5.18")
    ps = [r for r in rx if r.get("label") == "thesis-probe-size"]
    n = _largest(ps, "num_lookups", index="rx")
    rxp = _newest(ps, index="rx", num_lookups=n)
    for other, thesis in (("sorted", "≥ 2× (SA fastest)"), ("cgrx", "> 1 above 2^23 probes")):
        o = _newest(ps, index=other, num_lookups=n, **({"bucket_size": 32} if other == "cgrx" else {}))
        add(f"Point lookups, sorted probes: {other} vs RX", f"probe time RX / {other}",
            _ratio(_val(rxp, "probe_time_ms"), _val(o, "probe_time_ms")),
            thesis if other == "sorted" else "< 1 (RX second only to SA)", "Fig 5.19")
    hr = [r for r in rx if r.get("label") == "thesis-hit-rate"]
    r0 = _newest(hr, index="rx", hit_rate=0.0)
    c0 = _newest(hr, index="cgrx", hit_rate=0.0)
    add("All misses: RX vs cgRX", "probe time cgRX / RX",
        _ratio(_val(c0, "probe_time_ms"), _val(r0, "probe_time_ms")), "slightly > 1", "Fig 5.22")
    # cgRX's first ray (ours; the thesis has no such variant).
    bk = [r for r in rx if r.get("label") == "thesis-bucket-size"]
    for order in ("unsorted", "sorted"):
        f = _newest(bk, index="cgrx", bucket_size=32, cgrx_rays="full", probe_order=order)
        w = _newest(bk, index="cgrx", bucket_size=32, cgrx_rays="window", probe_order=order)
        add(f"cgRX windowed first ray, {order} probes", "probe time whole-line ray / windowed",
            _ratio(_val(f, "probe_time_ms"), _val(w, "probe_time_ms")), "— (not in the thesis)",
            "docs/cgrx.md")
    # The join (the thesis materializes nothing and has no join baselines).
    jn = [r for r in join if r.get("label") == "thesis-join"]
    for output in ("aggregate", "pairs"):
        rj = _newest(jn, index="rx", output=output, multiplicity=1)
        for other in ("cgrx", "sort_merge", "sort_search", "sorted_array", "hash"):
            o = _newest(jn, index=other, output=output, multiplicity=1,
                        **({"bucket_size": 32} if other == "cgrx" else {}))
            total = lambda r: _sum(_val(r, "index_time_ms"), _val(r, "join_time_ms"))
            add(f"Join ({output}, multiplicity 1): RX vs {other}",
                f"(index + join) {other} / RX", _ratio(total(o), total(rj)),
                "— (no join baselines in the thesis)", "Ch. 4")
    return out


def thesis_lines():
    lines = []
    for d in sorted(p for p in RESULTS.iterdir() if p.is_dir()):
        rx = [r for r in load(d) if str(r.get("label", "")).startswith("thesis-")]
        join = [r for r in load(d, "join.jsonl") if str(r.get("label", "")).startswith("thesis-")]
        if not rx and not join:
            continue
        first = (rx or join)[0]
        lines.append(f"{device_line(first)}; rows labelled `thesis-*` in `bench/results/{d.name}/`"
                     " (`bench/gpu/rx.sh thesis`). Ratios > 1 mean the optimization (or RX) wins.")
        lines.append("")
        lines.append("| optimization | measured as | ours | thesis | thesis source |")
        lines.append("|---|---|---|---|---|")
        for what, measured, ours, thesis, cite in thesis_rows(rx, join):
            lines.append(f"| {what} | {measured} | {ours} | {thesis} | {cite} |")
        lines.append("")
    if not lines:
        lines = ["Not measured yet: run `bench/gpu/rx.sh thesis` on the GPU machine, copy the rows "
                 "into `bench/results/<device>/`, then `tools/report.py thesis`.", ""]
    lines.append("The thesis's ratios are from its prose (its figures carry no numbers); it ran "
                 "OptiX on an RTX 4060 Laptop GPU, 2^23 keys and 2^25 probes by default.")
    return lines


def thesis():
    text = README.read_text()
    if THESIS_BEGIN not in text or THESIS_END not in text:
        sys.exit(f"README.md lacks the {THESIS_BEGIN} / {THESIS_END} markers")
    head, rest = text.split(THESIS_BEGIN, 1)
    _, tail = rest.split(THESIS_END, 1)
    lines = thesis_lines()
    README.write_text(head + THESIS_BEGIN + "\n" + "\n".join(lines) + "\n" + THESIS_END + tail)
    print(f"README.md: {len(lines)} lines in 'Where each optimization helps'")


# --- Sections of their own, each between <!-- results:<name>:begin/end --> markers.

def rows_e(n):
    """1e+08 as 1e8."""
    m, e = f"{n:.0e}".split("e")
    return f"{m}e{int(e)}" if float(f"{m}e{int(e)}") == n else str(n)


def newest_by(rows, key):
    """The newest row of each configuration key(r)."""
    out = {}
    for r in rows:
        k = key(r)
        if k not in out or r["timestamp"] > out[k]["timestamp"]:
            out[k] = r
    return out


def api_pairs(rows, key):
    """The configurations key(r) that have a newest row in both APIs, in key order, as
    (key, Vulkan row, OptiX row): what every Vulkan-vs-OptiX table lists."""
    best = newest_by(rows, lambda r: (key(r), r["api"]))
    keys = sorted({k for k, api in best if (k, "vulkan") in best and (k, "optix") in best})
    return [(k, best[(k, "vulkan")], best[(k, "optix")]) for k in keys]


def device_dirs():
    return sorted(p for p in RESULTS.iterdir() if p.is_dir())


def pow2(n):
    """2^k for powers of two, the number otherwise."""
    return f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else str(n)


def optix_section():
    """Vulkan against OptiX on the same keys and lookups (rows of one label with api vulkan and optix)."""
    out = []
    for d in device_dirs():
        rows = [r for r in load(d) if r.get("api") in ("vulkan", "optix") and r.get("diagnostic", "none") == "none"]
        labels = {r["label"] for r in rows if r.get("api") == "optix"}
        cfg = lambda r: (r["label"], r.get("index", "rx"), method(r), r.get("primitive"), r["key_bits"], r["num_keys"],
                         r["num_lookups"], r["hit_rate"], order_of(r), r.get("range_width", 0),
                         r.get("build_preference", "fast_trace"), r.get("bucket_size", 0))
        # Each OptiX twin (RxOptixOptions, `optix_variant`) pairs with the Vulkan row of its run.
        twin = lambda r: r.get("optix_variant", "base") if r["api"] == "optix" else "-"
        best = newest_by([r for r in rows if r["label"] in labels and r["checked_result"] == "ok"],
                         lambda r: cfg(r) + (r["api"], twin(r)))
        pairs = [(best[k[:-2] + ("vulkan", "-")], best[k]) for k in sorted(best, key=str)
                 if k[-2] == "optix" and k[:-2] + ("vulkan", "-") in best]
        if not pairs:
            continue
        v0, o0 = pairs[0]
        out += [f"Source: `bench/results/{d.name}/rx.jsonl`, labels {', '.join(f'`{l}`' for l in sorted(labels))}. "
                f"{device_line(v0)}, OptiX {o0.get('optix_version', '?')}; compacted BVH (Vulkan: BLAS + TLAS; OptiX: "
                "one GAS); both APIs on the same keys and lookups in one run, only rows whose result check was ok. "
                "Width 0: point lookups. Ratio: OptiX / Vulkan.", "",
                "| label | lookup | primitive | key bits | keys | key dist | lookups | width | hit rate | probes | "
                "build preference | OptiX twin | "
                "Vulkan build ms | OptiX build ms | Vulkan BVH MB | OptiX BVH MB | "
                "Vulkan probe ms | OptiX probe ms | probe ratio | OptiX result |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for v, o in sorted(pairs, key=lambda p: (p[0]["label"], p[0].get("primitive", ""), p[0]["key_bits"], p[0].get("range_width", 0),
                                                 method(p[0]) != "hit_and_scan", -p[0]["hit_rate"], -p[0]["num_keys"],
                                                 order_of(p[0]), p[0].get("build_preference", ""),
                                                 p[1].get("optix_variant", "base") != "base",
                                                 p[1].get("optix_variant", "base"))):
            bucket = f", bucket {v['bucket_size']}" if "bucket_size" in v else ""  # cgRX
            out.append(f"| `{v['label']}` | {variant(v)}{bucket} | {v.get('primitive', '?')} | {v['key_bits']} | {pow2(v['num_keys'])} | "
                       f"{v.get('key_dist', '?')} | {pow2(v['num_lookups'])} | {v.get('range_width', 0)} | "
                       f"{v['hit_rate']:g} | {order_of(v)} | {v.get('build_preference', 'fast_trace')} | "
                       f"{o.get('optix_variant', 'base')} | {fmt_ms(v['build_time_ms'])} | "
                       f"{fmt_ms(o['build_time_ms'])} | {v['build_bytes'] / 1e6:.0f} | {o['build_bytes'] / 1e6:.0f} | "
                       f"{fmt_ms(v['probe_time_ms'])} | {fmt_ms(o['probe_time_ms'])} | "
                       f"{o['probe_time_ms'] / v['probe_time_ms']:.2f} | {o.get('api_check', '-')} |")
        out.append("")
    out += optix_rtscan_table()
    out += optix_ssb_table()
    out += optix_join_table()
    return out or ["Not measured yet (`bench/gpu/optix.sh`).", ""]


def optix_rtscan_table():
    """RTScan's refine through Vulkan and OptiX on the same table and queries (label optix-rtscan)."""
    out = []
    for d in device_dirs():
        rows = [r for r in load(d, "rtscan.jsonl") if r.get("label") == "optix-rtscan"]
        if not rows:
            continue
        pairs = api_pairs(rows, lambda r: r["selectivity"])
        if not pairs:
            continue
        _, v0, o0 = pairs[0]
        out += [f"RTScan's Matrix RT Refine through both APIs (`bench/gpu/optix.sh rtscan`, label `optix-rtscan`, "
                f"`bench/results/{d.name}/rtscan.jsonl`): {v0['rows']:,} rows x {v0['columns']} permutation columns, "
                f"K = {v0['bins']}, the same table, cubes, lattice and queries; sieve and merge in Vulkan for both. "
                f"BVH: Vulkan {v0['bvh_bytes'] / 1e6:.0f} MB (BLAS + TLAS) built in {fmt_ms(v0['build_bvh_ms'])} ms, "
                f"OptiX {o0['bvh_bytes'] / 1e6:.0f} MB (GAS, compacted) in {fmt_ms(o0['build_bvh_ms'])} ms.", "",
                "| selectivity | rays | Vulkan refine ms | OptiX refine ms | ratio | Vulkan query ms | OptiX query ms | "
                "result rows | checked (Vulkan / OptiX) |", "|---|---|---|---|---|---|---|---|---|"]
        for sel, v, o in pairs:
            ratio = f"{o['refine_ms'] / v['refine_ms']:.1f}" if v["refine_ms"] > 0.01 else "-"
            out.append(f"| {sel:g} | {v['rays']} | {fmt_ms(v['refine_ms'])} | {fmt_ms(o['refine_ms'])} | {ratio} | "
                       f"{fmt_ms(v['query_time_ms'])} | {fmt_ms(o['query_time_ms'])} | {v['result_rows']:,} | "
                       f"{v['checked_result']} / {o['checked_result']}, {o.get('api_check', '-')} |")
        out.append("")
    return out


def optix_ssb_table():
    """The SSB engine's rays through Vulkan and OptiX on the same tables and encoding (label optix-ssb)."""
    out = []
    for d in device_dirs():
        rows = [r for r in load(d, "ssb.jsonl") if r.get("label") == "optix-ssb" and r.get("api")]
        if not rows:
            continue
        pairs = api_pairs(rows, lambda r: (r["sf"], r["query"]))
        if not pairs:
            continue
        v0 = pairs[0][1]
        out += [f"The SSB engine through both APIs (`bench/gpu/optix.sh ssb`, label `optix-ssb`, "
                f"`bench/results/{d.name}/ssb.jsonl`; {device_line(v0)}): the same tables, encoding, triangles "
                "and rays; query = median trace of 5 (Vulkan timestamps, OptiX CUDA events); build = BVH build + "
                "compaction; BVH: Vulkan BLAS + TLAS, OptiX GAS.", "",
                "| SF | query | rays | Vulkan ms | OptiX ms | ratio | Vulkan build ms | OptiX build ms | "
                "Vulkan BVH MiB | OptiX BVH MiB | checked (Vulkan / OptiX) |",
                "|---|---|---|---|---|---|---|---|---|---|---|"]
        for k, v, o in pairs:
            out.append(f"| {k[0]:g} | {k[1]} | {v['rays']} | {fmt_ms(v['query_ms'])} | {fmt_ms(o['query_ms'])} | "
                       f"{o['query_ms'] / v['query_ms']:.1f} | {fmt_ms(v['bvh_build_ms'])} | "
                       f"{fmt_ms(o['bvh_build_ms'])} | {v['bvh_bytes'] / 1048576:.0f} | "
                       f"{o['bvh_bytes'] / 1048576:.0f} | {v['checked_result']} / {o['checked_result']}, "
                       f"{o.get('api_check', '-')} |")
        out.append("")
    return out


def optix_join_table():
    """The RX and cgRX joins through Vulkan and OptiX on the same sides (labels optix-join,
    optix-cgrx-join)."""
    out = []
    for d in device_dirs():
        rows = [r for r in load(d, "join.jsonl") if r.get("label") in ("optix-join", "optix-cgrx-join")]
        if not rows:
            continue
        pairs = api_pairs(rows, lambda r: (r["index"], r["output"], r["indexed_side"]))
        if not pairs:
            continue
        v0 = pairs[0][1]
        out += [f"The RX and cgRX joins through both APIs (`bench/gpu/optix.sh join cgrx-join`, labels "
                f"`optix-join`, `optix-cgrx-join`, `bench/results/{d.name}/join.jsonl`): "
                f"{pow2(v0['build_rows'])} build x {pow2(v0['probe_rows'])} "
                f"probe rows, {v0['key_bits']}-bit keys, multiplicity {v0['multiplicity']}, hit rate "
                f"{v0['hit_rate']:g}, median of {v0['repeats']}; index = records sort + BVH (OptiX: GAS) build; "
                "the cgRX join's collect pass (a copy of the runs) is Vulkan's in both; "
                "every result checked whole against the CPU join.", "",
                "| index | output | indexed side | Vulkan index ms | OptiX index ms | Vulkan count ms | OptiX count ms | "
                "Vulkan collect ms | OptiX collect ms | join ratio | checked (Vulkan / OptiX) |",
                "|---|---|---|---|---|---|---|---|---|---|---|"]
        for k, v, o in pairs:
            out.append(f"| {k[0]} | {k[1]} | {k[2]} | {fmt_ms(v['index_time_ms'])} | {fmt_ms(o['index_time_ms'])} | "
                       f"{fmt_ms(v['count_ms'])} | {fmt_ms(o['count_ms'])} | {fmt_ms(v['collect_ms'])} | "
                       f"{fmt_ms(o['collect_ms'])} | {o['join_time_ms'] / v['join_time_ms']:.2f} | "
                       f"{v['checked_result']} / {o['checked_result']} |")
        out.append("")
    return out


def cgrx_section():
    """cgRX's first ray (windowed vs whole line) and where its time goes, beside RX at the same size."""
    out = []
    for d in device_dirs():
        rows = load(d)
        cg = [r for r in rows if r.get("index") == "cgrx" and
              (r.get("label") == "cgrx-ray" or str(r.get("label", "")).startswith("cgrx-diagnostic-"))]
        if not cg:
            continue
        best = newest_by(cg, lambda r: (r["bucket_size"], r.get("cgrx_rays", "window"), order_of(r),
                                        r.get("diagnostic", "none")))
        n, k = cg[0]["num_lookups"], cg[0]["num_keys"]
        rx = [r for r in plain(rows) if r.get("index", "rx") == "rx" and r.get("api", "vulkan") == "vulkan"
              and r["num_keys"] == k and r["num_lookups"] == n and r["hit_rate"] == 1.0 and r["key_bits"] == 32
              and method(r) == "hit_and_scan" and r.get("opaque_hits") and r.get("primitive", "triangles") == "triangles"
              and r.get("partitions", 1) == 1 and r.get("label") in ("paper-points", "optix-points")]
        out += [f"Source: `bench/results/{d.name}/rx.jsonl`, labels `cgrx-ray`, `cgrx-diagnostic-*`; "
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


def plain_or_diag(rows, diag):
    """RX's own --diagnostic rows (label diagnostic-<diag>)."""
    return [r for r in rows if r.get("label") == f"diagnostic-{diag}" and r.get("index", "rx") == "rx"]


JOIN_ORDER = {"rx": 0, "cgrx": 1, "sort_merge": 2, "sort_search": 3, "sorted_array": 4, "hash": 5}


def join_name(r):
    """The join column: the index, with cgRX's bucket size."""
    return f"cgrx{r.get('bucket_size', 32)}" if r["index"] == "cgrx" else r["index"]


def join_section():
    out = []
    for d in device_dirs():
        rows = [r for r in load(d, "join.jsonl") if r.get("api", "vulkan") == "vulkan"]
        if not rows:
            continue
        best = newest_by(rows, lambda r: (r["label"], r["output"], r["multiplicity"], r["build_rows"], r["probe_rows"],
                                          r["index"], r.get("indexed_side", "build"), r["hit_rate"],
                                          r.get("bucket_size", 0)))
        out += [f"Source: `bench/results/{d.name}/join.jsonl` (`raydb bench join`); {device_line(rows[0])}; "
                f"{rows[0]['key_bits']}-bit keys, GPU timestamps, median of {rows[0]['repeats']} after "
                f"{rows[0]['warmup']} warm-up. index: building the index on the indexed side (RX: its BVH; "
                "cgRX: its sort + BVH; sort_merge, sort_search and sorted_array: the build side's sort; hash: sort + insert); probe sort: sort_merge's and sort_search's sort of the probe side; count: the pass that counts "
                "matches (the whole join for `aggregate`); collect: writing the pairs; join = probe sort + count + "
                "collect. Multiplicity: matches per probe key.", "",
                "| label | output | build rows | probe rows | multiplicity | join | indexed side | index ms | "
                "probe sort ms | count ms | collect ms | join ms | index + join ms | matches | checked |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for k, r in sorted(best.items(), key=lambda kv: (kv[0][0] != "thesis-join", kv[0][1], kv[0][2], kv[0][3],
                                                          kv[0][4], JOIN_ORDER.get(kv[0][5], 9), kv[0][8],
                                                          kv[0][6])):
            out.append(f"| {r['label']} | {r['output']} | {r['build_rows']} | {r['probe_rows']} | {r['multiplicity']} | "
                       f"{join_name(r)} | {r.get('indexed_side', 'build')} | {fmt_ms(r['index_time_ms'])} | "
                       f"{fmt_ms(r['probe_sort_ms']) if 'probe_sort_ms' in r else '-'} | {fmt_ms(r['count_ms'])} | {fmt_ms(r['collect_ms'])} | "
                       f"{fmt_ms(r['join_time_ms'])} | {fmt_ms(r['index_time_ms'] + r['join_time_ms'])} | "
                       f"{r['matches']} | {r['checked_result']} |")
        out.append("")
    return out or ["Not measured yet (`bench/gpu/rx.sh thesis`).", ""]


# Issue targets for RTScan's main sweep on an H100.
RTSCAN_TARGETS = {"query_ms": 1.2, "build_ms": 5000.0, "bvh_bytes": 7.6e9}


def rtscan_main(rows):
    """(label, {selectivity: rtscan row}, {selectivity: full_scan row}) of the main sweep, or None."""
    main = [r for r in rows if r.get("label") == "paper-main"]
    if not main:
        return None
    key = lambda r: (r["index"], r["selectivity"])
    best = newest_by(main, key)
    rt = {s: r for (i, s), r in best.items() if i == "rtscan"}
    fs = {s: r for (i, s), r in best.items() if i == "full_scan"}
    return ("paper-main", rt, fs) if rt else None


def rtscan_section():
    out = []
    for d in device_dirs():
        m = rtscan_main(load(d, "rtscan.jsonl"))
        if not m:
            continue
        label, rt, fs = m
        r0 = next(iter(rt.values()))
        out += [f"Source: `bench/results/{d.name}/rtscan.jsonl`, label `{label}` (`bench/gpu/rtscan.sh`); "
                f"{device_line(r0)}; {r0['rows']:,} rows x {r0['columns']} uint32 columns ({r0['distribution']} of "
                f"0..N-1 per column), K = {r0['bins']} bins, one `lt` predicate per column at the given selectivity "
                f"(all three), GPU timestamps, median of {r0['repeats']} after {r0['warmup']} warm-up; query time "
                "without the result transfer (transfer ms listed apart). IS calls: intersection-shader calls.", "",
                "| selectivity | result rows | RTScan ms | sieve ms | refine ms | merge ms | rays | IS calls | "
                "refined rows | transfer ms | full scan ms | checked (RTScan / full scan) |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for s in sorted(rt):
            r, f = rt[s], fs.get(s)
            out.append(f"| {s:g} | {r['result_rows']} | {fmt_ms(r['query_time_ms'])} | {fmt_ms(r['sieve_ms'])} | "
                       f"{fmt_ms(r['refine_ms'])} | {fmt_ms(r['merge_ms'])} | {r['rays']} | {r['intersections']} | "
                       f"{r['refined_rows']} | {fmt_ms(r['transfer_ms'])} | {fmt_ms(f['query_time_ms']) if f else '-'} | "
                       f"{r['checked_result']} / {f['checked_result'] if f else '-'} |")
        mean = sum(r["query_time_ms"] for r in rt.values()) / len(rt)
        fmean = sum(r["query_time_ms"] for r in fs.values()) / len(fs) if fs else None
        b = max(rt.values(), key=lambda r: r["timestamp"])
        build = b["index_build_ms"]
        out += ["", "| over the sweep | target (issue, H100) | measured | met |", "|---|---|---|---|",
                f"| mean RTScan query time over the {len(rt)} queries | <= {RTSCAN_TARGETS['query_ms']:g} ms | "
                f"{fmt_ms(mean)} ms (full scan: {fmt_ms(fmean) if fmean is not None else '-'} ms) | "
                f"{'yes' if mean <= RTSCAN_TARGETS['query_ms'] else 'no'} |",
                f"| index build: encode {fmt_ms(b['build_encode_ms'])} ms GPU + {fmt_ms(b['build_encode_host_ms'])} ms "
                f"host, sieve {fmt_ms(b['build_sieve_ms'])} ms, BVH {fmt_ms(b['build_bvh_ms'])} ms "
                f"(upload {fmt_ms(b['build_upload_ms'])} ms not included) | <= {RTSCAN_TARGETS['build_ms'] / 1000:g} s | "
                f"{build / 1000:.2f} s | {'yes' if build <= RTSCAN_TARGETS['build_ms'] else 'no'} |",
                f"| BVH size | <= {RTSCAN_TARGETS['bvh_bytes'] / 1e9:g} GB | {gb(b['bvh_bytes'])} GB (sieving vectors: "
                f"{gb(b['sieve_bytes'])} GB more) | {'yes' if b['bvh_bytes'] <= RTSCAN_TARGETS['bvh_bytes'] else 'no'} |",
                ""]
        out.append(f"![RTScan against selectivity]({'bench/plots/' + d.name + '-rtscan.png'})")
        out.append("")
        out += rtscan_baselines(d, rt)
        out += rtscan_side_experiments(d)
        out += rtscan_tpch(d)
        out += rtscan_transfer(d)
    return out or ["Not measured yet (`bench/gpu/rtscan.sh`).", ""]


RTSCAN_BASELINES = ("full_scan", "sieve", "dpbis", "cpu_bindex")


def rtscan_baselines(d, rt):
    """Every baseline on the main sweep's data shape (label paper-baselines) beside RTScan's main sweep."""
    rows = [r for r in load(d, "rtscan.jsonl") if r.get("label") == "paper-baselines" and r["checked_result"] == "ok"]
    if not rows:
        return []
    best = newest_by(rows, lambda r: (r["index"], r["selectivity"]))
    names = [b for b in RTSCAN_BASELINES if any(i == b for i, _ in best)]
    head = {"full_scan": "full scan ms", "sieve": "GPU sieve (BinDex-style) ms", "dpbis": "DP-BIS ms",
            "cpu_bindex": "CPU BinDex ms (host clock)"}
    out = [f"Baselines on the same kind of data (label `paper-baselines`: fresh 1e8 x 3 permutation columns, same "
           f"queries, every result checked whole; median of {rows[0]['repeats']}), RTScan from the main sweep above:", "",
           "| selectivity | RTScan ms | " + " | ".join(head[n] for n in names) + " |",
           "|---|---|" + "---|" * len(names)]
    sels = sorted({s for _, s in best})
    for s in sels:
        cells = [fmt_ms(best[(n, s)]["query_time_ms"]) if (n, s) in best else "-" for n in names]
        out.append(f"| {s:g} | {fmt_ms(rt[s]['query_time_ms']) if s in rt else '-'} | " + " | ".join(cells) + " |")
    means = [sum(best[(n, s)]["query_time_ms"] for s in sels if (n, s) in best) /
             max(1, sum(1 for s in sels if (n, s) in best)) for n in names]
    rmean = sum(r["query_time_ms"] for r in rt.values()) / len(rt)
    out += [f"| mean | {fmt_ms(rmean)} | " + " | ".join(fmt_ms(m) for m in means) + " |", ""]
    return out


def rtscan_tpch(d):
    """TPC-H Q3, Q6, Q17 predicates (label tpch): RTScan against every baseline, per query."""
    rows = [r for r in load(d, "rtscan.jsonl") if r.get("label") == "tpch" and r["checked_result"] == "ok"]
    if not rows:
        return []
    best = newest_by(rows, lambda r: (r["query"], r["scale_factor"], r["index"]))
    names = ["rtscan"] + [b for b in RTSCAN_BASELINES if any(k[2] == b for k in best)]
    out = ["TPC-H predicates (`bench/gpu/rtscan.sh tpch`, label `tpch`: three columns of LINEITEM's rows per "
           "query, docs/rtscan.md; every result checked whole; ms per query, CPU BinDex host clock):", "",
           "| query | SF | rows | predicates | result rows | " + " | ".join(f"{n} ms" for n in names) + " |",
           "|---|---|---|---|---|" + "---|" * len(names)]
    for q, sf in sorted({k[:2] for k in best}):
        r0 = best.get((q, sf, "rtscan")) or next(r for k, r in best.items() if k[:2] == (q, sf))
        cells = [fmt_ms(best[(q, sf, n)]["query_time_ms"]) if (q, sf, n) in best else "-" for n in names]
        out.append(f"| {q} | {sf:g} | {r0['rows']:,} | {'; '.join(r0.get('predicates', []))} | {r0['result_rows']:,} | "
                   + " | ".join(cells) + " |")
    out.append("")
    return out


def rtscan_transfer(d):
    """The result transfer (label transfer): the reader's parts against the per-call path and the count."""
    rows = [r for r in load(d, "rtscan.jsonl") if r.get("label") == "transfer" and r.get("transfer_device_ms") is not None]
    if not rows:
        return []
    best = newest_by(rows, lambda r: (r["index"], r["selectivity"]))
    out = ["Result transfer (`bench/gpu/rtscan.sh transfer`, label `transfer`; host clock except the device copy; "
           f"{rows[0]['transfer_bytes']:,}-byte bitmaps, host-cached staging: {rows[0]['transfer_host_cached']}):", "",
           "| index | selectivity | query ms | reader ms | of it device copy ms | of it host memcpy ms | "
           "per-call words() ms | count() ms |", "|---|---|---|---|---|---|---|---|"]
    for (i, sel), r in sorted(best.items()):
        out.append(f"| {i} | {sel:g} | {fmt_ms(r['query_time_ms'])} | {fmt_ms(r['transfer_ms'])} | "
                   f"{fmt_ms(r['transfer_device_ms'])} | {fmt_ms(r['transfer_host_copy_ms'])} | "
                   f"{fmt_ms(r['transfer_per_call_ms'])} | {fmt_ms(r['count_ms'])} |")
    out.append("")
    return out


RTSCAN_SIDE_LABELS = ("variants", "variants-rtindex", "groups-3+1", "groups-2+2", "skew", "zipf-1.1", "zipf-1.3",
                      "zipf-1.5", "sweep-bins", "sweep-is", "sweep-l")


def rtscan_side_experiments(d):
    """The side experiments of bench/gpu/rtscan.sh (variants, groupings, distributions, K / I / S / L)."""
    rows = [r for r in load(d, "rtscan.jsonl") if r.get("label") in RTSCAN_SIDE_LABELS and not r.get("superseded")]
    if not rows:
        return []
    key = lambda r: (r["label"], r["index"], r.get("distribution"), r.get("zipf"), r["rows"], r["selectivity"],
                     r.get("bins"), r.get("interval"), r.get("spacing"), r.get("segment"), r.get("groups"))
    best = newest_by(rows, key)
    out = ["Side experiments (`bench/gpu/rtscan.sh variants params skew`; every result checked whole against the "
           "CPU scan; I, S, L 0 = the default: I = key range / 1200, S = I, L = range / 90). RTScan modes: `rtscan` "
           "(sieve + Matrix RT Refine), `rtc3` / `rtc1` (the whole query box traced, 3 or 1 columns per BVH), "
           "`rtindex` (one ray per predicate over its keys).", "",
           "| label | index / mode | distribution | rows | sel | K | I | S | L | groups | query ms | refine ms | rays | "
           "result rows | checked |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    order = {l: i for i, l in enumerate(RTSCAN_SIDE_LABELS)}
    for k in sorted(best, key=lambda k: (order[k[0]], k[1] not in ("rtscan", "rtc3", "rtc1", "rtindex"), str(k[1:]))):
        r = best[k]
        rt = r["index"] in ("rtscan", "rtc3", "rtc1", "rtindex")
        dist = r.get("distribution", "?") + (f" {r['zipf']:g}" if r.get("zipf") else "")
        g = lambda f: f"{r[f]:g}" if rt and r.get(f) is not None else "-"
        out.append(f"| {r['label']} | {r['index']} | {dist} | {r['rows']:.0e} | {r['selectivity']:g} | "
                   f"{r['bins'] if rt else '-'} | {g('interval')} | {g('spacing')} | {g('segment')} | "
                   f"{r.get('groups', '-') if rt else '-'} | {fmt_ms(r['query_time_ms'])} | "
                   f"{fmt_ms(r['refine_ms']) if rt else '-'} | {r['rays'] if rt else '-'} | {r['result_rows']} | "
                   f"{r['checked_result']} |")
    out.append("")
    return out


SSB_QUERIES = ["Q1.1", "Q1.2", "Q1.3", "Q2.1", "Q2.2", "Q2.3", "Q3.1", "Q3.2", "Q3.3", "Q3.4", "Q4.1", "Q4.2", "Q4.3"]


def ssb_rows(d):
    # The ab experiment's rows (ssb-ab-*: older ray and atomic settings) are not the engine's defaults,
    # and the OptiX comparison's rows (optix-*: the twin, its switches and diagnostics) have their
    # own table in docs/optix.md or the README's OptiX section.
    rows = [r for r in load(d, "ssb.jsonl")
            if not str(r.get("label", "")).startswith(("ssb-ab-", "optix-"))]
    return newest_by(rows, lambda r: (r["sf"], r["query"], r["engine"])) if rows else {}


def ssb_section():
    out = []
    for d in device_dirs():
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
            for q in sorted({k[1] for k in best if k[0] == sf}, key=lambda q: (SSB_QUERIES.index(q) if q in SSB_QUERIES else 99, q)):
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


def bandwidth_section():
    """bench/gpu/bandwidth.sh: each query beside its passes alone, as a fraction of the copy ceiling; streams."""
    out = []
    for d in device_dirs():
        every = load(d, "dpbis.jsonl")
        rows = [r for r in every if str(r.get("label", "")).startswith("bandwidth-")]
        if not rows:
            continue
        kernels = lambda r: r.get("backend", "vulkan") + (f", hold {r['cuda_hold_us']:g} us" if r.get("cuda_hold_us") else "")
        best = newest_by(rows, lambda r: (r["index"], kernels(r), r["rows"], r["columns"], r["selectivity"],
                                          r.get("stream_bytes", 0)))
        copy = sorted({round(r["copy_gbps"]) for r in rows if r.get("copy_gbps")})
        copy = f"{copy[0]} GB/s" if len(copy) == 1 else f"{copy[0]} to {copy[-1]} GB/s"
        out += [f"Source: `bench/results/{d.name}/dpbis.jsonl`, labels `bandwidth-*` (`bench/gpu/bandwidth.sh`); "
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


SECTIONS = {"optix": optix_section, "cgrx": cgrx_section, "join": join_section, "rtscan": rtscan_section,
            "ssb": ssb_section, "bandwidth": bandwidth_section}


def write_sections():
    text = README.read_text()
    for name, make in SECTIONS.items():
        b, e = f"<!-- results:{name}:begin -->", f"<!-- results:{name}:end -->"
        if b not in text or e not in text:
            sys.exit(f"README.md lacks the {b} / {e} markers")
        head, rest = text.split(b, 1)
        _, tail = rest.split(e, 1)
        lines = make()
        text = head + b + "\n" + "\n".join(lines) + "\n" + e + tail
        print(f"README.md: {len(lines)} lines in results:{name}")
    README.write_text(text)


def plots():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    outdir = ROOT / "bench" / "plots"
    outdir.mkdir(parents=True, exist_ok=True)
    for d in sorted(p for p in RESULTS.iterdir() if p.is_dir()):
        rows = load(d)
        pts = plain([r for r in rows if r.get("label") == "paper-points"])
        if pts:
            fig, ax = plt.subplots(figsize=(6.4, 4))
            markers = "osd^vx"
            for i, v in enumerate(sorted({variant(r) for r in pts}, key=lambda v: (not v.startswith("rx"), v))):
                for s, line in ((False, "-"), (True, "--")):
                    xs, ys = [], []
                    for h in (0.0, 0.5, 1.0):
                        runs = [r for r in pts if variant(r) == v and r["hit_rate"] == h and r["sorted_probes"] == s]
                        if runs:
                            xs.append(h)
                            ys.append(max(r["lookups_per_s"] for r in runs) / 1e9)
                    if xs:
                        ax.plot(xs, ys, markers[i % len(markers)] + line,
                                label=f"{v}, {'sorted' if s else 'unsorted'}")
            ax.set_xlabel("hit rate")
            ax.set_ylabel("point lookups / s (billions, best run median)")
            ax.set_ylim(bottom=0)
            ax.set_title(f"Point lookups, 2^26 keys, 2^27 lookups\n{device_line(pts[0])}", fontsize=9)
            ax.legend(fontsize=6)
            fig.tight_layout()
            fig.savefig(outdir / f"{d.name}-rx-points.png", dpi=120)
            plt.close(fig)
        rng = [r for r in plain(rows) if r.get("label") == "ranges"]
        if rng:
            fig, ax = plt.subplots(figsize=(6.4, 4))
            widths = sorted({r["range_width"] for r in rng})
            markers = "osd^vx"
            for i, v in enumerate(sorted({variant(r) for r in rng}, key=lambda v: (not v.startswith("rx"), v))):
                for s, line in ((False, "-"), (True, "--")):
                    ys = []
                    for w in widths:
                        hits = [r for r in rng if variant(r) == v and r["range_width"] == w and r["sorted_probes"] == s]
                        ys.append(max(hits, key=lambda r: r["timestamp"]) if hits else None)
                    if all(ys):
                        ax.plot(widths, [r["probe_time_ms"] for r in ys], markers[i % len(markers)] + line,
                                label=f"{v}, {'sorted' if s else 'unsorted'}")
            ax.set_xscale("log", base=2)
            ax.set_xlabel("hits per range lookup")
            ax.set_ylabel("probe time (ms)")
            ax.set_title(f"RX range lookups, 2^26 dense keys, {rng[0]['num_lookups']} lookups\n{device_line(rng[0])}",
                         fontsize=9)
            ax.legend(fontsize=8)
            fig.tight_layout()
            fig.savefig(outdir / f"{d.name}-rx-ranges.png", dpi=120)
            plt.close(fig)
        sweep = key_sweep(rows)
        if sweep:
            fig, ax = plt.subplots(figsize=(6.4, 4))
            for i, (v, pts) in enumerate(sweep.items()):
                ax.plot([k for k, _ in pts], [r["lookups_per_s"] / 1e9 for _, r in pts], "osd^vx"[i % 6] + "-", label=v)
            ax.set_xscale("log", base=2)
            ax.set_xlabel("keys in the index")
            ax.set_ylabel("point lookups / s (billions)")
            ax.set_ylim(bottom=0)
            ax.set_title(f"2^27 unsorted lookups, hit rate 1\n{device_line(pts[0][1])}", fontsize=9)
            ax.legend(fontsize=7)
            fig.tight_layout()
            fig.savefig(outdir / f"{d.name}-key-sweep.png", dpi=120)
            plt.close(fig)
        scan_plots(plt, d, outdir)
        rtscan_plot(plt, d, outdir)
        ssb_plot(plt, d, outdir)
    print(f"plots written to {outdir.relative_to(ROOT)}")


def scan_plots(plt, d, outdir):
    """Scan time against selectivity, and the fraction of the copy bandwidth, per index and row count."""
    path = d / "dpbis.jsonl"
    if not path.exists():
        return
    rows = [json.loads(l) for l in path.read_text().splitlines() if l.strip()]
    rows = [r for r in rows if r["combine"] == "all" and r.get("backend", "vulkan") != "cpu" and not is_diagnostic(r)
            and not r["index"].startswith("bitmap_")]
    newest_of = {}
    for r in rows:
        k = (r["index"], r.get("backend", "vulkan"), r["rows"], r["columns"], r["selectivity"])
        if k not in newest_of or r["timestamp"] > newest_of[k]["timestamp"]:
            newest_of[k] = r
    rows = list(newest_of.values())
    if len({r["selectivity"] for r in rows}) < 2:
        return
    # The row count measured at the most selectivities, then with the most series.
    n = max({r["rows"] for r in rows},
            key=lambda c: (len({x["selectivity"] for x in rows if x["rows"] == c}), len([x for x in rows if x["rows"] == c]), c))
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9.6, 4))
    series = sorted({(r["index"], r.get("backend", "vulkan"), r["columns"]) for r in rows if r["rows"] == n})
    for i, (idx, be, cols) in enumerate(series):
        pts = sorted((r for r in rows if r["rows"] == n and (r["index"], r.get("backend", "vulkan"), r["columns"]) == (idx, be, cols)),
                     key=lambda r: r["selectivity"])
        label = f"{idx} ({be}), {cols} col"
        style = "osd^vx"[i % 6] + ("-" if cols == 1 else "--")
        a1.plot([r["selectivity"] for r in pts], [r["query_time_ms"] for r in pts], style, label=label)
        a2.plot([r["selectivity"] for r in pts], [r["bandwidth_fraction"] or 0 for r in pts], style, label=label)
    a1.set_xlabel("selectivity")
    a1.set_ylabel("query time (ms, GPU)")
    a1.set_ylim(bottom=0)
    a2.set_xlabel("selectivity")
    a2.set_ylabel("bytes moved / time, fraction of copy bandwidth")
    a2.set_ylim(0, 1.1)
    a2.axhline(0.85, color="grey", linewidth=0.8, linestyle=":")
    a1.legend(fontsize=6)
    fig.suptitle(f"Range selections over {n:,} uint32 rows\n{device_line(rows[0])}", fontsize=9)
    fig.tight_layout()
    fig.savefig(outdir / f"{d.name}-scans.png", dpi=120)
    plt.close(fig)


def rtscan_plot(plt, d, outdir):
    """RTScan's query time (sieve and refine) against selectivity, beside the full scan."""
    m = rtscan_main(load(d, "rtscan.jsonl"))
    if not m:
        return
    label, rt, fs = m
    sels = sorted(rt)
    r0 = rt[sels[0]]
    fig, ax = plt.subplots(figsize=(6.4, 4))
    ax.plot(sels, [rt[s]["query_time_ms"] for s in sels], "o-", label="RTScan query (sieve + refine + merge)")
    ax.plot(sels, [rt[s]["sieve_ms"] for s in sels], "s--", label="RTScan sieve")
    ax.plot(sels, [rt[s]["refine_ms"] for s in sels], "d--", label="RTScan refine (rays)")
    fsel = sorted(fs)
    if fsel:
        ax.plot(fsel, [fs[s]["query_time_ms"] for s in fsel], "^-", label="full scan")
    ax.axhline(RTSCAN_TARGETS["query_ms"], color="grey", linewidth=0.8, linestyle=":",
               label=f"issue target for the mean ({RTSCAN_TARGETS['query_ms']:g} ms)")
    ax.set_xlabel("selectivity of each of the 3 `lt` predicates")
    ax.set_ylabel("query time (ms, GPU, no result transfer)")
    ax.set_ylim(bottom=0)
    ax.set_title(f"RTScan main sweep ({label}): {r0['rows']:,} rows x {r0['columns']} columns, K = {r0['bins']}\n"
                 f"{device_line(r0)}", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(outdir / f"{d.name}-rtscan.png", dpi=120)
    plt.close(fig)


def ssb_plot(plt, d, outdir):
    """Per SSB query: RT engine query time and BVH build against the star-join baseline, one panel per SF."""
    best = ssb_rows(d)
    if not best:
        return
    sfs = sorted({k[0] for k in best})
    fig, axes = plt.subplots(1, len(sfs), figsize=(4.8 * len(sfs), 4), squeeze=False)
    for ax, sf in zip(axes[0], sfs):
        qs = sorted({k[1] for k in best if k[0] == sf}, key=lambda q: (SSB_QUERIES.index(q) if q in SSB_QUERIES else 99, q))
        xs = range(len(qs))
        val = lambda q, e, f: best[(sf, q, e)][f] if (sf, q, e) in best else 0
        wid = 0.21
        ax.bar([x - 1.5 * wid for x in xs], [val(q, "rt", "query_ms") for q in qs], wid, label="RT engine query")
        ax.bar([x - 0.5 * wid for x in xs], [val(q, "rt", "bvh_build_ms") for q in qs], wid,
               label="RT engine BVH build")
        ax.bar([x + 0.5 * wid for x in xs], [val(q, "star_join", "query_ms") for q in qs], wid,
               label="star join query (Vulkan)")
        ax.bar([x + 1.5 * wid for x in xs], [val(q, "crystal_cuda", "query_ms") for q in qs], wid,
               label="Crystal-style query (CUDA)")
        ax.set_yscale("log")
        ax.set_xticks(list(xs))
        ax.set_xticklabels(qs, rotation=90, fontsize=7)
        ax.set_ylabel("ms (GPU)")
        rows = next(r for k, r in best.items() if k[0] == sf)["rows"]
        ax.set_title(f"SF {sf:g} ({rows:,} lineorder rows)", fontsize=9)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=7)
    fig.suptitle(f"SSB queries\n{device_line(next(iter(best.values())))}", fontsize=9)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(outdir / f"{d.name}-ssb.png", dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    {"tables": tables, "plots": plots, "thesis": thesis}.get(sys.argv[1] if len(sys.argv) > 1 else "", lambda: sys.exit(__doc__))()
