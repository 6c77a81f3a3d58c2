""""Where each optimization helps": the thesis's sweeps (bench/gpu/rx.sh thesis) beside the
ratios the thesis reports (seed 002, Y. Wu, MSc thesis, U. Victoria 2025; its figures carry only
ratios in the prose, measured on an RTX 4060 Laptop GPU with OptiX). The thesis's ratios and
figure numbers below are quotations of its prose, not targets of ours.
"""
from .fmt import device_line
from .registry import REG
from .rows import all_of, device_dirs, load, method


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
    rh = [r for r in rx if r.get("label") == REG.label("thesis_range_hits")]
    for w in (4, 1024):
        a = _newest(rh, index="rx", method="any_hit", range_width=w)
        h = _newest(rh, index="rx", method="hit_and_scan", range_width=w)
        add(f"Revised range query, {w} hits per range",
            "probe time any_hit / hit_and_scan", _ratio(_val(a, "probe_time_ms"), _val(h, "probe_time_ms")),
            "≈10× at 1024 hits, > 1 at every width" if w == 1024 else "> 1 (smaller than at 1024)",
            "Fig 5.5")
    # Duplicates without compression, then with.
    mu = [r for r in rx if r.get("label") == REG.label("thesis_multiplicity")]
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
    pa = [r for r in rx if r.get("label") == REG.label("thesis_partitions")]
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
    sp = [r for r in rx if r.get("label") == REG.label("thesis_sorted_probes")]
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
    inv = [r for r in join if r.get("label") == REG.label("thesis_inverse")]
    big_build = [r for r in inv if r.get("build_rows", 0) > r.get("probe_rows", 0)]
    b = _newest(big_build, index="rx", indexed_side="build")
    q = _newest(big_build, index="rx", indexed_side="probe")
    total = lambda r: _sum(_val(r, "index_time_ms"), _val(r, "join_time_ms"))
    add("Inverse mapping (build 4× the probe side)", "(build + probe) indexing the build side / "
        "indexing the probe side", _ratio(total(b), total(q)), "≈3.5×", "Fig 5.14")
    # Final comparison: RX against cgRX and the sorted array.
    bs = [r for r in rx if r.get("label") == REG.label("thesis_build_size")]
    k = _largest(bs, "num_keys", index="rx")
    rxb = _newest(bs, index="rx", num_keys=k)
    cg = _newest(bs, index="cgrx", num_keys=k, bucket_size=32)
    sa = _newest(bs, index="sorted", num_keys=k)
    add("Build memory, RX vs cgRX (bucket 32)", "peak build bytes RX / cgRX",
        _ratio(_val(rxb, "build_peak_bytes"), _val(cg, "build_peak_bytes")),
        "≈2.5× (4.5× in the cgRX paper)", "Fig 5.17")
    add("Build time, RX vs sorted array", "build time RX / SA (SA: its sort)",
        _ratio(_val(rxb, "build_time_ms"), _val(sa, "build_time_ms")), "up to 15×", "Fig 5.18")
    ps = [r for r in rx if r.get("label") == REG.label("thesis_probe_size")]
    n = _largest(ps, "num_lookups", index="rx")
    rxp = _newest(ps, index="rx", num_lookups=n)
    for other, thesis in (("sorted", "≥ 2× (SA fastest)"), ("cgrx", "> 1 above 2^23 probes")):
        o = _newest(ps, index=other, num_lookups=n, **({"bucket_size": 32} if other == "cgrx" else {}))
        add(f"Point lookups, sorted probes: {other} vs RX", f"probe time RX / {other}",
            _ratio(_val(rxp, "probe_time_ms"), _val(o, "probe_time_ms")),
            thesis if other == "sorted" else "< 1 (RX second only to SA)", "Fig 5.19")
    hr = [r for r in rx if r.get("label") == REG.label("thesis_hit_rate")]
    r0 = _newest(hr, index="rx", hit_rate=0.0)
    c0 = _newest(hr, index="cgrx", hit_rate=0.0)
    add("All misses: RX vs cgRX", "probe time cgRX / RX",
        _ratio(_val(c0, "probe_time_ms"), _val(r0, "probe_time_ms")), "slightly > 1", "Fig 5.22")
    # cgRX's first ray (ours; the thesis has no such variant).
    bk = [r for r in rx if r.get("label") == REG.label("thesis_bucket_size")]
    for order in ("unsorted", "sorted"):
        f = _newest(bk, index="cgrx", bucket_size=32, cgrx_rays="full", probe_order=order)
        w = _newest(bk, index="cgrx", bucket_size=32, cgrx_rays="window", probe_order=order)
        add(f"cgRX windowed first ray, {order} probes", "probe time whole-line ray / windowed",
            _ratio(_val(f, "probe_time_ms"), _val(w, "probe_time_ms")), "— (not in the thesis)",
            "docs/cgrx.md")
    # The join (the thesis materializes nothing and has no join baselines).
    jn = [r for r in join if r.get("label") == REG.label("thesis_join")]
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


def thesis_section(results):
    lines = []
    for d in device_dirs(results):
        rx = [r for r in load(d) if REG.in_family("thesis", r.get("label"))]
        join = [r for r in load(d, "join.jsonl") if REG.in_family("thesis", r.get("label"))]
        if not rx and not join:
            continue
        first = (rx or join)[0]
        lines.append(f"{device_line(first)}; rows labelled `{REG.prefix('thesis')}*` in `bench/results/{d.name}/`"
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

