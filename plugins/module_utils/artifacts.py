# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether the build and the image are current, read on the build host in one process each.

The build role and the image role skip their work when its inputs are those of the last time it ran. Their
YAML reads those inputs with a module run each (``command -v``, ``go env``, ``go version``, ``git ls-remote``,
the build record, the output's checksum, the binary's ``--version``; the binary's checksum, the image's label,
the registry's tag), which is most of a re-run that changes nothing. ``build_state`` and ``image_state`` read
the same facts in one process and say whether anything is left to do, with the keys the roles' records and
labels use (``build_inputs``, ``image_inputs``), computed here once for both the check and the write. Every
command goes through ``run(argv, env) -> (rc, stdout, stderr)`` and every file through ``read``/``sha``, so
the rules can be tested without a build host.

Anything uncertain (a ref that names several refs, a checkout with local changes, no container engine
to ask, a registry that refuses) reads as not current: the role then takes its full path, which decides
with its own modules.
"""

from __future__ import annotations

import hashlib
import json
import os
import re

COMMIT = re.compile(r"^[0-9a-f]{7,40}$")
INPUTS_LABEL = "io.kubesched.inputs"
TOOLS = ("git", "make", "go")


def build_inputs(commit, command, output, env, go_version):
    """The key of a build: sha256 of the JSON list (source commit, build command, output path, the build
    environment as JSON, ``go version``'s output), as the build record holds it."""
    text = json.dumps([commit or "", command, output, json.dumps(env or {}), go_version or ""])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def image_inputs(binary_sha256, base, user, version, name, dockerfile):
    """The key of an image: sha256 of the JSON list (the binary's sha256, base image, user, version, scheduler
    name, the Dockerfile template's text), as the image's ``io.kubesched.inputs`` label holds it."""
    text = json.dumps([binary_sha256, base, user, version, name, dockerfile])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def default_output(platform):
    """Where ``make WHAT=cmd/kube-scheduler`` leaves the binary for ``platform`` (GOOS/GOARCH)."""
    return f"_output/local/bin/{platform}/kube-scheduler"


def remote_commit(ls_remote, ref):
    """The commit ``ref`` names in ``git ls-remote <repo> <ref>``'s output, or ''.

    An annotated tag's peeled line (``refs/tags/<tag>^{}``) wins over the tag object's. A ref that matches
    more than one ref (a branch and a tag of one name) names none: the clone decides. A commit id, which
    ls-remote does not list, names itself (its prefix)."""
    refs = {}
    for line in (ls_remote or "").splitlines():
        sha, dummy, name = line.strip().partition("\t")
        if sha and name:
            refs[name] = sha
    peeled = {name[:-3]: sha for name, sha in refs.items() if name.endswith("^{}")}
    names = [name for name in refs if not name.endswith("^{}")]
    if len(names) == 1:
        return peeled.get(names[0], refs[names[0]])
    if not names and COMMIT.match(ref or ""):
        return ref
    return ""


def build_state(run, read, sha1, params):
    """What the build role needs to know before it clones or compiles, and whether it has to.

    ``params``: ``source_repo``, ``source_ref``, ``source_dir``, ``build_command``, ``build_output`` (relative;
    empty for kube-scheduler's default path of the platform), ``build_env`` (the user's), ``build_platform``
    (empty for the build host's), ``record`` (the build record's path), ``version_check``.
    ``run(argv, env)`` runs a command on the build host with ``env`` added to its environment; ``read(path)`` a
    file's text or None; ``sha1(path)`` a file's sha1 or None.

    ``built``: the output in the checkout is the one the record says these inputs built (the compile step's test,
    whatever the checkout's commit). ``current``: built, and the checkout is at the commit ``source_ref`` names,
    without local changes, so neither the clone nor the build has anything to do. ``error``: a command the
    build cannot do without failed.
    """
    env = dict(params.get("build_env") or {})
    ref = str(params["source_ref"])
    state = {
        "current": False, "built": False, "reasons": [], "missing_tools": [], "host_platform": "", "go_cache": "", "commit": "", "inputs": "", "version": "",
    }

    missing = [tool for tool in TOOLS if run(["/bin/sh", "-c", f"command -v {tool}"], env)[0] != 0]
    state["missing_tools"] = missing
    if missing:
        state["reasons"].append(f"not found on the build host: {', '.join(missing)}")
        return state

    # The build host's Go build cache (GOCACHE, as the build's environment sets or Go defaults it): the role builds
    # with it, so that a build in another directory, or after the node binaries' compile, reuses what Go compiled.
    # (Kubernetes' make otherwise keeps a cache of its own in each checkout, _output/local/go/cache.)
    platform = params.get("build_platform") or ""
    names = ["GOCACHE"] if platform else ["GOHOSTOS", "GOHOSTARCH", "GOCACHE"]
    rc, out, err = run(["go", "env", *names], env)
    if rc != 0:
        state["error"] = f"go env {' '.join(names)} failed on the build host: {(err or out).strip()[:300]}"
        return state
    values = (out.splitlines() + [""] * len(names))[: len(names)]
    state["go_cache"] = values[-1].strip()
    if not platform:
        platform = "/".join(value.strip() for value in values[:2])
        state["host_platform"] = platform
    goos, dummy, goarch = platform.partition("/")
    output = params.get("build_output") or default_output(platform)
    state["output"] = output

    # An annotated tag's commit is listed as <tag>^{}, which the pattern of the tag alone does not match.
    rc, out, err = run(["git", "ls-remote", "--", params["source_repo"], ref, ref + "^{}"], env)
    state["ls_remote"] = {"rc": rc, "stdout": out, "stderr": err}

    source_dir = params["source_dir"]
    rc, head, err = run(["git", "-C", source_dir, "rev-parse", "HEAD"], env)
    head = head.strip() if rc == 0 else ""
    state["commit"] = head
    rc, go_version, err = run(["go", "version"], dict(env, KUBE_BUILD_PLATFORMS=platform, GOOS=goos, GOARCH=goarch))
    if rc != 0:
        state["error"] = f"go version failed on the build host: {(err or go_version).strip()[:300]}"
        return state
    state["go_version"] = go_version.strip()
    state["inputs"] = build_inputs(head, params["build_command"], output, env, state["go_version"])

    binary = os.path.join(source_dir, output)
    checksum = sha1(binary)
    record = (read(params["record"]) or "").strip()
    state["built"] = checksum is not None and record == f"{state['inputs']} {checksum}"

    wanted = remote_commit(state["ls_remote"]["stdout"], ref) if state["ls_remote"]["rc"] == 0 else ""
    if state["ls_remote"]["rc"] != 0:
        state["reasons"].append("git ls-remote failed")
    elif not wanted:
        state["reasons"].append(f"{ref} names no single ref of {params['source_repo']}")
    elif not head.startswith(wanted):
        state["reasons"].append(f"the checkout {source_dir} is not at {ref} ({wanted[:12]})")
    else:
        rc, changes, err = run(["git", "-C", source_dir, "status", "--porcelain", "--untracked-files=no"], env)
        if rc != 0 or changes.strip():
            state["reasons"].append(f"the checkout {source_dir} has local changes")
    if checksum is None:
        state["reasons"].append(f"no build output at {binary}")
    elif not state["built"]:
        state["reasons"].append("the build inputs or the output changed since the last build" if record else "no record of a build")
    if state["reasons"]:
        return state
    if params.get("version_check", True):
        rc, out, err = run([binary, "--version"], {})
        if rc != 0:
            state["reasons"].append(f"{binary} --version failed")
            return state
        state["version"] = out.strip()
    state.update(current=True, binary=binary)
    return state


def image_labels(inspect_output):
    """The labels of the first image of ``docker/podman image inspect``'s JSON, or None."""
    try:
        images = json.loads(inspect_output or "")
    except ValueError:
        return None
    if not isinstance(images, list) or not images or not isinstance(images[0], dict):
        return None
    image = images[0]
    config = image.get("Config") if isinstance(image.get("Config"), dict) else {}
    return config.get("Labels") or image.get("Labels") or {}


def image_state(run, sha256, tag_exists, params):
    """Whether the image of the binary is built (its label holds the inputs) and, for a registry, pushed.

    ``params``: ``binary``, ``base``, ``user``, ``version``, ``name``, ``dockerfile`` (the template's text),
    ``reference`` (repo:tag), ``builder`` (docker or podman), ``target`` (registry, kind or local).
    ``sha256(path)`` a file's sha256 or None; ``tag_exists()`` whether the registry holds the tag (True, False,
    or None when it cannot tell).
    """
    state = {"current": False, "reasons": [], "binary_exists": False, "binary_sha256": "", "inputs": ""}
    checksum = sha256(params["binary"])
    if checksum is None:
        state["reasons"].append(f"no binary at {params['binary']}")
        return state
    state.update(binary_exists=True, binary_sha256=checksum)
    state["inputs"] = image_inputs(checksum, params["base"], params["user"], params["version"], params["name"], params["dockerfile"])
    if params["target"] == "kind":
        state["reasons"].append("kind load decides itself which nodes lack the image")
        return state
    rc, out, err = run([params["builder"], "image", "inspect", params["reference"]], {})
    labels = image_labels(out) if rc == 0 else None
    if labels is None:
        state["reasons"].append(f"{params['builder']} has no image {params['reference']}" if rc != 0 else "the image could not be read")
        return state
    if labels.get(INPUTS_LABEL) != state["inputs"]:
        state["reasons"].append(f"the image {params['reference']} was built from other inputs")
        return state
    if params["target"] == "registry":
        exists = tag_exists()
        state["registry_tag_exists"] = exists
        if not exists:
            state["reasons"].append("the registry does not hold the tag" if exists is False else "the registry could not tell whether it holds the tag")
            return state
    state["current"] = True
    return state
