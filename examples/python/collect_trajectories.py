#!/usr/bin/env python3
"""Collects whole episodes over the bridge and writes them as JSON lines, one episode per line:
{env_id, seed, env_index, observations[], actions[], rewards[], terminated, truncated, infos[]}.

    python3 examples/python/collect_trajectories.py --env-id ToolMisuseBench-v0 --episodes 100 --out traj.jsonl

Episodes are seeded seed, seed+1, ...; with the same arguments the file is identical byte for byte.
Actions are sampled by the server (seeded by --seed). For the library's own trajectory schema, start the server
with --record-dir DIR and pass record=True to make.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bridge", "python"))

import recovery_gym as rg  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--address", default=rg.DEFAULT_ADDRESS)
    ap.add_argument("--env-id", default="Demo-v0")
    ap.add_argument("--envs", type=int, default=8, help="episodes collected in parallel")
    ap.add_argument("--episodes", type=int, default=32)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-steps", type=int, default=500, help="safety cap on steps per episode")
    ap.add_argument("--out", default="trajectories.jsonl")
    args = ap.parse_args()

    def fresh(i, seed, obs, infos):
        return {"env_id": args.env_id, "seed": seed, "env_index": i, "observations": [obs[i]], "actions": [],
                "rewards": [], "infos": [rg.unbatch_info(infos, i)]}

    written = 0
    with rg.Client(args.address, timeout=60) as client, open(args.out, "w") as out:
        env = client.make_vec(args.env_id, args.envs, seed=args.seed)
        seeds = [args.seed + i for i in range(args.envs)]
        obs, infos = env.reset(seed=seeds)
        started = min(args.envs, args.episodes)
        cur = [fresh(i, seeds[i], obs, infos) if i < started else None for i in range(args.envs)]
        while written < args.episodes:
            obs, rewards, term, trunc, infos, actions = env.step_random()
            restart_mask, restart_seeds = [False] * args.envs, [0] * args.envs
            for i, c in enumerate(cur):
                if c is None:
                    continue  # parked: enough episodes are running; its data is ignored
                c["actions"].append(actions[i])
                c["observations"].append(obs[i])
                c["rewards"].append(rewards[i])
                c["infos"].append(rg.unbatch_info(infos, i))
                if term[i] or trunc[i] or len(c["actions"]) >= args.max_steps:
                    c["terminated"], c["truncated"] = bool(term[i]), bool(trunc[i])
                    out.write(json.dumps(c, sort_keys=True) + "\n")
                    written += 1
                    cur[i] = None
                    if started < args.episodes:
                        restart_mask[i], restart_seeds[i] = True, args.seed + started
                        started += 1
            if any(restart_mask):
                # A masked reset restarts exactly these envs with the next seeds (and cancels their autoreset).
                obs, infos = env.reset(seed=restart_seeds, reset_mask=restart_mask)
                for i in range(args.envs):
                    if restart_mask[i]:
                        cur[i] = fresh(i, restart_seeds[i], obs, infos)
        env.close()
    print(f"wrote {written} episodes of {args.env_id} to {args.out}")


if __name__ == "__main__":
    main()
