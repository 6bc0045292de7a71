"""The TRL adapter through TRL's own code: GRPOTrainer's environment probing, the chat template's tool rendering and
TRL's tool dispatch (see trl_probe.py, run in a subprocess with TRL on its path). TRL comes from
scripts/ensure-trl.sh (test-python.sh exports RG_TRL_PATH); the test skips only when TRL could not be installed."""
import json
import os
import subprocess
import sys

import pytest


@pytest.fixture(scope="module")
def report(address, repo_root):
    trl_path = os.environ.get("RG_TRL_PATH")
    if not trl_path:
        pytest.skip("TRL not installed (scripts/ensure-trl.sh found no wheels for it)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([trl_path, str(repo_root / "bridge" / "python")]))
    res = subprocess.run([sys.executable, "bridge/python/tests/trl_probe.py", address], cwd=repo_root, env=env,
                         capture_output=True, timeout=600)
    assert res.returncode == 0, res.stderr.decode()[-3000:]
    return {r["env_id"]: r for r in json.loads(res.stdout)}


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
