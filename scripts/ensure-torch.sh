#!/usr/bin/env bash
# Best effort, like ensure-gymnasium.sh: makes PyTorch (CPU build) importable for examples/python/ppo_masked.py and
# its smoke test. Debian does not package torch, so it goes into .cache/python-torch (never the system), from
# whatever wheel source pip is configured with on this machine (a local wheel mirror here; PyPI itself is
# unreachable, so pip gets no retries). pip brings torch's pure-Python dependencies (sympy, networkx, jinja2, ...)
# into the same directory; numpy stays Debian's. Prints the directory to put on PYTHONPATH, or nothing when torch
# could not be had (the smoke test then skips). Never fails.
set -uo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-/usr/bin/python3}"
DIR="$PWD/.cache/python-torch"
importable() { PYTHONPATH="$DIR${PYTHONPATH:+:$PYTHONPATH}" "$PY" -c "import torch, numpy" >/dev/null 2>&1; }
if importable; then echo "$DIR"; exit 0; fi
echo "ensure-torch: installing the CPU torch wheel into $DIR (a few minutes, once)" >&2
rm -rf "$DIR"
# The wheel source here offers the CPU build (torch-*+cpu); pip resolves torch's pure-Python dependencies with it.
"$PY" -m pip install -q --disable-pip-version-check --retries 0 --timeout 30 --target "$DIR" "torch>=2,<3" >/dev/null 2>&1
if importable; then
  echo "ensure-torch: torch $(PYTHONPATH="$DIR" "$PY" -c 'import torch; print(torch.__version__)') in $DIR" >&2
  echo "$DIR"
else
  echo "ensure-torch: torch not available here; the PPO smoke test will skip" >&2
fi
exit 0
