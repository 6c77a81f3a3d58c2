"""The OptiX section: Vulkan against OptiX on the same work (RX, RTScan, SSB, the joins).

Every pair is the newest Vulkan row and the newest OptiX row of one configuration, both checked.
"""
from .fmt import device_line, fmt_ms, pow2
from .registry import REG
from .rows import api_pairs, device_dirs, load, method, newest_by, order_of, variant


def optix_section(results):
    """Vulkan against OptiX on the same keys and lookups (rows of one label with api vulkan and optix)."""
    out = []
    for d in device_dirs(results):
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
        for v, o in sorted(pairs, key=lambda p: (p[0]["label"], p[0].get("primitive", ""), p[0]["key_bits"],
                                                 p[0].get("range_width", 0),
                                                 method(p[0]) != "hit_and_scan", -p[0]["hit_rate"], -p[0]["num_keys"],
                                                 order_of(p[0]), p[0].get("build_preference", ""),
                                                 p[1].get("optix_variant", "base") != "base",
                                                 p[1].get("optix_variant", "base"))):
            bucket = f", bucket {v['bucket_size']}" if "bucket_size" in v else ""  # cgRX
            out.append(f"| `{v['label']}` | {variant(v)}{bucket} | {v.get('primitive', '?')} | {v['key_bits']} | "
                       f"{pow2(v['num_keys'])} | "
                       f"{v.get('key_dist', '?')} | {pow2(v['num_lookups'])} | {v.get('range_width', 0)} | "
                       f"{v['hit_rate']:g} | {order_of(v)} | {v.get('build_preference', 'fast_trace')} | "
                       f"{o.get('optix_variant', 'base')} | {fmt_ms(v['build_time_ms'])} | "
                       f"{fmt_ms(o['build_time_ms'])} | {v['build_bytes'] / 1e6:.0f} | {o['build_bytes'] / 1e6:.0f} | "
                       f"{fmt_ms(v['probe_time_ms'])} | {fmt_ms(o['probe_time_ms'])} | "
                       f"{o['probe_time_ms'] / v['probe_time_ms']:.2f} | {o.get('api_check', '-')} |")
        out.append("")
    out += optix_rtscan_table(results)
    out += optix_ssb_table(results)
    out += optix_join_table(results)
    return out or ["Not measured yet (`bench/gpu/optix.sh`).", ""]


def optix_rtscan_table(results):
    """RTScan's refine through Vulkan and OptiX on the same table and queries (label optix-rtscan)."""
    out = []
    for d in device_dirs(results):
        rows = [r for r in load(d, "rtscan.jsonl") if r.get("label") == REG.label("optix_rtscan")]
        if not rows:
            continue
        pairs = api_pairs(rows, lambda r: r["selectivity"])
        if not pairs:
            continue
        _, v0, o0 = pairs[0]
        out += [f"RTScan's Matrix RT Refine through both APIs (`bench/gpu/optix.sh rtscan`, label `{REG.label('optix_rtscan')}`, "
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


def optix_ssb_table(results):
    """The SSB engine's rays through Vulkan and OptiX on the same tables and encoding (label optix-ssb)."""
    out = []
    for d in device_dirs(results):
        rows = [r for r in load(d, "ssb.jsonl") if r.get("label") == REG.label("optix_ssb") and r.get("api")]
        if not rows:
            continue
        pairs = api_pairs(rows, lambda r: (r["sf"], r["query"]))
        if not pairs:
            continue
        v0 = pairs[0][1]
        out += [f"The SSB engine through both APIs (`bench/gpu/optix.sh ssb`, label `{REG.label('optix_ssb')}`, "
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


def optix_join_table(results):
    """The RX and cgRX joins through Vulkan and OptiX on the same sides (labels optix-join,
    optix-cgrx-join)."""
    out = []
    for d in device_dirs(results):
        rows = [r for r in load(d, "join.jsonl") if r.get("label") in (REG.label("optix_join"), REG.label("optix_cgrx_join"))]
        if not rows:
            continue
        pairs = api_pairs(rows, lambda r: (r["index"], r["output"], r["indexed_side"]))
        if not pairs:
            continue
        v0 = pairs[0][1]
        out += [f"The RX and cgRX joins through both APIs (`bench/gpu/optix.sh join cgrx-join`, labels "
                f"`{REG.label('optix_join')}`, `{REG.label('optix_cgrx_join')}`, `bench/results/{d.name}/join.jsonl`): "
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
