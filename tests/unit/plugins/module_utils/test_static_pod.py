# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests of module_utils/static_pod.py and its filters (plugins/filter/static_pod.py): the kube-scheduler static Pod
manifest of kubeadm patched to read a KubeSchedulerConfiguration, and kubeadm's ClusterConfiguration. MANIFEST is
the real /etc/kubernetes/manifests/kube-scheduler.yaml of the kind node kubesched-1-35-control-plane (Kubernetes
v1.35.4, kubeadm), read with `docker exec kubesched-1-35-control-plane cat /etc/kubernetes/manifests/kube-scheduler.yaml`."""

from __future__ import annotations

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.kubesched.scheduler.plugins.filter import static_pod as filters
from ansible_collections.kubesched.scheduler.plugins.module_utils import static_pod

CONFIG = "/etc/kubernetes/kubesched/kube-scheduler-config.yaml"

MANIFEST = """\
apiVersion: v1
kind: Pod
metadata:
  labels:
    component: kube-scheduler
    tier: control-plane
  name: kube-scheduler
  namespace: kube-system
spec:
  containers:
  - command:
    - kube-scheduler
    - --authentication-kubeconfig=/etc/kubernetes/scheduler.conf
    - --authorization-kubeconfig=/etc/kubernetes/scheduler.conf
    - --bind-address=127.0.0.1
    - --kubeconfig=/etc/kubernetes/scheduler.conf
    - --leader-elect=true
    image: registry.k8s.io/kube-scheduler:v1.35.4
    imagePullPolicy: IfNotPresent
    livenessProbe:
      failureThreshold: 8
      httpGet:
        host: 127.0.0.1
        path: /livez
        port: probe-port
        scheme: HTTPS
      initialDelaySeconds: 10
      periodSeconds: 10
      timeoutSeconds: 15
    name: kube-scheduler
    ports:
    - containerPort: 10259
      name: probe-port
      protocol: TCP
    readinessProbe:
      failureThreshold: 3
      httpGet:
        host: 127.0.0.1
        path: /readyz
        port: probe-port
        scheme: HTTPS
      periodSeconds: 1
      timeoutSeconds: 15
    resources:
      requests:
        cpu: 100m
    startupProbe:
      failureThreshold: 24
      httpGet:
        host: 127.0.0.1
        path: /livez
        port: probe-port
        scheme: HTTPS
      initialDelaySeconds: 10
      periodSeconds: 10
      timeoutSeconds: 15
    volumeMounts:
    - mountPath: /etc/kubernetes/scheduler.conf
      name: kubeconfig
      readOnly: true
  hostNetwork: true
  priority: 2000001000
  priorityClassName: system-node-critical
  securityContext:
    seccompProfile:
      type: RuntimeDefault
  volumes:
  - hostPath:
      path: /etc/kubernetes/scheduler.conf
      type: FileOrCreate
    name: kubeconfig
status: {}
"""

CLUSTER_CONFIGURATION_V1BETA4 = """\
apiServer: {}
apiVersion: kubeadm.k8s.io/v1beta4
caCertificateValidityPeriod: 87600h0m0s
certificateValidityPeriod: 8760h0m0s
certificatesDir: /etc/kubernetes/pki
clusterName: kubesched-1-35
controlPlaneEndpoint: kubesched-1-35-control-plane:6443
controllerManager:
  extraArgs:
  - name: enable-hostpath-provisioner
    value: "true"
dns: {}
encryptionAlgorithm: RSA-2048
etcd:
  local:
    dataDir: /var/lib/etcd
imageRepository: registry.k8s.io
kind: ClusterConfiguration
kubernetesVersion: v1.35.4
networking:
  dnsDomain: cluster.local
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/16
proxy: {}
scheduler: {}
"""


def container(text):
    return static_pod.manifest_scheduler_container(yaml.safe_load(text))


def test_info_of_the_kubeadm_manifest():
    info = static_pod.info(MANIFEST)
    assert info["image"].startswith("registry.k8s.io/kube-scheduler:")
    assert info["kubeconfig"] == "/etc/kubernetes/scheduler.conf"
    assert info["leader_elect"] is True
    assert info["config"] == ""
    assert info["config_sha256"] == ""
    assert info["host_paths"] == ["/etc/kubernetes/scheduler.conf"]
    assert info["flags"]["--bind-address"] == "127.0.0.1"


def test_patch_adds_config_and_removes_the_flags_it_owns():
    patched = static_pod.patch_manifest(MANIFEST, CONFIG)
    command = container(patched)["command"]
    original = container(MANIFEST)["command"]
    assert command[0] == "kube-scheduler"
    assert f"--config={CONFIG}" in command
    assert not [arg for arg in command if arg.startswith(("--kubeconfig", "--leader-elect"))]
    # every other kubeadm flag stays, in its order; --config goes where kubeadm's sorting puts it
    kept = [arg for arg in original if not arg.startswith(("--kubeconfig", "--leader-elect"))]
    assert [arg for arg in command if not arg.startswith("--config")] == kept
    assert command.index(f"--config={CONFIG}") == command.index("--bind-address=127.0.0.1") + 1
    assert "--authentication-kubeconfig=/etc/kubernetes/scheduler.conf" in command
    assert "--authorization-kubeconfig=/etc/kubernetes/scheduler.conf" in command


def test_patch_adds_the_volume_and_its_read_only_mount():
    pod = yaml.safe_load(static_pod.patch_manifest(MANIFEST, CONFIG))
    volumes = {volume["name"]: volume for volume in pod["spec"]["volumes"]}
    assert volumes["kubesched-config"] == {"hostPath": {"path": CONFIG, "type": "File"}, "name": "kubesched-config"}
    assert volumes["kubeconfig"]["hostPath"]["path"] == "/etc/kubernetes/scheduler.conf"
    mounts = {mount["name"]: mount for mount in pod["spec"]["containers"][0]["volumeMounts"]}
    assert mounts["kubesched-config"] == {"mountPath": CONFIG, "name": "kubesched-config", "readOnly": True}
    assert mounts["kubeconfig"]["readOnly"] is True


def test_patch_keeps_everything_else():
    before, after = yaml.safe_load(MANIFEST), yaml.safe_load(static_pod.patch_manifest(MANIFEST, CONFIG))
    for key in ("apiVersion", "kind", "status"):
        assert after[key] == before[key]
    assert after["metadata"] == before["metadata"]
    for key in ("hostNetwork", "priority", "priorityClassName", "securityContext"):
        assert after["spec"][key] == before["spec"][key]
    for key in ("image", "livenessProbe", "readinessProbe", "startupProbe", "resources", "ports", "name", "imagePullPolicy"):
        assert after["spec"]["containers"][0].get(key) == before["spec"]["containers"][0].get(key)


def test_patch_writes_kubeadm_style_yaml():
    patched = static_pod.patch_manifest(MANIFEST, CONFIG)
    assert patched.startswith("apiVersion: v1\nkind: Pod\nmetadata:\n  labels:\n")
    assert "\n  containers:\n  - command:\n    - kube-scheduler\n" in patched
    assert patched.endswith("status: {}\n")


def test_patch_sets_image_and_hash_annotation():
    pod = yaml.safe_load(static_pod.patch_manifest(MANIFEST, CONFIG, image="localhost:5001/kube-scheduler:v1.35.4", config_sha256="abc"))
    assert pod["spec"]["containers"][0]["image"] == "localhost:5001/kube-scheduler:v1.35.4"
    assert pod["metadata"]["annotations"] == {static_pod.HASH_ANNOTATION: "abc"}
    assert static_pod.info(static_pod.dump(pod))["config_sha256"] == "abc"


def test_patch_writes_the_profiles_annotation():
    pod = yaml.safe_load(static_pod.patch_manifest(MANIFEST, CONFIG, config_sha256="abc", profiles=["default-scheduler", "binpack"]))
    assert pod["metadata"]["annotations"] == {static_pod.HASH_ANNOTATION: "abc", static_pod.PROFILES_ANNOTATION: "default-scheduler,binpack"}
    assert "annotations" not in yaml.safe_load(static_pod.patch_manifest(MANIFEST, CONFIG))["metadata"]


def test_patch_is_a_fixed_point():
    once = static_pod.patch_manifest(MANIFEST, CONFIG, config_sha256="abc")
    assert static_pod.patch_manifest(once, CONFIG, config_sha256="abc") == once
    other = static_pod.patch_manifest(once, "/etc/kubernetes/other.yaml", config_sha256="def")
    command = container(other)["command"]
    assert [arg for arg in command if arg.startswith("--config")] == ["--config=/etc/kubernetes/other.yaml"]
    assert yaml.safe_load(other)["metadata"]["annotations"][static_pod.HASH_ANNOTATION] == "def"


def test_patch_does_not_change_its_input():
    pod = yaml.safe_load(MANIFEST)
    static_pod.patch_pod(pod, CONFIG, image="x", config_sha256="y")
    assert pod == yaml.safe_load(MANIFEST)


def test_patch_removes_every_leader_election_flag_and_master():
    more = "    - --leader-elect=true\n    - --leader-elect-lease-duration=30s\n    - --master=https://x\n    - --v=2\n"
    text = MANIFEST.replace("    - --leader-elect=true\n", more)
    command = container(static_pod.patch_manifest(text, CONFIG))["command"]
    assert "--v=2" in command
    assert not [arg for arg in command if arg.startswith(("--leader-elect", "--master"))]


def test_info_reads_leader_elect_false_and_another_kubeconfig():
    text = MANIFEST.replace("--leader-elect=true", "--leader-elect=false").replace("--kubeconfig=/etc/kubernetes/scheduler.conf", "--kubeconfig=/etc/k/s.conf")
    info = static_pod.info(text)
    assert info["leader_elect"] is False
    assert info["kubeconfig"] == "/etc/k/s.conf"


def test_trial_command():
    command = static_pod.trial_command(static_pod.patch_manifest(MANIFEST, CONFIG))
    assert command[0] == "kube-scheduler"
    assert command[-2:] == ["--master=https://127.0.0.1:9", "--write-config-to=/dev/null"]
    assert f"--config={CONFIG}" in command


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("- a\n- b\n", "not a YAML mapping"),
        ("a: [\n", "not YAML"),
        ("apiVersion: v1\nkind: Service\n", "not a Pod"),
        ("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: etcd\n    command: [etcd]\n", "no kube-scheduler container"),
    ],
)
def test_refused_manifests(text, words):
    with pytest.raises(static_pod.StaticPodError, match=words):
        static_pod.patch_manifest(text, CONFIG)


def test_relative_config_path_refused():
    with pytest.raises(static_pod.StaticPodError, match="not absolute"):
        static_pod.patch_manifest(MANIFEST, "kube-scheduler-config.yaml")


def test_filters():
    assert filters.static_pod_patch(MANIFEST, CONFIG) == static_pod.patch_manifest(MANIFEST, CONFIG)
    assert filters.static_pod_info(MANIFEST)["image"] == static_pod.info(MANIFEST)["image"]
    assert filters.static_pod_trial_command(MANIFEST)[-1] == "--write-config-to=/dev/null"
    with pytest.raises(AnsibleFilterError, match="^static_pod_patch: "):
        filters.static_pod_patch("kind: Service\n", CONFIG)
    assert set(filters.FilterModule().filters()) == {"static_pod_patch", "static_pod_info", "static_pod_trial_command", "kubeadm_scheduler_patch"}


def test_cluster_configuration_v1beta4_round_trip():
    patched = static_pod.patch_cluster_configuration(CLUSTER_CONFIGURATION_V1BETA4, CONFIG)
    scheduler = yaml.safe_load(patched)["scheduler"]
    assert scheduler["extraArgs"] == [{"name": "config", "value": CONFIG}]
    assert scheduler["extraVolumes"] == [{"name": "kubesched-config", "hostPath": CONFIG, "mountPath": CONFIG, "readOnly": True, "pathType": "File"}]
    assert static_pod.patch_cluster_configuration(patched, CONFIG) == patched
    before = yaml.safe_load(CLUSTER_CONFIGURATION_V1BETA4)
    after = yaml.safe_load(patched)
    assert {k: v for k, v in after.items() if k != "scheduler"} == {k: v for k, v in before.items() if k != "scheduler"}
    assert yaml.safe_load(static_pod.unpatch_cluster_configuration(patched)) == before
    assert yaml.safe_load(filters.kubeadm_scheduler_patch(patched, state="absent")) == before


def test_cluster_configuration_v1beta3_and_other_args():
    text = CLUSTER_CONFIGURATION_V1BETA4.replace("v1beta4", "v1beta3").replace("scheduler: {}", "scheduler:\n  extraArgs:\n    v: '2'")
    scheduler = yaml.safe_load(static_pod.patch_cluster_configuration(text, CONFIG))["scheduler"]
    assert scheduler["extraArgs"] == {"v": "2", "config": CONFIG}
    restored = yaml.safe_load(static_pod.unpatch_cluster_configuration(static_pod.patch_cluster_configuration(text, CONFIG)))
    assert restored["scheduler"] == {"extraArgs": {"v": "2"}}


def test_cluster_configuration_refused():
    with pytest.raises(static_pod.StaticPodError, match="not a ClusterConfiguration"):
        static_pod.patch_cluster_configuration("kind: InitConfiguration\n", CONFIG)


class _Tagged(str):
    """Like the str subclasses ansible-core's templating hands to filters, which YAML cannot represent."""


def test_str_subclasses_are_written_as_plain_strings():
    patched = static_pod.patch_manifest(MANIFEST, _Tagged(CONFIG), image=_Tagged("img:1"), config_sha256=_Tagged("abc"))
    assert f"--config={CONFIG}" in container(patched)["command"]
    assert "kubesched-config" in static_pod.patch_cluster_configuration(CLUSTER_CONFIGURATION_V1BETA4, _Tagged(CONFIG))
