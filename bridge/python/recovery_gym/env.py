"""One remote env with Gymnasium's ``Env`` signatures: a vector env of one on the server (vector_env.py)."""
from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Tuple

from ._checks import check_seed
from ._episode_log import EpisodeLog
from ._pickling import refuse_pickle
from .errors import EnvError
from .vector_env import RemoteVectorEnv

if TYPE_CHECKING:  # pragma: no cover
    from .client import Client


def unbatch_info(infos: Dict[str, Any], i: int) -> Dict[str, Any]:
    """Env ``i``'s info from Gymnasium-1.x batched infos (``info[k][i]`` valid where ``info['_' + k][i]``)."""
    out: Dict[str, Any] = {}
    for k, v in infos.items():
        if k.startswith("_") and k[1:] in infos:
            continue
        mask = infos.get("_" + k)
        if mask is not None and not mask[i]:
            continue
        if isinstance(v, dict):
            out[k] = unbatch_info(v, i)
        else:
            out[k] = v[i]
    return out


class RemoteEnv:
    """One remote env with Gymnasium's ``Env`` signatures (no autoreset: call ``reset`` after an episode ends)."""

    def __init__(self, client: "Client", env_id: str, options: Optional[Dict[str, Any]] = None, *,
                 seed: Optional[int] = None, obs_encoding: str = "delta", info_keys: Optional[List[str]] = None,
                 tool_refs: Optional[bool] = None):
        self._vec = RemoteVectorEnv(client, env_id, 1, options, seed=seed, autoreset_mode="Disabled",
                                    obs_encoding=obs_encoding, info_keys=info_keys, tool_refs=tool_refs)
        self.env_id = env_id
        self.observation_space: Dict[str, Any] = self._vec.single_observation_space
        self.action_space: Dict[str, Any] = self._vec.single_action_space
        self.spec = self._vec.spec
        self.metadata = self._vec.metadata
        self._episode: Optional[EpisodeLog] = None

    @property
    def session(self) -> str:
        return self._vec.session

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[Any, Dict[str, Any]]:
        # One seed, never a list: a list is a vector env's argument and would be refused in its terms.
        obs, infos = self._vec.reset(seed=check_seed(seed, "reset()"), options=options)
        info = unbatch_info(infos, 0)
        self._episode = EpisodeLog(str(info.get("taskId", "?")), obs[0])
        return obs[0], info

    def step(self, action: Any) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        with self._single_env_errors():
            obs, rew, term, trunc, infos = self._vec.step([action])
        return self._logged(action, obs[0], float(rew[0]), bool(term[0]), bool(trunc[0]), unbatch_info(infos, 0))

    def step_random(self) -> Tuple[Any, float, bool, bool, Dict[str, Any], Any]:
        with self._single_env_errors():
            obs, rew, term, trunc, infos, actions = self._vec.step_random()
        return self._logged(actions[0], obs[0], float(rew[0]), bool(term[0]), bool(trunc[0]), unbatch_info(infos, 0)) + (actions[0],)

    def sample_action(self) -> Any:
        """An action sampled by the server from the current action space (seeded by ``make``, or by the last
        :meth:`seed_action_space`), without stepping."""
        return self._vec.sample_actions()[0]

    def seed_action_space(self, seed: int) -> None:
        """Makes the next :meth:`sample_action` draws reproducible: they restart from ``seed``."""
        self._vec.seed_sampler(seed)

    def render(self) -> str:
        """A readable text view of the episode so far (the in-process ``env.render()``'s format, render mode
        ``"ansi"``), built from what this client saw: actions, responses, events and rewards."""
        if self._episode is None:
            return f"== {self.env_id} · no episode yet: call reset() ==\n"
        return self._episode.render(self.env_id)

    def _logged(self, action: Any, obs: Any, reward: float, terminated: bool, truncated: bool,
                info: Dict[str, Any]) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        if self._episode is not None:
            self._episode.add(action, obs, reward, info, terminated or truncated)
        return obs, reward, terminated, truncated, info

    @contextmanager
    def _single_env_errors(self) -> Iterator[None]:
        """The server runs this env as a vector env of one; its reset-needed errors are re-worded for one env."""
        try:
            yield
        except EnvError as e:
            if e.details.get("libraryCode") != "RESET_NEEDED":
                raise
            what = "before reset()" if self._episode is None else "after the episode ended; call reset() first"
            raise EnvError(f"step() called {what}", e.details) from None

    def get_state(self) -> Dict[str, Any]:
        """Snapshot of the episode (plain data) for counterfactual replay."""
        return self._vec.get_state(0)

    def set_state(self, state: Dict[str, Any]) -> Any:
        """Restores a snapshot taken with ``get_state`` (same env id and options); returns the observation."""
        return self._vec.set_state(state, 0)

    def close(self) -> None:
        self._vec.close()

    def to_gymnasium(self) -> Any:
        from .gym_adapter import to_gymnasium_env

        return to_gymnasium_env(self)

    def __reduce__(self) -> Any:
        refuse_pickle(self)

    def __enter__(self) -> "RemoteEnv":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
