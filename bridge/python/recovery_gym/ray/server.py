"""The process side of a server actor: one `recovery-gym serve` owned by this process, gone when it is."""
from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import ray

_LOOPBACK = "127.0.0.1"
_REPO_BIN = Path(__file__).resolve().parents[4] / "bin" / "recovery-gym.js"


def serve_command() -> List[str]:
    """How this node starts a server: ``$RECOVERY_GYM_SERVE`` (a command line), else the repository's
    ``bin/recovery-gym.js`` when this package sits in a checkout, else ``recovery-gym`` on ``PATH``."""
    custom = os.environ.get("RECOVERY_GYM_SERVE")
    if custom:
        import shlex

        return shlex.split(custom)
    node = shutil.which("node")
    if _REPO_BIN.is_file() and node:
        return [node, str(_REPO_BIN), "serve"]
    installed = shutil.which("recovery-gym")
    if installed:
        return [installed, "serve"]
    raise FileNotFoundError(
        "cannot find `recovery-gym` on this node: install the npm package (npm install -g recovery-gym), or set "
        "RECOVERY_GYM_SERVE to the command that starts `recovery-gym serve`, or pass command=[...]"
    )


def _die_with_parent() -> None:
    """Runs in the forked child before exec: the kernel sends it SIGTERM (a graceful drain) when the actor
    process dies, even by SIGKILL (ray.kill, a node's OOM killer), which no atexit handler survives."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _load_prctl() -> Optional[Callable[..., int]]:
    if not sys.platform.startswith("linux"):
        return None  # elsewhere Ray's own cleanup of a dead worker's child processes is all there is
    import ctypes

    return ctypes.CDLL(None, use_errno=True).prctl  # resolved here: the forked child must not import anything


_PRCTL = _load_prctl()


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:  # a zombie is dead; it only waits for its (new) parent to reap it
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True


class BridgeServer:
    """Owns one ``recovery-gym serve`` process on the node it runs on (use it as a Ray actor:
    :func:`start_servers` does). ``workers`` is the server's ``--workers`` (None: one per core); ``host`` the
    address it binds (ports are picked by the OS); ``curve_keys`` ``(public, secret)`` (Z85) make it accept remote
    clients over CURVE, as any non-loopback bind requires."""

    def __init__(self, workers: Optional[int] = 1, host: str = _LOOPBACK, *, curve_keys: Optional[Tuple[str, str]] = None,
                 serve_args: Sequence[str] = (), command: Optional[Sequence[str]] = None, start_timeout: float = 120.0):
        if host == "auto":  # the IP other nodes reach this one at (a bundle's node is known only once placed)
            host = ray.util.get_node_ip_address()
        self._dir = tempfile.mkdtemp(prefix="rg-serve-")
        ready = os.path.join(self._dir, "ready.json")
        self._log_path = os.path.join(self._dir, "serve.log")
        args = list(command or serve_command()) + ["--endpoint", f"tcp://{host}:*", "--ready-file", ready]
        if workers is not None:
            args += ["--workers", str(int(workers))]
        if host != _LOOPBACK:
            args.append("--allow-remote")
        if curve_keys is not None:
            keys = os.path.join(self._dir, "keys.json")
            fd = os.open(keys, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                json.dump({"publicKey": curve_keys[0], "secretKey": curve_keys[1]}, f)
            args += ["--curve-keys", keys]
        args += list(serve_args)
        with open(self._log_path, "wb") as log:
            self._proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                          preexec_fn=_die_with_parent if _PRCTL is not None else None)
        atexit.register(self.stop)
        deadline = time.monotonic() + start_timeout
        while not (os.path.exists(ready) and os.path.getsize(ready) > 0):
            if self._proc.poll() is not None:
                raise RuntimeError(f"recovery-gym serve exited with {self._proc.returncode}: {self._log_tail()}")
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError(f"recovery-gym serve not ready after {start_timeout} s: {self._log_tail()}")
            time.sleep(0.05)
        with open(ready, encoding="utf-8") as f:
            self._ready = json.load(f)
        if curve_keys is not None:  # read once at start-up (restarted workers get them from the supervisor)
            os.remove(keys)
        self._host = host
        self._public_key = curve_keys[0] if curve_keys else None

    def _log_tail(self, limit: int = 2000) -> str:
        try:
            with open(self._log_path, "rb") as f:
                return f.read().decode(errors="replace")[-limit:].strip() or "(no output)"
        except OSError:
            return "(no log)"

    def info(self) -> Dict[str, Any]:
        """Endpoints (one per worker process), pids, node and CURVE public key of this server."""
        node_id = ray.get_runtime_context().get_node_id() if ray.is_initialized() else None
        return {"endpoints": list(self._ready["endpoints"]), "pid": self._ready["pid"],
                "worker_pids": list(self._ready.get("workerPids") or []), "node_id": node_id, "host": self._host,
                "server_public_key": self._public_key, "log": self._log_path}

    def alive(self) -> bool:
        return self._proc.poll() is None

    def stop(self, timeout: float = 10.0) -> Optional[int]:
        """SIGTERM (the server drains, then exits 0), SIGKILL after ``timeout`` s; returns the exit code."""
        proc = getattr(self, "_proc", None)
        if proc is None:
            return None
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(self._dir, ignore_errors=True)
        return proc.returncode

