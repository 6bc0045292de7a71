"""Fixtures: the server started by scripts/test-python.sh (RG_BRIDGE_ENDPOINTS = its ready file's JSON)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # importable by path, without installation
REPO = HERE.parent.parent.parent


@pytest.fixture(scope="session")
def endpoints():
    raw = os.environ.get("RG_BRIDGE_ENDPOINTS")
    if not raw:
        pytest.skip("no bridge server: run scripts/test-python.sh (it starts one and sets RG_BRIDGE_ENDPOINTS)")
    return json.loads(raw)["endpoints"]


@pytest.fixture(scope="session")
def address(endpoints):
    return endpoints[0]


# A hang guard, not a speed check: a family's first make/reset in a server worker loads the family and builds its
# caches, which once took over 30 s with npm test's other parts beside it on a loaded 2-core machine.
# Tests that expect a timeout make their own client with a short one.
TIMEOUT = 120


@pytest.fixture()
def client(address):
    from recovery_gym import Client

    with Client(address, timeout=TIMEOUT) as c:
        yield c


@pytest.fixture(scope="session")
def env_ids(address):
    from recovery_gym import Client

    with Client(address, timeout=TIMEOUT) as c:
        return c.env_ids()


@pytest.fixture(scope="session")
def repo_root():
    return REPO


class Early:
    """A subprocess started when the session starts and read when a test first needs it: the slow single-threaded
    ones (TRL's imports, the in-process references) then run beside the tests before them instead of in line."""

    def __init__(self, args, stdin=None, env=None):
        self.args = args
        self.proc = subprocess.Popen(args, cwd=REPO, env=env, stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if stdin is not None:
            # Inputs are small: written whole before anything reads, well below the pipe's buffer. communicate()
            # must not touch the closed pipe again.
            self.proc.stdin.write(stdin)
            self.proc.stdin.close()
            self.proc.stdin = None
        self._result = None

    def result(self, timeout):
        """(returncode, stdout, stderr); a hang guard kills the process after `timeout` seconds."""
        if self._result is None:
            try:
                out, err = self.proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                out, err = self.proc.communicate()
                err += f"\n{self.args}: no exit after {timeout} s".encode()
            self._result = (self.proc.returncode, out, err)
        return self._result

    def stop(self):
        if self._result is None:  # never read: a test that needed it failed before, or was not run
            self.proc.kill()
            self.proc.communicate()


def _trl_probe(address):
    trl_path = os.environ.get("RG_TRL_PATH")
    if not trl_path:
        return None
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([trl_path, str(REPO / "bridge" / "python")]))
    return Early([sys.executable, "bridge/python/tests/trl_probe.py", address], env=env)


def _references(address):
    from recovery_gym import Client
    from test_trajectories import reference_items

    with Client(address, timeout=TIMEOUT) as c:
        items = reference_items(c.env_ids())
    return items, Early(["node", "--import", "tsx", "bridge/python/tests/inprocess_rollout.ts"], json.dumps(items).encode())


@pytest.fixture(scope="session", autouse=True)
def early(request):
    """The session's Early subprocesses by name ("trl", "references"), each started only when a test that reads it
    was collected, and only with a server (without one those tests skip)."""
    raw = os.environ.get("RG_BRIDGE_ENDPOINTS")
    files = {item.path.name for item in request.session.items}
    started = {}
    if raw:
        address = json.loads(raw)["endpoints"][0]
        if "test_trl.py" in files:
            started["trl"] = _trl_probe(address)
        if files & {"test_trajectories.py", "test_discrete.py"}:
            started["items"], started["references"] = _references(address)
    try:
        yield started
    finally:
        for proc in started.values():
            if isinstance(proc, Early):
                proc.stop()


@pytest.fixture(scope="session")
def reference_rollouts(early, env_ids):
    """In-process reference trajectories (test_trajectories.py, test_discrete.py), keyed by rollout_key(item), from
    one node process started early: its start and the families' caches (ToolMaze-v1's canonical suite: seconds) are
    paid once, beside other tests."""
    from test_trajectories import reference_items, rollout_key

    items = reference_items(env_ids)
    assert items == early["items"]
    # A hang guard: the session's references are one run, a minute under load.
    code, out, err = early["references"].result(timeout=600)
    assert code == 0, err.decode()[-2000:]
    return {rollout_key(it): ref for it, ref in zip(items, json.loads(out))}


@pytest.fixture(scope="session")
def ray_cluster():
    """One local Ray cluster for every test that needs one (test_ppo_ray.py, test_ray.py): Ray takes seconds of CPU
    to start. Its actors are new processes that import recovery_gym and the trainer examples from PYTHONPATH (a local
    cluster inherits the driver's). test_ray.py's last test ends it on purpose; nothing after it needs Ray."""
    ray = pytest.importorskip("ray", reason="Ray not installed (scripts/ensure-ray.sh puts it in .cache/python-ray)")
    old = os.environ.get("PYTHONPATH")
    extra = [str(REPO / "examples" / "python"), str(HERE.parent)]
    os.environ["PYTHONPATH"] = os.pathsep.join(extra + ([old] if old else []))
    ray.init(num_cpus=max(2, os.cpu_count() or 1), include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        yield ray
    finally:
        if ray.is_initialized():
            ray.shutdown()
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old
