"""bench/plots/<device>-*.png from the same rows as the tables (matplotlib, Agg: no display).

The PNGs are deterministic for one matplotlib version: the same rows give the same bytes.
"""
import json

from .fmt import device_line
from .registry import REG
from .rows import device_dirs, is_diagnostic, load, plain, variant
from .rtscan import RTSCAN_TARGETS, rtscan_main
from .rx import key_sweep
from .scaling import scaling_plot
from .ssb import queries_at, ssb_rows


def plots(results, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    outdir.mkdir(parents=True, exist_ok=True)
    for d in device_dirs(results):
        rows = load(d)
        pts = plain([r for r in rows if r.get("label") == REG.label("paper_points")])
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
        rng = [r for r in plain(rows) if r.get("label") == REG.label("ranges")]
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
        scaling_plot(plt, d, outdir)


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
        pts = sorted((r for r in rows if r["rows"] == n
                      and (r["index"], r.get("backend", "vulkan"), r["columns"]) == (idx, be, cols)),
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
        qs = queries_at(best, sf)
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
