"""Several GPUs of one host (bench/results/<device>-x<N>/): RX with one key-range partition and
process per GPU (rx.jsonl, labels multi-gpu-x<N>), and raydb.dask's distributed SSB
(dask/dask.jsonl from `python -m raydb.bench dask`, one worker per GPU), as tables and a plot.
"""
import re
import statistics

from .fmt import device_line, fmt_ms, gb
from .registry import REG
from .rows import device_dirs, load

_MULTI = re.compile(r"-x(\d+)$")


def multi_gpu_dirs(results):
    """The result folders of machines with several GPUs, and their GPU counts."""
    return [(d, int(m.group(1))) for d in device_dirs(results) if (m := _MULTI.search(d.name))]


def rx_scaling(rows):
    """{(N, order): [rows of the N processes]} for the multi-gpu-x<N> labels."""
    out = {}
    for r in rows:
        m = re.fullmatch(REG.label("multi_gpu", "(\\d+)"), r.get("label", ""))
        if m:
            out.setdefault((int(m.group(1)), r["probe_order"]), []).append(r)
    return out


def dask_rows(d):
    return load(d / "dask", "dask.jsonl")


def ssb_times(rows, sf):
    """{query: {N: (wall ms, slowest part's trace ms, slowest part's host encode ms)}} at one SF.

    N = 1 is the single engine over the whole fact table (op ssb_single) where the distributed
    run has no one-worker row. The newest row of each (query, N) wins."""
    out = {}
    for r in rows:
        if r.get("scale_factor") != sf:
            continue
        if r["op"] == "ssb_query":
            t = (r["median_ms"], r["max_trace_ms"], r["max_encode_ms"])
            out.setdefault(r["query"], {})[r["workers"]] = t
        elif r["op"] == "ssb_single":
            out.setdefault(r["query"], {}).setdefault(
                "single", (r["wall_ms"], r["trace_ms"], r["encode_ms"]))
    return out


def _checked(rows, sf):
    q = [r for r in rows if r.get("op") == "ssb_query" and r.get("scale_factor") == sf]
    return sum(r.get("checked") is True for r in q), len(q)


def scaling_section(results):
    out = []
    for d, gpus in multi_gpu_dirs(results):
        rows = load(d)
        rx = rx_scaling(rows)
        if rx:
            r0 = next(iter(rx.values()))[0]
            out += [f"### RX on {gpus} GPUs of one host (`{d.name}`)", "",
                    f"Source: `bench/results/{d.name}/rx.jsonl` (`bench/gpu/multi_gpu.sh`); "
                    f"{device_line(r0)}. One process and one key-range partition per GPU, "
                    f"{r0['num_keys']:,} keys and {r0['num_lookups']:,} point lookups per GPU, "
                    "all processes at once; every result checked against the CPU reference.", "",
                    "| GPUs | probe order | probe ms per GPU (max) | lookups/s, all GPUs | "
                    "x one GPU | build ms per GPU (max) | build peak GB per GPU | checked |",
                    "|---:|---|---:|---:|---:|---:|---:|---|"]
            for order in ("unsorted", "sorted"):
                base = rx.get((1, order))
                for (n, o), rs in sorted(rx.items()):
                    if o != order:
                        continue
                    total = sum(r["lookups_per_s"] for r in rs)
                    ratio = f"{total / base[0]['lookups_per_s']:.2f}" if base else "-"
                    ok = "ok" if all(r["checked_result"] == "ok" for r in rs) else "FAILED"
                    out.append(f"| {n} | {order} | {fmt_ms(max(r['probe_time_ms'] for r in rs))} | "
                               f"{total / 1e9:.2f} G | {ratio} | "
                               f"{fmt_ms(max(r['build_time_ms'] for r in rs))} | "
                               f"{gb(max(r['build_peak_bytes'] for r in rs))} | {ok} |")
            out.append("")
        drows = dask_rows(d)
        for sf in sorted({r["scale_factor"] for r in drows if r.get("op") == "ssb_query"}):
            times = ssb_times(drows, sf)
            ns = sorted({n for t in times.values() for n in t if n != "single"})
            cols = (["single"] if any("single" in t for t in times.values()) else []) + ns
            ok, total = _checked(drows, sf)
            if ok == total:
                check = f"All {total} distributed answers equal one engine's over the whole table."
            elif ok == 0:
                check = "Not compared with one engine at this scale factor."
            else:
                check = f"{ok} of {total} distributed answers compared with one engine: equal."
            out += [f"### Distributed SSB at SF {sf:g} on {gpus} GPUs (`{d.name}`, raydb.dask)", "",
                    f"Source: `bench/results/{d.name}/dask/dask.jsonl` (`bench/gpu/dask.sh`), "
                    "reference dbgen tables; lineorder split by rows, one dask worker per GPU, "
                    "partial aggregates merged on the client. Per query: wall ms on the client "
                    "(median) / the slowest part's GPU trace ms / its host encode ms. " + check,
                    "",
                    "| query | " + " | ".join("one engine, 1 GPU" if c == "single" else
                                              f"{c} GPU{'s' if c > 1 else ''}" for c in cols)
                    + " |",
                    "|---|" + "---:|" * len(cols)]
            for q in sorted(times, key=lambda q: [int(x) for x in q.lstrip("Qq").split(".")]):
                cells = []
                for c in cols:
                    t = times[q].get(c)
                    cells.append("-" if t is None else
                                 f"{t[0]:,.0f} / {t[1]:.2f} / {t[2]:,.0f}")
                out.append(f"| Q{q.lstrip('Qq')} | " + " | ".join(cells) + " |")
            out.append("")
    return out or ["No results from machines with several GPUs yet."]


def scaling_plot(plt, d, outdir):
    """<device>-scaling.png: RX throughput and SSB query times against the GPU count."""
    rx = rx_scaling(load(d))
    drows = dask_rows(d)
    sfs = sorted({r["scale_factor"] for r in drows if r.get("op") == "ssb_query"})
    if not rx and not sfs:
        return
    panels = (1 if rx else 0) + len(sfs)  # no RX panel where multi_gpu.sh did not run
    fig, axes = plt.subplots(1, panels, figsize=(4.2 * panels, 3.8))
    axes = list(axes) if hasattr(axes, "__len__") else [axes]
    if rx:
        ax = axes[0]
        for order, style in (("unsorted", "o-"), ("sorted", "s-")):
            pts = sorted((n, sum(r["lookups_per_s"] for r in rs)) for (n, o), rs in rx.items()
                         if o == order)
            if pts:
                ax.plot([n for n, _ in pts], [v / 1e9 for _, v in pts], style, label=f"RX, {order}")
                ax.plot([n for n, _ in pts], [pts[0][1] * n / pts[0][0] / 1e9 for n, _ in pts], ":",
                        color="grey")
        ax.set_xticks(sorted({n for n, _ in rx}))
        ax.set_xlabel("GPUs")
        ax.set_ylabel("point lookups / s (billions, all GPUs)")
        ax.set_title("RX, 2^26 keys per GPU (dotted: linear)")
        ax.legend(fontsize=7)
    for ax, sf in zip(axes[1 if rx else 0:], sfs):
        times = ssb_times(drows, sf)
        ns = sorted({n for t in times.values() for n in t if n != "single"})
        for k, (what, style) in enumerate((("wall ms (client)", "o-"), ("GPU trace ms", "s--"))):
            med = []
            for n in ns:
                vals = [t[n][k] for t in times.values() if n in t]
                med.append(statistics.median(vals) if vals else float("nan"))
            ax.plot(ns, med, style, label=f"median over queries: {what}")
        ax.set_yscale("log")
        ax.set_xticks(ns)
        ax.set_xlabel("GPUs (dask workers)")
        ax.set_ylabel("ms")
        ax.set_title(f"distributed SSB, SF {sf:g}")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(outdir / f"{d.name}-scaling.png", dpi=120)
    plt.close(fig)
