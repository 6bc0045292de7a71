"""Conventions a Gymnasium user expects: seed checks, snake_case options, render(), single-env wording,
reproducible action_space.seed(), gymnasium.make registration, and a typed package."""
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import recovery_gym as rg
from recovery_gym import EnvError, SeedError, ValidationError

PACKAGE = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("bad, shown", [(1.5, "1.5 (float)"), ("42", "'42' (str)"), (-1, "-1 (int)"), (True, "True (bool)"),
                                        (2**60, "(int)"), ([1], "[1] (list)")])
def test_single_env_seed_errors_say_what_a_seed_must_be(client, bad, shown):
    env = client.make("Demo-v0")
    with pytest.raises(SeedError) as err:
        env.reset(seed=bad)
    assert isinstance(err.value, TypeError) and isinstance(err.value, ValidationError)
    assert "reset(): invalid seed: must be a non-negative integer" in str(err.value) and shown in str(err.value)
    assert "list" not in str(err.value).split("got")[0]  # a single env's seed is never a list
    assert err.value.details["field"] == "seed"
    with pytest.raises(SeedError, match="make\\(\\): invalid seed"):
        client.make("Demo-v0", seed=bad)
    env.close()


def test_vector_env_seed_errors_name_the_entry(client, endpoints):
    vec = client.make_vec("Demo-v0", 2)
    with pytest.raises(SeedError, match="invalid seed\\[1\\]: must be a non-negative integer.*2.5 \\(float\\)"):
        vec.reset(seed=[1, 2.5])
    with pytest.raises(SeedError, match="must be a non-negative integer.*'42' \\(str\\)"):
        vec.reset(seed="42")
    with pytest.raises(SeedError, match="one seed per env \\(2\\), got 3"):
        vec.reset(seed=[1, 2, 3])
    vec.reset(seed=[4, None])
    vec.close()
    with rg.make_vec("Demo-v0", 2, endpoints=endpoints) as sharded:
        with pytest.raises(SeedError, match="'7' \\(str\\)"):
            sharded.reset(seed="7")


def test_snake_case_option_names(client):
    snake = client.make("Demo-v0", max_steps=2, invalid_action="penalize")
    camel = client.make("Demo-v0", maxSteps=2, invalidAction="penalize")
    assert snake.spec["entryOptions"]["maxSteps"] == 2 == camel.spec["entryOptions"]["maxSteps"]
    assert snake.spec["entryOptions"]["invalidAction"] == "penalize"
    snake.reset(seed=1)
    truncated = False
    for _ in range(2):
        _, _, terminated, truncated, _ = snake.step({"type": "tool_call", "name": "list_sent_email", "arguments": {}})
    assert truncated and not terminated
    with pytest.raises(ValidationError, match="'max_steps' and 'maxSteps' name the same option"):
        client.make("Demo-v0", max_steps=2, maxSteps=3)
    with pytest.raises(ValidationError, match="maxStep"):
        client.make("Demo-v0", max_step=2)  # a misspelt option is still refused, in the library's spelling
    snake.close()
    camel.close()


def test_render_shows_the_episode(client):
    env = client.make("Demo-v0")
    assert "call reset()" in env.render()
    obs, info = env.reset(seed=3)
    env.step({"type": "tool_call", "name": "list_sent_email", "arguments": {}})
    text = env.render()
    assert text.startswith(f"== Demo-v0 · task {info['taskId']} ==") and f"Task: {obs['task']}" in text
    assert "[1] call list_sent_email({})" in text and text.endswith("(in progress)")
    env.step({"type": "abort", "reason": "done"})
    assert "[2] abort: done" in env.render() and env.render().endswith("(episode over)")
    env.close()


def test_single_env_errors_speak_of_one_env(client):
    env = client.make("Demo-v0")
    with pytest.raises(EnvError, match="before reset") as err:
        env.step({"type": "abort"})
    assert "vector" not in str(err.value)
    env.reset(seed=0)
    env.step({"type": "abort"})
    with pytest.raises(EnvError) as err:
        env.step({"type": "abort"})
    assert str(err.value) == "ENV_ERROR: step() called after the episode ended; call reset() first"  # not "vector env"
    assert err.value.details["libraryCode"] == "RESET_NEEDED"
    env.close()


def test_gymnasium_action_space_seed_makes_samples_reproducible(client, endpoints):
    pytest.importorskip("gymnasium")
    env = client.make("ToolMaze-v0").to_gymnasium()
    env.reset(seed=0)
    assert env.action_space.seed(3) == [3]
    first = [env.action_space.sample() for _ in range(5)]
    env.action_space.seed(3)
    assert [env.action_space.sample() for _ in range(5)] == first
    env.action_space.seed(4)
    assert [env.action_space.sample() for _ in range(5)] != first
    with pytest.raises(SeedError):
        env.action_space.seed(-2)
    env.close()
    for vec in (client.make_vec("ToolMaze-v0", 3).to_gymnasium(), rg.make_vec("ToolMaze-v0", 3, endpoints=endpoints).to_gymnasium()):
        vec.reset(seed=0)
        vec.action_space.seed(8)
        batch = vec.action_space.sample()
        vec.action_space.seed(8)
        assert vec.action_space.sample() == batch
        vec.close()


def test_gymnasium_make_finds_every_env(address, env_ids):
    gymnasium = pytest.importorskip("gymnasium")
    import recovery_gym.gym as rg_gym

    assert sorted(rg_gym.ENV_IDS) == sorted(env_ids)  # the static list matches what a stock server serves
    for env_id in env_ids:
        assert f"RecoveryGym/{env_id}" in gymnasium.registry
    env = gymnasium.make("RecoveryGym/ToolMaze-v0", endpoint=address, max_steps=5, render_mode="ansi")
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    env.action_space.seed(0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    assert isinstance(reward, float) and "[1]" in env.render()
    client = env.unwrapped.remote._vec.client
    env.close()
    assert client._closed  # the connection the env opened closes with it


def test_package_ships_py_typed(tmp_path):
    assert (PACKAGE / "recovery_gym" / "py.typed").is_file()
    if shutil.which("pip") is None and subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode:
        pytest.skip("pip is not available to build a wheel")
    # Built from a copy: setuptools writes build/ and *.egg-info next to the sources it builds.
    source = tmp_path / "src"
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("tests", "__pycache__", "build", "*.egg-info"))
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path),
                            str(source)], capture_output=True, text=True, timeout=300)
    if build.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {build.stderr.strip()[-200:]}")
    wheel = next(tmp_path.glob("*.whl"))
    assert "recovery_gym/py.typed" in zipfile.ZipFile(wheel).namelist()


def test_no_server_at_the_endpoint_says_so():
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(rg.BridgeTimeout, match=f"is a bridge server running at tcp://127.0.0.1:{port}\\? Start one with `npm start`"):
        rg.Client(f"tcp://127.0.0.1:{port}", timeout=0.3)
