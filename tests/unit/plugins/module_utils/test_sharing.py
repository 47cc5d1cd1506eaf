# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Sharing the nodes with the default scheduler, in the engine: the routing (a MutatingAdmissionPolicy and its binding,
listed after the Deployment) applied once the scheduler leads and removed before it, the objects of an option turned off
pruned, the pods left waiting after a removal, and the preflight's reading of what serves MutatingAdmissionPolicy (the
discovery documents of the real v1.37.2 kind cluster) and of the node pool."""

from __future__ import annotations

import copy
import json

import pytest
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.kubesched.scheduler.plugins.module_utils import engine, inputs
from ansible_collections.kubesched.scheduler.plugins.module_utils import preflight as preflight_checks
from ansible_collections.kubesched.scheduler.plugins.module_utils.kube import Kube, KubeError
from ansible_collections.kubesched.scheduler.tests.unit.utils.engine_fakes import LABELS, NAME, NS, objects, params
from ansible_collections.kubesched.scheduler.tests.unit.utils.preflight_fakes import FIXTURES, GATE_137, SERVED_137, V1, V1BETA1, SharedKube, preflight_params
from ansible_collections.kubesched.scheduler.tests.unit.utils.role_inputs import SPEC, role_values

# Kubernetes 1.34 and 1.35 register MutatingAdmissionPolicy only at v1alpha1 and v1beta1
# (pkg/registry/admissionregistration/rest/storage_apiserver.go of v1.35.4): their v1 is 1.37's without it.
SERVED_135_V1 = [name for name in SERVED_137 if not name.startswith("mutatingadmissionpolic")]
SERVED_135_V1BETA1 = ["mutatingadmissionpolicies", "mutatingadmissionpolicybindings", "validatingadmissionpolicies", "validatingadmissionpolicybindings"]
# The API server's /metrics line of the gate on the v1.37.2 cluster, and as 1.35 writes it, on and off.
GATE_135_ON = 'kubernetes_feature_enabled{name="MutatingAdmissionPolicy",stage="BETA"} 1'
GATE_135_OFF = 'kubernetes_feature_enabled{name="MutatingAdmissionPolicy",stage="BETA"} 0'
DELETED = [f"MutatingAdmissionPolicy {NAME}-routing deleted", f"MutatingAdmissionPolicyBinding {NAME}-routing deleted"]

pytestmark = pytest.mark.usefixtures("fast")


def routing(api_version=V1):
    """The routing's two objects, as the deploy role renders them (names and labels; the spec does not matter here)."""
    meta = {"name": f"{NAME}-routing", "labels": dict(LABELS)}
    return [
        {"apiVersion": api_version, "kind": "MutatingAdmissionPolicy", "metadata": dict(meta), "spec": {"failurePolicy": "Fail"}},
        {"apiVersion": api_version, "kind": "MutatingAdmissionPolicyBinding", "metadata": dict(meta), "spec": {"policyName": f"{NAME}-routing"}},
    ]


def refs(objs):
    return [{"apiVersion": obj["apiVersion"], "kind": obj["kind"], "metadata": {"name": obj["metadata"]["name"]}} for obj in objs]


def routed_params(**kwargs):
    base = params(**kwargs)
    base["objects"] = base["objects"] + routing()
    return base


def test_routing_is_applied_once_the_scheduler_leads():
    kube = SharedKube()
    result = engine.converge(kube, routed_params())
    assert kube.lease_when_applied["Deployment"] is False
    assert kube.lease_when_applied["MutatingAdmissionPolicy"] is True
    assert kube.lease_when_applied["MutatingAdmissionPolicyBinding"] is True
    assert result["changes"][-2:] == [f"MutatingAdmissionPolicy {NAME}-routing", f"MutatingAdmissionPolicyBinding {NAME}-routing"]
    assert not engine.converge(kube, routed_params())["changed"]


def test_routing_is_not_applied_when_the_scheduler_does_not_lead():
    kube = SharedKube()
    kube.pod_behaviour = "crash"
    with pytest.raises(engine.EngineError):
        engine.converge(kube, routed_params())
    assert ("MutatingAdmissionPolicy", None, f"{NAME}-routing") not in kube.store
    assert ("MutatingAdmissionPolicyBinding", None, f"{NAME}-routing") not in kube.store


def test_routing_turned_off_is_pruned_and_what_the_collection_did_not_make_is_kept():
    kube = SharedKube()
    engine.converge(kube, routed_params())
    other = {"apiVersion": V1, "kind": "MutatingAdmissionPolicy", "metadata": {"name": "someone-elses"}}
    kube.put(other)
    off = dict(params(), prune=refs(routing()) + refs([other]))
    assert engine.converge(kube, off, check_mode=True)["changes"] == DELETED
    assert ("MutatingAdmissionPolicy", None, f"{NAME}-routing") in kube.store
    result = engine.converge(kube, off)
    assert result["changes"] == DELETED
    assert ("MutatingAdmissionPolicy", None, f"{NAME}-routing") not in kube.store
    assert ("MutatingAdmissionPolicy", None, "someone-elses") in kube.store
    assert not engine.converge(kube, off)["changed"]


def pod(name, scheduler, node=None, phase="Pending", namespace="batch"):
    return {
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"schedulerName": scheduler, "nodeName": node},
        "status": {"phase": phase},
    }


def test_remove_deletes_the_routing_before_the_scheduler_and_lists_the_pods_left_waiting():
    kube = SharedKube()
    installed = routed_params()
    installed["objects"][2]["metadata"]["annotations"] = {"kubesched.io/scheduler-profiles": f"{NAME},spread"}
    engine.converge(kube, installed)
    for waiting in (
        pod("job-1", NAME),
        pod("job-2", "spread", namespace="other"),
        pod("placed", NAME, node="kubesched-worker2", phase="Running"),
        pod("default", "default-scheduler"),
    ):
        kube.put(waiting)
    kube.deleted.clear()
    removal = params("absent")
    removal["objects"] = removal["objects"] + refs(routing())
    result = engine.remove(kube, removal)
    order = [key[0] for key in kube.deleted if key[0] != "Pod"]
    assert order[:3] == ["MutatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "Deployment"]
    assert result["pending_pods"] == ["batch/job-1", "other/job-2"]
    assert result["warnings"] == [
        f"2 pod(s) still wait for schedulerName {NAME}, spread, which nothing serves now: batch/job-1, other/job-2. Delete them, or "
        "create them again without spec.schedulerName (the default scheduler); a pod's schedulerName cannot be changed."
    ]
    again = engine.remove(kube, removal)
    assert not again["changed"] and again["pending_pods"] == ["batch/job-1"]


def test_the_rest_path_follows_the_objects_api_version():
    assert Kube.path("MutatingAdmissionPolicy", f"{NAME}-routing") == f"/apis/{V1}/mutatingadmissionpolicies/{NAME}-routing"
    assert Kube.path("MutatingAdmissionPolicy", "x", api_version=V1BETA1) == f"/apis/{V1BETA1}/mutatingadmissionpolicies/x"
    assert Kube.path("ServiceAccount", NAME, NS, api_version="v1") == f"/api/v1/namespaces/{NS}/serviceaccounts/{NAME}"
    assert Kube.path("Node") == "/api/v1/nodes"


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
POOL = {"labels": {"kubesched.io/pool": "batch"}, "taint": {"key": "kubesched.io/pool", "value": "batch", "effect": "NoSchedule"}}


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


# --- the inputs that pass --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "given",
    [
        {"kube_scheduler_node_pool": POOL},
        {"kube_scheduler_node_pool": {"labels": {"pool": "batch", "example.com/tier": 2}, "taint": {"key": "pool", "effect": "NoExecute"}}},
        {"kube_scheduler_node_pool": {"labels": {"pool": "batch"}}, "kube_scheduler_plugin_config": [{"name": "NodeResourcesFit", "args": {}}]},
        {"kube_scheduler_route_namespace_selector": {"matchLabels": {"kubesched.io/scheduler": NAME}}},
        {
            "kube_scheduler_route_namespace_selector": {
                "matchExpressions": [{"key": "team", "operator": "In", "values": ["a", "b"]}, {"key": "x", "operator": "Exists"}]
            }
        },
        {
            "kube_scheduler_route_namespace_selector": {"matchLabels": {"team": "a"}},
            "kube_scheduler_render_dir": "/srv/out",
            "kube_scheduler_cluster_version": "1.34",
        },
        {"kube_scheduler_route_namespace_selector": {"matchLabels": {}}, "kube_scheduler_node_pool": {"labels": {}}},
        {"kube_scheduler_state": "absent", "kube_scheduler_node_pool": {"labels": {"bad key!": "x"}}},
    ],
)
def test_good_sharing_input_passes(given):
    validated = ArgumentSpecValidator(SPEC).validate(role_values(given), validate_role_argument_spec=True)
    assert validated.error_messages == []
    assert inputs.check_sharing(validated.validated_parameters) == []
    assert inputs.check_sharing(role_values(given)) == []


class Forbidden(SharedKube):
    """A user who may not list nodes nor pods in all namespaces."""

    def list(self, kind, namespace=None, label_selector=None, field_selector=None):
        if kind == "Node" or (kind == "Pod" and namespace is None):
            self.requests += 1
            raise KubeError(403, "Forbidden", json.dumps({"message": f"{kind.lower()}s is forbidden"}))
        return super().list(kind, namespace, label_selector, field_selector)


def test_a_user_who_may_not_list_nodes_gets_a_warning(monkeypatch):
    kube = Forbidden()
    monkeypatch.setattr(preflight_checks, "Kube", lambda api: kube)
    result = preflight_checks.preflight(lambda: None, preflight_params(node_pool=POOL))
    assert result["node_pool_nodes"] == []
    assert result["warnings"] == [
        "Could not list the nodes of kube_scheduler_node_pool ((403) Forbidden: nodes is forbidden): their labels and taint were not checked."
    ]


def test_a_user_who_may_not_list_pods_everywhere_still_removes_it():
    kube = Forbidden()
    engine.converge(kube, params())
    result = engine.remove(kube, params("absent"))
    assert ("Deployment", NS, NAME) not in kube.store and result["pending_pods"] == []
    assert result["warnings"] == [f"Removed, but could not list the pods left waiting for schedulerName {NAME}: (403) Forbidden: pods is forbidden."]
