"""The action-masked discrete mode over the bridge: make options pass through, same seeds give the same trajectories
as in-process, and the Gymnasium adapter gives Dict(Box, MultiBinary) + Discrete(K) with action_masks()."""
import pytest

from test_trajectories import DISCRETE_IDS, _canon, bridge_rollout, discrete_items, rollout_key, traj_hash


def _plain(x):
    """Masks arrive as MessagePack binary; the in-process reference writes typed arrays as lists."""
    if isinstance(x, (bytes, bytearray)):
        return list(x)
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


def test_discrete_make_options_pass_through(client):
    env = client.make("Demo-v0", action_mode="discrete", max_candidates=8)
    assert env.action_space == {"type": "discrete", "n": 8, "start": 0}
    obs, info = env.reset(seed=1)
    assert set(obs) == {"observation", "action_mask"}
    assert len(obs["action_mask"]) == 8 and info["action_mask"] == obs["action_mask"]
    valid = [i for i, m in enumerate(obs["action_mask"]) if m]
    _, _, _, _, info = env.step(valid[-1])
    assert info["structured_action"]["type"] in ("tool_call", "answer", "abort")
    env.close()


def test_discrete_bridge_equals_inprocess(client, reference_rollouts):
    items = discrete_items()
    ref = [reference_rollouts[rollout_key(it)] for it in items]
    for it, want in zip(items, ref):
        got = _plain(bridge_rollout(client, it["env_id"], it["num_envs"], it["seed"], it["steps"], action_mode="discrete"))
        assert traj_hash(got) == traj_hash(_canon(want)), it["env_id"]
    other = _plain(bridge_rollout(client, DISCRETE_IDS[0], 3, 999, 25, action_mode="discrete"))
    assert traj_hash(other) != traj_hash(_canon(ref[0]))


def test_discrete_gymnasium_adapter(client):
    pytest.importorskip("gymnasium")
    import gymnasium
    import numpy as np
    from gymnasium import spaces
    from gymnasium.utils.env_checker import check_env
    from gymnasium.wrappers import FlattenObservation

    for env_id in DISCRETE_IDS[:2]:
        env = client.make(env_id, action_mode="discrete", max_candidates=32).to_gymnasium()
        assert isinstance(env.action_space, spaces.Discrete) and env.action_space.n == 32
        space = env.observation_space
        assert isinstance(space, spaces.Dict)
        assert isinstance(space["observation"], spaces.Box) and space["observation"].dtype == np.float32
        assert isinstance(space["action_mask"], spaces.MultiBinary) and space["action_mask"].n == 32
        check_env(env, skip_render_check=True)
        obs, info = env.reset(seed=4)
        assert space.contains(obs)
        masks = env.action_masks()
        assert masks.dtype == np.bool_ and masks.shape == (32,) and masks.any()
        assert (masks == obs["action_mask"].astype(bool)).all() and (info["action_mask"] == masks).all()
        dim = gymnasium.spaces.flatdim(space)
        assert dim == space["observation"].shape[0] + 32
        flat = FlattenObservation(env)
        fobs, _ = flat.reset(seed=4)
        assert fobs.shape == (dim,) and flat.observation_space.contains(fobs)
        action = np.int64(np.flatnonzero(env.action_masks())[-1])
        fobs, reward, terminated, truncated, info = flat.step(action)
        assert np.isfinite(reward) and "structured_action" in info
        env.close()


def test_discrete_gymnasium_vector_masks(client, endpoints):
    pytest.importorskip("gymnasium")
    import numpy as np

    import recovery_gym as rg

    for vec in (client.make_vec("ToolMaze-v0", 3, seed=1, action_mode="discrete").to_gymnasium(),
                rg.make_vec("ToolMaze-v0", 3, endpoints=endpoints, seed=1, action_mode="discrete").to_gymnasium()):
        obs, _ = vec.reset(seed=1)
        masks = vec.action_masks()
        assert masks.shape == (3, vec.single_action_space.n) and masks.dtype == np.bool_
        assert obs["observation"].shape == (3,) + vec.single_observation_space["observation"].shape
        actions = np.array([np.flatnonzero(m)[-1] for m in masks])
        _, rewards, terminated, truncated, _ = vec.step(actions)
        assert rewards.shape == (3,)
        vec.close()
