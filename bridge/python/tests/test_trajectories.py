"""Same seeds => same trajectories, in-process vs over the bridge vs sharded over several workers.
Whole trajectories (observations, rewards, flags, infos, actions) are compared by hash."""
import hashlib
import json

import recovery_gym as rg


def _canon(x):
    if isinstance(x, float) and x.is_integer() and abs(x) < 2**53:
        return int(x)
    if isinstance(x, dict):
        return {str(k): _canon(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_canon(v) for v in x]
    return x


def traj_hash(t):
    return hashlib.sha256(json.dumps(_canon(t), sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def bridge_rollout(client, env_id, num_envs, seed, steps, **options):
    vec = client.make_vec(env_id, num_envs, seed=seed, **options)
    obs, infos = vec.reset()
    out = {"reset": {"observations": obs, "infos": infos}, "steps": []}
    for _ in range(steps):
        o, r, te, tr, inf, acts = vec.step_random()
        out["steps"].append({"actions": acts, "observations": o, "rewards": r, "terminated": te, "truncated": tr,
                             "infos": inf})
    vec.close()
    return out


DISCRETE_IDS = ["Demo-v0", "ToolMaze-v0", "ToolMaze-v1", "FailingTools-v0", "ToolMisuseBench-v0", "PlanBenchXL-v0"]


def every_env_items(env_ids):
    return [{"env_id": e, "num_envs": 3, "seed": 11 + i, "steps": 30} for i, e in enumerate(env_ids)]


def discrete_items():
    return [{"env_id": e, "num_envs": 3, "seed": 5 + i, "steps": 25, "options": {"actionMode": "discrete"}}
            for i, e in enumerate(DISCRETE_IDS)]


def reference_items(env_ids):
    """Every in-process reference the session compares against, for conftest.py's reference_rollouts."""
    return every_env_items(env_ids) + discrete_items()


def rollout_key(item):
    return json.dumps(item, sort_keys=True)


def test_bridge_equals_inprocess_for_every_env(client, env_ids, reference_rollouts):
    items = every_env_items(env_ids)
    ref = [reference_rollouts[rollout_key(it)] for it in items]
    for it, want in zip(items, ref):
        got = bridge_rollout(client, it["env_id"], it["num_envs"], it["seed"], it["steps"])
        assert traj_hash(got) == traj_hash(want), it["env_id"]
    # and the hash is sensitive: another seed gives another trajectory
    other = bridge_rollout(client, items[0]["env_id"], 3, 999, 30)
    assert traj_hash(other) != traj_hash(ref[0])


def _collect(env, steps, actions=None):
    obs, infos = env.reset()
    t = {"obs": [obs], "r": [], "infos": [infos], "a": []}
    for k in range(steps):
        if actions is None:
            o, r, te, tr, inf, a = env.step_random()
        else:
            a = actions[k]
            o, r, te, tr, inf = env.step(a)
        t["a"].append(a), t["obs"].append(o), t["r"].append([list(r), list(te), list(tr)]), t["infos"].append(inf)
    return t


def test_sharding_does_not_change_trajectories(client, endpoints):
    env_id, n, seed, steps = "Demo-v0", 7, 21, 25
    single = client.make_vec(env_id, n, seed=seed)
    ref = _collect(single, steps)
    single.close()
    for eps in ([endpoints[0]], endpoints, endpoints + endpoints[:1]):
        # server-sampled actions and make-seeded resets
        with rg.make_vec(env_id, n, endpoints=eps, seed=seed) as sharded:
            assert traj_hash(_collect(sharded, steps)) == traj_hash(ref), eps
        # explicit actions and an explicit reset seed
        with rg.make_vec(env_id, n, endpoints=eps, seed=seed) as sharded:
            assert traj_hash(_collect(sharded, steps, ref["a"])) == traj_hash(ref), eps


def test_split_and_merge_helpers():
    assert rg.split_counts(7, 3) == [3, 2, 2]
    assert rg.split_counts(2, 4) == [1, 1]
    merged = rg.merge_infos([{"a": [1, 2], "_a": [True, True]}, {"b": [3], "_b": [True]}], [2, 1])
    assert merged == {"a": [1, 2, None], "_a": [True, True, False], "b": [None, None, 3], "_b": [False, False, True]}
