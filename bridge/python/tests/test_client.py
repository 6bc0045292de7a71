import threading
import time

import msgpack
import pytest
import zmq

import recovery_gym as rg
from recovery_gym.errors import error_from_response


def test_hello_lists_versions_envs_and_workers(client, endpoints):
    info = client.server_info
    assert info["version"] == 1
    assert info["codec"] == "msgpack"
    assert "Demo-v0" in info["env_ids"]
    assert sorted(info["env_ids"]) == sorted(client.env_ids())
    assert info["endpoints"] == endpoints
    assert client.ping() is True


def test_every_env_make_reset_step(client, env_ids):
    for env_id in env_ids:
        env = client.make(env_id)
        obs, info = env.reset(seed=3)
        assert obs is not None and isinstance(info, dict)
        steps = 0
        for _ in range(12):
            obs, reward, terminated, truncated, info, action = env.step_random()
            assert isinstance(reward, float) and isinstance(terminated, bool) and isinstance(truncated, bool)
            steps += 1
            if terminated or truncated:
                obs, info = env.reset()
        assert steps == 12
        env.close()
        vec = client.make_vec(env_id, 4, seed=1)
        obs, infos = vec.reset()
        assert len(obs) == 4
        for _ in range(6):
            obs, rewards, terminated, truncated, infos, actions = vec.step_random()
            assert len(obs) == len(rewards) == len(terminated) == len(truncated) == len(actions) == 4
            for k, v in infos.items():
                assert len(v) == 4 or isinstance(v, dict), k
        vec.close()


def test_explicit_actions_and_numpy(client):
    np = pytest.importorskip("numpy")
    vec = client.make_vec("Demo-v0", 3, seed=5, use_numpy=True)
    obs_np, _ = vec.reset(seed=np.int64(5))  # numpy integers are accepted wherever ints are
    obs, _ = vec.reset(seed=5)
    assert obs_np == obs
    _, rewards, terminated, truncated, _, actions = vec.step_random()
    assert isinstance(rewards, np.ndarray) and rewards.dtype == np.float64
    assert terminated.dtype == np.bool_ and truncated.shape == (3,)
    obs, rewards, terminated, truncated, infos = vec.step(actions)
    assert len(obs) == 3
    vec.close()


def test_delta_and_full_encodings_agree(client):
    runs = []
    for enc in ("delta", "full"):
        vec = client.make_vec("Demo-v0", 2, seed=9, obs_encoding=enc)
        o, _ = vec.reset()
        traj = [o]
        for _ in range(15):
            traj.append(vec.step_random()[0])
        vec.close()
        runs.append(traj)
    assert runs[0] == runs[1]


def test_pipelined_requests_are_matched_by_id(client):
    vec = client.make_vec("Demo-v0", 2, seed=1)
    vec.reset()
    rids = [client.send("ping") for _ in range(20)]
    rids.append(client.send("step", session=vec.session, sample=True))
    # collect in reverse order: earlier responses are stashed until asked for
    results = [client.recv(r) for r in reversed(rids)]
    assert all(r == {"pong": True} for r in results[1:])
    assert len(results[0]["observations"]) == 2
    vec.close()


def test_error_mapping(client, address):
    with pytest.raises(rg.UnknownEnvError):
        client.make("NoSuchEnv-v0")
    with pytest.raises(rg.ValidationError) as e:
        client.make("Demo-v0", no_such_option=1)
    assert "no_such_option" in str(e.value) or e.value.details
    with pytest.raises(rg.UnknownOpError):
        client.request("fly")
    with pytest.raises(rg.UnsupportedVersionError) as e:
        client.request("hello", versions=[99])
    assert e.value.details["supported"] == [1]
    with pytest.raises(rg.InvalidMessageError):
        client.recv(client.send_raw(b"\xc1\xc1"))
    with pytest.raises(rg.CapacityReachedError):
        client.make_vec("Demo-v0", 10**6)
    vec = client.make_vec("Demo-v0", 2)
    with pytest.raises(rg.EnvError):
        vec.step_random()  # before reset
    vec.reset(seed=0)
    with pytest.raises(rg.ValidationError):
        vec.step([{"type": "tool_call"}])  # wrong count
    # another client cannot use this session
    with rg.Client(address, timeout=10) as other:
        with pytest.raises(rg.UnknownSessionError):
            other.request("step", session=vec.session, sample=True)
    vec.close()
    with pytest.raises(rg.UnknownSessionError):
        client.request("reset", session=vec.session)
    limit = client.server_info["limits"]["maxMessageBytes"]
    with pytest.raises(rg.MessageTooLargeError):
        client.request("ping_" , pad="x" * (limit + 1))
    assert client.ping()


def test_error_classes_cover_every_code():
    codes = ["INVALID_MESSAGE", "UNSUPPORTED_VERSION", "UNKNOWN_OP", "VALIDATION_ERROR", "UNKNOWN_ENV",
             "UNKNOWN_SESSION", "CAPACITY_REACHED", "MESSAGE_TOO_LARGE", "ENV_ERROR", "SHUTTING_DOWN",
             "INTERNAL_ERROR"]
    for code in codes:
        err = error_from_response({"code": code, "message": "m", "details": {"x": 1}})
        assert err.code == code and type(err) is not rg.BridgeError and err.details == {"x": 1}
    future = error_from_response({"code": "FROM_THE_FUTURE", "message": "m"})
    assert type(future) is rg.BridgeError and future.code == "FROM_THE_FUTURE"


def test_timeout_raises_instead_of_hanging():
    ctx = zmq.Context.instance()
    silent = ctx.socket(zmq.ROUTER)
    port = silent.bind_to_random_port("tcp://127.0.0.1")
    try:
        c = rg.Client(f"tcp://127.0.0.1:{port}", timeout=0.2, hello=False)
        t0 = time.monotonic()
        with pytest.raises(rg.BridgeTimeout):
            c.ping()
        assert time.monotonic() - t0 < 2
        c.close()
    finally:
        silent.close(0)


def test_late_response_after_timeout_is_discarded():
    ctx = zmq.Context.instance()
    router = ctx.socket(zmq.ROUTER)
    port = router.bind_to_random_port("tcp://127.0.0.1")

    def serve():
        for i in range(2):
            ident, body = router.recv_multipart()
            req = msgpack.unpackb(body, raw=False)
            if i == 0:
                time.sleep(0.5)
            router.send_multipart([ident, msgpack.packb({"id": req["id"], "ok": True, "result": {"n": i}})])

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        c = rg.Client(f"tcp://127.0.0.1:{port}", timeout=0.2, hello=False)
        with pytest.raises(rg.BridgeTimeout):
            c.request("ping")
        time.sleep(0.4)
        assert c.request("ping", timeout=2) == {"n": 1}
        c.close()
    finally:
        t.join(2)
        router.close(0)


def test_gymnasium_adapter(client, env_ids, endpoints):
    """Needs gymnasium (scripts/ensure-gymnasium.sh provides it where a wheel is reachable; otherwise skips)."""
    pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import check_env
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    for env_id in env_ids:
        env = client.make(env_id).to_gymnasium()
        obs, info = env.reset(seed=0)
        assert env.observation_space.contains(obs), env_id
        check_env(env, skip_render_check=True)  # gymnasium's own checker: spaces, seeding, determinism
        env.close()
    for vec in (client.make_vec("ToolMaze-v0", 3, seed=1).to_gymnasium(),
                rg.make_vec("ToolMaze-v0", 3, endpoints=endpoints, seed=1).to_gymnasium()):
        obs, infos = vec.reset(seed=0)
        assert vec.observation_space.contains(obs)
        stats = RecordEpisodeStatistics(vec)
        ended = 0
        for _ in range(40):
            obs, rewards, terminated, truncated, infos = stats.step(stats.action_space.sample())
            assert vec.observation_space.contains(obs) and rewards.shape == (3,)
            ended += int(terminated.sum() + truncated.sum())
        assert ended > 0
        vec.close()


def test_gymnasium_absent_is_a_clear_error(client, monkeypatch):
    from recovery_gym import gym_adapter

    # Whether or not gymnasium is installed here, behave as the adapter does without it.
    monkeypatch.setattr(gym_adapter, "gymnasium", None)
    monkeypatch.setattr(gym_adapter, "_IMPORT_ERROR", ImportError("No module named 'gymnasium'"), raising=False)
    env = client.make("Demo-v0")
    with pytest.raises(ImportError, match="gymnasium"):
        env.to_gymnasium()
    env.close()


def test_tool_refs_are_on_by_default_and_change_nothing_but_bytes(client):
    on = client.make_vec("ToolMaze-v0", 4, seed=9)
    off = client.make_vec("ToolMaze-v0", 4, seed=9, tool_refs=False)
    assert on._tools is not None and off._tools is None
    assert on.reset() == off.reset()
    for _ in range(80):  # random play ends episodes every few steps, so tools are re-announced many times
        assert on.step_random() == off.step_random()
    assert len(on._tools) > 0
    on.close()
    off.close()


def test_an_unknown_tool_reference_is_a_protocol_error():
    from recovery_gym.tool_refs import expand_tool_refs

    known = {}
    assert expand_tool_refs({"newTools": [{"name": "a", "x": 1}]}, known) == {"newTools": [{"name": "a", "x": 1}]}
    assert expand_tool_refs({"newTools": ["a"]}, known) == {"newTools": [{"name": "a", "x": 1}]}
    with pytest.raises(rg.ProtocolError, match="names no schema"):
        expand_tool_refs({"newTools": ["b"]}, known)


def test_sessions_belong_to_the_identity_and_survive_a_reconnect(address):
    first = rg.Client(address, timeout=10)
    assert first.identity.startswith(b"rg-") and len(first.identity) > 16
    env = first.make_vec("Demo-v0", 2, seed=4)
    env.reset()
    first.close()  # the connection is gone; a client with the same identity reconnects (as after a network blip)
    second = rg.Client(address, timeout=10, identity=first.identity)
    env.client = second
    obs, rewards, terminated, truncated, infos, actions = env.step_random()
    assert len(obs) == 2
    stranger = rg.Client(address, timeout=10)  # another identity cannot reach the session
    with pytest.raises(rg.UnknownSessionError):
        stranger.request("step", session=env.session, sample=True)
    stranger.close()
    env.close()
    second.close()


def test_a_client_whose_hello_fails_does_not_leak_its_socket():
    ctx = zmq.Context.instance()
    router = ctx.socket(zmq.ROUTER)
    port = router.bind_to_random_port("tcp://127.0.0.1")
    made = []
    orig = rg.Client.close

    def spy(self):
        made.append(self)
        orig(self)

    rg.Client.close = spy
    try:
        with pytest.raises(rg.BridgeTimeout):
            rg.Client(f"tcp://127.0.0.1:{port}", timeout=0.2)  # nobody answers hello
    finally:
        rg.Client.close = orig
        router.close(0)
    assert len(made) == 1 and made[0]._sock.closed


def test_a_sharded_env_recovers_from_a_failed_step_and_branches_by_global_index(endpoints):
    with rg.make_vec("Demo-v0", 5, endpoints=endpoints, seed=2) as vec:
        vec.reset()
        good = {"type": "answer", "content": "x"}
        with pytest.raises(rg.ValidationError):
            vec.step([good, good, good, good, {"type": "no-such-kind"}])  # the last shard refuses the batch
        obs, rewards, terminated, truncated, infos = vec.step([good] * 5)  # not wedged: the next step works
        assert len(obs) == 5
        vec.reset(seed=2)
        vec.step_random()
        snap = vec.get_state(4)  # env 4 lives on the last shard
        assert vec.set_state(snap, 0)["step"] == 1
        with pytest.raises(IndexError):
            vec.get_state(5)
