"""raydb on dask.distributed: a key-range partitioned index and distributed star queries.

Each worker owns one device (``RAYDB_DEVICE`` in the worker's environment, or the ``device``
argument of PartitionedIndex) and holds its partition's index in worker memory; lookups are routed
to the partitions by key and the results come back in input order, ``first_row`` in the global
row numbering. A worker lost while its partition is needed raises ``PartitionLost`` naming it:
the index is device state that dask cannot recompute elsewhere, so no answer is ever made up.

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


class PartitionedIndex:
    """An index whose keys are split by key range over the cluster's workers (any number)."""

    def __init__(self, client, keys, values=None, kind="rx", workers=None, device=""):
        keys = np.asarray(keys)
        self.client = client
        self.workers = list(workers or sorted(client.scheduler_info()["workers"]))
        n = len(self.workers)
        order = np.argsort(keys, kind="stable")
        cuts = [keys.size * i // n for i in range(1, n)]
        # split points as key values: a key's run never straddles two partitions
        self.bounds = np.array([keys[order[c]] for c in cuts], dtype=np.uint64)
        part = np.searchsorted(self.bounds, keys.astype(np.uint64), "right")
        self.names = []
        futures = []
        for i, w in enumerate(self.workers):
            rows = np.flatnonzero(part == i).astype(np.uint32)
            name = f"raydb-part-{uuid.uuid4().hex}-{i}"
            self.names.append(name)
            vals = None if values is None else np.asarray(values)[rows]
            # scattered first: a partition's arrays do not belong in the task graph
            data = client.scatter([(keys[rows], vals, rows)], workers=[w], hash=False)[0]
            futures.append(client.submit(_build, name, kind, data, device,
                                         workers=[w], allow_other_workers=False, pure=False))
        self.sizes = self._await(futures)

    def lookup(self, points):
        """LOOKUP_DTYPE results in input order; points: numpy, dask array or dask Series."""
        if hasattr(points, "compute"):
            points = points.compute()
        points = np.asarray(points)
        part = np.searchsorted(self.bounds, points.astype(np.uint64), "right")
        out = np.empty(points.size, dtype=raydb.LOOKUP_DTYPE)
        futures, where = [], []
        live = set(self.client.scheduler_info()["workers"])
        for i, w in enumerate(self.workers):
            sel = np.flatnonzero(part == i)
            if sel.size == 0:
                continue
            if w not in live:
                raise PartitionLost(f"worker {w} holding partition {i} is gone")
            futures.append(self.client.submit(_lookup, self.names[i], points[sel], workers=[w],
                                              allow_other_workers=False, pure=False))
            where.append(sel)
        for sel, result in zip(where, self._await(futures)):
            out[sel] = result
        return out

    def _await(self, futures):
        return await_all(self.client, futures, self.workers)


from ._dask_star import DistributedSql, DistributedSsb  # noqa: E402,F401
