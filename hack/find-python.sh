#!/usr/bin/env bash
# Prints the path of a Python >= 3.12 (ansible-core 2.20+ needs it): $PYTHON when set, then
# python3.13/python3.12/python3 on PATH, then pyenv's versions. Each candidate is run, so a broken
# shim is skipped. Fails with what to install when none is found.
set -euo pipefail
ok() { "$1" -c 'import sys, venv; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; }
cands=()
[ -n "${PYTHON:-}" ] && cands+=("$PYTHON")
for n in python3.14 python3.13 python3.12 python3; do
  p=$(command -v "$n" 2>/dev/null) && cands+=("$p")
done
root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
for d in $(ls -d "$root"/versions/3.1[2-9]* 2>/dev/null | sort -rV); do cands+=("$d/bin/python3"); done
for c in "${cands[@]}"; do
  if ok "$c"; then "$c" -c 'import sys; print(sys.executable)'; exit 0; fi
done
cat >&2 <<MSG
ERROR: no Python >= 3.12 found (ansible-core 2.21 needs one). Tried: ${cands[*]:-nothing}.
Install one, for example 'pyenv install 3.13' or Debian 13's python3 (with python3-venv),
or point PYTHON=/path/to/python3.12+ at one: make deps PYTHON=/opt/python3.13/bin/python3
MSG
exit 1
