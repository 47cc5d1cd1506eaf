#!/usr/bin/env bash
# Turns examples/scheduler into a local git repository (default /var/tmp/kubesched/git/scheduler)
# that the build role clones over file://, as it would clone a remote source. Idempotent: a new
# commit only when the example changed. Prints the file:// URL.
set -euo pipefail
src=$(cd "$(dirname "$0")/../examples/scheduler" && pwd)
repo=${1:-/var/tmp/kubesched/git/scheduler}
mkdir -p "$repo"
if [ ! -d "$repo/.git" ]; then
  git -C "$repo" init -q -b main
fi
rsync -a --delete --exclude .git --exclude _output "$src/" "$repo/" 2>/dev/null || {
  find "$repo" -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
  (cd "$src" && tar --exclude=_output -cf - .) | tar -C "$repo" -xf -
}
git -C "$repo" add -A
if ! git -C "$repo" diff --cached --quiet || ! git -C "$repo" rev-parse -q --verify HEAD >/dev/null; then
  git -C "$repo" -c user.name=kubesched -c user.email=kubesched@localhost commit -q -m "kube-scheduler example" 
fi
echo "file://$repo"
