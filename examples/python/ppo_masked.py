#!/usr/bin/env python3
"""PPO with action masking on a Recovery Gym env in discrete mode, CleanRL style: PyTorch, a vector env
over the bridge. Run it through npm, which first makes torch and gymnasium importable from .cache/:

    npm run train -- --env ToolMaze-v0 --minutes 15 --seed 1 --eval-seed 100000 --eval-episodes 200 --out runs/tm

It starts its own `recovery-gym serve` on free loopback ports (or uses --endpoint), trains on `suite=sampled` tasks
whose reset seeds are drawn below --eval-seed, evaluates the greedy policy every --eval-every updates on the
held-out seeds E .. E+N-1, and writes DIR/curve.csv, DIR/curve.svg and DIR/eval.json (the shape of
`recovery-gym eval --json`, with the family's metrics computed by the family's own aggregate, see
scripts/train-report.ts). Other flags are PPO hyperparameters (`--help`); `--opt key=value` are env options.
This file is the entry point and the training loop; the parts it puts together are in examples/python/ppo/.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "bridge", "python"))
if HERE not in sys.path:  # the ppo package next to this file, also when this file is loaded by path (the tests)
    sys.path.insert(0, HERE)

import recovery_gym as rg  # noqa: E402
from ppo.agent import Agent, make_agent  # noqa: E402
from ppo.config import ENV_DEFAULTS, LOGGED_METRICS, Config, env_options  # noqa: E402
from ppo.curve import Row, log, write_curve  # noqa: E402
from ppo.evaluate import eval_metrics, evaluate  # noqa: E402
from ppo.processes import Reporter, Server  # noqa: E402
from ppo.rollout import Collector, LocalCollectors  # noqa: E402
from ppo.update import ppo_update  # noqa: E402


def parse_args(argv: List[str]) -> Config:
    p = argparse.ArgumentParser(prog="npm run train --", description=__doc__.split("\n\n")[0])
    p.add_argument("--env", required=True)
    p.add_argument("--minutes", type=float, required=True, help="wall-clock training budget")
    p.add_argument("--seed", type=int, required=True, help="seeds torch, the training task seeds and the env streams")
    p.add_argument("--eval-seed", type=int, required=True, help="first held-out seed E; training seeds are below E")
    p.add_argument("--eval-episodes", type=int, required=True, help="held-out seeds E .. E+N-1")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE", help="env option (repeatable)")
    p.add_argument("--eval-opt", action="append", default=[], metavar="KEY=VALUE",
                   help="env option of the held-out evaluation only, over --opt (repeatable)")
    for f in Config.__dataclass_fields__.values():
        if f.name in ("env", "minutes", "seed", "eval_seed", "eval_episodes", "out", "opts", "eval_opts", "endpoint", "quiet",
                      "max_updates"):
            continue
        if f.name == "ray":  # declared below (its default is None)
            continue
        choices = ["slots", "flat"] if f.name == "arch" else None
        p.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default, choices=choices)
    p.add_argument("--max-updates", type=int, default=None, help="stop after this many updates (smoke runs)")
    p.add_argument("--endpoint", default=None, help="use this running server instead of starting one")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--ray", default=None, metavar="ADDRESS|local",
                   help="gather rollouts with --rollout-workers Ray actors (examples/python/ppo_ray.py)")
    a = p.parse_args(argv)
    def pairs(flag: str, items: List[str]) -> Dict[str, Any]:
        try:
            return rg.parse_option_pairs(items, flag)
        except ValueError as err:
            p.error(str(err))

    if a.eval_seed < 1:
        p.error("--eval-seed must be >= 1: training seeds are drawn from [0, E)")
    if a.eval_episodes < 1 or a.minutes <= 0 or a.num_envs < 1 or a.num_steps < 1:
        p.error("--eval-episodes, --minutes, --num-envs and --num-steps must be positive")
    if (a.num_envs * a.num_steps) % a.num_minibatches != 0:
        p.error("--num-envs x --num-steps must be divisible by --num-minibatches")
    values = {k: v for k, v in vars(a).items() if k not in ("opt", "eval_opt")}
    given = {t.split("=", 1)[0] for t in argv if t.startswith("--")}
    for prefix, defaults in ENV_DEFAULTS.items():
        if a.env.startswith(prefix):
            for k, v in defaults.items():
                if "--" + k.replace("_", "-") not in given:
                    values[k] = v
    return Config(opts=pairs("--opt", a.opt), eval_opts=pairs("--eval-opt", a.eval_opt), **values)


def train(cfg: Config, endpoint: str, reporter: Optional[Reporter] = None, collectors: Any = None,
          client_kwargs: Optional[Dict[str, Any]] = None) -> Tuple[List[Row], Agent]:
    """PPO for the time budget (or `max_updates`). Rollouts come from `collectors` (default: this process, on
    `endpoint`; `--ray`: Ray actors, see ppo_ray.py); learning and evaluation (on `endpoint`) happen here."""
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    budget = cfg.minutes * 60.0
    t0 = time.monotonic()
    rows: List[Row] = []
    with rg.Client(endpoint, timeout=120, **(client_kwargs or {})) as client:
        pool = collectors if collectors is not None else LocalCollectors(cfg, [endpoint], client_kwargs)
        try:
            n_features, n_actions = pool.start()
            agent = make_agent(cfg, n_features, n_actions, reporter)
            optimizer = torch.optim.Adam(agent.parameters(), lr=cfg.lr, eps=1e-5)
            env_steps, update = 0, 0
            while True:
                elapsed = time.monotonic() - t0
                if elapsed >= budget or (cfg.max_updates is not None and update >= cfg.max_updates):
                    break
                update += 1
                # Time is the budget, so the learning rate anneals with the time spent rather than the update count.
                for g in optimizer.param_groups:
                    g["lr"] = cfg.lr * max(0.05, 1.0 - elapsed / budget)
                batch = pool.collect(agent)
                env_steps += cfg.num_envs * cfg.num_steps
                finished_returns, finished_success = batch["returns"], batch["successes"]
                tl = time.monotonic()
                stats = ppo_update(cfg, agent, optimizer, batch["buf"], batch["next_x"], batch["next_m"], batch["next_done"])
                row = Row(update, env_steps, round(time.monotonic() - t0, 2), len(finished_returns),
                          float(np.mean(finished_returns)) if finished_returns else float("nan"),
                          float(np.mean(finished_success)) if finished_success else float("nan"), *stats,
                          env_seconds=round(batch["env_seconds"], 2), learn_seconds=round(time.monotonic() - tl, 2))
                last = (cfg.max_updates is not None and update >= cfg.max_updates) or time.monotonic() - t0 >= budget
                if reporter is not None and (update % cfg.eval_every == 0 or last):
                    te = time.monotonic()
                    row.eval = eval_metrics(client, cfg, agent, reporter)
                    row.eval_seconds = round(time.monotonic() - te, 2)
                rows.append(row)
                if not cfg.quiet:
                    log(row)
        finally:
            if collectors is None:  # collectors handed in belong to the caller (main() evaluates on their servers)
                pool.close()
    return rows, agent


def code_version() -> Dict[str, Any]:
    """The checkout the run used (its config.json records it, so a reported result names its code): the commit and
    the files that differed from it. Empty outside a git checkout."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        head = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
        status = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return {}
    return {"commit": head.stdout.strip(), "modified": [line[3:] for line in status.stdout.splitlines()]}


def main(argv: List[str]) -> int:
    cfg = parse_args(argv)
    os.makedirs(cfg.out, exist_ok=True)
    # Read before training: commits made while a long run trains are not its code.
    code = code_version()
    rollouts = None
    if cfg.ray:
        from ppo_ray import RayRollouts  # Ray is needed only then

        rollouts = RayRollouts(cfg, Collector)
    server = None if cfg.endpoint or rollouts else Server(cfg.workers)
    reporter = Reporter()
    try:
        endpoint = rollouts.endpoint if rollouts else cfg.endpoint or server.endpoints[0]  # type: ignore[union-attr]
        kw = rollouts.client_kwargs if rollouts else {}
        rows, agent = train(cfg, endpoint, reporter, collectors=rollouts, client_kwargs=kw)
        curve = os.path.join(cfg.out, "curve.csv")
        write_curve(curve, rows)
        with rg.Client(endpoint, timeout=120, **kw) as client:
            results = evaluate(client, cfg, agent, min(cfg.eval_episodes, 100))
        report = reporter.request(op="aggregate", env=cfg.env, options=env_options(cfg, True), seed=cfg.eval_seed,
                                  policy="ppo_masked", results=results)
        with open(os.path.join(cfg.out, "eval.json"), "w") as f:
            f.write(json.dumps(report["eval"]) + "\n")
        reporter.request(op="plot", csv=curve, out=os.path.join(cfg.out, "curve.svg"),
                         title=f"PPO (masked) on {cfg.env}, seed {cfg.seed}")
        torch.save(agent.state_dict(), os.path.join(cfg.out, "agent.pt"))
        with open(os.path.join(cfg.out, "config.json"), "w") as f:
            f.write(json.dumps({**asdict(cfg), "code": code}, indent=2) + "\n")
        headline = {k: v for k, v in report["eval"]["metrics"].items() if k in LOGGED_METRICS + ("RC",)}
        print(f"ppo_masked: {len(rows)} updates, {rows[-1].env_steps if rows else 0} env steps; held-out "
              f"{cfg.eval_episodes} episodes from seed {cfg.eval_seed}: {json.dumps(headline)}; wrote {cfg.out}", file=sys.stderr)
        return 0
    finally:
        reporter.close()
        if rollouts is not None:
            rollouts.close()
        if server is not None:
            code = server.stop()
            if code != 0:
                print(f"ppo_masked: the bridge server exited with {code} after SIGTERM", file=sys.stderr)


if __name__ == "__main__":
    # SIGTERM unwinds like Ctrl-C, so main's finally blocks stop the server and the helper.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    sys.exit(main(sys.argv[1:]))
