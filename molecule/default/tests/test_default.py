"""Host side of the default scenario: the built binary and the pushed image (pytest-testinfra)."""

import json
import os

import pytest
import yaml

# The build role's default working directory (kube_scheduler_work_dir) holds the built binary.
BINARY = "/var/tmp/kubesched/src/my-scheduler/_output/local/bin/linux/amd64/kube-scheduler"  # noqa: S108
REGISTRY = "localhost:5001"
IMAGE = f"{REGISTRY}/my-scheduler"
TAG = "v1.37.2"


def test_binary_is_built_and_executable(host):
    binary = host.file(BINARY)
    assert binary.is_file
    assert binary.mode & 0o111


def test_binary_reports_the_version(host):
    out = host.check_output(f"{BINARY} --version")
    assert out.strip() == f"Kubernetes {TAG}"


def test_image_is_in_the_registry(host):
    tags = json.loads(host.check_output(f"curl -fsS http://{REGISTRY}/v2/my-scheduler/tags/list"))
    assert TAG in tags["tags"]


def test_registry_digest_matches_the_local_image(host):
    headers = host.check_output(
        "curl -fsSI -H 'Accept: application/vnd.docker.distribution.manifest.v2+json' "
        f"http://{REGISTRY}/v2/my-scheduler/manifests/{TAG}"
    )
    digest = next(line.split(":", 1)[1].strip() for line in headers.splitlines() if line.lower().startswith("docker-content-digest"))
    repo_digests = json.loads(host.check_output(f"docker image inspect -f '{{{{json .RepoDigests}}}}' {IMAGE}:{TAG}"))
    assert f"{IMAGE}@{digest}" in repo_digests


@pytest.mark.parametrize(
    "label,expected",
    [("org.opencontainers.image.version", TAG), ("io.kubesched.scheduler-name", "my-scheduler")],
)
def test_image_labels(host, label, expected):
    labels = json.loads(host.check_output(f"docker image inspect -f '{{{{json .Config.Labels}}}}' {IMAGE}:{TAG}"))
    assert labels[label] == expected
    assert len(labels["io.kubesched.inputs"]) == 64


def test_image_runs_the_binary(host):
    out = host.check_output(f"docker run --rm {IMAGE}:{TAG} kube-scheduler --version")
    assert out.strip() == f"Kubernetes {TAG}"


def test_rendered_config_is_accepted_by_the_built_scheduler(host, tmp_path):
    """Render-only mode's KubeSchedulerConfiguration, read back by the kube-scheduler the build role built."""
    project = os.environ["MOLECULE_PROJECT_DIRECTORY"]
    render = tmp_path / "render"
    host.check_output(f"ansible-playbook {project}/playbooks/site.yml -e kube_scheduler_render_dir={render}")
    # --write-config-to loads, defaults and validates the file, writes it back and exits.
    result = host.run(f"{BINARY} --config {render}/config/my-scheduler-config.yaml --master https://127.0.0.1:9 --write-config-to {render}/written.yaml")
    assert result.rc == 0, result.stderr
    written = yaml.safe_load((render / "written.yaml").read_text(encoding="utf-8"))
    assert written["apiVersion"] == "kubescheduler.config.k8s.io/v1"
    assert written["profiles"][0]["schedulerName"] == "my-scheduler"
    assert written["leaderElection"]["leaderElect"] is True
    assert written["leaderElection"]["resourceName"] == "my-scheduler"
