"""The rollout half of PPO: training envs over the bridge, stepped with the policy, in this process or as Ray actors."""
from __future__ import annotations

import time
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import recovery_gym as rg
import torch

from .agent import Agent, make_agent, obs_arrays
from .config import INFO_KEYS, Config, env_options


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
