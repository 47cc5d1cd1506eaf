#!/usr/bin/env bash
# Prints the newest Kubernetes 1.34 patch and kind release the Go module proxy serves, next to
# what versions.env pins.
. "$(dirname "$0")/lib.sh"
cd "$(mktemp -d)"
minor=$(sed -E 's/^v1\.([0-9]+)\..*/\1/' <<< "$KUBE_VERSION")
newest_kube=$(go list -m -versions k8s.io/kubernetes | tr ' ' '\n' | grep -E "^v1\.$minor\.[0-9]+$" | sort -V | tail -1)
newest_kind=$(go list -m -versions sigs.k8s.io/kind | tr ' ' '\n' | grep -E '^v[0-9]+\.[0-9]+\.[0-9]+$' | sort -V | tail -1)
echo "kubernetes 1.$minor: pinned $KUBE_VERSION, newest $newest_kube"
echo "kind: pinned $KIND_VERSION, newest $newest_kind"
