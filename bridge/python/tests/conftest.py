"""Fixtures: the server started by scripts/test-python.sh (RG_BRIDGE_ENDPOINTS = its ready file's JSON)."""
import json
import os
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


@pytest.fixture(scope="session")
def reference_rollouts(repo_root, env_ids):
    """In-process reference trajectories (test_trajectories.py, test_discrete.py), keyed by rollout_key(item), from
    one node process: its start and the families' caches (ToolMaze-v1's canonical suite: seconds) are paid once."""
    from test_trajectories import inprocess_rollouts, reference_items, rollout_key

    items = reference_items(env_ids)
    return {rollout_key(it): ref for it, ref in zip(items, inprocess_rollouts(repo_root, items))}


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
