# Sourced by scripts/ensure-*.sh: installs an optional Python extra into .cache/<dir> (never the system) from whatever
# wheel source pip is configured with on this machine (a local wheel mirror here; PyPI itself is unreachable, so pip
# gets no retries), and Debian packages for what Debian has. Every step is best effort: an ensure script never fails.
PY="${PYTHON:-/usr/bin/python3}"

# debian_packages "IMPORTS" PKG...: installs PKGs with apt-get when IMPORTS do not import (root only). Another apt user
# may hold the lock for a while, hence the timeout.
debian_packages() {
  local imports="$1"
  shift
  "$PY" -c "import $imports" >/dev/null 2>&1 && return 0
  command -v apt-get >/dev/null 2>&1 && [[ "$(id -u)" == "0" ]] || return 0
  local apt=(apt-get -y -qq -o DPkg::Lock::Timeout=300)
  DEBIAN_FRONTEND=noninteractive "${apt[@]}" install "$@" >/dev/null 2>&1 ||
    { apt-get update -qq -o DPkg::Lock::Timeout=300 >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive "${apt[@]}" install "$@" >/dev/null 2>&1; }
}

# extra_key CHECK PIP_ARG...: what a passed CHECK is recorded under (python_extra's stamp): the interpreter, the path
# the check ran with, the check and the install arguments. Any change to one of them checks (or installs) afresh.
extra_key() {
  printf '%s\n' "$PY" "$("$PY" -c 'import sys; print(sys.version)' 2>&1)" "${PYTHONPATH:-}" "$@"
}

# python_extra NAME DIR CHECK WHAT_SKIPS PIP_ARG...: prints DIR (for PYTHONPATH) when CHECK (Python code) runs with DIR
# on the path, installing PIP_ARGs into DIR first if needed; prints nothing when that fails (WHAT_SKIPS then skips).
# A passed check leaves a stamp in DIR: importing torch or TRL just to see that they import took up to a minute of
# every `npm test` on a loaded machine, so a matching stamp stands for the check (delete DIR to check again).
python_extra() {
  local name="$1" dir="$2" check="$3" skips="$4"
  shift 4
  local path="$dir${PYTHONPATH:+:$PYTHONPATH}" stamp="$dir/.recovery-gym-checked" key
  key="$(extra_key "$check" "$@")"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$key" ]]; then echo "$dir"; return 0; fi
  if PYTHONPATH="$path" "$PY" -c "$check" >/dev/null 2>&1; then printf '%s' "$key" >"$stamp"; echo "$dir"; return 0; fi
  echo "ensure-$name: installing into $dir (once per checkout)" >&2
  rm -rf "$dir"
  if [[ "${1:-}" == "--resolved-without" ]]; then
    pip_resolved_without "$dir" "$2" "${@:3}"
  else
    "$PY" -m pip install -q --disable-pip-version-check --retries 0 --timeout 30 --target "$dir" "$@" >/dev/null 2>&1
  fi
  if PYTHONPATH="$path" "$PY" -c "$check" >/dev/null 2>&1; then
    printf '%s' "$key" >"$stamp"
    echo "ensure-$name: $(PYTHONPATH="$path" "$PY" -c "import $name as m; print(m.__version__)") in $dir" >&2
    echo "$dir"
  else
    echo "ensure-$name: $name not available here; $skips will skip" >&2
  fi
}

# pip_resolved_without DIR SHARED REQ...: installs REQs and their dependencies into DIR, except the distributions that
# SHARED (another .cache/ directory) already holds at the version pip resolves: pip --target always installs every
# dependency afresh (it ignores what is on the path), so TRL would otherwise bring a second ~1 GB copy of torch.
pip_resolved_without() {
  local dir="$1" shared="$2"
  shift 2
  local pip=("$PY" -m pip install -q --disable-pip-version-check --retries 0 --timeout 30) report pins
  report="$(mktemp)"
  "${pip[@]}" --dry-run --ignore-installed --report "$report" "$@" >/dev/null 2>&1 &&
    pins="$("$PY" - "$report" "$shared" <<'PYEOF'
import json, sys
from importlib.metadata import distributions

def norm(name):
    return name.lower().replace("_", "-").replace(".", "-")

shared = {(norm(d.metadata["Name"]), d.version) for d in distributions(path=[sys.argv[2]])}
for item in json.load(open(sys.argv[1]))["install"]:
    meta = item["metadata"]
    if (norm(meta["name"]), meta["version"]) not in shared:
        print(f"{meta['name']}=={meta['version']}")
PYEOF
)" &&
    # shellcheck disable=SC2086
    "${pip[@]}" --no-deps --target "$dir" $pins >/dev/null 2>&1
  rm -f "$report"
}
