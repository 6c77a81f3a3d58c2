"""What raydb.dask's distributed classes share: the per-worker context and partition store, and
waiting on pinned tasks while watching for lost workers."""

import threading

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
    return _gather_watching(client, futures, workers, poll_s)


def _gather_watching(client, futures, workers, poll_s):
    """Fetches the results in one gather while the caller's thread watches the workers.

    A result lives on its worker until gathered, and a worker lost after its task finished leaves
    a plain gather waiting forever, hence the watch. The gather itself is never cut short: a
    gather cancelled mid-transfer (a result of hundreds of MB takes longer than one poll) makes
    the scheduler believe the worker lost the result and shut it down.
    """
    box = {}

    def gather():
        try:
            box["results"] = client.gather(list(futures))
        except BaseException as e:  # handed to the caller's thread
            box["error"] = e

    # A daemon: a gather stuck on a lost worker must not keep the interpreter from exiting.
    thread = threading.Thread(target=gather, name="raydb-gather", daemon=True)
    thread.start()
    while thread.is_alive():
        thread.join(poll_s)
        if thread.is_alive():
            live = set(client.scheduler_info()["workers"])
            lost = [w for w in workers if w not in live]
            if lost:
                for f in futures:
                    f.cancel()
                raise PartitionLost(f"worker(s) {', '.join(lost)} left the cluster holding a "
                                    "partition's result")
    if "error" in box:
        raise box["error"]
    return box["results"]


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
