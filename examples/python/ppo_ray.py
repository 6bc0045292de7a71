"""PPO rollouts on Ray: `npm run train -- ... --ray local|ADDRESS --rollout-workers K` (examples/python/ppo_masked.py).

K rollout actors each hold a slice of the training vector env (recovery_gym.ray.plan_layout over every bridge
endpoint) and a copy of the policy; the driver sends the weights once per update (one object in Ray's store for
all workers), gathers the K rollouts, concatenates them along the env axis and learns. Bridge servers run as
actors on every node (recovery_gym.ray.start_servers) unless --endpoint names a running one.

Determinism: worker k draws its task seeds from default_rng(seed) (k = 0) or default_rng([seed, k]), and samples
actions from a torch stream: worker 0 is lent the trainer's own stream for each rollout and hands it back, the
others keep one seeded from (seed, k). So `--rollout-workers 1` reproduces the single-process trainer exactly,
and K workers give the same run every time for the same seed and K, for as long as the learning rate (annealed
with wall-clock time by ppo_masked.train) is the same.
"""
from __future__ import annotations

import os
import sys
from typing import Any, Dict, List, Optional, Tuple

import ray
import torch
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.normpath(os.path.join(HERE, "..", "..", "bridge", "python"))
sys.path.insert(0, PKG)

import recovery_gym as rg  # noqa: E402
from recovery_gym import ray as rgray  # noqa: E402


def init_ray(address: str, collector_package: str, num_workers: int) -> bool:
    """Connects to (``address``) or starts (``"local"``) a Ray cluster; returns whether this call started it.
    Actors must import recovery_gym and the collector: a local cluster inherits PYTHONPATH from here; a remote one
    gets recovery_gym shipped as a runtime-env module and the collector's top-level package (``collector_package``)
    pickled by value (torch must be installed on its nodes)."""
    if ray.is_initialized():
        return False
    if address == "local":
        extra = [HERE, PKG] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])
        os.environ["PYTHONPATH"] = os.pathsep.join(extra)
        ray.init(num_cpus=max(num_workers, os.cpu_count() or 1), include_dashboard=False, log_to_driver=False,
                 configure_logging=False)
    else:
        # Registering a package registers all its modules, which import each other.
        if collector_package != "__main__":  # __main__ is pickled by value anyway
            ray.cloudpickle.register_pickle_by_value(sys.modules[collector_package])
        ray.init(address=address, runtime_env={"py_modules": [os.path.dirname(rg.__file__)]})
    return True


class RayRollouts:
    """The collectors of ppo_masked.train() as Ray actors: ``start()``, ``collect(agent)``, ``close()``."""

    def __init__(self, cfg: Any, collector_cls: type):
        k = int(cfg.rollout_workers)
        if k < 1:
            raise ValueError(f"--rollout-workers: expected at least 1, got {k}")
        if k > cfg.num_envs:
            raise ValueError(f"--rollout-workers: {k} workers need at least as many envs, got --num-envs {cfg.num_envs}")
        self._started = init_ray(cfg.ray, collector_cls.__module__.split(".")[0], k)
        self.group: Optional[rgray.ServerGroup] = None
        self.actors: List[Any] = []
        try:
            if cfg.endpoint:
                endpoints, nodes, self.client_kwargs = rg.discover_endpoints(cfg.endpoint), None, {}
            else:
                self.group = rgray.start_servers(per="node", workers=cfg.workers)
                endpoints, nodes, self.client_kwargs = self.group.endpoints, self.group.endpoint_nodes, self.group.client_kwargs()
            self.endpoint = endpoints[0]  # evaluation runs in the driver, on the first endpoint
            actor_cls = ray.remote(collector_cls)
            for w, part in enumerate(rgray.plan_layout(cfg.num_envs, len(endpoints), k)):
                opts: Dict[str, Any] = {"num_cpus": 1}
                if nodes:  # next to the server holding most of its envs, when that node has room
                    home = nodes[max(part["parts"], key=lambda p: p[1])[0]]
                    opts["scheduling_strategy"] = NodeAffinitySchedulingStrategy(home, soft=True)
                self.actors.append(actor_cls.options(**opts).remote(
                    cfg, [endpoints[e] for e, _ in part["parts"]], part["num_envs"], env_offset=part["env_offset"],
                    counts=[c for _, c in part["parts"]], worker=w, client_kwargs=self.client_kwargs))
        except BaseException:
            self.close()
            raise

    def start(self) -> Tuple[int, int]:
        shapes = ray.get([a.start.remote() for a in self.actors])
        return shapes[0]

    def collect(self, agent: torch.nn.Module) -> Dict[str, Any]:
        weights = ray.put({name: t.detach().clone() for name, t in agent.state_dict().items()})
        futures = [a.collect_remote.remote(weights, torch.get_rng_state() if w == 0 else None)
                   for w, a in enumerate(self.actors)]
        parts = ray.get(futures)
        torch.set_rng_state(parts[0]["rng_state"])  # the trainer's stream, moved on by worker 0's sampling
        # Workers hold contiguous env slices in order, so concatenating along the env axis is the one big batch.
        buf = tuple(torch.cat([p["buf"][i] for p in parts], dim=1) for i in range(len(parts[0]["buf"])))
        return {"buf": buf, "next_x": torch.cat([p["next_x"] for p in parts]), "next_m": torch.cat([p["next_m"] for p in parts]),
                "next_done": torch.cat([p["next_done"] for p in parts]),
                "returns": [r for p in parts for r in p["returns"]], "successes": [s for p in parts for s in p["successes"]],
                "env_seconds": max(p["env_seconds"] for p in parts)}

    def close(self) -> None:
        if self.actors:
            try:
                ray.get([a.close.remote() for a in self.actors], timeout=30)
            except Exception:  # noqa: BLE001 - a dead worker's sessions die with its connection
                pass
            for a in self.actors:
                ray.kill(a)
            self.actors = []
        if self.group is not None:
            self.group.shutdown()
            self.group = None
        if self._started and ray.is_initialized():
            ray.shutdown()
            self._started = False
