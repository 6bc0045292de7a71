#!/usr/bin/env bash
# Optional, best effort: makes gymnasium importable for the Python client's adapter test (to_gymnasium() objects
# checked by gymnasium's own check_env). Debian does not package gymnasium, so it goes into .cache/python-gymnasium
# (never the system), from whatever wheel source pip is configured with on this machine (a local wheel mirror
# here; PyPI itself is unreachable, so pip gets no retries). Its dependencies numpy, cloudpickle and
# typing-extensions come from Debian. Prints the directory to put on PYTHONPATH, or nothing when gymnasium could
# not be had (the adapter test then skips). Never fails.
set -uo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-/usr/bin/python3}"
DIR="$PWD/.cache/python-gymnasium"
importable() { PYTHONPATH="$DIR${PYTHONPATH:+:$PYTHONPATH}" "$PY" -c "import gymnasium, cloudpickle, typing_extensions, numpy" >/dev/null 2>&1; }
if importable; then echo "$DIR"; exit 0; fi
if ! "$PY" -c "import cloudpickle, typing_extensions" >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [[ "$(id -u)" == "0" ]]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-cloudpickle python3-typing-extensions >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-cloudpickle python3-typing-extensions >/dev/null 2>&1; }
fi
rm -rf "$DIR"
"$PY" -m pip install -q --disable-pip-version-check --retries 0 --timeout 10 --no-deps --target "$DIR" \
  "gymnasium>=1.0,<2" "farama-notifications>=0.0.1" >/dev/null 2>&1
if importable; then
  echo "ensure-gymnasium: gymnasium $(PYTHONPATH="$DIR" "$PY" -c 'import gymnasium; print(gymnasium.__version__)') in $DIR" >&2
  echo "$DIR"
else
  echo "ensure-gymnasium: gymnasium not available here; the Gymnasium adapter test will skip" >&2
fi
exit 0
