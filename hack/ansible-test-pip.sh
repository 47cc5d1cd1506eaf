#!/usr/bin/env bash
# ansible-test-pip.sh PYTHON: puts hack/get-pip-offline.py where the ansible-test of PYTHON's
# ansible-core looks for its cached pip bootstrap script (get_pip_<pip version>.py), so that its
# virtual environments bootstrap pip without the download this machine cannot make.
set -euo pipefail
py=${1:?usage: ansible-test-pip.sh PYTHON}
src=$("$py" -c 'import ansible_test, os; print(os.path.dirname(ansible_test.__file__))')/_internal/python_requirements.py
ver=$(grep -oE "pip='[0-9.]+'" "$src" | head -1 | tr -dc '0-9.')
[ -n "$ver" ] || { echo "ERROR: no pip version found in $src" >&2; exit 1; }
install -D -m 0644 "$(dirname "$0")/get-pip-offline.py" "$HOME/.ansible/test/cache/get_pip_${ver//./_}.py"
