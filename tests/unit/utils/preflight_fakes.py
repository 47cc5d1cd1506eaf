# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The preflight's fakes, shared by its tests: SharedKube (FakeKube with discovery documents and /metrics of the
v1.37.2 kind cluster) and the preflight's parameters."""

from __future__ import annotations

import json
from pathlib import Path

from ansible_collections.kubesched.scheduler.plugins.module_utils.kube import KubeError
from ansible_collections.kubesched.scheduler.tests.unit.utils.engine_fakes import LABELS, NAME, NS, FakeKube

FIXTURES = Path(__file__).resolve().parents[1] / "plugins" / "fixtures" / "sharing"
V1, V1BETA1 = "admissionregistration.k8s.io/v1", "admissionregistration.k8s.io/v1beta1"
# GET /apis/admissionregistration.k8s.io/v1 of the v1.37.2 kind cluster.
DISCOVERY_137 = json.loads((FIXTURES / "admissionregistration-v1-1.37.json").read_text())
SERVED_137 = [resource["name"] for resource in DISCOVERY_137["resources"]]
# kube_scheduler_node_pool of the kind cluster whose kubesched-worker2 was the pool (labelled and tainted kubesched.io/pool=batch).
POOL = {"labels": {"kubesched.io/pool": "batch"}, "taint": {"key": "kubesched.io/pool", "value": "batch", "effect": "NoSchedule"}}
GATE_137 = 'kubernetes_feature_enabled{name="MutatingAdmissionPolicy",stage=""} 1'


def routing(api_version=V1):
    """The routing's two objects, as the deploy role renders them (names and labels; the spec does not matter here)."""
    meta = {"name": f"{NAME}-routing", "labels": dict(LABELS)}
    return [
        {"apiVersion": api_version, "kind": "MutatingAdmissionPolicy", "metadata": dict(meta), "spec": {"failurePolicy": "Fail"}},
        {"apiVersion": api_version, "kind": "MutatingAdmissionPolicyBinding", "metadata": dict(meta), "spec": {"policyName": f"{NAME}-routing"}},
    ]


def refs(objs):
    return [{"apiVersion": obj["apiVersion"], "kind": obj["kind"], "metadata": {"name": obj["metadata"]["name"]}} for obj in objs]


class SharedKube(FakeKube):
    """FakeKube that remembers, for each object applied, whether the scheduler's Lease existed then; serves discovery
    documents and /metrics."""

    def __init__(self, served=None, metrics=GATE_137, **kwargs):
        super().__init__(**kwargs)
        self.lease_when_applied = {}
        self.served = served if served is not None else {V1: SERVED_137}
        self.metrics = metrics

    def apply(self, obj, dry_run=False):
        if not dry_run:
            self.lease_when_applied[obj["kind"]] = ("Lease", NS, NAME) in self.store
        return super().apply(obj, dry_run)

    def resources(self, api_version):
        self.requests += 1
        return list(self.served.get(api_version, []))

    def request(self, method, path, query=None, body=None, content_type="application/json", raw=False):
        self.requests += 1
        if path == "/metrics" and self.metrics is not None:
            return f"# TYPE kubernetes_feature_enabled gauge\n{self.metrics}\n"
        raise KubeError(403, "Forbidden", "{}")

    def version(self):
        self.requests += 1
        return "v1.37.2"


def preflight_params(**kwargs):
    return dict(
        {
            "state": "present",
            "name": NAME,
            "namespace": NS,
            "lock_name": NAME,
            "lock_namespace": NS,
            "leader_elect": True,
            "lock_namespace_create": False,
            "image": "localhost:5001/my-scheduler",
            "image_tag": "v1.37.2",
            "image_digest": "",
            "image_target": "kind",
            "node_pool": {},
            "route": False,
        },
        **kwargs,
    )


class Forbidden(SharedKube):
    """A user who may not list nodes nor pods in all namespaces."""

    def list(self, kind, namespace=None, label_selector=None, field_selector=None):
        if kind == "Node" or (kind == "Pod" and namespace is None):
            self.requests += 1
            raise KubeError(403, "Forbidden", json.dumps({"message": f"{kind.lower()}s is forbidden"}))
        return super().list(kind, namespace, label_selector, field_selector)
