"""raydb on dask.distributed: a key-range partitioned index and distributed star queries.

Each worker owns one device (``RAYDB_DEVICE`` in the worker's environment, or the ``device``
argument of PartitionedIndex) and holds its partition's index in worker memory; lookups are routed
to the partitions by key and the results come back in input order, ``first_row`` in the global
row numbering. The index is device state that dask cannot recompute elsewhere, so the client
keeps the keys: a partition whose worker is lost is rebuilt on a live worker and the lookup runs
again (``retries``), else ``PartitionLost`` names the worker. No answer is ever made up.

DistributedSql and DistributedSsb partition a star schema's fact table by rows over the workers
(dimensions on every worker), run a query on each part and merge the partial aggregates on the
client (raydb._merge). A worker lost during a query is retried on the live workers (the client
keeps each partition's input) or raises PartitionLost naming it.
"""

import uuid

import numpy as np

import raydb

from ._dask_common import PartitionLost, _part, _worker_context, _worker_state, await_all

__all__ = ["PartitionedIndex", "DistributedSql", "DistributedSsb", "PartitionLost", "await_all"]


_CLASSES = {"rx": "RxIndex", "cgrx": "CgrxIndex", "sorted": "SortedIndex", "hash": "HashIndex"}


def _build(name, kind, part, device):
    keys, values, rows = part
    ctx = _worker_context(device)
    index = getattr(raydb, _CLASSES[kind])(ctx, keys, values)
    _worker_state()[name] = (index, rows)
    return keys.size


def _lookup(name, points):
    index, rows = _part(name)
    out = index.lookup(points)
    hit = out["count"] > 0
    out["first_row"][hit] = rows[out["first_row"][hit]]
    return out


def _held():
    """The partition names this worker holds (a lost worker's replacement holds none)."""
    return sorted(_worker_state())


class PartitionedIndex:
    """An index whose keys are split by key range over the cluster's workers (any number).

    keys: uint32/uint64 (numpy); values: uint32 or None; kind: "rx", "cgrx", "sorted" or "hash";
    workers: the addresses to use (default: every worker); device: as raydb.Context's. With
    ``retries`` > 0 the client keeps a read-only copy of keys and values, so a partition whose
    worker is lost is rebuilt on a live worker and the lookup runs again; past that (or with
    retries=0) PartitionLost names the lost worker. A lookup never returns an answer with a
    partition missing. Not thread-safe: one lookup at a time per instance.
    """

    def __init__(self, client, keys, values=None, kind="rx", workers=None, device="", retries=1):
        keys = np.asarray(keys)
        if kind not in _CLASSES:
            raise raydb.InvalidArgument(f"PartitionedIndex: kind {kind!r} is not one of "
                                        f"{', '.join(_CLASSES)}")
        self.client, self.kind, self.device, self.retries = client, kind, device, retries
        self.workers = list(workers or sorted(client.scheduler_info()["workers"]))
        if not self.workers:
            raise raydb.InvalidArgument("PartitionedIndex: the cluster has no workers")
        n = len(self.workers)
        order = np.argsort(keys, kind="stable")
        cuts = [keys.size * i // n for i in range(1, n)]
        # split points as key values: a key's run never straddles two partitions
        self.bounds = np.array([keys[order[c]] for c in cuts], dtype=np.uint64)
        self._keys, self._values = keys, None if values is None else np.asarray(values)
        if retries > 0:  # the inputs of a rebuild: the caller may change its arrays afterwards
            self._keys = keys.copy()
            self._values = None if values is None else self._values.copy()
            for a in (self._keys, self._values):
                if a is not None:
                    a.flags.writeable = False
        self._part = np.searchsorted(self.bounds, self._keys.astype(np.uint64), "right")
        self.placement = list(self.workers)  # the worker holding each partition
        self.names = [f"raydb-part-{uuid.uuid4().hex}-{i}" for i in range(n)]
        self.sizes = self._build(range(n))
        if retries == 0:
            self._keys = self._values = self._part = None

    def _build(self, parts):
        futures = []
        for i in parts:
            rows = np.flatnonzero(self._part == i).astype(np.uint32)
            vals = None if self._values is None else self._values[rows]
            # scattered first: a partition's arrays do not belong in the task graph
            data = self.client.scatter([(self._keys[rows], vals, rows)],
                                       workers=[self.placement[i]], hash=False)[0]
            futures.append(self.client.submit(_build, self.names[i], self.kind, data, self.device,
                                              workers=[self.placement[i]],
                                              allow_other_workers=False, pure=False))
        return await_all(self.client, futures, [self.placement[i] for i in parts])

    def _replace_lost(self):
        """Rebuilds the partitions whose worker left (or restarted empty) on live workers."""
        live = sorted(self.client.scheduler_info()["workers"])
        if not live:
            raise PartitionLost("every worker left the cluster")
        # a worker dying just now answers with an exception: it is not used
        held = {w: h for w, h in self.client.run(_held, workers=live, on_error="return").items()
                if isinstance(h, list)}
        live = [w for w in live if w in held]
        if not live:
            raise PartitionLost("no live worker answered")
        lost = [i for i, w in enumerate(self.placement)
                if w not in held or self.names[i] not in held[w]]
        load = {w: sum(1 for i, p in enumerate(self.placement) if p == w and i not in lost)
                for w in live}
        for i in lost:
            self.placement[i] = min(live, key=lambda w: (load[w], w))
            load[self.placement[i]] += 1
            self.names[i] = f"raydb-part-{uuid.uuid4().hex}-{i}"
        self.workers = list(self.placement)
        self._build(lost)

    def lookup(self, points):
        """LOOKUP_DTYPE results in input order; points: numpy, dask array or dask Series."""
        if hasattr(points, "compute"):
            points = points.compute()
        points = np.asarray(points)
        part = np.searchsorted(self.bounds, points.astype(np.uint64), "right")
        sels = [np.flatnonzero(part == i) for i in range(len(self.placement))]
        for attempt in range(self.retries + 1):
            try:
                return self._lookup_once(points, sels)
            except PartitionLost:
                if attempt == self.retries:
                    raise
                self._replace_lost()

    def _lookup_once(self, points, sels):
        out = np.empty(points.size, dtype=raydb.LOOKUP_DTYPE)
        futures, where, pinned = [], [], []
        live = set(self.client.scheduler_info()["workers"])
        for i, (w, sel) in enumerate(zip(self.placement, sels)):
            if sel.size == 0:
                continue
            if w not in live:
                raise PartitionLost(f"worker {w} holding partition {i} is gone")
            futures.append(self.client.submit(_lookup, self.names[i], points[sel], workers=[w],
                                              allow_other_workers=False, pure=False))
            where.append(sel)
            pinned.append(w)
        for sel, result in zip(where, await_all(self.client, futures, pinned)):
            out[sel] = result
        return out


from ._dask_star import DistributedSql, DistributedSsb  # noqa: E402,F401
