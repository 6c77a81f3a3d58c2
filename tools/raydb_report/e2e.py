"""The end-to-end section: lookups and builds from host memory against issue 21's targets (label e2e).

A row of `raydb bench rx --label e2e` holds, from one run, the whole batch's GPU times (upload,
probe, download), the wall clock of whole-batch and pipelined calls (each with its first call
apart) and of builds from host memory (docs/e2e.md names the fields). The factors of the targets
come from [targets.e2e] of bench/registry.toml.
"""
from .fmt import device_line, fmt_ms, pow2
from .registry import REG
from .rows import device_dirs, load, method, newest_by, order_of, plain

NAMES = {"rx": "RX", "cgrx": "cgRX", "sorted": "sorted array", "hash": "hash table"}
INDEX_ORDER = {"rx": 0, "cgrx": 1, "sorted": 2, "hash": 3}
PROBE_ORDER = {"unsorted": 0, "sorted": 1, "gpu_sorted": 2}
# What a baseline's build_time_ms covers; RX's is its BVH build alone, its layout sort apart.
BUILD_PARTS = {"sorted": "sort", "hash": "sort + insert"}


def _ms(r, field):
    return fmt_ms(r[field]) if r.get(field) is not None else "-"


def _yes(value, limit):
    return "-" if value is None else "yes" if value <= limit else "no"


def dma_upload(r):
    """Whether the row measured a PCIe upload by DMA: keys and values from HostBuffers in its pinned
    builds. The whole batch's upload_ms is not one where staging is device-local host-visible
    memory (the host's copy into it crosses PCIe, the timed copy does not)."""
    return (r.get("pinned_build_upload_ms") or 0) > 0


def upload_ms(r):
    """The PCIe upload of a lookup row's queries: at the DMA bandwidth of the same run's pinned
    builds (keys and values), else the whole batch's upload_ms."""
    if not dma_upload(r):
        return r["upload_ms"]
    key_bytes = r.get("key_bits", 32) // 8
    build_bytes = r["num_keys"] * (key_bytes + 4)
    query_bytes = r["num_lookups"] * key_bytes * (2 if r.get("lookup_kind") == "range" else 1)
    return r["pinned_build_upload_ms"] * query_bytes / build_bytes


def pcie_ms(r):
    """A lookup call's PCIe transfer time: its queries' upload and the whole batch's download."""
    return upload_ms(r) + r["download_ms"]


def lookup_target_ms(r):
    """The target of a lookup call: the factor times the larger of PCIe time and GPU probe time."""
    return REG.target("e2e")["lookup_factor"] * max(pcie_ms(r), r["probe_time_ms"])


def build_parts(r):
    """[(ms, what)] of a build from host memory on the GPU: upload, layout sort, build."""
    parts = [(r["pinned_build_upload_ms"] if dma_upload(r) else r["build_upload_ms"], "")]
    if r.get("index", "rx") == "rx":
        parts.append((r["layout_sort_ms"], ""))
    parts.append((r["build_time_ms"], BUILD_PARTS.get(r.get("index", "rx"), "")))
    return parts


def build_target_ms(r):
    return REG.target("e2e")["build_factor"] * sum(ms for ms, _ in build_parts(r))


def _piped(r):
    """Whether a row carries the pipelined call's copy-queue transfers (rows before them do not)."""
    return (r.get("pipelined_upload_ms") or 0) > 0 or (r.get("pipelined_download_ms") or 0) > 0


def _pinned(r):
    """Whether a row carries calls with queries and results in HostBuffers (bench rx --pinned)."""
    return (r.get("pinned_host_ms") or 0) > 0


def _name(r, methods):
    idx = r.get("index", "rx")
    name = NAMES.get(idx, idx)
    if r.get("key_bits", 32) != 32:
        name += f", {r['key_bits']}-bit keys"
    if len(methods[idx]) > 1:
        name += f", {method(r)}"
    if r.get("api", "vulkan") != "vulkan":
        name += f", {r['api']}"
    return name


def lookup_table(best):
    """The lookup rows (newest per configuration) of one size: GPU times, wall clocks, verdicts."""
    lf = REG.target("e2e")["lookup_factor"]
    methods = {}
    for r in best:
        methods.setdefault(r.get("index", "rx"), set()).add(method(r))
    piped = any(_piped(r) for r in best)
    pinned = any(_pinned(r) for r in best)
    out = [f"| workload | probes | GPU probe | PCIe up + down | target {lf:g}x max | whole batch: call | "
           "whole batch: first call | pipelined: call | pipelined: first call | pipelined: kernels | "
           + ("piped up | piped down | " if piped else "") + "within target: call | within target: first call |"
           + (" pinned: call | pinned: first call | within target: pinned call, first |" if pinned else ""),
           "|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if piped else "") + "---|---|"
           + ("---|---|---|" if pinned else "")]
    for r in best:
        t = lookup_target_ms(r)
        cells = [_name(r, methods), order_of(r), fmt_ms(r["probe_time_ms"]),
                 f"{fmt_ms(upload_ms(r))} + {fmt_ms(r['download_ms'])}", fmt_ms(t), _ms(r, "host_time_ms"),
                 _ms(r, "host_first_ms"), _ms(r, "pipelined_host_ms"), _ms(r, "pipelined_first_ms"),
                 _ms(r, "pipelined_gpu_ms")]
        if piped:
            cells += [_ms(r, "pipelined_upload_ms") if _piped(r) else "-",
                      _ms(r, "pipelined_download_ms") if _piped(r) else "-"]
        cells += [_yes(r.get("pipelined_host_ms"), t), _yes(r.get("pipelined_first_ms"), t)]
        if pinned:
            on = _pinned(r)
            cells += [_ms(r, "pinned_host_ms") if on else "-", _ms(r, "pinned_first_ms") if on else "-",
                      f"{_yes(r['pinned_host_ms'], t)}, {_yes(r['pinned_first_ms'], t)}" if on else "-"]
        out.append("| " + " | ".join(cells) + " |")
    out += ["", f"Target: {lf:g}x max(PCIe, GPU probe), where PCIe is the queries' upload plus the whole batch's "
            "`download_ms` and the GPU probe its `probe_time_ms`, all from the same run as the wall clocks (issue "
            f"{REG.target('e2e')['issue']}). The upload is the queries' bytes at the PCIe bandwidth of the run's "
            "pinned builds (`pinned_build_upload_ms`, keys and values copied from HostBuffers), where the row has "
            "it; else the whole batch's `upload_ms`, which on a device with host-visible device memory times a "
            "copy within the GPU, the host's copy into staging having crossed PCIe. Within target: the pipelined "
            "call (and its first call) at most the target."]
    if pinned:
        out.append("Pinned: the same pipelined calls with queries and results in `HostBuffer`s, which the copy "
                   "engines read and write in place (`bench rx --pinned`; `-`: not measured).")
    if piped:
        out.append("Piped up / down: the pipelined call's copy-queue transfers, summed over its chunks (`-`: rows "
                   "measured before they were recorded); they do not enter the target.")
    return out + [""]


def build_table(builds):
    bf = REG.target("e2e")["build_factor"]
    pinned = any((r.get("pinned_build_host_ms") or 0) > 0 for r in builds)
    out = [f"| index | upload + sort + GPU build | target {bf:g}x | host to host | first build | within target |"
           + (" pinned: host to host | within target: pinned |" if pinned else ""),
           "|---|---|---|---|---|---|" + ("---|---|" if pinned else "")]
    for r in builds:
        parts = build_parts(r)
        total = sum(ms for ms, _ in parts)
        t = build_target_ms(r)
        gpu = " + ".join(fmt_ms(ms) + (f" ({what})" if what else "") for ms, what in parts)
        line = (f"| {NAMES.get(r.get('index', 'rx'), r.get('index'))}, {r.get('key_bits', 32)}-bit | "
                f"{gpu} = {fmt_ms(total)} | {fmt_ms(t)} | {_ms(r, 'build_host_ms')} | "
                f"{_ms(r, 'build_first_host_ms')} | {_yes(r.get('build_host_ms'), t)} |")
        if pinned:
            on = (r.get("pinned_build_host_ms") or 0) > 0
            line += (f" {_ms(r, 'pinned_build_host_ms')} | {_yes(r['pinned_build_host_ms'], t)} |" if on
                     else " - | - |")
        out.append(line)
    out += ["", f"Target: {bf:g}x (upload + sort + GPU build), GPU timestamps of the same run; the upload is the "
            "pinned builds' (`pinned_build_upload_ms`, PCIe) where the row has it. Within target: "
            "the build from host memory (`build_host_ms`, median) at most the target; the first build also makes "
            "the probe pipeline and is listed apart."]
    if pinned:
        out.append("Pinned: the same builds with keys and values in `HostBuffer`s, which the upload reads in "
                   "place (`bench rx --pinned`; `-`: not measured).")
    return out + [""]


SPLIT_PARTS = ["allocate_ms", "release_ms", "pipeline_ms", "wait_ms", "copy_ms", "other_ms"]


def split_table(builds):
    """Where the builds' host time went (build_host_split, pinned_build_host_split; raydb/host_time.hpp)."""
    rows = [r for r in builds if r.get("build_host_split")]
    if not rows:
        return []
    out = ["Where a build's host time goes (medians of the builds; `raydb::host_time_breakdown`): allocate, "
           "release and pipeline: device and pinned memory made and freed, pipelines created; wait: the host "
           "blocked on the GPU (the upload and GPU build run then); copy: host copies into staging; other: the "
           "rest of the wall clock. From `std::vector`s, then from `HostBuffer`s:", "",
           "| index | from | host to host | allocate | release | pipeline | wait | copy | other | allocations |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        for src, total, split in (("std::vector", "build_host_ms", "build_host_split"),
                                  ("HostBuffer", "pinned_build_host_ms", "pinned_build_host_split")):
            sp = r.get(split)
            if not sp:
                continue
            out.append(f"| {NAMES.get(r.get('index', 'rx'), r.get('index'))}, {r.get('key_bits', 32)}-bit | {src} | "
                       f"{_ms(r, total)} | " + " | ".join(fmt_ms(sp[k]) for k in SPLIT_PARTS)
                       + f" | {sp['allocations']:g} |")
    return out + [""]


def _size(r):
    return (r["num_keys"], r["num_lookups"], r.get("lookup_kind", "point"), r.get("range_width", 0), r["hit_rate"])


def _rank(r):
    return (INDEX_ORDER.get(r.get("index", "rx"), 9), r.get("index", "rx"), r.get("key_bits", 32),
            PROBE_ORDER.get(order_of(r), 9), method(r), r.get("api", "vulkan"))


def device_tables(d, rows):
    best = sorted(newest_by(rows, lambda r: (_size(r), _rank(r))).values(), key=lambda r: (_size(r), _rank(r)))
    r0 = best[0]
    out = [f"Source: `bench/results/{d.name}/rx.jsonl`, label `{REG.label('e2e')}` (`bench/gpu/e2e.sh`); "
           f"{device_line(r0)}. Keys, queries and results in host memory; wall clock of each call from "
           "host to host (medians of the repeats after the warm-up; the first call after the build apart); GPU "
           "probe, PCIe and pipelined kernels from GPU timestamps. Whole batch: upload, probe, download in "
           "turn (the path the GPU-time tables measure); pipelined: the library's default path (docs/e2e.md). "
           "All times in ms.", ""]
    for size in sorted({_size(r) for r in best}):
        keys, lookups, kind, width, hit_rate = size
        group = [r for r in best if _size(r) == size]
        what = f"{kind} lookups" + (f" of width {width}" if width else "")
        out += [f"{pow2(keys)} keys, {pow2(lookups)} {what}, hit rate {hit_rate:g}, "
                f"medians of {group[0]['repeats']} after {group[0]['warmup']} warm-up calls:", ""]
        out += lookup_table(group)
        # One build serves a run's unsorted and sorted rows: the newest row of each index and width.
        builds = sorted(newest_by([r for r in group if r.get("build_upload_ms") is not None],
                                  lambda r: _rank(r)[:3]).values(), key=_rank)
        if builds:
            out += ["Builds from host memory (same runs):", ""]
            out += build_table(builds)
            out += split_table(builds)
    return out


def e2e_section(results):
    out = []
    for d in device_dirs(results):
        rows = [r for r in plain(load(d)) if r.get("label") == REG.label("e2e")]
        if rows:
            out += device_tables(d, rows)
    return out or ["Not measured yet (`bench/gpu/e2e.sh`).", ""]
