"""Recovery Gym on a Ray cluster: bridge servers and rollout workers as Ray actors.

``start_servers()`` runs one ``recovery-gym serve`` per node (or per CPU bundle of a placement group) inside a
:class:`BridgeServer` actor that owns the process: the server goes down with its actor, however the actor ends.
``make_vec()`` spreads one vector env over every server with the usual sharding rule (``recovery_gym.make_vec``),
and ``make_rollout_workers()`` splits one vector env over K :class:`RolloutWorker` actors, each of which makes its
own clients. Same seeds give the same trajectories as one local server, whatever the number of servers, workers
or nodes. See docs/SCALING.md.
"""
try:
    import ray as _ray  # noqa: F401
except ImportError as e:  # pragma: no cover - exercised only without Ray
    raise ImportError(
        "recovery_gym.ray needs Ray 2.x: pip install 'recovery-gym[ray]' (in the repository: "
        "PYTHONPATH=$(bash scripts/ensure-ray.sh))"
    ) from e

from .rollout import Policy, RolloutWorker, RolloutWorkerActor, make_rollout_workers, plan_layout
from .server import BridgeServer, serve_command
from .servers import BridgeServerActor, ServerGroup, make_vec, start_servers

__all__ = ["BridgeServer", "BridgeServerActor", "ServerGroup", "start_servers", "make_vec", "plan_layout", "Policy",
           "RolloutWorker", "RolloutWorkerActor", "make_rollout_workers", "serve_command"]
