"""Env options given on a command line as ``KEY=VALUE`` pairs, read the way ``recovery-gym --opt`` reads them."""
import json
from typing import Any, Dict, Iterable


def parse_option_value(raw: str) -> Any:
    """JSON when it parses (numbers, booleans, lists, objects), else the raw string."""
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def parse_option_pairs(items: Iterable[str], flag: str = "--opt") -> Dict[str, Any]:
    """``["max_steps=20", "fault=P3"]`` -> ``{"max_steps": 20, "fault": "P3"}``; a later key wins.

    Raises ValueError naming ``flag`` and the item when an item has no ``=`` or an empty key.
    """
    out: Dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise ValueError(f"{flag} needs KEY=VALUE (got {item!r})")
        out[key] = parse_option_value(raw)
    return out
