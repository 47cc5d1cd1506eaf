"""Host side of the default scenario: the built binary and the pushed image (pytest-testinfra).

Every expected value comes from the scenario's inventory (molecule.yml), as the roles read it."""

import json
import os

import pytest
import yaml


@pytest.fixture(scope="module")
def inventory(host):
    return host.ansible.get_variables()


@pytest.fixture(scope="module")
def binary(host, inventory):
    """Where the build role puts the binary: the Kubernetes build's layout for the build host's platform."""
    platform = "/".join(host.check_output("go env GOHOSTOS GOHOSTARCH").split())
    return f"{inventory['kube_scheduler_work_dir']}/src/{inventory['kube_scheduler_name']}/_output/local/bin/{platform}/kube-scheduler"


@pytest.fixture(scope="module")
def image(inventory):
    """(registry, repository path, tag) of the image."""
    registry, path = inventory["kube_scheduler_image"].split("/", 1)
    return registry, path, inventory["kube_scheduler_version"]


def test_binary_is_built_and_executable(host, binary):
    built = host.file(binary)
    assert built.is_file
    assert built.mode & 0o111


def test_the_build_compiled_into_the_hosts_go_cache(host, inventory):
    """No GOCACHE is set in the scenario: the build role gives the build the build host's own Go build cache, the one
    the node binaries were compiled into (so the task's `make WHAT=cmd/kube-scheduler` only links), not a cache of the checkout's own."""
    log = host.file(f"{inventory['kube_scheduler_work_dir']}/logs/build-{inventory['kube_scheduler_name']}.log").content_string
    assert "GOCACHE" not in inventory["kube_scheduler_build_env"]
    assert log.splitlines()[0] == f"+ make WHAT=cmd/kube-scheduler (GOCACHE={host.check_output('go env GOCACHE').strip()})"


def test_binary_reports_the_version(host, binary, inventory):
    assert host.check_output(f"{binary} --version").strip() == f"Kubernetes {inventory['kube_scheduler_version']}"


def test_image_is_in_the_registry(host, image):
    registry, path, tag = image
    assert tag in json.loads(host.check_output(f"curl -fsS http://{registry}/v2/{path}/tags/list"))["tags"]


def test_registry_digest_matches_the_local_image(host, image):
    registry, path, tag = image
    headers = host.check_output(f"curl -fsSI -H 'Accept: application/vnd.docker.distribution.manifest.v2+json' http://{registry}/v2/{path}/manifests/{tag}")
    digest = next(line.split(":", 1)[1].strip() for line in headers.splitlines() if line.lower().startswith("docker-content-digest"))
    repo_digests = json.loads(host.check_output(f"docker image inspect -f '{{{{json .RepoDigests}}}}' {registry}/{path}:{tag}"))
    assert f"{registry}/{path}@{digest}" in repo_digests


def test_image_labels(host, image, inventory):
    registry, path, tag = image
    labels = json.loads(host.check_output(f"docker image inspect -f '{{{{json .Config.Labels}}}}' {registry}/{path}:{tag}"))
    assert labels["org.opencontainers.image.version"] == inventory["kube_scheduler_version"]
    assert labels["io.kubesched.scheduler-name"] == inventory["kube_scheduler_name"]
    assert len(labels["io.kubesched.inputs"]) == 64


def test_image_runs_the_binary(host, image, inventory):
    registry, path, tag = image
    out = host.check_output(f"docker run --rm {registry}/{path}:{tag} kube-scheduler --version")
    assert out.strip() == f"Kubernetes {inventory['kube_scheduler_version']}"


def test_rendered_config_is_accepted_by_the_built_scheduler(host, tmp_path, binary, inventory):
    """Render-only mode's KubeSchedulerConfiguration, read back by the kube-scheduler the build role built."""
    project = os.environ["MOLECULE_PROJECT_DIRECTORY"]
    name = inventory["kube_scheduler_name"]
    render = tmp_path / "render"
    host.check_output(f"ansible-playbook -i {os.environ['MOLECULE_INVENTORY_FILE']} {project}/playbooks/site.yml -e kube_scheduler_render_dir={render}")
    # --write-config-to loads, defaults and validates the file, writes it back and exits.
    result = host.run(f"{binary} --config {render}/config/{name}-config.yaml --master https://127.0.0.1:9 --write-config-to {render}/written.yaml")
    assert result.rc == 0, result.stderr
    written = yaml.safe_load((render / "written.yaml").read_text(encoding="utf-8"))
    assert written["apiVersion"] == "kubescheduler.config.k8s.io/v1"
    assert written["profiles"][0]["schedulerName"] == name
    assert written["leaderElection"]["leaderElect"] is True
    assert written["leaderElection"]["resourceName"] == name
