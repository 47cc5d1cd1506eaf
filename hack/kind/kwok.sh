#!/usr/bin/env bash
# Simulated nodes for the benchmarks: kwok (sigs.k8s.io/kwok $KWOK_VERSION) built from the Go module proxy,
# its image pushed to the local registry, its controller and stages applied from the module's own
# kustomize manifests (kustomize/kwok, kustomize/stage/fast), and NODES fake Nodes that kwok keeps Ready.
#   kwok.sh up NODES [PODS]  build (cached by content), deploy, create kwok-node-0..NODES-1 that take PODS pods
#                       each (default 110, a kubelet's default), wait until Ready
#   kwok.sh down        delete the fake Nodes, then kwok's controller, stages and CRDs
# The cluster is the context $KWOK_CONTEXT (default: this version's kind cluster).
# Fake Nodes carry the label type=kwok and the taint kwok.x-k8s.io/node=fake:NoSchedule, so only pods
# that ask for them land there; they have no kubernetes.io/os label, so kube-proxy's DaemonSet skips them.
. "$(dirname "$0")/lib.sh"

KWOK_CONTEXT=${KWOK_CONTEXT:-kind-$CLUSTER_NAME}
KWOK_IMAGE=localhost:$REGISTRY_PORT/kwok:$KWOK_VERSION
k() { kubectl --context "$KWOK_CONTEXT" "$@"; }

kwok_build() {  # prints the kwok module's directory
  local out=$KUBESCHED_CACHE/extras/kwok-$KWOK_VERSION want dir
  want=$(key kwok "$KWOK_VERSION" "$(go version)" "$KIND_DIR/kwok.sh")
  if [ "$(cat "$out/.key" 2>/dev/null)" != "$want" ]; then
    log "kwok $KWOK_VERSION: building (go install sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION)"
    mkdir -p "$out"
    GOBIN=$out go install -ldflags '-s -w' "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
    "$out/kwok" --version | grep -q "${KWOK_VERSION#v}" || die "kwok --version does not report $KWOK_VERSION"
    echo "$want" > "$out/.key"
  else
    log "kwok $KWOK_VERSION: cached in $out"
  fi
  dir=$(go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION" | jq -r .Dir)
  [ -d "$dir/kustomize/kwok" ] || die "no kustomize/kwok in $dir"
  echo "$dir"
}

kwok_image() {
  local bin=$KUBESCHED_CACHE/extras/kwok-$KWOK_VERSION/kwok k ctx
  k=$(key "$KWOK_IMAGE" "$bin" "recipe:kwok-v1")
  if [ "$(image_key "$KWOK_IMAGE")" != "$k" ]; then
    ctx=$(mktemp -d); cp "$bin" "$ctx/kwok"
    printf 'FROM scratch\nCOPY kwok /usr/local/bin/kwok\nENTRYPOINT ["/usr/local/bin/kwok"]\n' > "$ctx/Dockerfile"
    DOCKER_BUILDKIT=0 docker build -q --label "io.kubesched.key=$k" -t "$KWOK_IMAGE" "$ctx" >/dev/null
    rm -rf "$ctx"
  fi
  docker push -q "$KWOK_IMAGE" >/dev/null
  log "kwok image: $KWOK_IMAGE"
}

nodes_yaml() {  # nodes_yaml COUNT PODS
  local i
  echo "apiVersion: v1"; echo "kind: List"; echo "items:"
  for ((i = 0; i < $1; i++)); do
    cat <<EOF
- apiVersion: v1
  kind: Node
  metadata:
    name: kwok-node-$i
    annotations: {kwok.x-k8s.io/node: fake, node.alpha.kubernetes.io/ttl: "0"}
    labels: {type: kwok, kubernetes.io/hostname: kwok-node-$i, kubernetes.io/arch: amd64}
  spec:
    taints: [{key: kwok.x-k8s.io/node, value: fake, effect: NoSchedule}]
  status:
    allocatable: {cpu: "32", memory: 256Gi, pods: "$2"}
    capacity: {cpu: "32", memory: 256Gi, pods: "$2"}
    nodeInfo: {architecture: amd64, operatingSystem: linux, kubeletVersion: fake, kubeProxyVersion: fake, machineID: "", systemUUID: "",
      bootID: "", kernelVersion: "", osImage: "", containerRuntimeVersion: ""}
    phase: Running
EOF
  done
}

up() {
  local count=${1:?usage: kwok.sh up NODES [PODS]} pods=${2:-110} dir start
  [[ $count =~ ^[0-9]+$ && $pods =~ ^[0-9]+$ ]] || die "usage: kwok.sh up NODES [PODS] (whole numbers)"
  start=$(date +%s)
  # One build and push at a time: make test brings kwok up on two clusters at once (a scenario's prepare in the
  # foreground, the benchmarks' smoke run in the background), and both write the same binary, image and tag.
  mkdir -p "$KUBESCHED_CACHE/extras"
  lock 6 "$KUBESCHED_CACHE/extras/kwok.lock" "kwok build"
  dir=$(kwok_build)
  kwok_image
  unlock 6
  k kustomize "$dir/kustomize/kwok" | sed "s#image: registry.k8s.io/kwok/kwok\$#image: $KWOK_IMAGE#" | k apply --server-side -f - >/dev/null
  k wait --for condition=established --timeout=60s crd/stages.kwok.x-k8s.io >/dev/null
  k kustomize "$dir/kustomize/stage/fast" | k apply --server-side -f - >/dev/null
  k -n kube-system rollout status deployment/kwok-controller --timeout=180s >/dev/null
  # Nodes beyond COUNT (an earlier, larger run) go first.
  k get nodes -l type=kwok -o name | awk -F- -v n="$count" '$NF >= n' | xargs -r kubectl --context "$KWOK_CONTEXT" delete --wait=false >/dev/null
  nodes_yaml "$count" "$pods" | k apply --server-side -f - >/dev/null
  local ready=0
  for _ in $(seq 180); do
    ready=$(k get nodes -l type=kwok -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' | grep -c True || true)
    [ "$ready" -ge "$count" ] && break
    sleep 2
  done
  [ "$ready" -ge "$count" ] || die "only $ready of $count kwok nodes became Ready"
  log "kwok: $ready fake nodes ($pods pods each) Ready on $KWOK_CONTEXT in $(( $(date +%s) - start ))s"
}

down() {
  local dir
  k delete nodes -l type=kwok --wait=true --timeout=300s >/dev/null 2>&1 || true
  # DaemonSet pods that were bound to the fake nodes would wait for the pod garbage collector; without
  # them every kube-system pod is Ready again at once (what cluster.sh's health check asks).
  k get pods -A -o json | jq -r '.items[] | select((.spec.nodeName // "") | startswith("kwok-node-")) | "\(.metadata.namespace) \(.metadata.name)"' \
    | awk '{pods[$1] = pods[$1] " " $2} END {for (ns in pods) print ns pods[ns]}' \
    | while read -r ns names; do
        # shellcheck disable=SC2086 # one argument per pod name
        k -n "$ns" delete pod $names --grace-period=0 --force --wait=false >/dev/null 2>&1 || true
      done
  dir=$(go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION" 2>/dev/null | jq -r '.Dir // empty') || true
  if [ -n "$dir" ] && [ -d "$dir/kustomize" ]; then
    k kustomize "$dir/kustomize/stage/fast" | k delete --ignore-not-found -f - >/dev/null 2>&1 || true
    k kustomize "$dir/kustomize/kwok" | k delete --ignore-not-found -f - >/dev/null 2>&1 || true
  fi
  log "kwok: fake nodes and controller removed from $KWOK_CONTEXT"
}

case "${1:-}" in
  up) shift; up "$@" ;;
  down) down ;;
  *) die "usage: kwok.sh up NODES [PODS] | down" ;;
esac
