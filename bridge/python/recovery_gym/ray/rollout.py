"""Rollout workers: one vector env split over K actors, each with its own clients."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ..client import Client
from ..sharded import ShardedVectorEnv, split_counts
from .servers import ServerGroup

def plan_layout(num_envs: int, num_endpoints: int, num_workers: int) -> List[Dict[str, Any]]:
    """Where each of ``num_workers`` rollout workers' envs live. The ``num_envs`` envs of one vector env are
    placed on the endpoints by the sharding rule of ``recovery_gym.make_vec`` (contiguous, earlier shards one
    larger) and cut into contiguous worker blocks the same way; worker ``k`` gets ``env_offset`` (its first
    global env) and ``parts``, the ``(endpoint index, count)`` pairs of its block. Together the workers hold the
    very sessions one process would, which is why their trajectories are the same."""
    for name, v in (("num_envs", num_envs), ("num_endpoints", num_endpoints), ("num_workers", num_workers)):
        if not isinstance(v, int) or v < 1:
            raise ValueError(f"{name}: expected a positive integer, got {v!r}")
    if num_workers > num_envs:
        raise ValueError(f"num_workers: {num_workers} rollout workers need at least as many envs, got num_envs {num_envs}")
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
