# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Render mode of the deploy role (with the clusterrole role's steps): run it with kube_scheduler_render_dir (no
cluster is contacted) and validate the manifests against the Kubernetes schemas with kubernetes-validate."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ansible_collections.kubesched.scheduler.plugins.module_utils.metrics import PORT

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
BIN = Path(sys.executable).parent
PLAYBOOK = """
- name: Render the second scheduler
  hosts: localhost
  gather_facts: false
  roles:
    - role: kubesched.scheduler.deploy
"""
OBJECTS = [
    "10-serviceaccount.yaml",
    "20-clusterrolebinding-kube-scheduler.yaml",
    "21-clusterrolebinding-volume-scheduler.yaml",
    "30-rolebinding-extension-apiserver-authentication-reader.yaml",
    "40-configmap.yaml",
    "50-deployment.yaml",
]
# The metrics Service and the ClusterRole that may read /metrics (kube_scheduler_metrics_enabled, on by default), and the
# Prometheus Operator's ServiceMonitor and PrometheusRule, which render mode writes too; kubernetes-validate has no
# schema of the latter two.
METRICS = ["42-service-metrics.yaml", "43-clusterrole-metrics-reader.yaml"]
MONITORING = ["45-servicemonitor.yaml", "46-prometheusrule.yaml"]

pytestmark = pytest.mark.skipif(not (BIN / "ansible-playbook").exists(), reason="ansible-playbook is not installed next to this Python")


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A playbook and a collections path holding this checkout as kubesched.scheduler."""
    base = tmp_path_factory.mktemp("render")
    if ROOT.parent.name == "kubesched" and ROOT.parent.parent.name == "ansible_collections":
        collections = ROOT.parents[2]
    else:
        collections = base / "collections"
        (collections / "ansible_collections" / "kubesched").mkdir(parents=True)
        (collections / "ansible_collections" / "kubesched" / "scheduler").symlink_to(ROOT)
    (base / "render.yml").write_text(PLAYBOOK)
    return base, collections


def run_playbook(workdir, out, *strings, **extra_vars):
    """Render into ``out`` with ``extra_vars`` (typed, as JSON) and ``strings`` (``-e name=value``, strings as on a command line)."""
    base, collections = workdir
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=str(collections), ANSIBLE_NOCOLOR="1", ANSIBLE_RETRY_FILES_ENABLED="0")
    env.pop("K8S_AUTH_KUBECONFIG", None)
    env["KUBECONFIG"] = str(base / "no-such-kubeconfig")  # any attempt to reach a cluster would fail
    extra = json.dumps({"kube_scheduler_render_dir": str(out), **extra_vars})
    options = [arg for string in strings for arg in ("-e", string)]
    return subprocess.run(
        [str(BIN / "ansible-playbook"), str(base / "render.yml"), "-e", extra, *options],
        cwd=base,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def load(path):
    return yaml.safe_load(path.read_text())


def validate(paths):
    result = subprocess.run(
        [str(BIN / "kubernetes-validate"), "-k", "1.34.0", "--strict", *map(str, paths)], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout + result.stderr


@pytest.fixture(scope="module")
def patch_mode(workdir):
    out = workdir[0] / "patch"
    result = run_playbook(workdir, out)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    return out


@pytest.fixture(scope="module")
def dedicated_mode(workdir):
    out = workdir[0] / "dedicated"
    result = run_playbook(
        workdir,
        out,
        kube_scheduler_name="team-a-scheduler",
        kube_scheduler_namespace="scheduling",
        kube_scheduler_lock_namespace="scheduling-locks",
        kube_scheduler_lock_namespace_create=True,
        kube_scheduler_rbac_mode="dedicated",
        kube_scheduler_replicas=2,
        kube_scheduler_cluster_version="v1.23.17",
        kube_scheduler_security_profile="baseline",
        kube_scheduler_image="localhost:5001/team-a",
        kube_scheduler_image_digest="sha256:" + "a" * 64,
        kube_scheduler_plugins={"score": {"disabled": [{"name": "NodeResourcesBalancedAllocation"}]}},
        kube_scheduler_plugin_config=[{"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "MostAllocated"}}}],
        kube_scheduler_profiles_extra=[{"schedulerName": "team-a-batch"}],
        kube_scheduler_tolerations=[{"key": "dedicated", "operator": "Equal", "value": "scheduling", "effect": "NoSchedule"}],
        kube_scheduler_node_selector={"kubernetes.io/os": "linux"},
        kube_scheduler_host_aliases=[{"ip": "172.18.0.9", "hostnames": ["lb.example.internal"]}],
        kube_scheduler_env={"KUBERNETES_SERVICE_HOST": "lb.example.internal", "KUBERNETES_SERVICE_PORT": "6443"},
        kube_scheduler_metrics_reader_subjects=[
            {"kind": "ServiceAccount", "name": "prometheus", "namespace": "monitoring"},
            {"kind": "Group", "name": "team-a:observers"},
        ],
        kube_scheduler_metrics_labels={"release": "kube-prometheus-stack"},
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    return out


def test_patch_mode_writes_one_valid_manifest_per_object(patch_mode):
    assert sorted(p.name for p in patch_mode.glob("*.yaml")) == sorted(OBJECTS + METRICS + MONITORING)
    output = validate(sorted(patch_mode / name for name in OBJECTS + METRICS))
    assert output.count("passed") == len(OBJECTS + METRICS)


def test_patch_mode_manifests(patch_mode):
    binding = load(patch_mode / "20-clusterrolebinding-kube-scheduler.yaml")
    assert binding["roleRef"]["name"] == "system:kube-scheduler"
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "my-scheduler", "namespace": "kube-system"}]
    assert load(patch_mode / "21-clusterrolebinding-volume-scheduler.yaml")["roleRef"]["name"] == "system:volume-scheduler"
    reader = load(patch_mode / "30-rolebinding-extension-apiserver-authentication-reader.yaml")
    assert reader["metadata"]["namespace"] == "kube-system"
    assert reader["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "extension-apiserver-authentication-reader"}

    configmap = load(patch_mode / "40-configmap.yaml")
    text = configmap["data"]["my-scheduler-config.yaml"]
    config = yaml.safe_load(text)
    assert config["apiVersion"] == "kubescheduler.config.k8s.io/v1"
    assert config["profiles"] == [{"schedulerName": "my-scheduler"}]
    assert config["leaderElection"] == {
        "leaderElect": True,
        "leaseDuration": "15s",
        "renewDeadline": "10s",
        "retryPeriod": "2s",
        "resourceLock": "leases",
        "resourceName": "my-scheduler",
        "resourceNamespace": "kube-system",
    }
    assert config["clientConnection"] == {"qps": 50, "burst": 100}
    assert config["parallelism"] == 16
    assert (patch_mode / "config" / "my-scheduler-config.yaml").read_text() == text

    deployment = load(patch_mode / "50-deployment.yaml")
    labels = deployment["metadata"]["labels"]
    assert labels["component"] == "scheduler" and labels["tier"] == "control-plane"
    assert labels["app.kubernetes.io/managed-by"] == "kubesched.scheduler"
    assert labels["kubesched.io/scheduler-name"] == "my-scheduler"
    pod = deployment["spec"]["template"]
    assert pod["metadata"]["annotations"]["kubesched.io/config-checksum"] == hashlib.sha256(text.encode()).hexdigest()
    assert "affinity" not in pod["spec"]
    # One replica: the new pod starts next to the old one, which keeps the Lease until the new one is ready.
    assert deployment["spec"]["strategy"]["rollingUpdate"] == {"maxSurge": 1, "maxUnavailable": 0}
    container = pod["spec"]["containers"][0]
    assert container["name"] == "kube-second-scheduler"
    assert container["image"] == "localhost:5001/my-scheduler:v1.37.2"
    assert container["imagePullPolicy"] == "IfNotPresent"
    assert container["command"] == ["kube-scheduler", "--config=/etc/kubernetes/my-scheduler/my-scheduler-config.yaml", "--v=2"]
    for probe in (container["startupProbe"], container["livenessProbe"], container["readinessProbe"]):
        assert probe["httpGet"] == {"path": "/healthz", "port": 10259, "scheme": "HTTPS"}
    assert container["startupProbe"]["periodSeconds"] == 1
    assert container["resources"] == {"requests": {"cpu": "100m"}}
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["securityContext"]["runAsUser"] == 65532
    assert container["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    assert pod["spec"]["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert container["volumeMounts"] == [{"name": "config-volume", "mountPath": "/etc/kubernetes/my-scheduler", "readOnly": True}]
    assert pod["spec"]["volumes"] == [{"name": "config-volume", "configMap": {"name": "my-scheduler-config"}}]


def test_patch_mode_writes_a_guarded_json_patch(patch_mode):
    patch = load(patch_mode / "patches" / "clusterrole-system-kube-scheduler.yaml")
    assert {"op": "test", "path": "/rules/2/resources", "value": ["leases"]} in patch
    assert {"op": "add", "path": "/rules/2/resourceNames/-", "value": "my-scheduler"} in patch
    assert not any("/rules/4" in op["path"] for op in patch)  # no endpoints rule since 1.28
    assert {"op": "add", "path": "/metadata/annotations/kubesched.io~1added-lease-names", "value": '["my-scheduler"]'} in patch


def test_dedicated_mode(dedicated_mode):
    files = sorted(p.name for p in dedicated_mode.glob("*.yaml"))
    disruption = ["41-priorityclass.yaml", "44-clusterrolebinding-metrics-reader.yaml", "47-poddisruptionbudget.yaml"]
    assert files == sorted([*OBJECTS, *METRICS, *MONITORING, *disruption, "05-namespace.yaml", "15-clusterrole-dedicated.yaml"])
    assert not (dedicated_mode / "patches").exists() or not any((dedicated_mode / "patches").iterdir())
    validate(sorted(p for p in dedicated_mode.glob("*.yaml") if p.name not in MONITORING))

    role = load(dedicated_mode / "15-clusterrole-dedicated.yaml")
    assert role["metadata"]["name"] == "team-a-scheduler-scheduler"
    named = [rule for rule in role["rules"] if rule.get("resourceNames")]
    lease = {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "resourceNames": ["team-a-scheduler"], "verbs": ["get", "list", "update", "watch"]}
    assert named == [lease]
    granted = {(group, resource) for rule in role["rules"] for group in rule["apiGroups"] for resource in rule["resources"]}
    assert ("", "pods/binding") in granted and ("storage.k8s.io", "volumeattachments") in granted
    assert ("resource.k8s.io", "resourceclaims/status") in granted
    assert not any(resource == "endpoints" for dummy, resource in granted)
    assert not any("*" in rule["verbs"] for rule in role["rules"])
    binding = load(dedicated_mode / "20-clusterrolebinding-kube-scheduler.yaml")
    assert binding["roleRef"]["name"] == "team-a-scheduler-scheduler"
    assert binding["subjects"][0]["namespace"] == "scheduling"
    assert load(dedicated_mode / "05-namespace.yaml")["metadata"]["name"] == "scheduling-locks"

    config = yaml.safe_load(load(dedicated_mode / "40-configmap.yaml")["data"]["team-a-scheduler-config.yaml"])
    assert config["apiVersion"] == "kubescheduler.config.k8s.io/v1beta3"
    assert config["leaderElection"]["resourceNamespace"] == "scheduling-locks"
    assert config["leaderElection"]["resourceName"] == "team-a-scheduler"
    assert config["profiles"][0]["schedulerName"] == "team-a-scheduler"
    assert config["profiles"][0]["plugins"] == {"score": {"disabled": [{"name": "NodeResourcesBalancedAllocation"}]}}
    assert config["profiles"][0]["pluginConfig"][0]["name"] == "NodeResourcesFit"
    assert config["profiles"][1] == {"schedulerName": "team-a-batch"}

    deployment = load(dedicated_mode / "50-deployment.yaml")
    # One replica per node: no surge pod, which would find no node.
    assert deployment["spec"]["strategy"]["rollingUpdate"] == {"maxSurge": 0, "maxUnavailable": 1}
    pod = deployment["spec"]["template"]["spec"]
    assert pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]["topologyKey"] == "kubernetes.io/hostname"
    assert pod["containers"][0]["image"] == "localhost:5001/team-a:v1.37.2@sha256:" + "a" * 64
    assert pod["containers"][0]["securityContext"] == {"privileged": False}
    assert "securityContext" not in pod
    # Outside kube-system the pods take the PriorityClass the role creates.
    assert pod["priorityClassName"] == "team-a-scheduler-critical"
    assert pod["nodeSelector"] == {"kubernetes.io/os": "linux"}
    assert pod["tolerations"][0]["key"] == "dedicated"
    assert pod["hostAliases"] == [{"ip": "172.18.0.9", "hostnames": ["lb.example.internal"]}]
    assert {"name": "KUBERNETES_SERVICE_HOST", "value": "lb.example.internal"} in pod["containers"][0]["env"]


def test_config_change_changes_the_checksum(patch_mode, dedicated_mode):
    first = load(patch_mode / "50-deployment.yaml")["spec"]["template"]["metadata"]["annotations"]
    second = load(dedicated_mode / "50-deployment.yaml")["spec"]["template"]["metadata"]["annotations"]
    assert first["kubesched.io/config-checksum"] != second["kubesched.io/config-checksum"]


def promtool(*args, cwd):
    """Debian's promtool (hack/kind/install-host.sh installs the prometheus package) on the rendered rules."""
    binary = shutil.which("promtool")
    assert binary, "promtool is missing: apt-get install prometheus (hack/kind/install-host.sh installs it)"
    return subprocess.run([binary, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False)


def test_patch_mode_metrics(patch_mode):
    service = load(patch_mode / "42-service-metrics.yaml")
    assert service["metadata"] == {
        "name": "my-scheduler-metrics",
        "namespace": "kube-system",
        "labels": {
            "app.kubernetes.io/name": "my-scheduler",
            "app.kubernetes.io/managed-by": "kubesched.scheduler",
            "kubesched.io/scheduler-name": "my-scheduler",
        },
    }
    # Headless: an address per ready pod, so that every pod is scraped, not one picked at random.
    assert service["spec"]["clusterIP"] == "None"
    pod_labels = load(patch_mode / "50-deployment.yaml")["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= pod_labels.items()
    assert service["spec"]["ports"] == [{"name": "https-metrics", "port": PORT, "targetPort": PORT, "protocol": "TCP"}]
    reader = load(patch_mode / "43-clusterrole-metrics-reader.yaml")
    assert reader["metadata"]["name"] == "my-scheduler-metrics-reader"
    assert reader["rules"] == [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}]
    monitor = load(patch_mode / "45-servicemonitor.yaml")
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    assert monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    assert monitor["spec"]["namespaceSelector"] == {"matchNames": ["kube-system"]}
    assert monitor["spec"]["endpoints"][0]["port"] == "https-metrics"
    assert monitor["spec"]["endpoints"][0]["scheme"] == "https"
    # One source: the PrometheusRule holds the groups of the plain rules file.
    rule = load(patch_mode / "46-prometheusrule.yaml")
    assert rule["spec"] == load(patch_mode / "prometheus" / "my-scheduler-alerts.yaml")
    # In kube-system the pods run at the default scheduler's own priority; one replica has no PodDisruptionBudget.
    assert load(patch_mode / "50-deployment.yaml")["spec"]["template"]["spec"]["priorityClassName"] == "system-cluster-critical"


def test_patch_mode_alert_rules_pass_promtool(patch_mode, tmp_path):
    shutil.copy(patch_mode / "prometheus" / "my-scheduler-alerts.yaml", tmp_path)
    shutil.copy(FIXTURES / "my-scheduler-alerts.test.yml", tmp_path)
    checked = promtool("check", "rules", "my-scheduler-alerts.yaml", cwd=tmp_path)
    assert checked.returncode == 0 and "SUCCESS: 6 rules found" in checked.stdout, checked.stdout + checked.stderr
    tested = promtool("test", "rules", "my-scheduler-alerts.test.yml", cwd=tmp_path)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    names = [rule["alert"] for rule in load(tmp_path / "my-scheduler-alerts.yaml")["groups"][0]["rules"]]
    assert names == [
        "KubeschedSchedulerDown",
        "KubeschedSchedulerNoLeader",
        "KubeschedSchedulingErrors",
        "KubeschedThrottledByAPIServer",
        "KubeschedPodsUnschedulable",
        "KubeschedPodsUnserved",
    ]
    assert all(f"alertname: {name}" in (FIXTURES / "my-scheduler-alerts.test.yml").read_text() for name in names)


def test_alert_for_takes_every_rule_of_the_template(workdir, tmp_path):
    durations = {"down": "1m", "no_leader": "2m", "errors": "3m", "throttled": "15m", "unschedulable": "20m", "unserved": "30m"}
    out = tmp_path / "out"
    result = run_playbook(workdir, out, kube_scheduler_alert_for=durations)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    rules = load(out / "prometheus" / "my-scheduler-alerts.yaml")["groups"][0]["rules"]
    assert [rule["for"] for rule in rules] == list(durations.values())


def test_dedicated_mode_metrics_and_disruption(dedicated_mode, tmp_path):
    binding = load(dedicated_mode / "44-clusterrolebinding-metrics-reader.yaml")
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "team-a-scheduler-metrics-reader"}
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "prometheus", "namespace": "monitoring"},
        {"kind": "Group", "name": "team-a:observers", "apiGroup": "rbac.authorization.k8s.io"},
    ]
    for name in MONITORING:
        assert load(dedicated_mode / name)["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    priority = load(dedicated_mode / "41-priorityclass.yaml")
    assert (priority["metadata"]["name"], priority["value"], priority["globalDefault"]) == ("team-a-scheduler-critical", 1000000000, False)
    budget = load(dedicated_mode / "47-poddisruptionbudget.yaml")
    assert budget["spec"]["maxUnavailable"] == 1
    assert budget["spec"]["selector"] == load(dedicated_mode / "50-deployment.yaml")["spec"]["selector"]
    assert "unhealthyPodEvictionPolicy" not in budget["spec"]  # rendered for 1.23, which does not know it
    shutil.copy(dedicated_mode / "prometheus" / "team-a-scheduler-alerts.yaml", tmp_path)
    shutil.copy(FIXTURES / "team-a-scheduler-alerts.test.yml", tmp_path)
    tested = promtool("test", "rules", "team-a-scheduler-alerts.test.yml", cwd=tmp_path)
    assert tested.returncode == 0, tested.stdout + tested.stderr


def test_metrics_off_and_no_priority_class(workdir, tmp_path):
    out = tmp_path / "out"
    result = run_playbook(workdir, out, "kube_scheduler_metrics_enabled=false", "kube_scheduler_priority_class_name=", "kube_scheduler_replicas=2")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert sorted(p.name for p in out.glob("*.yaml")) == sorted([*OBJECTS, "47-poddisruptionbudget.yaml"])
    assert not (out / "prometheus").exists()
    assert "priorityClassName" not in load(out / "50-deployment.yaml")["spec"]["template"]["spec"]
    assert load(out / "47-poddisruptionbudget.yaml")["spec"]["unhealthyPodEvictionPolicy"] == "AlwaysAllow"


def render(workdir, tmp_path, *strings):
    """The KubeSchedulerConfiguration and the Deployment rendered with ``-e name=value`` strings."""
    out = tmp_path / "out"
    result = run_playbook(workdir, out, *strings)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    config_text = (out / "config" / "my-scheduler-config.yaml").read_text()
    return config_text, yaml.safe_load(config_text), load(out / "50-deployment.yaml")


def test_strings_from_the_command_line_render_real_types(workdir, tmp_path):
    text, config, deployment = render(
        workdir,
        tmp_path,
        "kube_scheduler_client_qps=100",
        "kube_scheduler_client_burst=200",
        "kube_scheduler_parallelism=8",
        "kube_scheduler_leader_elect=false",
        "kube_scheduler_replicas=1",
        "kube_scheduler_verbosity=4",
        "kube_scheduler_wait_timeout=60",
    )
    # kube-scheduler decodes strictly: "qps: '100'" would make it crash-loop.
    assert "qps: 100\n" in text
    assert config["clientConnection"] == {"qps": 100, "burst": 200}
    assert config["parallelism"] == 8
    assert config["leaderElection"]["leaderElect"] is False
    assert deployment["spec"]["replicas"] == 1
    assert "--v=4" in deployment["spec"]["template"]["spec"]["containers"][0]["command"]
    # Without leader election there is no Lease to lose: no no-leader rule, and "served" is "up".
    rules = {rule["alert"]: rule for rule in load(tmp_path / "out" / "prometheus" / "my-scheduler-alerts.yaml")["groups"][0]["rules"]}
    assert "KubeschedSchedulerNoLeader" not in rules
    assert rules["KubeschedPodsUnserved"]["expr"].endswith('unless on() (sum(up{job="my-scheduler-metrics"}) > 0)')


CASES = """
- name: Render once per case, with the variables as strings
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Render a case
      ansible.builtin.include_role:
        name: kubesched.scheduler.deploy
      vars:
        kube_scheduler_render_dir: "{{ out }}/{{ case.key }}"
        kube_scheduler_leader_elect: "{{ case.value }}"
      loop: "{{ cases | dict2items }}"
      loop_control:
        loop_var: case
"""


def test_booleans_given_as_strings(workdir, tmp_path):
    """What -e name=value gives for a boolean (a string) is read as argument_specs reads it."""
    cases = {"false": False, "no": False, "0": False, "off": False, "true": True, "yes": True, "1": True}
    base, collections = workdir
    (tmp_path / "cases.yml").write_text(CASES)
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=str(collections), ANSIBLE_NOCOLOR="1", KUBECONFIG=str(base / "no-such-kubeconfig"))
    result = subprocess.run(
        [str(BIN / "ansible-playbook"), str(tmp_path / "cases.yml"), "-e", json.dumps({"out": str(tmp_path), "cases": {k: k for k in cases}})],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    for value, expected in cases.items():
        config = yaml.safe_load((tmp_path / value / "config" / "my-scheduler-config.yaml").read_text())
        assert config["leaderElection"]["leaderElect"] is expected, value


def test_a_fractional_qps_stays_a_number(workdir, tmp_path):
    text, config, dummy = render(workdir, tmp_path, "kube_scheduler_client_qps=12.5")
    assert config["clientConnection"]["qps"] == 12.5
    assert "qps: 12.5\n" in text


def test_the_default_preset_keeps_kube_scheduler_defaults(workdir, tmp_path):
    text, config, dummy = render(workdir, tmp_path)
    assert config["clientConnection"] == {"qps": 50, "burst": 100}
    assert config["parallelism"] == 16
    assert "percentageOfNodesToScore" not in config  # left to kube-scheduler's adaptive default


def test_the_throughput_preset_and_a_value_that_wins_over_it(workdir, tmp_path):
    text, config, dummy = render(workdir, tmp_path / "preset", "kube_scheduler_tuning=throughput")
    assert config["clientConnection"] == {"qps": 100, "burst": 150}
    assert config["parallelism"] == 16
    assert config["percentageOfNodesToScore"] == 10
    assert "percentageOfNodesToScore: 10\n" in text
    text, config, dummy = render(
        workdir, tmp_path / "explicit", "kube_scheduler_tuning=throughput", "kube_scheduler_client_qps=200", "kube_scheduler_percentage_of_nodes_to_score=30"
    )
    assert config["clientConnection"] == {"qps": 200, "burst": 150}
    assert config["percentageOfNodesToScore"] == 30


def test_more_replicas_with_leader_election_off_from_the_command_line_is_refused(workdir, tmp_path):
    result = run_playbook(workdir, tmp_path / "out", "kube_scheduler_leader_elect=false", "kube_scheduler_replicas=2")
    assert result.returncode != 0
    assert "kube_scheduler_replicas is 2 and kube_scheduler_leader_elect is False" in result.stdout


@pytest.mark.parametrize(
    ("extra_vars", "message"),
    [
        ({"kube_scheduler_name": "default-scheduler"}, "kube_scheduler_name is 'default-scheduler'"),
        ({"kube_scheduler_replicas": 2, "kube_scheduler_leader_elect": False}, "set kube_scheduler_leader_elect: true"),
        ({"kube_scheduler_lock_name": "kube-scheduler"}, "kube_scheduler_lock_name is 'kube-scheduler'"),
        ({"kube_scheduler_cluster_version": "1.21"}, "kube_scheduler_cluster_version is '1.21'"),
        ({"kube_scheduler_lease_duration": "15x"}, "kube_scheduler_lease_duration ('15x') is not a Go duration"),
        ({"kube_scheduler_client_qps": "many"}, "argument 'kube_scheduler_client_qps' is of type str"),
        ({"kube_scheduler_security_profile": "hardened"}, "value of kube_scheduler_security_profile must be one of: restricted, baseline"),
        ({"kube_scheduler_tuning": "fastest"}, "value of kube_scheduler_tuning must be one of: default, throughput"),
        ({"kube_scheduler_percentage_of_nodes_to_score": 101}, "kube_scheduler_percentage_of_nodes_to_score (101): 0 to 100"),
    ],
)
def test_preflight_refuses_bad_input_before_writing(workdir, tmp_path, extra_vars, message):
    out = tmp_path / "out"
    result = run_playbook(workdir, out, **extra_vars)
    assert result.returncode != 0
    assert message in result.stdout
    assert not list(out.glob("*.yaml"))


def test_extra_rules_for_plugins_of_ones_own(workdir, tmp_path):
    """kube_scheduler_extra_rules: a ClusterRole of those rules and its binding to the scheduler's ServiceAccount."""
    out = tmp_path / "out"
    rules = [
        {"apiGroups": ["example.com"], "resources": ["teams"], "verbs": ["get", "list", "watch"]},
        {"nonResourceURLs": ["/healthz"], "verbs": ["get"]},
    ]
    result = run_playbook(workdir, out, kube_scheduler_extra_rules=rules)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    role, binding = load(out / "48-clusterrole-extra-rules.yaml"), load(out / "49-clusterrolebinding-extra-rules.yaml")
    assert role["metadata"]["name"] == "my-scheduler-extra-rules" and role["rules"] == rules
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "my-scheduler-extra-rules"}
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "my-scheduler", "namespace": "kube-system"}]
    assert validate([out / "48-clusterrole-extra-rules.yaml", out / "49-clusterrolebinding-extra-rules.yaml"]).count("passed") == 2
