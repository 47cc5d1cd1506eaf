#!/usr/bin/env bash
# Lays out what execution-environment.yml takes from the host, so that the image builds with no
# network inside the build:
#   OUT/collections/kubesched-scheduler.tar.gz     the collection (built by `make build`)
#   OUT/collections/ansible_collections/NS/NAME    its collection dependencies and theirs, copied
#                                                  from the collections the ansible package bundles
#   OUT/wheels/*.whl                               every Python package the build installs, for
#                                                  CPython 3.13 on x86_64 Linux (pip download)
# The Python packages are what ansible-builder's introspection finds in those collections (their
# requirements.txt), plus ansible-core, ansible-runner and the build's own tools; versions come
# from constraints.txt (the project's tested set) and ee/constraints.txt.
# usage: ee/prepare.sh TARBALL OUT   (with .venv-docs/bin first on PATH: python, ansible-galaxy, ansible-builder)
set -euo pipefail
tarball=$1 out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# Laid anew each time (pip's cache makes the downloads cheap), so nothing stale is left behind;
# the tarball is kept when its content is unchanged (`ansible-galaxy collection build` stamps the
# time into it), so that the image build reuses its cached layers.
prev=
if [ -f "$out/collections/kubesched-scheduler.tar.gz" ]; then
  prev=$(mktemp); cp -p "$out/collections/kubesched-scheduler.tar.gz" "$prev"
fi
rm -rf "$out/collections" "$out/introspect" "$out/wheels"
mkdir -p "$out/collections/ansible_collections" "$out/wheels"
content() { tar -xzOf "$1" MANIFEST.json FILES.json; }
if [ -n "$prev" ] && [ "$(content "$prev")" = "$(content "$tarball")" ]; then
  mv "$prev" "$out/collections/kubesched-scheduler.tar.gz"
else
  cp "$tarball" "$out/collections/kubesched-scheduler.tar.gz"; rm -f "$prev"
fi

# The dependency closure, read from galaxy.yml and the bundled collections' MANIFEST.json.
python - "$root/galaxy.yml" "$out/collections/ansible_collections" <<'PY'
import json, os, shutil, sys
import ansible_collections, yaml

galaxy, dest = sys.argv[1], sys.argv[2]
bundled = ansible_collections.__path__[0]
todo = sorted(yaml.safe_load(open(galaxy))["dependencies"])
done = set()
while todo:
    fqcn = todo.pop(0)
    if fqcn in done:
        continue
    done.add(fqcn)
    ns, name = fqcn.split(".")
    src = os.path.join(bundled, ns, name)
    if not os.path.isfile(os.path.join(src, "MANIFEST.json")):
        sys.exit(f"prepare.sh: {fqcn} is not among the collections of the ansible package ({bundled})")
    info = json.load(open(os.path.join(src, "MANIFEST.json")))["collection_info"]
    shutil.copytree(src, os.path.join(dest, ns, name), ignore=shutil.ignore_patterns("__pycache__"))
    print(f"collection {fqcn} {info['version']}", file=sys.stderr)
    todo.extend(sorted(info.get("dependencies") or {}))
PY

# The Python requirements ansible-builder will find in the installed collections.
mkdir -p "$out/introspect"
cp -r "$out/collections/ansible_collections" "$out/introspect/"
ansible-galaxy collection install --offline --no-deps --force -p "$out/introspect" "$tarball" >/dev/null 2>&1
test -d "$out/introspect/ansible_collections/kubesched/scheduler" || { echo "prepare.sh: $tarball did not install" >&2; exit 1; }
ansible-builder introspect --sanitize --write-pip "$out/requirements.txt" "$out/introspect" >/dev/null
rm -rf "$out/introspect"
log "Python requirements of the collections: $(grep -v '^#' "$out/requirements.txt" | cut -d'#' -f1 | xargs)"

# The wheelhouse: binary wheels only, for the image's Python (3.13) whatever the host's.
platforms=()
for p in manylinux2014_x86_64 manylinux_2_17_x86_64 manylinux_2_28_x86_64 manylinux_2_34_x86_64; do
  platforms+=(--platform "$p")
done
sed 's/#.*//' "$out/requirements.txt" | grep -v '^[[:space:]]*$' > "$out/requirements.pip"
python -m pip download -q -d "$out/wheels" --only-binary=:all: --python-version 3.13 --implementation cp \
  --abi cp313 --abi abi3 --abi none "${platforms[@]}" \
  -c "$root/constraints.txt" -c "$root/ee/constraints.txt" -r "$out/requirements.pip" -r "$root/ee/requirements.txt"
log "wheelhouse: $(find "$out/wheels" -name '*.whl' | wc -l) wheels, $(du -sh "$out/wheels" | cut -f1)"
