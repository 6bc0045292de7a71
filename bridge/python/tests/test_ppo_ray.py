"""The PPO trainer's rollouts on Ray (examples/python/ppo_ray.py): one rollout actor reproduces the
single-process trainer exactly, and two actors learn on Demo-v0, the same way every time. Skips only without torch or Ray (installed into
.cache/ by scripts/ensure-torch.sh and scripts/ensure-ray.sh)."""
import dataclasses
import importlib.util
import math
import os
import sys
import time
import types

import pytest

torch = pytest.importorskip("torch", reason="PyTorch not installed (scripts/ensure-torch.sh could not install it)")
ray = pytest.importorskip("ray", reason="Ray not installed (scripts/ensure-ray.sh could not install it)")

COMPARED = ("update", "env_steps", "train_episodes", "train_return", "train_success", "policy_loss", "value_loss",
            "entropy", "approx_kl")


@pytest.fixture(scope="module")
def ppo(repo_root, ray_cluster):
    examples = os.path.join(str(repo_root), "examples", "python")
    sys.path.insert(0, examples)
    spec = importlib.util.spec_from_file_location("ppo_masked", os.path.join(examples, "ppo_masked.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules["ppo_masked"] = module  # dataclasses look their module up there; Ray actors import it by name
    spec.loader.exec_module(module)
    import ppo_ray

    # The session's cluster (conftest.py): init_ray finds it running and leaves it alone, as a trainer would.
    assert ray_cluster.is_initialized() and not ppo_ray.init_ray("local", module.__name__, 2)
    return module, ppo_ray


def _freeze_trainer_clock(module, monkeypatch):
    """The learning rate anneals with the wall-clock time spent, which no two runs share (a last-bit difference
    in one Adam step is enough to part them): the trainer's own clock stands still in these tests."""
    monkeypatch.setattr(module, "time", types.SimpleNamespace(monotonic=lambda: 0.0, time=time.time, sleep=time.sleep))


def _run(module, ppo_ray, cfg, address):
    if not cfg.ray:
        return module.train(cfg, address)
    rollouts = ppo_ray.RayRollouts(cfg, module.Collector)
    try:
        return module.train(cfg, address, collectors=rollouts)
    finally:
        rollouts.close()


def test_one_rollout_actor_reproduces_the_single_process_trainer(ppo, address, monkeypatch):
    module, ppo_ray = ppo
    _freeze_trainer_clock(module, monkeypatch)
    cfg = module.Config(env="Demo-v0", minutes=5, seed=5, eval_seed=1_000_000, eval_episodes=4, out="unused",
                        opts={"fault": "permanent"}, num_envs=8, num_steps=16, max_updates=4, lr=3e-3, quiet=True)
    local_rows, local_agent = _run(module, ppo_ray, cfg, address)
    # The Ray run shards its envs over both workers of the test server; the sharding rule keeps trajectories.
    remote_rows, remote_agent = _run(module, ppo_ray, dataclasses.replace(cfg, ray="local", endpoint=address), address)
    assert [[getattr(r, k) for k in COMPARED] for r in remote_rows] == [[getattr(r, k) for k in COMPARED] for r in local_rows]
    for (name, a), (_, b) in zip(local_agent.state_dict().items(), remote_agent.state_dict().items()):
        assert torch.equal(a, b), name
    assert any(r.train_episodes for r in local_rows)  # episodes ended, so seeds and resets were exercised


def test_two_rollout_actors_learn_on_demo(ppo, address, monkeypatch):
    module, ppo_ray = ppo
    _freeze_trainer_clock(module, monkeypatch)
    cfg = module.Config(env="Demo-v0", minutes=5, seed=3, eval_seed=1_000_000, eval_episodes=8, out="unused",
                        opts={"fault": "permanent"}, num_envs=16, num_steps=16, max_updates=16, lr=3e-3, quiet=True,
                        ray="local", rollout_workers=2, endpoint=address)
    rows, _ = _run(module, ppo_ray, cfg, address)
    assert len(rows) == 16
    for r in rows:
        for loss in (r.policy_loss, r.value_loss, r.entropy, r.approx_kl):
            assert math.isfinite(loss), r
    returns = [r.train_return for r in rows]
    first, last = sum(returns[:4]) / 4, sum(returns[-4:]) / 4
    assert last > first + 0.5, returns  # this run: about 0.06 -> 1.15
    # Same seed, same K: the same run again (each worker's seeds and sampling streams are its own and fixed). With the
    # clock frozen nothing depends on max_updates, so a shorter rerun must give the first rows exactly; episodes end
    # within its 4 updates (checked), so resets and reseeding are compared too.
    again, _ = _run(module, ppo_ray, dataclasses.replace(cfg, max_updates=4), address)
    assert [[getattr(r, k) for k in COMPARED] for r in again] == [[getattr(r, k) for k in COMPARED] for r in rows[:4]]
    assert sum(r.train_episodes for r in again) >= cfg.num_envs
