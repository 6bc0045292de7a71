"""Remote envs with Gymnasium's signatures. Observations arrive as deltas and are rebuilt here."""
from __future__ import annotations

import json
import sys
from array import array
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from ._checks import camel_options, check_seed, check_seeds
from ._pickling import refuse_pickle
from .errors import EnvError

if TYPE_CHECKING:  # pragma: no cover
    from .client import Client

Seed = Union[int, Sequence[Optional[int]], None]


def apply_delta(prev: Any, wire: Any) -> Any:
    """Rebuilds an observation from the previous one and a wire delta ``{s, d}`` or full value ``{f}``."""
    if "f" in wire:
        return wire["f"]
    out = dict(prev) if isinstance(prev, dict) else {}
    out.update(wire["s"])
    for k in wire.get("d") or ():
        out.pop(k, None)
    return out


# Wire dtype (little-endian) and the dtype Gymnasium gives the space: MultiBinary is int8, Discrete int64.
_WIRE_DTYPES = {"float32": "<f4", "float64": "<f8", "int32": "<i4", "uint8": "u1"}


def unpack_observations(layout: List[Dict[str, Any]], packed: Dict[str, Any], n: int) -> Dict[str, Any]:
    """Packed observations (one binary per key, env 0 first) as numpy arrays shaped ``(n, *shape)``."""
    import numpy as np

    out: Dict[str, Any] = {}
    for field in layout:
        key, shape = field["key"], tuple(field["shape"])
        arr = np.frombuffer(bytearray(packed[key]), dtype=_WIRE_DTYPES[field["dtype"]]).reshape((n,) + shape)
        kind = field.get("space")
        if kind == "multi_binary":
            arr = arr.view(np.int8)  # 0/1 bytes; free to view
        elif kind == "discrete":
            arr = arr.astype(np.int64)
        out[key] = arr
    return out


def expand_tool_refs(obs: Any, known: Dict[str, Any]) -> Any:
    """Replaces tool names in ``obs["newTools"]`` by the schemas received earlier on this session (``tool_refs``) and
    learns the full schemas it sees. ``obs`` must be a fresh map from the decoder (it is updated in place)."""
    if not isinstance(obs, dict):
        return obs
    tools = obs.get("newTools")
    if not tools:
        return obs
    obs["newTools"] = expand_tool_list(tools, known)
    return obs


def expand_tool_list(tools: Any, known: Dict[str, Any]) -> Any:
    """One ``newTools`` list with tool names replaced by the schemas received earlier (see ``expand_tool_refs``)."""
    if not isinstance(tools, list) or not tools:
        return tools
    out = []
    for t in tools:
        if isinstance(t, str):
            try:
                out.append(known[t])
            except KeyError:
                from .errors import ProtocolError

                raise ProtocolError(f"tool reference {t!r} names no schema received on this session") from None
        else:
            if isinstance(t, dict) and isinstance(t.get("name"), str):
                known[t["name"]] = t
            out.append(t)
    return out


def apply_columns(prev: List[Any], wire: Dict[str, Any], tools: Optional[Dict[str, Any]]) -> List[Any]:
    """Rebuilds a batch of observations from the previous ones and column deltas (``obs_encoding="columns"``):
    ``f`` whole observations first, then per key ``s`` new values, ``p`` patches merged into map values, ``d`` keys
    removed; each column is ``[envs, values]`` (``envs`` nil: every env in order). Tool references are expanded in
    the server's order: the whole observations, then the ``newTools`` column."""
    # Nearly every env changes on every step (counters), so copying every map up front is the cheap path. The
    # client runs in lockstep with the server, so this loop is on the round trip: the common case (every previous
    # observation a map) takes the shortest path, and per-env calls are avoided where a column allows.
    try:
        out = [o.copy() for o in prev]
    except AttributeError:  # before the first reset (None) or a non-map observation space
        out = [dict(o) if isinstance(o, dict) else o for o in prev]
    f = wire.get("f")
    if f:
        envs, vals = f
        if tools is not None:
            vals = [expand_tool_refs(v, tools) for v in vals]
        for e, v in zip(range(len(vals)) if envs is None else envs, vals):
            out[e] = v
    s = wire.get("s")
    if s:
        for k, (envs, vals) in s.items():
            if tools is not None and k == "newTools":
                # Most envs get no new tool in a step: an empty list needs no expansion (and no call).
                vals = [expand_tool_list(v, tools) if v else v for v in vals]
            if envs is None:
                for o, v in zip(out, vals):
                    o[k] = v
            else:
                for e, v in zip(envs, vals):
                    out[e][k] = v
    p = wire.get("p")
    if p:
        for k, (envs, vals) in p.items():
            for e, v in zip(range(len(vals)) if envs is None else envs, vals):
                o = out[e]
                o[k] = {**o[k], **v}
    d = wire.get("d")
    if d:
        for k, envs in d.items():
            for e in envs:
                out[e].pop(k, None)
    return out


def decode_actions(wire: Dict[str, Any], names: List[str]) -> List[Any]:
    """Server-sampled actions of a column session: ``tool[i]`` indexes the session's tool-name table (extended by
    ``names``), ``args[i]`` holds the call's arguments, or the whole action where ``tool[i]`` is -1."""
    new = wire.get("names")
    if new:
        names.extend(new)
    n = len(names)
    out: List[Any] = []
    for t, a in zip(wire["tool"], wire["args"]):
        if t < 0:
            out.append(a)
        elif t < n:
            out.append({"type": "tool_call", "name": names[t], "arguments": a})
        else:
            from .errors import ProtocolError

            raise ProtocolError(f"action tool index {t} names no tool received on this session")
    return out


def unpack_floats(data: bytes) -> List[float]:
    """A binary column of little-endian float64 values as Python floats."""
    arr = array("d")
    arr.frombytes(data)
    if sys.byteorder == "big":
        arr.byteswap()
    return arr.tolist()


def unbatch_info(infos: Dict[str, Any], i: int) -> Dict[str, Any]:
    """Env ``i``'s info from Gymnasium-1.x batched infos (``info[k][i]`` valid where ``info['_' + k][i]``)."""
    out: Dict[str, Any] = {}
    for k, v in infos.items():
        if k.startswith("_") and k[1:] in infos:
            continue
        mask = infos.get("_" + k)
        if mask is not None and not mask[i]:
            continue
        if isinstance(v, dict):
            out[k] = unbatch_info(v, i)
        else:
            out[k] = v[i]
    return out


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


class RemoteEnv:
    """One remote env with Gymnasium's ``Env`` signatures (no autoreset: call ``reset`` after an episode ends)."""

    def __init__(self, client: "Client", env_id: str, options: Optional[Dict[str, Any]] = None, *,
                 seed: Optional[int] = None, obs_encoding: str = "delta", info_keys: Optional[List[str]] = None,
                 tool_refs: Optional[bool] = None):
        self._vec = RemoteVectorEnv(client, env_id, 1, options, seed=seed, autoreset_mode="Disabled",
                                    obs_encoding=obs_encoding, info_keys=info_keys, tool_refs=tool_refs)
        self.env_id = env_id
        self.observation_space: Dict[str, Any] = self._vec.single_observation_space
        self.action_space: Dict[str, Any] = self._vec.single_action_space
        self.spec = self._vec.spec
        self.metadata = self._vec.metadata
        self._episode: Optional[_EpisodeLog] = None

    @property
    def session(self) -> str:
        return self._vec.session

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[Any, Dict[str, Any]]:
        # One seed, never a list: a list is a vector env's argument and would be refused in its terms.
        obs, infos = self._vec.reset(seed=check_seed(seed, "reset()"), options=options)
        info = unbatch_info(infos, 0)
        self._episode = _EpisodeLog(str(info.get("taskId", "?")), obs[0])
        return obs[0], info

    def step(self, action: Any) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        with self._single_env_errors():
            obs, rew, term, trunc, infos = self._vec.step([action])
        return self._logged(action, obs[0], float(rew[0]), bool(term[0]), bool(trunc[0]), unbatch_info(infos, 0))

    def step_random(self) -> Tuple[Any, float, bool, bool, Dict[str, Any], Any]:
        with self._single_env_errors():
            obs, rew, term, trunc, infos, actions = self._vec.step_random()
        return self._logged(actions[0], obs[0], float(rew[0]), bool(term[0]), bool(trunc[0]), unbatch_info(infos, 0)) + (actions[0],)

    def sample_action(self) -> Any:
        """An action sampled by the server from the current action space (seeded by ``make``, or by the last
        :meth:`seed_action_space`), without stepping."""
        return self._vec.sample_actions()[0]

    def seed_action_space(self, seed: int) -> None:
        """Makes the next :meth:`sample_action` draws reproducible: they restart from ``seed``."""
        self._vec.seed_sampler(seed)

    def render(self) -> str:
        """A readable text view of the episode so far (the in-process ``env.render()``'s format, render mode
        ``"ansi"``), built from what this client saw: actions, responses, events and rewards."""
        if self._episode is None:
            return f"== {self.env_id} · no episode yet: call reset() ==\n"
        return self._episode.render(self.env_id)

    def _logged(self, action: Any, obs: Any, reward: float, terminated: bool, truncated: bool,
                info: Dict[str, Any]) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        if self._episode is not None:
            self._episode.add(action, obs, reward, info, terminated or truncated)
        return obs, reward, terminated, truncated, info

    @contextmanager
    def _single_env_errors(self) -> Iterator[None]:
        """The server runs this env as a vector env of one; its reset-needed errors are re-worded for one env."""
        try:
            yield
        except EnvError as e:
            if e.details.get("libraryCode") != "RESET_NEEDED":
                raise
            what = "before reset()" if self._episode is None else "after the episode ended; call reset() first"
            raise EnvError(f"step() called {what}", e.details) from None

    def get_state(self) -> Dict[str, Any]:
        """Snapshot of the episode (plain data) for counterfactual replay."""
        return self._vec.get_state(0)

    def set_state(self, state: Dict[str, Any]) -> Any:
        """Restores a snapshot taken with ``get_state`` (same env id and options); returns the observation."""
        return self._vec.set_state(state, 0)

    def close(self) -> None:
        self._vec.close()

    def to_gymnasium(self) -> Any:
        from .gym_adapter import to_gymnasium_env

        return to_gymnasium_env(self)

    def __reduce__(self) -> Any:
        refuse_pickle(self)

    def __enter__(self) -> "RemoteEnv":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _EpisodeLog:
    """What :meth:`RemoteEnv.render` shows: the episode as this client saw it."""

    def __init__(self, task_id: str, first_obs: Any):
        self.task_id = task_id
        self.prompt = str(first_obs.get("task", "")) if isinstance(first_obs, dict) else ""
        self.steps: List[Tuple[Any, Any, float, Any]] = []
        self.done = False

    def add(self, action: Any, obs: Any, reward: float, info: Dict[str, Any], done: bool) -> None:
        # Called on every step: keep references only; all formatting waits for render().
        self.steps.append((action, obs, reward, info.get("events")))
        self.done = done

    def render(self, env_id: str) -> str:
        # Same layout as the in-process renderEpisode (src/engine/render.ts): keep the two in step.
        lines: List[str] = []
        for action, obs, reward, raw_events in self.steps:
            a = action if isinstance(action, dict) else {"type": str(action)}
            kind = a.get("type")
            if kind == "tool_call":
                what = f"call {a.get('name')}({_short(a.get('arguments', {}), 100)})"
            elif kind == "answer":
                what = f"answer: {_short(a.get('content', ''), 100)}"
            elif kind == "abort":
                what = "abort" + (f": {a['reason']}" if a.get("reason") else "")
            else:
                what = f"{kind} {_short(a, 100)}"
            step = obs.get("step", len(lines)) if isinstance(obs, dict) else len(lines)
            lines.append(f"[{step}] {what}")
            response = obs.get("response") if isinstance(obs, dict) else None
            if response is not None:
                lines.append(f"    -> {_short(response)}")
            events = [e.get("type") for e in raw_events or [] if isinstance(e, dict) and e.get("type") != "tool_called"]
            if events:
                lines.append(f"    events: {', '.join(map(str, events))}  reward: {reward:.3f}")
        head = [f"== {env_id} · task {self.task_id} ==", f"Task: {self.prompt}"]
        return "\n".join(head + lines + ["(episode over)" if self.done else "(in progress)"])

