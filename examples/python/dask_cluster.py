"""raydb on a dask.distributed cluster (here a LocalCluster of two worker processes; on GPUs,
one worker per GPU with RAYDB_DEVICE set per worker): a key-range partitioned index and an SSB
query over a fact table split across the workers, each checked against one engine."""

import numpy as np
from distributed import Client, LocalCluster

import raydb
import raydb.dask

if __name__ == "__main__":  # worker processes import this file
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        rng = np.random.default_rng(5)
        keys = rng.integers(0, 10**6, 50_000).astype(np.uint32)
        index = raydb.dask.PartitionedIndex(client, keys)
        points = rng.integers(0, 10**6, 20_000).astype(np.uint32)
        found = index.lookup(points)  # LOOKUP_DTYPE, in input order
        sk = np.sort(keys)
        assert np.array_equal(found["count"],
                              np.searchsorted(sk, points, "right") - np.searchsorted(sk, points))
        print(f"partitioned index over {len(index.workers)} workers: "
              f"{(found['count'] > 0).sum()} of {points.size} points hit")

        tables = raydb.ssb.Tables.generate(0.01)
        dist = raydb.dask.DistributedSsb(client, tables)
        merged = dist.run("q3.1")
        whole = raydb.ssb.Engine(raydb.Context(), tables).run("q3.1")
        for name in whole:
            assert merged[name].tolist() == whole[name].tolist(), name
        print(f"q3.1 over {len(dist.workers)} fact partitions: {len(merged['revenue'])} groups, "
              "equal to one engine on the whole table")
