"""Gymnasium registration: ``import recovery_gym.gym`` registers every Recovery Gym env with Gymnasium, so

>>> import gymnasium, recovery_gym.gym
>>> env = gymnasium.make("RecoveryGym/ToolMaze-v0", endpoint="tcp://127.0.0.1:5555", complexity="C2")

works like any Gymnasium env (each env opens its own connection and closes it with the env). Keyword arguments
other than the connection's (``endpoint``, ``timeout``, ``seed``, ``render_mode``) are the env's options, in either
spelling (``max_steps`` or ``maxSteps``). Needs gymnasium; a bridge server (``npm start``) must be running.
"""
from __future__ import annotations

from typing import Any, Iterable, List, Optional

import gymnasium

from .client import DEFAULT_ADDRESS, Client
from .gym_adapter import to_gymnasium_env

#: Gymnasium namespace of the registered ids: ``RecoveryGym/<env id>``.
NAMESPACE = "RecoveryGym"

#: The envs a stock server serves (``recovery-gym list``); a test checks this list against a live server.
ENV_IDS: List[str] = ["ToolMaze-v0", "PlanBenchXL-v0", "FailingTools-v0", "ToolMisuseBench-v0", "Demo-v0"]


def make_env(env_id: str, endpoint: str = DEFAULT_ADDRESS, timeout: Optional[float] = 30.0, seed: Optional[int] = None,
             render_mode: Optional[str] = None, **options: Any) -> Any:
    """The ``gymnasium.Env`` behind every registered id: connects to ``endpoint`` and makes ``env_id`` there."""
    client = Client(endpoint, timeout=timeout)
    try:
        remote = client.make(env_id, seed=seed, **options)
        return to_gymnasium_env(remote, render_mode=render_mode, owned_client=client)
    except BaseException:
        client.close()
        raise


def register_envs(env_ids: Optional[Iterable[str]] = None, namespace: str = NAMESPACE) -> List[str]:
    """Registers ``namespace/<id>`` for each id (default :data:`ENV_IDS`; pass ``Client(...).env_ids()`` for a
    server with custom envs) and returns the registered Gymnasium ids. Registering an id again replaces it."""
    registered = []
    for env_id in env_ids if env_ids is not None else ENV_IDS:
        gym_id = f"{namespace}/{env_id}"
        gymnasium.registry.pop(gym_id, None)
        gymnasium.register(id=gym_id, entry_point=make_env, kwargs={"env_id": env_id})
        registered.append(gym_id)
    return registered


register_envs()
