#!/usr/bin/env bash
# need-pkg.sh COMMAND PACKAGE [COMMAND PACKAGE ...]: installs each Debian PACKAGE whose COMMAND is not on PATH.
# apt-get waits for another apt-get's lock instead of failing: make test's stages may install at the same time
# (make sanity's shellcheck beside hack/kind/install-host.sh).
set -euo pipefail
updated=
while [ $# -ge 2 ]; do
  if ! command -v "$1" >/dev/null 2>&1; then
    [ -n "$updated" ] || { apt-get -o DPkg::Lock::Timeout=600 update -qq; updated=1; }
    echo "need-pkg: installing Debian package $2" >&2
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$2" >/dev/null
  fi
  shift 2
done
