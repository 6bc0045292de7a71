"""Tool references (``tool_refs``): a tool schema crosses the wire once per session, later only its name
(the rules of the server's bridge/toolRefs.ts)."""
from __future__ import annotations

from typing import Any, Dict

from .errors import ProtocolError


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
                raise ProtocolError(f"tool reference {t!r} names no schema received on this session") from None
        else:
            if isinstance(t, dict) and isinstance(t.get("name"), str):
                known[t["name"]] = t
            out.append(t)
    return out
