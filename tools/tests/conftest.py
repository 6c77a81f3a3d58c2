"""Puts tools/ on sys.path so the tests import raydb_report as tools/report.py does."""
import pathlib
import sys

TOOLS = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TOOLS))
