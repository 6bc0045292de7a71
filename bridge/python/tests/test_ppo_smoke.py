"""Smoke runs of examples/python/ppo_masked.py against the test server: a few PPO updates with a fixed seed on
Demo-v0's discrete mode must give finite losses and a training return that improves, and the script's command
line must write curve.csv, curve.svg and eval.json. Skips only when torch could not be installed
(scripts/ensure-torch.sh, run by scripts/test-python.sh); the full training runs stay out of CI (docs/TRAINING.md)."""
import importlib.util
import json
import math
import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="PyTorch not installed (scripts/ensure-torch.sh could not install it)")


@pytest.fixture(scope="module")
def ppo(repo_root):
    path = os.path.join(str(repo_root), "examples", "python", "ppo_masked.py")
    spec = importlib.util.spec_from_file_location("ppo_masked", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["ppo_masked"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_a_few_updates_learn_on_demo(ppo, address, tmp_path):
    cfg = ppo.Config(env="Demo-v0", minutes=5, seed=3, eval_seed=1_000_000, eval_episodes=8, out=str(tmp_path),
                     opts={"fault": "permanent"}, num_envs=16, num_steps=16, max_updates=16, lr=3e-3, quiet=True)
    rows, _ = ppo.train(cfg, address)
    assert len(rows) == 16
    for r in rows:
        for loss in (r.policy_loss, r.value_loss, r.entropy, r.approx_kl):
            assert math.isfinite(loss), r
    returns = [r.train_return for r in rows]
    first, last = sum(returns[:4]) / 4, sum(returns[-4:]) / 4
    assert last > first + 0.1, returns


def test_the_command_line_writes_curve_and_eval(ppo, address, tmp_path, repo_root):
    out = tmp_path / "run"
    code = ppo.main(["--env", "Demo-v0", "--minutes", "1", "--seed", "0", "--eval-seed", "500", "--eval-episodes", "5",
                     "--out", str(out), "--opt", "fault=transient", "--opt", "maxCandidates=8",
                     "--num-envs", "4", "--num-steps", "8",
                     "--max-updates", "2", "--eval-every", "1", "--endpoint", address, "--quiet"])
    assert code == 0
    header = (out / "curve.csv").read_text().splitlines()[0].split(",")
    assert header[:3] == ["update", "env_steps", "seconds"] and "eval_successRate" in header
    assert (out / "curve.svg").read_text().startswith("<svg")
    report = json.loads((out / "eval.json").read_text())
    assert list(report) == ["env", "options", "policy", "episodes", "seed", "metrics", "breakdown"]
    assert report["episodes"] == 5 and report["seed"] == 500 and report["policy"] == "ppo_masked"
    assert report["options"]["actionMode"] == "discrete" and report["options"]["fault"] == "transient"
    # K = 8 < G = 17 global features: the slot layout comes from the library, not from F mod K.
    assert report["options"]["maxCandidates"] == 8


def test_the_slot_layout_comes_from_the_library(ppo, tmp_path):
    cfg = ppo.Config(env="Demo-v0", minutes=1, seed=0, eval_seed=10, eval_episodes=1, out=str(tmp_path))
    reporter = ppo.Reporter()
    try:
        layout = reporter.request(op="layout")
        g, c = layout["globals"], layout["slot"]
        # K = 8 < G: F mod K would give the wrong split, the library's layout gives the right one.
        agent = ppo.make_agent(cfg, g + 8 * c, 8, reporter)
        assert (agent.g, agent.c, agent.k) == (g, c, 8)
    finally:
        reporter.close()
    # Without the helper the default K = 64 > G still splits exactly.
    agent = ppo.make_agent(cfg, g + 64 * c, 64)
    assert (agent.g, agent.c) == (g, c)


def test_toolmaze_defaults_are_the_reported_hyperparameters(ppo):
    base = ["--minutes", "1", "--seed", "1", "--eval-seed", "10", "--eval-episodes", "2", "--out", "x"]
    # The README's command (no hyperparameter flags) trains ToolMaze with the values docs/TRAINING.md reports ...
    cfg = ppo.parse_args(["--env", "ToolMaze-v0", *base])
    assert (cfg.lr, cfg.ent_coef, cfg.update_epochs) == (2e-3, 0.003, 2)
    # ... a flag still wins, in either spelling, and other envs keep the dataclass defaults.
    cfg = ppo.parse_args(["--env", "ToolMaze-v0", "--lr=1e-3", *base])
    assert (cfg.lr, cfg.ent_coef) == (1e-3, 0.003)
    cfg = ppo.parse_args(["--env", "Demo-v0", *base])
    assert (cfg.lr, cfg.ent_coef, cfg.update_epochs) == (ppo.Config.lr, ppo.Config.ent_coef, ppo.Config.update_epochs)


def test_opt_flags_parse_like_the_cli(ppo, capsys):
    base = ["--env", "Demo-v0", "--minutes", "1", "--seed", "1", "--eval-seed", "10", "--eval-episodes", "2", "--out", "x"]
    cfg = ppo.parse_args([*base, "--opt", "max_steps=20", "--opt", "fault=P3", "--eval-opt", "suite=canonical"])
    assert cfg.opts == {"max_steps": 20, "fault": "P3"}
    assert cfg.eval_opts == {"suite": "canonical"}
    with pytest.raises(SystemExit):
        ppo.parse_args([*base, "--eval-opt", "suite"])
    assert "--eval-opt needs KEY=VALUE (got 'suite')" in capsys.readouterr().err
