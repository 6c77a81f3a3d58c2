"""The RX section: point and range lookups, builds, targets, sweeps and variants (rx.jsonl)."""
from .fmt import device_line, fmt_ms, gb
from .registry import REG
from .rows import all_of, device_dirs, load, method, newest, order_of, plain, variant
from .scans import dpbis_table


def targets_table(rows, base):
    """RX's targets ([targets.rx] of the registry), on the device they were set for."""
    t = REG.target("rx")
    if t["device"] not in base["device"]:
        return []
    out = [f"Targets (issue {t['issue']}, {t['device']}): default lookup (hit_and_scan, opaque rays), hit rate 1.",
           "", "| target | limit | measured | met |", "|---|---|---|---|"]
    for lim in t["limits"]:
        r = newest([x for x in rows if order_of(x) == lim["probes"]],
                   label=REG.label("paper_points"), index="rx", method="hit_and_scan", opaque_hits=True,
                   hit_rate=1.0)
        if not r:
            continue
        name, unit, limit = lim["name"], lim["unit"], lim["limit"]
        v = r[lim["field"]] / lim["divisor"]
        out.append(f"| {name} | {limit:g} {unit} | {fmt_ms(v) if unit == 'ms' else f'{v:.2f}'} {unit} | "
                   f"{'yes' if v <= limit else 'no'} |")
    out.append("")
    return out


def key_sweep(rows):
    """{variant: [(keys, row)]}: 2^27 unsorted hit-rate-1 lookups against the key count."""
    pts = [r for r in plain(rows) if r.get("label") in (REG.label("key_sweep"), REG.label("paper_points")) and r["hit_rate"] == 1.0
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
    cg = [r for r in plain(rows) if r.get("index") == "cgrx" and r.get("label") == REG.label("cgrx")]
    if cg:
        out += [f"cgRX (issue 7), {cg[0]['num_keys']} 32-bit keys, {cg[0]['num_lookups']} point lookups, hit rate 1 "
                "(first measurement; see docs/cgrx.md):", "",
                "| bucket size | probes | probe ms | rays per lookup | build ms | BVH MB |", "|---|---|---|---|---|---|"]
        for r in sorted(cg, key=lambda r: (r.get("bucket_size", 0), r["sorted_probes"])):
            out.append(f"| {r.get('bucket_size')} | {order_of(r)} | {fmt_ms(r['probe_time_ms'])} | "
                       f"{r['rays'] / r['num_lookups']:.3f} | {fmt_ms(r['build_time_ms'])} | {r['build_bytes'] / 1e6:.1f} |")
        out.append("")
    parts = [r for r in plain(rows) if r.get("label") == REG.label("partitions")]
    if parts:
        out += ["RX built in partitions (issue 7; `--partitions`), 2^26 keys, 2^27 unsorted point lookups, hit rate 1:", "",
                "| partitions | probe ms | build ms | BVH GB | peak build memory GB |", "|---|---|---|---|---|"]
        for r in sorted(parts, key=lambda r: r.get("partitions", 1)):
            out.append(f"| {r.get('partitions', 1)} | {fmt_ms(r['probe_time_ms'])} | {fmt_ms(r['build_time_ms'])} | "
                       f"{gb(r['build_bytes'])} | {gb(r['build_peak_bytes'])} |")
        out.append("")
    return out


def baseline_targets_table(pts):
    """The baselines' targets ([targets.baselines] of the registry), at RX's sizes, hit rate 1."""
    t = REG.target("baselines")
    rows = [newest([x for x in pts if order_of(x) == lim["probes"]], index=lim["index"], hit_rate=1.0)
            for lim in t["limits"]]
    if not all(rows) or t["device"] not in rows[0]["device"]:
        return []
    out = [f"Targets (issue {t['issue']}, {t['device']}) for the baselines on the same keys and lookups, hit rate 1:",
           "", "| baseline | probes | limit | measured | met |", "|---|---|---|---|---|"]
    for lim, r in zip(t["limits"], rows):
        limit = lim["limit_ms"]
        out.append(f"| {variant(r)} | {lim['probes']} | {limit:g} ms | "
                   f"{fmt_ms(r['probe_time_ms'])} ms | {'yes' if r['probe_time_ms'] <= limit else 'no'} |")
    out.append("")
    return out


def gpu_tables(rows):
    out = []
    pts = plain(all_of(rows, label=REG.label("paper_points")))
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
    lines = [r for r in plain(all_of(rows, label=REG.label("sorted_layout"))) if r.get("sorted_layout") == "lines"
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

    diag = [newest(rows, label=REG.label("diagnostic", d), sorted_probes=s) for d in ("none", "trace_only", "no_trace")
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

    k64 = [newest(rows, label=REG.label("key64"), hit_rate=h, sorted_probes=s) for h in (1.0, 0.0) for s in (False, True)]
    if any(k64):
        out.append("64-bit uniform keys (same sizes): ")
        out.append("")
        out.append("| hit rate | probes | probe ms | build ms | BVH GB |")
        out.append("|---|---|---|---|---|")
        for r in filter(None, k64):
            out.append(f"| {r['hit_rate']:g} | {'sorted' if r['sorted_probes'] else 'unsorted'} | "
                       f"{fmt_ms(r['probe_time_ms'])} | {fmt_ms(r['build_time_ms'])} | {gb(r['build_bytes'])} |")
        out.append("")

    rng = [r for r in plain(rows) if r.get("label") == REG.label("ranges")]
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

    box = [r for r in rows if r.get("label") == REG.label("aabb_any_hit")]
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
            r = newest(rows, label=REG.label("primitive_layout"), primitive=prim, layout=layout, sorted_probes=s)
            if r:
                var.append((f"{prim}, {layout} order", r))
    for p in ("fast_trace", "fast_build"):
        for s in (False, True):
            r = newest(rows, label=REG.label("prefer", p), sorted_probes=s)
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
    lay = [newest(rows, label=REG.label("lavapipe_layout"), layout=l) for l in ("key", "row")]
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
    rng = [r for r in rows if r.get("label") == REG.label("lavapipe_ranges")]
    if rng:
        widths = sorted({r["range_width"] for r in rng})
        out.append(f"Range lookups on dense keys, {rng[0]['num_keys']} keys, {rng[0]['num_lookups']} lookups, probe ms:")
        out.append("")
        out.append("| method | probes | " + " | ".join(f"w={w}" for w in widths) + " |")
        out.append("|---|---|" + "---|" * len(widths))
        for m in ("any_hit", "hit_and_scan"):
            for s in (False, True):
                cells = [newest(rows, label=REG.label("lavapipe_ranges"), method=m, range_width=w, sorted_probes=s)
                         for w in widths]
                out.append(f"| {m} | {'sorted' if s else 'unsorted'} | " +
                           " | ".join(fmt_ms(r["probe_time_ms"]) if r else "" for r in cells) + " |")
        out.append("")
    base = [r for r in rows if r.get("label") == REG.label("lavapipe_baseline")]
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
    mat = [r for r in rows if r.get("label") == REG.label("lavapipe_matrix") and r["hit_rate"] == 1.0 and not r["sorted_probes"]]
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


def rx_section(results):
    """Per device: RX and its baselines (rx.jsonl), then DP-BIS against the full scan (dpbis.jsonl)."""
    lines = []
    for d in device_dirs(results):
        rows = load(d)
        t = []
        if rows:
            t = gpu_tables(rows) if rows[0].get("device_type") != "CPU" else cpu_tables(rows)
        if t:
            lines.append(f"Source: `bench/results/{d.name}/rx.jsonl`.")
            lines.append("")
            lines += t
        lines += dpbis_table(d)
    return lines
