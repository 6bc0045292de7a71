"""Optional Gymnasium adapters: real ``gymnasium.Env`` / ``gymnasium.vector.VectorEnv`` objects over the bridge.
Imported lazily, so the rest of the package works without gymnasium."""
from __future__ import annotations

from typing import Any, Dict

try:
    import gymnasium
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


class JsonSpace(gymnasium.Space if gymnasium is not None else object):  # type: ignore[misc]
    """Structured values (tool calls, JSON observations) that Gymnasium has no space for. Keeps the server's
    description in ``description``; ``contains`` accepts JSON-like values; it cannot be sampled locally."""

    def __init__(self, description: Dict[str, Any]):
        super().__init__(shape=None, dtype=None)
        self.description = description

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def sample(self, mask: Any = None, probability: Any = None) -> Any:
        raise NotImplementedError("sample this space on the server: env.step_random()")

    def contains(self, x: Any) -> bool:
        return isinstance(x, (dict, list, str, int, float, bool)) or x is None

    def __repr__(self) -> str:
        return f"JsonSpace({self.description.get('type')})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, JsonSpace) and other.description == self.description


def to_gym_space(d: Dict[str, Any]) -> Any:
    """Converts a space description (``toJSON`` of the library's spaces) to a gymnasium space."""
    _require()
    import numpy as np

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
        kw = {"charset": charset} if charset else {}
        return gspaces.Text(max_length=int(d["max_length"]), min_length=int(d.get("min_length", 0)), **kw)
    if t == "dict":
        return gspaces.Dict({k: to_gym_space(v) for k, v in d["spaces"].items()})
    if t == "tuple":
        return gspaces.Tuple(tuple(to_gym_space(s) for s in d["spaces"]))
    if t == "sequence":
        return gspaces.Sequence(to_gym_space(d["feature"]))
    return JsonSpace(d)


def to_gymnasium_env(remote: Any) -> Any:
    _require()

    class BridgeEnv(gymnasium.Env):
        metadata = {"render_modes": []}

        def __init__(self) -> None:
            self.remote = remote
            self.observation_space = to_gym_space(remote.observation_space)
            self.action_space = to_gym_space(remote.action_space)

        def reset(self, *, seed: Any = None, options: Any = None) -> Any:
            super().reset(seed=seed)
            return self.remote.reset(seed=seed, options=options)

        def step(self, action: Any) -> Any:
            return self.remote.step(action)

        def close(self) -> None:
            self.remote.close()

    return BridgeEnv()


def to_gymnasium_vector(remote: Any) -> Any:
    _require()
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space

    class BridgeVectorEnv(VectorEnv):
        def __init__(self) -> None:
            self.remote = remote
            self.num_envs = remote.num_envs
            self.single_observation_space = to_gym_space(remote.single_observation_space)
            self.single_action_space = to_gym_space(remote.single_action_space)
            self.observation_space = batch_space(self.single_observation_space, self.num_envs)
            self.action_space = batch_space(self.single_action_space, self.num_envs)
            mode = {"NextStep": AutoresetMode.NEXT_STEP, "SameStep": AutoresetMode.SAME_STEP,
                    "Disabled": AutoresetMode.DISABLED}[remote.autoreset_mode]
            self.metadata = {"autoreset_mode": mode}

        def reset(self, *, seed: Any = None, options: Any = None) -> Any:
            return self.remote.reset(seed=seed, options=options)

        def step(self, actions: Any) -> Any:
            out = self.remote.step(list(actions))
            return out[:5]

        def close(self, **kwargs: Any) -> None:
            self.remote.close()

    return BridgeVectorEnv()
