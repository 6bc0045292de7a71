#!/usr/bin/env python3
"""PPO with action masking on a Recovery Gym env in discrete mode, CleanRL style: one file, PyTorch, a vector env
over the bridge. Run it through npm, which first makes torch and gymnasium importable from .cache/:

    npm run train -- --env ToolMaze-v0 --minutes 15 --seed 1 --eval-seed 100000 --eval-episodes 200 --out runs/tm

It starts its own `recovery-gym serve` on free loopback ports (or uses --endpoint), trains on `suite=sampled` tasks
whose reset seeds are drawn below --eval-seed, evaluates the greedy policy every --eval-every updates on the
held-out seeds E .. E+N-1, and writes DIR/curve.csv, DIR/curve.svg and DIR/eval.json (the shape of
`recovery-gym eval --json`, with the family's metrics computed by the family's own aggregate, see
scripts/train-report.ts). Other flags are PPO hyperparameters (`--help`); `--opt key=value` are env options.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "bridge", "python"))

import recovery_gym as rg  # noqa: E402

INFO_KEYS = ["metrics", "success", "taskId", "terminationReason"]
# The held-out metrics worth a log line: each family's headline rates, then the generic ones.
LOGGED_METRICS = ("TSR", "PRR", "score", "accuracy", "success", "recovery_success", "successRate", "episode_return")
# ToolMaze's default suite is the fixed canonical one; with suite=sampled the reset seed makes the task, so seeds
# below E and seeds E.. are disjoint task sets. Other families pick tasks from their own suites by the seed.
SAMPLED_SUITE_ENVS = ("ToolMaze-",)
# Hyperparameters that won on an env (docs/TRAINING.md), used when the command line does not set them, so the
# README's command reproduces the reported runs. Other envs keep the dataclass defaults.
ENV_DEFAULTS: Dict[str, Dict[str, Any]] = {
    # Two PPO epochs instead of four: the same held-out score at equal env steps in paired 5-minute runs, half the
    # learner's CPU, so about 40% more env steps in the same wall time on a loaded machine.
    "ToolMaze-": {"lr": 2e-3, "ent_coef": 0.003, "update_epochs": 2},
}


@dataclass
class Config:
    env: str
    minutes: float
    seed: int
    eval_seed: int
    eval_episodes: int
    out: str
    opts: Dict[str, Any] = field(default_factory=dict)
    # Options that differ for the held-out evaluation only (e.g. ToolMisuseBench: train on split=train, evaluate on
    # split=test_public).
    eval_opts: Dict[str, Any] = field(default_factory=dict)
    num_envs: int = 32
    num_steps: int = 32
    lr: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 4
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 128
    arch: str = "slots"
    global_features: int = 0
    eval_every: int = 10
    max_updates: Optional[int] = None
    endpoint: Optional[str] = None
    workers: int = 1
    threads: int = 1
    quiet: bool = False
    ray: Optional[str] = None
    rollout_workers: int = 1


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
        if f.name in ("env", "minutes", "seed", "eval_seed", "eval_episodes", "out", "opts", "eval_opts", "endpoint", "quiet", "max_updates"):
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


def env_options(cfg: Config, evaluation: bool = False) -> Dict[str, Any]:
    opts = {"actionMode": "discrete", **cfg.opts, **(cfg.eval_opts if evaluation else {})}
    if cfg.env.startswith(SAMPLED_SUITE_ENVS):
        opts.setdefault("suite", "sampled")
    return opts


# ---------------------------------------------------------------- the bridge server and the report helper

class Server:
    """`recovery-gym serve` on free loopback ports, stopped with SIGTERM (a graceful shutdown exits 0)."""

    def __init__(self, workers: int):
        self._tmp = tempfile.mkdtemp(prefix="rg-train-")
        ready = os.path.join(self._tmp, "ready.json")
        cmd = ["node", os.path.join(REPO, "bin", "recovery-gym.js"), "serve", "--endpoint", "tcp://127.0.0.1:*",
               "--workers", str(workers), "--ready-file", ready, "--quiet"]
        self.proc = subprocess.Popen(cmd, cwd=REPO, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not (os.path.exists(ready) and os.path.getsize(ready) > 0):
            if self.proc.poll() is not None:
                raise RuntimeError(f"recovery-gym serve exited with {self.proc.returncode} before it was ready")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("recovery-gym serve was not ready within 60 s")
            time.sleep(0.1)
        with open(ready) as f:
            self.endpoints: List[str] = json.load(f)["endpoints"]

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for name in os.listdir(self._tmp):
            os.remove(os.path.join(self._tmp, name))
        os.rmdir(self._tmp)
        return self.proc.returncode


class Reporter:
    """scripts/train-report.ts as a long-lived helper: the family's own aggregate turns episode results into the
    metrics `recovery-gym eval --json` prints, and Vega-Lite renders the curve (one JSON request per line)."""

    def __init__(self) -> None:
        cmd = ["node", "--import", "tsx", os.path.join(REPO, "scripts", "train-report.ts")]
        self.proc = subprocess.Popen(cmd, cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def request(self, **req: Any) -> Dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"train-report exited ({self.proc.poll()}) on a {req.get('op')} request")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"train-report: {reply['error']}")
        return reply

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=30)


# ---------------------------------------------------------------- observations and the agent

def _row(v: Any, dtype: Any) -> np.ndarray:
    # msgpack delivers a packed array as bytes (the bridge sends the mask's Uint8Array so); lists come as lists.
    if isinstance(v, (bytes, bytearray, memoryview)):
        return np.frombuffer(v, dtype=dtype)
    return np.asarray(v, dtype=dtype)


def obs_arrays(obs: Any) -> Tuple[np.ndarray, np.ndarray]:
    """Batched discrete observations as (features float32 [n, F], mask bool [n, K]), whether the client delivered
    one array per key or one dict per env."""
    if isinstance(obs, dict):
        return np.asarray(obs["observation"], dtype=np.float32), np.asarray(obs["action_mask"]).astype(bool)
    feats = np.stack([_row(o["observation"], np.float32) for o in obs])
    mask = np.stack([_row(o["action_mask"], np.uint8) for o in obs]).astype(bool)
    return feats, mask


def layer_init(layer: nn.Linear, std: float = math.sqrt(2), bias: float = 0.0) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


class Agent(nn.Module):
    """`--arch flat`: CleanRL's actor and critic MLPs over the whole feature vector. Invalid actions get logit -1e8
    in every architecture, so they are never sampled and carry no gradient."""

    def __init__(self, n_features: int, n_actions: int, hidden: int):
        super().__init__()
        self.critic = nn.Sequential(layer_init(nn.Linear(n_features, hidden)), nn.Tanh(),
                                    layer_init(nn.Linear(hidden, hidden)), nn.Tanh(), layer_init(nn.Linear(hidden, 1), 1.0))
        self.actor = nn.Sequential(layer_init(nn.Linear(n_features, hidden)), nn.Tanh(),
                                   layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
                                   layer_init(nn.Linear(hidden, n_actions), 0.01))

    def value(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.critic(x).squeeze(-1)

    def dist(self, x: torch.Tensor, mask: torch.Tensor) -> torch.distributions.Categorical:
        logits = self.actor(x).masked_fill(~mask, -1e8)
        return torch.distributions.Categorical(logits=logits)


class SlotAgent(Agent):
    """`--arch slots` (default): the discrete observation is G global features then K slots of C candidate features
    (docs/DISCRETE.md), so one network scores every slot from [global, slot] and the critic pools the slots: the
    policy is the same function of a candidate whichever slot it lands in, and learns from every slot at once."""

    def __init__(self, n_globals: int, n_slot: int, n_actions: int, hidden: int):
        nn.Module.__init__(self)
        self.g, self.c, self.k = n_globals, n_slot, n_actions

        def encoder() -> nn.Sequential:
            return nn.Sequential(layer_init(nn.Linear(n_globals + n_slot, hidden)), nn.Tanh(),
                                 layer_init(nn.Linear(hidden, hidden)), nn.Tanh())

        self.actor_enc, self.critic_enc = encoder(), encoder()
        self.actor_head = layer_init(nn.Linear(hidden, 1), 0.01)
        self.critic_head = nn.Sequential(layer_init(nn.Linear(n_globals + 2 * hidden, hidden)), nn.Tanh(),
                                         layer_init(nn.Linear(hidden, 1), 1.0))

    def _encode(self, enc: nn.Sequential, x: torch.Tensor, mask: torch.Tensor) -> Tuple[torch.Tensor, ...]:
        """Encodes only the valid slots (a step has a handful of candidates among K slots): the global features,
        the (row, slot) index of each valid slot and its encoding."""
        g = x[:, :self.g]
        c = x[:, self.g:].reshape(x.shape[0], self.k, self.c)
        rows, slots = mask.nonzero(as_tuple=True)
        return g, rows, slots, enc(torch.cat([g[rows], c[rows, slots]], dim=-1))

    def value(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        g, rows, _, h = self._encode(self.critic_enc, x, mask)
        n, width = x.shape[0], h.shape[1]
        total = torch.zeros(n, width).index_add(0, rows, h)
        mean = total / mask.sum(1, keepdim=True).clamp(min=1)
        # tanh >= -1, so -1 is a neutral start for the max (and the value of a step without candidates).
        mx = torch.full((n, width), -1.0).scatter_reduce(0, rows.unsqueeze(-1).expand(-1, width), h, reduce="amax")
        return self.critic_head(torch.cat([g, mean, mx], dim=-1)).squeeze(-1)

    def dist(self, x: torch.Tensor, mask: torch.Tensor) -> torch.distributions.Categorical:
        _, rows, slots, h = self._encode(self.actor_enc, x, mask)
        logits = torch.full(mask.shape, -1e8).index_put((rows, slots), self.actor_head(h).squeeze(-1))
        return torch.distributions.Categorical(logits=logits)


def make_agent(cfg: Config, n_features: int, n_actions: int, reporter: Optional[Reporter] = None) -> Agent:
    """The network of `--arch`. The slot layout's G comes from --global-features, else from the library (the report
    helper), else F mod K (exact while G < K, as with the defaults: G = 17, K = 64). Ray actors have no helper: with
    K <= G pass --global-features, or their copy of the network will not take the trainer's weights."""
    if cfg.arch == "flat":
        return Agent(n_features, n_actions, cfg.hidden)
    g = cfg.global_features or (reporter.request(op="layout")["globals"] if reporter else n_features % n_actions)
    if (n_features - g) % n_actions != 0 or n_features <= g:
        raise ValueError(f"--arch slots: {n_features} features do not split into {g} global + {n_actions} slots; "
                         "pass --global-features G or --arch flat")
    return SlotAgent(g, (n_features - g) // n_actions, n_actions, cfg.hidden)


def masked_entropy(d: torch.distributions.Categorical, mask: torch.Tensor) -> torch.Tensor:
    """Entropy over the valid actions only (masked slots have p = 0; their p log p would be 0 * -1e8 noise)."""
    p_log_p = d.probs * d.logits
    return -torch.where(mask, p_log_p, torch.zeros_like(p_log_p)).sum(-1)


# ---------------------------------------------------------------- evaluation on held-out seeds

def episode_result(seed: int, ret: float, length: int, info: Dict[str, Any]) -> Dict[str, Any]:
    """The EpisodeResult `recovery-gym eval` aggregates (src/rollout.ts), from the episode's final info."""
    return {"seed": seed, "taskId": str(info.get("taskId", "")), "return": float(ret), "length": int(length),
            "success": bool(info.get("success") or False), "terminationReason": str(info.get("terminationReason", "max_steps")),
            "metrics": info.get("metrics") or {}}


def evaluate(client: rg.Client, cfg: Config, agent: Agent, batch: int) -> List[Dict[str, Any]]:
    """Greedy (argmax of the masked logits) episodes on the held-out seeds E .. E+N-1, in chunks of `batch` envs.
    The last chunk is padded with later held-out seeds whose episodes are dropped."""
    n = cfg.eval_episodes
    results: List[Dict[str, Any]] = []
    with client.make_vec(cfg.env, batch, autoreset_mode="NextStep", use_numpy=True, info_keys=INFO_KEYS,
                         **env_options(cfg, evaluation=True)) as vec:
        for start in range(0, n, batch):
            seeds = [cfg.eval_seed + start + i for i in range(batch)]
            obs, _ = vec.reset(seed=seeds)
            ret = np.zeros(batch)
            length = np.zeros(batch, dtype=np.int64)
            finished: Dict[int, Dict[str, Any]] = {}
            while len(finished) < batch:
                x, m = obs_arrays(obs)
                with torch.no_grad():
                    actions = agent.dist(torch.from_numpy(x), torch.from_numpy(m)).probs.argmax(-1).numpy()
                obs, rewards, term, trunc, infos = vec.step([int(a) for a in actions])
                for i in range(batch):
                    if i in finished:
                        continue
                    ret[i] += float(rewards[i])
                    length[i] += 1
                    if term[i] or trunc[i]:
                        finished[i] = episode_result(seeds[i], ret[i], int(length[i]), rg.unbatch_info(infos, i))
            results.extend(finished[i] for i in range(batch) if start + i < n)
    return results


# ---------------------------------------------------------------- training

@dataclass
class Row:
    """One line of curve.csv: training progress and, on evaluation updates, the held-out metrics."""
    update: int
    env_steps: int
    seconds: float
    train_episodes: int
    train_return: float
    train_success: float
    policy_loss: float
    value_loss: float
    entropy: float
    approx_kl: float
    # Where the update's wall time went: stepping the envs over the bridge (decoding included), the PPO epochs,
    # and the held-out evaluation (0 on other updates).
    env_seconds: float = 0.0
    learn_seconds: float = 0.0
    eval_seconds: float = 0.0
    eval: Dict[str, float] = field(default_factory=dict)


class Collector:
    """The rollout half of PPO: a vector env of training envs (all of them, or worker k's slice), their episode
    bookkeeping and the stream of training task seeds. It runs in the trainer's process, or as a Ray actor
    (`--ray`, examples/python/ppo_ray.py) with the same code. Actions are sampled from the calling process's torch
    stream: the trainer's own when local; on Ray, worker 0 is lent the trainer's stream for each rollout and the
    other workers keep streams of their own, so one worker reproduces the single-process run exactly."""

    def __init__(self, cfg: Config, endpoints: List[str], num_envs: int, *, env_offset: int = 0,
                 counts: Optional[List[int]] = None, worker: int = 0, client_kwargs: Optional[Dict[str, Any]] = None):
        self.cfg, self.n, self.worker = cfg, num_envs, worker
        # Worker 0 draws the task seeds the single-process trainer draws; the others draw their own.
        self.seed_rng = np.random.default_rng(cfg.seed if worker == 0 else [cfg.seed, worker])
        clients = [rg.Client(e, timeout=120, **(client_kwargs or {})) for e in endpoints]
        self.vec = rg.ShardedVectorEnv(clients, cfg.env, num_envs, env_options(cfg), own_clients=True, use_numpy=True,
                                       counts=counts, env_offset=env_offset, seed=cfg.seed, autoreset_mode="Disabled",
                                       info_keys=INFO_KEYS)
        self.agent: Optional[Agent] = None

    def start(self) -> Tuple[int, int]:
        """Resets every env on a training seed; returns (features, actions) of the discrete observation."""
        obs, _ = self.vec.reset(seed=[int(s) for s in self.seed_rng.integers(0, self.cfg.eval_seed, self.n)])
        self.x, self.m = obs_arrays(obs)
        self.ep_ret = np.zeros(self.n)
        self.next_done = torch.zeros(self.n)
        return self.x.shape[1], self.m.shape[1]

    def collect_remote(self, weights: Dict[str, torch.Tensor], rng_state: Optional[torch.Tensor]) -> Dict[str, Any]:
        """:meth:`collect` in a Ray actor: the policy arrives as weights; the trainer's torch stream (worker 0)
        travels with them and back. Other workers seed a stream of their own on the first call."""
        if self.agent is None:
            torch.set_num_threads(self.cfg.threads)  # summation order, and so the floats, depend on it
            if rng_state is None:
                torch.manual_seed(int(np.random.SeedSequence([self.cfg.seed, self.worker]).generate_state(1)[0]))
            self.agent = make_agent(self.cfg, self.x.shape[1], self.m.shape[1])
        self.agent.load_state_dict(weights)
        if rng_state is not None:
            torch.set_rng_state(rng_state)
        batch = self.collect(self.agent)
        batch["rng_state"] = torch.get_rng_state() if rng_state is not None else None
        return batch

    def collect(self, agent: Agent) -> Dict[str, Any]:
        """`num_steps` steps of every env with the policy: the buffers PPO learns from, the observation after them,
        the returns and successes of the episodes that ended, and the seconds spent stepping envs."""
        steps, n = self.cfg.num_steps, self.n
        x, m = self.x, self.m
        buf_x = torch.zeros((steps, n, x.shape[1]))
        buf_m = torch.zeros((steps, n, m.shape[1]), dtype=torch.bool)
        buf_a = torch.zeros((steps, n), dtype=torch.long)
        buf_logp, buf_r, buf_done, buf_v = (torch.zeros((steps, n)) for _ in range(4))
        returns: List[float] = []
        successes: List[float] = []
        env_s = 0.0
        for t in range(steps):
            xt, mt = torch.from_numpy(x), torch.from_numpy(m)
            buf_x[t], buf_m[t], buf_done[t] = xt, mt, self.next_done
            with torch.no_grad():
                d = agent.dist(xt, mt)
                a = d.sample()
                buf_logp[t], buf_v[t] = d.log_prob(a), agent.value(xt, mt)
            buf_a[t] = a
            ts = time.monotonic()
            obs, rewards, term, trunc, infos = self.vec.step([int(i) for i in a.numpy()])
            r = np.asarray(rewards, dtype=np.float64)
            done = np.logical_or(np.asarray(term, dtype=bool), np.asarray(trunc, dtype=bool))
            buf_r[t] = torch.from_numpy(r.astype(np.float32))
            self.ep_ret += r
            x, m = obs_arrays(obs)
            if done.any():
                succ = infos.get("success")
                for i in np.flatnonzero(done):
                    returns.append(float(self.ep_ret[i]))
                    successes.append(float(succ is not None and bool(succ[i])))
                self.ep_ret[done] = 0.0
                # Autoreset is off so every training episode starts from a seed below E (never a held-out one).
                seeds = [int(s) if dn else None for s, dn in zip(self.seed_rng.integers(0, self.cfg.eval_seed, n), done)]
                new_obs, _ = self.vec.reset(seed=seeds, reset_mask=done.tolist())
                nx, nm = obs_arrays(new_obs)
                x[done], m[done] = nx[done], nm[done]
            env_s += time.monotonic() - ts
            self.next_done = torch.from_numpy(done.astype(np.float32))
        self.x, self.m = x, m
        return {"buf": (buf_x, buf_m, buf_a, buf_logp, buf_r, buf_done, buf_v), "next_x": torch.from_numpy(x),
                "next_m": torch.from_numpy(m), "next_done": self.next_done, "returns": returns, "successes": successes,
                "env_seconds": env_s}

    def close(self) -> None:
        self.vec.close()


class LocalCollectors:
    """All training envs in this process (the default): one :class:`Collector` over the given endpoints."""

    def __init__(self, cfg: Config, endpoints: List[str], client_kwargs: Optional[Dict[str, Any]] = None):
        self.collector = Collector(cfg, endpoints, cfg.num_envs, client_kwargs=client_kwargs)

    def start(self) -> Tuple[int, int]:
        return self.collector.start()

    def collect(self, agent: Agent) -> Dict[str, Any]:
        return self.collector.collect(agent)

    def close(self) -> None:
        self.collector.close()


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


def ppo_update(cfg: Config, agent: Agent, optimizer: torch.optim.Optimizer, buf: Tuple[torch.Tensor, ...],
               next_x: torch.Tensor, next_m: torch.Tensor, next_done: torch.Tensor) -> Tuple[float, float, float, float]:
    """GAE, then clipped-surrogate PPO epochs over shuffled minibatches. `done[t]` marks that the observation at t
    starts a new episode, so the value of step t-1 does not bootstrap from it (CleanRL's convention)."""
    bx, bm, ba, blogp, br, bdone, bv = buf
    steps, n = br.shape
    with torch.no_grad():
        next_value = agent.value(next_x, next_m)
        adv = torch.zeros_like(br)
        last = torch.zeros(n)
        for t in reversed(range(steps)):
            nonterminal = 1.0 - (next_done if t == steps - 1 else bdone[t + 1])
            nv = next_value if t == steps - 1 else bv[t + 1]
            delta = br[t] + cfg.gamma * nv * nonterminal - bv[t]
            last = delta + cfg.gamma * cfg.gae_lambda * nonterminal * last
            adv[t] = last
        ret = adv + bv
    fx, fm, fa = bx.reshape(steps * n, -1), bm.reshape(steps * n, -1), ba.reshape(-1)
    flogp, fadv, fret = blogp.reshape(-1), adv.reshape(-1), ret.reshape(-1)
    size = steps * n
    mb = size // cfg.num_minibatches
    pg_l = v_l = ent_l = kl = 0.0
    for _ in range(cfg.update_epochs):
        perm = torch.randperm(size)
        for s in range(0, size, mb):
            idx = perm[s:s + mb]
            d = agent.dist(fx[idx], fm[idx])
            logp = d.log_prob(fa[idx])
            ratio = (logp - flogp[idx]).exp()
            a = fadv[idx]
            a = (a - a.mean()) / (a.std() + 1e-8)
            pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
            v_loss = 0.5 * ((agent.value(fx[idx], fm[idx]) - fret[idx]) ** 2).mean()
            entropy = masked_entropy(d, fm[idx]).mean()
            loss = pg_loss - cfg.ent_coef * entropy + cfg.vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), cfg.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                kl = float(((ratio - 1) - (logp - flogp[idx])).mean())
            pg_l, v_l, ent_l = pg_loss.item(), v_loss.item(), entropy.item()
    return pg_l, v_l, ent_l, kl


def eval_metrics(client: rg.Client, cfg: Config, agent: Agent, reporter: Reporter) -> Dict[str, float]:
    results = evaluate(client, cfg, agent, min(cfg.eval_episodes, 100))
    report = reporter.request(op="aggregate", env=cfg.env, options=env_options(cfg, True), seed=cfg.eval_seed,
                              policy="ppo_masked", results=results)
    metrics = {k: float(v) for k, v in report["metrics"].items() if isinstance(v, (int, float))}
    # Prefixed so that they never shadow a family metric of the same name (ToolMisuseBench reports "success").
    metrics["episode_success"] = float(np.mean([r["success"] for r in results]))
    metrics["episode_return"] = float(np.mean([r["return"] for r in results]))
    return metrics


def log(row: Row) -> None:
    head = (f"update {row.update:4d}  steps {row.env_steps:8d}  {row.seconds:7.1f}s  "
            f"return {row.train_return:7.3f}  success {row.train_success:5.3f}  "
            f"pg {row.policy_loss:+.4f}  v {row.value_loss:.4f}  ent {row.entropy:.3f}  kl {row.approx_kl:+.4f}  "
            f"[env {row.env_seconds:.1f}s learn {row.learn_seconds:.1f}s]")
    tail = "  | eval " + " ".join(f"{k} {v:.3f}" for k, v in row.eval.items() if k in LOGGED_METRICS)
    print(head + (tail if row.eval else ""), file=sys.stderr, flush=True)


def write_curve(path: str, rows: List[Row]) -> List[str]:
    eval_keys = sorted({k for r in rows for k in r.eval})
    base = [k for k in asdict(rows[0]) if k != "eval"] if rows else []
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(base + [f"eval_{k}" for k in eval_keys])
        for r in rows:
            d = asdict(r)
            w.writerow([d[k] for k in base] + [r.eval.get(k, "") for k in eval_keys])
    return eval_keys


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
