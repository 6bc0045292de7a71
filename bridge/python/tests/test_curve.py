"""CURVE with a client allow-list, against a server of its own (`serve --curve-keys K --curve-clients F`)."""
import json
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import zmq

from recovery_gym import BridgeTimeout, Client, load_curve_keys


@pytest.fixture(scope="module")
def curve_server(repo_root):
    if not zmq.has("curve"):
        pytest.skip("this libzmq has no CURVE")
    tmp = Path(tempfile.mkdtemp(prefix="rg-curve-"))
    server_pub, server_sec = zmq.curve_keypair()
    (tmp / "server.json").write_text(json.dumps({"publicKey": server_pub.decode(), "secretKey": server_sec.decode()}))
    alice = zmq.curve_keypair()
    (tmp / "alice.json").write_text(json.dumps({"publicKey": alice[0].decode(), "secretKey": alice[1].decode()}))
    (tmp / "clients.txt").write_text(f"# trainers\n{alice[0].decode()} alice\n")
    ready = tmp / "ready.json"
    proc = subprocess.Popen(
        ["node", "--import", "tsx", "bridge/main.ts", "--endpoint", "tcp://127.0.0.1:*", "--workers", "1", "--quiet",
         "--curve-keys", str(tmp / "server.json"), "--curve-clients", str(tmp / "clients.txt"), "--ready-file", str(ready)],
        cwd=repo_root,
    )
    try:
        for _ in range(300):
            if ready.exists() and ready.stat().st_size:
                break
            assert proc.poll() is None, "CURVE server failed to start"
            time.sleep(0.1)
        endpoint = json.loads(ready.read_text())["endpoints"][0]
        yield endpoint, server_pub, tmp / "alice.json"
    finally:
        proc.terminate()
        assert proc.wait(timeout=30) == 0


def test_listed_client_is_served(curve_server):
    endpoint, server_pub, alice_file = curve_server
    with Client(endpoint, timeout=10, server_public_key=server_pub, client_keys=load_curve_keys(alice_file)) as c:
        env = c.make("Demo-v0")
        obs, _ = env.reset(seed=3)
        assert "task" in obs


def test_unlisted_and_plaintext_clients_are_refused(curve_server):
    endpoint, server_pub, _ = curve_server
    with pytest.raises(BridgeTimeout, match="client key the server does not admit"):
        Client(endpoint, timeout=0.5, server_public_key=server_pub)  # a fresh key pair, not in the allow-list
    with pytest.raises(BridgeTimeout):
        Client(endpoint, timeout=0.5)  # no CURVE at all


def test_client_keys_need_the_server_key():
    with pytest.raises(ValueError, match="client_keys"):
        Client("tcp://127.0.0.1:1", client_keys=("a" * 40, "b" * 40), hello=False)
