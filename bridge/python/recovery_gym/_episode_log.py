"""What ``RemoteEnv.render()`` shows: the episode as this client saw it, in the in-process renderer's layout."""
from __future__ import annotations

import json
from typing import Any, Dict, List, Tuple


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class EpisodeLog:
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
