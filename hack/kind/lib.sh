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
# Control-plane nodes: one, or three (make cluster-ha) behind kind's load balancer (images.sh lb).
CLUSTER_CONTROL_PLANES=${CLUSTER_CONTROL_PLANES:-1}
[[ $CLUSTER_CONTROL_PLANES =~ ^[1-9]$ ]] || { printf 'ERROR: CLUSTER_CONTROL_PLANES must be 1 to 9, not %s\n' "$CLUSTER_CONTROL_PLANES" >&2; exit 1; }
# 1: the nodes run an SSH server and have the user kubesched with sudo (images.sh node-ssh), as make cluster-ha's do.
CLUSTER_SSH=${CLUSTER_SSH:-0}
# Feature gates of the API servers and controller managers only (not the cluster's own scheduler, not the kubelets),
# and API groups the API servers serve beyond the defaults: make cluster-ha turns GenericWorkload and
# scheduling.k8s.io/v1beta1 (PodGroups) on, so that a second scheduler can gang-schedule beside a stock one.
CLUSTER_API_FEATURE_GATES=${CLUSTER_API_FEATURE_GATES:-}
CLUSTER_RUNTIME_CONFIG=${CLUSTER_RUNTIME_CONFIG:-}
[[ $CLUSTER_API_FEATURE_GATES =~ ^([A-Za-z0-9]+=(true|false)(,[A-Za-z0-9]+=(true|false))*)?$ ]] || { printf 'ERROR: CLUSTER_API_FEATURE_GATES must be Gate=true|false[,...], not %s\n' "$CLUSTER_API_FEATURE_GATES" >&2; exit 1; }
[[ $CLUSTER_RUNTIME_CONFIG =~ ^([a-z0-9./]+=(true|false)(,[a-z0-9./]+=(true|false))*)?$ ]] || { printf 'ERROR: CLUSTER_RUNTIME_CONFIG must be group/version=true|false[,...], not %s\n' "$CLUSTER_RUNTIME_CONFIG" >&2; exit 1; }
# The Docker network of the nodes: kind's, `kind` unless KIND_EXPERIMENTAL_DOCKER_NETWORK names another.
KIND_NETWORK=${KIND_EXPERIMENTAL_DOCKER_NETWORK:-kind}
REGISTRY_NAME=${REGISTRY_NAME:-kubesched-registry}
REGISTRY_PORT=${REGISTRY_PORT:-5001}
# offline: build every image here; stock: use kindest/node and registry:2 (machines that can pull)
KIND_NODE_SOURCE=${KIND_NODE_SOURCE:-offline}

export GOFLAGS=${GOFLAGS:--trimpath}
export CGO_ENABLED=0
mkdir -p "$KUBESCHED_CACHE"

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# Locks. A lock is a descriptor of the holder's shell (`lock FD FILE WHAT`), held until it ends or says `unlock FD`.
# Whatever the project starts in the background goes through `background`, which closes every descriptor but the
# standard three: a daemon started under a lock (dockerd by install-host.sh inside `cluster.sh up`) would otherwise
# hold the lock for as long as it runs, and every later `make cluster`, `make test` or `make demo` would wait for it.

# lock_holders FILE: a line "PID COMMAND" for each process but this one that has FILE open.
lock_holders() {
  local fd pid
  for fd in /proc/[0-9]*/fd/*; do
    [ "$(readlink "$fd" 2>/dev/null)" = "$1" ] || continue
    pid=${fd#/proc/}; pid=${pid%%/*}
    [ "$pid" = "$$" ] || [ "$pid" = "${BASHPID:-}" ] && continue
    printf '%s %s\n' "$pid" "$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | cut -c1-200)"
  done | sort -un
}

# lock FD FILE WHAT: take the lock FILE on descriptor FD. While another cluster.sh (or what it runs in the
# foreground) holds it, wait, naming it. A lock held by anything else (a process that inherited the descriptor)
# is waited on for KUBESCHED_LOCK_WAIT seconds (default 120), then refused with the holders' pids and commands.
# A waiter does not keep FILE open between its tries, so that the processes that have it open are its holders.
lock() {
  local fd=$1 file what=$3 start=$SECONDS holders said= script
  file=$(realpath -m "$2")  # as /proc/PID/fd shows it
  local limit=${KUBESCHED_LOCK_WAIT:-120}
  while :; do
    eval "exec $fd<>\"\$file\""
    flock -n "$fd" && return 0
    eval "exec $fd>&-"
    holders=$(lock_holders "$file")
    if [ -z "$holders" ]; then sleep 1; continue; fi  # released between the try and the look
    if script=$(grep -m1 'cluster\.sh\|kwok\.sh' <<< "$holders"); then
      # Named once per script: what it runs in the foreground (make, go, ...) comes and goes among the holders.
      if [ "$said" != "$script" ]; then
        log "another $what is under way: waiting for $script"
        said=$script
      fi
      start=$SECONDS
    elif [ $((SECONDS - start)) -ge "$limit" ]; then
      die "$file ($what) has been held for ${limit}s by processes that are not the project's scripts:
$holders
They inherited the lock's descriptor from a script that started them. Stop them (for dockerd: restart it outside
this project's scripts, e.g. 'systemctl restart docker' or 'pkill -x dockerd; hack/kind/install-host.sh'), then run
the command again."
    elif [ "$said" != "$holders" ]; then
      log "$file ($what) is held by a process that is not the project's scripts; waiting up to ${limit}s:"
      printf '  %s\n' "$holders" >&2
      said=$holders
    fi
    sleep 2
  done
}
unlock() { flock -u "$1"; eval "exec $1>&-"; }

# background LOG CMD...: CMD in the background, in a session of its own, standard input from /dev/null, output
# appended to LOG, and no other descriptor of this shell (no lock). Its pid is in $! as for `&`.
background() {
  local out=$1; shift
  (
    for fd in /proc/$BASHPID/fd/*; do
      fd=${fd##*/}
      [ "$fd" -gt 2 ] && { eval "exec $fd>&-" 2>/dev/null || true; }
    done
    exec setsid "$@" < /dev/null >> "$out" 2>&1
  ) &
}

# start_dockerd: dockerd running and answering (systemd's where there is one), started with `background` otherwise.
start_dockerd() {
  if docker info >/dev/null 2>&1; then return 0; fi
  if [ -d /run/systemd/system ]; then
    systemctl start docker
  fi
  mkdir -p /var/log/kubesched
  # A dockerd that is still shutting down holds its pid file: wait for it, then start ours.
  for _ in $(seq 90); do
    docker info >/dev/null 2>&1 && return 0
    if ! pgrep -x dockerd >/dev/null; then
      log "starting dockerd (log: /var/log/kubesched/dockerd.log)"
      background /var/log/kubesched/dockerd.log dockerd
    fi
    sleep 1
  done
  die "dockerd did not start; see /var/log/kubesched/dockerd.log"
}

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
