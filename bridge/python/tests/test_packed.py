"""Packed observations (``obs_encoding="packed"``/``"auto"``, protocol minor 4): decoding and negotiation."""
import struct

import pytest

np = pytest.importorskip("numpy")

from recovery_gym.packed import unpack_observations  # noqa: E402
from recovery_gym.errors import BridgeError  # noqa: E402


def test_unpack_gives_one_array_per_key_with_gymnasium_dtypes():
    layout = [
        {"key": "observation", "space": "box", "dtype": "float32", "shape": [3]},
        {"key": "action_mask", "space": "multi_binary", "dtype": "uint8", "shape": [2]},
        {"key": "phase", "space": "discrete", "dtype": "int32", "shape": []},
    ]
    feats = [-0.0, 1 / 3, 2.5e30, 7.0, -1.0, 0.125]
    packed = {
        "observation": struct.pack("<6f", *feats),
        "action_mask": bytes([1, 0, 0, 1]),
        "phase": struct.pack("<2i", 3, 0),
    }
    out = unpack_observations(layout, packed, 2)
    assert out["observation"].shape == (2, 3) and out["observation"].dtype == np.float32
    assert out["observation"].tobytes() == packed["observation"]  # bit for bit, -0.0 included
    assert np.signbit(out["observation"][0, 0])
    assert out["action_mask"].dtype == np.int8 and out["action_mask"].tolist() == [[1, 0], [0, 1]]
    assert out["phase"].dtype == np.int64 and out["phase"].tolist() == [3, 0]
    out["observation"][0, 0] = 1.0  # writable: training code may normalise in place


def test_numpy_mode_keeps_non_numeric_spaces_as_lists(client, env_ids):
    env_id = "Demo-v0" if "Demo-v0" in env_ids else env_ids[0]
    env = client.make_vec(env_id, 2, seed=1, use_numpy=True, info_keys=[])
    try:
        obs, _ = env.reset()
        assert isinstance(obs, list) and len(obs) == 2
        _, rewards, terminated, _, _, _ = env.step_random()
        assert rewards.dtype == np.float64 and terminated.dtype == np.bool_
    finally:
        env.close()


def test_explicit_packed_refused_for_a_json_observation_space(client, env_ids):
    if client.server_info.get("minor", 0) < 4:
        pytest.skip("server older than protocol minor 4")
    env_id = "Demo-v0" if "Demo-v0" in env_ids else env_ids[0]
    with pytest.raises(BridgeError) as e:
        client.make_vec(env_id, 2, use_numpy=True, obs_encoding="packed")
    assert "obs_encoding" in str(e.value)
    with pytest.raises(ValueError, match="use_numpy=True"):
        client.make_vec(env_id, 2, obs_encoding="packed")


def test_packed_batches_equal_the_per_env_observations(client, env_ids):
    """The discrete action mode's Dict(Box, MultiBinary) observations: the numpy client's packed arrays hold exactly
    what the per-env (delta) session sends for the same seeds, step after step."""
    if client.server_info.get("minor", 0) < 4 or "ToolMaze-v0" not in env_ids:
        pytest.skip("needs protocol minor 4 and ToolMaze-v0")
    from recovery_gym.errors import ValidationError

    try:
        packed = client.make_vec("ToolMaze-v0", 3, seed=4, use_numpy=True, info_keys=[], action_mode="discrete")
    except ValidationError:
        pytest.skip("this server has no discrete action mode")
    plain = client.make_vec("ToolMaze-v0", 3, seed=4, info_keys=[], action_mode="discrete")
    try:
        per_env = "columns" if client.server_info.get("minor", 0) >= 5 else "delta"
        assert packed._encoding == "packed" and plain._encoding == per_env
        obs_p, _ = packed.reset()
        obs_l, _ = plain.reset()
        for t in range(12):
            for i in range(3):
                feats = obs_l[i]["observation"]
                feats = np.frombuffer(bytes(feats), "<f4") if isinstance(feats, (bytes, bytearray)) else np.asarray(feats, np.float32)
                assert obs_p["observation"][i].tobytes() == feats.tobytes(), (t, i)
                assert obs_p["action_mask"][i].tolist() == list(obs_l[i]["action_mask"]), (t, i)
            obs_p, rew_p, term_p, trunc_p, _, act_p = packed.step_random()
            obs_l, rew_l, term_l, trunc_l, _, act_l = plain.step_random()
            assert act_p == act_l
            assert rew_p.tolist() == rew_l and term_p.tolist() == term_l and trunc_p.tolist() == trunc_l
        # set_state answers one full observation; the packed arrays take it as env 1's row (fresh arrays).
        state = packed.get_state(1)
        held = obs_p
        packed.step_random()
        restored = packed.set_state(state, 1)
        rows = packed.observations
        assert rows["observation"][1].tolist() == np.asarray(restored["observation"], np.float32).tolist()
        assert rows["action_mask"][1].tolist() == list(restored["action_mask"])
        assert rows["observation"][1].tobytes() == held["observation"][1].tobytes()  # the state of that step
    finally:
        packed.close()
        plain.close()


def test_sharded_packed_env_joins_shards_per_key(client, env_ids, endpoints):
    """Sharded over every worker, a packed vector env returns one array per key in env order, equal to the unsharded
    packed session with the same seeds."""
    if client.server_info.get("minor", 0) < 4 or "ToolMaze-v0" not in env_ids or len(endpoints) < 2:
        pytest.skip("needs protocol minor 4, ToolMaze-v0 and two workers")
    from recovery_gym import make_vec
    from recovery_gym.errors import ValidationError

    try:
        whole = client.make_vec("ToolMaze-v0", 5, seed=8, use_numpy=True, info_keys=[], action_mode="discrete")
    except ValidationError:
        pytest.skip("this server has no discrete action mode")
    sharded = make_vec("ToolMaze-v0", 5, endpoints=endpoints, seed=8, use_numpy=True, info_keys=[], action_mode="discrete")
    try:
        a, _ = whole.reset()
        b, _ = sharded.reset()
        for t in range(6):
            assert set(a) == set(b) == {"observation", "action_mask"}
            for k in a:
                assert a[k].shape == b[k].shape and a[k].tobytes() == b[k].tobytes(), (t, k)
            # The last valid slot of each env's mask: explicit actions, the same for both.
            actions = [int(np.flatnonzero(m)[-1]) for m in a["action_mask"]]
            a, ra, ta, _, _ = whole.step(actions)
            b, rb, tb, _, _ = sharded.step(actions)
            assert ra.tolist() == rb.tolist() and ta.tolist() == tb.tolist()
    finally:
        whole.close()
        sharded.close()


def test_gymnasium_vector_over_a_packed_session(client, env_ids):
    """to_gymnasium() over a packed (numpy) session: batched observations in the vector observation space, and
    action_masks() from the packed mask array."""
    pytest.importorskip("gymnasium")
    if client.server_info.get("minor", 0) < 4 or "ToolMaze-v0" not in env_ids:
        pytest.skip("needs protocol minor 4 and ToolMaze-v0")
    from recovery_gym.errors import ValidationError

    try:
        remote = client.make_vec("ToolMaze-v0", 4, seed=2, use_numpy=True, info_keys=[], action_mode="discrete")
    except ValidationError:
        pytest.skip("this server has no discrete action mode")
    vec = remote.to_gymnasium()
    try:
        obs, _ = vec.reset()
        assert remote._encoding == "packed"
        assert vec.observation_space.contains(obs)
        masks = vec.action_masks()
        assert masks.shape == obs["action_mask"].shape and masks.dtype == np.bool_
        actions = np.array([int(np.flatnonzero(m)[0]) for m in masks])
        obs, rewards, terminated, truncated, _ = vec.step(actions)
        assert vec.observation_space.contains(obs) and rewards.dtype == np.float64 and terminated.shape == (4,)
    finally:
        vec.close()
