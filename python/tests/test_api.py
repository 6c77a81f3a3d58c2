"""The module's shape: every public class, function, method and property documented; bad inputs
raise raydb.Error subclasses carrying the library's message (a table, grown with issue 20's
battery)."""

import inspect
import types

import numpy as np
import pytest

import raydb
import raydb.bench
import raydb.dask

PY_MODULES = [raydb.dask, raydb.bench, raydb._merge, raydb._expr, raydb._results]


def _doc_text(obj):
    """The docstring without pybind11's generated signature line(s)."""
    doc = inspect.getdoc(obj) or ""
    if type(obj).__name__ in ("builtin_function_or_method", "instancemethod") or "(" in doc[:80]:
        lines = [ln for ln in doc.splitlines()
                 if not ln.strip().startswith(getattr(obj, "__name__", "\0") + "(")
                 and not ln.strip().startswith("Overloaded function")]
        lines = [ln for ln in lines if not (ln[:3].rstrip(".").isdigit() and "(" in ln)]
        doc = "\n".join(lines)
    return doc.strip()


def _undocumented(module, seen):
    missing = []
    for name, obj in vars(module).items():
        if name.startswith("_") or id(obj) in seen:
            continue
        seen.add(id(obj))
        where = f"{module.__name__}.{name}"
        if isinstance(obj, types.ModuleType):
            if obj.__name__.startswith("raydb"):
                missing += _undocumented(obj, seen)
            continue
        if not (inspect.isclass(obj) or callable(obj)):
            continue
        if (getattr(obj, "__module__", "") or "").split(".")[0] != "raydb":
            continue  # imported from elsewhere (numpy, distributed)
        if not _doc_text(obj):
            missing.append(where)
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            for attr, member in vars(obj).items():
                if attr.startswith("_"):
                    continue
                target = member.fget if isinstance(member, property) and not member.__doc__ \
                    else member
                if isinstance(member, (staticmethod, classmethod)):
                    target = member.__func__
                if (callable(target) or isinstance(member, property)) and not _doc_text(target):
                    missing.append(f"{where}.{attr}")
    return missing


def test_every_public_name_has_a_docstring():
    seen = set()
    missing = _undocumented(raydb, seen)
    for module in PY_MODULES:
        missing += _undocumented(module, seen)
    assert not missing, f"no docstring: {missing}"
    # the walk reached the bound classes and their methods
    assert id(raydb.RxIndex) in seen and id(raydb.ssb.Engine) in seen


def test_walker_finds_a_missing_docstring():
    fake = types.ModuleType("raydb.fake")

    class Undocumented:
        def method(self):
            pass

    Undocumented.__module__ = "raydb.fake"
    fake.Undocumented = Undocumented
    assert _undocumented(fake, set()) == ["raydb.fake.Undocumented",
                                          "raydb.fake.Undocumented.method"]


def _sql(ctx, tmp_path):
    import star_data

    star_data.write(np.random.default_rng(), tmp_path, fact_rows=50)
    return raydb.SqlEngine(ctx, schema=tmp_path / "schema.sql", data=tmp_path,
                           cache_dir=str(tmp_path / "cache"))


U32 = np.arange(10, dtype=np.uint32)

# (id, call(ctx, tmp_path), raydb.Error subclass, words the message must hold)
BAD_INPUTS = [
    ("float keys", lambda c, t: raydb.RxIndex(c, np.array([1.5, 2.0])),
     raydb.InvalidArgument, "integer dtype"),
    ("NaN keys", lambda c, t: raydb.SortedIndex(c, np.array([np.nan, 1.0])),
     raydb.InvalidArgument, "integer dtype"),
    ("text keys", lambda c, t: raydb.HashIndex(c, np.array(["a", "b"])),
     raydb.InvalidArgument, "integer dtype"),
    ("2-D keys", lambda c, t: raydb.CgrxIndex(c, np.zeros((2, 3), np.uint32)),
     raydb.InvalidArgument, "1-D"),
    ("negative keys", lambda c, t: raydb.RxIndex(c, np.array([-1, 2])),
     raydb.InvalidArgument, "negative"),
    ("values length", lambda c, t: raydb.RxIndex(c, U32, U32[:3]),
     raydb.InvalidArgument, "values"),
    ("scale factor 0", lambda c, t: raydb.ssb.Tables.generate(0),
     raydb.InvalidArgument, "scale factor 0"),
    ("float lookups", lambda c, t: raydb.SortedIndex(c, U32).lookup(np.array([0.5])),
     raydb.InvalidArgument, "integer dtype"),
    ("64-bit values into 32-bit", lambda c, t: raydb.RxIndex(c, U32).lookup_ranges(
        np.array([[0, 2**40]])), raydb.InvalidArgument, "2^32"),
    ("ranges shape", lambda c, t: raydb.SortedIndex(c, U32).lookup_ranges(
        np.zeros((4, 3), np.uint32)), raydb.InvalidArgument, "(n, 2)"),
    ("lo > hi", lambda c, t: raydb.SortedIndex(c, U32).lookup_ranges(np.array([[5, 1]])),
     raydb.InvalidArgument, "lo 5 > hi 1"),
    ("unknown column", lambda c, t: raydb.RtScanTable(c, [U32, U32]).select([(7, "lt", 3)]),
     raydb.InvalidArgument, "column 7"),
    ("unknown op", lambda c, t: raydb.RtScanTable(c, [U32]).select([(0, "like", 3)]),
     raydb.InvalidArgument, "like"),
    ("NaN predicate", lambda c, t: raydb.RtScanTable(c, [U32]).select([(0, "lt", np.nan)]),
     raydb.InvalidArgument, "predicate 0 value"),
    ("predicate range", lambda c, t: raydb.Predicate(0, "lt", 2**33),
     raydb.InvalidArgument, "outside uint32"),
    ("columns differ", lambda c, t: raydb.DpBisTable(c, [U32, U32[:4]]),
     raydb.InvalidArgument, "rows"),
    ("dpbis combine", lambda c, t: raydb.DpBisTable(c, [U32]).select([(0, "lt", 3)], "xor"),
     raydb.InvalidArgument, "xor"),
    ("join dtype", lambda c, t: raydb.join(c, np.array([1.0]), U32),
     raydb.InvalidArgument, "integer dtype"),
    ("ssb query", lambda c, t: raydb.ssb.query_sql("q9.9"), raydb.InvalidArgument, "q9.9"),
    ("sorted layout", lambda c, t: raydb.SortedIndex(c, U32, layout="zigzag"),
     raydb.InvalidArgument, "zigzag"),
]
if hasattr(raydb, "SqlEngine"):
    BAD_INPUTS += [
        ("bad SQL", lambda c, t: _sql(c, t).sql("selec sum(sa_qty) from sales"),
         raydb.InvalidArgument, "line 1"),
        ("empty SQL", lambda c, t: _sql(c, t).sql(""), raydb.InvalidArgument,
         "expected one statement"),
        ("unknown SQL column", lambda c, t: _sql(c, t).sql("select sum(nosuch) from sales"),
         raydb.InvalidArgument, "nosuch"),
        ("SQL outside the class", lambda c, t: _sql(c, t).sql(
            "select sa_qty from sales union select sa_qty from sales"),
         raydb.InvalidArgument, "line 1"),
        ("missing DDL", lambda c, t: raydb.SqlEngine(c, schema=t / "none.sql"),
         raydb.IoError, "none.sql"),
        ("missing data", lambda c, t: _sql(c, t).load_table("sales", str(t / "none.tbl")),
         raydb.IoError, "none.tbl"),
    ]


@pytest.mark.parametrize("call, error, words", [b[1:] for b in BAD_INPUTS],
                         ids=[b[0] for b in BAD_INPUTS])
def test_bad_input_raises_library_error(ctx, tmp_path, call, error, words):
    with pytest.raises(error) as e:
        call(ctx, tmp_path)
    assert isinstance(e.value, raydb.Error)
    assert words in str(e.value), str(e.value)


def test_empty_inputs_are_valid(ctx):
    """Empty is not an error: an empty index misses every key, an empty batch gives no rows."""
    empty = np.array([], np.uint32)
    index = raydb.RxIndex(ctx, empty)
    got = index.lookup(np.array([0, 7, 2**32 - 1], np.uint32))
    assert got["count"].tolist() == [0, 0, 0]
    assert (got["first_row"] == raydb.MISS_ROW).all()
    assert raydb.join(ctx, empty, np.arange(5, dtype=np.uint32)).size == 0


def test_gil_released_during_gpu_work(ctx, rng):
    """Another Python thread keeps running while a lookup batch is on the device: the longest
    pause it sees is far below the call's duration (with the GIL held it would be all of it)."""
    import threading
    import time

    index = raydb.RxIndex(ctx, rng.integers(0, 10**6, 200_000).astype(np.uint32))
    points = rng.integers(0, 10**6, 300_000).astype(np.uint32)
    span = {}

    def work():
        t0 = time.perf_counter()
        index.lookup(points)
        span["call"] = time.perf_counter() - t0

    worker = threading.Thread(target=work)
    last, longest = time.perf_counter(), 0.0
    worker.start()
    while worker.is_alive():
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    worker.join()
    assert span["call"] > 0.05, "the call is too short to tell"
    assert longest < 0.5 * span["call"], (longest, span["call"])
