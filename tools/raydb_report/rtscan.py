"""The RTScan section: the paper's main sweep against its targets, the baselines, the side
experiments, TPC-H predicates and the result transfer (rtscan.jsonl)."""
from .fmt import device_line, fmt_ms, gb
from .registry import REG
from .rows import device_dirs, load, newest_by


# The targets for the main sweep ([targets.rtscan] of the registry).
RTSCAN_TARGETS = REG.target("rtscan")


def rtscan_main(rows):
    """(label, {selectivity: rtscan row}, {selectivity: full_scan row}) of the main sweep, or None."""
    main = [r for r in rows if r.get("label") == REG.label("paper_main")]
    if not main:
        return None
    key = lambda r: (r["index"], r["selectivity"])
    best = newest_by(main, key)
    rt = {s: r for (i, s), r in best.items() if i == "rtscan"}
    fs = {s: r for (i, s), r in best.items() if i == "full_scan"}
    return (REG.label("paper_main"), rt, fs) if rt else None


def rtscan_section(results):
    out = []
    for d in device_dirs(results):
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
        out += ["", f"| over the sweep | target (issue, {RTSCAN_TARGETS['device']}) | measured | met |", "|---|---|---|---|",
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
    rows = [r for r in load(d, "rtscan.jsonl") if r.get("label") == REG.label("paper_baselines") and r["checked_result"] == "ok"]
    if not rows:
        return []
    best = newest_by(rows, lambda r: (r["index"], r["selectivity"]))
    names = [b for b in RTSCAN_BASELINES if any(i == b for i, _ in best)]
    head = {"full_scan": "full scan ms", "sieve": "GPU sieve (BinDex-style) ms", "dpbis": "DP-BIS ms",
            "cpu_bindex": "CPU BinDex ms (host clock)"}
    out = [f"Baselines on the same kind of data (label `{REG.label('paper_baselines')}`: fresh 1e8 x 3 permutation columns, same "
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
    rows = [r for r in load(d, "rtscan.jsonl") if r.get("label") == REG.label("tpch") and r["checked_result"] == "ok"]
    if not rows:
        return []
    best = newest_by(rows, lambda r: (r["query"], r["scale_factor"], r["index"]))
    names = ["rtscan"] + [b for b in RTSCAN_BASELINES if any(k[2] == b for k in best)]
    out = [f"TPC-H predicates (`bench/gpu/rtscan.sh tpch`, label `{REG.label('tpch')}`: three columns of LINEITEM's rows per "
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
    rows = [r for r in load(d, "rtscan.jsonl")
            if r.get("label") == REG.label("transfer") and r.get("transfer_device_ms") is not None]
    if not rows:
        return []
    best = newest_by(rows, lambda r: (r["index"], r["selectivity"]))
    out = [f"Result transfer (`bench/gpu/rtscan.sh transfer`, label `{REG.label('transfer')}`; "
           "host clock except the device copy; "
           f"{rows[0]['transfer_bytes']:,}-byte bitmaps, host-cached staging: {rows[0]['transfer_host_cached']}):", "",
           "| index | selectivity | query ms | reader ms | of it device copy ms | of it host memcpy ms | "
           "per-call words() ms | count() ms |", "|---|---|---|---|---|---|---|---|"]
    for (i, sel), r in sorted(best.items()):
        out.append(f"| {i} | {sel:g} | {fmt_ms(r['query_time_ms'])} | {fmt_ms(r['transfer_ms'])} | "
                   f"{fmt_ms(r['transfer_device_ms'])} | {fmt_ms(r['transfer_host_copy_ms'])} | "
                   f"{fmt_ms(r['transfer_per_call_ms'])} | {fmt_ms(r['count_ms'])} |")
    out.append("")
    return out


# The side experiments' labels, in the table's order.
RTSCAN_SIDE_LABELS = REG.table("rtscan_side")


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
