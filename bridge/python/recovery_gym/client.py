"""The connection to one bridge server: a ZeroMQ DEALER socket speaking msgpack maps."""
from __future__ import annotations

import itertools
import secrets
import time
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Tuple, Union

import msgpack
import zmq

from ._pickling import refuse_pickle
from .errors import BridgeTimeout, ProtocolError, error_from_response

PROTOCOL_VERSIONS = [1]
DEFAULT_ADDRESS = "tcp://127.0.0.1:5555"


def _default(obj: Any) -> Any:
    """Lets numpy values (and anything with ``tolist``/``item``) be sent without the caller converting them."""
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if hasattr(obj, "item"):
        return obj.item()
    if isinstance(obj, (set, frozenset)):
        return list(obj)
    raise TypeError(f"cannot send a value of type {type(obj).__name__} to the bridge")


def _key_bytes(key: Union[bytes, str]) -> bytes:
    return key if isinstance(key, bytes) else key.encode()


def load_curve_keys(path: str) -> Tuple[str, str]:
    """``(public, secret)`` from a key file written by ``recovery-gym serve --gen-curve-keys FILE``."""
    import json

    with open(path, encoding="utf-8") as f:
        keys = json.load(f)
    return keys["publicKey"], keys["secretKey"]


def pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True, default=_default)


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


class Client:
    """A connection to a Recovery Gym bridge server.

    Requests may be pipelined with :meth:`send` / :meth:`recv`; the server answers each client's requests in order.
    Every wait is bounded by ``timeout`` seconds and raises :class:`BridgeTimeout` rather than hanging.

    >>> with Client("tcp://127.0.0.1:5555") as c:
    ...     env = c.make("ToolMaze-v0")
    ...     obs, info = env.reset(seed=0)
    """

    def __init__(
        self,
        address: str = DEFAULT_ADDRESS,
        timeout: Optional[float] = 30.0,
        *,
        context: Optional[zmq.Context] = None,
        identity: Optional[bytes] = None,
        server_public_key: Optional[Union[bytes, str]] = None,
        client_keys: Optional[Tuple[Union[bytes, str], Union[bytes, str]]] = None,
        hello: bool = True,
    ):
        self.address = address
        self.timeout = timeout
        self._ctx = context or zmq.Context.instance()
        # Sessions belong to the routing id. A random one of our own (rather than libzmq's per-connection one)
        # survives reconnects after a network blip, so the sessions stay ours; it is unguessable like a handle.
        self.identity: bytes = identity if identity is not None else b"rg-" + secrets.token_hex(16).encode()
        if client_keys is not None and server_public_key is None:
            raise ValueError("client_keys: CURVE client keys need server_public_key as well")
        self._curve = server_public_key is not None
        self._curve_keys: Optional[Tuple[bytes, bytes, bytes]] = None
        if server_public_key is not None:
            # A server started with --curve-clients admits only listed public keys; otherwise any fresh pair works.
            public, secret = client_keys if client_keys is not None else zmq.curve_keypair()
            self._curve_keys = (_key_bytes(public), _key_bytes(secret), _key_bytes(server_public_key))
        self._ids = itertools.count(1)
        self._closed = False
        self._open_socket()
        self.server_info: Dict[str, Any] = {}
        if hello:
            try:
                self.server_info = self._hello_reconnecting() if identity is not None else self.hello()
            except BaseException:
                self.close()  # do not leak the socket when the server is unreachable or incompatible
                raise

    def _open_socket(self) -> None:
        self._sock = self._ctx.socket(zmq.DEALER)
        self._sock.setsockopt(zmq.LINGER, 0)
        self._sock.setsockopt(zmq.IDENTITY, self.identity)
        if self._curve_keys is not None:
            self._sock.curve_publickey, self._sock.curve_secretkey, self._sock.curve_serverkey = self._curve_keys
        self._sock.connect(self.address)
        self._poller = zmq.Poller()
        self._poller.register(self._sock, zmq.POLLIN)
        # ids sent and not yet answered, in send order (responses arrive in this order).
        self._outstanding: "OrderedDict[int, None]" = OrderedDict()
        self._stash: Dict[int, Dict[str, Any]] = {}
        self._abandoned: set = set()

    def _hello_reconnecting(self) -> Dict[str, Any]:
        """``hello`` for a client that reuses a routing id (a reconnect). The server refuses a second connection
        under an id it still sees connected, and libzmq then parks the new connection silently for good; until the
        server notices the old connection is gone, each attempt therefore gets a fresh connection."""
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while True:
            left = None if deadline is None else deadline - time.monotonic()
            attempt = 0.5 if left is None else min(0.5, max(left, 0.0))
            try:
                return self.request("hello", timeout=attempt, versions=PROTOCOL_VERSIONS, client="recovery_gym-python")
            except BridgeTimeout:
                if deadline is not None and time.monotonic() >= deadline:
                    raise
                self._sock.close(0)
                self._open_socket()

    # -- plumbing ---------------------------------------------------------------------------------------------

    def send(self, op: str, **fields: Any) -> int:
        """Sends a request without waiting; returns its id for :meth:`recv`."""
        if self._closed:
            raise RuntimeError("client is closed")
        rid = next(self._ids)
        msg = {"id": rid, "op": op}
        msg.update(fields)
        self._sock.send(pack(msg), copy=False)
        self._outstanding[rid] = None
        return rid

    def send_raw(self, data: bytes) -> int:
        """Sends arbitrary bytes as one request frame (tests, debugging). Returns a local id for :meth:`recv`: an
        undecodable frame is answered with ``id`` null, which is attributed to the oldest outstanding request."""
        rid = next(self._ids)
        self._sock.send(data)
        self._outstanding[rid] = None
        return rid

    def recv_response(self, rid: int, timeout: Optional[float] = None) -> Dict[str, Any]:
        """Waits for the full response map of request ``rid`` (``ok`` true or false)."""
        if rid in self._stash:
            self._outstanding.pop(rid, None)
            return self._stash.pop(rid)
        limit = self.timeout if timeout is None else timeout
        deadline = None if limit is None else time.monotonic() + limit
        while True:
            wait_ms = None if deadline is None else max(0, int((deadline - time.monotonic()) * 1000))
            if not self._sock.poll(wait_ms, zmq.POLLIN):
                self._outstanding.pop(rid, None)
                self._abandoned.add(rid)
                if not self.server_info:
                    # ZeroMQ connects lazily and silently: an absent server and a wrong port look like a slow one.
                    hint = (f"; is a bridge server running at {self.address}? Start one with `npm start` or "
                            f"`npx recovery-gym serve --endpoint {self.address}`, or pass the address it prints")
                    if self._curve:
                        # A refused CURVE handshake is silent too: the first request simply never gets an answer.
                        hint += "; with CURVE this also means a wrong server key or a client key the server does not admit"
                else:
                    hint = "; the server answered before: it may be overloaded or stopped (raise timeout= for slow steps)"
                raise BridgeTimeout(f"no response from {self.address} within {limit} s (request id {rid}){hint}")
            frames = self._sock.recv_multipart(copy=False)
            try:
                # Decode straight from ZeroMQ's buffer: large step responses are not copied first.
                resp = unpack(frames[-1].buffer)
            except Exception as e:  # noqa: BLE001 - anything undecodable is a protocol error
                raise ProtocolError(f"undecodable response from {self.address}: {e}") from e
            if not isinstance(resp, dict) or "ok" not in resp:
                raise ProtocolError(f"response is not a map with 'ok': {resp!r:.200}")
            got = resp.get("id")
            if got is None:
                # The server could not read that request's id; answers are in order, so it is the oldest one.
                got = next(iter(self._outstanding), None)
                if got is None:
                    continue
            if got in self._abandoned:
                self._abandoned.discard(got)
                continue
            self._outstanding.pop(got, None)
            if got == rid:
                return resp
            self._stash[got] = resp

    def recv(self, rid: int, timeout: Optional[float] = None) -> Any:
        """Waits for request ``rid`` and returns its ``result``, raising the mapped exception on errors."""
        resp = self.recv_response(rid, timeout)
        if resp.get("ok"):
            return resp.get("result")
        raise error_from_response(resp.get("error") or {})

    def request(self, op: str, timeout: Optional[float] = None, **fields: Any) -> Any:
        return self.recv(self.send(op, **fields), timeout)

    # -- operations -------------------------------------------------------------------------------------------

    def hello(self) -> Dict[str, Any]:
        info = self.request("hello", versions=PROTOCOL_VERSIONS, client="recovery_gym-python")
        self.server_info = info
        return info

    def ping(self) -> bool:
        return bool(self.request("ping").get("pong"))

    def list_envs(self) -> List[Dict[str, Any]]:
        return self.request("list_envs")["envs"]

    def env_ids(self) -> List[str]:
        return [e["id"] for e in self.list_envs()]

    @property
    def worker_endpoints(self) -> List[str]:
        """Endpoints of every worker process of this server (for :func:`recovery_gym.make_vec` sharding)."""
        return list(self.server_info.get("endpoints") or [self.address])

    def get_spec(self, env_id: str) -> Dict[str, Any]:
        return self.request("get_spec", env_id=env_id)

    def make(self, env_id: str, *, seed: Optional[int] = None, obs_encoding: str = "delta",
             info_keys: Optional[List[str]] = None, tool_refs: Optional[bool] = None, **options: Any) -> "RemoteEnv":
        """One env with Gymnasium's single-env signatures. Keyword arguments are the env's options.

        ``tool_refs`` (default: on when the server supports it) sends each tool schema once per session; the
        observations you get are the same either way."""
        from .env import RemoteEnv

        return RemoteEnv(self, env_id, options, seed=seed, obs_encoding=obs_encoding, info_keys=info_keys,
                         tool_refs=tool_refs)

    def make_vec(self, env_id: str, num_envs: int, *, seed: Optional[int] = None, autoreset_mode: Optional[str] = None,
                 obs_encoding: Optional[str] = None, info_keys: Optional[List[str]] = None, use_numpy: bool = False,
                 record: bool = False, tool_refs: Optional[bool] = None, **options: Any) -> "RemoteVectorEnv":
        """A batched env of ``num_envs`` copies on this server (Gymnasium 1.x vector semantics).

        ``obs_encoding`` defaults to ``"columns"`` (``"delta"`` on servers older than protocol minor 5), and with
        ``use_numpy`` to ``"auto"``: a Dict of Box / MultiBinary / Discrete observations then arrives packed, one numpy
        array per key per batch. Every encoding gives the same observations."""
        from .vector_env import RemoteVectorEnv

        return RemoteVectorEnv(self, env_id, num_envs, options, seed=seed, autoreset_mode=autoreset_mode,
                               obs_encoding=obs_encoding, info_keys=info_keys, use_numpy=use_numpy,
                               record=record, tool_refs=tool_refs)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._sock.close(0)

    def __reduce__(self) -> Any:
        refuse_pickle(self)

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - best effort
        try:
            self.close()
        except Exception:
            pass


from .env import RemoteEnv  # noqa: E402  (type names for annotations)
from .vector_env import RemoteVectorEnv  # noqa: E402
