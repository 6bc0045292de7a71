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

# python_extra NAME DIR CHECK WHAT_SKIPS PIP_ARG...: prints DIR (for PYTHONPATH) when CHECK (Python code) runs with DIR
# on the path, installing PIP_ARGs into DIR first if needed; prints nothing when that fails (WHAT_SKIPS then skips).
python_extra() {
  local name="$1" dir="$2" check="$3" skips="$4"
  shift 4
  local path="$dir${PYTHONPATH:+:$PYTHONPATH}"
  if PYTHONPATH="$path" "$PY" -c "$check" >/dev/null 2>&1; then echo "$dir"; return 0; fi
  echo "ensure-$name: installing into $dir (once per checkout)" >&2
  rm -rf "$dir"
  "$PY" -m pip install -q --disable-pip-version-check --retries 0 --timeout 30 --target "$dir" "$@" >/dev/null 2>&1
  if PYTHONPATH="$path" "$PY" -c "$check" >/dev/null 2>&1; then
    echo "ensure-$name: $(PYTHONPATH="$path" "$PY" -c "import $name as m; print(m.__version__)") in $dir" >&2
    echo "$dir"
  else
    echo "ensure-$name: $name not available here; $skips will skip" >&2
  fi
}
