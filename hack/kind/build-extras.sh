#!/usr/bin/env bash
# Builds the other binaries the cluster's images need, at the versions kubeadm $KUBE_VERSION
# names: etcd and CoreDNS from the Go module proxy, and our own pause (hack/kind/pause); plus
# crictl $CRICTL_VERSION, which `kind load` uses to see which nodes have an image.
# Output: $KUBESCHED_CACHE/extras/<name>-<version>/<name>, skipped when already built.
. "$(dirname "$0")/lib.sh"

etcd_version=v$(kubeadm_image etcd | sed 's/.*://; s/-[0-9]*$//')
coredns_version=$(kubeadm_image coredns | sed 's/.*://')
pause_version=$(kubeadm_image pause | sed 's/.*://')
crictl_version=$CRICTL_VERSION

build() {  # build NAME VERSION KEY-FILE... -- COMMAND...
  local name=$1 version=$2; shift 2
  local files=()
  while [ "$1" != "--" ]; do files+=("$1"); shift; done; shift
  local out=$KUBESCHED_CACHE/extras/$name-$version want
  want=$(key "$name" "$version" "$(go version)" "${files[@]}")
  if [ "$(cat "$out/.key" 2>/dev/null)" = "$want" ]; then log "$name $version: cached in $out"; return; fi
  mkdir -p "$out"
  log "$name $version: building"
  "$@" "$out"
  echo "$want" > "$out/.key"
}

etcd_build() {
  local mod=$KUBESCHED_CACHE/extras/etcd-module
  mkdir -p "$mod" && cd "$mod"
  printf 'module kubesched.local/etcd-build\n\ngo 1.24\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$etcd_version" > go.mod
  printf '//go:build tools\n\npackage tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' > tools.go
  go mod tidy
  go build -ldflags '-s -w' -o "$1/etcd" go.etcd.io/etcd/server/v3
  local v; v=$("$1/etcd" --version)
  grep -q "${etcd_version#v}" <<< "$v" || die "etcd reports '$v', not $etcd_version"
}
coredns_build() {
  GOBIN=$1 go install -ldflags '-s -w' "github.com/coredns/coredns@$coredns_version"
  local v; v=$("$1/coredns" -version)
  grep -q "${coredns_version#v}" <<< "$v" || die "coredns reports '$v', not $coredns_version"
}
crictl_build() {
  GOBIN=$1 go install -ldflags '-s -w' "sigs.k8s.io/cri-tools/cmd/crictl@$crictl_version"
}
pause_build() {
  (cd "$KIND_DIR/pause" && go build -ldflags "-s -w -X main.version=$pause_version" -o "$1/pause" .)
}

build etcd "$etcd_version" "$KIND_DIR/build-extras.sh" -- etcd_build
build coredns "$coredns_version" "$KIND_DIR/build-extras.sh" -- coredns_build
build pause "$pause_version" "$KIND_DIR/pause/main.go" -- pause_build
# The test pods' image (TEST_POD_IMAGE) is our pause too, at its own version on every node.
pause_version=${TEST_POD_IMAGE##*:}
build pause "$pause_version" "$KIND_DIR/pause/main.go" -- pause_build
build crictl "$crictl_version" "$KIND_DIR/build-extras.sh" -- crictl_build
