"""bench/registry.toml: every label in bench/results and in bench/gpu/*.sh is registered, the
scripts' awk reader agrees with tomllib, and lookups fail naming the key and the file."""
import json
import pathlib
import re
import subprocess

import pytest

from raydb_report import registry
from raydb_report.registry import REG, RegistryError

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "registry.sh"
BENCH = sorted((ROOT / "bench" / "gpu").glob("*.sh"))


def sh(*args):
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True)


def test_every_label_in_the_results_is_registered():
    seen = set()
    for path in (ROOT / "bench" / "results").glob("*/*.jsonl"):
        for line in path.read_text().splitlines():
            if line.strip():
                seen.add(json.loads(line).get("label", ""))
    assert len(seen) > 50
    assert sorted(l for l in seen if not REG.registered(l)) == []


def test_the_awk_reader_agrees_with_tomllib():
    out = sh("labels")
    assert out.returncode == 0, out.stderr
    pairs = dict(line.split(" ", 1) for line in out.stdout.splitlines())
    assert pairs == REG.labels


@pytest.mark.parametrize("args, want", [
    (("label", "paper_points"), "paper-points"),
    (("label", "diagnostic", "trace_only"), "diagnostic-trace_only"),
    (("label", "optix_vk_build_alone", "vulkan,optix"), "optix-vk-build-alone-vulkan,optix"),
])
def test_the_scripts_lookup(args, want):
    out = sh(*args)
    assert (out.returncode, out.stdout) == (0, want + "\n")
    assert REG.label(*args[1:]) == want


@pytest.mark.parametrize("args, message", [
    (("label", "no_such_label"), "no label 'no_such_label' in [labels] of "),
    (("label", "diagnostic"), "label 'diagnostic' (diagnostic-{}) needs a FILL"),
    (("label", "key64", "x"), "label 'key64' (key64) has no {} for 'x'"),
    (("nonsense",), "tools/registry.sh label KEY [FILL]"),
])
def test_the_scripts_lookup_fails_loudly(args, message):
    out = sh(*args)
    assert out.returncode == 2 and message in out.stderr and out.stdout == ""


def test_python_lookups_fail_naming_key_and_file():
    with pytest.raises(RegistryError, match=r"registry\.toml: no label 'nope'"):
        REG.label("nope")
    with pytest.raises(RegistryError, match="needs a fill"):
        REG.label("zipf")
    with pytest.raises(RegistryError, match="has no {} for '3'"):
        REG.label("tpch", 3)
    with pytest.raises(RegistryError, match=r"no \[targets\.nope\]"):
        REG.target("nope")
    with pytest.raises(RegistryError, match="no family 'nope'"):
        REG.prefix("nope")


def test_a_broken_registry_names_its_file(tmp_path):
    bad = tmp_path / "registry.toml"
    bad.write_text("[labels]\nx = \"unterminated\n")
    with pytest.raises(SystemExit, match="registry.toml"):
        registry.load(bad)


def test_labels_keep_the_subset_awk_reads():
    text = (ROOT / "bench" / "registry.toml").read_text()
    body = text.split("\n[labels]\n", 1)[1].split("\n[", 1)[0]
    entries = [l for l in body.splitlines() if l.strip() and not l.lstrip().startswith("#")]
    assert len(entries) == len(REG.labels)
    for line in entries:
        assert re.match(r'^[a-z0-9_]+\s*=\s*"[^"\\]*"\s*(#.*)?$', line), line
    assert len(set(REG.labels.values())) == len(REG.labels), "two keys with one label"


def test_the_scripts_take_their_labels_from_the_registry():
    used = 0
    for path in BENCH:
        text = "\n".join(l for l in path.read_text().splitlines() if not l.lstrip().startswith("#"))
        # No label spelled out: every --label is $(label KEY [FILL]) or a variable set from one.
        for m in re.finditer(r"--label\s+(\S+)", text):
            assert m.group(1).lstrip('"').startswith("$"), f"{path.name}: --label {m.group(1)}"
        for m in re.finditer(r"\$\(label (\w+)(?: ([^)]+))?\)", text):
            used += 1
            assert m.group(1) in REG.labels, f"{path.name}: label {m.group(1)} is not in the registry"
            assert ("{}" in REG.labels[m.group(1)]) == (m.group(2) is not None), f"{path.name}: {m.group(0)}"
    assert used > 60


def test_families_tables_and_targets_resolve():
    for family, prefix in REG.families.items():
        assert any(v.startswith(prefix) for v in REG.labels.values()), family
    side = REG.table("rtscan_side")
    assert side[:3] == ("variants", "variants-rtindex", "groups-3+1")
    assert all(REG.registered(l) for l in side)
    rx = REG.target("rx")
    assert [l["limit"] for l in rx["limits"]] == [45.0, 30.0, 120.0, 5.7]
    assert {"query_ms", "build_ms", "bvh_bytes"} <= set(REG.target("rtscan"))
    e2e = REG.target("e2e")
    assert (e2e["issue"], e2e["lookup_factor"], e2e["build_factor"]) == (21, 1.25, 1.25)
    assert REG.registered("zipf-1.7") and not REG.registered("zipf-") and not REG.registered("paper-point")


def test_a_missing_registry_names_its_path(tmp_path):
    with pytest.raises(SystemExit, match="nowhere.toml"):
        registry.load(tmp_path / "nowhere.toml")
