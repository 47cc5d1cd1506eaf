#!/usr/bin/env python3
"""Write a Go wrapper module that builds commands of k8s.io/kubernetes from the module proxy.

usage: gen-wrapper.py MODULE VERSION PACKAGE...   writes go.mod and tools.go in the current folder
       gen-wrapper.py --ldflags VERSION            prints the version ldflags

k8s.io/kubernetes requires its staging modules (k8s.io/api, k8s.io/client-go, ...) at v0.0.0 and
replaces them with ./staging/src paths that do not exist outside its repository. The wrapper takes
its go and godebug lines and the list of staging modules from k8s.io/kubernetes' own go.mod and
replaces each with its published twin v0.MINOR.PATCH.
"""
import json
import re
import subprocess
import sys


def download(version):
    out = subprocess.run(
        ["go", "mod", "download", "-json", f"k8s.io/kubernetes@{version}"],
        check=True, capture_output=True, text=True,
    ).stdout
    return json.loads(out)


def staging_twin(version):
    m = re.fullmatch(r"v1\.(\d+)\.(\d+)", version)
    if not m:
        sys.exit(f"gen-wrapper: version {version!r} is not of the form v1.MINOR.PATCH")
    return f"v0.{m.group(1)}.{m.group(2)}"


def ldflags(version):
    info = download(version)
    m = re.fullmatch(r"v1\.(\d+)\.(\d+)", version)
    values = {
        "gitVersion": version,
        "gitMajor": "1",
        "gitMinor": m.group(1),
        "gitTreeState": "clean",
        "buildDate": info.get("Time", "1970-01-01T00:00:00Z").replace(".000", ""),
    }
    flags = ["-s", "-w"]
    for pkg in ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version"):
        flags += [f"-X '{pkg}.{k}={v}'" for k, v in values.items()]
    return " ".join(flags)


def main(argv):
    if len(argv) == 2 and argv[0] == "--ldflags":
        print(ldflags(argv[1]))
        return
    if len(argv) < 3:
        sys.exit(__doc__)
    module, version, packages = argv[0], argv[1], argv[2:]
    info = download(version)
    with open(info["GoMod"], encoding="utf-8") as f:
        upstream = f.read()
    go_line = re.search(r"^go (\S+)$", upstream, re.M).group(1)
    godebug = re.findall(r"^godebug (.+)$", upstream, re.M)
    staging = re.findall(r"^\s*(k8s\.io/\S+) => \./staging/src/\S+$", upstream, re.M)
    if not staging:
        sys.exit("gen-wrapper: no staging replace lines found in k8s.io/kubernetes' go.mod")
    twin = staging_twin(version)
    lines = [f"module {module}", "", f"go {go_line}", ""]
    lines += [f"godebug {g}" for g in godebug]
    lines += ["", f"require k8s.io/kubernetes {version}", "", "replace ("]
    lines += [f"\t{m} => {m} {twin}" for m in staging]
    lines += [")", ""]
    with open("go.mod", "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    tools = ["//go:build tools", "", "// Package tools pins the commands this module builds.", "package tools", "", "import ("]
    tools += [f'\t_ "{p}"' for p in packages]
    tools += [")", ""]
    with open("tools.go", "w", encoding="utf-8") as f:
        f.write("\n".join(tools))
    print(f"gen-wrapper: {len(staging)} staging modules replaced with {twin}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
