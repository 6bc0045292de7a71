#!/usr/bin/env python3
"""Ray's cost for rollouts: the same ToolMaze work gathered by K Ray rollout actors and by K plain processes.

`npm run bench:ray [-- --envs 64 --steps 200 --repeats 5 --action-mode discrete]`. One bridge server
(`--workers 2`) serves both; each rollout process holds its slice of one vector env (recovery_gym.ray.plan_layout)
and steps it with server-sampled actions, in the discrete (action-masked) mode by default (`--action-mode
structured`: tool-call maps). A Ray worker is a RolloutWorker actor called with rollout.remote(T); a plain
worker is the very same RolloutWorker class in a multiprocessing child driven over a pipe. Runs alternate
between the modes, repeats give a median, and the actions of all modes are checked to be identical within each
round (same work, same seeds).

Reported per mode and K: wall-clock env-steps/s (aggregate over the K workers, from the driver's "go" to the last
result), and CPU per env-step of the rollout processes, of the server, and of Ray's own daemons. On a machine
shared with other work the wall clock is noisy; CPU time much less so.
"""
import argparse
import hashlib
import json
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PKG = os.path.join(ROOT, "bridge", "python")


def _ray_path():
    """The Ray install of scripts/ensure-ray.sh (or whatever is importable already)."""
    try:
        import ray  # noqa: F401

        return None
    except ImportError:
        out = subprocess.run(["bash", os.path.join(ROOT, "scripts", "ensure-ray.sh")], capture_output=True, text=True)
        return out.stdout.strip() or None


def cpu_s(pids):
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return total / os.sysconf("SC_CLK_TCK")


def ray_daemon_pids(session_dir, exclude):
    """Ray's own processes of this cluster (raylet, GCS, agents): their command lines name its session dir."""
    name = os.path.basename(session_dir.rstrip("/"))
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) in exclude:
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                if name.encode() in f.read():
                    out.append(int(d))
        except OSError:
            pass
    return out


def plain_worker(conn, endpoints, env_id, n, counts, offset, seed, options):
    sys.path.insert(0, PKG)
    from recovery_gym.ray import RolloutWorker

    w = RolloutWorker(endpoints, env_id, n, counts=counts, env_offset=offset, seed=seed, info_keys=[], **options)
    conn.send(os.getpid())
    while True:
        cmd = conn.recv()
        if cmd is None:
            break
        if cmd[0] == "reset":
            w.reset(seed=cmd[1])
            conn.send(True)
        else:
            conn.send(w.rollout(cmd[1]))
    w.close()


def actions_hash(parts, steps):
    acts = [[a for p in parts for a in p["actions"][t]] for t in range(steps)]
    return hashlib.sha256(json.dumps(acts, sort_keys=True).encode()).hexdigest()[:16]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--env", default="ToolMaze-v0")
    ap.add_argument("--envs", type=int, default=64, help="envs of the one vector env, split over the workers")
    ap.add_argument("--steps", type=int, default=200, help="vector steps per run")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--workers", default="1,2", help="rollout worker counts to compare")
    ap.add_argument("--server-workers", type=int, default=2)
    ap.add_argument("--action-mode", default="discrete", choices=["discrete", "structured"],
                    help="discrete: the action-masked mode trainers use; structured: tool-call maps")
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()

    extra = _ray_path()
    if extra:
        sys.path.insert(0, extra)
    sys.path.insert(0, PKG)
    # Ray workers and the spawned plain workers are new interpreters: they find both packages on PYTHONPATH.
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (PKG, extra, os.environ.get("PYTHONPATH")) if p)
    import ray
    from recovery_gym.ray import BridgeServer, RolloutWorkerActor, plan_layout

    seed = 7
    options = {"actionMode": "discrete"} if args.action_mode == "discrete" else {}
    server = BridgeServer(args.server_workers, serve_args=["--quiet"])
    info = server.info()
    endpoints, server_pids = info["endpoints"], [info["pid"], *info["worker_pids"]]
    ks = [int(k) for k in args.workers.split(",")]
    # Both pools live side by side (idle while the other runs): room for all their actors.
    ray.init(num_cpus=sum(ks), include_dashboard=False, log_to_driver=False, configure_logging=False)
    session_dir = ray._private.worker._global_node.get_session_dir_path()
    ctx = mp.get_context("spawn")  # never fork a process that runs Ray's threads
    pools = {}
    try:
        for k in ks:
            layout = plan_layout(args.envs, len(endpoints), k)
            specs = [([endpoints[e] for e, _ in p["parts"]], [c for _, c in p["parts"]], p["env_offset"], p["num_envs"])
                     for p in layout]
            actors = [RolloutWorkerActor.options(num_cpus=1).remote(eps, args.env, n, counts=c, env_offset=o, seed=seed,
                                                                  info_keys=[], **options) for eps, c, o, n in specs]
            actor_pids = ray.get([a.call.remote(lambda env: os.getpid()) for a in actors])
            pipes, procs = [], []
            for eps, c, o, n in specs:
                parent, child = ctx.Pipe()
                p = ctx.Process(target=plain_worker, args=(child, eps, args.env, n, c, o, seed, options), daemon=True)
                p.start()
                child.close()  # a child that dies then shows as EOF here instead of a hang
                pipes.append(parent)
                procs.append(p)
            plain_pids = [c.recv() for c in pipes]
            pools[k] = {"ray": (actors, actor_pids), "plain": (pipes, procs, plain_pids)}

        def run(mode, k):
            pool = pools[k]
            if mode == "ray":
                actors, pids = pool["ray"]
                ray.get([a.reset.remote(seed) for a in actors])
                daemons = ray_daemon_pids(session_dir, set(pids))
                c0, s0, d0, t0 = cpu_s(pids), cpu_s(server_pids), cpu_s(daemons), time.perf_counter()
                parts = ray.get([a.rollout.remote(args.steps) for a in actors])
            else:
                pipes, _, pids = pool["plain"]
                daemons = []
                for c in pipes:
                    c.send(("reset", seed))
                for c in pipes:
                    c.recv()
                c0, s0, d0, t0 = cpu_s(pids), cpu_s(server_pids), 0.0, time.perf_counter()
                for c in pipes:
                    c.send(("rollout", args.steps))
                parts = [c.recv() for c in pipes]
            wall = time.perf_counter() - t0
            n = args.envs * args.steps
            return {"rate": n / wall, "client_us": (cpu_s(pids) - c0) / n * 1e6,
                    "server_us": (cpu_s(server_pids) - s0) / n * 1e6,
                    "ray_us": (cpu_s(daemons) - d0) / n * 1e6 if daemons else 0.0, "hash": actions_hash(parts, args.steps)}

        results = {(m, k): [] for k in ks for m in ("plain", "ray")}
        # Every pool's sessions are made with the same seed and advance in step, so within a round every mode and
        # K takes the same actions (the server's sampler streams go on across rounds).
        round_hashes = {}
        for r in range(args.repeats + 1):  # the first round warms up the server's JIT and both pools
            for k in ks:
                for m in (("plain", "ray") if r % 2 else ("ray", "plain")):
                    res = run(m, k)
                    round_hashes.setdefault(r, set()).add(res["hash"])
                    if r:
                        results[(m, k)].append(res)
    finally:
        for pool in pools.values():
            for c in pool["plain"][0]:
                c.send(None)
            for p in pool["plain"][1]:
                p.join(10)
        ray.shutdown()
        server.stop()

    same = all(len(h) == 1 for h in round_hashes.values())
    rows = []
    for rs in results.values():
        for x in rs:
            x["total_us"] = x["client_us"] + x["server_us"] + x["ray_us"]
    fields = ("rate", "client_us", "server_us", "ray_us", "total_us")
    spreads = {}
    for k in ks:
        med = {m: {f: statistics.median(x[f] for x in results[(m, k)]) for f in fields} for m in ("plain", "ray")}
        for m in ("plain", "ray"):
            rows.append({"mode": m, "workers": k, **{f: round(v, 2) for f, v in med[m].items()}})
        # Paired by round (the two modes ran back to back): the load of other work drifts less within a pair.
        paired = sorted(100 * (1 - r["rate"] / p["rate"]) for r, p in zip(results[("ray", k)], results[("plain", k)]))
        spreads[k] = (round(paired[0], 1), round(statistics.median(paired), 1), round(paired[-1], 1))
        rows.append({"mode": "ray overhead", "workers": k, "rate": round(100 * (1 - med["ray"]["rate"] / med["plain"]["rate"]), 1),
                     "client_us": round(100 * (med["ray"]["client_us"] / max(med["plain"]["client_us"], 1e-9) - 1), 1),
                     "server_us": None, "ray_us": None,
                     "total_us": round(100 * (med["ray"]["total_us"] / max(med["plain"]["total_us"], 1e-9) - 1), 1)})
    print(f"{args.env} ({args.action_mode}): {args.envs} envs x {args.steps} steps per run, server --workers {args.server_workers}, "
          f"median of {args.repeats} runs; same actions in every mode: {same}")
    print("CPU columns: microseconds of CPU per env-step, by the rollout processes, the server, Ray's daemons, all")
    print(f"{'mode':<14}{'K':>3}{'env-steps/s':>13}{'rollout CPU':>13}{'server CPU':>12}{'Ray daemons':>13}{'total CPU':>11}")
    for row in rows:
        if row["mode"] == "ray overhead":
            print(f"{'Ray overhead':<14}{row['workers']:>3}{row['rate']:>12}%{row['client_us']:>12}%{'':>25}{row['total_us']:>10}%")
        else:
            print(f"{row['mode']:<14}{row['workers']:>3}{row['rate']:>13.0f}{row['client_us']:>13.1f}{row['server_us']:>12.1f}"
                  f"{row['ray_us']:>13.1f}{row['total_us']:>11.1f}")
    for k, (lo, mid, hi) in spreads.items():
        print(f"K={k}: Ray's wall-clock overhead paired by round: median {mid}%, range {lo}% .. {hi}%")
    print(f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (wall-clock numbers suffer above ~1 per core)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "rows": rows, "same_actions": same, "paired_overhead": spreads,
                       "runs": {f"{m}-{k}": rs for (m, k), rs in results.items()}}, f, indent=1)
    if not same:
        print("error: the modes did not take the same actions", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
