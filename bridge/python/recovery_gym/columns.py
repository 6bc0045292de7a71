"""Column deltas (``obs_encoding="columns"``, the default on protocol minor 5): a batch's observations, rewards,
flags and sampled actions as columns, the layout of the server's bridge/columns.ts."""
from __future__ import annotations

import sys
from array import array
from typing import Any, Dict, List, Optional

from .errors import ProtocolError
from .tool_refs import expand_tool_list, expand_tool_refs


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
            raise ProtocolError(f"action tool index {t} names no tool received on this session")
    return out


def unpack_floats(data: bytes) -> List[float]:
    """A binary column of little-endian float64 values as Python floats."""
    arr = array("d")
    arr.frombytes(data)
    if sys.byteorder == "big":
        arr.byteswap()
    return arr.tolist()
