"""Loading bench/results/<device>/*.jsonl and picking rows: every section's vocabulary.

For a configuration measured more than once, the newest row (largest timestamp) wins.
"""
import json

from .registry import REG


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


def newest_by(rows, key):
    """The newest row of each configuration key(r)."""
    out = {}
    for r in rows:
        k = key(r)
        if k not in out or r["timestamp"] > out[k]["timestamp"]:
            out[k] = r
    return out


def plain(rows):
    """Rows that are lookups (not --diagnostic runs) of the current implementation."""
    return [r for r in rows if r.get("diagnostic", "none") == "none" and "superseded" not in r]


def order_of(r):
    """unsorted, sorted (by the generator) or gpu_sorted (by the index on the GPU)."""
    return r.get("probe_order") or ("sorted" if r["sorted_probes"] else "unsorted")


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


def is_diagnostic(r):
    """A bandwidth diagnostic: one pass alone, a stream pass, or CUDA timed after a held stream or
    a flushed L2."""
    return (r.get("pass", "all") != "all" or (r.get("cuda_hold_us") or 0) > 0
            or bool(r.get("cuda_flush_l2")))


def api_pairs(rows, key):
    """The configurations key(r) that have a newest row in both APIs, in key order, as
    (key, Vulkan row, OptiX row): what every Vulkan-vs-OptiX table lists."""
    best = newest_by(rows, lambda r: (key(r), r["api"]))
    keys = sorted({k for k, api in best if (k, "vulkan") in best and (k, "optix") in best})
    return [(k, best[(k, "vulkan")], best[(k, "optix")]) for k in keys]


def device_dirs(results):
    """bench/results/<device>/ folders, in name order."""
    return sorted(p for p in results.iterdir() if p.is_dir())


def plain_or_diag(rows, diag):
    """RX's own --diagnostic rows (label diagnostic-<diag>)."""
    return [r for r in rows if r.get("label") == REG.label("diagnostic", diag) and r.get("index", "rx") == "rx"]
