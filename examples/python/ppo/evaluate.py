"""Greedy episodes on the held-out seeds, and the family's metrics over them."""
from __future__ import annotations

from typing import Any, Dict, List

import numpy as np
import recovery_gym as rg
import torch

from .agent import Agent, obs_arrays
from .config import INFO_KEYS, Config, env_options
from .processes import Reporter


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


def eval_metrics(client: rg.Client, cfg: Config, agent: Agent, reporter: Reporter) -> Dict[str, float]:
    results = evaluate(client, cfg, agent, min(cfg.eval_episodes, 100))
    report = reporter.request(op="aggregate", env=cfg.env, options=env_options(cfg, True), seed=cfg.eval_seed,
                              policy="ppo_masked", results=results)
    metrics = {k: float(v) for k, v in report["metrics"].items() if isinstance(v, (int, float))}
    # Prefixed so that they never shadow a family metric of the same name (ToolMisuseBench reports "success").
    metrics["episode_success"] = float(np.mean([r["success"] for r in results]))
    metrics["episode_return"] = float(np.mean([r["return"] for r in results]))
    return metrics
