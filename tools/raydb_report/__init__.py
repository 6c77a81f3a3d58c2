"""raydb's results tooling: bench/results/<device>/*.jsonl into RESULTS.md's result sections
and bench/plots/*.png, with labels and targets from bench/registry.toml.

Modules: registry (labels, targets), rows (loading and picking rows), fmt (number formats), one
module per section family (rx, scans, optix, cgrx, join, rtscan, ssb, thesis), sections (names
and markers), plots, cli (tools/report.py's commands).
"""
