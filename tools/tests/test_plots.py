"""The plots regenerate byte-identical to the committed bench/plots (matplotlib's Agg PNGs carry no
date, so equal rows give equal bytes for one matplotlib version)."""
import pytest

from raydb_report import cli

matplotlib = pytest.importorskip("matplotlib", reason="python3-matplotlib is not installed (tools/setup.sh)")


def test_plots_equal_the_committed_ones(tmp_path):
    matplotlib.use("Agg")
    from raydb_report.plots import plots
    plots(cli.RESULTS, tmp_path)
    made = sorted(p.name for p in tmp_path.glob("*.png"))
    assert made == sorted(p.name for p in cli.PLOTS.glob("*.png"))
    differ = [n for n in made if (tmp_path / n).read_bytes() != (cli.PLOTS / n).read_bytes()]
    assert differ == [], f"differ from bench/plots (run tools/report.py plots): {differ}"
