# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The preflight's fakes, shared by its tests: SharedKube (FakeKube with discovery documents and /metrics of the
v1.37.2 kind cluster) and the preflight's parameters."""

from __future__ import annotations

import json
from pathlib import Path

from ansible_collections.kubesched.scheduler.plugins.module_utils.kube import KubeError
from ansible_collections.kubesched.scheduler.tests.unit.utils.engine_fakes import NAME, NS, FakeKube

FIXTURES = Path(__file__).resolve().parents[1] / "plugins" / "fixtures" / "sharing"
V1, V1BETA1 = "admissionregistration.k8s.io/v1", "admissionregistration.k8s.io/v1beta1"
# GET /apis/admissionregistration.k8s.io/v1 of the v1.37.2 kind cluster.
DISCOVERY_137 = json.loads((FIXTURES / "admissionregistration-v1-1.37.json").read_text())
SERVED_137 = [resource["name"] for resource in DISCOVERY_137["resources"]]
GATE_137 = 'kubernetes_feature_enabled{name="MutatingAdmissionPolicy",stage=""} 1'


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
