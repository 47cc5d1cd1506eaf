#!/usr/bin/env bash
# Builds the Kubernetes binaries a kind node needs, for $KUBE_VERSION: kubeadm, kubelet, kubectl, kube-apiserver,
# kube-controller-manager, kube-scheduler, kube-proxy. From the very source the build role clones (hack/k8s-source.sh's
# repository, tag $KUBE_VERSION), with the Kubernetes task's own command, `make WHAT=...`, in the environment the role
# builds in (FORCE_HOST_GO, KUBE_BUILD_PLATFORMS, the default GOCACHE). Upstream's build passes -trimpath, so what Go compiles
# does not depend on the checkout's directory: the task's `make WHAT=cmd/kube-scheduler` afterwards finds every
# package of kube-scheduler in Go's build cache and only links. kubelet is built static like the others
# (KUBE_STATIC_OVERRIDES), so that the seven build in one `go install` with the packages they share compiled once.
# Output: $KUBESCHED_CACHE/k8s/$KUBE_VERSION/bin, skipped when the cache key is unchanged.
. "$(dirname "$0")/lib.sh"

BINARIES="kubeadm kubelet kubectl kube-apiserver kube-controller-manager kube-scheduler kube-proxy"
out=$(k8s_bin_dir)
repo_url=$("$KIND_DIR/../k8s-source.sh" "$KUBE_VERSION")
commit=$(git -C "${repo_url#file://}" rev-parse "$KUBE_VERSION^{commit}")
want=$(key k8s "$KUBE_VERSION" "$commit" "$(go version)" "$KIND_DIR/build-k8s.sh")
if [ "$(cat "$out/.key" 2>/dev/null)" = "$want" ]; then
  log "kubernetes $KUBE_VERSION binaries: cached in $out"; exit 0
fi

src=$KUBESCHED_CACHE/k8s/$KUBE_VERSION/src
if [ "$(git -C "$src" rev-parse HEAD 2>/dev/null)" != "$commit" ] || [ -n "$(git -C "$src" status --porcelain 2>/dev/null | head -1)" ]; then
  rm -rf "$src" "$KUBESCHED_CACHE/k8s/$KUBE_VERSION/module"
  log "kubernetes $KUBE_VERSION: cloning $repo_url into $src"
  git -c advice.detachedHead=false clone -q --branch "$KUBE_VERSION" "$repo_url" "$src"
fi
platform=$(go env GOOS)/$(go env GOARCH)
targets=$(for b in $BINARIES; do printf 'cmd/%s ' "$b"; done)
log "kubernetes $KUBE_VERSION: make WHAT=\"${targets% }\" (cold on 2 cores: about 10 min; the Go build cache makes reruns fast)"
start=$(date +%s)
# The role's environment, not this script's (lib.sh's GOFLAGS and CGO_ENABLED would change what is compiled).
env -u GOFLAGS -u CGO_ENABLED FORCE_HOST_GO=y KUBE_BUILD_PLATFORMS="$platform" KUBE_STATIC_OVERRIDES=kubelet \
  GOCACHE="$(go env GOCACHE)" make -C "$src" WHAT="${targets% }" >&2
log "kubernetes $KUBE_VERSION: built in $(( $(date +%s) - start ))s"
mkdir -p "$out"
for b in $BINARIES; do
  install -m 0755 "$src/_output/local/bin/$platform/$b" "$out/$b"
  case $b in
    kubeadm) v=$("$out/$b" version -o short) ;;
    kubectl) v=$("$out/$b" version --client) ;;
    *) v=$("$out/$b" --version) ;;
  esac
  case "$v" in *"$KUBE_VERSION"*) ;; *) die "$b reports '$v', expected $KUBE_VERSION" ;; esac
done
echo "$want" > "$out/.key"
log "kubernetes $KUBE_VERSION binaries: $out"
