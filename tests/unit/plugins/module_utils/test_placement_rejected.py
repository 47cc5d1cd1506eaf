# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pods the kubelet rejected after a bind, from the real kind cluster (v1.37.2): on the node kubesched-worker2 (2 CPUs),
the pod ``admitted`` (1200m) was bound by the second scheduler pool-scheduler and runs; then the pod ``rejected`` (1200m),
whose schedulerName nothing serves, was bound through the pods/binding subresource by a second binder, which wrote its
Scheduled event as a scheduler does (reportingController kubesched-second-binder); its kubelet refused it with OutOfcpu
(fixtures/placement/rejected-*.json, the pods with their managedFields)."""

from __future__ import annotations

import pytest

from ansible_collections.kubesched.scheduler.plugins.module_utils import placement
from ansible_collections.kubesched.scheduler.plugins.module_utils import placement_gather

NS = "kubesched-pool-default"
KUBELET = "Pod was rejected: Node didn't have enough resource: cpu, requested: 1200, used: 1210, capacity: 2000"


@pytest.fixture
def rejected(placements, items):
    return placements(items("rejected-pods.json"), items("rejected-events-scheduled.json"))


def records(**kwargs):
    return {record["name"]: record for record in placement_gather.gather(object(), NS, **kwargs)}


def test_the_kubelet_leaves_a_rejected_pod_without_conditions(items):
    pod = next(p for p in items("rejected-pods.json") if p["metadata"]["name"] == "rejected")
    assert pod["status"]["phase"] == "Failed" and "conditions" not in pod["status"]
    assert placement.rejected_by_kubelet(pod)
    assert not placement.node_name_preset(pod)


def test_a_rejected_pod_is_reported_with_its_binder_and_the_kubelets_message(rejected):
    found = records()
    assert found["rejected"]["state"] == "rejected"
    assert found["rejected"]["scheduled"] is True
    assert found["rejected"]["node"] == "kubesched-worker2"
    assert found["rejected"]["scheduled_by"] == "kubesched-second-binder"
    assert found["rejected"]["evidence"] == "event"
    assert (found["rejected"]["reason"], found["rejected"]["message"]) == ("OutOfcpu", KUBELET)
    assert found["admitted"]["state"] == "scheduled"
    assert (found["admitted"]["scheduled_by"], found["admitted"]["evidence"]) == ("pool-scheduler", "event")
    assert (found["admitted"]["reason"], found["admitted"]["message"]) == (None, None)


def test_without_its_event_the_binder_is_the_pods_scheduler_name(placements, items):
    placements(items("rejected-pods.json"))
    found = records()
    assert (found["rejected"]["state"], found["rejected"]["scheduled_by"], found["rejected"]["evidence"]) == ("rejected", "kubesched-second-binder", "pod")


def test_the_summary_counts_the_rejections(rejected):
    summary = placement.summarize(list(records().values()))
    assert (summary["scheduled"], summary["rejected"], summary["by_rejection"]) == (2, 1, {"OutOfcpu": 1})


def test_the_state_expectation(rejected):
    assert placement.evaluate(list(records(names=["rejected"]).values()), state="rejected", names=["rejected"], namespace=NS) == []
    found = list(records().values())
    unmet = placement.evaluate(found, state="scheduled", namespace=NS)
    assert unmet == [
        {"namespace": NS, "name": "rejected", "problems": [f"rejected by the kubelet of node kubesched-worker2 after the bind (OutOfcpu: {KUBELET})"]}
    ]
    assert placement.evaluate(found, state="rejected", namespace=NS) == [
        {"namespace": NS, "name": "admitted", "problems": ["scheduled on node kubesched-worker2, not rejected"]}
    ]
    assert placement_gather.check_params({"state": "rejected", "nodes": ["kubesched-worker2"]}) is None


def test_a_pod_failed_for_another_reason_is_no_rejection(items):
    pod = next(p for p in items("rejected-pods.json") if p["metadata"]["name"] == "rejected")
    pod["status"]["message"] = "The node was low on resource: memory."
    pod["status"]["reason"] = "Evicted"
    assert not placement.rejected_by_kubelet(pod)
    assert placement.pod_record(pod)["state"] == "scheduled"
