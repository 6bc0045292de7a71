"""Packed observations (``obs_encoding="packed"``): one binary per key per batch, as bridge/packed.ts writes them."""
from __future__ import annotations

from typing import Any, Dict, List


# Wire dtype (little-endian) and the dtype Gymnasium gives the space: MultiBinary is int8, Discrete int64.
_WIRE_DTYPES = {"float32": "<f4", "float64": "<f8", "int32": "<i4", "uint8": "u1"}


def unpack_observations(layout: List[Dict[str, Any]], packed: Dict[str, Any], n: int) -> Dict[str, Any]:
    """Packed observations (one binary per key, env 0 first) as numpy arrays shaped ``(n, *shape)``."""
    import numpy as np

    out: Dict[str, Any] = {}
    for field in layout:
        key, shape = field["key"], tuple(field["shape"])
        arr = np.frombuffer(bytearray(packed[key]), dtype=_WIRE_DTYPES[field["dtype"]]).reshape((n,) + shape)
        kind = field.get("space")
        if kind == "multi_binary":
            arr = arr.view(np.int8)  # 0/1 bytes; free to view
        elif kind == "discrete":
            arr = arr.astype(np.int64)
        out[key] = arr
    return out
