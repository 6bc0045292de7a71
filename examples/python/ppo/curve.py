"""The training curve: one row per update (curve.csv) and its log line."""
from __future__ import annotations

import csv
import sys
from dataclasses import asdict, dataclass, field
from typing import Dict, List

from .config import LOGGED_METRICS


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
