"""The end-to-end section (label e2e) on rows made up for the test: old rows without the pipelined
transfers, new rows with them, rows within and over the registry's targets."""
import json

import pytest

from raydb_report import e2e
from raydb_report.registry import REG

DEVICE = {"device": "GPU X", "driver": "D", "driver_info": "1.2", "vulkan_api": "1.4"}


def row(ts, index="rx", order="unsorted", probe=40.0, up=2.0, down=38.0, call=300.0, first=900.0,
        piped=100.0, piped_first=200.0, kernels=60.0, key_bits=32, **more):
    r = dict(DEVICE, label=REG.label("e2e"), index=index, method="m", key_bits=key_bits,
             sorted_probes=order == "sorted", probe_order=order, hit_rate=1.0, num_keys=2 ** 20,
             num_lookups=2 ** 21, lookup_kind="point", range_width=0, repeats=5, warmup=3, timestamp=ts,
             probe_time_ms=probe, upload_ms=up, download_ms=down, host_time_ms=call, host_first_ms=first,
             pipelined_host_ms=piped, pipelined_first_ms=piped_first, pipelined_gpu_ms=kernels,
             build_upload_ms=1.0, layout_sort_ms=4.0, build_time_ms=95.0, build_host_ms=200.0,
             build_first_host_ms=500.0)
    r.update(more)
    return r


def section(tmp_path, rows, device="gpu-x"):
    d = tmp_path / device
    d.mkdir(exist_ok=True)
    (d / "rx.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return e2e.e2e_section(tmp_path)


def table(lines, header):
    """The rows of the table whose header line starts with `header`."""
    start = next(i for i, l in enumerate(lines) if l.startswith(header))
    end = lines.index("", start)
    return lines[start + 2:end]


def test_old_rows_have_no_piped_columns_and_are_judged_against_the_target(tmp_path):
    # PCIe 2 + 38 = 40 ms, probe 40 ms: target 1.25 x 40 = 50 ms.
    rows = [row("2026-01-01", piped=49.0, piped_first=51.0),
            row("2026-01-01", order="sorted", probe=44.0, piped=55.0, piped_first=55.0)]
    lines = section(tmp_path, rows)
    assert lines[0].startswith("Source: `bench/results/gpu-x/rx.jsonl`, label `e2e` (`bench/gpu/e2e.sh`); "
                               "GPU X (D 1.2, Vulkan 1.4).")
    assert "2^20 keys, 2^21 point lookups, hit rate 1, medians of 5 after 3 warm-up calls:" in lines
    head = "| workload | probes | GPU probe | PCIe up + down | target 1.25x max |"
    assert "piped up" not in next(l for l in lines if l.startswith(head))
    assert table(lines, head) == [
        "| RX | unsorted | 40.0 | 2.00 + 38.0 | 50.0 | 300.0 | 900.0 | 49.0 | 51.0 | 60.0 | yes | no |",
        # probe 44 > PCIe 40: target 1.25 x 44 = 55, and 55 is within it.
        "| RX | sorted | 44.0 | 2.00 + 38.0 | 55.0 | 300.0 | 900.0 | 55.0 | 55.0 | 60.0 | yes | yes |"]
    assert not any(l.startswith("Piped up / down") for l in lines)


def test_new_rows_show_their_copy_queue_transfers_and_old_rows_a_dash(tmp_path):
    rows = [row("2026-01-01", index="hash"),
            row("2026-02-01", index="sorted", pipelined_upload_ms=3.5, pipelined_download_ms=40.25),
            row("2026-02-01", index="sorted", order="sorted", pipelined_upload_ms=0.0, pipelined_download_ms=0.0)]
    lines = section(tmp_path, rows)
    head = "| workload | probes | GPU probe | PCIe up + down | target 1.25x max | whole batch: call | " \
           "whole batch: first call | pipelined: call | pipelined: first call | pipelined: kernels | " \
           "piped up | piped down | within target: call | within target: first call |"
    assert head in lines
    assert table(lines, head) == [
        "| sorted array | unsorted | 40.0 | 2.00 + 38.0 | 50.0 | 300.0 | 900.0 | 100.0 | 200.0 | 60.0 | 3.50 | "
        "40.2 | no | no |",
        "| sorted array | sorted | 40.0 | 2.00 + 38.0 | 50.0 | 300.0 | 900.0 | 100.0 | 200.0 | 60.0 | - | - | "
        "no | no |",
        "| hash table | unsorted | 40.0 | 2.00 + 38.0 | 50.0 | 300.0 | 900.0 | 100.0 | 200.0 | 60.0 | - | - | "
        "no | no |"]
    assert any(l.startswith("Piped up / down: the pipelined call's copy-queue transfers") for l in lines)


def test_builds_sum_their_gpu_parts_and_one_row_per_index_and_width(tmp_path):
    rows = [row("2026-01-01"), row("2026-01-02", order="sorted", build_host_ms=120.0),
            row("2026-01-01", key_bits=64, build_upload_ms=2.0, layout_sort_ms=8.0, build_time_ms=110.0),
            row("2026-01-01", index="sorted", layout_sort_ms=5.0, build_time_ms=5.0, build_host_ms=7.0),
            row("2026-01-01", index="hash", build_time_ms=15.0, build_host_ms=21.0)]
    lines = section(tmp_path, rows)
    assert table(lines, "| index | upload + sort + GPU build | target 1.25x |") == [
        # The newest RX row's build wins (the sorted row: 120 ms, within 1.25 x 100).
        "| RX, 32-bit | 1.00 + 4.00 + 95.0 = 100.0 | 125.0 | 120.0 | 500.0 | yes |",
        "| RX, 64-bit | 2.00 + 8.00 + 110.0 = 120.0 | 150.0 | 200.0 | 500.0 | no |",
        "| sorted array, 32-bit | 1.00 + 5.00 (sort) = 6.00 | 7.50 | 7.00 | 500.0 | yes |",
        "| hash table, 32-bit | 1.00 + 15.0 (sort + insert) = 16.0 | 20.0 | 21.0 | 500.0 | no |"]


def test_the_newest_row_of_a_configuration_wins_and_other_labels_stay_out(tmp_path):
    rows = [row("2026-01-01", piped=40.0), row("2026-03-01", piped=70.0),
            row("2026-04-01", piped=10.0, label=REG.label("paper_points")),
            row("2026-05-01", piped=10.0, diagnostic="trace_only")]
    lines = section(tmp_path, rows)
    got = table(lines, "| workload |")
    assert len(got) == 1 and "| 70.0 |" in got[0] and got[0].endswith("| no | no |")


def test_missing_wall_clocks_print_a_dash_and_no_verdict(tmp_path):
    r = row("2026-01-01")
    del r["pipelined_first_ms"], r["build_first_host_ms"]
    lines = section(tmp_path, [r])
    assert table(lines, "| workload |")[0].endswith("| 100.0 | - | 60.0 | no | - |")
    assert table(lines, "| index |")[0].endswith("| 200.0 | - | no |")


def test_sizes_and_devices_get_their_own_tables(tmp_path):
    section(tmp_path, [row("2026-01-01")], device="a-gpu")
    lines = section(tmp_path, [row("2026-01-01"), row("2026-01-01", num_keys=2 ** 22)], device="b-gpu")
    sources = [l for l in lines if l.startswith("Source:")]
    assert [s.split("`")[1] for s in sources] == ["bench/results/a-gpu/rx.jsonl", "bench/results/b-gpu/rx.jsonl"]
    assert sum(l.startswith("2^20 keys") for l in lines) == 2 and sum(l.startswith("2^22 keys") for l in lines) == 1


def test_the_factors_come_from_the_registry(tmp_path, monkeypatch):
    monkeypatch.setitem(REG.target("e2e"), "lookup_factor", 2.5)
    monkeypatch.setitem(REG.target("e2e"), "build_factor", 2.0)
    lines = section(tmp_path, [row("2026-01-01")])
    # 2.5 x 40 = 100: the pipelined call (100 ms) is within it, its first call (200 ms) not.
    assert "target 2.5x max" in lines[4]
    assert table(lines, "| workload |")[0].endswith("| 100.0 | 300.0 | 900.0 | 100.0 | 200.0 | 60.0 | yes | no |")
    assert table(lines, "| index |")[0] == "| RX, 32-bit | 1.00 + 4.00 + 95.0 = 100.0 | 200.0 | 200.0 | 500.0 | yes |"
    assert REG.target("e2e")["issue"] == 21


def test_no_e2e_rows(tmp_path):
    assert section(tmp_path, [row("2026-01-01", label=REG.label("key64"))]) == [
        "Not measured yet (`bench/gpu/e2e.sh`).", ""]


@pytest.mark.parametrize("r, target", [(row("t", probe=60.0), 75.0), (row("t", probe=1.0, up=1.0, down=7.0), 10.0)])
def test_the_lookup_target_is_the_larger_of_pcie_and_gpu(r, target):
    assert e2e.lookup_target_ms(r) == pytest.approx(target)


def test_pinned_calls_get_their_own_columns_and_verdicts(tmp_path):
    # Target 50 ms (see above): the pinned call within it, its first call not; rows without
    # pinned calls show dashes.
    rows = [row("2026-02-01", index="hash", pinned_host_ms=46.0, pinned_first_ms=52.0),
            row("2026-02-01", index="hash", order="sorted")]
    lines = section(tmp_path, rows)
    head = next(l for l in lines if l.startswith("| workload |"))
    assert head.endswith("| pinned: call | pinned: first call | within target: pinned call, first |")
    assert table(lines, "| workload |") == [
        "| hash table | unsorted | 40.0 | 2.00 + 38.0 | 50.0 | 300.0 | 900.0 | 100.0 | 200.0 | 60.0 | no | no | "
        "46.0 | 52.0 | yes, no |",
        "| hash table | sorted | 40.0 | 2.00 + 38.0 | 50.0 | 300.0 | 900.0 | 100.0 | 200.0 | 60.0 | no | no | "
        "- | - | - |"]
    assert any(l.startswith("Pinned: the same pipelined calls") for l in lines)


def test_pinned_builds_get_their_own_column_and_verdict(tmp_path):
    # Upload 1 + build 20 (the hash table's sort + insert) = 21 ms: target 26.25 ms.
    rows = [row("2026-02-01", index="hash", build_upload_ms=1.0, build_time_ms=20.0, build_host_ms=140.0,
                build_first_host_ms=180.0, pinned_build_host_ms=25.0),
            row("2026-02-01", index="sorted", build_upload_ms=1.0, build_time_ms=20.0, build_host_ms=140.0,
                build_first_host_ms=180.0)]
    lines = section(tmp_path, rows)
    head = next(l for l in lines if l.startswith("| index |"))
    assert head.endswith("| pinned: host to host | within target: pinned |")
    body = table(lines, "| index |")
    assert body[0].endswith("| 140.0 | 180.0 | no | - | - |") and body[0].startswith("| sorted array")
    assert body[1].endswith("| 140.0 | 180.0 | no | 25.0 | yes |") and body[1].startswith("| hash table")


def test_a_row_with_pinned_builds_takes_its_pcie_upload_from_them(tmp_path):
    # Keys and values: 2^20 x 8 bytes in 4 ms; queries: 2^21 x 4 bytes, the same bytes: 4 ms up.
    # PCIe 4 + 38 = 42 > probe 40: target 1.25 x 42 = 52.5; the build's upload is 4 ms too.
    rows = [row("2026-01-01", piped=52.0, piped_first=53.0, pinned_build_upload_ms=4.0,
                pinned_build_host_ms=110.0)]
    lines = section(tmp_path, rows)
    assert table(lines, "| workload |") == [
        "| RX | unsorted | 40.0 | 4.00 + 38.0 | 52.5 | 300.0 | 900.0 | 52.0 | 53.0 | 60.0 | yes | no |"]
    assert table(lines, "| index | upload + sort + GPU build |") == [
        "| RX, 32-bit | 4.00 + 4.00 + 95.0 = 103.0 | 128.8 | 200.0 | 500.0 | no | 110.0 | yes |"]


def test_builds_with_a_host_split_get_a_breakdown_table(tmp_path):
    split = {"allocate_ms": 10.0, "release_ms": 2.0, "pipeline_ms": 0.0, "wait_ms": 100.0, "copy_ms": 20.0,
             "other_ms": 3.0, "allocations": 9.0}
    rows = [row("2026-01-01", build_host_split=split, pinned_build_host_ms=150.0,
                pinned_build_host_split=dict(split, copy_ms=0.0)),
            row("2026-01-01", index="hash", build_time_ms=15.0)]
    lines = section(tmp_path, rows)
    assert table(lines, "| index | from | host to host |") == [
        "| RX, 32-bit | std::vector | 200.0 | 10.0 | 2.00 | 0.000 | 100.0 | 20.0 | 3.00 | 9 |",
        "| RX, 32-bit | HostBuffer | 150.0 | 10.0 | 2.00 | 0.000 | 100.0 | 0.000 | 3.00 | 9 |"]
