"""Chat mode over the bridge: a stand-in model replaying each family's best policy as OpenAI tool calls scores
exactly that policy's metrics; corrupted messages are answered, not raised; rollout() is concurrent and resumable."""
import asyncio
import json
import subprocess

import pytest

from recovery_gym import ValidationError
from recovery_gym.chat import AsyncChatEnv, ChatEnv, rollout, summarize

FAMILIES = [
    ("Demo-v0", "careful", {"fault": "permanent"}),
    ("ToolMaze-v0", "oracle", {}),
    ("FailingTools-v0", "oracle", {}),
    ("ToolMisuseBench-v0", "oracle", {}),
    ("PlanBenchXL-v0", "oracle", {}),
]
SEEDS = [0, 1, 2]


def policy_episodes(repo_root, items):
    res = subprocess.run(["node", "--import", "tsx", "bridge/python/tests/policy_episodes.ts"], cwd=repo_root,
                         input=json.dumps(items).encode(), capture_output=True, timeout=300)
    assert res.returncode == 0, res.stderr.decode()[-2000:]
    return json.loads(res.stdout)


@pytest.fixture(scope="module")
def reference(repo_root):
    items = [{"env_id": e, "policy": p, "seeds": SEEDS, "options": o} for e, p, o in FAMILIES]
    return {e: eps for (e, _, _), eps in zip(FAMILIES, policy_episodes(repo_root, items))}


def as_tool_call(action, call_id):
    """The stand-in model: an env action written as an OpenAI assistant message with one tool call."""
    if action["type"] == "tool_call":
        name, args = action["name"], action.get("arguments", {})
    else:
        name, args = action["type"], {k: v for k, v in action.items() if k != "type"}
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}


@pytest.mark.parametrize("env_id,policy,options", FAMILIES)
def test_replayed_policy_scores_the_policys_metrics(address, reference, env_id, policy, options):
    with ChatEnv(env_id, address=address, **options) as env:
        for ref in reference[env_id]:
            messages, tools = env.reset(seed=ref["seed"])
            assert [m["role"] for m in messages] == ["system", "user"]
            assert {"answer", "abort"} <= {t["function"]["name"] for t in tools}
            info = {}
            for k, action in enumerate(ref["actions"]):
                new, _, term, trunc, info = env.step(as_tool_call(action, f"model-{k}"))
                assert new[0]["role"] == "assistant" and new[1]["tool_call_id"] == new[0]["tool_calls"][0]["id"]
                if term or trunc:
                    assert k == len(ref["actions"]) - 1
                    break
            assert info["metrics"] == ref["metrics"], env_id
            assert info.get("success") == ref["success"]
            assert info["terminationReason"] == ref["terminationReason"]
            assert env.transcript()["messages"] == env.messages


@pytest.mark.parametrize("env_id,policy,options", FAMILIES)
def test_corrupted_messages_are_episode_events_and_messages(address, reference, env_id, policy, options):
    with ChatEnv(env_id, address=address, **options) as env:
        for ref in reference[env_id]:
            env.reset(seed=ref["seed"])
            actions = list(ref["actions"])
            done, n, mistakes = False, 0, 0
            while not done:
                assert n < 500
                if n % 3 == 0:  # every third message is a mistake: broken JSON, an unknown tool, plain text
                    kind = mistakes % 3
                    mistakes += 1
                    if kind == 0:
                        msg = as_tool_call(actions[0] if actions else {"type": "abort"}, f"bad-{n}")
                        msg["tool_calls"][0]["function"]["arguments"] = '{"broken": '
                    elif kind == 1:
                        msg = {"role": "assistant", "content": None, "tool_calls": [
                            {"id": f"bad-{n}", "type": "function", "function": {"name": "no_such_tool_xyz", "arguments": "{}"}}]}
                    else:
                        msg = "I think I am done here."
                else:
                    kind = -1
                    msg = as_tool_call(actions.pop(0) if actions else {"type": "abort", "reason": "out of actions"}, f"ok-{n}")
                new, _, term, trunc, info = env.step(msg)
                done = term or trunc
                types = {e["type"] for e in info["events"]}
                if kind == 0:
                    assert "invalid_action" in types
                    assert new[0]["tool_calls"][0]["function"]["arguments"] == '{"broken": '
                    assert new[1]["role"] == "tool" and "invalid_action" in new[1]["content"]
                elif kind == 1:
                    assert types & {"tool_error", "invalid_action"}
                    assert new[1]["role"] == "tool" and "error" in new[1]["content"].lower()
                elif kind == 2:
                    assert "invalid_action" in types
                    assert new[0] == {"role": "assistant", "content": "I think I am done here."}
                    assert new[1]["role"] == "user" and "no tool call" in new[1]["content"]
                n += 1
            assert mistakes > 0


def test_hermes_text_strict_mode_and_bad_options(address):
    with ChatEnv("Demo-v0", address=address) as env:
        _, tools = env.reset(seed=0)
        name = tools[0]["function"]["name"]
        new, *_ = env.step(f'<tool_call>{{"name": "{name}", "arguments": {{}}}}</tool_call>')
        assert new[0]["tool_calls"][0]["function"]["name"] == name
    with ChatEnv("Demo-v0", address=address, invalid_action="raise") as strict:
        strict.reset(seed=0)
        with pytest.raises(ValidationError, match="expected a tool call"):
            strict.step("no call here")
    with pytest.raises(ValidationError, match="obsFormat|chatParser"):
        ChatEnv("Demo-v0", address=address, chat_parser="nope")


def scripted_model():
    """A stand-in model: calls the first visible tool once with no arguments, then answers."""
    calls = {"n": 0}

    async def generate(messages, tools):
        calls["n"] += 1
        await asyncio.sleep(0)
        if not any(m["role"] == "tool" for m in messages):
            return as_tool_call({"type": "tool_call", "name": tools[0]["function"]["name"], "arguments": {}}, "c")
        return as_tool_call({"type": "answer", "content": "42"}, "a")

    return generate, calls


def test_rollout_is_concurrent_scored_and_resumable(address, tmp_path):
    out = tmp_path / "chat.jsonl"
    generate, calls = scripted_model()
    full = asyncio.run(rollout(generate, "Demo-v0", 5, 3, address=address, out=str(out)))
    assert [t["seed"] for t in full] == list(range(5))
    assert calls["n"] == 10 and all(t["length"] == 2 and t["terminationReason"] for t in full)
    assert summarize(full)["episodes"] == 5
    # A run cut short: two whole lines and half a third. The rerun plays only the three missing seeds.
    lines = out.read_bytes().split(b"\n")
    out.write_bytes(b"\n".join(lines[:2]) + b"\n" + lines[2][:20])
    generate2, calls2 = scripted_model()
    again = asyncio.run(rollout(generate2, "Demo-v0", 5, 2, address=address, out=str(out)))
    assert calls2["n"] == 6
    strip = lambda ts: [{k: v for k, v in t.items()} for t in ts]
    assert strip(again) == strip(full)
    assert len(out.read_text().strip().split("\n")) == 5


def test_async_env_steps_concurrently(address):
    async def main():
        envs = [await AsyncChatEnv.create("ToolMaze-v0", address=address) for _ in range(3)]
        try:
            resets = await asyncio.gather(*(e.reset(seed=i) for i, e in enumerate(envs)))
            assert all(msgs[1]["role"] == "user" for msgs, _ in resets)
            steps = await asyncio.gather(*(e.step("plain text") for e in envs))
            assert all(new[1]["role"] == "user" for new, *_ in steps)
        finally:
            for e in envs:
                await e.close()

    asyncio.run(main())


def test_llm_rollout_example_with_a_local_openai_compatible_endpoint(address, repo_root, tmp_path):
    """examples/python/llm_rollout.py --base-url against a loopback server speaking /chat/completions (scripted)."""
    import http.server
    import sys
    import threading

    seen = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - the stdlib's name
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append((self.path, body["model"], [t["function"]["name"] for t in body["tools"]]))
            if any(m["role"] == "tool" for m in body["messages"]):
                msg = {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "x", "type": "function", "function": {"name": "abort", "arguments": '{"reason": "stub"}'}}]}
            else:  # a raw-text reply with a Hermes call block, as a server without a tool parser sends it
                msg = {"role": "assistant", "content": '<tool_call>{"name": "list_sent_email", "arguments": {}}</tool_call>'}
            data = json.dumps({"choices": [{"message": msg}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        res = subprocess.run([sys.executable, "examples/python/llm_rollout.py", "--env", "Demo-v0", "--episodes", "3",
                              "--address", address, "--base-url", f"http://127.0.0.1:{server.server_address[1]}/v1",
                              "--model", "stub", "--out", str(tmp_path / "r.jsonl")],
                             cwd=repo_root, capture_output=True, timeout=120)
    finally:
        server.shutdown()
    assert res.returncode == 0, res.stderr.decode()[-2000:]
    summary = json.loads(res.stdout.decode()[res.stdout.decode().index("{"):])
    assert summary["episodes"] == 3 and summary["meanLength"] == 2
    assert {p for p, _, _ in seen} == {"/v1/chat/completions"} and len(seen) == 6
    assert all(m == "stub" and {"answer", "abort", "send_email"} <= set(names) for _, m, names in seen)
