#!/usr/bin/env bash
# k8s-source.sh VERSION [REPO]: a Kubernetes source repository at VERSION, made from the Go module
# proxy, that the build role clones and builds exactly as it would kubernetes.git:
#   git clone --branch VERSION file://REPO && make WHAT=cmd/kube-scheduler
# The tree is k8s.io/kubernetes@VERSION with its staging modules (k8s.io/api, ... at v0.MINOR.PATCH,
# the list read from its go.work) put back at staging/src/k8s.io/*, the root Makefile put back as the
# symlink to build/root/Makefile that module zips drop, and vendor/ filled by `go work vendor` (the
# build runs with GOPROXY=off, as upstream's does). One commit, tagged VERSION, whose message names
# the upstream commit the proxy records. REPO defaults to /var/cache/kubesched/git/kubernetes.git.
# Idempotent: a version whose tag the repository has is left as it is. Prints the file:// URL.
set -euo pipefail
version=${1:?usage: k8s-source.sh VERSION [REPO]}
repo=${2:-${KUBESCHED_CACHE:-/var/cache/kubesched}/git/kubernetes.git}
[[ "$version" =~ ^v1\.([0-9]+)\.([0-9]+)$ ]] || { echo "ERROR: VERSION must be v1.MINOR.PATCH, not '$version'" >&2; exit 1; }
staging_version=v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}
log() { printf '[%s] k8s-source: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
export GOTOOLCHAIN=local GOFLAGS=-mod=mod GOWORK=
git() { command git -c gc.auto=0 -c core.safecrlf=false "$@"; }

if git -C "$repo" rev-parse -q --verify "refs/tags/$version" >/dev/null 2>&1; then
  log "$repo has $version"; echo "file://$repo"; exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp" 2>/dev/null || true' EXIT
cd "$tmp"
log "downloading k8s.io/kubernetes@$version"
info=$(go mod download -json "k8s.io/kubernetes@$version")
dir=$(jq -r .Dir <<< "$info")
commit=$(jq -r '.Origin.Hash // empty' <<< "$info")
tree=$tmp/kubernetes
cp -a "$dir" "$tree"
chmod -R u+w "$tree"

mods=$(sed -n 's#^\s*\./staging/src/\(k8s\.io/[a-z0-9-]*\)\s*$#\1#p' "$tree/go.work")
[ -n "$mods" ] || { echo "ERROR: no staging modules in go.work of $version" >&2; exit 1; }
log "staging modules at $staging_version: $(wc -w <<< "$mods")"
skipped=
for m in $mods; do
  d=$(go mod download -json "$m@$staging_version" | jq -r '.Dir // empty') || true
  if [ ! -d "$d" ]; then
    # The proxy does not serve every sample module. One the tree does not require (the samples
    # are examples, built by nothing in cmd/) leaves the workspace; any other is an error.
    if grep -qE "^\s+$m v" <(sed -n '/^require (/,/^)/p' "$tree/go.mod"); then
      echo "ERROR: $m@$staging_version is required by k8s.io/kubernetes but not served" >&2; exit 1
    fi
    sed -i "\#^\s*\./staging/src/$m\s*\$#d" "$tree/go.work"
    skipped="$skipped $m"; log "$m@$staging_version is not served; left out of go.work"
    continue
  fi
  mkdir -p "$tree/staging/src/$(dirname "$m")"
  cp -a "$d" "$tree/staging/src/$m"
  chmod -R u+w "$tree/staging/src/$m"
done
[ -e "$tree/Makefile" ] || ln -s build/root/Makefile "$tree/Makefile"
[ -e "$tree/Makefile.generated_files" ] || [ ! -e "$tree/build/root/Makefile.generated_files" ] \
  || ln -s build/root/Makefile.generated_files "$tree/Makefile.generated_files"

# Module zips keep no file modes: a file that starts with #! is a script, executable as upstream.
(cd "$tree" && grep -rlI --exclude-dir=vendor -m1 '^#!' . | while read -r f; do
  [ "$(head -c2 "$f")" = '#!' ] && chmod +x "$f"; done)

log "go work vendor"
(cd "$tree" && GOFLAGS= GOWORK= go work vendor 2>&1 | { grep -v '^go: downloading' || true; })

log "committing and tagging $version in $repo"
[ -d "$repo" ] || git init -q --bare "$repo"
git -C "$tree" init -q -b "release-${version%.*}"
git -C "$tree" add -A
git -C "$tree" -c user.name=kubesched -c user.email=kubesched@localhost \
  commit -q -m "Kubernetes $version" -m "Made from k8s.io/kubernetes@$version and its staging modules at $staging_version (Go module proxy); upstream commit ${commit:-unknown}.${skipped:+ Not served, so not in go.work:$skipped.}"
git -C "$tree" -c user.name=kubesched -c user.email=kubesched@localhost tag -a "$version" -m "Kubernetes $version"
# Each version is a history of its own in the one repository, like a release branch and its tag.
git -C "$tree" push -q "$repo" "+HEAD:refs/heads/release-${version%.*}" "refs/tags/$version"
log "$repo: $version at $(git -C "$repo" rev-parse "$version^{commit}") ($(du -sh "$repo" | cut -f1))"
echo "file://$repo"
