#!/usr/bin/env bash
# Optional: makes TRL (with transformers, datasets, accelerate and a CPU torch) importable for the TRL adapter test
# (bridge/python/tests/test_trl.py) and examples/python/trl_grpo.py.
# TRL shares the torch of scripts/ensure-torch.sh (.cache/python-torch) instead of installing its own copy (~1 GB and
# a minute or two on a fresh machine). Prints the path to put on PYTHONPATH (TRL's directory, then torch's), or
# nothing (see scripts/lib/python-extra.sh). Never fails.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/python-extra.sh
TORCH_DIR="$(bash scripts/ensure-torch.sh)"
CHECK="import trl, transformers, datasets, torch"
if [[ -n "$TORCH_DIR" ]]; then
  TRL_DIR="$(PYTHONPATH="$TORCH_DIR${PYTHONPATH:+:$PYTHONPATH}" python_extra trl "$PWD/.cache/python-trl" "$CHECK" "the TRL adapter test" \
    --resolved-without "$TORCH_DIR" "trl>=1,<2")"
  [[ -n "$TRL_DIR" ]] && echo "$TRL_DIR:$TORCH_DIR"
else
  python_extra trl "$PWD/.cache/python-trl" "$CHECK" "the TRL adapter test" "trl>=1,<2"
fi
exit 0
