"""The several-GPU section: RX totals against one GPU, SSB times per N, and the check count."""
import json

from raydb_report import scaling


def _rx(n, order, lps, checked="ok"):
    return {"label": f"multi-gpu-x{n}", "probe_order": order, "lookups_per_s": lps,
            "probe_time_ms": 10.0, "build_time_ms": 5.0, "build_peak_bytes": 2 ** 30,
            "checked_result": checked, "num_keys": 4, "num_lookups": 8, "device": "GPU",
            "driver": "D", "driver_info": "1", "vulkan_api": "1.4", "timestamp": "t"}


def test_section_sums_gpus_and_counts_checks(tmp_path):
    d = tmp_path / "gpu-x2"
    (d / "dask").mkdir(parents=True)
    rows = [_rx(1, "unsorted", 1e9), _rx(2, "unsorted", 1e9), _rx(2, "unsorted", 0.9e9, "FAILED")]
    (d / "rx.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    q = dict(op="ssb_query", query="1.1", scale_factor=1.0, max_trace_ms=2.0, max_encode_ms=30.0)
    dask = [dict(q, workers=1, median_ms=100.0, checked=True),
            dict(q, workers=2, median_ms=60.0, checked=False),
            dict(op="ssb_single", query="1.1", scale_factor=1.0, wall_ms=90.0, trace_ms=1.0,
                 encode_ms=20.0)]
    (d / "dask" / "dask.jsonl").write_text("".join(json.dumps(r) + "\n" for r in dask))
    (tmp_path / "one-gpu").mkdir()  # not a -x<N> folder: ignored
    text = "\n".join(scaling.scaling_section(tmp_path))
    assert "| 2 | unsorted | 10.0 | 1.90 G | 1.90 | 5.00 | 1.07 | FAILED |" in text
    assert "1 of 2 distributed answers compared with one engine: equal." in text
    assert "| Q1.1 | 90 / 1.00 / 20 | 100 / 2.00 / 30 | 60 / 2.00 / 30 |" in text
    assert "one-gpu" not in text


def test_no_multi_gpu_results(tmp_path):
    (tmp_path / "gpu").mkdir()
    assert scaling.scaling_section(tmp_path) == ["No results from machines with several GPUs yet."]
