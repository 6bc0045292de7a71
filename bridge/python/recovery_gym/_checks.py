"""Checks done before anything is sent, so a wrong argument fails at the caller's line with a message that says
what it must be (the server would refuse it too, but in terms of wire fields)."""
from __future__ import annotations

import numbers
import re
from typing import Any, Dict, List, Optional, Sequence, Union

from .errors import ValidationError

#: What a seed must be; the same rule as the library's (non-negative, exact in a JavaScript number).
SEED_RULE = "a non-negative integer no larger than 2**53 - 1 (such as 42), or None"
_MAX_SEED = 2**53 - 1


def _describe(value: Any) -> str:
    text = repr(value)
    return f"{text[:40]} ({type(value).__name__})"


class SeedError(ValidationError, TypeError):
    """A seed that is not a non-negative integer. A ``ValidationError`` (like the server's refusal) and a
    ``TypeError`` (what Python code expects for an argument of the wrong type)."""


def check_seed(seed: Any, where: str, field: str = "seed") -> Optional[int]:
    """``seed`` as an int (numpy integers accepted), ``None`` unchanged; anything else raises :class:`SeedError`."""
    if seed is None:
        return None
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and 0 <= int(seed) <= _MAX_SEED:
        return int(seed)
    raise SeedError(f"{where}: invalid {field}: must be {SEED_RULE}, got {_describe(seed)}", {"field": field})


def check_seeds(seed: Any, num_envs: int, where: str) -> Union[int, List[Optional[int]], None]:
    """A vector env's reset seed: one seed (env i gets seed + i) or a list of one seed (or None) per env."""
    if seed is None or isinstance(seed, numbers.Integral):
        return check_seed(seed, where)
    if isinstance(seed, (str, bytes)) or not isinstance(seed, Sequence):
        raise SeedError(f"{where}: invalid seed: must be {SEED_RULE}, or a list of one such seed per env, "
                        f"got {_describe(seed)}", {"field": "seed"})
    if len(seed) != num_envs:
        raise SeedError(f"{where}: invalid seed: expected one seed per env ({num_envs}), got {len(seed)}",
                        {"field": "seed"})
    return [check_seed(s, where, f"seed[{i}]") for i, s in enumerate(seed)]


_SNAKE = re.compile(r"_([a-z0-9])")


def camel_options(options: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """Env option names in Python style (``max_steps``) become the library's camelCase (``maxSteps``); camelCase
    names pass unchanged. Only top-level names are renamed: option values (reward specs, fault plans) are data.
    Giving one option under both spellings is an error rather than a silent pick."""
    out: Dict[str, Any] = {}
    given: Dict[str, str] = {}
    for key, value in (options or {}).items():
        name = _SNAKE.sub(lambda m: m.group(1).upper(), key) if isinstance(key, str) and not key.startswith("_") else key
        if name in out:
            raise ValidationError(f"options: {given[name]!r} and {key!r} name the same option; give it once",
                                  {"field": f"options.{name}"})
        out[name] = value
        given[name] = key
    return out
