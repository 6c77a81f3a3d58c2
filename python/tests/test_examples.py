"""Every script of examples/python runs to completion (each checks its own answers)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(os.environ.get("RAYDB_EXAMPLES", Path(__file__).parents[2] / "examples/python"))


@pytest.mark.parametrize("script", sorted(p.name for p in EXAMPLES.glob("*.py")))
def test_example_runs(script):
    done = subprocess.run([sys.executable, str(EXAMPLES / script)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
