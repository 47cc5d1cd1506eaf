# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The deploy engine's fakes, shared by its tests: the objects the deploy role renders, and FakeKube, an in-memory API
server whose Deployment controller the tests script."""

from __future__ import annotations

import copy

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
