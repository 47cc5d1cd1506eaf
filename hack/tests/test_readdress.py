# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hack/kind/readdress.py on real Docker: busybox containers labelled as kind nodes, each with the kubeadm-flags.env a
kind node has and a systemctl that records the kubelet's restart, on a network of the test's own."""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from pathlib import Path

import pytest

READDRESS = Path(__file__).resolve().parents[1] / "kind" / "readdress.py"
SUBNET = "172.29.213"


def docker(*args: str, check: bool = True) -> str:
    return subprocess.run(["docker", *args], capture_output=True, text=True, check=check).stdout.strip()


@pytest.fixture(scope="module", autouse=True)
def busybox():
    """busybox:latest, built here when missing. Without a Docker daemon the module is skipped (make check on a machine
    without Docker), except under CI, where .ci/run has started one."""
    if subprocess.run(["docker", "info"], capture_output=True, check=False).returncode != 0:
        if os.environ.get("CI"):
            pytest.fail("docker does not answer; .ci/run starts dockerd before the tests")
        pytest.skip("needs a running Docker daemon")
    if subprocess.run(["docker", "image", "inspect", "busybox:latest"], capture_output=True, check=False).returncode:
        subprocess.run([str(READDRESS.parent / "images.sh"), "busybox"], check=True, capture_output=True)


class Net:
    def __init__(self, tmp_path: Path, subnet: bool = True):
        self.name = f"rdtest-{uuid.uuid4().hex[:8]}"
        self.tmp = tmp_path
        self.made: list[str] = []
        docker("network", "create", *(["--subnet", f"{SUBNET}.0/24"] if subnet else []), self.name)

    def run(self, name: str, *, cluster: str = "", want: str = "", ip: str = "", role: str = "worker", extra: tuple[str, ...] = ()) -> str:
        """A container on the network; with cluster, labelled as a kind node whose kubelet was set up with want."""
        name = f"{self.name}-{name}"
        args = ["run", "-d", "--name", name, "--hostname", name, "--network", self.name, *extra]
        if ip:
            args += ["--ip", ip]
        if cluster:
            args += ["-l", f"io.x-k8s.kind.cluster={self.name}-{cluster}", "-l", f"io.x-k8s.kind.role={role}"]
        script = "printf '#!/bin/sh\\necho \"$@\" >> /restarts\\n' > /bin/systemctl; chmod +x /bin/systemctl; "
        if want:
            script += f"mkdir -p /var/lib/kubelet; echo 'KUBELET_KUBEADM_ARGS=\"--node-ip={want} --pod-infra=x\"' > /var/lib/kubelet/kubeadm-flags.env; "
        docker(*args, "busybox", "sh", "-c", script + "touch /ready; exec sleep 3600")
        self.made.append(name)
        for _ in range(50):
            if subprocess.run(["docker", "exec", name, "test", "-e", "/ready"], capture_output=True, check=False).returncode == 0:
                break
            time.sleep(0.1)
        return name

    def ip(self, name: str) -> str:
        return docker("inspect", "-f", f'{{{{(index .NetworkSettings.Networks "{self.name}").IPAddress}}}}', name)

    def readdress(self, *start: str, path: str = "") -> subprocess.CompletedProcess:
        args = [a for c in start for a in ("--start", f"{self.name}-{c}")]
        env = dict(os.environ, KIND_NETWORK=self.name, KUBESCHED_CACHE=str(self.tmp))
        if path:
            env["PATH"] = f"{path}:{env['PATH']}"
        return subprocess.run(["python3", str(READDRESS), *args], env=env, capture_output=True, text=True, timeout=120, check=False)

    def restarts(self, name: str) -> str:
        return docker("exec", name, "cat", "/restarts", check=False)

    def remove(self) -> None:
        if self.made:
            docker("rm", "-f", *self.made, check=False)
        docker("network", "rm", self.name, check=False)


@pytest.fixture
def net(tmp_path):
    n = Net(tmp_path)
    yield n
    n.remove()


def test_two_nodes_with_each_others_addresses_get_their_own_back(net):
    a = net.run("a", cluster="one", want=f"{SUBNET}.3", role="control-plane", extra=("--network-alias", "api"))
    b = net.run("b", cluster="one", want=f"{SUBNET}.2")
    assert (net.ip(a), net.ip(b)) == (f"{SUBNET}.2", f"{SUBNET}.3")
    done = net.readdress()
    assert done.returncode == 0, done.stderr
    assert (net.ip(a), net.ip(b)) == (f"{SUBNET}.3", f"{SUBNET}.2")
    assert net.restarts(a) == net.restarts(b) == "restart kubelet"
    aliases = json.loads(docker("inspect", "-f", f'{{{{json (index .NetworkSettings.Networks "{net.name}").Aliases}}}}', a))
    assert "api" in aliases
    # Kept for the next start: Docker gives the node this address again.
    docker("restart", a)
    assert net.ip(a) == f"{SUBNET}.3"
    again = net.readdress()
    assert again.returncode == 0 and "->" not in again.stderr, again.stderr


def test_a_container_removed_while_it_reads_them_is_left_out(net, tmp_path):
    """docker ps names a container a `docker run --rm` beside it removes before docker inspect reads it."""
    a = net.run("a", cluster="one", want=f"{SUBNET}.3")
    b = net.run("b", cluster="one", want=f"{SUBNET}.2")
    shim = tmp_path / "bin"
    shim.mkdir()
    real = subprocess.run(["sh", "-c", "command -v docker"], capture_output=True, text=True, check=True).stdout.strip()
    (shim / "docker").write_text(f'#!/bin/sh\n"{real}" "$@" || exit\n[ "$1" = ps ] && echo {"0" * 64}\nexit 0\n')
    (shim / "docker").chmod(0o755)
    done = net.readdress(path=str(shim))
    assert done.returncode == 0, done.stderr
    assert (net.ip(a), net.ip(b)) == (f"{SUBNET}.3", f"{SUBNET}.2")


def test_a_paused_node_is_moved_and_stays_paused(net):
    a = net.run("a", cluster="one", want=f"{SUBNET}.3")
    b = net.run("b", cluster="one", want=f"{SUBNET}.2")
    docker("pause", a, b)
    done = net.readdress()
    assert done.returncode == 0, done.stderr
    assert (net.ip(a), net.ip(b)) == (f"{SUBNET}.3", f"{SUBNET}.2")
    assert docker("inspect", "-f", "{{.State.Paused}}", a, b).split() == ["true", "true"]
    docker("unpause", a, b)
    assert net.restarts(a) == net.restarts(b) == "restart kubelet"


def test_a_container_in_the_way_moves_and_keeps_its_published_port(net):
    registry = net.run("registry", extra=("-p", "127.0.0.1:5998:80"))
    node = net.run("node", cluster="one", want=f"{SUBNET}.2")
    assert net.ip(registry) == f"{SUBNET}.2"
    done = net.readdress()
    assert done.returncode == 0, done.stderr
    assert net.ip(node) == f"{SUBNET}.2"
    assert net.ip(registry) not in ("", f"{SUBNET}.2")
    assert "moved off" in done.stderr
    assert docker("port", registry) == "80/tcp -> 127.0.0.1:5998"
    assert net.restarts(registry) == ""


def test_a_stopped_node_whose_address_was_taken_is_started_once_it_is_free(net):
    node = net.run("node", cluster="two", want=f"{SUBNET}.50", ip=f"{SUBNET}.50")
    docker("stop", "-t", "0", node)
    blocker = net.run("lb", cluster="other", role="external-load-balancer", ip=f"{SUBNET}.50")
    done = net.readdress("two")
    assert done.returncode == 0, done.stderr
    assert docker("inspect", "-f", "{{.State.Running}}", node) == "true"
    assert net.ip(node) == f"{SUBNET}.50"
    assert net.ip(blocker) not in ("", f"{SUBNET}.50")


def test_of_two_nodes_set_up_with_one_address_the_newer_keeps_it(net):
    old = net.run("old", cluster="old", want=f"{SUBNET}.2")
    new = net.run("new", cluster="new", want=f"{SUBNET}.2")
    assert net.ip(old) == f"{SUBNET}.2"
    done = net.readdress("old")
    assert done.returncode == 3, done.stderr  # the cluster asked for was given up
    assert net.ip(new) == f"{SUBNET}.2"
    assert net.ip(old) not in ("", f"{SUBNET}.2")
    assert f"cluster {net.name}-old is given up" in done.stderr
    assert net.readdress("new").returncode == 0


def test_hosts_lines_naming_the_node_at_an_old_address_are_removed(net):
    node = net.run("node", cluster="one", want=f"{SUBNET}.2")
    stale = f"{SUBNET}.77\t{node}\n"
    docker("exec", node, "sh", "-c", f"printf '{stale}' >> /etc/hosts; mkdir -p /var/lib/kubelet/pods/p1; cp /etc/hosts /var/lib/kubelet/pods/p1/etc-hosts")
    done = net.readdress()
    assert done.returncode == 0, done.stderr
    for path in ("/etc/hosts", "/var/lib/kubelet/pods/p1/etc-hosts"):
        text = docker("exec", node, "cat", path)
        assert f"{SUBNET}.77" not in text
        assert f"{SUBNET}.2\t{node}" in text  # the current address stays
        assert f"{path} named" in done.stderr
    assert "named" not in net.readdress().stderr  # nothing left to remove


def test_on_a_network_without_a_subnet_of_its_own_it_fails_and_leaves_every_container_on_it(tmp_path):
    n = Net(tmp_path, subnet=False)
    try:
        a = n.run("a", cluster="one", want="10.254.254.3", extra=("--network-alias", "api"))
        n.run("b", cluster="one", want=n.ip(a))
        done = n.readdress()
        assert done.returncode == 1
        assert "user configured subnets" in done.stderr
        assert all(n.ip(c) for c in n.made)
    finally:
        n.remove()
