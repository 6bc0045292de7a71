#!/usr/bin/env python3
"""Random rollouts over the bridge: N envs x M steps per env id, printing throughput and per-family metrics.

    recovery-gym serve &                       # or: npx tsx bridge/main.ts
    python3 examples/python/random_rollout.py --envs 64 --steps 200
    python3 examples/python/random_rollout.py --env-id ToolMaze-v1 --all-workers --envs 256

Actions are sampled by the server from each env's action space (seeded by --seed), so runs are reproducible.
"""
import argparse
import os
import sys
import time
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bridge", "python"))

import recovery_gym as rg  # noqa: E402


def numeric_items(d, prefix=""):
    for k, v in (d or {}).items():
        if isinstance(v, bool):
            yield prefix + k, float(v)
        elif isinstance(v, (int, float)):
            yield prefix + k, float(v)
        elif isinstance(v, dict):
            yield from numeric_items(v, prefix + k + ".")


def run(env_id, args):
    eps = None
    if args.all_workers:
        eps = rg.discover_endpoints(args.address)
    info_keys = ["metrics", "success", "terminationReason"]
    with rg.make_vec(env_id, args.envs, endpoints=eps, address=args.address, seed=args.seed, info_keys=info_keys) as env:
        env.reset()
        sums, counts = defaultdict(float), defaultdict(int)
        episodes, returns, ret = 0, [], [0.0] * args.envs
        t0 = time.perf_counter()
        for _ in range(args.steps):
            _, rewards, term, trunc, infos, _ = env.step_random()
            done_metrics = infos.get("metrics") or [None] * args.envs
            mask = infos.get("_metrics") or [False] * args.envs
            for i in range(args.envs):
                ret[i] += rewards[i]
                if term[i] or trunc[i]:
                    episodes += 1
                    returns.append(ret[i])
                    ret[i] = 0.0
                    if mask[i]:
                        for k, v in numeric_items(done_metrics[i]):
                            sums[k] += v
                            counts[k] += 1
                    succ = infos.get("success")
                    if succ is not None and infos.get("_success", [False] * args.envs)[i]:
                        sums["info.success"] += float(bool(succ[i]))
                        counts["info.success"] += 1
        dt = time.perf_counter() - t0
    n = args.envs * args.steps
    print(f"\n{env_id}: {args.envs} envs x {args.steps} steps = {n} env-steps in {dt:.2f} s "
          f"-> {n / dt:,.0f} env-steps/s; {episodes} episodes, mean return "
          f"{(sum(returns) / len(returns)) if returns else float('nan'):.3f}")
    for k in sorted(sums):
        print(f"  {k:<40} {sums[k] / counts[k]:>10.4f}   (n={counts[k]})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--address", default=rg.DEFAULT_ADDRESS)
    ap.add_argument("--env-id", action="append", help="env id (repeatable); default: every env the server has")
    ap.add_argument("--envs", type=int, default=16)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--all-workers", action="store_true", help="shard across every worker process of the server")
    args = ap.parse_args()
    with rg.Client(args.address, timeout=60) as c:
        ids = args.env_id or c.env_ids()
    for env_id in ids:
        run(env_id, args)


if __name__ == "__main__":
    main()
