#!/usr/bin/env python3
"""Turns bench/results/<device>/*.jsonl into the README's result sections and PNG plots.

    tools/report.py tables   # every <!-- results:<name>:begin/end --> section of README.md
    tools/report.py thesis   # only "Where each optimization helps" (bench/gpu/rx.sh thesis rows)
    tools/report.py check    # exit 1 if a committed section differs from its regeneration
    tools/report.py plots    # bench/plots/*.png (needs matplotlib: apt install python3-matplotlib)

The code is the package tools/raydb_report; labels and targets are in bench/registry.toml.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from raydb_report.cli import main  # noqa: E402 (after the path it is found on)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
