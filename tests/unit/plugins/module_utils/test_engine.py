# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The deploy engine against an in-memory API server whose Deployment controller the tests script."""

from __future__ import annotations

import copy

import pytest

from ansible_collections.kubesched.scheduler.plugins.module_utils import engine
from ansible_collections.kubesched.scheduler.plugins.module_utils import lock as lock_rbac
from ansible_collections.kubesched.scheduler.plugins.module_utils.kube import MANAGER
from ansible_collections.kubesched.scheduler.tests.unit.utils.preflight_fakes import V1, Forbidden, SharedKube, refs, routing
from ansible_collections.kubesched.scheduler.tests.unit.utils.engine_fakes import LABELS, NAME, NS, FakeKube, deployment, params


def test_first_install_applies_and_waits_for_the_lease_without_a_trial(fast):
    """A first install has no running scheduler to protect: its own pods are the trial."""
    kube = FakeKube()
    result = engine.converge(kube, params())
    assert result["changed"]
    assert "trial" not in result["phases"] and "wait" in result["phases"]
    assert result["lease_holder"].startswith(f"{NAME}-aaaa-abcde_")
    assert ("Deployment", NS, NAME) in kube.applied
    assert ("Pod", NS, f"{NAME}-trial") not in kube.applied


def test_an_update_of_the_pod_template_is_tried_first(fast):
    kube = FakeKube()
    engine.converge(kube, params())
    result = engine.converge(kube, params(template="bbbb", config="profiles: [other]"))
    assert "trial" in result["phases"] and result["changed"]
    assert ("Pod", NS, f"{NAME}-trial") in kube.applied
    assert ("Pod", NS, f"{NAME}-trial") not in kube.store and ("ConfigMap", NS, f"{NAME}-trial") not in kube.store


def test_second_run_changes_nothing_and_runs_no_trial(fast):
    kube = FakeKube()
    engine.converge(kube, params())
    kube.applied.clear()
    result = engine.converge(kube, params())
    assert not result["changed"], result["changes"]
    assert "trial" not in result["phases"]
    assert kube.applied == []


def test_check_mode_changes_nothing(fast):
    kube = FakeKube()
    before = copy.deepcopy(kube.store)
    result = engine.converge(kube, params(), check_mode=True, diff=True)
    assert result["changed"] and result["diff"]
    assert kube.store == before


@pytest.mark.parametrize(
    "trial, said",
    [("StartError", "did not accept the configuration, or did not start (StartError: exec"), ("Error", "It said: E0101 run.go:72")],
)
def test_a_refused_trial_changes_nothing(fast, trial, said):
    kube = FakeKube()
    engine.converge(kube, params())
    kube.trial = trial
    kube.applied.clear()
    with pytest.raises(engine.EngineError) as failed:
        engine.converge(kube, params(template="bbbb", config="profiles: [bad]"))
    assert said in failed.value.msg and "Nothing was changed. Correct it." in failed.value.msg
    assert kube.applied == [("ConfigMap", NS, f"{NAME}-trial"), ("Pod", NS, f"{NAME}-trial")]
    assert kube.store[("ConfigMap", NS, f"{NAME}-config")]["data"][f"{NAME}-config.yaml"] == "profiles: []"


def test_pods_that_do_not_start_are_rolled_back(fast):
    kube = FakeKube()
    engine.converge(kube, params())
    kube.pod_behaviour = "crash"
    with pytest.raises(engine.EngineError) as failed:
        engine.converge(kube, params(template="cccc", config="profiles: [other]"))
    msg = failed.value.msg
    assert "fail (CrashLoopBackOff, restarts: 2)" in msg
    assert "Log: E flag provided but not defined: -bogus" in msg
    assert "Rolled back: the ConfigMap and the Deployment are as they were before this run" in msg
    assert failed.value.result["rolled_back"]
    assert kube.store[("Deployment", NS, NAME)]["spec"]["template"]["metadata"]["labels"]["kubesched.io/pod-template"] == "aaaa"
    assert kube.store[("ConfigMap", NS, f"{NAME}-config")]["data"][f"{NAME}-config.yaml"] == "profiles: []"


def test_a_first_install_that_fails_removes_what_it_created(fast, monkeypatch):
    """Like helm install --atomic: the objects it created, newest first, and the lock it granted; not what was there."""
    kube = FakeKube()
    kube.put({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": NAME, "namespace": NS, "labels": dict(LABELS)}})
    granted = []
    monkeypatch.setattr(lock_rbac.clusterrole, "run", lambda connect, p, check_mode=False: granted.append(p["state"]) or {"changed": p["state"] == "present"})
    before = {key for key in kube.store if key[0] != "Pod"}
    kube.pod_behaviour = "crash"
    with pytest.raises(engine.EngineError) as failed:
        engine.converge(kube, params())
    msg = failed.value.msg
    assert "fail (CrashLoopBackOff, restarts: 2)" in msg and "Log: E flag provided but not defined: -bogus" in msg
    assert f"This was the first install: what it created is removed again (Deployment {NS}/{NAME}, ConfigMap {NS}/{NAME}-config" in msg
    assert "the cluster is as it was before this run. Correct it." in msg
    assert failed.value.result["rolled_back"]
    assert {key for key in kube.store if key[0] != "Pod"} == before
    assert granted == ["present", "absent"]
    assert [key[0] for key in kube.deleted if key[0] != "Pod"][:3] == ["Deployment", "ConfigMap", "ClusterRoleBinding"]


def test_objects_made_by_hand_are_refused_before_anything_changes(fast):
    kube = FakeKube()
    hand = deployment()
    hand["metadata"]["labels"] = {"app": NAME}
    kube.put(hand)
    kube.put({"kind": "ServiceAccount", "metadata": {"name": NAME, "namespace": NS}})
    with pytest.raises(engine.EngineError) as failed:
        engine.converge(kube, params())
    assert f"ServiceAccount {NS}/{NAME}, Deployment {NS}/{NAME} already exist and were not made by this collection" in failed.value.msg
    assert "kubectl delete" in failed.value.msg
    assert kube.applied == []


def test_remove_deletes_newest_first_and_the_lease_of_its_pods(fast):
    kube = FakeKube()
    engine.converge(kube, params())
    kube.deleted.clear()
    result = engine.remove(kube, params("absent"))
    kinds = [key[0] for key in kube.deleted if key[0] != "Pod"]
    assert kinds[:3] == ["Deployment", "ConfigMap", "ServiceAccount"]
    assert ("Lease", NS, NAME) in kube.deleted
    assert result["changed"]
    assert not engine.remove(kube, params("absent"))["changed"]


def test_remove_keeps_a_lease_another_scheduler_holds(fast):
    kube = FakeKube()
    kube.put({"kind": "Lease", "metadata": {"name": NAME, "namespace": NS}, "spec": {"holderIdentity": "other-6d8f9c7b5-x2x4q_1"}})
    engine.remove(kube, params("absent"))
    assert ("Lease", NS, NAME) in kube.store


def test_objects_made_by_hand_are_taken_over_when_adopt_is_set(fast):
    kube = FakeKube()
    hand = deployment()
    hand["metadata"].update(labels={"component": "scheduler"}, uid="old-uid")
    hand["spec"]["selector"] = {"matchLabels": {"component": "scheduler", "tier": "control-plane"}}
    kube.put(hand)
    kube.put({"kind": "ReplicaSet", "metadata": {"name": f"{NAME}-5d9c", "namespace": NS, "ownerReferences": [{"uid": "old-uid"}]}})
    result = engine.converge(kube, dict(params(), adopt=True))
    assert result["adopted"] == [f"Deployment {NS}/{NAME}"]
    assert any("replaced (selector" in change for change in result["changes"])
    assert kube.store[("Deployment", NS, NAME)]["metadata"]["labels"]["app.kubernetes.io/managed-by"] == MANAGER
    assert ("ReplicaSet", NS, f"{NAME}-5d9c") in kube.deleted
    assert result["lease_holder"].startswith(f"{NAME}-aaaa-abcde_")
    assert not engine.converge(kube, dict(params(), adopt=True))["changed"]


def test_pod_states_say_a_message_once():
    unready = "containers with unready status: [kube-second-scheduler]"
    pod = {
        "metadata": {"name": "p"},
        "status": {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "False", "message": unready}, {"type": "ContainersReady", "status": "False", "message": unready}],
        },
    }
    assert engine.pod_states([pod]) == [f"p Running {unready}"]


# --- sharing the nodes: the routing and the pods left waiting (the preflight's part is in test_preflight.py) ----------

DELETED = [f"MutatingAdmissionPolicy {NAME}-routing deleted", f"MutatingAdmissionPolicyBinding {NAME}-routing deleted"]


def routed_params(**kwargs):
    base = params(**kwargs)
    base["objects"] = base["objects"] + routing()
    return base


@pytest.mark.usefixtures("fast")
def test_routing_is_applied_once_the_scheduler_leads():
    kube = SharedKube()
    result = engine.converge(kube, routed_params())
    assert kube.lease_when_applied["Deployment"] is False
    assert kube.lease_when_applied["MutatingAdmissionPolicy"] is True
    assert kube.lease_when_applied["MutatingAdmissionPolicyBinding"] is True
    assert result["changes"][-2:] == [f"MutatingAdmissionPolicy {NAME}-routing", f"MutatingAdmissionPolicyBinding {NAME}-routing"]
    assert not engine.converge(kube, routed_params())["changed"]


@pytest.mark.usefixtures("fast")
def test_routing_is_not_applied_when_the_scheduler_does_not_lead():
    kube = SharedKube()
    kube.pod_behaviour = "crash"
    with pytest.raises(engine.EngineError):
        engine.converge(kube, routed_params())
    assert ("MutatingAdmissionPolicy", None, f"{NAME}-routing") not in kube.store
    assert ("MutatingAdmissionPolicyBinding", None, f"{NAME}-routing") not in kube.store


@pytest.mark.usefixtures("fast")
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


@pytest.mark.usefixtures("fast")
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


@pytest.mark.usefixtures("fast")
def test_a_user_who_may_not_list_pods_everywhere_still_removes_it():
    kube = Forbidden()
    engine.converge(kube, params())
    result = engine.remove(kube, params("absent"))
    assert ("Deployment", NS, NAME) not in kube.store and result["pending_pods"] == []
    assert result["warnings"] == [f"Removed, but could not list the pods left waiting for schedulerName {NAME}: (403) Forbidden: pods is forbidden."]
