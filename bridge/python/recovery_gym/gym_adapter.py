"""Optional Gymnasium adapters: real ``gymnasium.Env`` / ``gymnasium.vector.VectorEnv`` objects over the bridge.
Imported lazily, so the rest of the package works without gymnasium.

Observations are converted to what the gymnasium spaces contain (``Sequence`` items as tuples, ``Box`` values as
numpy arrays); vector observations are batched with ``gymnasium.vector.utils.concatenate``. Structured action
spaces (tool calls) cannot be sampled locally, so their ``sample()`` asks the server, from the same seeded streams
as ``step_random``; their ``seed(n)`` restarts those streams, so ``seed(n)`` then ``sample()`` is reproducible.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

from ._checks import check_seed

try:
    import gymnasium
    import numpy as np
    from gymnasium import spaces as gspaces
except ImportError as e:  # pragma: no cover - exercised only without gymnasium
    gymnasium = None
    _IMPORT_ERROR = e


def _require() -> None:
    if gymnasium is None:
        raise ImportError("to_gymnasium() needs the 'gymnasium' package (pip install gymnasium); "
                          "everything else in recovery_gym works without it") from _IMPORT_ERROR


def _num(v: Any) -> float:
    if v == "inf":
        return float("inf")
    if v == "-inf":
        return float("-inf")
    return float(v)


if gymnasium is not None:

    class JsonSpace(gymnasium.Space):
        """Structured values (tool calls, JSON observations) that Gymnasium has no space for. Keeps the server's
        description in ``description``; ``contains`` accepts JSON-like values. ``sample()`` needs a ``sampler``
        (the adapters give action spaces one that asks the server) and ``seed(n)`` a ``seeder`` (one that
        restarts the server's sampler streams)."""

        def __init__(self, description: Dict[str, Any], sampler: Optional[Callable[[], Any]] = None,
                     seeder: Optional[Callable[[int], None]] = None):
            super().__init__(shape=None, dtype=None)
            self.description = description
            self.sampler = sampler
            self.seeder = seeder

        def seed(self, seed: Optional[int] = None) -> List[int]:
            """With an int, the following ``sample()`` draws restart from it (reproducible); ``None`` keeps the
            server's current streams (they are seeded by ``make`` already)."""
            if self.seeder is None:
                return super().seed(seed)
            checked = check_seed(seed, "action_space.seed()")
            if checked is None:
                return []
            self.seeder(checked)
            return [checked]

        @property
        def is_np_flattenable(self) -> bool:
            return False

        def sample(self, mask: Any = None, probability: Any = None) -> Any:
            if mask is not None or probability is not None:
                raise NotImplementedError("masked sampling of a structured space is not supported")
            if self.sampler is None:
                raise NotImplementedError("this space is sampled on the server: use the env's action_space.sample()")
            return self.sampler()

        def contains(self, x: Any) -> bool:
            return isinstance(x, (dict, list, tuple, str, int, float, bool)) or x is None

        def __repr__(self) -> str:
            return f"JsonSpace({self.description.get('type')})"

        def __eq__(self, other: Any) -> bool:
            return isinstance(other, JsonSpace) and other.description == self.description

        def __deepcopy__(self, memo: Any) -> "JsonSpace":
            # Batching deep-copies spaces; the sampler (a live connection) is shared, never copied.
            return JsonSpace(self.description, self.sampler, self.seeder)

    class AnyText(gspaces.Text):
        """Text of any characters (task prompts, tool names): gymnasium's ``Text`` only admits a fixed charset,
        which would reject real text. Sampling draws from the default alphanumeric charset."""

        def contains(self, x: Any) -> bool:
            return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

        def __repr__(self) -> str:
            return f"AnyText({self.min_length}, {self.max_length})"


def to_gym_space(d: Dict[str, Any], sampler: Optional[Callable[[], Any]] = None,
                 seeder: Optional[Callable[[int], None]] = None) -> Any:
    """Converts a space description (``toJSON`` of the library's spaces) to a gymnasium space. ``sampler`` and
    ``seeder``, when given, sample and seed a structured (JSON) space on the server."""
    _require()
    t = d.get("type")
    if t == "discrete":
        return gspaces.Discrete(int(d["n"]), start=int(d.get("start", 0)))
    if t == "multi_discrete":
        return gspaces.MultiDiscrete(np.asarray(d["nvec"], dtype=np.int64))
    if t == "multi_binary":
        return gspaces.MultiBinary(d["n"])
    if t == "box":
        dtype = {"float32": np.float32, "float64": np.float64, "int32": np.int32}.get(d.get("dtype", "float32"), np.float32)
        shape = tuple(d["shape"])
        low = np.asarray([_num(v) for v in d["low"]], dtype=np.float64).reshape(shape)
        high = np.asarray([_num(v) for v in d["high"]], dtype=np.float64).reshape(shape)
        return gspaces.Box(low=low.astype(dtype), high=high.astype(dtype), shape=shape, dtype=dtype)
    if t == "text":
        charset = d.get("charset")
        if charset:
            return gspaces.Text(max_length=int(d["max_length"]), min_length=int(d.get("min_length", 0)), charset=charset)
        return AnyText(max_length=int(d["max_length"]), min_length=int(d.get("min_length", 0)))
    if t == "dict":
        return gspaces.Dict({k: to_gym_space(v) for k, v in d["spaces"].items()})
    if t == "tuple":
        return gspaces.Tuple(tuple(to_gym_space(s) for s in d["spaces"]))
    if t == "sequence":
        return gspaces.Sequence(to_gym_space(d["feature"]))
    return JsonSpace(d, sampler, seeder)


def to_gym_value(space: Any, x: Any) -> Any:
    """Converts a decoded MessagePack value into what ``space`` contains (lists become tuples or arrays)."""
    if isinstance(space, gspaces.Dict) and isinstance(x, dict):
        return {k: to_gym_value(space.spaces[k], v) if k in space.spaces else v for k, v in x.items()}
    if isinstance(space, gspaces.Tuple) and isinstance(x, (list, tuple)):
        return tuple(to_gym_value(s, v) for s, v in zip(space.spaces, x))
    if isinstance(space, gspaces.Sequence) and isinstance(x, (list, tuple)):
        return tuple(to_gym_value(space.feature_space, v) for v in x)
    if isinstance(space, (gspaces.Box, gspaces.MultiDiscrete, gspaces.MultiBinary)) and isinstance(x, (list, tuple)):
        return np.asarray(x, dtype=space.dtype).reshape(space.shape)
    if isinstance(space, gspaces.MultiBinary) and isinstance(x, (bytes, bytearray)):
        # The discrete mode's action mask travels as MessagePack binary (one byte per slot).
        return np.frombuffer(x, dtype=np.uint8).astype(space.dtype).reshape(space.shape)
    if isinstance(space, gspaces.Discrete) and isinstance(x, float) and x.is_integer():
        return int(x)  # MessagePack may carry an integral float; Discrete wants an int
    return x


def _batch_infos(infos: Dict[str, Any]) -> Dict[str, Any]:
    """Gymnasium 1.x vector infos hold numpy arrays (``info[k][i]`` valid where ``info['_' + k][i]``)."""
    out: Dict[str, Any] = {}
    for k, v in infos.items():
        if isinstance(v, dict):
            out[k] = _batch_infos(v)
        elif isinstance(v, list):
            if all(isinstance(e, bool) for e in v):
                out[k] = np.asarray(v, dtype=np.bool_)
            elif all(isinstance(e, (int, float)) and not isinstance(e, bool) for e in v):
                out[k] = np.asarray(v, dtype=np.float64 if any(isinstance(e, float) for e in v) else np.int64)
            else:
                arr = np.empty(len(v), dtype=object)
                arr[:] = v
                out[k] = arr
        else:
            out[k] = v
    return out


def _mask_array(mask: Any) -> Any:
    """A discrete-mode action mask (MessagePack binary or a list of 0/1) as a numpy bool array."""
    if isinstance(mask, (bytes, bytearray)):
        return np.frombuffer(mask, dtype=np.uint8).astype(np.bool_)
    return np.asarray(mask, dtype=np.bool_)


def _with_mask_array(info: Dict[str, Any]) -> Dict[str, Any]:
    if "action_mask" in info and isinstance(info["action_mask"], (bytes, bytearray, list)):
        info = dict(info)
        info["action_mask"] = _mask_array(info["action_mask"])
    return info


def to_gymnasium_env(remote: Any, render_mode: Optional[str] = None, owned_client: Any = None) -> Any:
    """A ``gymnasium.Env`` over ``remote`` (a :class:`RemoteEnv`). ``render_mode="ansi"`` makes ``render()`` return
    the episode as text; ``owned_client``, when given, is closed with the env."""
    _require()
    if render_mode not in (None, "ansi"):
        raise ValueError(f"render_mode: must be 'ansi' or None, got {render_mode!r}")

    class BridgeEnv(gymnasium.Env):
        # A frame rate means little for text; declared because Gymnasium's checker warns without one.
        metadata = {"render_modes": ["ansi"], "render_fps": 4}

        def __init__(self) -> None:
            self.remote = remote
            self.render_mode = render_mode
            self.observation_space = to_gym_space(remote.observation_space)
            self.action_space = to_gym_space(remote.action_space, sampler=remote.sample_action,
                                             seeder=remote.seed_action_space)
            self.spec = None
            self._mask: Any = None

        def reset(self, *, seed: Any = None, options: Any = None) -> Any:
            super().reset(seed=seed)
            obs, info = self.remote.reset(seed=seed, options=options)
            return self._observed(obs), _with_mask_array(info)

        def step(self, action: Any) -> Any:
            if isinstance(action, np.integer):
                action = int(action)  # a Discrete sample or a policy's argmax; MessagePack wants a plain int
            obs, reward, terminated, truncated, info = self.remote.step(action)
            return self._observed(obs), reward, terminated, truncated, _with_mask_array(info)

        def _observed(self, obs: Any) -> Any:
            value = to_gym_value(self.observation_space, obs)
            if isinstance(value, dict) and "action_mask" in value:
                self._mask = np.asarray(value["action_mask"], dtype=np.bool_)
            return value

        def action_masks(self) -> Any:
            """The discrete mode's mask of valid actions now (sb3-contrib's MaskablePPO convention)."""
            if self._mask is None:
                raise RuntimeError("action_masks() needs the discrete action mode (make(..., action_mode='discrete')) "
                                   "and a reset() first")
            return self._mask

        def render(self) -> Optional[str]:
            return self.remote.render() if self.render_mode == "ansi" else None

        def close(self) -> None:
            self.remote.close()
            if owned_client is not None:
                owned_client.close()

    return BridgeEnv()


def to_gymnasium_vector(remote: Any) -> Any:
    _require()
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space, concatenate, create_empty_array

    class BatchedActions(gspaces.Tuple):
        """One structured action per env; ``sample()`` asks the server for all of them in one request."""

        def sample(self, mask: Any = None, probability: Any = None) -> Any:
            if mask is not None or probability is not None:
                raise NotImplementedError("masked sampling of a structured space is not supported")
            return tuple(remote.sample_actions())

        def seed(self, seed: Any = None) -> List[int]:
            checked = check_seed(seed, "action_space.seed()")
            if checked is None:
                return []
            remote.seed_sampler(checked)
            return [checked]

    class BridgeVectorEnv(VectorEnv):
        def __init__(self) -> None:
            self.remote = remote
            self.num_envs = remote.num_envs
            self.single_observation_space = to_gym_space(remote.single_observation_space)
            self.single_action_space = to_gym_space(remote.single_action_space)
            self.observation_space = batch_space(self.single_observation_space, self.num_envs)
            if isinstance(self.single_action_space, JsonSpace):
                self.action_space = BatchedActions(tuple(JsonSpace(self.single_action_space.description)
                                                         for _ in range(self.num_envs)))
            else:
                self.action_space = batch_space(self.single_action_space, self.num_envs)
            mode = {"NextStep": AutoresetMode.NEXT_STEP, "SameStep": AutoresetMode.SAME_STEP,
                    "Disabled": AutoresetMode.DISABLED}[remote.autoreset_mode]
            self.metadata = {"autoreset_mode": mode}

        def _batch_obs(self, observations: Any) -> Any:
            if isinstance(observations, dict):  # packed (numpy mode): already one array per key
                batched = observations
            else:
                items = [to_gym_value(self.single_observation_space, o) for o in observations]
                out = create_empty_array(self.single_observation_space, self.num_envs)
                batched = concatenate(self.single_observation_space, items, out)
            if isinstance(batched, dict) and "action_mask" in batched:
                self._masks = np.asarray(batched["action_mask"], dtype=np.bool_)
            return batched

        def action_masks(self) -> Any:
            """The discrete mode's masks, shape (num_envs, K) (sb3-contrib's convention)."""
            if getattr(self, "_masks", None) is None:
                raise RuntimeError("action_masks() needs the discrete action mode and a reset() first")
            return self._masks

        def reset(self, *, seed: Any = None, options: Any = None) -> Any:
            obs, infos = self.remote.reset(seed=seed, options=options)
            return self._batch_obs(obs), _batch_infos(infos)

        def step(self, actions: Any) -> Any:
            if isinstance(actions, np.ndarray) and np.issubdtype(actions.dtype, np.integer):
                actions = actions.tolist()
            obs, rewards, terminated, truncated, infos = self.remote.step(list(actions))[:5]
            return (self._batch_obs(obs), np.asarray(rewards, dtype=np.float64), np.asarray(terminated, dtype=np.bool_),
                    np.asarray(truncated, dtype=np.bool_), _batch_infos(infos))

        def close(self, **kwargs: Any) -> None:
            self.remote.close()

    return BridgeVectorEnv()
