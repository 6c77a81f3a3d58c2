"""Row picking, number formats and the target tables on rows made up for the test."""
import pytest

from raydb_report import fmt, rows, rx
from raydb_report.registry import REG

H100 = {"device": "NVIDIA H100 80GB HBM3"}


def point(ts, sorted_probes, probe, build=100.0, nbytes=5e9, **more):
    r = dict(H100, label=REG.label("paper_points"), index="rx", method="hit_and_scan", opaque_hits=True,
             hit_rate=1.0, sorted_probes=sorted_probes, probe_time_ms=probe, build_time_ms=build,
             build_bytes=nbytes, timestamp=ts)
    r.update(more)
    return r


@pytest.mark.parametrize("x, want", [(123.456, "123.5"), (10.0, "10.0"), (9.994, "9.99"), (1.0, "1.00"),
                                     (0.99949, "0.999"), (0.0123, "0.012")])
def test_fmt_ms_decimals_follow_the_magnitude(x, want):
    assert fmt.fmt_ms(x) == want


def test_other_formats():
    assert (fmt.gb(5.678e9), fmt.pow2(2 ** 26), fmt.pow2(3), fmt.pow2(0)) == ("5.68", "2^26", "3", "0")
    assert (fmt.rows_e(1e8), fmt.rows_e(10 ** 9), fmt.rows_e(123456)) == ("1e8", "1e9", "123456")


def test_the_newest_row_of_a_configuration_wins():
    old, new, other = point("2026-01-01", False, 50.0), point("2026-02-01", False, 40.0), point("2026-01-15", True, 9.0)
    assert rows.newest([old, new, other], sorted_probes=False) is new
    best = rows.newest_by([new, old, other], lambda r: r["sorted_probes"])
    assert best == {False: new, True: other}


def test_variant_and_order_name_what_a_row_measured():
    assert rows.variant(point("t", False, 1.0)) == "rx hit_and_scan, opaque rays"
    assert rows.variant({"index": "sorted", "method": "automatic", "sorted_layout": "lines"}) == "sorted (automatic, lines)"
    assert rows.variant({"index": "rx", "method": "any_hit"}) == "rx any_hit"
    assert rows.order_of({"sorted_probes": True}) == "sorted"
    assert rows.order_of({"sorted_probes": False, "probe_order": "gpu_sorted"}) == "gpu_sorted"


def test_api_pairs_lists_only_configurations_measured_in_both_apis():
    rs = [{"api": "vulkan", "k": 1, "timestamp": "a"}, {"api": "optix", "k": 1, "timestamp": "a"},
          {"api": "optix", "k": 1, "timestamp": "b"}, {"api": "vulkan", "k": 2, "timestamp": "a"}]
    assert rows.api_pairs(rs, lambda r: r["k"]) == [(1, rs[0], rs[2])]


def test_rx_targets_are_judged_against_the_registry():
    pts = [point("2026-01-01", False, 50.0), point("2026-02-01", False, 40.0, build=130.0, nbytes=5.0e9),
           point("2026-02-01", True, 31.0)]
    assert rx.targets_table(pts, pts[1]) == [
        "Targets (issue 2, H100): default lookup (hit_and_scan, opaque rays), hit rate 1.", "",
        "| target | limit | measured | met |", "|---|---|---|---|",
        "| unsorted probes | 45 ms | 40.0 ms | yes |",
        "| sorted probes | 30 ms | 31.0 ms | no |",
        "| BVH build with compaction | 120 ms | 130.0 ms | no |",
        "| compacted BVH | 5.7 GB | 5.00 GB | yes |", ""]
    # Targets are set for one device; other devices get no target table.
    assert rx.targets_table(pts, dict(pts[1], device="NVIDIA H200")) == []


def test_a_target_edited_in_the_registry_moves_the_verdict(monkeypatch):
    pts = [point("2026-02-01", False, 40.0)]
    limits = [dict(REG.target("rx")["limits"][0], limit=35.0)]
    monkeypatch.setitem(REG.target("rx"), "limits", limits)
    assert rx.targets_table(pts, pts[0])[-2] == "| unsorted probes | 35 ms | 40.0 ms | no |"


def test_baseline_targets_need_every_baseline():
    def base(index, s, probe):
        return dict(H100, index=index, method="automatic", hit_rate=1.0, sorted_probes=s,
                    probe_time_ms=probe, timestamp="t")
    pts = [base("hash", False, 15.0), base("sorted", False, 33.0), base("sorted", True, 3.0)]
    assert rx.baseline_targets_table(pts)[4:7] == [
        "| hash (automatic) | unsorted | 16 ms | 15.0 ms | yes |",
        "| sorted (automatic) | unsorted | 32 ms | 33.0 ms | no |",
        "| sorted (automatic) | sorted | 4 ms | 3.00 ms | yes |"]
    assert rx.baseline_targets_table(pts[:2]) == []


def test_held_streams_flushed_l2_and_single_passes_are_diagnostics():
    query = {"index": "dpbis", "pass": "all", "cuda_hold_us": 0.0, "cuda_flush_l2": False}
    assert not rows.is_diagnostic(query)
    assert not rows.is_diagnostic({"index": "dpbis"})  # rows from before these fields
    assert rows.is_diagnostic(dict(query, cuda_flush_l2=True))
    assert rows.is_diagnostic(dict(query, cuda_hold_us=300.0))
    assert rows.is_diagnostic(dict(query, **{"pass": "select"}))
