"""``num_envs`` copies of an env in one server session, with Gymnasium's vector-env signatures. Observations arrive
in one of the wire encodings (delta.py, columns.py, packed.py) and are rebuilt here."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, Union

from ._checks import camel_options, check_seed, check_seeds
from ._pickling import refuse_pickle
from .columns import apply_columns, decode_actions, unpack_floats
from .delta import apply_delta
from .errors import EnvError
from .packed import unpack_observations
from .tool_refs import expand_tool_refs

if TYPE_CHECKING:  # pragma: no cover
    from .client import Client

Seed = Union[int, Sequence[Optional[int]], None]


class BatchedSpaces:
    """Batched space descriptions and the Gymnasium adapter, for any vector env with ``num_envs`` and single
    spaces (one env on one server, or sharded over several)."""

    num_envs: int
    single_observation_space: Dict[str, Any]
    single_action_space: Dict[str, Any]

    @property
    def observation_space(self) -> Dict[str, Any]:
        """Plain description of the batched observation space (a tuple of ``num_envs`` single spaces)."""
        return {"type": "batch", "n": self.num_envs, "space": self.single_observation_space}

    @property
    def action_space(self) -> Dict[str, Any]:
        return {"type": "batch", "n": self.num_envs, "space": self.single_action_space}

    def to_gymnasium(self) -> Any:
        from .gym_adapter import to_gymnasium_vector

        return to_gymnasium_vector(self)


class RemoteVectorEnv(BatchedSpaces):
    """``num_envs`` copies of an env in one server session.

    ``reset(seed=None, options=None, reset_mask=None) -> (observations, infos)`` and
    ``step(actions) -> (observations, rewards, terminated, truncated, infos)``; infos are batched per key with
    ``_key`` masks; autoreset follows the server's vector env (``autoreset_mode``). With ``use_numpy=True``
    rewards/terminated/truncated are numpy arrays, and an observation space that is a Dict of Box / MultiBinary /
    Discrete spaces arrives packed (``obs_encoding="auto"``, the numpy default on servers of minor 4): observations
    are then one dict of arrays shaped ``(num_envs, *shape)``, as a Gymnasium vector env batches a Dict space.
    """

    def __init__(self, client: "Client", env_id: str, num_envs: int, options: Optional[Dict[str, Any]] = None, *,
                 seed: Optional[int] = None, autoreset_mode: Optional[str] = None, obs_encoding: Optional[str] = None,
                 info_keys: Optional[List[str]] = None, use_numpy: bool = False, record: bool = False,
                 env_offset: int = 0, tool_refs: Optional[bool] = None):
        self.client = client
        self.env_id = env_id
        minor = client.server_info.get("minor", 0)
        if obs_encoding is None:
            obs_encoding = "auto" if use_numpy and minor >= 4 else "columns" if minor >= 5 and not use_numpy else "delta"
        if obs_encoding in ("packed", "auto") and not use_numpy:
            raise ValueError(f"obs_encoding={obs_encoding!r} delivers numpy arrays: pass use_numpy=True")
        fields: Dict[str, Any] = {"env_id": env_id, "num_envs": int(num_envs), "options": camel_options(options),
                                  "obs_encoding": obs_encoding}
        seed = check_seed(seed, "make()")
        if seed is not None:
            fields["seed"] = seed
        if autoreset_mode is not None:
            fields["autoreset_mode"] = autoreset_mode
        if info_keys is not None:
            fields["info_keys"] = list(info_keys)
        if record:
            fields["record"] = True
        if env_offset:
            fields["env_offset"] = int(env_offset)
        if tool_refs is None:
            # Tool references need protocol minor 2; an older server would reject the field.
            tool_refs = client.server_info.get("minor", 0) >= 2
        if tool_refs:
            fields["tool_refs"] = True
        made = client.request("make", **fields)
        self.session: str = made["session"]
        self.num_envs: int = made["num_envs"]
        self.single_observation_space: Dict[str, Any] = made["single_observation_space"]
        self.single_action_space: Dict[str, Any] = made["single_action_space"]
        self.autoreset_mode: str = made["autoreset_mode"]
        self.spec = made.get("spec")
        self.metadata: Dict[str, Any] = dict(made.get("metadata") or {})
        self.metadata.setdefault("autoreset_mode", self.autoreset_mode)
        self.use_numpy = use_numpy
        self._encoding: str = made.get("obs_encoding", obs_encoding)
        self._layout: Optional[List[Dict[str, Any]]] = made.get("obs_layout") if self._encoding == "packed" else None
        self._packed: Dict[str, Any] = {}
        # Schemas received on this session, by tool name (None: the session does not use tool references).
        self._tools: Optional[Dict[str, Any]] = {} if made.get("tool_refs") else None
        self._obs: List[Any] = [None] * self.num_envs
        # Column sessions: the tool names of server-sampled actions, by the index the server sends.
        self._action_names: List[str] = []
        self._pending_step: Optional[int] = None
        self._sampler_seed: Optional[int] = None
        self._closed = False

    def reset(self, *, seed: Seed = None, options: Optional[Dict[str, Any]] = None,
              reset_mask: Optional[Sequence[bool]] = None) -> Tuple[List[Any], Dict[str, Any]]:
        fields: Dict[str, Any] = {"session": self.session}
        seeds = check_seeds(seed, self.num_envs, "reset()")
        if seeds is not None:
            fields["seed"] = seeds
        opts = dict(options or {})
        mask = reset_mask if reset_mask is not None else opts.pop("reset_mask", None)
        if opts:
            fields["options"] = opts
        if mask is not None:
            fields["reset_mask"] = [bool(m) for m in mask]
        r = self.client.request("reset", **fields)
        self._accept_full(r["observations"])
        return self.observations, r["infos"]

    @property
    def observations(self) -> Any:
        """The last observations: a list (one per env), or for a packed session a dict of arrays (copied)."""
        if self._layout is not None:
            return {k: v.copy() for k, v in self._packed.items()}
        return list(self._obs)

    def _accept_full(self, observations: Any) -> None:
        """Takes full observations (``reset``) as the base of the next deltas."""
        if self._layout is not None:
            self._packed = unpack_observations(self._layout, observations, self.num_envs)
            return
        if self._tools is not None:
            observations = [expand_tool_refs(o, self._tools) for o in observations]
        self._obs = list(observations)

    def step_async(self, actions: Optional[Sequence[Any]] = None, *, sample: bool = False) -> None:
        """Sends a step without waiting (lets a sharded env step all servers at once)."""
        if self._pending_step is not None:
            raise RuntimeError("step_async called twice without step_wait")
        if sample:
            self._pending_step = self.client.send("step", session=self.session, sample=True)
        else:
            if actions is None:
                raise ValueError("actions are required unless sample=True")
            self._pending_step = self.client.send("step", session=self.session, actions=list(actions))

    def step_wait(self) -> Tuple[Any, ...]:
        if self._pending_step is None:
            raise RuntimeError("step_wait without step_async")
        rid, self._pending_step = self._pending_step, None
        r = self.client.recv(rid)
        if self._layout is not None:
            return self._packed_step(r)
        if self._encoding == "columns":
            return self._columns_step(r)
        tools = self._tools
        if self._encoding == "delta":
            wires = r["observations"]
            if tools is not None:
                for w in wires:
                    if "s" in w:
                        expand_tool_refs(w["s"], tools)
                    else:
                        w["f"] = expand_tool_refs(w["f"], tools)
            self._obs = [apply_delta(p, w) for p, w in zip(self._obs, wires)]
        elif tools is not None:
            self._obs = [expand_tool_refs(o, tools) for o in r["observations"]]
        else:
            self._obs = list(r["observations"])
        # msgpack carries 1.0 as the int 1; rewards are floats by contract.
        rewards = [float(x) for x in r["rewards"]]
        terminated, truncated = r["terminated"], r["truncated"]
        if self.use_numpy:
            import numpy as np

            rewards = np.asarray(rewards, dtype=np.float64)
            terminated = np.asarray(terminated, dtype=np.bool_)
            truncated = np.asarray(truncated, dtype=np.bool_)
        out = (list(self._obs), rewards, terminated, truncated, r["infos"])
        if "actions" in r:
            return out + (r["actions"],)
        return out

    def _columns_step(self, r: Dict[str, Any]) -> Tuple[Any, ...]:
        self._obs = apply_columns(self._obs, r["observations"], self._tools)
        if self.use_numpy:
            import numpy as np

            rewards: Any = np.frombuffer(bytearray(r["rewards"]), dtype="<f8")
            terminated: Any = np.frombuffer(bytearray(r["terminated"]), dtype=np.uint8).view(np.bool_)
            truncated: Any = np.frombuffer(bytearray(r["truncated"]), dtype=np.uint8).view(np.bool_)
        else:
            rewards = unpack_floats(r["rewards"])
            # bytes iterate as ints; bool() of 0/1 is the same value as `b != 0`, without a Python-level loop.
            terminated = list(map(bool, r["terminated"]))
            truncated = list(map(bool, r["truncated"]))
        out = (list(self._obs), rewards, terminated, truncated, r["infos"])
        if "actions" in r:
            return out + (decode_actions(r["actions"], self._action_names),)
        return out

    def _packed_step(self, r: Dict[str, Any]) -> Tuple[Any, ...]:
        import numpy as np

        # One frombuffer per key; the arrays handed out are fresh (writable, not shared with the next step).
        self._packed = unpack_observations(self._layout or [], r["observations"], self.num_envs)
        out: Tuple[Any, ...] = (dict(self._packed), np.frombuffer(bytearray(r["rewards"]), dtype="<f8"),
                                np.frombuffer(bytearray(r["terminated"]), dtype=np.uint8).view(np.bool_),
                                np.frombuffer(bytearray(r["truncated"]), dtype=np.uint8).view(np.bool_), r["infos"])
        return out + (r["actions"],) if "actions" in r else out

    def step(self, actions: Sequence[Any]) -> Tuple[List[Any], Any, Any, Any, Dict[str, Any]]:
        self.step_async(actions)
        return self.step_wait()  # type: ignore[return-value]

    def step_random(self) -> Tuple[List[Any], Any, Any, Any, Dict[str, Any], List[Any]]:
        """Steps with actions sampled by the server from the action space (seeded by ``make``'s seed); the sixth
        element is the actions taken."""
        self.step_async(sample=True)
        return self.step_wait()  # type: ignore[return-value]

    def sample_actions(self) -> List[Any]:
        """One action per env, sampled by the server from each env's current action space (the same seeded
        streams as :meth:`step_random`), without stepping."""
        return self.client.request("sample", session=self.session, **self._take_sampler_seed())["actions"]

    def seed_sampler(self, seed: int) -> None:
        """Restarts the server's sampler streams at ``seed`` (as ``make(seed=...)`` starts them) when the next
        :meth:`sample_actions` runs: Gymnasium's ``action_space.seed(n)``. Needs a server of protocol minor 3."""
        seed = check_seed(seed, "action_space.seed()")
        if self.client.server_info.get("minor", 0) < 3:
            raise EnvError("action_space.seed() needs a bridge server of protocol minor 3 or later; update the server",
                           {"field": "seed"})
        self._sampler_seed = seed

    def _take_sampler_seed(self) -> Dict[str, Any]:
        seed, self._sampler_seed = self._sampler_seed, None
        return {} if seed is None else {"seed": seed}

    def get_state(self, index: int = 0) -> Dict[str, Any]:
        """Snapshot of env ``index`` (plain data): branch an episode, e.g. at the moment a fault fires."""
        return self.client.request("get_state", session=self.session, index=int(index))["state"]

    def set_state(self, state: Dict[str, Any], index: int = 0) -> Any:
        """Restores env ``index`` from a snapshot (same env id and options); returns its full observation."""
        r = self.client.request("set_state", session=self.session, index=int(index), state=state)
        obs = r["observation"] if self._tools is None else expand_tool_refs(r["observation"], self._tools)
        if self._layout is not None:
            self._set_packed_row(index, obs)
        else:
            self._obs[index] = obs
        return obs

    def _set_packed_row(self, index: int, obs: Dict[str, Any]) -> None:
        """Writes one env's full observation (``set_state``) into copies of the packed arrays (the old ones may be
        held by the caller as an earlier step's result)."""
        import numpy as np

        packed = {k: v.copy() for k, v in self._packed.items()}
        for field in self._layout or []:
            v = obs[field["key"]]
            if isinstance(v, (bytes, bytearray)):
                v = np.frombuffer(v, dtype=np.uint8)
            packed[field["key"]][index] = np.asarray(v).reshape(tuple(field["shape"]))
        self._packed = packed

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            try:
                self.client.request("close", session=self.session)
            except Exception:  # the session may already be gone (reaped, server stopped)
                pass

    def __reduce__(self) -> Any:
        refuse_pickle(self)

    def __enter__(self) -> "RemoteVectorEnv":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
