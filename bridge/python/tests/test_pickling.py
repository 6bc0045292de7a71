"""Clients and envs own a ZeroMQ socket of this process: pickling one (what Ray, multiprocessing and copy do with
what they are handed) fails at once with a TypeError saying what to do instead, not deep inside pyzmq."""
import copy
import pickle

import pytest

import recovery_gym as rg


def test_client_and_every_env_kind_refuse_pickling(client, endpoints):
    vec = client.make_vec("Demo-v0", 2)
    env = client.make("Demo-v0")
    sharded = rg.make_vec("Demo-v0", 3, endpoints=endpoints)
    try:
        for obj, name in ((client, "Client"), (vec, "RemoteVectorEnv"), (env, "RemoteEnv"), (sharded, "ShardedVectorEnv")):
            with pytest.raises(TypeError, match=f"{name} cannot be pickled") as err:
                pickle.dumps(obj)
            assert "inside the Ray actor or task" in str(err.value)
            with pytest.raises(TypeError, match="cannot be pickled"):
                copy.deepcopy(obj)
        # the refused objects still work
        vec.reset(seed=1)
        assert client.ping()
    finally:
        vec.close(), env.close(), sharded.close()
