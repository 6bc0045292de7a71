#!/usr/bin/env bash
# Optional: makes gymnasium importable for the Python client's adapter test (to_gymnasium() objects checked by
# gymnasium's own check_env). Its dependencies numpy, cloudpickle and typing-extensions come from Debian. Prints the
# directory to put on PYTHONPATH, or nothing (see scripts/lib/python-extra.sh). Never fails.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/python-extra.sh
debian_packages "cloudpickle, typing_extensions" python3-cloudpickle python3-typing-extensions
python_extra gymnasium "$PWD/.cache/python-gymnasium" "import gymnasium, cloudpickle, typing_extensions, numpy" \
  "the Gymnasium adapter test" --no-deps "gymnasium>=1.0,<2" "farama-notifications>=0.0.1"
exit 0
