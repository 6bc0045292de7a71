"""Recovery Gym environments for TRL's ``GRPOTrainer(environment_factory=...)`` (TRL 1.x).

TRL probes an environment instance once: ``reset(**row) -> str`` starts an episode (the string is appended to the
prompt's last user message), every public method is a tool the model may call (its JSON schema comes from the
method's type hints and Google-style docstring), and ``get_reward() -> float`` scores the finished rollout.

``environment_factory(env_id, ...)`` builds such a class for one env id over the bridge, in chat mode:

- a family whose tools are the same in every episode (probed over ``probe_seeds``) gets one typed method per tool;
- a family whose tools change per episode gets one generic ``call_tool(name, arguments)``, and ``reset`` lists the
  episode's tools (name, description, parameters) in the text it returns;
- either way ``answer``, ``abort`` and the family's own actions (e.g. ``ask_user``) are typed methods.

Each call is one chat-mode step; the method returns the env's reply (the tool message, or the user message that
answers a mistake). ``dataset(env_id, seeds)`` yields one row per task seed (``prompt``, ``seed``), ready for
``datasets.Dataset.from_list``. Only the standard library is needed here; TRL itself is the caller's.
"""
import inspect
import json
import keyword
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Type

from .chat import ChatEnv

__all__ = ["environment_factory", "dataset", "RESERVED_METHODS"]

#: Method names TRL treats specially or this adapter uses; a tool with such a name forces the generic mode.
RESERVED_METHODS = frozenset({"reset", "get_reward", "call_tool"})

_PY_TYPES: Dict[str, type] = {"string": str, "integer": int, "number": float, "boolean": bool, "array": list, "object": dict}


def _one_line(text: Any) -> str:
    return " ".join(str(text or "").split())


def _py_type(schema: Dict[str, Any]) -> Any:
    t = schema.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), None)
    return _PY_TYPES.get(t, Any) if isinstance(t, str) else Any


def _typable(tool: Dict[str, Any]) -> bool:
    fn = tool["function"]
    name = fn["name"]
    if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_") or name in RESERVED_METHODS:
        return False
    props = (fn.get("parameters") or {}).get("properties") or {}
    return all(p.isidentifier() and not keyword.iskeyword(p) and p != "self" for p in props)


def _typed_method(tool: Dict[str, Any]) -> Callable[..., str]:
    """A method named after the tool whose signature and docstring give TRL (transformers' get_json_schema) the tool's
    own schema: one parameter per property, typed from its JSON type, optional ones defaulting to None."""
    fn = tool["function"]
    name = fn["name"]
    params = fn.get("parameters") or {}
    props: Dict[str, Dict[str, Any]] = params.get("properties") or {}
    required = set(params.get("required") or [])
    order = [p for p in props if p in required] + [p for p in props if p not in required]

    def method(self: Any, **kwargs: Any) -> str:
        return self._call(name, {k: v for k, v in kwargs.items() if v is not None})

    sig_params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: Dict[str, Any] = {}
    for p in order:
        tp = _py_type(props[p])
        optional = p not in required
        annotations[p] = Optional[tp] if optional and tp is not Any else tp
        default = None if optional else inspect.Parameter.empty
        sig_params.append(inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default, annotation=annotations[p]))
    annotations["return"] = str
    method.__signature__ = inspect.Signature(sig_params, return_annotation=str)  # type: ignore[attr-defined]
    method.__annotations__ = annotations
    method.__name__ = name
    method.__qualname__ = name
    args_doc = "".join(f"\n    {p}: {_one_line(props[p].get('description')) or f'the {p} argument'}" for p in order)
    method.__doc__ = f"{_one_line(fn.get('description')) or name}\n" + (f"\nArgs:{args_doc}\n" if order else "") + \
        "\nReturns:\n    The environment's reply.\n"
    return method


def call_tool(self, name: str, arguments: str) -> str:  # noqa: ANN001 - an unannotated self is how TRL skips it
    """Call one of the tools listed in the task by name.

    Args:
        name: The tool's name, exactly as listed.
        arguments: The tool's arguments as a JSON object text, e.g. {"city": "Paris"}.

    Returns:
        The environment's reply.
    """
    return self._call(name, arguments)


def _tools_text(tools: Sequence[Dict[str, Any]]) -> str:
    lines = [f"- {t['function']['name']}: {_one_line(t['function'].get('description'))} parameters: "
             f"{json.dumps(t['function'].get('parameters') or {}, sort_keys=True)}" for t in tools]
    return "Tools (call them with call_tool(name, arguments)):\n" + "\n".join(lines)


class _RecoveryGymToolEnv:
    """Base of the generated classes: one chat-mode env, its episode, and the reply of each call."""

    _env_id: str = ""
    _options: Dict[str, Any] = {}
    _address: Optional[str] = None
    _generic = False
    _action_names: frozenset = frozenset()  # names of the action tools
    _reward = "return"

    def __init__(self) -> None:
        self._env = ChatEnv(self._env_id, address=self._address, **self._options)
        self._episode_over = True

    def reset(self, **row: Any) -> str:
        seed = row.get("seed")
        _, tools = self._env.reset(seed=None if seed is None else int(seed))
        self._episode_over = False
        task = str(self._env.messages[1]["content"])
        if not self._generic:
            return task
        visible = [t for t in tools if t["function"]["name"] not in self._action_names]
        return f"{task}\n\n{_tools_text(visible)}"

    def get_reward(self) -> float:
        if self._reward == "success":
            return 1.0 if self._env.last_info.get("success") else 0.0
        return float(self._env.episode_return)

    def _call(self, name: str, arguments: Any) -> str:
        if self._episode_over:
            return "The episode is over; no further calls are possible."
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        message = {"role": "assistant", "content": None,
                   "tool_calls": [{"id": "call", "type": "function", "function": {"name": name, "arguments": text}}]}
        new, _, term, trunc, _ = self._env.step(message)
        self._episode_over = term or trunc
        # answer / abort get a null tool result; the model needs only the news that the episode is over.
        reply = "\n".join(str(m.get("content")) for m in new if m["role"] != "assistant" and m.get("content") != "null")
        if self._episode_over:
            return f"{reply}\nThe episode is over." if reply else "The episode is over."
        if self._generic and self._env.tools_changed:
            reply += "\n" + _tools_text([t for t in self._env.tools if t["function"]["name"] not in self._action_names])
        return reply

    # No public close(): TRL offers every public method to the model as a tool.
    def _close(self) -> None:
        self._env.close()

    def __del__(self) -> None:  # pragma: no cover - best effort, TRL never closes its environments
        try:
            self._env.close()
        except Exception:
            pass


def environment_factory(env_id: str, *, address: Optional[str] = None, tools: str = "auto", reward: str = "return",
                        probe_seeds: Iterable[int] = (0, 1, 2, 3), **options: Any) -> Callable[[], Any]:
    """A zero-argument factory of environments for ``GRPOTrainer(environment_factory=...)``.

    ``tools``: ``"typed"`` (one method per tool; refused when the tools change between ``probe_seeds``), ``"generic"``
    (one ``call_tool(name, arguments)``), or ``"auto"`` (typed when the probe finds a fixed tool set). ``reward``:
    ``"return"`` (the episode's summed reward) or ``"success"`` (1.0 or 0.0). ``options`` are the env's make options.
    """
    if tools not in ("auto", "typed", "generic"):
        raise ValueError(f'tools must be "auto", "typed" or "generic" (got {tools!r})')
    if reward not in ("return", "success"):
        raise ValueError(f'reward must be "return" or "success" (got {reward!r})')
    with ChatEnv(env_id, address=address, **options) as probe:
        seen: List[List[Dict[str, Any]]] = [probe.reset(seed=int(s))[1] for s in probe_seeds]
        action_names = set(probe.action_tools)
    first = seen[0]
    fixed = all([t["function"]["name"] for t in ts] == [t["function"]["name"] for t in first] for ts in seen)
    typed_ok = fixed and all(_typable(t) for t in first)
    if tools == "typed" and not typed_ok:
        raise ValueError(f"{env_id}: tools differ between episodes or are not Python identifiers; use tools='generic'")
    generic = tools == "generic" or (tools == "auto" and not typed_ok)
    members: Dict[str, Any] = {
        "_env_id": env_id, "_options": dict(options), "_address": address, "_generic": generic, "_reward": reward,
        "_action_names": frozenset(action_names),
    }
    for t in first:
        name = t["function"]["name"]
        if name in action_names or not generic:
            if not _typable(t):
                raise ValueError(f"{env_id}: action tool {name!r} cannot be a Python method")
            members[name] = _typed_method(t)
    if generic:
        members["call_tool"] = call_tool
    cls: Type[Any] = type(f"{''.join(c for c in env_id if c.isalnum())}ToolEnv", (_RecoveryGymToolEnv,), members)
    cls.__doc__ = f"{env_id} in chat mode for TRL ({'generic call_tool' if generic else 'typed tools'})."
    return cls


def dataset(env_id: str, seeds: Iterable[int], *, address: Optional[str] = None, **options: Any) -> Iterable[Dict[str, Any]]:
    """One row per task seed: ``{"prompt": [system, user], "seed": s}``. The user message is empty: the env's
    ``reset`` appends the episode's task (and, in generic mode, its tools) to it."""
    with ChatEnv(env_id, address=address, **options) as probe:
        system = probe.reset(seed=0)[0][0]["content"]
    for s in seeds:
        yield {"prompt": [{"role": "system", "content": system}, {"role": "user", "content": ""}], "seed": int(s)}
