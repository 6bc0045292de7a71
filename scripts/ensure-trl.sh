#!/usr/bin/env bash
# Optional: makes TRL (with transformers, datasets, accelerate and a CPU torch) importable for the TRL adapter test
# (bridge/python/tests/test_trl.py) and examples/python/trl_grpo.py; numpy stays Debian's when it satisfies the pins.
# Prints the directory to put on PYTHONPATH, or nothing (see scripts/lib/python-extra.sh). Never fails.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/python-extra.sh
python_extra trl "$PWD/.cache/python-trl" "import trl, transformers, datasets, torch" "the TRL adapter test" "trl>=1,<2"
exit 0
