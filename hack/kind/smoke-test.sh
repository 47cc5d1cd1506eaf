#!/usr/bin/env bash
# Asserts what the offline kind platform promises, on the running cluster:
# nodes Ready at $KUBE_VERSION, kube-system Running, an image pushed from the host to
# localhost:$REGISTRY_PORT runs on a worker, a Service's ClusterIP answers from a pod on another
# node, cluster DNS resolves kubernetes.default, a pod reaches a container beside the nodes, and no node's containerd
# pulled a remote name.
. "$(dirname "$0")/lib.sh"
CONTEXT=kind-$CLUSTER_NAME
k() { "$KUBESCHED_BIN/kubectl" --context "$CONTEXT" "$@"; }
passed=0 failed=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1; shift
  if out=$("$@" 2>&1); then passed=$((passed + 1)); echo "ok   - $what"
  else failed=$((failed + 1)); echo "FAIL - $what"; sed 's/^/       /' <<< "$out" | tail -20; fi
}

nodes_ready() {
  local want=$((CLUSTER_CONTROL_PLANES + CLUSTER_WORKERS)) n
  n=$(k get nodes --no-headers | awk -v v="$KUBE_VERSION" '$2 == "Ready" && $5 == v' | wc -l)
  [ "$n" -eq "$want" ] || { k get nodes; echo "expected $want Ready nodes at $KUBE_VERSION, found $n"; return 1; }
}
system_running() {
  local pods; pods=$(k -n kube-system get pods --no-headers)
  awk '{print} $3 != "Running" {bad=1} END {exit bad}' <<< "$pods" &&
  grep -q '^coredns-' <<< "$pods" && grep -q '^kube-proxy-' <<< "$pods"
}

NS=kubesched-smoke
# The kind workers: kwok's fake nodes (hack/kind/kwok.sh, label type=kwok), if a run left some, run no container.
WORKERS=($(k get nodes --no-headers -l '!node-role.kubernetes.io/control-plane,type!=kwok' -o custom-columns=N:.metadata.name))
IMAGE=localhost:$REGISTRY_PORT/kubesched-smoke:$(date +%s)

setup() {
  k delete namespace "$NS" --ignore-not-found --wait >/dev/null
  k create namespace "$NS" >/dev/null
  docker tag busybox:latest "$IMAGE" && docker push -q "$IMAGE" >/dev/null
  k -n "$NS" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  nodeSelector: {kubernetes.io/hostname: ${WORKERS[0]}}
  containers:
    - name: web
      image: $IMAGE
      command: [sh, -c, 'mkdir -p /www && echo kubesched-smoke > /www/index.html && exec httpd -f -p 8080 -h /www']
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Pod
metadata: {name: client}
spec:
  nodeSelector: {kubernetes.io/hostname: ${WORKERS[${#WORKERS[@]}-1]}}
  containers:
    - name: client
      image: $IMAGE
      command: [sleep, "3600"]
YAML
  k -n "$NS" wait --for=condition=Ready pod/web pod/client --timeout=120s >/dev/null
}

pushed_image_runs() {
  [ "$(k -n "$NS" get pod web -o jsonpath='{.spec.containers[0].image} {.spec.nodeName} {.status.phase}')" = "$IMAGE ${WORKERS[0]} Running" ] &&
  local images; images=$(docker exec "${WORKERS[0]}" ctr -n k8s.io images ls -q)
  grep -qxF "$IMAGE" <<< "$images"
}
# busybox's wget crashes in a static build on name-service lookups; nc to an address does not.
http_get() { k -n "$NS" exec client -- sh -c "printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 5 $1 80 | tail -n 1"; }
# kube-proxy programs a new Service's rules a moment after its endpoints are ready (its sync runs at most once a
# second, later on a busy node): asked for up to 30 s.
clusterip_answers() {
  local ip; ip=$(k -n "$NS" get service web -o jsonpath='{.spec.clusterIP}')
  for _ in $(seq 10); do
    [ "$(http_get "$ip" 2>/dev/null)" = kubesched-smoke ] && return 0
    sleep 3
  done
  http_get "$ip"; return 1
}
dns_resolves() {
  local out ip
  out=$(k -n "$NS" exec client -- nslookup kubernetes.default.svc.cluster.local)
  grep -q 'Address: 10\.96\.0\.1$' <<< "$out" || { echo "$out"; return 1; }
  out=$(k -n "$NS" exec client -- nslookup "web.$NS.svc.cluster.local")
  ip=$(awk '/^Address: / {a=$2} END {print a}' <<< "$out")
  [ "$ip" = "$(k -n "$NS" get service web -o jsonpath='{.spec.clusterIP}')" ] || { echo "$out"; return 1; }
  [ "$(http_get "$ip")" = kubesched-smoke ]
}
# A container beside the nodes on the kind network (the registry here, kind's load balancer too) answers a pod: the
# pod's traffic leaves the pod network with its node's address (kubesched-cni's masquerade).
outside_answers() {
  local ip
  ip=$(docker inspect -f "{{with index .NetworkSettings.Networks \"$KIND_NETWORK\"}}{{.IPAddress}}{{end}}" "$REGISTRY_NAME")
  [ -n "$ip" ] || { echo "$REGISTRY_NAME has no address on the $KIND_NETWORK network"; return 1; }
  k -n "$NS" exec client -- sh -c "printf 'GET /v2/ HTTP/1.0\\r\\n\\r\\n' | nc -w 5 $ip 5000 | head -n 1" | grep -q '^HTTP/1.[01] 200'
}
no_remote_pulls() {
  local node pulls
  for node in $(kind get nodes --name "$CLUSTER_NAME"); do
    pulls=$(docker exec "$node" journalctl -u containerd --no-pager -o cat 2>/dev/null | grep -E 'PullImage "' | grep -vE "PullImage \"localhost:$REGISTRY_PORT/" || true)
    [ -z "$pulls" ] || { echo "$node pulled remote images:"; echo "$pulls"; return 1; }
  done
}

check "$((CLUSTER_CONTROL_PLANES + CLUSTER_WORKERS)) nodes Ready at $KUBE_VERSION" nodes_ready
check "every kube-system pod Running (coredns and kube-proxy included)" system_running
check "pods start on two workers" setup
check "an image pushed to localhost:$REGISTRY_PORT runs as a pod on ${WORKERS[0]}" pushed_image_runs
check "a Service's ClusterIP answers from a pod on another node" clusterip_answers
check "cluster DNS resolves kubernetes.default and the Service's name" dns_resolves
check "a pod reaches a container beside the nodes ($REGISTRY_NAME on the $KIND_NETWORK network)" outside_answers
check "no node's containerd pulled an image from outside" no_remote_pulls
k delete namespace "$NS" --wait=false >/dev/null 2>&1 || true
echo "smoke: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
