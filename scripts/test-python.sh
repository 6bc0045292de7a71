#!/usr/bin/env bash
# Runs the Python client tests (bridge/python/tests) against a real bridge server: starts one with two workers on
# free loopback ports, runs pytest with /usr/bin/python3, then stops the server with SIGTERM and checks that it
# exited 0 (graceful shutdown). Set SKIP_PYTHON_TESTS=1 to skip on machines without python3-zmq/msgpack/pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-/usr/bin/python3}"
if [[ "${SKIP_PYTHON_TESTS:-0}" == "1" ]]; then
  echo "test-python: skipped (SKIP_PYTHON_TESTS=1)"
  exit 0
fi
PYTHON="$PY" bash scripts/ensure-python-deps.sh
TMP="$(mktemp -d)"
READY="$TMP/ready.json"
# The server starts (seconds of tsx compiling) while the optional extras are checked, or installed on a fresh machine.
node --import tsx bridge/main.ts --endpoint 'tcp://127.0.0.1:*' --workers 2 --ready-file "$READY" --quiet &
SERVER_PID=$!
stop_server() {
  if kill -0 "$SERVER_PID" 2>/dev/null; then kill -TERM "$SERVER_PID"; fi
  local code=0
  wait "$SERVER_PID" || code=$?
  rm -rf "$TMP"
  return "$code"
}
trap 'stop_server >/dev/null 2>&1 || true' EXIT
# The extras are settled side by side (torch before TRL, which shares it); each ensure script prints the directory to
# put on PYTHONPATH, or nothing when the tests that need it will skip.
PIDS=()
PYTHON="$PY" bash scripts/ensure-gymnasium.sh >"$TMP/gymnasium.path" & PIDS+=($!)
{ PYTHON="$PY" bash scripts/ensure-torch.sh >"$TMP/torch.path"; PYTHON="$PY" bash scripts/ensure-trl.sh >"$TMP/trl.path"; } &
PIDS+=($!)
PYTHON="$PY" bash scripts/ensure-ray.sh >"$TMP/ray.path" & PIDS+=($!)
wait "${PIDS[@]}"
# TRL (with torch, transformers, datasets) stays off PYTHONPATH: only test_trl.py's subprocess uses it.
export RG_TRL_PATH
RG_TRL_PATH="$(cat "$TMP/trl.path")"
# gymnasium for the adapter test, PyTorch for the PPO smoke test, Ray for recovery_gym.ray and the distributed
# trainer: the tests that need one skip without it.
for extra in gymnasium torch ray; do
  DIR="$(cat "$TMP/$extra.path")"
  if [[ -n "$DIR" ]]; then export PYTHONPATH="$DIR${PYTHONPATH:+:$PYTHONPATH}"; fi
done
for _ in $(seq 1 300); do
  [[ -s "$READY" ]] && break
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then echo "test-python: server failed to start" >&2; exit 1; fi
  sleep 0.1
done
[[ -s "$READY" ]] || { echo "test-python: server not ready after 30 s" >&2; exit 1; }
export RG_BRIDGE_ENDPOINTS
RG_BRIDGE_ENDPOINTS="$(cat "$READY")"
set +e
"$PY" -m pytest -q -p no:cacheprovider bridge/python/tests "$@"
STATUS=$?
set -e
trap - EXIT
SERVER_CODE=0
stop_server || SERVER_CODE=$?
if [[ "$SERVER_CODE" != "0" ]]; then
  echo "test-python: server exited with $SERVER_CODE after SIGTERM (expected 0)" >&2
  [[ "$STATUS" == "0" ]] && STATUS=1
fi
exit "$STATUS"
