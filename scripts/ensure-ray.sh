#!/usr/bin/env bash
# Optional: makes `ray` (2.x) importable for recovery_gym.ray and its tests. Its core dependencies come from Debian
# where Debian has them; Ray wants packaging>=24.2 and Debian 12 has 23.0, so a newer packaging joins Ray in .cache.
# Prints the directory to put on PYTHONPATH, or nothing (see scripts/lib/python-extra.sh). Never fails.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/python-extra.sh
DEPS="click, filelock, jsonschema, google.protobuf, requests, yaml, msgpack"
debian_packages "$DEPS" python3-click python3-filelock python3-jsonschema python3-protobuf python3-requests python3-yaml \
  python3-msgpack
# `import ray` alone succeeds with missing dependencies; ray.init() is where they would fail, so check them too.
CHECK="import ray, $DEPS, packaging.version as v
assert v.Version(ray.__version__).major == 2 and v.Version(__import__('packaging').__version__) >= v.Version('24.2')"
python_extra ray "$PWD/.cache/python-ray" "$CHECK" "the Ray tests" --no-deps "ray>=2,<3" "packaging>=24.2"
exit 0
