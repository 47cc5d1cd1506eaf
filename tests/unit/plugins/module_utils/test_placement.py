# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests of module_utils/placement.py over recorded API objects, without a cluster."""

from __future__ import annotations

import copy

import pytest

from ansible_collections.kubesched.scheduler.plugins.module_utils import placement
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s import serving
from ansible_collections.kubesched.scheduler.tests.unit.utils.placement_records import EXPECTED, by_name


MSG_CPU = (
    "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. "
    "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
)
MSG_OLD = (
    "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) didn't match "
    "Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
)


@pytest.fixture
def pods(items):
    return items("pods.json")


@pytest.fixture
def records(pods, items, recorded):
    """Placements of the recorded namespace, as gather builds them, with the schedulers looked up."""
    v1 = items("events-k8s-io-v1.json")
    found = placement.place_pods(pods, items("events-scheduled.json") + v1, items("events-failed.json") + v1)
    lookup = placement.schedulers_to_look_up(found)
    presence = serving.scheduler_presence(lookup, items("leases.json"), items("deployments.json"))
    return placement.explain_waiting(found, presence)


# --- helpers ---------------------------------------------------------------------------------


def test_join_selectors():
    assert placement.join_selectors(["app=web", " tier in (a,b) ", "", None]) == "app=web,tier in (a,b)"
    assert placement.join_selectors([]) is None
    assert placement.join_selectors(None) is None


# --- events ----------------------------------------------------------------------------------


def test_normalize_core_event_written_through_the_events_api(items):
    event = items("events-scheduled.json")[0]
    assert placement.normalize_event(event) == {
        "uid": "0b6f3f0e-5a0c-4d0e-8f7a-1e2d3c4b5a01",
        "namespace": "demo",
        "name": "web-7d9c6b5f4-2xkqp",
        "reason": "Scheduled",
        "component": "my-scheduler",
        "time": "2025-11-29T19:40:01.118734Z",
        "message": "Successfully assigned demo/web-7d9c6b5f4-2xkqp to kubesched-worker",
        "count": 1,
        "api": "v1",
    }


def test_normalize_legacy_core_event_uses_source_component(items):
    event = items("events-scheduled.json")[1]
    assert event["reportingComponent"] == ""
    view = placement.normalize_event(event)
    assert view["component"] == "default-scheduler"
    assert view["time"] == "2025-11-29T19:31:12Z"
    assert view["uid"] == "0b6f3f0e-5a0c-4d0e-8f7a-1e2d3c4b5a03"


def test_normalize_events_k8s_io_event(items):
    scheduled, failed = items("events-k8s-io-v1.json")
    view = placement.normalize_event(scheduled)
    assert view["api"] == "events.k8s.io/v1"
    assert view["component"] == "my-scheduler"
    assert view["uid"] == "0b6f3f0e-5a0c-4d0e-8f7a-1e2d3c4b5a02"
    assert view["message"] == "Successfully assigned demo/web-7d9c6b5f4-8mzvn to kubesched-worker2"
    series = placement.normalize_event(failed)
    assert series["time"] == "2025-11-29T19:41:02.100002Z"  # series.lastObservedTime, not eventTime
    assert series["count"] == 2
    assert series["message"] == MSG_CPU


def test_normalize_ignores_events_about_other_kinds(items):
    event = copy.deepcopy(items("events-scheduled.json")[0])
    event["involvedObject"]["kind"] = "Node"
    assert placement.normalize_event(event) is None
    del event["involvedObject"]["uid"]
    event["involvedObject"]["kind"] = "Pod"
    assert placement.normalize_event(event) is None


def test_latest_failed_event_wins(items):
    latest = placement.latest_events_by_uid(items("events-failed.json"), "FailedScheduling")
    assert list(latest) == ["0b6f3f0e-5a0c-4d0e-8f7a-1e2d3c4b5a07"]
    assert latest["0b6f3f0e-5a0c-4d0e-8f7a-1e2d3c4b5a07"]["message"] == MSG_CPU
    assert latest["0b6f3f0e-5a0c-4d0e-8f7a-1e2d3c4b5a07"]["count"] == 4


def test_latest_does_not_depend_on_list_order(items):
    latest = placement.latest_events_by_uid(list(reversed(items("events-failed.json"))), "FailedScheduling")
    assert latest["0b6f3f0e-5a0c-4d0e-8f7a-1e2d3c4b5a07"]["message"] == MSG_CPU


def test_latest_events_filters_on_reason(items):
    assert placement.latest_events_by_uid(items("events-failed.json"), "Scheduled") == {}


# --- placements ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_placement_of_each_recorded_pod(records, name):
    record = by_name(records)[name]
    got = (record["scheduled"], record["scheduled_by"], record["evidence"], record["node"], record["scheduled_at"], record["reason"])
    assert got == EXPECTED[name]
    assert record["namespace"] == "demo"
    if record["scheduled"]:
        assert record["message"] is None


def test_records_are_sorted_and_skip_events_of_deleted_pods(records):
    names = [record["name"] for record in records]
    assert names == sorted(names)
    assert len(records) == 13
    assert "web-7d9c6b5f4-gone1" not in names


def test_scheduler_name_defaults_to_default_scheduler(pods):
    pod = copy.deepcopy(pods[0])
    pod["spec"].pop("schedulerName")
    assert placement.place_pod(pod, {}, {})["scheduler_name"] == "default-scheduler"


def test_expired_event_falls_back_to_spec_scheduler_name(pods):
    """Without its Scheduled event, a bound pod is attributed to its spec.schedulerName."""
    pod = copy.deepcopy(next(p for p in pods if p["metadata"]["name"] == "web-7d9c6b5f4-2xkqp"))
    record = placement.place_pod(pod, {}, {})
    assert (record["scheduled_by"], record["evidence"], record["scheduled_at"]) == ("my-scheduler", "pod", "2025-11-29T19:40:01Z")


def test_event_naming_another_scheduler_wins_over_spec(pods, items):
    pod = next(p for p in pods if p["metadata"]["name"] == "web-7d9c6b5f4-2xkqp")
    event = copy.deepcopy(items("events-scheduled.json")[0])
    event["reportingComponent"] = "default-scheduler"
    scheduled = placement.latest_events_by_uid([event], "Scheduled")
    record = placement.place_pod(pod, scheduled, {})
    assert record["scheduler_name"] == "my-scheduler"
    assert record["scheduled_by"] == "default-scheduler"


def test_pending_failed_event_message_is_the_latest(records):
    assert by_name(records)["web-7d9c6b5f4-hw9ds"]["message"] == MSG_CPU
    assert by_name(records)["web-7d9c6b5f4-t5bnc"]["message"] == MSG_OLD


def test_gated_pod_without_condition(pods):
    pod = copy.deepcopy(next(p for p in pods if p["metadata"]["name"] == "gated-0"))
    pod["status"].pop("conditions")
    record = placement.place_pod(pod, {}, {})
    assert record["reason"] == "SchedulingGated"
    assert record["message"] == "scheduling is blocked by schedulingGates: example.com/quota"


def test_pod_scheduled_condition_without_node_counts_as_scheduled():
    pod = {
        "metadata": {"name": "p", "namespace": "demo", "uid": "u-1"},
        "spec": {"schedulerName": "my-scheduler"},
        "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": "2025-11-29T19:00:00Z"}]},
    }
    record = placement.place_pod(pod, {}, {})
    assert (record["scheduled"], record["node"], record["evidence"], record["scheduled_by"]) == (True, None, "pod", "my-scheduler")


# --- preset nodeName -------------------------------------------------------------------------


def _bound(**metadata):
    return {
        "metadata": {"name": "p", "namespace": "demo", "uid": "u-2", **metadata},
        "spec": {"nodeName": "kubesched-worker", "schedulerName": "default-scheduler"},
        "status": {"conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": "2025-11-29T19:00:00Z"}]},
    }


def test_bound_pod_is_not_preset():
    assert placement.node_name_preset(_bound()) is False


def test_mirror_pod_is_preset():
    assert placement.node_name_preset(_bound(annotations={"kubernetes.io/config.mirror": "3b2f"})) is True


def test_node_without_pod_scheduled_condition_is_preset():
    pod = _bound()
    pod["status"] = {"phase": "Pending"}
    assert placement.node_name_preset(pod) is True


def test_managed_fields_owning_node_name_mean_preset():
    entry = {"manager": "kubectl-create", "operation": "Update", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:nodeName": {}}}}
    assert placement.node_name_preset(_bound(managedFields=[entry])) is True
    entry_of_subresource = dict(entry, subresource="status")
    assert placement.node_name_preset(_bound(managedFields=[entry_of_subresource])) is False


# --- who serves a schedulerName --------------------------------------------------------------


def test_schedulers_to_look_up(records, items):
    fresh = placement.place_pods(items("pods.json"), items("events-scheduled.json"), items("events-failed.json") + items("events-k8s-io-v1.json"))
    assert placement.schedulers_to_look_up(fresh) == ["ghost-scheduler", "my-scheduler"]
    assert placement.schedulers_to_look_up(records) == []


def test_unknown_scheduler_message(records):
    record = by_name(records)["orphan-ghost-sched"]
    assert record["message"] == ("no running scheduler serves schedulerName 'ghost-scheduler': no FailedScheduling event and no Lease or Deployment for it")


def test_served_scheduler_is_waiting(records):
    message = by_name(records)["web-7d9c6b5f4-c8pkx"]["message"]
    assert message.startswith("no FailedScheduling event yet; schedulerName 'my-scheduler' is served by Lease kubesched-system/my-scheduler")
    assert message.endswith("Deployment kubesched-system/my-scheduler (1/1 ready)")
    assert by_name(records)["fresh-default"]["message"] == "no FailedScheduling event yet; waiting for default-scheduler to place it"


def test_lookup_errors_make_it_waiting_not_unserved(pods):
    found = placement.place_pods([p for p in pods if p["metadata"]["name"] == "orphan-ghost-sched"])
    placement.explain_waiting(found, {"ghost-scheduler": []}, ["cannot list Leases: API request failed (403): forbidden"])
    assert found[0]["reason"] == "Waiting"
    assert "could not tell whether anything serves schedulerName 'ghost-scheduler'" in found[0]["message"]
    assert found[0]["message"].endswith("cannot list Leases: API request failed (403): forbidden")


# --- summary and expectations ----------------------------------------------------------------


def test_summary(records):
    assert placement.summarize(records) == {
        "total": 13,
        "scheduled": 6,
        "pending": 7,
        "by_scheduler": {
            "default-scheduler": {"scheduled": 1, "pending": 1},
            "my-scheduler": {"scheduled": 3, "pending": 5},
            "ghost-scheduler": {"scheduled": 0, "pending": 1},
        },
        "by_evidence": {"event": 3, "node_name_preset": 2, "pod": 1},
        "by_node": {"kubesched-worker": 3, "ghost-node": 1, "kubesched-worker2": 2},
        "by_reason": {"Waiting": 2, "SchedulingGated": 1, "NoScheduler": 1, "FailedScheduling": 2, "Unschedulable": 1},
        "rejected": 0,
        "by_rejection": {},
    }


def test_no_expectations_means_nothing_unmet(records):
    assert placement.evaluate(records) == []
    assert placement.evaluate([]) == []


def test_state_scheduled_lists_pending_pods(records):
    unmet = placement.evaluate(records, state="scheduled")
    assert [entry["name"] for entry in unmet] == [
        "fresh-default",
        "gated-0",
        "orphan-ghost-sched",
        "web-7d9c6b5f4-c8pkx",
        "web-7d9c6b5f4-hw9ds",
        "web-7d9c6b5f4-t5bnc",
        "web-7d9c6b5f4-zr6jw",
    ]
    assert by_name(unmet)["web-7d9c6b5f4-hw9ds"]["problems"] == [f"pending (FailedScheduling: {MSG_CPU})"]


def test_state_pending_lists_bound_pods(records):
    unmet = placement.evaluate(records, state="pending")
    assert by_name(unmet)["preset-ghost"]["problems"] == ["scheduled on node ghost-node"]
    assert len(unmet) == 6


def test_scheduler_name_expectation(records):
    scheduled = [record for record in records if record["scheduled"]]
    unmet = by_name(placement.evaluate(scheduled, scheduler_name="my-scheduler"))
    assert sorted(unmet) == ["legacy-web-0", "preset-ghost", "preset-worker"]
    assert unmet["legacy-web-0"]["problems"] == ["placed by default-scheduler, expected my-scheduler"]
    assert unmet["preset-ghost"]["problems"] == ["placed by no scheduler (spec.nodeName was preset), expected my-scheduler"]


def test_scheduler_name_with_pending_state_checks_spec(records):
    pending = [record for record in records if not record["scheduled"]]
    unmet = placement.evaluate(pending, scheduler_name="my-scheduler", state="pending")
    assert unmet == [
        {"namespace": "demo", "name": "fresh-default", "problems": ["spec.schedulerName is default-scheduler, expected my-scheduler"]},
        {"namespace": "demo", "name": "orphan-ghost-sched", "problems": ["spec.schedulerName is ghost-scheduler, expected my-scheduler"]},
    ]


def test_nodes_expectation(records):
    mine = [record for record in records if record["scheduled_by"] == "my-scheduler"]
    assert placement.evaluate(mine, nodes=["kubesched-worker", "kubesched-worker2"]) == []
    unmet = placement.evaluate(mine, nodes=["kubesched-worker"])
    assert unmet == [
        {"namespace": "demo", "name": "web-7d9c6b5f4-8mzvn", "problems": ["on node kubesched-worker2, expected one of kubesched-worker"]},
        {"namespace": "demo", "name": "web-7d9c6b5f4-q4lrt", "problems": ["on node kubesched-worker2, expected one of kubesched-worker"]},
    ]


def test_expectations_met(records):
    mine = [record for record in records if record["name"] in ("web-7d9c6b5f4-2xkqp", "web-7d9c6b5f4-8mzvn")]
    assert placement.evaluate(mine, scheduler_name="my-scheduler", state="scheduled", nodes=["kubesched-worker", "kubesched-worker2"]) == []


def test_empty_selection_is_unmet_with_expectations():
    assert placement.evaluate([], state="scheduled", namespace="demo") == [{"namespace": "demo", "name": None, "problems": ["no pod matches the selection"]}]


def test_missing_names_are_unmet(records):
    mine = [record for record in records if record["name"] == "web-7d9c6b5f4-2xkqp"]
    unmet = placement.evaluate(mine, state="scheduled", names=["web-7d9c6b5f4-2xkqp", "web-9"], namespace="demo")
    assert unmet == [{"namespace": "demo", "name": "web-9", "problems": ["pod not found"]}]


def test_unmet_message_groups_identical_problems(records):
    unmet = placement.evaluate(records, state="pending")
    assert placement.unmet_message(unmet, 13) == (
        "6 of 13 selected pods do not meet the expectations: "
        "demo/legacy-web-0, demo/preset-worker, demo/web-7d9c6b5f4-2xkqp: scheduled on node kubesched-worker | "
        "demo/preset-ghost: scheduled on node ghost-node | "
        "demo/web-7d9c6b5f4-8mzvn, demo/web-7d9c6b5f4-q4lrt: scheduled on node kubesched-worker2"
    )
    assert placement.unmet_message(unmet, 13, timed_out_after=30).startswith("Timed out after 30s: 6 of 13 selected pods")


def test_unmet_message_for_an_empty_selection():
    assert placement.unmet_message([{"namespace": "demo", "name": None, "problems": ["no pod matches the selection"]}], 0) == ("No pod matches the selection")


def test_unmet_message_counts_missing_names():
    unmet = [
        {"namespace": "demo", "name": "web-9", "problems": ["pod not found"]},
        {"namespace": "demo", "name": "web-1", "problems": ["pending (Waiting: x)"]},
    ]
    assert placement.unmet_message(unmet, 3) == (
        "2 of 4 selected pods do not meet the expectations: demo/web-9: pod not found | demo/web-1: pending (Waiting: x)"
    )


def test_unmet_message_is_bounded():
    unmet = [{"namespace": "demo", "name": f"p-{index:02d}", "problems": ["pending (Waiting: x)"]} for index in range(25)]
    unmet += [{"namespace": "demo", "name": f"q-{index:02d}", "problems": [f"on node n{index}, expected one of a"]} for index in range(12)]
    message = placement.unmet_message(unmet, 40)
    assert message.startswith("37 of 40 selected pods do not meet the expectations: demo/p-00, demo/p-01, ")
    assert "demo/p-09 and 15 more: pending (Waiting: x) | demo/q-00: on node n0, expected one of a | " in message
    assert message.count("demo/p-") == placement.MAX_LISTED_PODS
    assert message.count("demo/q-") == placement.MAX_LISTED_GROUPS - 1
    assert message.endswith("demo/q-08: on node n8, expected one of a | ... and 3 more problems (see unmet)")


# --- a pod the kubelet rejected after a bind (fixtures/placement/rejected-pods.json, see test_placement_gather.py) ---


def test_the_kubelet_leaves_a_rejected_pod_without_conditions(items):
    pod = next(p for p in items("rejected-pods.json") if p["metadata"]["name"] == "rejected")
    assert pod["status"]["phase"] == "Failed" and "conditions" not in pod["status"]
    assert placement.rejected_by_kubelet(pod)
    assert not placement.node_name_preset(pod)


def test_a_pod_failed_for_another_reason_is_no_rejection(items):
    pod = next(p for p in items("rejected-pods.json") if p["metadata"]["name"] == "rejected")
    pod["status"]["message"] = "The node was low on resource: memory."
    pod["status"]["reason"] = "Evicted"
    assert not placement.rejected_by_kubelet(pod)
    assert placement.pod_record(pod)["state"] == "scheduled"
