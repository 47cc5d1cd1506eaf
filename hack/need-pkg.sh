#!/usr/bin/env bash
# need-pkg.sh COMMAND PACKAGE [COMMAND PACKAGE ...]: installs each Debian PACKAGE whose COMMAND is not on PATH.
# apt-get waits for another apt-get's lock instead of failing: make test's stages may install at the same time
# (make sanity's shellcheck beside hack/kind/install-host.sh, which installs its packages with this script too).
# The package lists are read again only when older than 10 minutes.
set -euo pipefail
while [ $# -ge 2 ]; do
  if ! command -v "$1" >/dev/null 2>&1; then
    if [ -z "$(find /var/lib/apt/lists -maxdepth 0 -mmin -10 2>/dev/null)" ]; then
      apt-get -o DPkg::Lock::Timeout=600 update -qq
      touch /var/lib/apt/lists
    fi
    echo "need-pkg: installing Debian package $2" >&2
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$2" >/dev/null
  fi
  shift 2
done
