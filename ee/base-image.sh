#!/usr/bin/env bash
# Builds the base image of the Execution Environment from Debian's packages, offline from any
# container registry: a debootstrapped Debian 13 "trixie" (Python 3.13) with python3, pip and venv,
# `docker import`ed as kubesched.local/ee-base:KEY. As hack/kind/images.sh does for its images, the
# tree and the image are keyed by a hash of their inputs (suite, mirror, packages, this recipe) and
# reused while the key holds: the tarball in $KUBESCHED_CACHE/rootfs, the image by its label.
# usage: ee/base-image.sh   (prints the image name; needs debootstrap and docker)
. "$(dirname "$0")/../hack/kind/lib.sh"

EE_SUITE=${EE_SUITE:-trixie}
EE_MIRROR=${EE_MIRROR:-http://deb.debian.org/debian}
EE_PACKAGES=${EE_PACKAGES:-python3,python3-pip,python3-venv,ca-certificates}
LABEL=io.kubesched.key
ROOTFS_DIR=$KUBESCHED_CACHE/rootfs

k=$(key "$EE_SUITE" "$EE_MIRROR" "$EE_PACKAGES" "recipe:ee-base-v1")
image=kubesched.local/ee-base:$k
# The name execution-environment.yml uses: always the image of the current key.
alias=kubesched.local/ee-base:$EE_SUITE
if [ "$(image_key "$image")" = "$k" ]; then
  log "$image: cached"
  docker tag "$image" "$alias"
  echo "$image"
  exit 0
fi

tar=$ROOTFS_DIR/ee-base-$EE_SUITE-$k.tar
if [ ! -s "$tar" ]; then
  command -v debootstrap >/dev/null || die "debootstrap is missing: apt-get install debootstrap"
  mkdir -p "$ROOTFS_DIR"
  tmp=$(mktemp -d "$ROOTFS_DIR/.build.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  log "debootstrap $EE_SUITE (ee-base): $EE_PACKAGES"
  debootstrap --variant=minbase --include="$EE_PACKAGES" "$EE_SUITE" "$tmp" "$EE_MIRROR" > "$ROOTFS_DIR/ee-base.log" 2>&1 \
    || { tail -20 "$ROOTFS_DIR/ee-base.log"; die "debootstrap failed (log: $ROOTFS_DIR/ee-base.log)"; }
  chroot "$tmp" apt-get clean
  rm -rf "$tmp"/var/lib/apt/lists/* "$tmp"/usr/share/doc/* "$tmp"/usr/share/man/* "$tmp"/usr/share/locale/*
  tar -C "$tmp" --numeric-owner -cf "$tar.part" . && mv "$tar.part" "$tar"
fi

log "docker import $image"
docker import --change "LABEL $LABEL=$k" \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'CMD ["bash"]' "$tar" "$image" >/dev/null
docker tag "$image" "$alias"
log "$image: $(docker run --rm "$image" python3 --version)"
# Older base images go (an Execution Environment built on one keeps its layers).
docker images kubesched.local/ee-base --format '{{.Repository}}:{{.Tag}}' | grep -vxF -e "$image" -e "$alias" \
  | xargs -r docker rmi >/dev/null 2>&1 || true
echo "$image"
