"""The learning half of PPO: GAE and clipped-surrogate epochs over one rollout."""
from __future__ import annotations

from typing import Tuple

import torch
import torch.nn as nn

from .agent import Agent
from .config import Config


def masked_entropy(d: torch.distributions.Categorical, mask: torch.Tensor) -> torch.Tensor:
    """Entropy over the valid actions only (masked slots have p = 0; their p log p would be 0 * -1e8 noise)."""
    p_log_p = d.probs * d.logits
    return -torch.where(mask, p_log_p, torch.zeros_like(p_log_p)).sum(-1)


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
