"""One vector env spread over several servers (or several workers of one server).

Env ``i`` of the sharded env is env ``i - offset_k`` of shard ``k``, shards are contiguous, and a reset seed ``s``
gives env ``i`` the seed ``s + i`` exactly as a single server would, so results do not depend on the sharding.
Each shard is made with its ``env_offset``, so server-side sampled actions and the make-seeded first reset
match the unsharded env too. All shards are stepped concurrently: requests go out to every server before any answer is awaited.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from ._checks import check_seeds
from ._pickling import refuse_pickle
from .client import DEFAULT_ADDRESS, Client
from .vector_env import BatchedSpaces, RemoteVectorEnv, Seed


def split_counts(num_envs: int, shards: int) -> List[int]:
    """Contiguous, as even as possible; earlier shards take the remainder. Empty shards are dropped."""
    base, extra = divmod(num_envs, shards)
    return [c for c in (base + (1 if k < extra else 0) for k in range(shards)) if c > 0]


def merge_infos(parts: Sequence[Dict[str, Any]], counts: Sequence[int]) -> Dict[str, Any]:
    """Concatenates batched infos; keys a shard lacks get ``None`` values and ``False`` masks."""
    keys: List[str] = []
    seen = set()
    for p in parts:
        for k in p:
            if k not in seen:
                seen.add(k)
                keys.append(k)
    out: Dict[str, Any] = {}
    for k in keys:
        vals: List[Any] = []
        is_mask = k.startswith("_") and k[1:] in seen
        nested = any(isinstance(p.get(k), dict) for p in parts)
        if nested:
            out[k] = merge_infos([p.get(k) or {} for p in parts], counts)
            continue
        for p, n in zip(parts, counts):
            v = p.get(k)
            vals.extend(list(v) if v is not None else [False if is_mask else None] * n)
        out[k] = vals
    return out


def _join_obs(parts: List[Any]) -> Any:
    """Shards' observations in env order: lists concatenated, or (packed sessions) dicts of arrays joined per key."""
    if parts and isinstance(parts[0], dict):
        import numpy as np

        return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    return [o for p in parts for o in p]


class ShardedVectorEnv(BatchedSpaces):
    """A :class:`RemoteVectorEnv` look-alike whose envs live on several servers."""

    def __init__(self, clients: Sequence[Client], env_id: str, num_envs: int, options: Optional[Dict[str, Any]] = None,
                 *, own_clients: bool = False, use_numpy: bool = False, counts: Optional[Sequence[int]] = None,
                 env_offset: int = 0, **make_fields: Any):
        """``counts`` (default: :func:`split_counts`) places envs on the clients explicitly; ``env_offset`` makes
        this env the slice ``env_offset ..`` of a larger one (seeds, sampler streams), so several processes can
        each hold a part of one vector env and together reproduce it."""
        if not clients:
            raise ValueError("at least one endpoint is required")
        if counts is None:
            counts = split_counts(num_envs, len(clients))
        elif len(counts) != len(clients) or sum(counts) != num_envs or min(counts) < 1:
            raise ValueError(f"counts: expected {len(clients)} positive counts summing to {num_envs}, got {list(counts)}")
        if env_offset < 0:
            raise ValueError(f"env_offset: expected a non-negative integer, got {env_offset}")
        counts = list(counts)
        self.clients = list(clients)[: len(counts)]
        self._own = list(clients) if own_clients else []
        self.counts = counts
        self.offsets = [sum(counts[:k]) for k in range(len(counts))]
        self.env_offset = int(env_offset)
        self.num_envs = num_envs
        self.env_id = env_id
        self.use_numpy = use_numpy
        self.shards: List[RemoteVectorEnv] = []
        try:
            for c, n, o in zip(self.clients, counts, self.offsets):
                self.shards.append(RemoteVectorEnv(c, env_id, n, options, env_offset=self.env_offset + o, use_numpy=use_numpy, **make_fields))
        except Exception:
            self.close()
            raise
        first = self.shards[0]
        self.single_observation_space = first.single_observation_space
        self.single_action_space = first.single_action_space
        self.autoreset_mode = first.autoreset_mode
        self.metadata = dict(first.metadata)
        self.spec = first.spec

    def _slices(self, seq: Sequence[Any]) -> List[List[Any]]:
        return [list(seq[o:o + n]) for o, n in zip(self.offsets, self.counts)]

    def reset(self, *, seed: Seed = None, options: Optional[Dict[str, Any]] = None,
              reset_mask: Optional[Sequence[bool]] = None) -> Tuple[List[Any], Dict[str, Any]]:
        checked = check_seeds(seed, self.num_envs, "reset()")
        if checked is None:
            seeds: List[Any] = [None] * len(self.shards)
        elif isinstance(checked, int):
            seeds = [[checked + self.env_offset + o + j for j in range(n)] for o, n in zip(self.offsets, self.counts)]
        else:
            seeds = self._slices(checked)
        masks = self._slices(reset_mask) if reset_mask is not None else [None] * len(self.shards)
        rids = []
        for shard, s, m in zip(self.shards, seeds, masks):
            fields: Dict[str, Any] = {"session": shard.session}
            if s is not None:
                fields["seed"] = s
            if options:
                fields["options"] = dict(options)
            if m is not None:
                fields["reset_mask"] = [bool(x) for x in m]
            rids.append(shard.client.send("reset", **fields))
        parts: List[Any] = []
        infos = []
        for shard, rid in zip(self.shards, rids):
            r = shard.client.recv(rid)
            shard._accept_full(r["observations"])
            parts.append(shard.observations)
            infos.append(r["infos"])
        return _join_obs(parts), merge_infos(infos, self.counts)

    def _gather(self) -> Tuple[Any, ...]:
        # Collect every shard's answer even when one failed, so that no shard is left with a pending step (the
        # next step would be refused). The shards that did step keep their new state: reset after an error.
        parts = []
        error: Optional[BaseException] = None
        for s in self.shards:
            try:
                parts.append(s.step_wait())
            except Exception as e:  # noqa: BLE001 - re-raised below, after the other shards are drained
                if error is None:
                    error = e
        if error is not None:
            raise error
        obs = _join_obs([p[0] for p in parts])
        rewards = [r for p in parts for r in p[1]]
        terminated = [bool(t) for p in parts for t in p[2]]
        truncated = [bool(t) for p in parts for t in p[3]]
        infos = merge_infos([p[4] for p in parts], self.counts)
        if self.use_numpy:
            import numpy as np

            rewards = np.asarray(rewards, dtype=np.float64)
            terminated = np.asarray(terminated, dtype=np.bool_)
            truncated = np.asarray(truncated, dtype=np.bool_)
        out: Tuple[Any, ...] = (obs, rewards, terminated, truncated, infos)
        if len(parts[0]) > 5:
            out = out + ([a for p in parts for a in p[5]],)
        return out

    def step(self, actions: Sequence[Any]) -> Tuple[Any, ...]:
        if len(actions) != self.num_envs:
            raise ValueError(f"actions: expected {self.num_envs}, got {len(actions)}")
        for shard, a in zip(self.shards, self._slices(list(actions))):
            shard.step_async(a)
        return self._gather()

    def step_random(self) -> Tuple[Any, ...]:
        """Server-sampled actions; env i's stream depends only on the make seed and i, not on the sharding."""
        for shard in self.shards:
            shard.step_async(sample=True)
        return self._gather()

    def sample_actions(self) -> List[Any]:
        """One server-sampled action per env, without stepping (all shards asked at once)."""
        rids = [shard.client.send("sample", session=shard.session, **shard._take_sampler_seed()) for shard in self.shards]
        return [a for shard, rid in zip(self.shards, rids) for a in shard.client.recv(rid)["actions"]]

    def seed_sampler(self, seed: int) -> None:
        """Restarts every shard's sampler streams at ``seed``; env i's stream stays independent of the sharding."""
        for shard in self.shards:
            shard.seed_sampler(seed)

    def _locate(self, index: int) -> Tuple[RemoteVectorEnv, int]:
        if not 0 <= index < self.num_envs:
            raise IndexError(f"index: expected 0..{self.num_envs - 1}, got {index}")
        for shard, o, n in zip(self.shards, self.offsets, self.counts):
            if index < o + n:
                return shard, index - o
        raise IndexError(index)  # unreachable: the shards cover 0..num_envs-1

    def get_state(self, index: int = 0) -> Dict[str, Any]:
        """Snapshot of global env ``index`` (taken on the shard that holds it)."""
        shard, local = self._locate(int(index))
        return shard.get_state(local)

    def set_state(self, state: Dict[str, Any], index: int = 0) -> Any:
        """Restores global env ``index``; returns its full observation."""
        shard, local = self._locate(int(index))
        return shard.set_state(state, local)

    def close(self) -> None:
        for s in self.shards:
            s.close()
        for c in self._own:
            c.close()
        self.shards = []
        self._own = []

    def __reduce__(self) -> Any:
        refuse_pickle(self)

    def __enter__(self) -> "ShardedVectorEnv":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def discover_endpoints(address: str = DEFAULT_ADDRESS, timeout: Optional[float] = 30.0,
                       server_public_key: Optional[bytes] = None, client_keys: Optional[Tuple[Any, Any]] = None) -> List[str]:
    """All worker endpoints of the server at ``address`` (from its ``hello``)."""
    with Client(address, timeout=timeout, server_public_key=server_public_key, client_keys=client_keys) as c:
        return c.worker_endpoints


def make_vec(env_id: str, num_envs: int, *, endpoints: Optional[Sequence[str]] = None, address: str = DEFAULT_ADDRESS,
             timeout: Optional[float] = 30.0, all_workers: bool = False, seed: Optional[int] = None,
             autoreset_mode: Optional[str] = None, obs_encoding: Optional[str] = None, info_keys: Optional[List[str]] = None,
             use_numpy: bool = False, server_public_key: Optional[bytes] = None, tool_refs: Optional[bool] = None,
             client_keys: Optional[Tuple[Any, Any]] = None, **options: Any) -> ShardedVectorEnv:
    """A vector env over ``endpoints`` (default ``[address]``; with ``all_workers=True`` every worker of the server
    at ``address``). Same seeds give the same trajectories whatever the endpoints."""
    if endpoints:
        eps = list(endpoints)
    elif all_workers:
        eps = discover_endpoints(address, timeout, server_public_key, client_keys)
    else:
        eps = [address]
    clients = [Client(e, timeout=timeout, server_public_key=server_public_key, client_keys=client_keys) for e in eps]
    fields: Dict[str, Any] = {"seed": seed, "autoreset_mode": autoreset_mode, "obs_encoding": obs_encoding,
                              "info_keys": info_keys, "tool_refs": tool_refs}
    try:
        return ShardedVectorEnv(clients, env_id, num_envs, options, own_clients=True, use_numpy=use_numpy, **fields)
    except Exception:
        for c in clients:
            c.close()
        raise
