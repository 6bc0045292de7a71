#!/usr/bin/env python3
"""Python side of the bridge benchmark (driven by bench/bridge/run.ts, which starts the servers).

Modes (JSON lines on stdout):
  throughput: env-steps/s of step(sample=True) at each batch size, plus the same request/response bytes through a
              raw msgpack echo server (pyzmq <-> zeromq.js, decode + encode on both sides, no env), lockstep
              latency p50/p99 per step.
  soak:       N env-steps at one batch size (for the server's RSS before/after).
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bridge", "python"))

import msgpack  # noqa: E402
import zmq  # noqa: E402

import recovery_gym as rg  # noqa: E402
from recovery_gym.client import pack, unpack  # noqa: E402


def proc_cpu_s(pids):
    """CPU seconds (user + system) used so far by the given processes (Linux /proc); 0 when unavailable."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (clock ticks)
        except (OSError, IndexError, ValueError):
            return 0.0
    return total / os.sysconf("SC_CLK_TCK")


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def masked_actions(obs, rng):
    """A uniformly random valid slot per env, from the action masks (packed arrays or per-env maps): what a masked
    policy sends. The client computes the actions, so their cost is part of the client's CPU per env-step."""
    import numpy as np

    if isinstance(obs, dict):
        masks = obs["action_mask"]
    else:
        masks = np.stack([np.frombuffer(o["action_mask"], np.uint8) if isinstance(o["action_mask"], bytes)
                          else np.asarray(o["action_mask"], np.uint8) for o in obs])
    return (rng.random(masks.shape) * (masks != 0)).argmax(axis=1).tolist()


def bridge_run(client, env_id, batch, seconds, info_keys, options, all_workers=False, server_pids=(), use_numpy=False,
               masked=False, warmup=1.0):
    if all_workers:
        env = rg.make_vec(env_id, batch, endpoints=client.worker_endpoints, seed=1, info_keys=info_keys,
                          use_numpy=use_numpy, **options)
    else:
        env = client.make_vec(env_id, batch, seed=1, info_keys=info_keys, use_numpy=use_numpy, **options)
    obs, _ = env.reset()
    if masked:
        import numpy as np

        rng = np.random.default_rng(1)

    def one_step():
        nonlocal obs
        if masked:
            obs = env.step(masked_actions(obs, rng))[0]
        else:
            env.step_random()

    # Untimed steps first, as long as run.ts warms its in-process cell up: the JIT and the first visits of ToolMaze's
    # canonical instances (cached per process) cost far more than a steady step, and 3 steps left most of that in a
    # 2 s cell on a loaded machine, on both sides but in different amounts.
    w0 = time.perf_counter()
    warm = 0
    while warm < 3 or time.perf_counter() - w0 < warmup:
        one_step()
        warm += 1
    lat = []
    steps = 0
    c0, s0 = time.process_time(), proc_cpu_s(server_pids)
    t0 = time.perf_counter()
    deadline = t0 + seconds
    while True:
        s = time.perf_counter()
        one_step()
        lat.append(time.perf_counter() - s)
        steps += 1
        if s > deadline and steps >= 20:
            break
    dt = time.perf_counter() - t0
    client_cpu, server_cpu = time.process_time() - c0, proc_cpu_s(server_pids) - s0
    # One representative request/response pair, for the echo baseline and the payload size column (with
    # sharding: the first shard's, so the echo moves one shard's bytes per round trip, a generous baseline).
    shard = env.shards[0] if all_workers else env
    fields = {"actions": masked_actions(obs, rng)[: shard.num_envs]} if masked else {"sample": True}
    req = pack({"id": 1, "op": "step", "session": shard.session, **fields})
    rid = shard.client.send("step", session=shard.session, **fields)
    raw = shard.client.recv_response(rid)
    env.close()
    n = steps * batch
    return {"steps_per_s": n / dt, "p50_ms": pct(lat, 50) * 1e3, "p99_ms": pct(lat, 99) * 1e3,
            "batches": steps, "client_cpu_us": client_cpu / n * 1e6, "server_cpu_us": server_cpu / n * 1e6}, req, raw


def echo_run(sock, req, resp_obj, seconds, echo_pids=()):
    """Primes the echo server with the response map, then round-trips the request bytes in lockstep."""
    sock.send(msgpack.packb({"prime": resp_obj}, use_bin_type=True))
    sock.recv()
    lat = []
    n = 0
    c0, s0 = time.process_time(), proc_cpu_s(echo_pids)
    t0 = time.perf_counter()
    deadline = t0 + seconds
    while True:
        s = time.perf_counter()
        sock.send(req)
        r = unpack(sock.recv())
        assert r["ok"]
        lat.append(time.perf_counter() - s)
        n += 1
        if s > deadline and n >= 20:
            break
    dt = time.perf_counter() - t0
    return {"rt_per_s": n / dt, "p50_ms": pct(lat, 50) * 1e3, "p99_ms": pct(lat, 99) * 1e3, "round_trips": n,
            "client_cpu_s": time.process_time() - c0, "server_cpu_s": proc_cpu_s(echo_pids) - s0}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--address", required=True)
    ap.add_argument("--echo")
    ap.add_argument("--env", default="ToolMaze-v0")
    ap.add_argument("--mode", choices=["throughput", "soak"], default="throughput")
    ap.add_argument("--batches", default="1,8,64,256")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--info", choices=["all", "none"], default="all")
    ap.add_argument("--total", type=int, default=1_000_000)
    ap.add_argument("--options", default="{}")
    ap.add_argument("--warmup", type=float, default=1.0, help="untimed seconds of steps before each cell (at least 3 steps)")
    ap.add_argument("--all-workers", action="store_true", help="shard each vector env over every server worker")
    ap.add_argument("--numpy", action="store_true", help="the client's numpy mode (packed observations when the space allows)")
    ap.add_argument("--masked", action="store_true", help="random valid actions chosen by the client from the action masks")
    ap.add_argument("--server-pids", default="", help="comma-separated pids of the bridge workers (CPU accounting)")
    ap.add_argument("--echo-pid", type=int, default=0, help="pid of the echo server (CPU accounting)")
    args = ap.parse_args()
    options = json.loads(args.options)
    info_keys = None if args.info == "all" else []
    client = rg.Client(args.address, timeout=300)
    if args.mode == "soak":
        batch = int(args.batches.split(",")[-1])
        if args.all_workers:
            env = rg.make_vec(args.env, batch, endpoints=client.worker_endpoints, seed=2, info_keys=info_keys, **options)
        else:
            env = client.make_vec(args.env, batch, seed=2, info_keys=info_keys, **options)
        env.reset()
        n = 0
        t0 = time.perf_counter()
        shown = t0
        while n < args.total:
            env.step_random()
            n += batch
            if time.perf_counter() - shown >= 1.0:  # run.ts draws these as a progress bar: a soak takes minutes
                shown = time.perf_counter()
                print(json.dumps({"mode": "progress", "done": n, "total": args.total}), flush=True)
        dt = time.perf_counter() - t0
        env.close()
        print(json.dumps({"mode": "soak", "env_steps": n, "seconds": dt, "steps_per_s": n / dt}), flush=True)
        return
    echo = None
    if args.echo:
        echo = zmq.Context.instance().socket(zmq.DEALER)
        echo.setsockopt(zmq.LINGER, 0)
        echo.connect(args.echo)
    for b in [int(x) for x in args.batches.split(",")]:
        pids = [int(p) for p in args.server_pids.split(",") if p]
        res, req, raw = bridge_run(client, args.env, b, args.seconds, info_keys, options, args.all_workers, pids, args.numpy,
                                   args.masked, args.warmup)
        row = {"mode": "throughput", "env": args.env, "batch": b, "info": args.info, "bridge": res,
               "request_bytes": len(req), "response_bytes": len(pack(raw))}
        if echo is not None:
            e = echo_run(echo, req, raw, args.seconds, [args.echo_pid] if args.echo_pid else [])
            e["steps_per_s"] = e["rt_per_s"] * b
            e["client_cpu_us"] = e.pop("client_cpu_s") / (e["round_trips"] * b) * 1e6
            e["server_cpu_us"] = e.pop("server_cpu_s") / (e["round_trips"] * b) * 1e6
            row["echo"] = e
            row["ratio"] = res["steps_per_s"] / e["steps_per_s"]
        print(json.dumps(row), flush=True)
    client.close()


if __name__ == "__main__":
    main()
