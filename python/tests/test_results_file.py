"""raydb.bench's results lines stay whole when the writer is killed (raydb._results)."""

import os
import signal
import subprocess
import sys
import time

import pytest

from raydb._results import append_line

WRITER = """
import sys
from raydb._results import append_line
lines = [('{"row": %d, "pad": "%s"}\\n' % (i, "x" * (100 + 61 * i))) for i in range(64)]
while True:
    for line in lines:
        append_line(sys.argv[1], line)
"""


def test_killed_writers_leave_whole_lines(tmp_path):
    path = tmp_path / "rows.jsonl"
    expected = {'{"row": %d, "pad": "%s"}' % (i, "x" * (100 + 61 * i)) for i in range(64)}
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    for round_ in range(8):
        child = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], env=env)
        time.sleep(0.3 + 0.05 * round_)
        child.send_signal(signal.SIGKILL)
        assert child.wait() == -signal.SIGKILL
    text = path.read_text()
    assert text.endswith("\n")
    lines = text.splitlines()
    assert len(lines) > 8
    bad = [l for l in lines if l.rstrip(" ") not in expected]
    assert not bad, f"{len(bad)} of {len(lines)} lines are partial or garbled"


def test_a_partial_line_left_by_another_writer_is_cut_back(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n{"b": ')
    append_line(path, '{"c": 3}\n')
    assert path.read_text() == '{"a": 1}\n{"c": 3}\n'


def test_a_line_longer_than_a_page_is_refused(tmp_path):
    with pytest.raises(ValueError, match="longer than a page"):
        append_line(tmp_path / "rows.jsonl", "x" * 5000 + "\n")


def test_a_line_that_would_cross_a_page_starts_the_next_one(tmp_path):
    # The mechanism the killed-writer test relies on, checked exactly: no write spans two pages.
    import mmap

    path = tmp_path / "rows.jsonl"
    first = '{"a": "' + "x" * (mmap.PAGESIZE - 20) + '"}\n'
    append_line(path, first)
    append_line(path, '{"b": 2}\n')  # fits in the 11 bytes left of the first page
    append_line(path, '{"c": "' + "y" * 40 + '"}\n')  # does not
    data = path.read_bytes()
    assert data[mmap.PAGESIZE - 1:mmap.PAGESIZE] == b"\n"
    assert data[mmap.PAGESIZE:].startswith(b'{"c": ')
    assert [l.rstrip(" ") for l in data.decode().splitlines()] == [
        first[:-1], '{"b": 2}', '{"c": "' + "y" * 40 + '"}']
