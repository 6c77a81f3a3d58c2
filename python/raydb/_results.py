"""Appending whole JSON lines to a results file, as the C++ benchmarks do
(src/common/append_file.cpp, docs/reliability.md): a run killed midway leaves no partial line.

Linux stops a write between pages when the writer gets SIGKILL, so a line must never cross a page
boundary within one write: a line that would is moved to the next page, after padding the
previous line with trailing spaces (valid JSON) up to the boundary, in one write inside that page.
"""

import fcntl
import mmap
import os


def append_line(path, line):
    """Appends ``line`` (a str ending in a newline, at most one page once encoded) to ``path``."""
    data = line.encode()
    page = mmap.PAGESIZE
    if not data.endswith(b"\n"):
        raise ValueError(f"appending to {path}: a line must end in a newline")
    if len(data) > page:
        raise ValueError(f"appending to {path}: a line of {len(data)} bytes is longer than a "
                         f"page ({page} bytes), the most that is written whole if killed")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            # Another writer was killed midway: cut back to its last whole line.
            tail = os.pread(fd, size, 0)
            size = tail.rfind(b"\n") + 1
            os.ftruncate(fd, size)
        room = page - size % page
        if len(data) > room:
            os.pwrite(fd, b" " * room + b"\n", size - 1)
            size += room
        os.pwrite(fd, data, size)
        os.fsync(fd)
    finally:
        os.close(fd)
