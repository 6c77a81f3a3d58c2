#!/usr/bin/python3
"""The bad-input battery: every case is a raydb command line that must fail, and fail well.

Each case (tests/cli/bad_input_cases.txt) must exit non-zero, not by a signal, within its time
limit, with a message matching its pattern (which names the option, file, line or limit), and
with no raw control bytes echoed (binary input is shown escaped). The files the readers are fed
are made here, in a fresh temporary folder, from a small generated SSB data set and hand-written
RTScan files.

Usage: bad_input.py --raydb PATH [--cases FILE] [--jobs N] [-k SUBSTRING] [--max-timeout S]
"""
import argparse
import concurrent.futures
import gzip
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# Bytes a terminal would act on or that are not text: given as input, they must come back escaped.
BINARY = b"\x01\xff\x1b[2J"
DEFAULT_TIMEOUT = 20.0


def make_fixtures(raydb, root):
    """The files and folders the cases name as {T}/...: each one wrong in one way."""
    def write(name, data):
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())

    write("a-file", "not a folder\n")
    os.makedirs(os.path.join(root, "a-folder"))
    # RTScan column files: 3 values = 12 bytes; an empty one.
    write("cols12.bin", b"\x01\x00\x00\x00" * 3)
    write("empty.bin", b"")
    q = {
        "q-good.txt": "lt 5\nlt 6\nlt 7\nexit\n",
        "q-unknown-op.txt": "lt 5\nzz 6\nlt 7\nexit\n",
        "q-missing-value.txt": "lt 5\nlt\nlt 7\nexit\n",
        "q-trailing.txt": "lt 5\nlt 6 junk\nlt 7\nexit\n",
        "q-overflow.txt": "lt 5\nlt 4294967296\nlt 7\nexit\n",
        "q-huge.txt": "lt 5\nlt 99999999999999999999999\nlt 7\nexit\n",
        "q-not-decimal.txt": "lt 5\nlt 0x10\nlt 7\nexit\n",
        "q-negative.txt": "lt 5\nlt -6\nlt 7\nexit\n",
        "q-plus.txt": "lt 5\nlt +6\nlt 7\nexit\n",
        "q-list.txt": "lt 5\nlt 6,7\nlt 7\nexit\n",
        "q-incomplete.txt": "lt 5\nlt 6\nlt 7\nlt 8\nexit\n",
        "q-after-exit.txt": "lt 5\nlt 6\nlt 7\nexit\nlt 1\n",
        "q-exit-trailing.txt": "lt 5\nlt 6\nlt 7\nexit now\n",
        "q-bt-one.txt": "lt 5\nbt 6\nlt 7\nexit\n",
        "q-bt-three.txt": "lt 5\nbt 6 7 8\nlt 7\nexit\n",
        "q-cr-only.txt": "lt 5\rlt 6\rxx 7\rexit\r",
        "q-crlf.txt": "lt 5\r\nlt 6\r\nlt x\r\nexit\r\n",
        "q-fraction.txt": "lt 5\nlt 6.5\nlt 7\nexit\n",
        "q-empty-incomplete.txt": "lt 5\n\n\nlt 6\n",
    }
    for name, text in q.items():
        write(name, text)
    write("q-binary.txt", b"lt 5\nlt " + BINARY + b"\nlt 7\nexit\n")
    write("q-binary-op.txt", b"lt 5\n" + BINARY + b" 6\nlt 7\nexit\n")
    os.makedirs(os.path.join(root, "q-folder.txt"))

    # raydb lookup: key and query files, each wrong in one way (.npy made by hand, not numpy).
    def npy(descr, shape, data, major=1):
        header = "{'descr': %s, 'fortran_order': False, 'shape': %s, }" % (descr, shape)
        pre = 10 if major == 1 else 12
        header += " " * ((64 - (pre + len(header) + 1) % 64) % 64) + "\n"
        size = len(header).to_bytes(2 if major == 1 else 4, "little")
        return b"\x93NUMPY" + bytes([major, 0]) + size + header.encode() + data

    u32 = b"".join(i.to_bytes(4, "little") for i in (1, 2, 3))
    write("lk-keys.u32", u32)
    write("lk-keys.csv", "1\n2\n3\n")
    write("lk-odd.u32", u32 + b"\x01")
    write("lk-odd.u64", u32)
    write("lk-keys.bin", u32)
    write("lk-word.csv", "1\n2\nx7\n")
    write("lk-two-columns.csv", "1\n2,5\n3\n")
    write("lk-negative.csv", "1\n-2\n")
    write("lk-overflow.csv", "1\n18446744073709551616\n")
    write("lk-blank.csv", "1\n\n3\n")
    write("lk-binary.csv", b"1\n" + BINARY + b"\n")
    write("lk-float.npy", npy("'<f8'", "(3,)", b"\0" * 24))
    write("lk-big-endian.npy", npy("'>u4'", "(3,)", u32))
    write("lk-2d.npy", npy("'<u4'", "(3, 2)", u32 * 2))
    write("lk-short.npy", npy("'<u4'", "(4,)", u32))
    write("lk-negative.npy", npy("'<i4'", "(3,)", u32[:4] + (-5 & 0xFFFFFFFF).to_bytes(4, "little")
                                 + u32[8:]))
    write("lk-no-shape.npy", npy("'<u4'", "(3,)", u32).replace(b"'shape'", b"'shapf'"))
    write("lk-version9.npy", npy("'<u4'", "(3,)", u32).replace(b"NUMPY\x01", b"NUMPY\x09"))
    write("lk-not.npy", b"PK\x03\x04 a zip, not an array")
    write("lk-values-short.u32", u32[:8])
    os.makedirs(os.path.join(root, "lk-folder.u32"))

    # SSB: one small generated data set, then copies each broken in one place.
    ok = os.path.join(root, "ssb-ok")
    subprocess.run([raydb, "gen", "ssb", "--sf", "0.001", "--out", ok], check=True,
                   stdout=subprocess.DEVNULL, timeout=120)

    def variant(name, table, edit):
        d = os.path.join(root, name)
        shutil.copytree(ok, d)
        path = os.path.join(d, table)
        if edit is None:
            os.remove(path)
            return
        if edit == "folder":
            os.remove(path)
            os.makedirs(path)
            return
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
        lines = edit(lines)
        with open(path, "wb") as f:
            f.write(b"\n".join(lines))

    def field(line_no, index, value):
        def edit(lines):
            fields = lines[line_no].split(b"|")
            fields[index] = value
            lines[line_no] = b"|".join(fields)
            return lines
        return edit

    def drop_field(line_no):
        def edit(lines):
            fields = lines[line_no].split(b"|")
            del fields[1]
            lines[line_no] = b"|".join(fields)
            return lines
        return edit

    variant("ssb-lo-missing", "lineorder.tbl", None)
    variant("ssb-lo-folder", "lineorder.tbl", "folder")
    variant("ssb-lo-empty", "lineorder.tbl", lambda lines: [b""])
    variant("ssb-lo-truncated", "lineorder.tbl", lambda lines: lines[:-1])  # no final newline
    variant("ssb-lo-fields", "lineorder.tbl", drop_field(2))
    variant("ssb-lo-number", "lineorder.tbl", field(3, 8, b"12x"))
    variant("ssb-lo-negative", "lineorder.tbl", field(3, 8, b"-1"))
    variant("ssb-lo-overflow", "lineorder.tbl", field(3, 8, b"4294967296"))
    variant("ssb-lo-empty-number", "lineorder.tbl", field(3, 8, b""))
    variant("ssb-lo-binary", "lineorder.tbl", field(4, 8, BINARY))
    variant("ssb-lo-after-bar", "lineorder.tbl", lambda l: l[:5] + [l[5] + b"junk"] + l[6:])
    variant("ssb-customer-fields", "customer.tbl", drop_field(1))
    variant("ssb-customer-key", "customer.tbl", field(1, 0, b"k1"))
    variant("ssb-supplier-key", "supplier.tbl", field(0, 0, b"1.5"))
    variant("ssb-supplier-missing", "supplier.tbl", None)
    variant("ssb-part-fields", "part.tbl", drop_field(0))
    variant("ssb-part-missing", "part.tbl", None)
    variant("ssb-date-year", "date.tbl", field(2, 4, b"19x2"))
    variant("ssb-date-empty", "date.tbl", lambda lines: [b""])
    variant("ssb-customer-folder", "customer.tbl", "folder")

    # raydb sql: a small star schema (and SSB's), a data folder that loads, and copies of it each
    # broken in one place; schemas each wrong in one way; a statements file with an error.
    with open(os.path.join(HERE, "..", "..", "share", "ssb", "schema.sql"), "rb") as f:
        write("ssb-schema.sql", f.read())
    star = ("CREATE TABLE dim (k INTEGER PRIMARY KEY, name VARCHAR(10));\n"
            "CREATE TABLE fact (fk INTEGER REFERENCES dim (k), v DECIMAL(10,2), d DATE);\n")
    write("star.sql", star)
    dim = b"1|one|\n2|two|\n"
    fact = b"1|1.50|1994-01-02|\n2|2.25|19940103|\n1|-0.01|1994-12-31|\n"

    def sql_data(name, files):
        for table, data in files.items():
            write(os.path.join(name, table), data)

    sql_data("sql-ok", {"dim.tbl": dim, "fact.tbl": fact})
    sql_data("sql-int", {"dim.tbl": dim, "fact.tbl": fact.replace(b"2|2.25", b"2x|2.25")})
    sql_data("sql-decimal", {"dim.tbl": dim, "fact.tbl": fact.replace(b"2.25", b"2.255")})
    sql_data("sql-date", {"dim.tbl": dim, "fact.tbl": fact.replace(b"1994-12-31", b"1994-13-31")})
    sql_data("sql-fields", {"dim.tbl": dim, "fact.tbl": fact.replace(b"2|2.25|", b"2|")})
    sql_data("sql-overflow", {"dim.tbl": b"1|one|\n99999999999999999999|two|\n", "fact.tbl": fact})
    sql_data("sql-binary", {"dim.tbl": dim, "fact.tbl": fact.replace(b"2.25", BINARY)})
    sql_data("sql-csv-header", {"dim.tbl": dim, "fact.csv": b"fk,value,d\n1,1.5,1994-01-02\n"})
    sql_data("sql-csv-fields", {"dim.tbl": dim, "fact.csv": b"fk,v,d\n1,1.5,1994-01-02\n2,3\n"})
    sql_data("sql-missing", {"dim.tbl": dim})
    full = gzip.compress(fact, mtime=0)
    sql_data("sql-gz-truncated", {"dim.tbl": dim, "fact.tbl.gz": full[:len(full) // 2]})
    sql_data("sql-gz-crc", {"dim.tbl": dim, "fact.tbl.gz": full[:-8] + b"\0\0\0\0" + full[-4:]})
    sql_data("sql-gz-garbage", {"dim.tbl": dim, "fact.tbl.gz": b"\x1f\x8b\x08\x00" + b"\xff" * 40})
    os.makedirs(os.path.join(root, "sql-folder-file", "fact.tbl"))
    write(os.path.join("sql-folder-file", "dim.tbl"), dim)
    write("ddl-syntax.sql", "CREATE TABLE t (k INTEGER,\n  v INTEGR PRIMARY);\n")
    write("ddl-insert.sql", star + "INSERT INTO dim VALUES (3, 'three');\n")
    write("ddl-type.sql", "CREATE TABLE t (k INTEGER, f DOUBLE PRECISION);\n")
    write("ddl-twice.sql", star + "CREATE TABLE dim (k INTEGER);\n")
    write("ddl-column-twice.sql", "CREATE TABLE t (k INTEGER, k INTEGER);\n")
    write("ddl-fk-table.sql", "CREATE TABLE f (a INTEGER REFERENCES nosuch (k));\n")
    write("ddl-fk-column.sql", star.replace("REFERENCES dim (k)", "REFERENCES dim (nosuch)"))
    write("ddl-binary.sql", b"CREATE TABLE t (k INTEGER, " + BINARY + b" INTEGER);\n")
    write("ddl-scale.sql", "CREATE TABLE t (p DECIMAL(10, b));\n")
    write("ddl-scale-big.sql", "CREATE TABLE t (p DECIMAL(20, 12));\n")
    write("ddl-table-key.sql", "CREATE TABLE t (a INTEGER, b INTEGER, PRIMARY KEY (a));\n")
    write("q-error.sql",
          "select count(*) from fact;\nselect sum(v)\n  from fact\n  where v >> 1;\n")
    os.makedirs(os.path.join(root, "sql-folder.sql"))


def load_cases(path):
    """Lines `[timeout=S] ARGS => REGEX`; '#' starts a comment line."""
    cases = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if " => " not in line:
                sys.exit(f"{path}:{n}: no ' => ' between the arguments and the pattern")
            args, pattern = line.split(" => ", 1)
            timeout = DEFAULT_TIMEOUT
            m = re.match(r"timeout=([0-9.]+)\s+(.*)", args)
            if m:
                timeout, args = float(m.group(1)), m.group(2)
            cases.append((n, shlex.split(args), re.compile(pattern), timeout))
    return cases


def run_case(raydb, root, case):
    n, args, pattern, timeout = case
    argv = [os.fsencode(raydb)]
    for a in args:
        a = a.replace("{T}", root)
        argv.append(os.fsencode(a).replace(b"{BIN}", BINARY))
    shown = " ".join(shlex.quote(a) for a in args)
    start = time.monotonic()
    try:
        # In the fixture folder: a command that wrongly runs writes its results there, not into
        # the repository.
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout, cwd=root)
    except subprocess.TimeoutExpired:
        return f"line {n}: raydb {shown}: still running after {timeout} s"
    took = time.monotonic() - start
    out = p.stdout
    text = out.decode("utf-8", errors="replace")
    last = text.strip().splitlines()[-1:] or ["(no output)"]
    if p.returncode < 0:
        return f"line {n}: raydb {shown}: killed by signal {-p.returncode}\n{text}"
    if p.returncode == 0:
        return f"line {n}: raydb {shown}: exit 0 (accepted bad input)\n{text[-2000:]}"
    if not pattern.search(text):
        return (f"line {n}: raydb {shown}: exit {p.returncode}, but the message does not match "
                f"/{pattern.pattern}/:\n{text[-2000:]}")
    raw = [b for b in (b"\x1b", b"\x01", b"\xff") if b in out]
    if raw:
        return f"line {n}: raydb {shown}: raw bytes {raw} echoed in the message:\n{text[-2000:]}"
    return None, took, last[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--raydb", required=True)
    ap.add_argument("--cases", default=os.path.join(HERE, "bad_input_cases.txt"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("-k", default="", help="run only cases whose arguments contain this")
    ap.add_argument("-v", action="store_true", help="print each case's last line of output")
    ap.add_argument("--max-timeout", type=float, default=None,
                    help="cap every case's time limit (seconds), e.g. to try an old binary")
    opts = ap.parse_args()
    cases = [c for c in load_cases(opts.cases) if opts.k in " ".join(c[1])]
    if opts.max_timeout:
        cases = [(n, a, p, min(t, opts.max_timeout)) for n, a, p, t in cases]
    root = tempfile.mkdtemp(prefix="raydb_bad_input_")
    try:
        make_fixtures(os.path.abspath(opts.raydb), root)
        failures = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
            results = list(pool.map(lambda c: run_case(os.path.abspath(opts.raydb), root, c), cases))
        for case, r in zip(cases, results):
            if isinstance(r, str):
                failures.append(r)
            elif opts.v:
                print(f"ok   line {case[0]} ({r[1]:.2f} s): {r[2]}")
        for f in failures:
            print("FAIL " + f, file=sys.stderr)
        print(f"bad-input battery: {len(cases) - len(failures)} of {len(cases)} cases passed")
        return 1 if failures or not cases else 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
