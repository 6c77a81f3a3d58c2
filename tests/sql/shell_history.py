#!/usr/bin/env python3
"""raydb sql's interactive shell on a terminal (a pty): a statement typed in one session is kept
in the --history file and recalled with the up arrow in the next, as in sqlite3 and psql; off a
terminal (a pipe) the shell reads plain lines and writes no history.
Usage: shell_history.py RAYDB SCHEMA DATA_DIR WORK_DIR"""
import os
import pty
import select
import subprocess
import sys
import time

raydb, schema, data, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
hist = os.path.join(work, "history")
if os.path.exists(hist):
    os.remove(hist)
args = [raydb, "sql", "--schema", schema, "--data", data, "--cache-dir", "-", "--history", hist]


def session(keys):
    """Runs one shell on a pty, typing `keys` after the first prompt; returns its output."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(raydb, args)
    out = b""

    def until(token, timeout=120):
        nonlocal out
        end = time.time() + timeout
        while time.time() < end:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            out += chunk
            if token in out:
                return
        sys.exit(f"no {token!r} from the shell within {timeout} s; it printed:\n{out.decode(errors='replace')}")

    until(b"raydb> ")
    os.write(fd, keys)
    until(b"(1 row)")
    os.write(fd, b".quit\r")
    os.waitpid(pid, 0)
    os.close(fd)
    return out.decode(errors="replace")


session(b"select count(*) as n from lineorder;\r")
text = open(hist).read()
if "count(*)" not in text:
    sys.exit(f"the statement is not in the history file {hist}:\n{text}")
# The up arrow brings it back in a new session (twice: the last line was .quit); Enter runs it.
out = session(b"\x1b[A\x1b[A\r")
if "count(*)" not in out:
    sys.exit(f"the up arrow did not recall the statement:\n{out}")
# Off a terminal: plain lines, no prompt, no history written.
os.remove(hist)
piped = subprocess.run(args, input="select count(*) as n from lineorder;\n", capture_output=True,
                       text=True, timeout=120)
if piped.returncode != 0 or "(1 row)" not in piped.stdout or "raydb>" in piped.stdout:
    sys.exit(f"piped shell: exit {piped.returncode}\n{piped.stdout}\n{piped.stderr}")
if os.path.exists(hist):
    sys.exit("a piped shell wrote a history file")
print("shell history: kept, recalled, and off a terminal not written")
