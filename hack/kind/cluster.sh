#!/usr/bin/env bash
# cluster.sh up|ready|images|down|status|context|pause|thaw — the kind cluster $CLUSTER_NAME of Kubernetes $KUBE_VERSION
# (1 control-plane + $CLUSTER_WORKERS workers) and the local registry (localhost:$REGISTRY_PORT on
# the host, the same name on the nodes). `ready` reuses them when they are up and healthy (no content checks of
# the cached builds) and is `up` otherwise. `images` builds (or finds cached) what the cluster would run, without
# creating it. `context` prints the cluster's kubectl context. `pause` freezes a cluster not in use, `thaw` undoes it
# (`ready` and `up` thaw and wait until it has settled).
. "$(dirname "$0")/lib.sh"

KUBECONFIG_PATH=${KUBECONFIG:-$HOME/.kube/config}
KUBECONFIG_PATH=${KUBECONFIG_PATH%%:*}  # of a list, the first file (where kind writes too)
CONTEXT=kind-$CLUSTER_NAME

kubectl_() { "$KUBESCHED_BIN/kubectl" --context "$CONTEXT" "$@"; }

# Cluster DNS answers for the cluster only: nothing is forwarded off this machine.
coredns_local_only() {
  if kubectl_ -n kube-system get configmap coredns -o jsonpath='{.data.Corefile}' | grep -qE '^\s*forward\b'; then
    log "CoreDNS: answering for the cluster only (coredns-configmap.yaml)"
    kubectl_ replace -f "$KIND_DIR/coredns-configmap.yaml" >/dev/null
    kubectl_ -n kube-system rollout restart deployment coredns >/dev/null
  fi
}

registry_up() {
  local image=kubesched.local/registry:latest
  [ "$KIND_NODE_SOURCE" = stock ] && image=registry:2
  if [ "$(docker inspect -f '{{.State.Running}}' "$REGISTRY_NAME" 2>/dev/null)" != true ]; then
    docker rm -f "$REGISTRY_NAME" >/dev/null 2>&1 || true
    log "starting registry $REGISTRY_NAME on 127.0.0.1:$REGISTRY_PORT"
    docker run -d --restart=always --name "$REGISTRY_NAME" -p "127.0.0.1:$REGISTRY_PORT:5000" \
      -v kubesched-registry-data:/var/lib/registry "$image" >/dev/null
  fi
  registry_answers 30 && return 0
  # Seen once after dockerd was restarted under the running containers (CI's first step when the previous
  # session's dockerd was killed): the container ran, listened, and 127.0.0.1:$REGISTRY_PORT did not reach it.
  # A restart gives it a new port proxy; the state of the failure is printed first.
  log "registry $REGISTRY_NAME runs but does not answer on 127.0.0.1:$REGISTRY_PORT; restarting it"
  registry_diagnose
  docker restart "$REGISTRY_NAME" >/dev/null
  registry_answers 60 && return 0
  registry_diagnose
  die "registry did not answer on 127.0.0.1:$REGISTRY_PORT (container $REGISTRY_NAME, restarted once)"
}
registry_answers() {  # registry_answers SECONDS: whether /v2/ answers within that time
  local deadline=$((SECONDS + $1))
  while [ "$SECONDS" -lt "$deadline" ]; do
    curl -fsS -m 2 --noproxy '*' "http://127.0.0.1:$REGISTRY_PORT/v2/" >/dev/null 2>&1 && return 0
    sleep 1
  done
  return 1
}
registry_diagnose() {
  docker inspect -f 'state={{.State.Status}} started={{.State.StartedAt}} restarts={{.RestartCount}} {{range $k, $v := .NetworkSettings.Networks}}{{$k}}={{$v.IPAddress}} {{end}}' "$REGISTRY_NAME" >&2 || true
  docker port "$REGISTRY_NAME" >&2 || true
  ss -ltnp "sport = :$REGISTRY_PORT" >&2 || true
  curl -sS -m 3 --noproxy '*' -o /dev/null -w 'curl: HTTP %{http_code}\n' "http://127.0.0.1:$REGISTRY_PORT/v2/" >&2 || true
  docker logs --tail 5 "$REGISTRY_NAME" >&2 || true
}

kind_config() {  # kind_config FILE
  {
    echo "kind: Cluster"
    echo "apiVersion: kind.x-k8s.io/v1alpha4"
    echo "nodes:"
    for _ in $(seq "$CLUSTER_CONTROL_PLANES"); do echo "  - role: control-plane"; done
    for _ in $(seq "$CLUSTER_WORKERS"); do echo "  - role: worker"; done
    if [ "$KIND_NODE_SOURCE" = stock ]; then
      printf 'containerdConfigPatches:\n  - |-\n    [plugins."io.containerd.grpc.v1.cri".registry]\n      config_path = "/etc/containerd/certs.d"\n'
    fi
    # Kubelet 1.35+ refuses a cgroup v1 host unless told otherwise (KEP-5573); kind skips the
    # kubeadm preflight that would refuse it too.
    if [ "$(stat -fc %T /sys/fs/cgroup)" != cgroup2fs ]; then
      printf 'kubeadmConfigPatches:\n  - |\n    kind: KubeletConfiguration\n    failCgroupV1: false\n'
    fi
    if [ -n "$CLUSTER_RUNTIME_CONFIG" ]; then
      echo "runtimeConfig:"
      tr ',' '\n' <<< "$CLUSTER_RUNTIME_CONFIG" | sed -E 's/^([^=]+)=(.*)$/  "\1": "\2"/'
    fi
    # kind's featureGates would reach every component; these reach the API servers and controller managers only.
    if [ -n "$CLUSTER_API_FEATURE_GATES" ]; then
      echo "kubeadmConfigPatchesJSON6902:"
      for component in apiServer controllerManager; do
        printf '  - group: kubeadm.k8s.io\n    version: v1beta4\n    kind: ClusterConfiguration\n    patch: |\n'
        printf '      - op: add\n        path: /%s/extraArgs/-\n        value: {name: feature-gates, value: "%s"}\n' "$component" "$CLUSTER_API_FEATURE_GATES"
      done
    fi
    echo "networking:"
    echo "  kubeProxyMode: iptables"
  } > "$1"
}
# config_id FILE: what a cluster made from the kind configuration FILE is marked with (on its first control-plane
# node, /kind/kubesched-config): a cluster of another configuration (gates, nodes) is made again, not reused.
config_id() { sha256sum < "$1" | cut -c1-16; }
config_of() { docker exec "$CLUSTER_NAME-control-plane" cat /kind/kubesched-config 2>/dev/null || echo none; }

# kind writes the kubeconfig in place (truncated, then written): a scenario reading it at that moment, on another
# cluster beside (make test's compact scenario starts its cluster while the others run), sees an empty or half file.
# kind writes a throwaway file instead, and $KUBECONFIG_PATH changes only by rename, its current context kept.
kind_() {  # kind_ create|delete cluster ...: kind with a kubeconfig of its own, merged into (or removed from) ours
  local tmp new current
  [ -x "$KUBESCHED_BIN/kubectl" ] || { kind "$@"; return; }
  tmp=$(mktemp); new="$KUBECONFIG_PATH.kubesched-$$"
  kind "$@" --kubeconfig "$tmp" || { rm -f "$tmp"; return 1; }
  mkdir -p "$(dirname "$KUBECONFIG_PATH")"
  lock 7 "$KUBESCHED_CACHE/.kubeconfig.lock" "write of $KUBECONFIG_PATH"  # two clusters brought up at once would each write the file back without the other's context
  [ -s "$KUBECONFIG_PATH" ] && cp "$KUBECONFIG_PATH" "$new" || : > "$new"
  chmod 600 "$new"
  for what in context cluster user; do
    "$KUBESCHED_BIN/kubectl" config --kubeconfig "$new" "delete-$what" "$CONTEXT" >/dev/null 2>&1 || true
  done
  if [ "$1" = create ]; then
    current=$("$KUBESCHED_BIN/kubectl" config --kubeconfig "$new" current-context 2>/dev/null) || current=
    KUBECONFIG="$tmp:$new" "$KUBESCHED_BIN/kubectl" config view --flatten > "$new.merged"
    mv -f "$new.merged" "$new"
    [ -z "$current" ] || "$KUBESCHED_BIN/kubectl" config --kubeconfig "$new" use-context "$current" >/dev/null
  fi
  mv -f "$new" "$KUBECONFIG_PATH"
  unlock 7
  rm -f "$tmp"
}

# cluster_exists NAME: kind lists it. (Not `kind get clusters | grep -q`: grep -q leaves at the first match, and
# under pipefail kind's write of the next name then fails the pipeline with SIGPIPE.)
cluster_exists() {
  local clusters
  clusters=$(kind get clusters 2>/dev/null) || return 1
  grep -qx "$1" <<< "$clusters"
}

# images: every image the cluster of $KUBE_VERSION runs, built from their sources (cached by content); prints the node
# image. The builds of all versions share caches (the Debian tree, etcd, CoreDNS, ...): one build at a time on the
# machine, whichever cluster it is for.
images() {
  lock 8 "$KUBESCHED_CACHE/.images.lock" "build of the cluster images"
  "$KIND_DIR/build-k8s.sh" >&2
  "$KIND_DIR/build-extras.sh" >&2
  "$KIND_DIR/images.sh" busybox registry >&2
  [ "$CLUSTER_CONTROL_PLANES" -gt 1 ] && "$KIND_DIR/images.sh" lb >&2
  if [ "$CLUSTER_SSH" = 1 ]; then "$KIND_DIR/images.sh" node-ssh | tail -1; else "$KIND_DIR/images.sh" node | tail -1; fi
  unlock 8
}

# kind_network: the Docker network kind puts the nodes on, made before kind would make it, with kind's options and an
# IPv4 subnet of its own (kind gives one for IPv6 only): Docker gives a container a chosen address (readdress.py) only
# on such a network. The first free 172.18-31.0.0/16; for IPv6 the subnet kind derives from the network's name.
kind_network() {
  docker network inspect "$KIND_NETWORK" >/dev/null 2>&1 && return 0
  local n used nets v6
  v6=$(python3 -c 'import hashlib, ipaddress, struct, sys
h = hashlib.sha1(sys.argv[1].encode() + struct.pack("<i", 0)).digest()
print(ipaddress.IPv6Network((bytes([0xFC, 0]) + h[2:8] + bytes(8), 64)))' "$KIND_NETWORK")
  mapfile -t nets < <(docker network ls -q)
  used=$(docker network inspect -f '{{range .IPAM.Config}} {{.Subnet}} {{end}}' "${nets[@]}")
  for n in $(seq 18 31); do
    grep -qF " 172.$n.0.0/16 " <<< "$used" || ip route | grep -q "^172\.$n\." || break
  done
  [ "$n" -lt 31 ] || die "no free 172.N.0.0/16 (N 18 to 30) for the Docker network $KIND_NETWORK"
  log "docker network create $KIND_NETWORK (172.$n.0.0/16)"
  docker network create -d bridge -o com.docker.network.bridge.enable_ip_masquerade=true \
    -o com.docker.network.driver.mtu=1500 --subnet "172.$n.0.0/16" --ipv6 --subnet "$v6" \
    "$KIND_NETWORK" >/dev/null
}

# revive: after a restart of Docker, the cluster's stopped nodes started and every kind node given back the address it
# was set up with (readdress.py), before anything reads the cluster's configuration or judges its health.
# Fails when the cluster was given up (another cluster's newer nodes hold its addresses): it is made again.
revive() {
  cluster_exists "$CLUSTER_NAME" || return 0
  local rc=0
  KIND_NETWORK=$KIND_NETWORK python3 "$KIND_DIR/readdress.py" --start "$CLUSTER_NAME" || rc=$?
  case $rc in
    0) ;;
    3) return 1 ;;
    *) log "not every node of the Docker network $KIND_NETWORK could be given back its address; the health check decides" ;;
  esac
}

up() {
  "$KIND_DIR/install-host.sh"
  awake
  kind_network
  local node_image
  if [ "$KIND_NODE_SOURCE" = offline ]; then
    node_image=$(images)
    # The shell's kubectl is the default version's; another version's cluster keeps it.
    if [ "$KUBE_VERSION" = "$DEFAULT_KUBE_VERSION" ] || [ ! -x "$KUBESCHED_BIN/kubectl" ]; then
      install -m 0755 "$(k8s_bin_dir)/kubectl" "$KUBESCHED_BIN/kubectl"
    fi
  else
    node_image=kindest/node:$KUBE_VERSION
  fi
  registry_up
  local cfg; cfg=$(mktemp)
  kind_config "$cfg"
  if cluster_exists "$CLUSTER_NAME"; then
    local running
    running=$(docker inspect -f '{{index .Config.Labels "io.x-k8s.kind.cluster"}} {{.Config.Image}}' "$CLUSTER_NAME-control-plane" 2>/dev/null | awk '{print $2}')
    if [ "$running" != "$node_image" ]; then
      log "cluster $CLUSTER_NAME runs $running, not $node_image: recreating it"
      kind_ delete cluster --name "$CLUSTER_NAME"
    elif [ "$(config_of)" != "$(config_id "$cfg")" ]; then
      log "cluster $CLUSTER_NAME was made from another kind configuration ($(config_of), not $(config_id "$cfg")): recreating it"
      kind_ delete cluster --name "$CLUSTER_NAME"
    elif ! healthy; then
      log "cluster $CLUSTER_NAME exists but is not healthy (stopped nodes, or Docker restarted under it): recreating it"
      kind_ delete cluster --name "$CLUSTER_NAME"
    else
      log "cluster $CLUSTER_NAME is up (node image $node_image)"
    fi
  fi
  if ! cluster_exists "$CLUSTER_NAME"; then
    log "kind create cluster --name $CLUSTER_NAME --image $node_image ($CLUSTER_CONTROL_PLANES control-plane + $CLUSTER_WORKERS workers)"
    kind_ create cluster --name "$CLUSTER_NAME" --image "$node_image" --config "$cfg" --wait 5m --retain \
      || { kind export logs "$KUBESCHED_CACHE/kind-logs" --name "$CLUSTER_NAME" >/dev/null 2>&1 || true
           die "kind create cluster failed; node logs in $KUBESCHED_CACHE/kind-logs"; }
    docker exec "$CLUSTER_NAME-control-plane" sh -c "echo $(config_id "$cfg") > /kind/kubesched-config"
  fi
  rm -f "$cfg"
  docker network connect "$KIND_NETWORK" "$REGISTRY_NAME" >/dev/null 2>&1 || true
  if [ "$KIND_NODE_SOURCE" = stock ]; then
    for node in $(kind get nodes --name "$CLUSTER_NAME"); do
      docker exec "$node" sh -c "mkdir -p /etc/containerd/certs.d/localhost:$REGISTRY_PORT && printf '[host.\"http://$REGISTRY_NAME:5000\"]\n' > /etc/containerd/certs.d/localhost:$REGISTRY_PORT/hosts.toml"
    done
  fi
  kubectl_ apply -f - >/dev/null <<YAML
apiVersion: v1
kind: ConfigMap
metadata:
  name: local-registry-hosting
  namespace: kube-public
data:
  localRegistryHosting.v1: |
    host: "localhost:$REGISTRY_PORT"
YAML
  [ "$KIND_NODE_SOURCE" = offline ] && coredns_local_only
  weigh
  wait_ready
  status
}

# healthy: every node container runs with the address it was set up with (a Docker restart may
# hand the nodes each other's addresses), the API server answers, every node and kube-system pod
# turns Ready.
healthy() {
  local node ip flags
  for node in $(kind get nodes --name "$CLUSTER_NAME" 2>/dev/null); do
    [ "$(docker inspect -f '{{.State.Running}}' "$node" 2>/dev/null)" = true ] || docker start "$node" >/dev/null 2>&1 || return 1
    [[ $node == *-external-load-balancer ]] && continue  # no kubelet there
    ip=$(docker inspect -f '{{with index .NetworkSettings.Networks "kind"}}{{.IPAddress}}{{end}}' "$node")
    flags=$(docker exec "$node" cat /var/lib/kubelet/kubeadm-flags.env 2>/dev/null) || return 1
    grep -q -- "--node-ip=$ip\b" <<< "$flags" || { log "$node now has address $ip, not the one it was set up with"; return 1; }
  done
  for _ in $(seq 60); do kubectl_ get --raw /readyz >/dev/null 2>&1 && break; sleep 2; done
  nodes_registered 120 && kubectl_ wait --for=condition=Ready nodes --all --timeout=120s >/dev/null 2>&1 &&
  system_pods_ready 120
}

# system_pods_ready SECONDS: every kube-system pod Ready within SECONDS, but those on kwok's fake nodes (label
# type=kwok): a scenario stopped before its cleanup leaves its kwok nodes, and a DaemonSet's copies there, which kwok
# alone answers for (after a thaw some stay not Ready), are not the cluster's health.
system_pods_ready() {
  local deadline=$((SECONDS + $1)) fake
  while :; do
    fake=$(kubectl_ get nodes -l type=kwok -o json 2>/dev/null | jq -c '[.items[].metadata.name]') &&
      kubectl_ -n kube-system get pods -o json 2>/dev/null | jq -e --argjson fake "$fake" '
        all(.items[] | select(.spec.nodeName as $n | $fake | index($n) | not);
            any(.status.conditions[]?; .type == "Ready" and .status == "True"))' >/dev/null && return 0
    [ $SECONDS -lt "$deadline" ] || return 1
    sleep 2
  done
}

# weigh: the cluster's containers get the CPU weight of the command that brings it up: make test's background runs
# at nice 19, and the containers it starts (dockerd starts them, not it) would otherwise compete at full weight with
# the cluster the scenarios run on. cpu.shares 1024 halved every 6 steps of niceness: 128 at nice 19.
weigh() {
  local nodes
  nodes=$(kind get nodes --name "$CLUSTER_NAME" 2>/dev/null)
  [ -n "$nodes" ] || return 0
  # shellcheck disable=SC2086  # one name each
  docker update --cpu-shares $((1024 >> ($(nice) / 6))) $nodes >/dev/null
}

# pause: a cluster not in use is frozen (docker pause of its node containers and its load balancer), so that its
# control plane's idle work (etcd, API servers, controllers: half a core for kubesched-ha's three control-plane nodes
# on a 2-core machine) leaves the CPU to the cluster in use. Nothing in it runs or answers until it is thawed.
nodes_paused() {  # nodes_paused true|false: the cluster's containers that are paused (true) or not (false)
  local node
  for node in $(kind get nodes --name "$CLUSTER_NAME" 2>/dev/null); do
    if [ "$(docker inspect -f '{{.State.Paused}}' "$node" 2>/dev/null)" = "$1" ]; then echo "$node"; fi
  done
}
pause() {
  local nodes try err
  nodes=$(nodes_paused false)
  [ -n "$nodes" ] || return 0
  # The cgroup freezer can fail to freeze a container busy forking ("unable to freeze"): tried again, the containers
  # already paused left out.
  for try in 1 2 3 4 5; do
    # shellcheck disable=SC2086  # one name each
    err=$(docker pause $nodes 2>&1 >/dev/null) && break
    nodes=$(nodes_paused false)
    [ -n "$nodes" ] || break
    [ "$try" -lt 5 ] || die "docker pause of $CLUSTER_NAME failed 5 times: $err"
    log "docker pause of $CLUSTER_NAME failed (${err//$'\n'/ }); trying again"
    sleep 2
  done
  nodes=$(nodes_paused true)
  log "cluster $CLUSTER_NAME paused ($(wc -w <<< "$nodes") containers) while it is not in use; cluster.sh ready or thaw takes it back"
}
thaw() {
  local nodes
  nodes=$(nodes_paused true)
  [ -n "$nodes" ] || return 1
  # shellcheck disable=SC2086
  docker unpause $nodes >/dev/null
  log "cluster $CLUSTER_NAME thawed"
}
# settle: after a thaw, leaders whose Leases lapsed while frozen (kube-scheduler, kube-controller-manager) restart;
# wait until every kube-system pod is Ready and none has restarted for 30 s (at most 5 min).
settle() {
  local deadline=$((SECONDS + 300)) before after
  for _ in $(seq 60); do kubectl_ get --raw /readyz >/dev/null 2>&1 && break; sleep 2; done
  sleep 15
  while :; do
    before=$(kubectl_ -n kube-system get pods --no-headers 2>/dev/null | awk '{n += $4} END {print n + 0}')
    sleep 30
    after=$(kubectl_ -n kube-system get pods --no-headers 2>/dev/null | awk '{n += $4} END {print n + 0}')
    if [ "$before" = "$after" ] && kubectl_ wait --for=condition=Ready nodes --all --timeout=5s >/dev/null 2>&1 &&
      system_pods_ready 5; then
      log "cluster $CLUSTER_NAME settled after its thaw"
      return 0
    fi
    [ $SECONDS -lt $deadline ] || { kubectl_ -n kube-system get pods >&2; log "cluster $CLUSTER_NAME did not settle after its thaw"; return 1; }
  done
}
# awake: a paused cluster thawed; the nodes given back their addresses (revive); a thawed cluster that was not given up
# settled. One that did not settle is judged by the health checks that follow.
awake() {
  local thawed=0
  if thaw; then thawed=1; fi
  if revive && [ "$thawed" = 1 ]; then settle || true; fi
}

# ready: nothing to do when the cluster exists and is healthy and the registry runs (the first checks of `up`,
# without its content checks of the cached builds, which `make cluster` made at the start of the run); `up` otherwise.
# What each molecule scenario's create runs.
config_current() {  # the running cluster was made from the kind configuration these settings give
  local cfg id; cfg=$(mktemp); kind_config "$cfg"; id=$(config_id "$cfg"); rm -f "$cfg"
  [ "$(config_of)" = "$id" ]
}
ready() {
  awake
  if cluster_exists "$CLUSTER_NAME" && [ "$(docker inspect -f '{{.State.Running}}' "$REGISTRY_NAME" 2>/dev/null)" = true ] && config_current && healthy; then
    log "cluster $CLUSTER_NAME is up and healthy"
    weigh
    return
  fi
  up
}

# nodes_registered SECONDS: every node of the cluster ($CLUSTER_CONTROL_PLANES + $CLUSTER_WORKERS) has registered with
# the API server. `kind create --wait` waits for the control plane only, and a worker's kubelet registers its Node some
# time after its `kubeadm join` returned (a minute and more on a loaded machine): `kubectl wait nodes --all` alone
# would pass on the nodes there are.
nodes_registered() {
  local want=$((CLUSTER_CONTROL_PLANES + CLUSTER_WORKERS)) deadline=$((SECONDS + $1)) n
  while :; do
    n=$(kubectl_ get nodes --no-headers 2>/dev/null | wc -l)
    [ "$n" -ge "$want" ] && return 0
    [ $SECONDS -lt "$deadline" ] || { log "$n of $want nodes registered after $1 s"; kubectl_ get nodes >&2 || true; return 1; }
    sleep 2
  done
}

wait_ready() {
  log "waiting for every node Ready and every kube-system pod Running"
  nodes_registered 300 || die "not every node of $CLUSTER_NAME registered"
  kubectl_ wait --for=condition=Ready nodes --all --timeout=300s >/dev/null
  kubectl_ -n kube-system rollout status deployment/coredns --timeout=300s >/dev/null
  kubectl_ -n kube-system rollout status daemonset/kube-proxy --timeout=300s >/dev/null
  local deadline=$((SECONDS + 300))
  while kubectl_ -n kube-system get pods --no-headers | awk '$3 != "Running" {bad=1} END {exit !bad}'; do
    [ $SECONDS -lt $deadline ] || { kubectl_ -n kube-system get pods; die "kube-system pods are not all Running"; }
    sleep 2
  done
}

status() {
  kubectl_ get nodes -o wide
  kubectl_ -n kube-system get pods -o wide
  echo "registry: localhost:$REGISTRY_PORT (host) = localhost:$REGISTRY_PORT (nodes, via $REGISTRY_NAME:5000)"
  echo "kubectl: $KUBESCHED_BIN/kubectl  kind: $(command -v kind)  context: $CONTEXT  kubeconfig: $KUBECONFIG_PATH"
}

down() {
  thaw || true
  kind_ delete cluster --name "$CLUSTER_NAME" 2>/dev/null || true
  # The registry serves every version's cluster: it goes with the last of them.
  if kind get clusters 2>/dev/null | grep -E '^kubesched(-[0-9]+-[0-9]+|-ha)?$' >/dev/null; then
    log "cluster $CLUSTER_NAME removed; registry $REGISTRY_NAME kept for the other clusters"; return
  fi
  docker rm -f "$REGISTRY_NAME" >/dev/null 2>&1 || true
  docker volume rm kubesched-registry-data >/dev/null 2>&1 || true
  log "cluster $CLUSTER_NAME and registry $REGISTRY_NAME removed; cached images and builds stay in $KUBESCHED_CACHE and docker"
}

# One `up` or `down` of a cluster at a time: a second call (another test run on the same machine) waits for the
# first, then finds the cluster up, instead of judging a cluster being created unhealthy and deleting it. The lock
# is this script's alone: what it starts in the background (dockerd) gets none of its descriptors (lib.sh).
serialized() {
  mkdir -p "$KUBESCHED_CACHE"
  lock 9 "$KUBESCHED_CACHE/.cluster-$CLUSTER_NAME.lock" "bring-up or removal of $CLUSTER_NAME"
  "$@"
}

case "${1:-}" in
  up) serialized up ;;
  images) mkdir -p "$KUBESCHED_CACHE"; "$KIND_DIR/install-host.sh"; images >/dev/null ;;
  ready) serialized ready ;;
  down) serialized down ;;
  status) status ;;
  context) echo "$CONTEXT" ;;
  pause) serialized pause ;;
  thaw) serialized thaw || true ;;
  *) die "usage: cluster.sh up|ready|images|down|status|context|pause|thaw" ;;
esac
