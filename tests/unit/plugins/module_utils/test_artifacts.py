# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether a build and an image are current: the keys, the ref rule, and every reason to take the full path."""

from __future__ import annotations

import json

import pytest
from ansible.plugins.filter.core import get_hash, to_json

from ansible_collections.kubesched.scheduler.plugins.module_utils import artifacts

HEAD = "6c1f8a5e2b0d41f2c4f5b0e8f6a1d2e3c4b5a697"
TAG_OBJECT = "0f0e0d0c0b0a09080706050403020100ffeeddcc"
GO = "go version go1.26.8 linux/amd64"
ENV = {"FORCE_HOST_GO": "y", "GOCACHE": "/root/.cache/go-build"}


def test_build_inputs_are_the_records_key():
    """The key is the one the role's Jinja wrote into build records before this module (so no record goes stale)."""
    parts = [HEAD, "make WHAT=cmd/kube-scheduler", "_output/local/bin/linux/amd64/kube-scheduler", to_json(ENV), GO]
    assert artifacts.build_inputs(HEAD, parts[1], parts[2], ENV, GO) == get_hash(to_json(parts), "sha256")


def test_image_inputs_are_the_labels_key():
    dockerfile = '# {{ ansible_managed }}\nFROM {{ kube_scheduler_image_base }}\nLABEL x="é"'
    parts = ["ab" * 32, "busybox", "", "v1.37.2", "my-scheduler", dockerfile]
    assert artifacts.image_inputs(*parts) == get_hash(to_json(parts), "sha256")


@pytest.mark.parametrize(
    ("output", "ref", "commit"),
    [
        (f"{TAG_OBJECT}\trefs/tags/v1.37.2\n{HEAD}\trefs/tags/v1.37.2^{{}}\n", "v1.37.2", HEAD),  # annotated: the peeled commit
        (f"{HEAD}\trefs/tags/v1.37.2\n", "v1.37.2", HEAD),  # lightweight
        (f"{HEAD}\trefs/heads/main\n", "main", HEAD),
        (f"{HEAD}\trefs/heads/x\n{TAG_OBJECT}\trefs/tags/x\n", "x", ""),  # a branch and a tag: the clone decides
        ("", "6c1f8a5", "6c1f8a5"),  # a commit id names itself
        ("", "v9.9.9", ""),
    ],
)
def test_remote_commit(output, ref, commit):
    assert artifacts.remote_commit(output, ref) == commit


class BuildHost:
    """Commands of a build host whose checkout is at HEAD with a binary built from it; ``answers`` overrides."""

    def __init__(self, **answers):
        self.answers = {
            "command -v": (0, "/usr/bin/x\n", ""),
            "go env GOHOSTOS GOHOSTARCH GOCACHE": (0, "linux\namd64\n/root/.cache/go-build\n", ""),
            "go env GOCACHE": (0, "/root/.cache/go-build\n", ""),
            "git ls-remote": (0, f"{TAG_OBJECT}\trefs/tags/v1.37.2\n{HEAD}\trefs/tags/v1.37.2^{{}}\n", ""),
            "rev-parse": (0, HEAD + "\n", ""),
            "status": (0, "", ""),
            "go version": (0, GO + "\n", ""),
            "--version": (0, "Kubernetes v1.37.2\n", ""),
        }
        self.answers.update(answers)
        self.calls = []

    def __call__(self, argv, env):
        self.calls.append((argv, env))
        line = " ".join(argv)
        for key, answer in self.answers.items():
            if key in line:
                return answer
        raise AssertionError(f"unexpected command {argv}")


PARAMS = {
    "source_repo": "file:///srv/git/kubernetes.git",
    "source_ref": "v1.37.2",
    "source_dir": "/srv/kubesched/src/s",
    "build_command": "make WHAT=cmd/kube-scheduler",
    "build_output": "",
    "build_env": ENV,
    "build_platform": "",
    "record": "/srv/kubesched/state/build-s",
    "version_check": True,
}
OUTPUT = "_output/local/bin/linux/amd64/kube-scheduler"
KEY = artifacts.build_inputs(HEAD, PARAMS["build_command"], OUTPUT, ENV, GO)


def state(host=None, record=f"{KEY} 1234\n", checksum="1234", **params):
    return artifacts.build_state(host or BuildHost(), lambda path: record, lambda path: checksum, dict(PARAMS, **params))


def test_a_current_build():
    host = BuildHost()
    found = state(host)
    assert found["current"] and found["built"] and not found["reasons"]
    assert found["version"] == "Kubernetes v1.37.2" and found["binary"] == f"/srv/kubesched/src/s/{OUTPUT}"
    assert found["host_platform"] == "linux/amd64" and found["inputs"] == KEY and found["commit"] == HEAD
    assert found["go_cache"] == "/root/.cache/go-build"
    go_version_env = next(env for argv, env in host.calls if argv[:2] == ["go", "version"])
    assert go_version_env == dict(ENV, KUBE_BUILD_PLATFORMS="linux/amd64", GOOS="linux", GOARCH="amd64")
    assert all(env == ENV for argv, env in host.calls if argv[:2] in (["go", "env"], ["git", "ls-remote"]))
    # the tag and its peeled commit, which a pattern of the tag alone does not list
    assert ["git", "ls-remote", "--", PARAMS["source_repo"], "v1.37.2", "v1.37.2^{}"] in [argv for argv, env in host.calls]


def test_a_given_platform_is_not_asked_for():
    key = artifacts.build_inputs(HEAD, PARAMS["build_command"], "_output/local/bin/linux/arm64/kube-scheduler", ENV, GO)
    host = BuildHost()
    found = state(host, record=f"{key} 1234", build_platform="linux/arm64")
    assert found["current"] and found["host_platform"] == "" and found["go_cache"] == "/root/.cache/go-build"
    assert [argv for argv, env in host.calls if argv[:2] == ["go", "env"]] == [["go", "env", "GOCACHE"]]


@pytest.mark.parametrize(
    ("answers", "kwargs", "reason", "built"),
    [
        ({"rev-parse": (0, TAG_OBJECT + "\n", "")}, {}, "is not at v1.37.2", False),
        ({"rev-parse": (128, "", "not a git repository")}, {}, "is not at v1.37.2", False),
        ({"status": (0, " M cmd/kube-scheduler/app/server.go\n", "")}, {}, "has local changes", True),
        ({"git ls-remote": (128, "", "fatal: repository not found")}, {}, "git ls-remote failed", True),
        ({"git ls-remote": (0, f"{HEAD}\trefs/heads/v1.37.2\n{HEAD}\trefs/tags/v1.37.2\n", "")}, {}, "names no single ref", True),
        ({}, {"record": f"{KEY} 9999"}, "changed since the last build", False),
        ({}, {"record": None}, "no record of a build", False),
        ({}, {"checksum": None}, "no build output", False),
        ({"--version": (1, "", "exec format error")}, {}, "--version failed", True),
        ({"go version": (0, "go version go1.26.9 linux/amd64", "")}, {}, "changed since the last build", False),
    ],
)
def test_not_current(answers, kwargs, reason, built):
    found = state(BuildHost(**answers), **kwargs)
    assert not found["current"]
    assert found["built"] is built
    assert any(reason in said for said in found["reasons"]), found["reasons"]


def test_missing_tools_are_named():
    host = BuildHost()
    host.answers = {"command -v make": (1, "", ""), **host.answers}
    found = state(host)
    assert found["missing_tools"] == ["make"] and not found["current"]
    assert not any(argv[0] == "git" for argv, env in host.calls)


def test_go_failures_are_errors():
    assert "go env GOHOSTOS GOHOSTARCH GOCACHE failed" in state(BuildHost(**{"go env GOHOSTOS GOHOSTARCH GOCACHE": (1, "", "boom")}))["error"]
    assert "go version failed" in state(BuildHost(**{"go version": (2, "", "boom")}))["error"]


def test_no_version_check():
    host = BuildHost()
    found = state(host, version_check=False)
    assert found["current"] and found["version"] == ""
    assert not any("--version" in argv for argv, env in host.calls)


# --- the image ---------------------------------------------------------------------------------------

IMAGE = {
    "binary": "/b/kube-scheduler",
    "base": "busybox",
    "user": "",
    "version": "v1.37.2",
    "name": "s",
    "dockerfile": "FROM {{ kube_scheduler_image_base }}",
    "reference": "localhost:5001/s:v1.37.2",
    "builder": "docker",
    "target": "registry",
}
IMAGE_KEY = artifacts.image_inputs("cd" * 32, "busybox", "", "v1.37.2", "s", IMAGE["dockerfile"])


def inspect(labels, config=True):
    image = {"Id": "sha256:1", "Config": {"Labels": labels}} if config else {"Id": "sha256:1", "Labels": labels}
    return (0, json.dumps([image]), "")


def image(answer=None, tag=True, checksum="cd" * 32, **params):
    calls = []

    def run(argv, env):
        calls.append(argv)
        return answer or inspect({artifacts.INPUTS_LABEL: IMAGE_KEY})

    found = artifacts.image_state(run, lambda path: checksum, lambda: tag, dict(IMAGE, **params))
    return found, calls


def test_a_current_image():
    found, calls = image()
    assert found["current"] and found["inputs"] == IMAGE_KEY and found["registry_tag_exists"] is True
    assert calls == [["docker", "image", "inspect", "localhost:5001/s:v1.37.2"]]


def test_podman_labels_at_the_top():
    found, calls = image(answer=inspect({artifacts.INPUTS_LABEL: IMAGE_KEY}, config=False), builder="podman")
    assert found["current"] and calls[0][0] == "podman"


def test_a_local_image_needs_no_registry():
    found, dummy = image(tag=None, target="local")
    assert found["current"] and "registry_tag_exists" not in found


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"checksum": None}, "no binary at /b/kube-scheduler"),
        ({"answer": inspect({artifacts.INPUTS_LABEL: "0" * 64})}, "built from other inputs"),
        ({"answer": inspect({})}, "built from other inputs"),
        ({"answer": (1, "", "Error: No such image")}, "docker has no image"),
        ({"answer": (0, "not json", "")}, "could not be read"),
        ({"tag": False}, "does not hold the tag"),
        ({"tag": None}, "could not tell"),
        ({"target": "kind"}, "kind load decides"),
    ],
)
def test_image_not_current(kwargs, reason):
    found, dummy = image(**kwargs)
    assert not found["current"]
    assert any(reason in said for said in found["reasons"]), found["reasons"]
    assert found["binary_exists"] is (kwargs.get("checksum", "x") is not None)
