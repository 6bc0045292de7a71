"""The TRL adapter through TRL's own code: GRPOTrainer's environment probing, the chat template's tool rendering and
TRL's tool dispatch (see trl_probe.py, run in a subprocess with TRL on its path). TRL comes from
scripts/ensure-trl.sh (test-python.sh exports RG_TRL_PATH); the test skips only when TRL could not be installed."""
import json

import pytest


@pytest.fixture(scope="module")
def report(early):
    # trl_probe.py runs from the session's start (conftest.py's early: its imports take seconds of one core).
    probe = early.get("trl")
    if probe is None:
        pytest.skip("TRL not installed (scripts/ensure-trl.sh found no wheels for it), or no bridge server")
    code, out, err = probe.result(timeout=600)
    assert code == 0, err.decode()[-3000:]
    return {r["env_id"]: r for r in json.loads(out)}


def test_trainer_probes_typed_tools_for_a_fixed_tool_family(report):
    demo = report["Demo-v0"]
    assert not demo["generic"]
    assert demo["tools"] == ["abort", "answer", "celsius_to_fahrenheit", "list_sent_email", "send_email",
                             "weather_com_forecast", "yahoo_weather_forecast"]
    assert demo["reward_funcs"] == ["Demov0ToolEnv"]  # get_reward became TRL's reward source
    assert demo["rendered_has_tools"]
    assert demo["observation"].strip()  # the task text, appended by TRL to the user message
    schema_error, _, end = demo["replies"]
    assert "invalid_arguments" in schema_error and "city" in schema_error
    assert end == "The episode is over."
    assert isinstance(demo["reward"], float)


def test_trainer_probes_call_tool_for_a_family_whose_tools_change(report):
    maze = report["ToolMaze-v0"]
    assert maze["generic"] and maze["tools"] == ["abort", "answer", "call_tool"]
    assert maze["rendered_has_tools"]
    assert "Tools (call them with call_tool(name, arguments)):" in maze["observation"]
    broken, unknown, aborted, after = maze["replies"]
    assert "invalid_action" in broken and "unknown_tool" in unknown
    assert aborted == "The episode is over."
    assert after.startswith("The episode is over; no further calls")
    assert "trl_error" not in "".join(maze["replies"])
