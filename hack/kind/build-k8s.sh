#!/usr/bin/env bash
# Builds the Kubernetes binaries a kind node needs, for $KUBE_VERSION, from the Go module proxy:
# kubeadm, kubelet, kubectl, kube-apiserver, kube-controller-manager, kube-scheduler, kube-proxy.
# k8s.io/kubernetes requires its staging modules at v0.0.0 and replaces them with ./staging paths,
# so a small wrapper module requires it and replaces every staging module with its published
# v0.MINOR.PATCH twin; the list is read from k8s.io/kubernetes' own go.mod, never typed by hand.
# Output: $KUBESCHED_CACHE/k8s/$KUBE_VERSION/bin, skipped when the cache key is unchanged.
. "$(dirname "$0")/lib.sh"

out=$(k8s_bin_dir)
want=$(key k8s "$KUBE_VERSION" "$(go version)" "$KIND_DIR/build-k8s.sh" "$KIND_DIR/gen-wrapper.py")
if [ "$(cat "$out/.key" 2>/dev/null)" = "$want" ]; then
  log "kubernetes $KUBE_VERSION binaries: cached in $out"; exit 0
fi

work=$KUBESCHED_CACHE/k8s/$KUBE_VERSION/module
mkdir -p "$work" "$out"
cd "$work"
log "kubernetes $KUBE_VERSION: writing the wrapper module in $work"
python3 "$KIND_DIR/gen-wrapper.py" kubesched.local/kube-build "$KUBE_VERSION" \
  k8s.io/kubernetes/cmd/kubeadm k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kubectl \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kube-proxy
go mod tidy

ldflags=$(python3 "$KIND_DIR/gen-wrapper.py" --ldflags "$KUBE_VERSION")
log "kubernetes $KUBE_VERSION: go build (cold on 2 cores: about 10 min; the Go build cache makes reruns fast)"
start=$(date +%s)
go build -ldflags "$ldflags" -o "$out/" \
  k8s.io/kubernetes/cmd/kubeadm k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kubectl \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kube-proxy
log "kubernetes $KUBE_VERSION: built in $(( $(date +%s) - start ))s"
for b in kubeadm kubelet kubectl kube-apiserver kube-controller-manager kube-scheduler kube-proxy; do
  case $b in
    kubeadm) v=$("$out/$b" version -o short) ;;
    kubectl) v=$("$out/$b" version --client) ;;
    *) v=$("$out/$b" --version) ;;
  esac
  case "$v" in *"$KUBE_VERSION"*) ;; *) die "$b reports '$v', expected $KUBE_VERSION" ;; esac
done
echo "$want" > "$out/.key"
log "kubernetes $KUBE_VERSION binaries: $out"
