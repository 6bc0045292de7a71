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
