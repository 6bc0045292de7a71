"""``pipeline=k``: one vector env as k sessions stepped back to back on one connection gives the same trajectories
as one session (server-sampled actions, explicit actions, autoreset), and bad values are refused by name."""
import pytest

import recovery_gym as rg
from test_trajectories import _collect, traj_hash


# Demo-v0 is cheap: it takes both splits; ToolMaze-v0 (the costly resets) one.
@pytest.mark.parametrize("env_id,splits", [("Demo-v0", (2, 3)), ("ToolMaze-v0", (2,))])
def test_pipelined_equals_one_session(client, env_id, splits):
    n, seed, steps = 5, 3, 16
    with client.make_vec(env_id, n, seed=seed) as single:
        ref = _collect(single, steps)
    for k in splits:
        with client.make_vec(env_id, n, seed=seed, pipeline=k) as piped:
            assert isinstance(piped, rg.ShardedVectorEnv) and len(piped.shards) == k
            assert traj_hash(_collect(piped, steps)) == traj_hash(ref), k
        with client.make_vec(env_id, n, seed=seed, pipeline=k) as piped:
            assert traj_hash(_collect(piped, steps, ref["a"])) == traj_hash(ref), k
    # and the comparison can fail: another seed differs
    with client.make_vec(env_id, n, seed=seed + 1, pipeline=2) as other:
        assert traj_hash(_collect(other, steps)) != traj_hash(ref)


def test_pipelined_make_vec_over_endpoints(address):
    with rg.make_vec("Demo-v0", 4, endpoints=[address], seed=5) as single:
        ref = _collect(single, 12)
    with rg.make_vec("Demo-v0", 4, endpoints=[address], seed=5, pipeline=2) as piped:
        assert len(piped.shards) == 2 and piped.shards[0].client is piped.shards[1].client
        assert traj_hash(_collect(piped, 12)) == traj_hash(ref)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_pipeline_must_be_a_positive_int(client, bad):
    with pytest.raises(ValueError, match="pipeline"):
        client.make_vec("Demo-v0", 2, pipeline=bad)


def test_pipeline_refuses_record(client):
    with pytest.raises(ValueError, match="pipeline"):
        client.make_vec("Demo-v0", 2, pipeline=2, record=True)
