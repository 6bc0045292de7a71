"""Column deltas (``obs_encoding="columns"``, protocol minor 5): the decoding rules, and that a column session's
observations, rewards, flags and sampled actions equal a per-env delta session's for the same seeds."""
import struct

import pytest

from recovery_gym.columns import apply_columns, decode_actions, unpack_floats
from recovery_gym.errors import ProtocolError


def test_apply_columns_rules():
    prev = [{"a": 1, "b": {"x": 1, "y": 2}, "gone": 0}, {"a": 1, "b": {"x": 1, "y": 2}}, 5]
    wire = {
        "f": [[2], [{"a": 9, "newTools": [{"name": "t1", "p": 1}]}]],
        "s": {"a": [[0, 1], [2, 3]], "newTools": [[1], [["t1"]]]},
        "p": {"b": [[0], [{"y": 7}]]},
        "d": {"gone": [0]},
    }
    known = {}
    got = apply_columns(prev, wire, known)
    assert got[0] == {"a": 2, "b": {"x": 1, "y": 7}}
    assert got[1] == {"a": 3, "b": {"x": 1, "y": 2}, "newTools": [{"name": "t1", "p": 1}]}
    # whole observations are expanded first: env 2's schema is known by the time env 1's reference is read
    assert got[2] == {"a": 9, "newTools": [{"name": "t1", "p": 1}]}
    assert prev[0] == {"a": 1, "b": {"x": 1, "y": 2}, "gone": 0}  # the previous observations stay as they were
    # a column without an env list covers every env in order
    assert apply_columns([{"k": 0}, {"k": 0}], {"s": {"k": [None, [1, 2]]}}, None) == [{"k": 1}, {"k": 2}]


def test_apply_columns_whole_observation_expands_refs_in_server_order():
    known = {}
    wire = {"f": [None, [{"newTools": [{"name": "t", "v": 1}]}, {"newTools": ["t"]}]]}
    got = apply_columns([None, None], wire, known)
    assert got[1]["newTools"] == [{"name": "t", "v": 1}]


def test_decode_actions_and_scalars():
    names = []
    first = decode_actions({"names": ["f", "g"], "tool": [1, -1, 0], "args": [{}, "answer", {"x": 1}]}, names)
    assert first == [{"type": "tool_call", "name": "g", "arguments": {}}, "answer",
                     {"type": "tool_call", "name": "f", "arguments": {"x": 1}}]
    assert list(first[0]) == ["type", "name", "arguments"]
    assert decode_actions({"tool": [0], "args": [{}]}, names)[0]["name"] == "f"
    with pytest.raises(ProtocolError, match="index 5"):
        decode_actions({"tool": [5], "args": [{}]}, names)
    floats = unpack_floats(struct.pack("<3d", 0.5, -1.0, 0.0))
    assert floats == [0.5, -1.0, 0.0] and all(isinstance(x, float) for x in floats)


def _run(client, env_id, enc, steps=40):
    vec = client.make_vec(env_id, 4, seed=21, obs_encoding=enc)
    try:
        obs, _ = vec.reset()
        traj = [obs]
        for _ in range(steps):
            traj.append(vec.step_random())
        return vec._encoding, traj
    finally:
        vec.close()


def test_columns_session_equals_delta_session(client, env_ids):
    if client.server_info.get("minor", 0) < 5:
        pytest.skip("needs protocol minor 5")
    default = client.make_vec("Demo-v0", 2)
    default.close()
    assert default._encoding == "columns"  # the default on minor 5
    for env_id in [e for e in ("ToolMaze-v0", "Demo-v0", "FailingTools-v0") if e in env_ids]:
        enc, cols = _run(client, env_id, "columns")
        assert enc == "columns"
        _, delta = _run(client, env_id, "delta")
        assert cols == delta, env_id
        for step in cols[1:]:
            assert all(isinstance(r, float) for r in step[1])
            assert all(isinstance(t, bool) for t in step[2] + step[3])


def test_columns_session_with_numpy_scalars(client):
    if client.server_info.get("minor", 0) < 5:
        pytest.skip("needs protocol minor 5")
    import numpy as np

    cols = client.make_vec("Demo-v0", 3, seed=5, obs_encoding="columns", use_numpy=True)
    delta = client.make_vec("Demo-v0", 3, seed=5, obs_encoding="delta", use_numpy=True)
    try:
        assert cols._encoding == "columns"
        assert cols.reset()[0] == delta.reset()[0]
        for _ in range(20):
            o1, r1, te1, tr1, _, a1 = cols.step_random()
            o2, r2, te2, tr2, _, a2 = delta.step_random()
            assert o1 == o2 and a1 == a2
            assert r1.dtype == np.float64 and te1.dtype == np.bool_ and tr1.dtype == np.bool_
            assert r1.tolist() == r2.tolist() and te1.tolist() == te2.tolist() and tr1.tolist() == tr2.tolist()
    finally:
        cols.close()
        delta.close()
