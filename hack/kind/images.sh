#!/usr/bin/env bash
# Builds the container images of the offline kind platform, each keyed by a hash of its inputs and
# skipped when an image with that key exists:
#   busybox     busybox:latest from Debian's busybox-static (so `FROM busybox` builds offline)
#   components  the images `kubeadm config images list` names, under exactly those names
#   cni         kubesched-cni, the pod network of our nodes (node/kubesched-cni)
#   registry    a registry from Debian's docker-registry, with its own config and no auth
#   rootfs      the debootstrapped Debian trees the images start from
#   node        the kind node image: Debian + systemd + containerd + kubelet, every image preloaded
#   node-ssh    the node image with an SSH server and a user with sudo (CLUSTER_SSH=1: make cluster-ha); prints its name
#   lb          the load balancer kind runs in front of several control-plane nodes, under the name kind uses
#               ($KIND_LB_IMAGE): the tools image and our own TCP proxy (lb/), which follows kind's envoy files
#   prometheus  Debian's Prometheus server (the host's package) on the tools image, pushed to the local registry
#               for molecule/leader_election's alert test; prints the image's name
# usage: images.sh TARGET...   (all = every target, in order)
# A recipe's key carries a "recipe:NAME-vN" salt: bump it when a recipe changes what it builds.
. "$(dirname "$0")/lib.sh"

LABEL=io.kubesched.key
ROOTFS_DIR=$KUBESCHED_CACHE/rootfs
export DOCKER_BUILDKIT=0  # the legacy builder needs no buildx and no network for FROM local images

# rootfs NAME PACKAGES: a debootstrapped Debian tree as a tarball, cached by suite and package list.
rootfs() {
  local name=$1 packages=$2 k tar tmp
  k=$(key "$DEBIAN_SUITE" "$packages" "recipe:rootfs-v1")
  tar=$ROOTFS_DIR/$name-$DEBIAN_SUITE-$k.tar
  if [ ! -s "$tar" ]; then
    mkdir -p "$ROOTFS_DIR"
    tmp=$(mktemp -d "$ROOTFS_DIR/.build.XXXXXX")
    log "debootstrap $DEBIAN_SUITE ($name): $packages"
    debootstrap --variant=minbase --include="$packages" "$DEBIAN_SUITE" "$tmp" "$DEBIAN_MIRROR" > "$ROOTFS_DIR/$name.log" 2>&1 \
      || { tail -20 "$ROOTFS_DIR/$name.log"; die "debootstrap failed (log: $ROOTFS_DIR/$name.log)"; }
    chroot "$tmp" apt-get clean
    rm -rf "$tmp"/var/lib/apt/lists/* "$tmp"/usr/share/doc/* "$tmp"/usr/share/man/* "$tmp"/usr/share/locale/*
    tar -C "$tmp" --numeric-owner -cf "$tar.part" . && mv "$tar.part" "$tar"
    rm -rf "$tmp"
  fi
  echo "$tar"
}

# import_rootfs TAR IMAGE KEY [--change ...]: docker import a rootfs tarball with a key label.
import_rootfs() {
  local tar=$1 image=$2 k=$3; shift 3
  [ "$(image_key "$image")" = "$k" ] && return 0
  log "docker import $image"
  docker import --change "LABEL $LABEL=$k" "$@" "$tar" "$image" >/dev/null
}

# build_context IMAGE KEY DIR: docker build DIR (holding a Dockerfile) unless IMAGE has KEY.
build_context() {
  local image=$1 k=$2 dir=$3
  [ "$(image_key "$image")" = "$k" ] && { log "$image: cached"; return 0; }
  log "docker build $image"
  docker build -q --label "$LABEL=$k" -t "$image" "$dir" >/dev/null
}

TOOLS_PACKAGES="iptables,nftables,conntrack,iproute2,ca-certificates,docker-registry"
tools_image() {  # the Debian base the kube-proxy, cni and registry images share
  local tar k
  tar=$(rootfs tools "$TOOLS_PACKAGES")
  k=$(key "$tar")
  TOOLS_IMAGE=kubesched.local/debian-tools:$k
  import_rootfs "$tar" "$TOOLS_IMAGE" "$k" --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
}

target_busybox() {
  local k ctx
  k=$(key busybox /bin/busybox "recipe:busybox-v1")
  [ "$(image_key busybox:latest)" = "$k" ] && { log "busybox:latest: cached"; return 0; }
  [ -x /bin/busybox ] || die "/bin/busybox is missing: apt-get install busybox-static"
  ctx=$(mktemp -d)
  mkdir -p "$ctx/bin" "$ctx/etc" "$ctx/tmp" "$ctx/root"
  cp /bin/busybox "$ctx/bin/busybox"
  for applet in $(/bin/busybox --list); do [ "$applet" = busybox ] || ln -s busybox "$ctx/bin/$applet"; done
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' > "$ctx/etc/passwd"
  printf 'root:x:0:\nnobody:x:65534:\n' > "$ctx/etc/group"
  chmod 1777 "$ctx/tmp"
  tar -C "$ctx" --numeric-owner --owner=0 --group=0 -cf "$ctx.tar" .
  import_rootfs "$ctx.tar" busybox:latest "$k" --change 'ENV PATH=/usr/sbin:/usr/bin:/sbin:/bin' --change 'CMD ["sh"]'
  rm -rf "$ctx" "$ctx.tar"
  log "busybox:latest: $(docker run --rm busybox:latest busybox 2>&1 | head -1)"
}

# static_image IMAGE BINARY [ENTRYPOINT]: FROM scratch with one static binary in /usr/local/bin.
static_image() {
  local image=$1 bin=$2 entry=${3:-} k ctx name
  name=$(basename "$bin")
  k=$(key "$image" "$bin" "$entry" "recipe:static-v1")
  [ "$(image_key "$image")" = "$k" ] && { log "$image: cached"; return 0; }
  ctx=$(mktemp -d)
  cp "$bin" "$ctx/$name"
  printf 'hosts: files dns\n' > "$ctx/nsswitch.conf"
  {
    echo "FROM scratch"
    echo "COPY nsswitch.conf /etc/nsswitch.conf"
    echo "COPY $name /usr/local/bin/$name"
    echo "ENV PATH=/usr/local/bin:/usr/bin:/bin"
    [ -z "$entry" ] || echo "ENTRYPOINT [\"$entry\"]"
  } > "$ctx/Dockerfile"
  build_context "$image" "$k" "$ctx"
  rm -rf "$ctx"
}

target_components() {
  local bin img extras=$KUBESCHED_CACHE/extras
  bin=$(k8s_bin_dir)
  for img in $(kubeadm_images); do
    case "$img" in
      */kube-apiserver:* | */kube-controller-manager:* | */kube-scheduler:*)
        name=${img##*/}; static_image "$img" "$bin/${name%%:*}" ;;
      */kube-proxy:*)
        tools_image
        local k ctx
        k=$(key "$img" "$bin/kube-proxy" "$TOOLS_IMAGE" "recipe:proxy-v1")
        ctx=$(mktemp -d); cp "$bin/kube-proxy" "$ctx/"
        printf 'FROM %s\nCOPY kube-proxy /usr/local/bin/kube-proxy\n' "$TOOLS_IMAGE" > "$ctx/Dockerfile"
        build_context "$img" "$k" "$ctx"; rm -rf "$ctx" ;;
      */etcd:*)
        local v=${img##*:}; static_image "$img" "$extras/etcd-v${v%-*}/etcd" ;;
      */coredns:*)
        static_image "$img" "$extras/coredns-${img##*:}/coredns" /usr/local/bin/coredns ;;
      */pause:*)
        static_image "$img" "$extras/pause-${img##*:}/pause" /usr/local/bin/pause ;;
      *) die "no recipe for image $img" ;;
    esac
  done
}

cni_image() {
  tools_image
  local k ctx
  k=$(key "$KIND_DIR/node/kubesched-cni" "$(k8s_bin_dir)/kubectl" "$TOOLS_IMAGE")
  CNI_IMAGE=kubesched.local/kubesched-cni:$k
  ctx=$(mktemp -d); cp "$KIND_DIR/node/kubesched-cni" "$(k8s_bin_dir)/kubectl" "$ctx/"
  printf 'FROM %s\nCOPY kubectl kubesched-cni /usr/local/bin/\n' "$TOOLS_IMAGE" > "$ctx/Dockerfile"
  build_context "$CNI_IMAGE" "$k" "$ctx"; rm -rf "$ctx"
}
target_cni() { cni_image; }

target_registry() {
  tools_image
  local k ctx
  k=$(key "$TOOLS_IMAGE" "$KIND_DIR/registry.yml")
  ctx=$(mktemp -d); cp "$KIND_DIR/registry.yml" "$ctx/config.yml"
  printf 'FROM %s\nCOPY config.yml /etc/kubesched-registry/config.yml\nEXPOSE 5000\nVOLUME /var/lib/registry\nCMD ["/usr/bin/docker-registry", "serve", "/etc/kubesched-registry/config.yml"]\n' \
    "$TOOLS_IMAGE" > "$ctx/Dockerfile"
  build_context kubesched.local/registry:latest "$k" "$ctx"; rm -rf "$ctx"
}

target_lb() {
  tools_image
  local k ctx
  k=$(key "$TOOLS_IMAGE" "$KIND_DIR/lb/main.go" "$KIND_DIR/lb/go.mod" "$(go version)" "recipe:lb-v1")
  [ "$(image_key "$KIND_LB_IMAGE")" = "$k" ] && { log "$KIND_LB_IMAGE: cached"; return 0; }
  ctx=$(mktemp -d)
  (cd "$KIND_DIR/lb" && go build -ldflags '-s -w' -o "$ctx/envoy" .)
  printf 'FROM %s\nCOPY envoy /usr/local/bin/envoy\n' "$TOOLS_IMAGE" > "$ctx/Dockerfile"
  build_context "$KIND_LB_IMAGE" "$k" "$ctx"; rm -rf "$ctx"
}

NODE_PACKAGES="systemd,systemd-sysv,dbus,containerd,runc,containernetworking-plugins,iptables,nftables,conntrack,iproute2,ethtool,util-linux,mount,kmod,libseccomp2,pigz,e2fsprogs,bash,ca-certificates,curl,jq,procps,socat,ebtables,python3"

# node_image: prints the node image's name; builds it unless an image with its key exists.
target_node() {
  target_components >&2
  cni_image >&2
  local tar bin files k image img root ctr
  tar=$(rootfs node "$NODE_PACKAGES")
  bin=$(k8s_bin_dir)
  files=("$KIND_DIR"/node/*)
  local images=()
  mapfile -t images < <(kubeadm_images; echo "$CNI_IMAGE")
  # The pods of the verify playbook and of the tests run TEST_POD_IMAGE on every version's nodes.
  if ! printf '%s\n' "${images[@]}" | grep -qxF "$TEST_POD_IMAGE"; then
    static_image "$TEST_POD_IMAGE" "$KUBESCHED_CACHE/extras/pause-${TEST_POD_IMAGE##*:}/pause" /usr/local/bin/pause >&2
    images+=("$TEST_POD_IMAGE")
  fi
  local ids=()
  for img in "${images[@]}"; do ids+=("$(docker image inspect -f '{{.Id}}' "$img")"); done
  k=$(key "$tar" "${files[@]}" "$bin/kubeadm" "$bin/kubelet" "$bin/kubectl" "$(crictl_bin)" "${ids[@]}" \
      "$REGISTRY_NAME" "$REGISTRY_PORT" "recipe:node-v1")
  image=kubesched.local/node:$KUBE_VERSION-$k
  if [ "$(image_key "$image")" = "$k" ]; then log "$image: cached"; echo "$image"; return 0; fi

  log "node image $image: assembling the root filesystem"
  root=$(mktemp -d "$KUBESCHED_CACHE/.node.XXXXXX")
  tar -C "$root" -xf "$tar"
  # systemd in a container: start only what a node needs.
  rm -f "$root"/etc/systemd/system/*.wants/* "$root"/lib/systemd/system/multi-user.target.wants/* \
        "$root"/lib/systemd/system/local-fs.target.wants/* "$root"/lib/systemd/system/sockets.target.wants/*udev* \
        "$root"/lib/systemd/system/sockets.target.wants/*initctl* "$root"/lib/systemd/system/sysinit.target.wants/systemd-tmpfiles-setup.service
  for unit in systemd-binfmt.service proc-sys-fs-binfmt_misc.automount getty@tty1.service console-getty.service \
              systemd-modules-load.service systemd-udevd.service systemd-udev-trigger.service; do
    ln -sf /dev/null "$root/etc/systemd/system/$unit"
  done
  echo 'ReadKMsg=no' >> "$root/etc/systemd/journald.conf"
  install -m 0755 "$KIND_DIR/node/entrypoint" "$root/usr/local/bin/entrypoint"
  install -m 0644 "$KIND_DIR/node/kubelet.service" "$root/etc/systemd/system/kubelet.service"
  install -m 0644 "$KIND_DIR/node/kubelet.slice" "$root/etc/systemd/system/kubelet.slice"
  install -D -m 0644 "$KIND_DIR/node/10-kubeadm.conf" "$root/etc/systemd/system/kubelet.service.d/10-kubeadm.conf"
  install -D -m 0644 "$KIND_DIR/node/11-kubesched.conf" "$root/etc/systemd/system/kubelet.service.d/11-kubesched.conf"
  install -D -m 0644 "$KIND_DIR/node/kubelet.default" "$root/etc/default/kubelet"
  install -D -m 0644 "$KIND_DIR/node/sysctl.conf" "$root/etc/sysctl.d/10-kubesched.conf"
  install -D -m 0644 "$KIND_DIR/node/crictl.yaml" "$root/etc/crictl.yaml"
  sed "s|@PAUSE_IMAGE@|$(kubeadm_image pause)|" "$KIND_DIR/node/containerd-config.toml" > "$root/etc/containerd/config.toml"
  install -d "$root/etc/containerd/certs.d/localhost:$REGISTRY_PORT"
  sed "s|@REGISTRY_NAME@|$REGISTRY_NAME|g; s|@REGISTRY_PORT@|$REGISTRY_PORT|g" "$KIND_DIR/node/hosts.toml" \
    > "$root/etc/containerd/certs.d/localhost:$REGISTRY_PORT/hosts.toml"
  mkdir -p "$root/etc/systemd/system/multi-user.target.wants" "$root/etc/kubernetes/manifests" "$root/etc/cni/net.d" "$root/kind/manifests"
  ln -sf /lib/systemd/system/containerd.service "$root/etc/systemd/system/multi-user.target.wants/containerd.service"
  ln -sf /etc/systemd/system/kubelet.service "$root/etc/systemd/system/multi-user.target.wants/kubelet.service"
  ln -sf /usr/lib/systemd/systemd "$root/sbin/init"
  install -m 0755 "$bin/kubeadm" "$bin/kubelet" "$bin/kubectl" "$root/usr/bin/"
  install -m 0755 "$(crictl_bin)" "$root/usr/local/bin/crictl"
  echo "$KUBE_VERSION" > "$root/kind/version"
  sed "s|@CNI_IMAGE@|$CNI_IMAGE|" "$KIND_DIR/node/default-cni.yaml" > "$root/kind/manifests/default-cni.yaml"

  local base=kubesched.local/node-base:$k
  tar -C "$root" --numeric-owner -c . | docker import --change 'ENV container=docker' \
    --change 'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]' - "$base" >/dev/null
  rm -rf "$root"

  log "node image $image: preloading ${#images[@]} images into containerd"
  ctr=$(docker run -d --privileged --entrypoint sleep "$base" infinity)
  trap 'docker rm -f "$ctr" >/dev/null 2>&1 || true' RETURN
  docker exec -d "$ctr" sh -c 'containerd > /var/log/containerd-preload.log 2>&1'
  for _ in $(seq 30); do docker exec "$ctr" ctr version >/dev/null 2>&1 && break; sleep 1; done
  for img in "${images[@]}"; do
    docker save "$img" | docker exec -i "$ctr" ctr -n k8s.io images import --all-platforms --no-unpack --digests - >/dev/null
    docker exec "$ctr" ctr -n k8s.io images label "$img" io.cri-containerd.pinned=pinned >/dev/null
  done
  docker exec "$ctr" ctr -n k8s.io images ls -q >&2
  docker exec "$ctr" pkill containerd || true
  sleep 2
  docker exec "$ctr" rm -f /var/log/containerd-preload.log
  docker commit --change "LABEL $LABEL=$k" --change 'ENV container=docker' \
    --change 'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]' --change 'CMD []' "$ctr" "$image" >/dev/null
  docker rm -f "$ctr" >/dev/null
  docker rmi "$base" >/dev/null
  # Older node images of this version go, except those a cluster still runs on (docker refuses to
  # remove those); other versions' stay, so switching back is warm.
  docker images kubesched.local/node --format '{{.Repository}}:{{.Tag}}' | grep -F ":$KUBE_VERSION-" | grep -vxF "$image" \
    | xargs -r docker rmi >/dev/null 2>&1 || true
  log "node image $image: done"
  echo "$image"
}

# target_node_ssh: the node image with an SSH server and a user with sudo (node-ssh/Dockerfile.in, packages from
# $DEBIAN_MIRROR), a layer over the node image: the other clusters' node images are not rebuilt. Prints its name.
target_node_ssh() {
  local node k image ctx
  node=$(target_node)
  k=$(key "$(docker image inspect -f '{{.Id}}' "$node")" "$KIND_DIR/node-ssh/Dockerfile.in" "$DEBIAN_MIRROR" "recipe:node-ssh-v1")
  image=kubesched.local/node-ssh:$KUBE_VERSION-$k
  if [ "$(image_key "$image")" != "$k" ]; then
    ctx=$(mktemp -d)
    sed "s|@NODE_IMAGE@|$node|" "$KIND_DIR/node-ssh/Dockerfile.in" > "$ctx/Dockerfile"
    build_context "$image" "$k" "$ctx" >&2; rm -rf "$ctx"
    docker images kubesched.local/node-ssh --format '{{.Repository}}:{{.Tag}}' | grep -F ":$KUBE_VERSION-" | grep -vxF "$image" \
      | xargs -r docker rmi >/dev/null 2>&1 || true
  else
    log "$image: cached"
  fi
  echo "$image"
}

# target_prometheus: the Prometheus of the host's Debian package (hack/kind/install-host.sh installs it; promtool comes
# with it) on the tools image, as user nobody, in the local registry under a tag of its key; prints its name.
target_prometheus() {
  tools_image >&2
  local bin=/usr/bin/prometheus k ctx image
  [ -x "$bin" ] || die "$bin is missing: apt-get install prometheus (hack/kind/install-host.sh installs it)"
  k=$(key "$TOOLS_IMAGE" "$bin" "recipe:prometheus-v1")
  image=localhost:$REGISTRY_PORT/kubesched-prometheus:$k
  ctx=$(mktemp -d); cp "$bin" "$ctx/prometheus"
  printf 'FROM %s\nCOPY prometheus /usr/local/bin/prometheus\nUSER 65534:65534\nENTRYPOINT ["/usr/local/bin/prometheus"]\n' "$TOOLS_IMAGE" > "$ctx/Dockerfile"
  build_context "$image" "$k" "$ctx" >&2; rm -rf "$ctx"
  if ! curl -fsS -o /dev/null -H 'Accept: application/vnd.docker.distribution.manifest.v2+json' \
      "http://localhost:$REGISTRY_PORT/v2/kubesched-prometheus/manifests/$k" 2>/dev/null; then
    log "docker push $image"
    docker push -q "$image" >/dev/null
  fi
  echo "$image"
}

[ $# -gt 0 ] || set -- all
for t in "$@"; do
  case "$t" in
    all) target_busybox; target_registry; target_node >/dev/null ;;
    rootfs) rootfs node "$NODE_PACKAGES" >/dev/null; rootfs tools "$TOOLS_PACKAGES" >/dev/null ;;
    busybox | components | cni | registry | node | lb | prometheus) "target_$t" ;;
    node-ssh) target_node_ssh ;;
    *) die "unknown target $t (rootfs, busybox, components, cni, registry, node, node-ssh, lb, prometheus, all)" ;;
  esac
done
