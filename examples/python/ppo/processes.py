"""The child processes the trainer runs: the bridge server (`recovery-gym serve`) and the report helper."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
from typing import Any, Dict, List

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))


class Server:
    """`recovery-gym serve` on free loopback ports, stopped with SIGTERM (a graceful shutdown exits 0)."""

    def __init__(self, workers: int):
        self._tmp = tempfile.mkdtemp(prefix="rg-train-")
        ready = os.path.join(self._tmp, "ready.json")
        cmd = ["node", os.path.join(REPO, "bin", "recovery-gym.js"), "serve", "--endpoint", "tcp://127.0.0.1:*",
               "--workers", str(workers), "--ready-file", ready, "--quiet"]
        self.proc = subprocess.Popen(cmd, cwd=REPO, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not (os.path.exists(ready) and os.path.getsize(ready) > 0):
            if self.proc.poll() is not None:
                raise RuntimeError(f"recovery-gym serve exited with {self.proc.returncode} before it was ready")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("recovery-gym serve was not ready within 60 s")
            time.sleep(0.1)
        with open(ready) as f:
            self.endpoints: List[str] = json.load(f)["endpoints"]

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for name in os.listdir(self._tmp):
            os.remove(os.path.join(self._tmp, name))
        os.rmdir(self._tmp)
        return self.proc.returncode


class Reporter:
    """scripts/train-report.ts as a long-lived helper: the family's own aggregate turns episode results into the
    metrics `recovery-gym eval --json` prints, and Vega-Lite renders the curve (one JSON request per line)."""

    def __init__(self) -> None:
        cmd = ["node", "--import", "tsx", os.path.join(REPO, "scripts", "train-report.ts")]
        self.proc = subprocess.Popen(cmd, cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def request(self, **req: Any) -> Dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"train-report exited ({self.proc.poll()}) on a {req.get('op')} request")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"train-report: {reply['error']}")
        return reply

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
