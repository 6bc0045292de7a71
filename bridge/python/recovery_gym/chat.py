"""Chat mode over the bridge: OpenAI chat messages in and out, for LLM agents.

``ChatEnv`` (sync) and ``AsyncChatEnv`` (asyncio) wrap a remote env made with ``obsFormat="chat"``:
``reset(seed=) -> (messages, tools)`` and ``step(assistant_message) -> (new_messages, reward, terminated, truncated,
info)``. ``rollout(generate, env_id, episodes, concurrency, **options)`` plays many episodes concurrently against an
async ``generate(messages, tools) -> assistant_message`` (the shape of OpenAI-compatible and vLLM clients) and returns
scored trajectories; with ``out=`` it appends each finished episode to a JSONL file and, run again, skips the
episodes that file already holds.

The messages ``step`` returns start with the model's turn as the env recorded it (one assistant message per tool
call, ids ``call_<step>``, arguments as sorted-key JSON), followed by the env's replies. ``ChatEnv.messages`` keeps
the conversation built from them; send that (not your own copy of the model's message) to the model next time, and
the conversation stays byte-identical to ``recovery-gym export --format openai-chat`` of the episode.
"""
import asyncio
import inspect
import json
import os
from typing import Any, Awaitable, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from .client import DEFAULT_ADDRESS, Client
from .env import unbatch_info

Message = Dict[str, Any]
Tool = Dict[str, Any]
AssistantInput = Union[str, Message]
Generate = Callable[[List[Message], List[Tool]], Union[Awaitable[AssistantInput], AssistantInput]]

__all__ = ["ChatEnv", "AsyncChatEnv", "rollout", "summarize", "PARSERS"]

#: Parsers for raw model text (option ``chat_parser``), as the server names them.
PARSERS = ("hermes", "planbench-tags")


class ChatEnv:
    """One env in chat mode over the bridge (synchronous).

    ``options`` are the env's own options (Python or camelCase names) plus ``chat_parser`` (how raw text is read:
    ``"hermes"`` by default, or ``"planbench-tags"``) and ``invalid_action="raise"`` for strict mode (model mistakes
    raise instead of being answered). Give a ``client`` to share a connection, or an ``address``.
    """

    def __init__(self, env_id: str, *, client: Optional[Client] = None, address: Optional[str] = None,
                 seed: Optional[int] = None, record: bool = False, timeout: Optional[float] = 60, **options: Any):
        self._own_client = client is None
        self.client = client if client is not None else Client(address or DEFAULT_ADDRESS, timeout=timeout)
        opts = dict(options)
        opts["obsFormat"] = "chat"
        try:
            self._env = self.client.make_vec(env_id, 1, seed=seed, autoreset_mode="Disabled", obs_encoding="full",
                                             tool_refs=False, record=record, **opts)
        except Exception:
            if self._own_client:
                self.client.close()
            raise
        self.env_id = env_id
        self.options = options
        #: The conversation so far (reset's messages, then every step's).
        self.messages: List[Message] = []
        #: The tools to offer the model now (visible tools and the env's actions).
        self.tools: List[Tool] = []
        #: Every tool offered during the episode, in order of first appearance (what the export declares).
        self.all_tools: List[Tool] = []
        #: Names of the offered tools that are env actions (family actions, answer, abort), not tools.
        self.action_tools: List[str] = list(self._env.single_action_space.get("actionTools") or [])
        #: Whether the last step changed the visible tools.
        self.tools_changed = False
        self.done = True
        self.episode_return = 0.0
        self.last_info: Dict[str, Any] = {}

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[List[Message], List[Tool]]:
        obs, infos = self._env.reset(seed=seed, options=options)
        self.last_info = unbatch_info(infos, 0)
        self.messages = list(obs[0]["messages"])
        self.tools = list(obs[0]["tools"])
        self.all_tools = list(self.tools)
        self.done = False
        self.episode_return = 0.0
        return list(self.messages), list(self.tools)

    def step(self, message: AssistantInput) -> Tuple[List[Message], float, bool, bool, Dict[str, Any]]:
        obs, rewards, terminated, truncated, infos = self._env.step([_plain_message(message)])
        o = obs[0]
        reward, term, trunc = float(rewards[0]), bool(terminated[0]), bool(truncated[0])
        info = unbatch_info(infos, 0)
        self._apply(o)
        self.episode_return += reward
        self.done = term or trunc
        self.last_info = info
        return list(o["messages"]), reward, term, trunc, info

    def _apply(self, obs: Dict[str, Any]) -> None:
        self.messages.extend(obs["messages"])
        removed = set(obs.get("removedTools") or [])
        self.tools_changed = bool(removed or obs["tools"])
        new = {t["function"]["name"]: t for t in obs["tools"]}
        self.tools = [new.pop(t["function"]["name"], t) for t in self.tools if t["function"]["name"] not in removed]
        self.tools.extend(new.values())
        seen = {t["function"]["name"]: i for i, t in enumerate(self.all_tools)}
        for t in obs["tools"]:
            name = t["function"]["name"]
            if name in seen:
                self.all_tools[seen[name]] = t
            else:
                seen[name] = len(self.all_tools)
                self.all_tools.append(t)

    def transcript(self) -> Dict[str, Any]:
        """The episode's chat as ``export --format openai-chat`` writes it: ``{messages, tools}``."""
        return {"messages": list(self.messages), "tools": list(self.all_tools)}

    def render(self) -> str:
        return "\n".join(f"[{m['role']}] {m.get('content') or json.dumps(m.get('tool_calls'))}" for m in self.messages)

    def close(self) -> None:
        try:
            self._env.close()
        finally:
            if self._own_client:
                self.client.close()

    def __enter__(self) -> "ChatEnv":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class AsyncChatEnv:
    """``ChatEnv`` for asyncio code: the same methods as coroutines.

    Each instance owns its connection and runs its (short, blocking) bridge requests in a worker thread, so many
    instances step concurrently while the event loop keeps serving model calls.
    """

    def __init__(self, env_id: str, *, address: Optional[str] = None, **kwargs: Any):
        self._sync = ChatEnv(env_id, address=address, **kwargs)

    @classmethod
    async def create(cls, env_id: str, **kwargs: Any) -> "AsyncChatEnv":
        """Makes the env without blocking the event loop."""
        return await asyncio.to_thread(cls, env_id, **kwargs)

    @property
    def messages(self) -> List[Message]:
        return self._sync.messages

    @property
    def tools(self) -> List[Tool]:
        return self._sync.tools

    @property
    def done(self) -> bool:
        return self._sync.done

    @property
    def episode_return(self) -> float:
        return self._sync.episode_return

    def transcript(self) -> Dict[str, Any]:
        return self._sync.transcript()

    async def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[List[Message], List[Tool]]:
        return await asyncio.to_thread(self._sync.reset, seed=seed, options=options)

    async def step(self, message: AssistantInput) -> Tuple[List[Message], float, bool, bool, Dict[str, Any]]:
        return await asyncio.to_thread(self._sync.step, message)

    async def close(self) -> None:
        await asyncio.to_thread(self._sync.close)

    async def __aenter__(self) -> "AsyncChatEnv":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()


def _plain_message(message: AssistantInput) -> AssistantInput:
    """An OpenAI SDK message object (pydantic) or dict becomes the plain dict the bridge takes; text stays text."""
    if isinstance(message, str):
        return message
    if hasattr(message, "model_dump"):
        message = message.model_dump(exclude_none=True)  # type: ignore[union-attr]
    if not isinstance(message, dict):
        raise TypeError(f"generate must return an assistant message (dict) or text, got {type(message).__name__}")
    out: Dict[str, Any] = {"role": "assistant", "content": message.get("content")}
    calls = message.get("tool_calls")
    if calls:
        out["tool_calls"] = [
            {"id": c.get("id") or f"call_{i}", "type": "function",
             "function": {"name": c["function"]["name"], "arguments": c["function"].get("arguments", "")}}
            for i, c in enumerate(calls)
        ]
    return out


def _read_done(path: str) -> Dict[int, Dict[str, Any]]:
    """Finished episodes of an earlier run, by seed. A last line cut short by a crash is removed from the file."""
    done: Dict[int, Dict[str, Any]] = {}
    if not os.path.exists(path):
        return done
    with open(path, "rb") as f:
        data = f.read()
    pos = keep = 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        end = len(data) if nl < 0 else nl + 1
        line = data[pos:end].strip()
        if line:
            try:
                rec = json.loads(line)
            except ValueError:
                break
            done[int(rec["seed"])] = rec
        keep = pos = end
    if keep < len(data):
        with open(path, "r+b") as f:
            f.truncate(keep)
    if keep and not data[:keep].endswith(b"\n"):
        with open(path, "ab") as f:
            f.write(b"\n")
    return done


async def rollout(generate: Generate, env_id: str, episodes: Union[int, Iterable[int]] = 10, concurrency: int = 8, *,
                  address: Optional[str] = None, out: Optional[str] = None, max_turns: int = 1000,
                  **options: Any) -> List[Dict[str, Any]]:
    """Plays episodes in chat mode with ``generate`` as the model; returns one scored trajectory per episode.

    ``episodes`` is a count (seeds 0..n-1) or the seeds themselves; ``concurrency`` episodes run at once, each on
    its own env. ``generate(messages, tools)`` returns the assistant message (a dict, an OpenAI SDK message, or raw
    text read by ``chat_parser``); it may be async. Each trajectory is ``{env_id, seed, options, messages, tools,
    return, length, success, terminationReason, metrics, mistakes}``, in seed order. With ``out``, each finished
    episode is appended to that JSONL file as it ends, and seeds the file already holds are not played again.
    """
    seeds = list(range(episodes)) if isinstance(episodes, int) else [int(s) for s in episodes]
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1 (got {concurrency})")
    done = _read_done(out) if out else {}
    todo = [s for s in seeds if s not in done]
    queue: "asyncio.Queue[int]" = asyncio.Queue()
    for s in todo:
        queue.put_nowait(s)
    results: Dict[int, Dict[str, Any]] = {s: done[s] for s in seeds if s in done}
    lock = asyncio.Lock()

    async def play(env: AsyncChatEnv, seed: int) -> Dict[str, Any]:
        messages, tools = await env.reset(seed=seed)
        info: Dict[str, Any] = {}
        mistakes = 0
        for _ in range(max_turns):
            reply = generate(list(env.messages), list(env.tools))
            if inspect.isawaitable(reply):
                reply = await reply
            _, _, term, trunc, info = await env.step(reply)
            mistakes += sum(1 for e in info.get("events", []) if e.get("type") in ("invalid_action", "tool_error"))
            if term or trunc:
                break
        else:
            raise RuntimeError(f"episode of seed {seed} did not end within max_turns={max_turns}")
        t = env.transcript()
        return {
            "env_id": env_id, "seed": seed, "options": options, "messages": t["messages"], "tools": t["tools"],
            "return": env.episode_return, "length": int(info.get("step", 0)), "success": bool(info.get("success", False)),
            "terminationReason": info.get("terminationReason"), "metrics": info.get("metrics", {}), "mistakes": mistakes,
        }

    async def worker() -> None:
        env = await AsyncChatEnv.create(env_id, address=address, **options)
        try:
            while True:
                try:
                    seed = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                rec = await play(env, seed)
                results[seed] = rec
                if out:
                    async with lock:
                        await asyncio.to_thread(_append_line, out, rec)
        finally:
            await env.close()

    if todo:
        await asyncio.gather(*(worker() for _ in range(min(concurrency, len(todo)))))
    return [results[s] for s in seeds]


def _append_line(path: str, rec: Dict[str, Any]) -> None:
    line = (json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
    with open(path, "ab") as f:
        f.write(line)
        f.flush()
        os.fsync(f.fileno())


def summarize(trajectories: Sequence[Dict[str, Any]]) -> Dict[str, Any]:
    """Means over episodes: success rate, return, length, mistakes, and every numeric metric the family reports."""
    n = len(trajectories)
    if n == 0:
        return {"episodes": 0}
    out: Dict[str, Any] = {
        "episodes": n,
        "successRate": sum(1 for t in trajectories if t["success"]) / n,
        "meanReturn": sum(t["return"] for t in trajectories) / n,
        "meanLength": sum(t["length"] for t in trajectories) / n,
        "meanMistakes": sum(t.get("mistakes", 0) for t in trajectories) / n,
    }
    keys: List[str] = []
    for t in trajectories:
        for k, v in (t.get("metrics") or {}).items():
            if isinstance(v, (int, float)) and k not in keys:  # bools count as rates
                keys.append(k)
    for k in keys:
        vals = [float(t["metrics"][k]) for t in trajectories if isinstance((t.get("metrics") or {}).get(k), (int, float))]
        if vals:
            out[k] = sum(vals) / len(vals)
    return out
