#!/usr/bin/env bash
# Best effort, like ensure-gymnasium.sh: makes TRL (with transformers, datasets, accelerate and a CPU torch)
# importable for the TRL adapter test (bridge/python/tests/test_trl.py) and examples/python/trl_grpo.py. Debian packages
# none of them, so they go into .cache/python-trl (never the system), from whatever wheel source pip is configured
# with on this machine (a local wheel mirror here; PyPI itself is unreachable, so pip gets no retries). numpy stays
# Debian's when it satisfies the pins. Prints the directory to put on PYTHONPATH, or nothing when TRL could not be
# had (the test then skips). Never fails.
set -uo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-/usr/bin/python3}"
DIR="$PWD/.cache/python-trl"
importable() { PYTHONPATH="$DIR${PYTHONPATH:+:$PYTHONPATH}" "$PY" -c "import trl, transformers, datasets, torch" >/dev/null 2>&1; }
if importable; then echo "$DIR"; exit 0; fi
echo "ensure-trl: installing trl and its dependencies into $DIR (several minutes, once)" >&2
rm -rf "$DIR"
"$PY" -m pip install -q --disable-pip-version-check --retries 0 --timeout 30 --target "$DIR" "trl>=1,<2" >/dev/null 2>&1
if importable; then
  echo "ensure-trl: trl $(PYTHONPATH="$DIR" "$PY" -c 'import trl; print(trl.__version__)') in $DIR" >&2
  echo "$DIR"
else
  echo "ensure-trl: trl not available here; the TRL adapter test will skip" >&2
fi
exit 0
