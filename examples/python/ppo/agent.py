"""The policy and value networks (flat and slot-wise) over the discrete mode's features and action mask."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Optional, Tuple

import numpy as np
import torch
import torch.nn as nn

from .config import Config

if TYPE_CHECKING:  # pragma: no cover
    from .processes import Reporter


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
