"""The bench/gpu scripts run against a stub raydb (no GPU): every part passes a registered label,
and an unknown label key stops a script before raydb runs."""
import os
import re
import shutil
import subprocess

import pytest

from raydb_report.registry import REG
from test_registry import ROOT

# Every part of every script (the header of each lists them).
RUNS = [
    ("rx.sh", "all sorted-layout sorted-layout-more"),
    ("rtscan.sh", "all"),
    ("ssb.sh", "all"),
    ("sql.sh", "all"),
    ("bandwidth.sh", "all refine refine-cuda refine-batch refine-clustered in-select-hold sieve-refine "
                     "dpbis-refine l2 fixed-cost select-cuda select-memory"),
    ("cuda.sh", "bench"),
    ("optix.sh", "tests points variants prefer key64 ranges boxes rtscan rtscan-memory memory ias build ssb "
                 "ssb-variants join cgrx cgrx-prefer cgrx-ias vk-pipeline-cgrx vk-pipeline-rx vk-pipeline-rtscan "
                 "vk-pipeline-ssb ssb-optix-limits ssb-prefer rtscan-rtindex cgrx-join cgrx-diagnostics "
                 "vk-build-alone"),
]


@pytest.fixture
def tree(tmp_path):
    """A copy of the scripts and the registry, with .gl, nvidia-smi, raydb and raydb_tests stubbed."""
    shutil.copytree(ROOT / "bench" / "gpu", tmp_path / "bench" / "gpu")
    shutil.copy(ROOT / "bench" / "registry.toml", tmp_path / "bench")
    (tmp_path / "tools").mkdir()
    shutil.copy(ROOT / "tools" / "registry.sh", tmp_path / "tools")
    (tmp_path / ".gl").mkdir()
    (tmp_path / ".gl" / "enter.sh").write_text("")
    stubs = {
        "build/src/raydb": '[[ ${1:-} == info ]] && { echo "OptiX backend: yes"; exit 0; }\necho "$*" >> "$STUBLOG"',
        "build/tests/raydb_tests": 'echo "cuda kernels: radix sort"',
        "bin/nvidia-smi": 'echo "NVIDIA H100 80GB HBM3"',
    }
    for path, body in stubs.items():
        f = tmp_path / path
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("#!/usr/bin/env bash\n" + body + "\n")
        f.chmod(0o755)
    return tmp_path


def run(tree, script, parts):
    env = dict(os.environ, STUBLOG=str(tree / "raydb.log"), OUT=str(tree / "out"),
               PATH=f"{tree / 'bin'}:{os.environ['PATH']}")
    out = subprocess.run(["bash", f"bench/gpu/{script}", *parts.split()], cwd=tree, env=env,
                         capture_output=True, text=True, timeout=120)
    log = tree / "raydb.log"
    return out, log.read_text().splitlines() if log.exists() else []


def test_every_part_passes_registered_labels(tree):
    for script, parts in RUNS:
        out, calls = run(tree, script, parts)  # the log grows: after the last run it has every call
        assert "registry:" not in out.stderr, f"{script}: {out.stderr}"
    calls = [c for c in calls if not c.startswith("gen ")]  # sql.sh writes its tables first
    labels = [m.group(1) for c in calls for m in [re.search(r"--label (\S+)", c)] if m]
    assert len(calls) > 150 and len(labels) == len(calls), "every raydb bench call has a label"
    assert [l for l in labels if not REG.registered(l)] == []
    assert "diagnostic-trace_only" in labels and "optix-vk-build-alone-vulkan,optix" in labels


def test_an_unknown_label_stops_the_script(tree):
    rx = tree / "bench" / "gpu" / "rx.sh"
    rx.write_text(rx.read_text().replace("$(label key_sweep)", "$(label key_swep)", 1))
    out, calls = run(tree, "rx.sh", "sweeps")
    assert out.returncode != 0
    assert "registry: no label 'key_swep' in [labels]" in out.stderr
    assert calls == []
