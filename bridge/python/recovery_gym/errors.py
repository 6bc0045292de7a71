"""Exceptions mapped one to one from the bridge's error codes (see bridge/PROTOCOL.md)."""
from __future__ import annotations

from typing import Any, Dict, Optional


class BridgeError(Exception):
    """An ``{ok: false}`` response from the server. ``code``, ``message`` and ``details`` are the server's."""

    code = "BRIDGE_ERROR"

    def __init__(self, message: str, details: Optional[Dict[str, Any]] = None, code: Optional[str] = None):
        super().__init__(f"{code or self.code}: {message}")
        if code:
            self.code = code
        self.message = message
        self.details = details or {}


class InvalidMessageError(BridgeError):
    code = "INVALID_MESSAGE"


class UnsupportedVersionError(BridgeError):
    code = "UNSUPPORTED_VERSION"


class UnknownOpError(BridgeError):
    code = "UNKNOWN_OP"


class ValidationError(BridgeError, ValueError):
    """A request field (env option, action, seed...) was rejected; ``details`` names the field."""

    code = "VALIDATION_ERROR"


class UnknownEnvError(BridgeError, KeyError):
    code = "UNKNOWN_ENV"

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return BridgeError.__str__(self)


class UnknownSessionError(BridgeError):
    code = "UNKNOWN_SESSION"


class SessionLostError(BridgeError):
    """The worker process holding the session died and was restarted: the session is gone; make a new one."""

    code = "SESSION_LOST"


class CapacityReachedError(BridgeError):
    code = "CAPACITY_REACHED"


class MessageTooLargeError(BridgeError):
    code = "MESSAGE_TOO_LARGE"


class EnvError(BridgeError, RuntimeError):
    code = "ENV_ERROR"


class ShuttingDownError(BridgeError):
    code = "SHUTTING_DOWN"


class InternalError(BridgeError):
    code = "INTERNAL_ERROR"


class BridgeTimeout(TimeoutError):
    """No response within the client's timeout. The request may still be executed by the server; its late
    response is discarded, so the client stays usable."""


class ProtocolError(Exception):
    """The server sent something that is not a valid response (wrong library, corrupted stream)."""


_BY_CODE = {
    cls.code: cls
    for cls in (
        InvalidMessageError,
        UnsupportedVersionError,
        UnknownOpError,
        ValidationError,
        UnknownEnvError,
        UnknownSessionError,
        SessionLostError,
        CapacityReachedError,
        MessageTooLargeError,
        EnvError,
        ShuttingDownError,
        InternalError,
    )
}


def error_from_response(error: Dict[str, Any]) -> BridgeError:
    """Builds the exception for an ``error`` map; unknown codes (from a newer server) become ``BridgeError``."""
    code = str(error.get("code", "BRIDGE_ERROR"))
    cls = _BY_CODE.get(code, BridgeError)
    message = str(error.get("message", ""))
    details = error.get("details") or {}
    if cls is BridgeError:
        return BridgeError(message, details, code=code)
    return cls(message, details)
