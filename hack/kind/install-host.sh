#!/usr/bin/env bash
# Installs what the offline kind platform needs on this host, idempotently:
# Debian's docker.io (and starts dockerd when it is not running), debootstrap, busybox-static, shellcheck, podman, prometheus,
# kind $KIND_VERSION from the Go module proxy, and, only on hosts that cannot start a privileged
# container, the runc wrapper that drops CAP_SYS_RESOURCE (see README.md, "Why a runc wrapper").
. "$(dirname "$0")/lib.sh"

need_pkg() {  # need_pkg COMMAND PACKAGE
  "$KIND_DIR/../need-pkg.sh" "$1" "$2"
}

need_pkg dockerd docker.io
need_pkg debootstrap debootstrap
[ -x /bin/busybox ] || need_pkg busybox-never-on-path busybox-static
need_pkg jq jq
need_pkg git git
need_pkg make make
need_pkg ssh openssh-client  # the HA scenario reaches its control-plane nodes over SSH (molecule/main_scheduler_ha)
need_pkg shellcheck shellcheck  # ansible-test sanity's shellcheck test (make sanity installs it too)
need_pkg podman podman  # the podman path of the image role, in molecule/reliability (part least_privilege)
# promtool for the alert rules' unit tests, and the Prometheus server images.sh packages for molecule/leader_election.
# Debian starts the server where systemd runs; this host needs only the binaries.
if ! command -v promtool >/dev/null 2>&1; then
  need_pkg promtool prometheus
  if [ -d /run/systemd/system ]; then systemctl disable --now prometheus prometheus-node-exporter >/dev/null 2>&1 || true; fi
fi

stop_dockerd() {
  if [ -d /run/systemd/system ]; then systemctl stop docker; return; fi
  pkill -x dockerd || true
  for _ in $(seq 30); do pgrep -x dockerd >/dev/null || return 0; sleep 1; done
}
start_dockerd

# Every kind node's kubelet, kube-proxy and containerd hold inotify instances of the host's user
# root: with clusters of several versions side by side, the default 128 runs out and kube-proxy
# fails with "too many open files". Raised, never lowered.
for kv in fs.inotify.max_user_instances=1024 fs.inotify.max_user_watches=1048576; do
  if [ "$(sysctl -n "${kv%%=*}")" -lt "${kv#*=}" ]; then sysctl -qw "$kv"; fi
done

# A local busybox image, so that a `FROM busybox` Dockerfile (and the privileged probe) works offline.
"$KIND_DIR/images.sh" busybox

# Can this host start a privileged container? If not because of a missing capability, install
# the runc wrapper as docker's default runtime.
if ! err=$(docker run --rm --privileged busybox:latest true 2>&1); then
  case "$err" in
    *"unable to apply caps"*)
      log "privileged containers fail here ($err); installing the runc wrapper"
      install -D -m 0755 "$KIND_DIR/runc-nosysresource" /usr/local/libexec/kubesched/runc-nosysresource
      mkdir -p /etc/docker
      conf=/etc/docker/daemon.json
      [ -s "$conf" ] || echo '{}' > "$conf"
      jq '.runtimes["runc-nosysresource"] = {"path": "/usr/local/libexec/kubesched/runc-nosysresource"}
          | .["default-runtime"] = "runc-nosysresource"' "$conf" > "$conf.new" && mv "$conf.new" "$conf"
      stop_dockerd; start_dockerd
      docker run --rm --privileged busybox:latest true || die "privileged containers still fail with the runc wrapper"
      ;;
    *) die "docker run --privileged failed: $err" ;;
  esac
fi

# kind, from the Go module proxy.
if [ "$(kind version 2>/dev/null | awk '{print $2}')" != "$KIND_VERSION" ]; then
  log "installing kind $KIND_VERSION into $KUBESCHED_BIN"
  GOBIN=$KUBESCHED_BIN go install "sigs.k8s.io/kind@$KIND_VERSION"
fi
log "host ready: docker $(docker version -f '{{.Server.Version}}'), kind $(kind version | awk '{print $2}') at $(command -v kind)"
