# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The preflight (module_utils/preflight.py): its reading of what serves MutatingAdmissionPolicy (the discovery
documents of the real v1.37.2 kind cluster) and of the node pool and its warnings; its one read of the Prometheus
Operator's API (the discovery document the v1.37.2 kind cluster served for monitoring.coreos.com/v1 with the
ServiceMonitor and PrometheusRule CRDs of molecule/leader_election), and its check of a PriorityClass the run does not
create. The trial Pod's priority class is tested in test_trial.py."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from ansible_collections.kubesched.scheduler.plugins.module_utils import engine
from ansible_collections.kubesched.scheduler.plugins.module_utils import preflight as preflight_checks
from ansible_collections.kubesched.scheduler.tests.unit.utils.engine_fakes import NAME, objects
from ansible_collections.kubesched.scheduler.tests.unit.utils.preflight_fakes import (
    FIXTURES,
    GATE_137,
    POOL,
    SERVED_137,
    V1,
    V1BETA1,
    Forbidden,
    SharedKube,
    preflight_params,
    refs,
    routing,
)

# Kubernetes 1.34 and 1.35 register MutatingAdmissionPolicy only at v1alpha1 and v1beta1
# (pkg/registry/admissionregistration/rest/storage_apiserver.go of v1.35.4): their v1 is 1.37's without it.
SERVED_135_V1 = [name for name in SERVED_137 if not name.startswith("mutatingadmissionpolic")]
SERVED_135_V1BETA1 = ["mutatingadmissionpolicies", "mutatingadmissionpolicybindings", "validatingadmissionpolicies", "validatingadmissionpolicybindings"]
# The API server's /metrics line of the gate on the v1.37.2 cluster, and as 1.35 writes it, on and off.
GATE_135_ON = 'kubernetes_feature_enabled{name="MutatingAdmissionPolicy",stage="BETA"} 1'
GATE_135_OFF = 'kubernetes_feature_enabled{name="MutatingAdmissionPolicy",stage="BETA"} 0'
DISCOVERY = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "metrics" / "monitoring-coreos-com-v1.json").read_text())
SERVED = [resource["name"] for resource in DISCOVERY["resources"]]


def preflight(monkeypatch, kube, **kwargs):
    """The preflight on ``kube`` (a SharedKube of tests/unit/utils/preflight_fakes.py, which serves discovery documents)."""
    monkeypatch.setattr(preflight_checks, "Kube", lambda api: kube)
    return preflight_checks.preflight(lambda: None, preflight_params(**kwargs))


def test_preflight_reads_the_operators_api_with_one_request(monkeypatch):
    kube = SharedKube(served={preflight_checks.MONITORING_API: SERVED})
    before = kube.requests
    with_metrics = preflight(monkeypatch, kube, metrics=True)
    with_requests = kube.requests - before
    assert with_metrics["monitoring_api"] is True
    before = kube.requests
    without = preflight(monkeypatch, kube, metrics=False)
    assert "monitoring_api" not in without
    assert with_requests - (kube.requests - before) == 1


def test_preflight_tells_a_cluster_without_the_operator(monkeypatch):
    assert preflight(monkeypatch, SharedKube(served={}), metrics=True)["monitoring_api"] is False


def test_a_group_serving_only_one_of_the_two_kinds_is_not_enough(monkeypatch):
    assert preflight(monkeypatch, SharedKube(served={preflight_checks.MONITORING_API: ["servicemonitors"]}), metrics=True)["monitoring_api"] is False


def test_preflight_refuses_a_priority_class_the_cluster_lacks(monkeypatch):
    with pytest.raises(engine.EngineError) as refused:
        preflight(monkeypatch, SharedKube(), priority_class="batch-critical")
    assert refused.value.msg.startswith("kube_scheduler_priority_class_name 'batch-critical' is no PriorityClass of this cluster")
    assert f"else {NAME}-critical, which the role creates), or empty it for none." in refused.value.msg


def test_preflight_accepts_an_existing_priority_class(monkeypatch):
    kube = SharedKube()
    kube.put({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "system-cluster-critical"}, "value": 2000000000})
    assert "msg" not in preflight(monkeypatch, kube, priority_class="system-cluster-critical")


# --- the preflight --------------------------------------------------------------------------------


@pytest.fixture
def cluster(monkeypatch):
    """The preflight's Kube, replaced by a SharedKube the test sets up."""
    holder = {}

    def make(**kwargs):
        holder["kube"] = SharedKube(**kwargs)
        return holder["kube"]

    monkeypatch.setattr(preflight_checks, "Kube", lambda api: holder["kube"])
    return make


def test_preflight_reads_v1_with_one_request(cluster):
    kube = cluster()
    before = kube.requests
    result = preflight_checks.preflight(lambda: None, preflight_params(route=True))
    assert result["admission_policy_api"] == V1
    assert "msg" not in result
    kube.requests = before
    preflight_checks.admission_policy_api(kube)
    assert kube.requests == before + 1


def test_preflight_refuses_routing_where_nothing_serves_it(cluster):
    cluster(served={V1: SERVED_135_V1})
    with pytest.raises(engine.EngineError) as refused:
        preflight_checks.preflight(lambda: None, preflight_params(route=True))
    msg = refused.value.msg
    assert msg.startswith("kube_scheduler_route_namespace_selector needs MutatingAdmissionPolicy, and this cluster (v1.37.2) does not serve it")
    assert "Kubernetes 1.36 or newer serves it (admissionregistration.k8s.io/v1, on by default)" in msg
    assert "--runtime-config=admissionregistration.k8s.io/v1beta1=true" in msg and msg.endswith("Nothing was changed.")


def test_preflight_without_routing_needs_none(cluster):
    cluster(served={V1: SERVED_135_V1})
    assert preflight_checks.preflight(lambda: None, preflight_params())["admission_policy_api"] == ""


@pytest.mark.parametrize(
    ("metrics", "outcome"),
    [(GATE_135_ON, V1BETA1), (GATE_135_OFF, "runs without the feature gate MutatingAdmissionPolicy, so none would apply"), (None, "warning")],
)
def test_preflight_on_a_beta_cluster_reads_the_feature_gate(cluster, metrics, outcome):
    cluster(served={V1: SERVED_135_V1, V1BETA1: SERVED_135_V1BETA1}, metrics=metrics)
    if outcome == V1BETA1:
        assert preflight_checks.preflight(lambda: None, preflight_params(route=True))["admission_policy_api"] == V1BETA1
    elif outcome == "warning":
        result = preflight_checks.preflight(lambda: None, preflight_params(route=True))
        assert result["warnings"][0].startswith("Could not tell whether the API server runs with the feature gate MutatingAdmissionPolicy")
    else:
        with pytest.raises(engine.EngineError) as refused:
            preflight_checks.preflight(lambda: None, preflight_params(route=True))
        assert f"serves {V1BETA1} MutatingAdmissionPolicy objects but {outcome}" in refused.value.msg


def main_scheduler_pod(profiles=None, config="/etc/kubernetes/kubesched/kube-scheduler-config.yaml"):
    """The mirror pod of a kubeadm kube-scheduler; with ``config``, --config on a hostPath; ``profiles`` as the main_scheduler role notes them."""
    annotations = {"kubernetes.io/config.mirror": "abc"}
    if profiles:
        annotations["kubesched.io/scheduler-profiles"] = ",".join(profiles)
    command = ["kube-scheduler", "--kubeconfig=/etc/kubernetes/scheduler.conf"] + ([f"--config={config}"] if config else [])
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "kube-scheduler-cp-1",
            "namespace": "kube-system",
            "labels": {"component": "kube-scheduler", "tier": "control-plane"},
            "annotations": annotations,
        },
        "spec": {
            "nodeName": "cp-1",
            "containers": [{"name": "kube-scheduler", "image": "registry.k8s.io/kube-scheduler:v1.37.2", "command": command}],
            "volumes": [{"name": "kubesched", "hostPath": {"path": "/etc/kubernetes/kubesched"}}],
        },
        "status": {"phase": "Running"},
    }


def test_preflight_refuses_a_name_that_a_profile_of_the_main_scheduler_serves(cluster):
    kube = cluster()
    kube.put(main_scheduler_pod(profiles=["default-scheduler", NAME]))
    with pytest.raises(engine.EngineError) as refused:
        preflight_checks.preflight(lambda: None, preflight_params())
    msg = refused.value.msg
    assert msg.startswith(f"kube_scheduler_name '{NAME}' is already served by the cluster's own kube-scheduler (kube-system/kube-scheduler-cp-1")
    assert "Choose another kube_scheduler_name" in msg and "kube_scheduler_main_profiles_extra" in msg


@pytest.mark.parametrize(
    "pod",
    [
        main_scheduler_pod(profiles=["default-scheduler", "binpack-scheduler"]),
        # the configuration on the node, not noted on the pod: not guessed at
        main_scheduler_pod(),
        # kubeadm's own: no --config, the default profile only
        main_scheduler_pod(config=None),
    ],
    ids=["other-profiles", "unreadable", "kubeadm"],
)
def test_preflight_lets_a_name_the_main_scheduler_does_not_serve_pass(cluster, pod):
    kube = cluster()
    kube.put(pod)
    result = preflight_checks.preflight(lambda: None, preflight_params())
    assert "msg" not in result and result["namespace_exists"] is True


def test_the_gate_of_the_real_cluster_is_read():
    kube = SharedKube(metrics=GATE_137)
    assert preflight_checks.feature_enabled(kube, "MutatingAdmissionPolicy") is True
    assert preflight_checks.feature_enabled(kube, "NoSuchGate") is None


def test_a_removal_reads_what_to_delete(cluster):
    cluster()
    result = preflight_checks.preflight(lambda: None, preflight_params(state="absent"))
    assert result["admission_policy_api"] == V1 and "warnings" not in result


def test_objects_keep_their_api_version_in_a_removal_list():
    assert [obj["apiVersion"] for obj in refs(routing(V1BETA1))] == [V1BETA1, V1BETA1]
    assert copy.deepcopy(objects())[2]["kind"] == "Deployment"


# --- the node pool's warnings ----------------------------------------------------------------------

# GET /api/v1/nodes of the kind cluster while kubesched-worker2 was the pool (labelled and tainted kubesched.io/pool=batch).
NODES = json.loads((FIXTURES / "nodes-pool.json").read_text())["items"]


def pool_nodes(labels):
    """The nodes a label selector of ``labels`` lists."""
    return [node for node in NODES if all(node["metadata"]["labels"].get(key) == value for key, value in labels.items())]


def untainted(nodes):
    nodes = copy.deepcopy(nodes)
    for node in nodes:
        node["spec"].pop("taints", None)
    return nodes


def test_a_tainted_pool_gives_no_warning():
    assert [node["metadata"]["name"] for node in pool_nodes(POOL["labels"])] == ["kubesched-worker2"]
    assert preflight_checks.pool_warnings(NAME, POOL, pool_nodes(POOL["labels"])) == []


def test_no_pool_warns_naming_both_schedulers():
    (warning,) = preflight_checks.pool_warnings(NAME, {}, [])
    assert warning.startswith(f"kube_scheduler_node_pool is not set: {NAME} and default-scheduler can place pods onto the same nodes.")
    assert "the node's kubelet then rejects one of the pods (OutOfcpu, OutOfmemory; kubernetes#60469)" in warning


@pytest.mark.parametrize("taint", [None, {"key": "kubesched.io/pool", "value": "batch", "effect": "PreferNoSchedule"}])
def test_a_pool_without_a_taint_that_keeps_pods_off_warns(taint):
    (warning,) = preflight_checks.pool_warnings(NAME, {"labels": POOL["labels"], "taint": taint}, pool_nodes(POOL["labels"]))
    assert warning.startswith("kube_scheduler_node_pool has no taint that keeps other pods off")
    assert f"default-scheduler can place pods onto the pool's nodes (kubesched-worker2) too, where {NAME} places its pods" in warning


def test_nodes_of_the_pool_without_its_taint_are_named_with_the_command():
    (warning,) = preflight_checks.pool_warnings(NAME, POOL, untainted(pool_nodes(POOL["labels"])))
    assert warning.startswith("Node(s) kubesched-worker2 carry the labels of kube_scheduler_node_pool (kubesched.io/pool=batch) but not its taint")
    assert warning.endswith("kubectl taint nodes kubesched-worker2 kubesched.io/pool=batch:NoSchedule")


def test_a_pool_no_node_carries_warns():
    (warning,) = preflight_checks.pool_warnings(NAME, {"labels": {"pool": "gpu"}, "taint": {"key": "pool"}}, pool_nodes({"pool": "gpu"}))
    assert warning == (
        "No node carries the labels of kube_scheduler_node_pool (pool=gpu): the pods of my-scheduler stay Pending until one does "
        "(kubectl label nodes <node> pool=gpu)."
    )


def test_the_preflight_lists_the_pools_nodes_by_label(cluster):
    kube = cluster()
    for node in NODES:
        kube.put(node)
    result = preflight_checks.preflight(lambda: None, preflight_params(node_pool=POOL))
    assert result["node_pool_nodes"] == ["kubesched-worker2"] and result["warnings"] == []


def test_a_user_who_may_not_list_nodes_gets_a_warning(monkeypatch):
    kube = Forbidden()
    monkeypatch.setattr(preflight_checks, "Kube", lambda api: kube)
    result = preflight_checks.preflight(lambda: None, preflight_params(node_pool=POOL))
    assert result["node_pool_nodes"] == []
    assert result["warnings"] == [
        "Could not list the nodes of kube_scheduler_node_pool ((403) Forbidden: nodes is forbidden): their labels and taint were not checked."
    ]


# --- gang scheduling ---------------------------------------------------------------------------------

# GET /apis/scheduling.k8s.io/v1beta1 of the kind cluster kubesched-ha (v1.37.2, its API servers started with
# --runtime-config=scheduling.k8s.io/v1beta1=true and --feature-gates=GenericWorkload=true), and its /metrics line.
GANG_DISCOVERY = json.loads((FIXTURES / "scheduling-v1beta1-1.37-gate.json").read_text())
GANG_SERVED = [resource["name"] for resource in GANG_DISCOVERY["resources"]]
GANG_ON = 'kubernetes_feature_enabled{name="GenericWorkload",stage="BETA"} 1'
GANG_OFF = 'kubernetes_feature_enabled{name="GenericWorkload",stage="BETA"} 0'
SCHEDULING_V1BETA1 = "scheduling.k8s.io/v1beta1"


def test_gang_scheduling_passes_where_podgroups_are_served_and_the_gate_is_on(cluster):
    assert "podgroups" in GANG_SERVED
    cluster(served={V1: SERVED_137, SCHEDULING_V1BETA1: GANG_SERVED}, metrics=GANG_ON)
    result = preflight_checks.preflight(lambda: None, preflight_params(gang_scheduling=True))
    assert "msg" not in result and result["server_version"] == "v1.37.2"


@pytest.mark.parametrize(
    ("served", "metrics", "said"),
    [
        # a cluster as kind makes it by default: no --runtime-config for the group
        ([], GANG_ON, "and this cluster (v1.37.2) does not serve scheduling.k8s.io/v1beta1."),
        # the group served with the gate off: the API server keeps no PodGroups
        (["workloads"], GANG_OFF, "serves scheduling.k8s.io/v1beta1 without podgroups (its API server runs without the feature gate GenericWorkload)"),
        # PodGroups served (another API server has the gate) but this one's /metrics says it is off
        (GANG_SERVED, GANG_OFF, "needs the API server's feature gate GenericWorkload (without it the API server drops the pods' spec.schedulingGroup)"),
    ],
    ids=["not-served", "no-podgroups", "gate-off"],
)
def test_gang_scheduling_is_refused_naming_what_the_cluster_lacks(cluster, served, metrics, said):
    cluster(served={V1: SERVED_137, SCHEDULING_V1BETA1: served}, metrics=metrics)
    with pytest.raises(engine.EngineError) as refused:
        preflight_checks.preflight(lambda: None, preflight_params(gang_scheduling=True))
    msg = refused.value.msg
    assert msg.startswith("kube_scheduler_gang_scheduling needs") and said in msg, msg
    assert "--runtime-config=scheduling.k8s.io/v1beta1=true and --feature-gates=GenericWorkload=true" in msg
    assert msg.endswith("Nothing was changed.")


class Discovery(SharedKube):
    """SharedKube that notes each group/version whose resources were asked for."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.asked = []

    def resources(self, api_version):
        self.asked.append(api_version)
        return super().resources(api_version)


@pytest.mark.parametrize("gang", [False, True])
def test_the_podgroups_api_is_read_only_for_gang_scheduling(monkeypatch, gang):
    kube = Discovery(served={V1: SERVED_137, SCHEDULING_V1BETA1: GANG_SERVED}, metrics=GANG_ON)
    preflight(monkeypatch, kube, gang_scheduling=gang)
    assert (SCHEDULING_V1BETA1 in kube.asked) is gang
