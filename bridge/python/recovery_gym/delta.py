"""Observations as per-env deltas (``obs_encoding="delta"``): the rules of the server's bridge/delta.ts."""
from __future__ import annotations

from typing import Any


def apply_delta(prev: Any, wire: Any) -> Any:
    """Rebuilds an observation from the previous one and a wire delta ``{s, d}`` or full value ``{f}``."""
    if "f" in wire:
        return wire["f"]
    out = dict(prev) if isinstance(prev, dict) else {}
    out.update(wire["s"])
    for k in wire.get("d") or ():
        out.pop(k, None)
    return out
