#!/usr/bin/env bash
# Optional, best effort: makes `ray` (2.x) importable for recovery_gym.ray and its tests. Debian does not package
# Ray, so it goes into .cache/python-ray (never the system), from whatever wheel source pip is configured with on
# this machine (a local wheel mirror here; PyPI itself is unreachable, so pip gets no retries). Its core
# dependencies come from Debian where Debian has them (click, filelock, jsonschema, protobuf, requests, yaml,
# msgpack); Ray wants packaging>=24.2 and Debian 12 has 23.0, so a newer packaging joins Ray in .cache. Prints the
# directory to put on PYTHONPATH, or nothing when Ray could not be had (the Ray tests then skip). Never fails.
set -uo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-/usr/bin/python3}"
DIR="$PWD/.cache/python-ray"
DEBS="python3-click python3-filelock python3-jsonschema python3-protobuf python3-requests python3-yaml python3-msgpack"
# `import ray` alone succeeds with missing dependencies; ray.init() is where they would fail, so check them too.
CHECK="import ray, click, filelock, jsonschema, google.protobuf, requests, yaml, msgpack, packaging.version as v
assert v.Version(ray.__version__).major == 2 and v.Version(__import__('packaging').__version__) >= v.Version('24.2')"
importable() { PYTHONPATH="$DIR${PYTHONPATH:+:$PYTHONPATH}" "$PY" -c "$CHECK" >/dev/null 2>&1; }
if importable; then echo "$DIR"; exit 0; fi
if ! "$PY" -c "import click, filelock, jsonschema, google.protobuf, requests, yaml, msgpack" >/dev/null 2>&1 &&
  command -v apt-get >/dev/null 2>&1 && [[ "$(id -u)" == "0" ]]; then
  # Other apt users (another engineer's script, unattended upgrades) may hold the lock for a while.
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 $DEBS >/dev/null 2>&1 ||
    { apt-get update -qq -o DPkg::Lock::Timeout=300 >/dev/null 2>&1 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 $DEBS >/dev/null 2>&1; }
fi
rm -rf "$DIR"
"$PY" -m pip install -q --disable-pip-version-check --retries 0 --timeout 10 --no-deps --target "$DIR" \
  "ray>=2,<3" "packaging>=24.2" >/dev/null 2>&1
if importable; then
  echo "ensure-ray: ray $(PYTHONPATH="$DIR" "$PY" -c 'import ray; print(ray.__version__)') in $DIR" >&2
  echo "$DIR"
else
  echo "ensure-ray: ray not available here; the Ray tests will skip" >&2
fi
exit 0
