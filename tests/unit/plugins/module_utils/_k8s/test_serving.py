# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests of module_utils/_k8s/serving.py: what serves a schedulerName, from the recorded Leases and Deployments
(fixtures/placement)."""

from __future__ import annotations

from datetime import datetime, timezone

from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s import serving


def test_scheduler_presence_from_leases_and_deployments(items):
    now = datetime(2025, 11, 29, 19, 42, 20, tzinfo=timezone.utc)  # 8s after the Lease was renewed for 15s
    presence = serving.scheduler_presence(["my-scheduler", "ghost-scheduler"], items("leases.json"), items("deployments.json"), now=now)
    assert presence["ghost-scheduler"] == []
    assert presence["my-scheduler"] == [
        {
            "kind": "Lease",
            "running": True,
            "text": "Lease kubesched-system/my-scheduler held by my-scheduler-6c8f7d9b5-x2l4q_8e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b"
            " (renewed 2025-11-29T19:42:12.009381Z)",
        },
        {"kind": "Deployment", "running": True, "text": "Deployment kubesched-system/my-scheduler (1/1 ready)"},
    ]


def test_node_leases_do_not_count():
    lease = {"metadata": {"name": "ghost-scheduler", "namespace": "kube-node-lease"}, "spec": {"holderIdentity": "ghost-scheduler"}}
    assert serving.scheduler_presence(["ghost-scheduler"], [lease], []) == {"ghost-scheduler": []}
