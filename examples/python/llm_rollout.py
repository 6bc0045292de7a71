"""Plays Recovery Gym episodes with an LLM agent through chat mode and prints the family's metrics.

Without ``--base-url`` a scripted stand-in model plays (no weights, no network): it calls the visible tools one
after another with arguments built from their schemas and then answers with the last result. It exercises the
whole loop (messages and tools in, OpenAI tool calls out, mistakes answered by the env) but is no competent agent.
With ``--base-url`` any OpenAI-compatible endpoint plays (vLLM, llama.cpp server, Ollama, a hosted API), over plain
HTTP: no client library needed.

    node --import tsx bridge/main.ts --endpoint tcp://127.0.0.1:5555 &
    python3 examples/python/llm_rollout.py --env ToolMaze-v0 --episodes 8
    python3 examples/python/llm_rollout.py --env FailingTools-v0 --episodes 20 --concurrency 4 \\
        --base-url http://localhost:8000/v1 --model Qwen/Qwen2.5-1.5B-Instruct --out runs/ft.jsonl

With ``--out`` every finished episode is appended to a JSONL file, and running the same command again resumes.
"""
import argparse
import asyncio
import json
import os
import sys
import urllib.request
from typing import Any, Dict, List

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bridge", "python"))

from recovery_gym.chat import ChatEnv, rollout, summarize  # noqa: E402
from recovery_gym.options import parse_option_pairs  # noqa: E402


def _value_for(schema: Dict[str, Any]) -> Any:
    if "enum" in schema and schema["enum"]:
        return schema["enum"][0]
    t = schema.get("type")
    defaults = {"string": "x", "integer": 1, "number": 1.0, "boolean": True, "array": [], "object": {}}
    return defaults.get(t if isinstance(t, str) else "", "x")


def scripted_model(action_tools: List[str]):
    """The stand-in: each visible tool once (required arguments from the schema), then `answer` with the last result."""

    async def generate(messages: List[Dict[str, Any]], tools: List[Dict[str, Any]]) -> Dict[str, Any]:
        called = {c["function"]["name"] for m in messages for c in (m.get("tool_calls") or [])}
        for t in tools:
            fn = t["function"]
            if fn["name"] in action_tools or fn["name"] in called:
                continue
            params = fn.get("parameters") or {}
            args = {k: _value_for(v) for k, v in (params.get("properties") or {}).items() if k in (params.get("required") or [])}
            return _call(fn["name"], args)
        last = next((m["content"] for m in reversed(messages) if m["role"] == "tool"), "")
        return _call("answer", {"content": str(last)[:200]})

    return generate


def _call(name: str, args: Dict[str, Any]) -> Dict[str, Any]:
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": "c", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}


def http_model(base_url: str, model: str, api_key: str, temperature: float):
    """An OpenAI-compatible /chat/completions endpoint, called over plain HTTP in a worker thread."""
    url = base_url.rstrip("/") + "/chat/completions"

    def post(messages: List[Dict[str, Any]], tools: List[Dict[str, Any]]) -> Dict[str, Any]:
        body = json.dumps({"model": model, "messages": messages, "tools": tools, "tool_choice": "auto",
                           "temperature": temperature}).encode()
        req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json",
                                                              "Authorization": f"Bearer {api_key}"})
        with urllib.request.urlopen(req, timeout=300) as resp:
            return json.loads(resp.read())["choices"][0]["message"]

    async def generate(messages: List[Dict[str, Any]], tools: List[Dict[str, Any]]) -> Dict[str, Any]:
        return await asyncio.to_thread(post, messages, tools)

    return generate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--env", default="ToolMaze-v0")
    ap.add_argument("--episodes", type=int, default=8, help="seeds 0..n-1")
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--address", default=os.environ.get("RG_ADDRESS", "tcp://127.0.0.1:5555"))
    ap.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 (default: scripted stand-in)")
    ap.add_argument("--model", default="default")
    ap.add_argument("--api-key", default=os.environ.get("OPENAI_API_KEY", "none"))
    ap.add_argument("--temperature", type=float, default=0.0)
    ap.add_argument("--chat-parser", choices=["hermes", "planbench-tags"], help="how raw text replies are read")
    ap.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE", help="env option (JSON value or text)")
    ap.add_argument("--out", help="append finished episodes to this JSONL file (resumable)")
    args = ap.parse_args()

    try:
        options: Dict[str, Any] = parse_option_pairs(args.opt)
    except ValueError as e:
        ap.error(str(e))
    if args.chat_parser:
        options["chat_parser"] = args.chat_parser
    if args.base_url:
        generate = http_model(args.base_url, args.model, args.api_key, args.temperature)
    else:
        with ChatEnv(args.env, address=args.address, **options) as probe:
            generate = scripted_model(probe.action_tools)
    trajectories = asyncio.run(rollout(generate, args.env, args.episodes, args.concurrency, address=args.address,
                                       out=args.out, **options))
    for t in trajectories:
        print(f"seed {t['seed']:>4}  success={str(t['success']):5}  return={t['return']:+.3f}  length={t['length']:>3}  "
              f"mistakes={t['mistakes']:>2}  {t['terminationReason']}")
    print(json.dumps({"env": args.env, **summarize(trajectories)}, indent=2))


if __name__ == "__main__":
    main()
