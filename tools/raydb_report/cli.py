"""tools/report.py's commands: tables, thesis, check, plots."""
import pathlib
import sys

from . import sections

ROOT = pathlib.Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results"
PLOTS = ROOT / "bench" / "plots"
# The file that holds each section's markers. Sections listed as optional are written only where
# their markers are (the thesis table was once not in the results file); the others must be there.
FILES = {"RESULTS.md": list(sections.SECTIONS)}
OPTIONAL = {"thesis"}

USAGE = """\
usage: tools/report.py tables | thesis | check | plots

  tables   rewrites every results section of RESULTS.md (between <!-- results:<name>:begin -->
           and <!-- results:<name>:end -->; names: {names}) from bench/results/
  thesis   only "Where each optimization helps" (results:thesis; bench/gpu/rx.sh thesis rows)
  check    regenerates the sections and says which differ from the committed files (exit 1)
  plots    writes bench/plots/*.png (needs matplotlib: apt install python3-matplotlib)

Every number printed comes from a JSON line under bench/results/; for a configuration measured
more than once, the newest line wins. Labels and targets come from bench/registry.toml.
"""


def _wanted(only=None):
    """[(file, [section names])] to write: `only` (names) or all; optional ones where present."""
    out = []
    for name, names in FILES.items():
        path = ROOT / name
        text = path.read_text()
        keep = [n for n in names if (only is None or n in only) and
                (n not in OPTIONAL or sections.markers(n)[0] in text or only is not None)]
        if keep:
            out.append((path, keep))
    return out


def write_tables(only=None):
    for path, names in _wanted(only):
        made = sections.generate(RESULTS, names)
        try:
            sections.write(path, made)
        except sections.MarkerError as e:
            sys.exit(str(e))
        for n, lines in made.items():
            print(f"{path.name}: {len(lines)} lines in results:{n}")


def check():
    stale = []
    for path, names in _wanted():
        text = path.read_text()
        for n, lines in sections.generate(RESULTS, names).items():
            if sections.extract(text, n, path.name) != "\n".join(lines):
                stale.append(f"{path.name}: results:{n}")
    for s in stale:
        print(f"stale: {s} (run tools/report.py tables)")
    return 1 if stale else 0


def write_plots():
    import matplotlib
    matplotlib.use("Agg")
    from .plots import plots
    plots(RESULTS, PLOTS)
    print(f"plots written to {PLOTS.relative_to(ROOT)}")


def main(argv):
    cmd = argv[0] if argv else ""
    if cmd == "tables":
        write_tables()
    elif cmd == "thesis":
        write_tables({"thesis"})
    elif cmd == "check":
        return check()
    elif cmd == "plots":
        write_plots()
    else:
        sys.exit(USAGE.format(names=", ".join(sections.SECTIONS)))
    return 0
