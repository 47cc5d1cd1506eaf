#!/usr/bin/env bash
# Prints, next to what versions.env pins, the newest patch of each maintained Kubernetes minor (the
# three newest minors with a release) and the newest kind release that the Go module proxy serves.
# Exits 1 when a pin is behind, so a scheduled job can say so.
. "$(dirname "$0")/lib.sh"
cd "$(mktemp -d)"
stable() { go list -m -versions "$1" | tr ' ' '\n' | grep -E '^v[0-9]+\.[0-9]+\.[0-9]+$' | sort -V; }
kube=$(stable k8s.io/kubernetes)
minors=$(sed -E 's/^(v[0-9]+\.[0-9]+)\..*/\1/' <<< "$kube" | uniq | tail -3)
behind=0
for m in $minors; do
  newest=$(grep -F "$m." <<< "$kube" | tail -1)
  pinned=$(tr ' ' '\n' <<< "$MATRIX_KUBE_VERSIONS" | grep -F "$m." || echo none)
  [ "$pinned" = "$newest" ] || behind=1
  echo "kubernetes ${m#v}: matrix $pinned, newest $newest"
done
newest=$(tail -1 <<< "$kube")
[ "$DEFAULT_KUBE_VERSION" = "$newest" ] || behind=1
echo "kubernetes default: pinned $DEFAULT_KUBE_VERSION, newest $newest"
newest_kind=$(stable sigs.k8s.io/kind | tail -1)
[ "$KIND_VERSION" = "$newest_kind" ] || behind=1
echo "kind: pinned $KIND_VERSION, newest $newest_kind"
exit $behind
