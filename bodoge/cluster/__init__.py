"""Several ``bodoge serve`` processes as one cluster, on PostgreSQL and Redis.

The pieces the cluster is built from, each usable and tested on its own:

* :mod:`bodoge.cluster.namespace` — the names of a cluster's channels, by default derived
  from its database, so two clusters can share one Redis server;
* :mod:`bodoge.cluster.bus` — Redis publish/subscribe that survives a lost connection
  (reconnects, resubscribes, tells its users to catch up) and request/reply between processes;
* :mod:`bodoge.cluster.ownership` — which process runs which live table: a lease per process
  and a claim with a fencing epoch per table, in PostgreSQL;
* :mod:`bodoge.cluster.nginx` — the load balancer's configuration the tests and docs use;
* :mod:`bodoge.cluster.service` — one server process's end of the cluster (bus, lease,
  claims and the store writer's fence), started by ``bodoge serve --redis``.

The table server's side — replicas of tables other processes run, commands forwarded to
the owner, presence — is :mod:`bodoge.server.replication.replica`.
See docs/architecture.md ("Cluster")
and docs/deploy.md.
"""
