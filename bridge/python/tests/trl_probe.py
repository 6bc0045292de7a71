"""Runs the TRL adapter through TRL's own code (run by test_trl.py in a subprocess with TRL on PYTHONPATH).

A GRPOTrainer is built around a tiny randomly initialised Qwen3 model and an in-memory tokenizer carrying TRL's own
Qwen3 chat template (no weights, no downloads): its constructor probes the environment exactly as in training (reset,
public methods as tools, get_reward as a reward source). The tools are then rendered by the chat template (through
transformers' get_json_schema), and a scripted stand-in model's tool calls are dispatched the way TRL's tool-calling
loop does (a name -> method dict, ``method(**arguments)``, the result as the tool message). Prints a JSON report."""
import inspect
import json
import os
import sys
import tempfile

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import pyarrow as pa  # noqa: E402
import torch  # noqa: E402
import trl  # noqa: E402
from datasets import Dataset  # noqa: E402
from tokenizers import Tokenizer, models, pre_tokenizers  # noqa: E402
from transformers import PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM  # noqa: E402
from trl import GRPOConfig, GRPOTrainer  # noqa: E402

from recovery_gym.trl import dataset, environment_factory  # noqa: E402

torch.set_num_threads(1)
ADDRESS = sys.argv[1]
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<think>", "</think>",
            "<tool_response>", "</tool_response>", "<unk>"]


def tiny_tokenizer():
    vocab = {tok: i for i, tok in enumerate(SPECIALS + [chr(c) for c in range(32, 127)] + ["\n"])}
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Split("", behavior="isolated")
    template = open(os.path.join(os.path.dirname(trl.__file__), "chat_templates", "qwen3.jinja")).read()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, eos_token="<|im_end|>", pad_token="<|endoftext|>", unk_token="<unk>",
                                  additional_special_tokens=SPECIALS[1:9])
    tok.chat_template = template
    return tok


def as_dataset(rows):
    # A fingerprint of our own: datasets 5.0's fingerprint hashing cannot pickle pyarrow 25's MonthDayNano type (the
    # only pyarrow this machine's wheel source has), so Dataset.from_list fails before TRL is reached.
    return Dataset(pa.Table.from_pylist(rows), fingerprint=f"recovery-gym-{len(rows)}")


def probe(env_id, expect_generic, calls):
    tok = tiny_tokenizer()
    config = Qwen3Config(vocab_size=len(tok), hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                         num_key_value_heads=1, head_dim=8, max_position_embeddings=4096)
    model = Qwen3ForCausalLM(config)
    factory = environment_factory(env_id, address=ADDRESS)
    rows = list(dataset(env_id, range(4), address=ADDRESS))
    with tempfile.TemporaryDirectory() as out:
        args = GRPOConfig(output_dir=out, per_device_train_batch_size=2, num_generations=2, max_completion_length=8,
                          report_to=[], use_cpu=True, logging_strategy="no", save_strategy="no")
        trainer = GRPOTrainer(model=model, processing_class=tok, train_dataset=as_dataset(rows),
                              environment_factory=factory, args=args)
    tools = trainer._env_tools[None]
    names = sorted(t.__name__ for t in tools)
    env = trainer._environment_pool[None][0]
    # TRL appends reset's text to the last user message; the chat template renders the tool schemas.
    observation = env.reset(**rows[1])
    prompt = rows[1]["prompt"][:-1] + [{**rows[1]["prompt"][-1], "content": rows[1]["prompt"][-1]["content"] + observation}]
    rendered = tok.apply_chat_template(prompt, tools=tools, tokenize=False, add_generation_prompt=True)
    # TRL's dispatch: a per-rollout dict of the instance's public methods, called with the parsed arguments.
    methods = {m.__name__: m for n, m in inspect.getmembers(env, predicate=inspect.ismethod)
               if n not in ("reset", "get_reward") and not n.startswith("_")}
    replies = []
    for name, arguments in calls(observation, methods):
        try:
            replies.append(str(methods[name](**arguments)))
        except Exception as e:  # TRL turns an exception into {"error": ...}; the adapter should never need it
            replies.append(json.dumps({"trl_error": str(e)}))
    return {
        "env_id": env_id, "generic": "call_tool" in names, "expect_generic": expect_generic, "tools": names,
        "reward_funcs": list(trainer.reward_func_names), "rendered_has_tools": all(f'"name": "{n}"' in rendered for n in names),
        "observation": observation, "replies": replies, "reward": env.get_reward(),
    }


def demo_calls(observation, methods):
    # The stand-in model: a forecast call with a missing argument (a schema violation the env answers), then a
    # valid call, then the final answer.
    return [("weather_com_forecast", {}), ("weather_com_forecast", {"city": "Paris"}), ("answer", {"content": "done"})]


def generic_calls(observation, methods):
    first_tool = observation.split("Tools (call them with call_tool(name, arguments)):\n")[1].split(":")[0][2:]
    return [("call_tool", {"name": first_tool, "arguments": "{not json"}), ("call_tool", {"name": "no_such_tool", "arguments": "{}"}),
            ("abort", {"reason": "stand-in model gives up"}), ("call_tool", {"name": first_tool, "arguments": "{}"})]


print(json.dumps([probe("Demo-v0", False, demo_calls), probe("ToolMaze-v0", True, generic_calls)]))
