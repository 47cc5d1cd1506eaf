# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fake API server of the scheduler_info tests (test_inventory.py, test_inventory_gather.py, _k8s/test_client.py,
modules/test_scheduler_info.py): lists answered in pages, with objects recorded from the kind cluster of `make cluster`
(plugins/fixtures/inventory, read with `kubectl get -o json` and trimmed to the fields the module reads), its
fixtures, and the hand-made objects the tests add to it: a Deployment of two profiles, a scheduler installed by hand,
Leases, pods asking for a schedulerName.

A test module uses a fixture by binding it (``clock = inventory_fakes.clock``); its ``clock`` overrides the conftest's."""

from __future__ import annotations

import copy
import json
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import quote

import pytest

from ansible_collections.kubesched.scheduler.plugins.module_utils import inventory_gather
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s import client
from ansible_collections.kubesched.scheduler.plugins.module_utils.kube import Kube

FIXTURES = Path(__file__).resolve().parents[1] / "plugins" / "fixtures" / "inventory"
PODS = "/api/v1/pods"
LEASES = "/apis/coordination.k8s.io/v1/leases"
DEPLOYMENTS = "/apis/apps/v1/deployments"
STATIC = "kube-scheduler-kubesched-control-plane"
IMAGE = "registry.k8s.io/kube-scheduler:v1.37.2"
NODE = "kubesched-control-plane"


def recorded(name):
    return json.loads((FIXTURES / name).read_text())["items"]


def renewed(lease):
    return datetime.fromisoformat(lease["spec"]["renewTime"].replace("Z", "+00:00"))


def named(items, name, namespace=None):
    return next(item for item in items if item["metadata"]["name"] == name and (namespace is None or item["metadata"]["namespace"] == namespace))


# --- the fake API server ---------------------------------------------------------------------


def _selected(obj, label_selector, field_selector):
    metadata = obj["metadata"]
    labels = metadata.get("labels") or {}
    for part in filter(None, (label_selector or "").split(",")):
        key, equals, value = part.partition("=")
        if key not in labels or (equals and labels[key] != value):
            return False
    for part in filter(None, (field_selector or "").split(",")):
        if "!=" in part:
            field, value = part.split("!=", 1)
            if metadata[field.removeprefix("metadata.")] == value:
                return False
        else:
            field, value = part.split("=", 1)
            if metadata[field.removeprefix("metadata.")] != value:
                return False
    return True


class FakeCluster:
    """The API server's side: lists of pods, Leases and Deployments (all namespaces, or one namespace's pods),
    filtered by label and field selectors and served in pages of ``limit``; GETs of ConfigMaps and ReplicaSets.

    The continue token of the page that starts at item N is ``<path>@N``; a token of ``expire`` is answered 410
    Gone as many times as it is listed there. A path of ``forbidden`` is answered 403.
    """

    def __init__(self, pods=(), leases=(), deployments=(), configmaps=(), replicasets=(), clusterroles=(), expire=(), forbidden=()):
        self.objects = {"pods": list(pods), "leases": list(leases), "deployments": list(deployments), "clusterroles": list(clusterroles)}
        self.gets = {}
        for prefix, plural, items in (("/api/v1", "configmaps", configmaps), ("/apis/apps/v1", "replicasets", replicasets)):
            for item in items:
                self.gets[f"{prefix}/namespaces/{item['metadata']['namespace']}/{plural}/{item['metadata']['name']}"] = item
        for item in clusterroles:  # by name, as the path is sent and as it is read
            for name in (item["metadata"]["name"], quote(item["metadata"]["name"], safe="")):
                self.gets[f"/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}"] = item
        self.expired = Counter(expire)
        self.forbidden = set(forbidden)

    @staticmethod
    def status(code, reason, message):
        return code, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": reason, "code": code, "message": message}

    def __call__(self, method, path, query, body):
        assert method == "GET", "scheduler_info is read-only"
        if path in self.forbidden:
            return self.status(403, "Forbidden", f"{path} is forbidden: User cannot list it")
        if path in self.gets:
            return 200, self.gets[path]
        parts = path.strip("/").split("/")
        plural, namespace = parts[-1], None
        if len(parts) >= 4 and parts[-3] == "namespaces":
            namespace = parts[-2]
        if plural not in self.objects:
            return self.status(404, "NotFound", f"{path} not found")
        items = [item for item in self.objects[plural] if namespace is None or item["metadata"].get("namespace") == namespace]
        items = [item for item in items if _selected(item, query.get("labelSelector"), query.get("fieldSelector"))]
        token = query.get("continue")
        if self.expired[token]:
            self.expired[token] -= 1
            return self.status(410, "Expired", "The provided continue parameter is too old to display a consistent list result.")
        start = int(token.rsplit("@", 1)[1]) if token else 0
        end = start + int(query["limit"])
        metadata = {"resourceVersion": "2041"}
        if end < len(items):
            metadata["continue"] = f"{path}@{end}"
        return 200, {"kind": "List", "apiVersion": "v1", "metadata": metadata, "items": copy.deepcopy(items[start:end])}


@pytest.fixture
def kind_cluster():
    """The recorded kind cluster: its kube-system pods and its Leases (kube-node-lease's included)."""
    return {"pods": recorded("kube-system-pods.json"), "leases": recorded("leases.json")}


@pytest.fixture
def clock(monkeypatch, kind_cluster):
    """This host's clock, 3 seconds after the default scheduler's last renewal; ``clock.set(moment)`` moves it."""

    class Clock:
        now = renewed(named(kind_cluster["leases"], "kube-scheduler")) + timedelta(seconds=3)

        def set(self, moment):
            self.now = moment

    fake = Clock()
    monkeypatch.setattr(client, "utc_now", lambda: fake.now)
    return fake


@pytest.fixture
def serve(kube_api, clock):
    """``serve(**objects)`` -> (Kube over a real ApiClient answered by a FakeCluster, the pool's requests)."""

    def build(**objects):
        api, pool = kube_api(FakeCluster(**objects))
        return Kube(api), pool.requests

    return build


def gather(serve, namespace=None, page_size=500, **objects):
    kube, requests = serve(**objects)
    result = inventory_gather.gather(kube, namespace, page_size)
    return result, requests, kube.requests


# --- a Deployment with two profiles, and pods asking for them --------------------------------------


CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: true
  resourceLock: leases
  resourceName: my-scheduler
  resourceNamespace: kube-system
profiles:
  - schedulerName: my-scheduler
  - schedulerName: my-scheduler-batch
    plugins:
      score:
        disabled:
          - name: NodeResourcesBalancedAllocation
"""
DIGEST = "sha256:" + "4f" * 32
HOLDER = "my-scheduler-6c8f7d9b5-x2l4q"


def deployment(name="my-scheduler", namespace="kube-system", ready=1, profiles="my-scheduler,my-scheduler-batch", lease="kube-system/my-scheduler"):
    """A Deployment as the deploy role makes it (labels, annotations, the ConfigMap volume of its configuration)."""
    annotations = {"kubesched.io/scheduler-profiles": profiles}
    if lease:
        annotations["kubesched.io/scheduler-lease"] = lease
    return {
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"app.kubernetes.io/managed-by": "kubesched.scheduler", "kubesched.io/scheduler-name": name, "component": "scheduler"},
            "annotations": annotations,
        },
        "spec": {
            "replicas": 1,
            "template": {
                "spec": {
                    "serviceAccountName": name,
                    "containers": [
                        {
                            "name": "kube-second-scheduler",
                            "image": f"localhost:5001/{name}:v1.37.2@{DIGEST}",
                            "command": ["kube-scheduler", f"--config=/etc/kubernetes/{name}/{name}-config.yaml", "--v=2"],
                            "volumeMounts": [{"name": "config-volume", "mountPath": f"/etc/kubernetes/{name}", "readOnly": True}],
                        }
                    ],
                    "volumes": [{"name": "config-volume", "configMap": {"name": f"{name}-config"}}],
                }
            },
        },
        "status": {"replicas": 1, "readyReplicas": ready} if ready else {"replicas": 1},
    }


def configmap(name="my-scheduler", namespace="kube-system", config=CONFIG):
    return {"metadata": {"name": f"{name}-config", "namespace": namespace}, "data": {f"{name}-config.yaml": config}}


def scheduler_pod(
    name=HOLDER, namespace="kube-system", node="kubesched-worker", ready=True, owner="my-scheduler-6c8f7d9b5", template_hash="6c8f7d9b5", spec=None
):
    pod = {
        "metadata": {"name": name, "namespace": namespace, "labels": {"pod-template-hash": template_hash}},
        "spec": spec or copy.deepcopy(deployment()["spec"]["template"]["spec"]),
        "status": {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
            "containerStatuses": [{"name": "kube-second-scheduler", "image": "localhost:5001/my-scheduler:v1.37.2", "ready": ready, "restartCount": 1}],
        },
    }
    pod["spec"]["nodeName"] = node
    if owner:
        pod["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": owner, "controller": True}]
    return pod


def lease(name, holder, renew, namespace="kube-system", duration=15):
    return {
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"holderIdentity": holder, "leaseDurationSeconds": duration, "renewTime": renew, "acquireTime": renew, "leaseTransitions": 0},
    }


def time_text(moment):
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def asking(name, scheduler_name, namespace="demo", node=None):
    """A pod of ``namespace`` that asks for ``scheduler_name``, bound to ``node`` or pending."""
    pod = {
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"schedulerName": scheduler_name, "containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10"}]},
        "status": {"phase": "Running" if node else "Pending"},
    }
    if node:
        pod["spec"]["nodeName"] = node
    return pod


# --- a scheduler installed by hand (the Kubernetes task's my-scheduler.yaml) ---------------------------


def task_scheduler(clock, **pod_options):
    """The task's Deployment my-scheduler in kube-system, without this collection's label: its ReplicaSet, its pod
    holding the Lease my-scheduler, and the ConfigMap my-scheduler-config of its one profile."""
    spec = {
        "serviceAccountName": "my-scheduler",
        "containers": [
            {
                "name": "kube-second-scheduler",
                "image": "gcr.io/my-gcp-project/my-kube-scheduler:1.0",
                "command": ["/usr/local/bin/kube-scheduler", "--config=/etc/kubernetes/my-scheduler/my-scheduler-config.yaml"],
                "volumeMounts": [{"name": "config-volume", "mountPath": "/etc/kubernetes/my-scheduler"}],
            }
        ],
        "volumes": [{"name": "config-volume", "configMap": {"name": "my-scheduler-config"}}],
    }
    pod = scheduler_pod(name="my-scheduler-7b9d6c5f4-q8w2e", owner="my-scheduler-7b9d6c5f4", template_hash="7b9d6c5f4", spec=spec, **pod_options)
    pod["status"]["containerStatuses"][0]["image"] = "gcr.io/my-gcp-project/my-kube-scheduler:1.0"
    config = (
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "profiles:\n  - schedulerName: my-scheduler\n"
        "leaderElection:\n  leaderElect: true\n  resourceName: my-scheduler\n  resourceNamespace: kube-system\n"
    )
    replicaset = {
        "metadata": {
            "name": "my-scheduler-7b9d6c5f4",
            "namespace": "kube-system",
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "my-scheduler", "controller": True}],
        }
    }
    held = lease("my-scheduler", "my-scheduler-7b9d6c5f4-q8w2e_5b6c7d8e", time_text(clock.now - timedelta(seconds=1)))
    return pod, held, configmap(config=config), replicaset
