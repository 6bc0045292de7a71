"""Recovery Gym on a Ray cluster: bridge servers and rollout workers as Ray actors.

``start_servers()`` runs one ``recovery-gym serve`` per node (or per CPU bundle of a placement group) inside a
:class:`BridgeServer` actor that owns the process: the server goes down with its actor, however the actor ends.
``make_vec()`` spreads one vector env over every server with the usual sharding rule (``recovery_gym.make_vec``),
and ``make_rollout_workers()`` splits one vector env over K :class:`RolloutWorker` actors, each of which makes its
own clients. Same seeds give the same trajectories as one local server, whatever the number of servers, workers
or nodes. See docs/SCALING.md.
"""
from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

try:
    import ray
    from ray.util.placement_group import placement_group, remove_placement_group
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy, PlacementGroupSchedulingStrategy
except ImportError as e:  # pragma: no cover - exercised only without Ray
    raise ImportError(
        "recovery_gym.ray needs Ray 2.x: pip install 'recovery-gym[ray]' (in the repository: "
        "PYTHONPATH=$(bash scripts/ensure-ray.sh))"
    ) from e

from .client import Client
from .sharded import ShardedVectorEnv, split_counts

__all__ = ["BridgeServer", "ServerGroup", "start_servers", "make_vec", "plan_layout", "RolloutWorker",
           "make_rollout_workers", "serve_command"]

_LOOPBACK = "127.0.0.1"
_REPO_BIN = Path(__file__).resolve().parents[3] / "bin" / "recovery-gym.js"


def serve_command() -> List[str]:
    """How this node starts a server: ``$RECOVERY_GYM_SERVE`` (a command line), else the repository's
    ``bin/recovery-gym.js`` when this package sits in a checkout, else ``recovery-gym`` on ``PATH``."""
    custom = os.environ.get("RECOVERY_GYM_SERVE")
    if custom:
        import shlex

        return shlex.split(custom)
    node = shutil.which("node")
    if _REPO_BIN.is_file() and node:
        return [node, str(_REPO_BIN), "serve"]
    installed = shutil.which("recovery-gym")
    if installed:
        return [installed, "serve"]
    raise FileNotFoundError(
        "cannot find `recovery-gym` on this node: install the npm package (npm install -g recovery-gym), or set "
        "RECOVERY_GYM_SERVE to the command that starts `recovery-gym serve`, or pass command=[...]"
    )


def _die_with_parent() -> None:
    """Runs in the forked child before exec: the kernel sends it SIGTERM (a graceful drain) when the actor
    process dies, even by SIGKILL (ray.kill, a node's OOM killer), which no atexit handler survives."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _load_prctl() -> Optional[Callable[..., int]]:
    if not sys.platform.startswith("linux"):
        return None  # elsewhere Ray's own cleanup of a dead worker's child processes is all there is
    import ctypes

    return ctypes.CDLL(None, use_errno=True).prctl  # resolved here: the forked child must not import anything


_PRCTL = _load_prctl()


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:  # a zombie is dead; it only waits for its (new) parent to reap it
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True


class BridgeServer:
    """Owns one ``recovery-gym serve`` process on the node it runs on (use it as a Ray actor:
    :func:`start_servers` does). ``workers`` is the server's ``--workers`` (None: one per core); ``host`` the
    address it binds (ports are picked by the OS); ``curve_keys`` ``(public, secret)`` (Z85) make it accept remote
    clients over CURVE, as any non-loopback bind requires."""

    def __init__(self, workers: Optional[int] = 1, host: str = _LOOPBACK, *, curve_keys: Optional[Tuple[str, str]] = None,
                 serve_args: Sequence[str] = (), command: Optional[Sequence[str]] = None, start_timeout: float = 120.0):
        if host == "auto":  # the IP other nodes reach this one at (a bundle's node is known only once placed)
            host = ray.util.get_node_ip_address()
        self._dir = tempfile.mkdtemp(prefix="rg-serve-")
        ready = os.path.join(self._dir, "ready.json")
        self._log_path = os.path.join(self._dir, "serve.log")
        args = list(command or serve_command()) + ["--endpoint", f"tcp://{host}:*", "--ready-file", ready]
        if workers is not None:
            args += ["--workers", str(int(workers))]
        if host != _LOOPBACK:
            args.append("--allow-remote")
        if curve_keys is not None:
            keys = os.path.join(self._dir, "keys.json")
            fd = os.open(keys, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                json.dump({"publicKey": curve_keys[0], "secretKey": curve_keys[1]}, f)
            args += ["--curve-keys", keys]
        args += list(serve_args)
        with open(self._log_path, "wb") as log:
            self._proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                          preexec_fn=_die_with_parent if _PRCTL is not None else None)
        atexit.register(self.stop)
        deadline = time.monotonic() + start_timeout
        while not (os.path.exists(ready) and os.path.getsize(ready) > 0):
            if self._proc.poll() is not None:
                raise RuntimeError(f"recovery-gym serve exited with {self._proc.returncode}: {self._log_tail()}")
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError(f"recovery-gym serve not ready after {start_timeout} s: {self._log_tail()}")
            time.sleep(0.05)
        with open(ready, encoding="utf-8") as f:
            self._ready = json.load(f)
        self._host = host
        self._public_key = curve_keys[0] if curve_keys else None

    def _log_tail(self, limit: int = 2000) -> str:
        try:
            with open(self._log_path, "rb") as f:
                return f.read().decode(errors="replace")[-limit:].strip() or "(no output)"
        except OSError:
            return "(no log)"

    def info(self) -> Dict[str, Any]:
        """Endpoints (one per worker process), pids, node and CURVE public key of this server."""
        node_id = ray.get_runtime_context().get_node_id() if ray.is_initialized() else None
        return {"endpoints": list(self._ready["endpoints"]), "pid": self._ready["pid"],
                "worker_pids": list(self._ready.get("workerPids") or []), "node_id": node_id, "host": self._host,
                "server_public_key": self._public_key, "log": self._log_path}

    def alive(self) -> bool:
        return self._proc.poll() is None

    def stop(self, timeout: float = 10.0) -> Optional[int]:
        """SIGTERM (the server drains, then exits 0), SIGKILL after ``timeout`` s; returns the exit code."""
        proc = getattr(self, "_proc", None)
        if proc is None:
            return None
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(self._dir, ignore_errors=True)
        return proc.returncode


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
    from .sharded import make_vec as _make_vec

    if isinstance(servers, ServerGroup):
        kwargs = {**servers.client_kwargs(), **kwargs}
        servers = servers.endpoints
    return _make_vec(env_id, num_envs, endpoints=list(servers), **kwargs)


def plan_layout(num_envs: int, num_endpoints: int, num_workers: int) -> List[Dict[str, Any]]:
    """Where each of ``num_workers`` rollout workers' envs live. The ``num_envs`` envs of one vector env are
    placed on the endpoints by the sharding rule of ``recovery_gym.make_vec`` (contiguous, earlier shards one
    larger) and cut into contiguous worker blocks the same way; worker ``k`` gets ``env_offset`` (its first
    global env) and ``parts``, the ``(endpoint index, count)`` pairs of its block. Together the workers hold the
    very sessions one process would, which is why their trajectories are the same."""
    for name, v in (("num_envs", num_envs), ("num_endpoints", num_endpoints), ("num_workers", num_workers)):
        if not isinstance(v, int) or v < 1:
            raise ValueError(f"{name}: expected a positive integer, got {v!r}")
    shard = split_counts(num_envs, num_endpoints)
    starts = [sum(shard[:e]) for e in range(len(shard))]
    plan = []
    offset = 0
    for n in split_counts(num_envs, num_workers):
        parts = []
        for e, (s, c) in enumerate(zip(starts, shard)):
            overlap = min(offset + n, s + c) - max(offset, s)
            if overlap > 0:
                parts.append((e, overlap))
        plan.append({"env_offset": offset, "num_envs": n, "parts": parts})
        offset += n
    return plan


Policy = Callable[[List[Any], Dict[str, Any]], Sequence[Any]]


class RolloutWorker:
    """A slice of one vector env, held by a Ray actor that makes its own clients (sockets cannot travel).

    ``endpoints``/``counts`` place its ``num_envs`` envs (default: spread evenly); ``env_offset`` is the global
    index of its first env, so seeds and server-sampled actions are those of the same envs in one big vector env.
    Other keyword arguments are :func:`recovery_gym.make_vec`'s. Usually made by :func:`make_rollout_workers`."""

    def __init__(self, endpoints: Sequence[str], env_id: str, num_envs: int, *, counts: Optional[Sequence[int]] = None,
                 env_offset: int = 0, client_kwargs: Optional[Dict[str, Any]] = None, timeout: Optional[float] = 30.0,
                 seed: Optional[int] = None, autoreset_mode: Optional[str] = None, obs_encoding: str = "delta",
                 info_keys: Optional[List[str]] = None, use_numpy: bool = False, tool_refs: Optional[bool] = None,
                 **options: Any):
        clients: List[Client] = []
        try:
            for e in endpoints:
                clients.append(Client(e, timeout=timeout, **(client_kwargs or {})))
            self.env = ShardedVectorEnv(clients, env_id, num_envs, options, own_clients=True, use_numpy=use_numpy,
                                        counts=counts, env_offset=env_offset, seed=seed, autoreset_mode=autoreset_mode,
                                        obs_encoding=obs_encoding, info_keys=info_keys, tool_refs=tool_refs)
        except Exception:
            for c in clients:
                c.close()
            raise
        self._infos: Dict[str, Any] = {}

    def describe(self) -> Dict[str, Any]:
        """``num_envs``, ``env_offset``, the single spaces and the autoreset mode."""
        e = self.env
        return {"num_envs": e.num_envs, "env_offset": e.env_offset, "single_observation_space": e.single_observation_space,
                "single_action_space": e.single_action_space, "autoreset_mode": e.autoreset_mode}

    def reset(self, seed: Any = None, options: Optional[Dict[str, Any]] = None) -> Tuple[List[Any], Dict[str, Any]]:
        """``seed`` is the seed of the whole vector env: this slice's env ``j`` gets ``seed + env_offset + j``."""
        obs, self._infos = self.env.reset(seed=seed, options=options)
        return obs, self._infos

    def step(self, actions: Sequence[Any]) -> Tuple[Any, ...]:
        out = self.env.step(actions)
        self._infos = out[4]
        return out

    def step_random(self) -> Tuple[Any, ...]:
        out = self.env.step_random()
        self._infos = out[4]
        return out

    def sample_actions(self) -> List[Any]:
        return self.env.sample_actions()

    def rollout(self, num_steps: int, policy: Optional[Policy] = None, *, keep_observations: bool = False,
                keep_infos: bool = False) -> Dict[str, List[Any]]:
        """``num_steps`` vector steps from where the env is (``reset`` first). ``policy(observations, infos)``
        returns one action per env; None lets the server sample them. Returns per-step lists of actions,
        rewards, terminated and truncated (and observations/infos when asked: they are the bulky part)."""
        out: Dict[str, List[Any]] = {"actions": [], "rewards": [], "terminated": [], "truncated": []}
        if keep_observations:
            out["observations"] = []
        if keep_infos:
            out["infos"] = []
        obs, infos = self._current(), self._infos
        for _ in range(int(num_steps)):
            if policy is None:
                obs, rew, term, trunc, infos, actions = self.env.step_random()
            else:
                actions = list(policy(obs, infos))
                obs, rew, term, trunc, infos = self.env.step(actions)[:5]
            self._infos = infos
            out["actions"].append(actions)
            out["rewards"].append(list(rew))
            out["terminated"].append(list(term))
            out["truncated"].append(list(trunc))
            if keep_observations:
                out["observations"].append(obs)
            if keep_infos:
                out["infos"].append(infos)
        return out

    def _current(self) -> List[Any]:
        return [o for s in self.env.shards for o in s._obs]

    def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fn(env, *args, **kwargs)`` run here, next to the env: any custom loop (a trainer's policy rollout)."""
        return fn(self.env, *args, **kwargs)

    def close(self) -> None:
        self.env.close()


RolloutWorkerActor = ray.remote(RolloutWorker)


def make_rollout_workers(servers: Union[ServerGroup, Sequence[str]], env_id: str, num_envs: int, num_workers: int, *,
                         num_cpus: float = 1, timeout: Optional[float] = 30.0, **make_kwargs: Any) -> List[Any]:
    """``num_workers`` :class:`RolloutWorker` actors that together hold one vector env of ``num_envs`` envs over
    every endpoint of ``servers`` (:func:`plan_layout`). Each worker is placed, when it can be, on the node that
    serves most of its envs. ``make_kwargs`` go to every worker (seed, info_keys, env options, ...)."""
    if isinstance(servers, ServerGroup):
        endpoints, nodes, client_kwargs = servers.endpoints, servers.endpoint_nodes, servers.client_kwargs()
    else:
        endpoints, nodes, client_kwargs = list(servers), [None] * len(servers), {}
    workers = []
    for part in plan_layout(num_envs, len(endpoints), num_workers):
        eps = [endpoints[e] for e, _ in part["parts"]]
        counts = [c for _, c in part["parts"]]
        opts: Dict[str, Any] = {"num_cpus": num_cpus}
        home = nodes[max(part["parts"], key=lambda p: p[1])[0]]
        if home is not None:
            opts["scheduling_strategy"] = NodeAffinitySchedulingStrategy(home, soft=True)
        workers.append(RolloutWorkerActor.options(**opts).remote(
            eps, env_id, part["num_envs"], counts=counts, env_offset=part["env_offset"], client_kwargs=client_kwargs,
            timeout=timeout, **make_kwargs))
    return workers
