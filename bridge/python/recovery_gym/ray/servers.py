"""Bridge servers across a Ray cluster: one per node or per placement-group bundle, as actors."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import ray
from ray.util.placement_group import placement_group, remove_placement_group
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy, PlacementGroupSchedulingStrategy

from ..sharded import ShardedVectorEnv
from ..sharded import make_vec as _make_vec
from .server import _LOOPBACK, BridgeServer

# Node servers take no CPU from Ray's books by default: their load is the rollout workers' steps, which are
# already counted. Placement-group servers hold their bundle instead (start_servers(per="bundle")).
BridgeServerActor = ray.remote(num_cpus=0)(BridgeServer)


class ServerGroup:
    """The bridge servers of a cluster. ``endpoints`` lists every worker of every server, in a fixed order; pass
    it (and :meth:`client_kwargs`) to whatever makes clients. ``shutdown()`` stops them all."""

    def __init__(self, actors: List[Any], infos: List[Dict[str, Any]], pg: Any = None):
        self.actors = actors
        self.infos = infos
        self._pg = pg
        self.endpoints: List[str] = [e for i in infos for e in i["endpoints"]]
        self.server_public_key: Optional[str] = infos[0]["server_public_key"] if infos else None
        # Which node serves which endpoint: rollout workers are placed next to the servers they talk to.
        self.endpoint_nodes: List[Optional[str]] = [i["node_id"] for i in infos for _ in i["endpoints"]]

    def client_kwargs(self) -> Dict[str, Any]:
        """Keyword arguments every :class:`~recovery_gym.Client` of this group needs (the CURVE server key)."""
        return {"server_public_key": self.server_public_key} if self.server_public_key else {}

    def shutdown(self, timeout: float = 10.0) -> None:
        """Stops every server gracefully, then ends the actors and frees the placement group."""
        stops = [a.stop.remote(timeout) for a in self.actors]
        try:
            ray.get(stops, timeout=timeout + 5)
        except Exception:  # noqa: BLE001 - a dead actor took its server with it already
            pass
        for a in self.actors:
            ray.kill(a)
        if self._pg is not None:
            remove_placement_group(self._pg)
        self.actors, self._pg = [], None

    def __enter__(self) -> "ServerGroup":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()


def start_servers(per: str = "node", *, count: Optional[int] = None, workers: Optional[int] = None, bundle_cpus: int = 1,
                  host: Optional[str] = None, secure: Optional[bool] = None, placement_strategy: str = "SPREAD",
                  serve_args: Sequence[str] = (), command: Optional[Sequence[str]] = None,
                  start_timeout: float = 120.0) -> ServerGroup:
    """Starts bridge servers on the cluster (``ray.init`` first).

    ``per="node"``: one server on every alive node, with ``workers`` processes (None: one per core).
    ``per="bundle"``: a placement group of ``count`` bundles of ``bundle_cpus`` CPUs (default: as many as the
    cluster's CPUs allow), one server of ``bundle_cpus`` workers in each. ``host`` defaults to loopback on a
    one-node cluster and to each node's IP otherwise; a non-loopback server gets a fresh CURVE key pair unless
    ``secure=False`` (then only where libzmq lacks CURVE will the server accept it)."""
    if per not in ("node", "bundle"):
        raise ValueError(f"per: expected 'node' or 'bundle', got {per!r}")
    for name, v in (("count", count), ("workers", workers), ("bundle_cpus", bundle_cpus)):
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 1):
            raise ValueError(f"{name}: expected a positive integer, got {v!r}")
    if not ray.is_initialized():
        raise RuntimeError("start_servers: call ray.init() (or ray.init(address=...)) first")
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    remote = host not in (None, _LOOPBACK, "localhost") or (host is None and len(nodes) > 1)
    keys: Optional[Tuple[str, str]] = None
    if remote and secure is not False:
        import zmq

        public, secret = zmq.curve_keypair()
        keys = (public.decode(), secret.decode())
    opts: Dict[str, Any] = {"curve_keys": keys, "serve_args": tuple(serve_args), "command": command,
                            "start_timeout": start_timeout}
    pg = None
    if per == "node":
        if count is not None:
            raise ValueError("count: only for per='bundle' (per='node' starts one server on every node)")
        actors = [BridgeServerActor.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False))
                  .remote(workers, _host_for(host, remote, n), **opts) for n in nodes]
    else:
        if workers is not None and workers != bundle_cpus:
            raise ValueError(f"workers: per='bundle' runs bundle_cpus={bundle_cpus} workers per server, got {workers}")
        if count is None:
            count = max(1, int(ray.cluster_resources().get("CPU", 1)) // bundle_cpus)
        pg = placement_group([{"CPU": bundle_cpus}] * count, strategy=placement_strategy)
        ray.get(pg.ready(), timeout=start_timeout)
        actors = []
        for i in range(count):
            strategy = PlacementGroupSchedulingStrategy(pg, placement_group_bundle_index=i)
            actors.append(BridgeServerActor.options(num_cpus=bundle_cpus, scheduling_strategy=strategy)
                          .remote(bundle_cpus, host or ("auto" if remote else _LOOPBACK), **opts))
    try:
        infos = ray.get([a.info.remote() for a in actors], timeout=start_timeout + 30)
    except Exception:
        ServerGroup(actors, [], pg).shutdown()
        raise
    return ServerGroup(actors, infos, pg)


def _host_for(host: Optional[str], remote: bool, node: Dict[str, Any]) -> str:
    if host is not None:
        return host
    return str(node["NodeManagerAddress"]) if remote else _LOOPBACK


def make_vec(env_id: str, num_envs: int, servers: Union[ServerGroup, Sequence[str]], **kwargs: Any) -> ShardedVectorEnv:
    """One vector env over every endpoint of ``servers`` (a :class:`ServerGroup` or a list of endpoints), made in
    this process: call it in the driver or inside an actor, never pass the result to Ray. Keyword arguments are
    :func:`recovery_gym.make_vec`'s (seed, autoreset_mode, info_keys, use_numpy, env options, ...)."""
    if isinstance(servers, ServerGroup):
        kwargs = {**servers.client_kwargs(), **kwargs}
        servers = servers.endpoints
    return _make_vec(env_id, num_envs, endpoints=list(servers), **kwargs)
