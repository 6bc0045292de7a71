#!/usr/bin/env bash
# Optional: makes PyTorch (the CPU build the wheel source offers) importable for examples/python/ppo_masked.py and its
# smoke test; pip brings torch's pure-Python dependencies (sympy, networkx, jinja2, ...) into the same directory, numpy
# stays Debian's. Prints the directory to put on PYTHONPATH, or nothing (see scripts/lib/python-extra.sh). Never fails.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/python-extra.sh
python_extra torch "$PWD/.cache/python-torch" "import torch, numpy" "the PPO smoke test" "torch>=2,<3"
exit 0
