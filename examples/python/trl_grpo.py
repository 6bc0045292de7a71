"""GRPO training of an LLM agent on a Recovery Gym env with TRL (1.x), through ``recovery_gym.trl``.

The env runs in the bridge server; TRL's GRPOTrainer makes one environment per rollout through
``environment_factory``, appends each episode's task to the prompt (``reset``), lets the model call the env's tools
(typed methods, or ``call_tool`` for families whose tools change per episode) and scores the rollout with
``get_reward`` (the episode's return, or its success with ``--reward success``).

On a GPU machine (one 24 GB GPU is enough for a 0.5-1.5B instruct model):

    pip install "trl>=1,<2"              # brings transformers, datasets, accelerate, torch
    node --import tsx bridge/main.ts --endpoint tcp://127.0.0.1:5555 &
    python3 examples/python/trl_grpo.py --env Demo-v0 --model Qwen/Qwen2.5-0.5B-Instruct --tasks 256 --steps 200

Without ``--model`` (``--dry-run``) everything up to the model is built and checked here, with no GPU and no download:
a tiny randomly initialised Qwen3 model and an in-memory tokenizer with TRL's Qwen3 chat template stand in, the
trainer probes the environment, and the script prints the tools and the first prompt it would train on.
"""
import argparse
import os
import sys
import tempfile
from typing import Any, Dict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bridge", "python"))

from recovery_gym.trl import dataset, environment_factory  # noqa: E402
from recovery_gym.options import parse_option_pairs  # noqa: E402


def as_dataset(rows):
    from datasets import Dataset

    try:
        return Dataset.from_list(rows)
    except Exception:  # datasets 5.0 cannot fingerprint with pyarrow 25 (MonthDayNano pickling): name it ourselves
        import pyarrow as pa

        return Dataset(pa.Table.from_pylist(rows), fingerprint=f"recovery-gym-{len(rows)}")


def stand_in_model_and_tokenizer():
    """A tiny random Qwen3 and a character tokenizer carrying TRL's Qwen3 chat template (no download)."""
    import trl
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<think>", "</think>",
                "<tool_response>", "</tool_response>", "<unk>"]
    vocab = {tok: i for i, tok in enumerate(specials + [chr(c) for c in range(32, 127)] + ["\n"])}
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Split("", behavior="isolated")
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, eos_token="<|im_end|>", pad_token="<|endoftext|>", unk_token="<unk>",
                                  additional_special_tokens=specials[1:9])
    with open(os.path.join(os.path.dirname(trl.__file__), "chat_templates", "qwen3.jinja")) as f:
        tok.chat_template = f.read()
    config = Qwen3Config(vocab_size=len(tok), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=8)
    return Qwen3ForCausalLM(config), tok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--env", default="Demo-v0")
    ap.add_argument("--address", default=os.environ.get("RG_ADDRESS", "tcp://127.0.0.1:5555"))
    ap.add_argument("--model", help="a Hugging Face model id or path (an instruct model with a tool-calling template)")
    ap.add_argument("--dry-run", action="store_true", help="build everything with a tiny stand-in model; do not train")
    ap.add_argument("--tasks", type=int, default=64, help="task seeds 0..n-1, one dataset row each")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--tools", choices=["auto", "typed", "generic"], default="auto")
    ap.add_argument("--reward", choices=["return", "success"], default="return")
    ap.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE", help="env option (JSON value or text)")
    ap.add_argument("--output-dir", default=None)
    args = ap.parse_args()
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

    try:
        options: Dict[str, Any] = parse_option_pairs(args.opt)
    except ValueError as e:
        ap.error(str(e))

    from trl import GRPOConfig, GRPOTrainer

    factory = environment_factory(args.env, address=args.address, tools=args.tools, reward=args.reward, **options)
    rows = list(dataset(args.env, range(args.tasks), address=args.address, **options))
    dry = args.dry_run or not args.model
    out = args.output_dir or tempfile.mkdtemp(prefix="rg-grpo-")
    config = GRPOConfig(
        output_dir=out, max_steps=args.steps, per_device_train_batch_size=2 if dry else 8, num_generations=2 if dry else 8,
        max_completion_length=16 if dry else 1024, learning_rate=1e-6, logging_steps=1, report_to=[], use_cpu=dry,
        save_strategy="no" if dry else "steps",
    )
    if dry:
        model, tok = stand_in_model_and_tokenizer()
        trainer = GRPOTrainer(model=model, processing_class=tok, train_dataset=as_dataset(rows), environment_factory=factory,
                              args=config)
    else:
        trainer = GRPOTrainer(model=args.model, train_dataset=as_dataset(rows), environment_factory=factory, args=config)
    tools = trainer._env_tools[None]  # what TRL's probe of the environment found
    print(f"tools offered to the model: {sorted(t.__name__ for t in tools)}")
    print(f"reward sources: {trainer.reward_func_names}")
    if dry:
        env = trainer._environment_pool[None][0]
        prompt = rows[0]["prompt"]
        prompt = prompt[:-1] + [{**prompt[-1], "content": prompt[-1]["content"] + env.reset(**rows[0])}]
        print(trainer.processing_class.apply_chat_template(prompt, tools=tools, tokenize=False, add_generation_prompt=True)[:3000])
        print("dry run: wiring checked; pass --model to train")
        return
    trainer.train()
    trainer.save_model(out)
    print(f"saved to {out}")


if __name__ == "__main__":
    main()
