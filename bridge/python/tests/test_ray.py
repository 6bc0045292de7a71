"""recovery_gym.ray on a local Ray cluster (the session's, conftest.py: Ray takes seconds to start): server actors
live and die with their actors, and trajectories do not depend on how envs are spread over servers and rollout workers.
Skips only when Ray is not importable (scripts/ensure-ray.sh installs it into .cache/)."""
import os
import pickle
import time

import pytest

ray = pytest.importorskip("ray", reason="Ray not installed (scripts/ensure-ray.sh puts it in .cache/python-ray)")

import recovery_gym as rg  # noqa: E402
from recovery_gym import ray as rgray  # noqa: E402
from recovery_gym.ray.server import _gone  # noqa: E402
from test_trajectories import _collect, traj_hash  # noqa: E402

@pytest.fixture(scope="module")
def cluster(ray_cluster):
    return ray_cluster


def _pids(info):
    return [info["pid"], *info["worker_pids"]]


def _wait_gone(pids, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = [p for p in pids if not _gone(p)]
        if not left:
            return []
        time.sleep(0.1)
    return left


def test_plan_layout_follows_the_sharding_rule():
    # 7 envs on 2 endpoints: [0..3] and [4..6]; 3 workers: [0..2], [3..4], [5..6]
    assert rgray.plan_layout(7, 2, 3) == [
        {"env_offset": 0, "num_envs": 3, "parts": [(0, 3)]},
        {"env_offset": 3, "num_envs": 2, "parts": [(0, 1), (1, 1)]},
        {"env_offset": 5, "num_envs": 2, "parts": [(1, 2)]},
    ]
    assert rgray.plan_layout(2, 4, 1) == [{"env_offset": 0, "num_envs": 2, "parts": [(0, 1), (1, 1)]}]
    with pytest.raises(ValueError, match="num_workers"):
        rgray.plan_layout(4, 1, 0)
    with pytest.raises(ValueError, match="num_workers: 5 rollout workers need at least as many envs"):
        rgray.plan_layout(4, 1, 5)


def test_start_servers_checks_its_arguments():
    with pytest.raises(ValueError, match="per: expected 'node' or 'bundle'"):
        rgray.start_servers(per="gpu")
    with pytest.raises(ValueError, match="bundle_cpus: expected a positive integer, got 0"):
        rgray.start_servers(per="bundle", bundle_cpus=0)


def test_a_curve_server_admits_only_clients_with_its_key():
    # What start_servers gives every server of a multi-node cluster, here on loopback and without an actor.
    import zmq

    public, secret = zmq.curve_keypair()
    server = rgray.BridgeServer(1, curve_keys=(public.decode(), secret.decode()), serve_args=["--quiet"])
    try:
        info = server.info()
        assert not os.path.exists(os.path.join(os.path.dirname(info["log"]), "keys.json"))  # read once, then removed
        with rg.Client(info["endpoints"][0], timeout=30, server_public_key=public) as c:
            assert c.ping()
        with pytest.raises(rg.BridgeTimeout):
            rg.Client(info["endpoints"][0], timeout=2)
    finally:
        assert server.stop() == 0  # SIGTERM drains and exits 0


def test_server_actor_dies_with_its_servers(cluster):
    group = rgray.start_servers(per="bundle", count=2)
    try:
        assert len(group.actors) == 2 and len(group.endpoints) == 2
        for ep in group.endpoints:
            with rg.Client(ep, timeout=30) as c:
                assert c.ping()
        first = _pids(group.infos[0])
        assert all(not _gone(p) for p in first)
        ray.kill(group.actors[0])
        assert _wait_gone(first) == [], "killing the actor left its server running"
        with pytest.raises(rg.BridgeTimeout):  # what its clients see (docs/SCALING.md)
            rg.Client(group.endpoints[0], timeout=2)
        with rg.Client(group.endpoints[1], timeout=30) as c:  # the other server is untouched
            assert c.ping()
    finally:
        group.shutdown()
    assert _wait_gone(_pids(group.infos[1])) == []


def test_same_trajectories_over_servers_and_rollout_workers(cluster):
    env_id, n, seed, steps = "Demo-v0", 7, 21, 25
    group = rgray.start_servers(per="node", workers=2)
    try:
        assert len(group.endpoints) == 2
        with rg.make_vec(env_id, n, endpoints=group.endpoints[:1], seed=seed) as one:  # one server process
            ref = _collect(one, steps)
        with rgray.make_vec(env_id, n, group, seed=seed) as spread:
            assert traj_hash(_collect(spread, steps)) == traj_hash(ref)
        for k in (1, 2, 3):
            workers = rgray.make_rollout_workers(group, env_id, n, k, num_cpus=0.5, seed=seed)
            try:
                ray.get([w.reset.remote() for w in workers])
                parts = ray.get([w.rollout.remote(steps) for w in workers])
                offsets = [d["env_offset"] for d in ray.get([w.describe.remote() for w in workers])]
            finally:
                for w in workers:
                    ray.kill(w)
            # concatenated per step, the workers' slices are the single env's batch
            for key, want in (("actions", ref["a"]), ("rewards", [r[0] for r in ref["r"]])):
                got = [[x for p in parts for x in p[key][t]] for t in range(steps)]
                assert got == want, (k, key)
            assert offsets == [p["env_offset"] for p in rgray.plan_layout(n, 2, k)]
    finally:
        group.shutdown()


def test_clients_and_envs_refuse_to_travel(cluster):
    group = rgray.start_servers(per="node", workers=1)
    try:
        with rg.Client(group.endpoints[0], timeout=30) as c:
            with pytest.raises(TypeError, match="inside the Ray actor or task"):
                pickle.dumps(c)

            @ray.remote
            def uses(client):
                return client.ping()

            with pytest.raises(Exception, match="create the Client inside the Ray actor or task"):
                ray.get(uses.remote(c))
            vec = c.make_vec("Demo-v0", 2)
            with pytest.raises(TypeError, match="RemoteVectorEnv cannot be pickled"):
                pickle.dumps(vec)
            vec.close()
    finally:
        group.shutdown()


def test_ray_shutdown_takes_servers_down(cluster):
    # Last in the module: it ends the shared cluster.
    group = rgray.start_servers(per="node", workers=2)
    pids = [p for i in group.infos for p in _pids(i)]
    assert all(not _gone(p) for p in pids)
    ray.shutdown()
    assert _wait_gone(pids) == [], "ray.shutdown() left a server running"
