#!/usr/bin/env bash
# Runs the Python client's tests against a live bridge server (see bridge/python/tests).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d bridge/python/tests ]; then
  echo "python: no bridge/python/tests in this tree"
  exit 0
fi
exec /usr/bin/python3 -m pytest -q bridge/python/tests
