"""Why clients and envs refuse to be pickled, and what to do instead.

Each owns a ZeroMQ socket bound to this process (and its sessions belong to the socket's routing id), so a copy in
another process could never work. Without this guard pickling fails deep inside pyzmq with "no default __reduce__
due to non-trivial __cinit__", which does not say what to do; Ray, multiprocessing and friends pickle what they
are handed, so that is where users meet it.
"""
from typing import NoReturn


def refuse_pickle(obj: object) -> NoReturn:
    name = type(obj).__name__
    raise TypeError(
        f"recovery_gym {name} cannot be pickled or sent to another process: it owns a ZeroMQ socket that lives in "
        f"this process. Pass the server endpoints instead and create the {name} inside the Ray actor or task (or "
        "child process) that uses it; with Ray, recovery_gym.ray.RolloutWorker does this for you, e.g. "
        "RolloutWorker.remote(servers.endpoints, env_id, num_envs, seed=...)."
    )
