# shellcheck shell=bash
# Shared settings and helpers for the offline kind platform. Sourced, never run.
set -euo pipefail

KIND_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=hack/kind/versions.env
. "$KIND_DIR/versions.env"
# Every cluster name, cache key and download below derives from KUBE_VERSION: a release, checked before anything is made.
[[ $KUBE_VERSION =~ ^v1\.[0-9]+\.[0-9]+$ ]] || {
  printf "ERROR: KUBE_VERSION must be a release v1.MINOR.PATCH (the default %s; make test-matrix uses %s), not '%s'\n" \
    "$DEFAULT_KUBE_VERSION" "$MATRIX_KUBE_VERSIONS" "$KUBE_VERSION" >&2
  exit 1
}

# Where builds are cached. Outside the checkout so that a fresh clone (CI) reuses them.
KUBESCHED_CACHE=${KUBESCHED_CACHE:-/var/cache/kubesched}
# Where kind, kubectl and the other tools are installed for the shell to find.
KUBESCHED_BIN=${KUBESCHED_BIN:-/usr/local/bin}
# The default version's cluster is `kubesched`; another version gets a cluster of its own beside
# it (kubesched-1-35 for v1.35.x), so switching versions never recreates the other's.
default_cluster_name() {
  if [ "$KUBE_VERSION" = "$DEFAULT_KUBE_VERSION" ]; then echo kubesched
  else echo "kubesched-$(sed -E 's/^v([0-9]+)\.([0-9]+)\..*/\1-\2/' <<< "$KUBE_VERSION")"; fi
}
CLUSTER_NAME=${CLUSTER_NAME:-$(default_cluster_name)}
# Two workers for the default version's cluster; one for the others (the compact scenario needs one).
if [ "$KUBE_VERSION" = "$DEFAULT_KUBE_VERSION" ]; then CLUSTER_WORKERS=${CLUSTER_WORKERS:-2}; else CLUSTER_WORKERS=${CLUSTER_WORKERS:-1}; fi
REGISTRY_NAME=${REGISTRY_NAME:-kubesched-registry}
REGISTRY_PORT=${REGISTRY_PORT:-5001}
# offline: build every image here; stock: use kindest/node and registry:2 (machines that can pull)
KIND_NODE_SOURCE=${KIND_NODE_SOURCE:-offline}

export GOFLAGS=${GOFLAGS:--trimpath}
export CGO_ENABLED=0
mkdir -p "$KUBESCHED_CACHE"

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# key ARG... : a short hash of its arguments, reading the content of those that are files.
key() {
  local a
  for a in "$@"; do
    if [ -f "$a" ]; then sha256sum < "$a"; else printf '%s\n' "$a"; fi
  done | sha256sum | cut -c1-16
}

# image_key IMAGE: the cache key an image was built with (empty when it does not exist).
image_key() { docker image inspect -f '{{index .Config.Labels "io.kubesched.key"}}' "$1" 2>/dev/null || true; }

# kubeadm_images: the exact image names kubeadm asks for at this version.
kubeadm_images() {
  "$(k8s_bin_dir)/kubeadm" config images list --kubernetes-version "$KUBE_VERSION"
}
# kubeadm_image NAME: the full reference kubeadm uses for one image (etcd, coredns, pause, ...).
kubeadm_image() { kubeadm_images | grep -E "/$1:" ; }

# crictl_bin: crictl $CRICTL_VERSION (built by build-extras.sh), the same for every version's nodes.
crictl_bin() { echo "$KUBESCHED_CACHE/extras/crictl-$CRICTL_VERSION/crictl"; }

k8s_bin_dir() { echo "$KUBESCHED_CACHE/k8s/$KUBE_VERSION/bin"; }
