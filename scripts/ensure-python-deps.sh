#!/usr/bin/env bash
# Makes sure /usr/bin/python3 (or $PYTHON) can import what the Python client's tests need. The packages come from
# Debian (no PyPI here): when they are missing and apt-get can run (root), they are installed; otherwise this
# explains what to install and fails. Used by `npm test` (via scripts/test-python.sh) and by .ci/run.
set -euo pipefail
PY="${PYTHON:-/usr/bin/python3}"
PACKAGES="python3-zmq python3-msgpack python3-numpy python3-pytest"
if "$PY" -c "import zmq, msgpack, numpy, pytest" >/dev/null 2>&1; then
  exit 0
fi
if command -v apt-get >/dev/null 2>&1 && [[ "$(id -u)" == "0" ]]; then
  echo "ensure-python-deps: installing $PACKAGES (Debian) for $PY" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq $PACKAGES >/dev/null
  "$PY" -c "import zmq, msgpack, numpy, pytest"
  exit 0
fi
echo "ensure-python-deps: $PY cannot import zmq/msgpack/numpy/pytest; install Debian's $PACKAGES" >&2
echo "  (sudo apt-get install -y $PACKAGES), or set SKIP_PYTHON_TESTS=1 to skip the Python client tests" >&2
exit 1
