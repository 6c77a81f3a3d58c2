"""The join section: the ray-traced joins against the sort-merge, sorted-array and hash joins."""
from .fmt import device_line, fmt_ms
from .registry import REG
from .rows import device_dirs, load, newest_by


JOIN_ORDER = {"rx": 0, "cgrx": 1, "sort_merge": 2, "sort_search": 3, "sorted_array": 4, "hash": 5}


def join_name(r):
    """The join column: the index, with cgRX's bucket size."""
    return f"cgrx{r.get('bucket_size', 32)}" if r["index"] == "cgrx" else r["index"]


def join_section(results):
    out = []
    for d in device_dirs(results):
        rows = [r for r in load(d, "join.jsonl") if r.get("api", "vulkan") == "vulkan"]
        if not rows:
            continue
        best = newest_by(rows, lambda r: (r["label"], r["output"], r["multiplicity"], r["build_rows"], r["probe_rows"],
                                          r["index"], r.get("indexed_side", "build"), r["hit_rate"],
                                          r.get("bucket_size", 0)))
        out += [f"Source: `bench/results/{d.name}/join.jsonl` (`raydb bench join`); {device_line(rows[0])}; "
                f"{rows[0]['key_bits']}-bit keys, GPU timestamps, median of {rows[0]['repeats']} after "
                f"{rows[0]['warmup']} warm-up. index: building the index on the indexed side (RX: its BVH; "
                "cgRX: its sort + BVH; sort_merge, sort_search and sorted_array: the build side's sort; hash: sort + "
                "insert); probe sort: sort_merge's and sort_search's sort of the probe side; count: the pass that counts "
                "matches (the whole join for `aggregate`); collect: writing the pairs; join = probe sort + count + "
                "collect. Multiplicity: matches per probe key.", "",
                "| label | output | build rows | probe rows | multiplicity | join | indexed side | index ms | "
                "probe sort ms | count ms | collect ms | join ms | index + join ms | matches | checked |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for k, r in sorted(best.items(), key=lambda kv: (kv[0][0] != REG.label("thesis_join"), kv[0][1], kv[0][2], kv[0][3],
                                                          kv[0][4], JOIN_ORDER.get(kv[0][5], 9), kv[0][8],
                                                          kv[0][6])):
            out.append(f"| {r['label']} | {r['output']} | {r['build_rows']} | {r['probe_rows']} | {r['multiplicity']} | "
                       f"{join_name(r)} | {r.get('indexed_side', 'build')} | {fmt_ms(r['index_time_ms'])} | "
                       f"{fmt_ms(r['probe_sort_ms']) if 'probe_sort_ms' in r else '-'} | {fmt_ms(r['count_ms'])} | "
                       f"{fmt_ms(r['collect_ms'])} | "
                       f"{fmt_ms(r['join_time_ms'])} | {fmt_ms(r['index_time_ms'] + r['join_time_ms'])} | "
                       f"{r['matches']} | {r['checked_result']} |")
        out.append("")
    return out or ["Not measured yet (`bench/gpu/rx.sh thesis`).", ""]
