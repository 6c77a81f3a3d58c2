"""What raydb.dask's distributed classes share: the per-worker context and partition store, and
waiting on pinned tasks while watching for lost workers."""

from distributed import KilledWorker, get_worker, wait

import raydb


class PartitionLost(raydb.Error):
    """A worker holding a partition (of an index or a fact table) left the cluster; the message
    names it."""


def await_all(client, futures, workers, poll_s=0.5):
    """Waits for futures pinned to `workers`; PartitionLost naming any of them that left.

    A task pinned to a worker that died waits for it forever, so the wait polls the scheduler.
    """
    pending = list(futures)
    while pending:
        try:
            wait(pending, timeout=poll_s)
        except TimeoutError:  # distributed's is the builtin's subclass
            pass
        pending = [f for f in pending if not f.done()]
        live = set(client.scheduler_info()["workers"])
        lost = [w for w in workers if w not in live]
        if lost:
            for f in pending:
                f.cancel()
            raise PartitionLost(f"worker(s) {', '.join(lost)} holding partitions left the cluster")
    for f in futures:
        if f.status == "error" and isinstance(f.exception(), KilledWorker):
            # The scheduler gave up on a worker holding the state (it died running the task).
            raise PartitionLost(f"a partition's worker died: {f.exception()}")
    # A result lives on its worker until gathered: a worker lost after its task finished would
    # leave a plain gather waiting forever for a task pinned to it, so each fetch polls too.
    results = []
    for f, w in zip(futures, workers):
        while True:
            try:
                results.append(f.result(timeout=poll_s))
                break
            except TimeoutError:
                if w not in set(client.scheduler_info()["workers"]):
                    f.cancel()
                    raise PartitionLost(f"worker {w} left the cluster holding a partition's result")
    return results


def _worker_state():
    worker = get_worker()
    if not hasattr(worker, "_raydb_parts"):
        worker._raydb_parts = {}
    return worker._raydb_parts


def _part(name):
    parts = _worker_state()
    if name not in parts:
        raise PartitionLost(f"partition {name} is not on worker {get_worker().address}")
    return parts[name]


def _worker_context(device):
    worker = get_worker()
    ctx = getattr(worker, "_raydb_context", None)
    if ctx is None:
        ctx = raydb.Context(device=device)
        worker._raydb_context = ctx
    return ctx
