"""Counterfactual replay from Python: branch an episode with get_state / set_state."""
import pytest


def test_branches_continue_identically(client):
    env = client.make("ToolMaze-v0")
    other = client.make("ToolMaze-v0")
    obs, info = env.reset(seed=11)
    other.reset(seed=999)
    tool = obs["visibleTools"][0]
    env.step({"type": "tool_call", "name": tool, "arguments": {}})
    snapshot = env.get_state()
    assert snapshot["kind"] == "recovery-gym/tool-env-state"
    restored_obs = other.set_state(snapshot)
    assert restored_obs["step"] == 1
    assert {t["name"] for t in restored_obs["newTools"]} == set(restored_obs["visibleTools"])
    action = {"type": "answer", "content": "done"}
    a = env.step(action)
    b = other.step(action)
    assert a[1] == b[1] and a[2] == b[2] and a[3] == b[3]
    assert a[4]["events"] == b[4]["events"]
    assert a[0]["response"] == b[0]["response"]
    env.close()
    other.close()


def test_foreign_snapshot_is_a_clear_error(client):
    from recovery_gym import errors

    a = client.make("Demo-v0", fault="none")
    b = client.make("Demo-v0", fault="permanent")
    a.reset(seed=1)
    b.reset(seed=1)
    with pytest.raises(errors.EnvError) as exc:
        b.set_state(a.get_state())
    assert exc.value.details.get("libraryCode") == "STATE_ERROR"
