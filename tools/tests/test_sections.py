"""The committed RESULTS.md sections are what the generator makes from the committed rows, byte for
byte; and the marker handling that a move of sections to another file relies on."""
import subprocess
import sys

import pytest

from raydb_report import cli, sections


def test_every_section_equals_its_regeneration():
    # The results (then in README.md) were regenerated and compared with cmp when the package
    # replaced the old script; from then on the committed text and the generator must agree.
    for name, files in cli.FILES.items():
        text = (cli.ROOT / name).read_text()
        made = sections.generate(cli.RESULTS, files)
        assert list(made) == files
        for n, lines in made.items():
            assert lines, f"results:{n} is empty"
            assert sections.extract(text, n, name) == "\n".join(lines), (
                f"{name}: results:{n} differs from tools/report.py's output (run tools/report.py tables)")


def test_sections_hold_tables_from_every_device():
    made = sections.generate(cli.RESULTS)
    assert "bench/results/nvidia-h100-80gb-hbm3/rx.jsonl" in "\n".join(made["rx"])
    assert "bench/results/llvmpipe-llvm-15-0-6-256-bits/rx.jsonl" in "\n".join(made["rx"])
    assert any(line.startswith("| unsorted probes | 45 ms |") for line in made["rx"])


def test_replace_then_extract_round_trips_and_keeps_the_rest():
    b, e = sections.markers("demo")
    text = f"intro\n{b}\nold\n{e}\noutro\n"
    new = sections.replace(text, {"demo": ["| a |", "", "second"]})
    assert new == f"intro\n{b}\n| a |\n\nsecond\n{e}\noutro\n"
    assert sections.extract(new, "demo") == "| a |\n\nsecond"
    assert sections.replace(new, {"demo": ["| a |", "", "second"]}) == new


def test_missing_markers_name_the_section_and_the_file():
    with pytest.raises(sections.MarkerError, match=r"RESULTS\.md lacks the <!-- results:ssb:begin -->"):
        sections.replace("no markers here", {"ssb": ["x"]}, source="RESULTS.md")
    with pytest.raises(sections.MarkerError, match="results:rx:end"):
        sections.extract("<!-- results:rx:begin -->\nonly the start", "rx")


def test_check_finds_a_stale_section(tmp_path, monkeypatch, capsys):
    readme = tmp_path / "RESULTS.md"
    text = (cli.ROOT / "RESULTS.md").read_text()
    readme.write_text(text)
    monkeypatch.setattr(cli, "ROOT", tmp_path)
    assert cli.check() == 0
    b, _ = sections.markers("ssb")
    readme.write_text(text.replace(b + "\n", b + "\nedited by hand\n", 1))
    assert cli.check() == 1
    assert "stale: RESULTS.md: results:ssb" in capsys.readouterr().out


def test_tables_rewrites_a_stale_section(tmp_path, monkeypatch):
    text = (cli.ROOT / "RESULTS.md").read_text()
    b, e = sections.markers("join")
    stale = text.split(b)[0] + b + "\nold\n" + e + text.split(e)[1]
    (tmp_path / "RESULTS.md").write_text(stale)
    monkeypatch.setattr(cli, "ROOT", tmp_path)
    cli.write_tables()
    assert (tmp_path / "RESULTS.md").read_text() == text


def test_the_entry_point_still_runs():
    out = subprocess.run([sys.executable, str(cli.ROOT / "tools" / "report.py"), "check"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    usage = subprocess.run([sys.executable, str(cli.ROOT / "tools" / "report.py")], capture_output=True, text=True)
    assert usage.returncode == 1 and "usage: tools/report.py tables" in usage.stderr


def test_the_thesis_section_is_written_only_where_its_markers_are(tmp_path, monkeypatch):
    text = (cli.ROOT / "RESULTS.md").read_text()
    b, e = sections.markers("thesis")
    without = text.replace(b, "").replace(e, "")
    (tmp_path / "RESULTS.md").write_text(without)
    monkeypatch.setattr(cli, "ROOT", tmp_path)
    cli.write_tables()
    assert (tmp_path / "RESULTS.md").read_text() == without
    with pytest.raises(SystemExit, match="RESULTS.md lacks the <!-- results:thesis:begin -->"):
        cli.write_tables({"thesis"})
    b, _ = sections.markers("ssb")
    (tmp_path / "RESULTS.md").write_text(without.replace(b, ""))
    with pytest.raises(SystemExit, match="RESULTS.md lacks the <!-- results:ssb:begin -->"):
        cli.write_tables()
