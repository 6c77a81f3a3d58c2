"""Distributed star queries on dask.distributed (re-exported by raydb.dask).

The fact table is cut into one row range per worker; every worker holds the dimensions whole and
its fact range in an engine on its own device. A query runs as partial aggregates on every part
(raydb._merge.SplitQuery) and is merged on the client. The client keeps each part's input, so a
worker lost during a query is replaced: its parts are loaded on a live worker and the query runs
again (``retries`` times), else PartitionLost names the lost worker. A result is never merged from
fewer parts than the table has.
"""

import gzip
import os
import tempfile
import uuid
from pathlib import Path

from distributed import get_worker

import raydb

from . import _dask_common as _rd
from ._merge import SplitQuery

_SUFFIXES = (".tbl", ".csv", ".tbl.gz", ".csv.gz")


def _table_file(data, table):
    for suffix in _SUFFIXES:
        path = Path(data) / (table + suffix)
        if path.exists():
            return path
    raise raydb.IoError(f"no {table}.tbl, .csv, .tbl.gz or .csv.gz in {data}")


def _read(path):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        return f.read()


def _split_rows(path, n):
    """The file's data lines cut into n contiguous parts (a CSV header repeated on each)."""
    lines = _read(path).splitlines(keepends=True)
    header = [lines.pop(0)] if ".csv" in path.suffixes else []
    cuts = [len(lines) * i // n for i in range(n + 1)]
    return [b"".join(header + lines[cuts[i]:cuts[i + 1]]) for i in range(n)]


def _sql_load(name, ddl, files, device, cache_dir):
    engine = raydb.SqlEngine(_rd._worker_context(device), cache_dir=cache_dir)
    engine.load_schema_text(ddl)
    with tempfile.TemporaryDirectory(prefix="raydb-part-") as tmp:
        for table, (filename, data) in files.items():
            path = os.path.join(tmp, filename)
            with open(path, "wb") as f:
                f.write(data)
            engine.load_table(table, path)
    _rd._worker_state()[name] = engine
    return get_worker().address


def _sql_part(name, sql):
    return _rd._part(name).sql(sql)


def _ssb_load(name, tables, device):
    _rd._worker_state()[name] = raydb.ssb.Engine(_rd._worker_context(device), tables)
    return get_worker().address


def _ssb_part(name, query):
    engine = _rd._part(name)
    return engine.run(query), engine.last_stats


class _Distributed:
    """Parts placed on workers, (re)loaded from inputs the client keeps."""

    def __init__(self, client, workers, retries):
        self.client = client
        self.retries = retries
        self.workers = list(workers or sorted(client.scheduler_info()["workers"]))
        if not self.workers:
            raise raydb.InvalidArgument("distributed query: the cluster has no workers")
        self.names = []  # one per part
        self.placement = []  # the worker holding each part

    def _load_parts(self, parts):
        futures = []
        for i in parts:
            # scattered first: inputs of megabytes do not belong in the task graph
            data = self.client.scatter([self.inputs[i]], workers=[self.placement[i]], hash=False)
            futures.append(self.client.submit(*self._loader(i, data[0]),
                                              workers=[self.placement[i]],
                                              allow_other_workers=False, pure=False))
        _rd.await_all(self.client, futures, [self.placement[i] for i in parts])

    def _replace_lost(self):
        live = sorted(self.client.scheduler_info()["workers"])
        if not live:
            raise _rd.PartitionLost("every worker left the cluster")
        lost = [i for i, w in enumerate(self.placement) if w not in live]
        for k, i in enumerate(lost):
            self.placement[i] = live[k % len(live)]
            self.names[i] = f"raydb-part-{uuid.uuid4().hex}-{i}"
        self.workers = sorted(set(self.placement))
        self._load_parts(lost)

    def _run(self, task, arg):
        """Every part's result, in part order; retried after a loss."""
        for attempt in range(self.retries + 1):
            try:
                futures = [self.client.submit(task, self.names[i], arg, workers=[w],
                                              allow_other_workers=False, pure=False)
                           for i, w in enumerate(self.placement)]
                return _rd.await_all(self.client, futures, self.placement)
            except _rd.PartitionLost:
                if attempt == self.retries:
                    raise
                self._replace_lost()


class DistributedSql(_Distributed):
    """A star schema for the SQL engine with its fact table split by rows over the workers.

    schema: a DDL file; data: a folder with <table>.tbl/.csv[.gz] for every table (read on the
    client, shipped to the workers); fact: the table to split (the others go whole to every
    worker). Any number of workers; ``retries`` replacements of lost workers per query.
    """

    def __init__(self, client, schema, data, fact, workers=None, device="", cache_dir="",
                 retries=1):
        super().__init__(client, workers, retries)
        self.ddl = Path(schema).read_text()
        self.device, self.cache_dir = device, cache_dir
        if not hasattr(raydb, "SqlEngine"):
            raise raydb.Unsupported("DistributedSql: this raydb was built without RAYDB_SQL")
        tables = _tables_of(self.ddl)
        if fact not in tables:
            raise raydb.InvalidArgument(f"DistributedSql: fact table {fact!r} is not in {schema} "
                                        f"(tables: {', '.join(tables)})")
        dims = {}
        for t in tables:
            if t != fact:
                path = _table_file(data, t)
                dims[t] = (path.name.removesuffix(".gz"), _read(path))
        fact_path = _table_file(data, fact)
        fact_name = fact_path.name.removesuffix(".gz")
        self.inputs = [dict(dims, **{fact: (fact_name, part)})
                       for part in _split_rows(fact_path, len(self.workers))]
        self.placement = list(self.workers)
        self.names = [f"raydb-part-{uuid.uuid4().hex}-{i}" for i in range(len(self.workers))]
        self._load_parts(range(len(self.workers)))

    def _loader(self, i, data):
        return (_sql_load, self.names[i], self.ddl, data, self.device, self.cache_dir)

    def sql(self, query):
        """The query over the whole fact table: {column: numpy array}, as SqlEngine.sql."""
        split = SplitQuery(query)
        return split.merge(self._run(_sql_part, split.partial_sql))


class DistributedSsb(_Distributed):
    """The SSB engine over raydb.ssb.Tables with lineorder split by rows over the workers."""

    def __init__(self, client, tables, workers=None, device="", retries=1):
        super().__init__(client, workers, retries)
        self.last_stats = []  # per part: the engine's last_stats of the latest run()
        n, rows = len(self.workers), tables.lineorder_rows
        cuts = [rows * i // n for i in range(n + 1)]
        self.inputs = [tables.slice_lineorder(cuts[i], cuts[i + 1]) for i in range(n)]
        self.device = device
        self.placement = list(self.workers)
        self.names = [f"raydb-part-{uuid.uuid4().hex}-{i}" for i in range(n)]
        self._load_parts(range(n))

    def _loader(self, i, data):
        return (_ssb_load, self.names[i], data, self.device)

    def run(self, query):
        """An SSB query (q1.1 ... q4.3) over all of lineorder: {column: numpy array}."""
        split = SplitQuery(raydb.ssb.query_sql(query))
        parts, self.last_stats = [], []
        for part, stats in self._run(_ssb_part, query):
            # The engine names its columns as the query does; the merge wants the partial names.
            parts.append(dict(zip(split.partial_columns, part.values())))
            self.last_stats.append(stats)
        return split.merge(parts)


def _tables_of(ddl):
    import re

    return [m.group(1).lower() for m in re.finditer(r"create\s+table\s+(?:if\s+not\s+exists\s+)?"
                                                     r"\"?([A-Za-z_][A-Za-z0-9_]*)", ddl, re.I)]
