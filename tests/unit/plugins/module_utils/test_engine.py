# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The deploy engine against an in-memory API server whose Deployment controller the tests script."""

from __future__ import annotations

import copy

import pytest

from ansible_collections.kubesched.scheduler.plugins.module_utils import engine
from ansible_collections.kubesched.scheduler.plugins.module_utils import lock as lock_rbac
from ansible_collections.kubesched.scheduler.plugins.module_utils import trial as config_trial
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s import waiter
from ansible_collections.kubesched.scheduler.plugins.module_utils.kube import MANAGER, content

NAME, NS = "my-scheduler", "kube-system"
LABELS = {"app.kubernetes.io/name": NAME, "app.kubernetes.io/managed-by": MANAGER, "kubesched.io/scheduler-name": NAME}


def deployment(template="aaaa", image="localhost:5001/my-scheduler:v1.37.2", replicas=1):
    pod_labels = dict(LABELS, **{"kubesched.io/pod-template": template})
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": NAME, "namespace": NS, "labels": dict(LABELS)},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app.kubernetes.io/name": NAME, "kubesched.io/scheduler-name": NAME}},
            "template": {
                "metadata": {"labels": pod_labels},
                "spec": {
                    "serviceAccountName": NAME,
                    "containers": [{"name": "kube-second-scheduler", "image": image, "command": ["kube-scheduler", "--config=/etc/x.yaml"],
                                    "readinessProbe": {"httpGet": {"port": 10259}}, "startupProbe": {"httpGet": {"port": 10259}}}],
                    "volumes": [{"name": "config-volume", "configMap": {"name": f"{NAME}-config"}}],
                },
            },
        },
    }


def objects(template="aaaa", config="profiles: []", **kwargs):
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": NAME, "namespace": NS, "labels": dict(LABELS)}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"{NAME}-config", "namespace": NS, "labels": dict(LABELS)},
         "data": {f"{NAME}-config.yaml": config}},
        deployment(template, **kwargs),
    ]


def lock(mode="patch", leader_elect=True):
    return {
        "leader_elect": leader_elect, "lock_name": NAME, "lock_namespace": NS, "mode": mode, "clusterrole": "system:kube-scheduler",
        "binding": {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                    "metadata": {"name": f"{NAME}-as-kube-scheduler", "labels": dict(LABELS)},
                    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                "name": "system:kube-scheduler" if mode == "patch" else f"{NAME}-scheduler"},
                    "subjects": [{"kind": "ServiceAccount", "name": NAME, "namespace": NS}]},
        "dedicated": {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                      "metadata": {"name": f"{NAME}-scheduler", "labels": dict(LABELS)}, "rules": []},
        "namespace": None,
    }


def params(state="present", **kwargs):
    return {"state": state, "objects": objects(**kwargs), "lock": lock(), "wait_timeout": 20, "hint": "Correct it."}


class FakeKube:
    """An API server in memory. ``controller(kube)`` runs on every read, standing in for kube-controller-manager,
    the kubelet and the scheduler's own election; ``trial_outcome`` is what the trial pod does."""

    def __init__(self, trial="Succeeded"):
        self.store = {}
        self.rv = 0
        self.requests = 0
        self.api = None
        self.manager = MANAGER
        self.trial = trial
        self.applied = []
        self.deleted = []
        self.pod_behaviour = "ready"
        self.logs = {}
        self.put({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})

    def put(self, obj):
        self.rv += 1
        obj = copy.deepcopy(obj)
        meta = obj["metadata"]
        meta["resourceVersion"] = str(self.rv)
        self.store[(obj["kind"], meta.get("namespace"), meta["name"])] = obj
        return obj

    # the controllers
    def reconcile(self):
        d = self.store.get(("Deployment", NS, NAME))
        if d:
            template = d["spec"]["template"]["metadata"]["labels"]["kubesched.io/pod-template"]
            pod_name = f"{NAME}-{template[:8]}-abcde"
            if ("Pod", NS, pod_name) not in self.store:
                for key in [k for k in self.store if k[0] == "Pod" and k[2].startswith(NAME + "-") and not k[2].endswith("-trial")]:
                    if self.pod_behaviour == "ready" or self.store[key]["metadata"]["labels"]["kubesched.io/pod-template"] == template:
                        del self.store[key]
                status = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
                          "containerStatuses": [{"restartCount": 0, "state": {"running": {}}}]}
                if self.pod_behaviour == "crash":
                    status = {"phase": "Running", "conditions": [{"type": "Ready", "status": "False", "message": "not ready"}],
                              "containerStatuses": [{"restartCount": 2, "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off"}}}]}
                self.put({"kind": "Pod", "metadata": {"name": pod_name, "namespace": NS, "labels": d["spec"]["template"]["metadata"]["labels"]},
                          "status": status})
                self.logs[pod_name] = "E flag provided but not defined: -bogus\n"
            live = [k for k in self.store if k[0] == "Pod" and k[2].startswith(NAME + "-") and not k[2].endswith("-trial")]
            replicas = d["spec"]["replicas"]
            d["status"] = {"observedGeneration": d["metadata"].get("generation", 1), "replicas": len(live), "updatedReplicas": replicas,
                           "availableReplicas": replicas if self.pod_behaviour == "ready" else 0, "readyReplicas": replicas}
            if self.pod_behaviour == "ready":
                lease = {"kind": "Lease", "metadata": {"name": NAME, "namespace": NS, "resourceVersion": "1"}}
                self.store[("Lease", NS, NAME)] = dict(lease, spec={"holderIdentity": pod_name + "_0f3c2a9e"})
        trial = self.store.get(("Pod", NS, f"{NAME}-trial"))
        if trial and "status" not in trial:
            if self.trial == "Succeeded":
                trial["status"] = {"phase": "Succeeded", "containerStatuses": [{"state": {"terminated": {"reason": "Completed"}}}]}
            elif self.trial == "StartError":
                trial["status"] = {"phase": "Failed", "containerStatuses": [{"state": {"terminated": {
                    "reason": "StartError", "message": "exec: \"/no/such\": no such file"}}}]}
                self.logs[f"{NAME}-trial"] = ""
            else:
                trial["status"] = {"phase": "Failed", "containerStatuses": [{"state": {"terminated": {"reason": "Error", "exitCode": 1}}}]}
                self.logs[f"{NAME}-trial"] = 'E0101 run.go:72] "command failed" err="NoSuchPlugin does not exist"\n'

    # the API
    def get(self, kind, name, namespace=None, api_version=None):
        self.requests += 1
        self.reconcile()
        if kind == "ClusterRole" and name == "system:kube-scheduler":
            return None
        return copy.deepcopy(self.store.get((kind, namespace, name)))

    def list(self, kind, namespace=None, label_selector=None, field_selector=None):
        self.requests += 1
        self.reconcile()
        wanted = dict(part.split("=", 1) for part in (label_selector or "").split(",") if part)
        fields = dict(part.split("=", 1) for part in (field_selector or "").split(",") if part)
        return [copy.deepcopy(o) for (k, ns, dummy), o in sorted(self.store.items(), key=lambda item: str(item[0]))
                if k == kind and (namespace is None or ns == namespace)
                and all((o["metadata"].get("labels") or {}).get(a) == b for a, b in wanted.items())
                and all(self.field(o, path) == value for path, value in fields.items())]

    @staticmethod
    def field(obj, path):
        """A field selector's field of an object (``spec.nodeName``), '' when it is not set."""
        for part in path.split("."):
            obj = (obj or {}).get(part)
        return obj or ""

    def apply(self, obj, dry_run=False):
        self.requests += 1
        key = (obj["kind"], obj["metadata"].get("namespace"), obj["metadata"]["name"])
        before = self.store.get(key)
        merged = copy.deepcopy(obj)
        if before is not None and content(before) == content(dict(merged, metadata=dict(before["metadata"], **merged["metadata"]))):
            return copy.deepcopy(before)
        if dry_run:
            return merged
        self.applied.append(key)
        if before is not None and "status" in before:
            merged["status"] = before["status"]
        if obj["kind"] == "Deployment":
            merged["metadata"]["generation"] = (before or {}).get("metadata", {}).get("generation", 0) + 1
        return self.put(merged)

    def delete(self, kind, name, namespace=None, propagation=None, grace_period=None, dry_run=False, api_version=None):
        self.requests += 1
        key = (kind, namespace, name)
        if key not in self.store:
            return False
        self.deleted.append(key)
        del self.store[key]
        if kind == "Deployment":
            for pod in [k for k in self.store if k[0] == "Pod" and k[2].startswith(NAME + "-")]:
                del self.store[pod]
        return True

    def log(self, name, namespace, previous=False, tail_lines=20):
        self.requests += 1
        return self.logs.get(name, "")


@pytest.fixture
def fast(monkeypatch):
    """A clock that jumps by each sleep, and the patch of system:kube-scheduler stubbed (it has its own tests)."""
    now = [0.0]
    monkeypatch.setattr(engine, "monotonic", lambda: now[0])
    monkeypatch.setattr(waiter, "monotonic", lambda: now[0])
    monkeypatch.setattr(waiter, "sleep", lambda seconds: now.__setitem__(0, now[0] + seconds))
    monkeypatch.setattr(lock_rbac.clusterrole, "run", lambda connect, p, check_mode=False: {"changed": False, "attempts": 1})
    return now


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


@pytest.mark.parametrize(
    "holder, held",
    [
        ("my-scheduler-6d8f9c7b5-x2x4q_0f3c", True),
        ("my-scheduler-x2x4q_0f3c", False),
        ("my-scheduler-other-6d8f9c7b5-x2x4q", False),
        ("another-scheduler-6d8f9c7b5-x2x4q_0f3c", False),
        ("", False),
    ],
)
def test_lease_holder_rule(holder, held):
    assert engine.held_by(holder, NAME) is held


def test_trial_pod_never_connects_and_mounts_its_own_configmap():
    cm = objects()[1]
    trial_cm, pod = config_trial.trial_objects(deployment(), cm)
    container = pod["spec"]["containers"][0]
    assert "--master=https://127.0.0.1:9" in container["command"]
    assert not {"readinessProbe", "startupProbe", "livenessProbe"} & container.keys()
    assert pod["spec"]["restartPolicy"] == "Never" and pod["spec"]["automountServiceAccountToken"] is False
    assert "serviceAccountName" not in pod["spec"]
    assert pod["spec"]["volumes"] == [{"name": "config-volume", "configMap": {"name": f"{NAME}-trial"}}]
    assert trial_cm["data"] == cm["data"] and "kubesched.io/pod-template" not in pod["metadata"]["labels"]


class TrialKube(FakeKube):
    """FakeKube that records the Pods applied."""

    def __init__(self):
        super().__init__()
        self.pods_applied = []

    def apply(self, obj, dry_run=False):
        if obj["kind"] == "Pod":
            self.pods_applied.append(obj)
        return super().apply(obj, dry_run)


def trial_pod(kube, class_name):
    """The trial Pod of an update whose pods name the PriorityClass ``class_name``."""
    engine.converge(kube, params())
    run = params(template="bbbb")
    run["objects"][-1]["spec"]["template"]["spec"]["priorityClassName"] = class_name
    engine.converge(kube, run)
    return next(pod for pod in kube.pods_applied if pod["metadata"]["name"] == f"{NAME}-trial")


def test_the_trial_leaves_out_a_priority_class_the_run_creates_after_it(fast):
    assert "priorityClassName" not in trial_pod(TrialKube(), f"{NAME}-critical")["spec"]


def test_the_trial_keeps_a_priority_class_that_exists(fast):
    """So that an API server refusing the class in this namespace (a ResourceQuota's limitedResources) refuses the trial."""
    kube = TrialKube()
    kube.put({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "system-cluster-critical"}, "value": 2000000000})
    assert trial_pod(kube, "system-cluster-critical")["spec"]["priorityClassName"] == "system-cluster-critical"


def test_rolled_out():
    d = deployment()
    d["metadata"]["generation"] = 2
    d["status"] = {"observedGeneration": 2, "replicas": 1, "updatedReplicas": 1, "availableReplicas": 1}
    assert engine.rolled_out(d)
    d["status"]["replicas"] = 2  # an old pod is still there
    assert not engine.rolled_out(d)
    d["status"].update(replicas=1, observedGeneration=1)
    assert not engine.rolled_out(d)


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
    pod = {"metadata": {"name": "p"}, "status": {"phase": "Running", "conditions": [
        {"type": "Ready", "status": "False", "message": unready}, {"type": "ContainersReady", "status": "False", "message": unready}]}}
    assert engine.pod_states([pod]) == [f"p Running {unready}"]
