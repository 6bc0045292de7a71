#!/usr/bin/env bash
# `npm run train -- --env ID --minutes M --seed S --eval-seed E --eval-episodes N --out DIR [--opt k=v ...]`:
# makes the trainer's Python dependencies importable without touching the system (pyzmq, msgpack and numpy from
# Debian as for the client tests; torch and gymnasium into .cache/ from the machine's pip source), then runs
# examples/python/ppo_masked.py with /usr/bin/python3 (or $PYTHON). Arguments pass through unchanged. The PPO steps
# the client's vector env directly; gymnasium is there for trainers adapted from it that wrap `to_gymnasium()`.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-/usr/bin/python3}"
PYTHON="$PY" bash scripts/ensure-python-deps.sh
TORCH_DIR="$(PYTHON="$PY" bash scripts/ensure-torch.sh)"
if [[ -z "$TORCH_DIR" ]]; then
  echo "train: PyTorch could not be installed into .cache/python-torch (see the message above); cannot train" >&2
  exit 1
fi
GYM_DIR="$(PYTHON="$PY" bash scripts/ensure-gymnasium.sh)"
export PYTHONPATH="$TORCH_DIR${GYM_DIR:+:$GYM_DIR}${PYTHONPATH:+:$PYTHONPATH}"
if [[ " $* " == *" --ray"* ]]; then  # rollouts on Ray (examples/python/ppo_ray.py)
  RAY_DIR="$(PYTHON="$PY" bash scripts/ensure-ray.sh)"
  [[ -n "$RAY_DIR" ]] || { echo "train: --ray needs Ray, which could not be installed into .cache/python-ray" >&2; exit 1; }
  export PYTHONPATH="$RAY_DIR:$PYTHONPATH"
fi
exec "$PY" examples/python/ppo_masked.py "$@"
