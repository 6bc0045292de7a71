"""Python client for the Recovery Gym ZeroMQ bridge.

Depends only on pyzmq and msgpack; numpy (``use_numpy=True``) and gymnasium (``to_gymnasium()``, and
``import recovery_gym.gym`` to register every env with ``gymnasium.make``) are optional. Env options may be given
in Python style (``max_steps=20``) or as the library spells them (``maxSteps=20``).
"""
from ._checks import SEED_RULE, SeedError
from .client import DEFAULT_ADDRESS, PROTOCOL_VERSIONS, Client, load_curve_keys
from .delta import apply_delta
from .env import RemoteEnv, unbatch_info
from .errors import (
    BridgeError,
    BridgeTimeout,
    CapacityReachedError,
    EnvError,
    InternalError,
    InvalidMessageError,
    MessageTooLargeError,
    ProtocolError,
    SessionLostError,
    ShuttingDownError,
    UnknownEnvError,
    UnknownOpError,
    UnknownSessionError,
    UnsupportedVersionError,
    ValidationError,
    error_from_response,
)
from .options import parse_option_pairs, parse_option_value
from .sharded import ShardedVectorEnv, discover_endpoints, make_vec, merge_infos, split_counts
from .tool_refs import expand_tool_refs
from .vector_env import RemoteVectorEnv

from ._version import __version__

__all__ = [
    "Client", "load_curve_keys", "DEFAULT_ADDRESS", "PROTOCOL_VERSIONS", "RemoteEnv", "RemoteVectorEnv", "ShardedVectorEnv",
    "make_vec", "discover_endpoints", "apply_delta", "expand_tool_refs", "unbatch_info", "merge_infos", "split_counts",
    "BridgeError", "BridgeTimeout", "ProtocolError", "InvalidMessageError", "UnsupportedVersionError",
    "UnknownOpError", "ValidationError", "UnknownEnvError", "UnknownSessionError", "SessionLostError", "CapacityReachedError",
    "MessageTooLargeError", "EnvError", "ShuttingDownError", "InternalError", "error_from_response",
    "SeedError", "SEED_RULE", "parse_option_pairs", "parse_option_value",
]
