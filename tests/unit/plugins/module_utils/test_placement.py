# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests of module_utils/placement.py over recorded API objects, without a cluster."""

from __future__ import annotations

import copy
from datetime import datetime, timedelta, timezone

import pytest

from ansible_collections.kubesched.scheduler.plugins.module_utils import placement
from ansible_collections.kubesched.scheduler.plugins.module_utils import placement_gather
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s import predicates, serving, waiter
from ansible_collections.kubesched.scheduler.plugins.module_utils.k8s_module import describe_api_error

MSG_CPU = (
    "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. "
    "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
)
MSG_OLD = (
    "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) didn't match "
    "Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
)


def by_name(records):
    return {record["name"]: record for record in records}


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


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2025-11-29T19:40:01Z", datetime(2025, 11, 29, 19, 40, 1, tzinfo=timezone.utc)),
        ("2025-11-29T19:40:01.118734Z", datetime(2025, 11, 29, 19, 40, 1, 118734, tzinfo=timezone.utc)),
        ("2025-11-29T19:40:01.5Z", datetime(2025, 11, 29, 19, 40, 1, 500000, tzinfo=timezone.utc)),
        ("2025-11-29T21:40:01+02:00", datetime(2025, 11, 29, 19, 40, 1, tzinfo=timezone.utc)),
        ("2025-11-29T19:40:01.123456789Z", datetime(2025, 11, 29, 19, 40, 1, 123456, tzinfo=timezone.utc)),
        (None, None),
        ("", None),
        ("yesterday", None),
    ],
)
def test_parse_time(value, expected):
    assert predicates.parse_time(value) == expected


def test_parse_time_keeps_the_offset():
    assert predicates.parse_time("2025-11-29T19:40:01-05:30").utcoffset() == -timedelta(hours=5, minutes=30)


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

EXPECTED = {
    # name: (scheduled, scheduled_by, evidence, node, scheduled_at, reason)
    "web-7d9c6b5f4-2xkqp": (True, "my-scheduler", "event", "kubesched-worker", "2025-11-29T19:40:01.118734Z", None),
    "web-7d9c6b5f4-8mzvn": (True, "my-scheduler", "event", "kubesched-worker2", "2025-11-29T19:40:01.304562Z", None),
    "legacy-web-0": (True, "default-scheduler", "event", "kubesched-worker", "2025-11-29T19:31:12Z", None),
    "web-7d9c6b5f4-q4lrt": (True, "my-scheduler", "pod", "kubesched-worker2", "2025-11-29T17:02:11Z", None),
    "preset-ghost": (True, None, "node_name_preset", "ghost-node", None, None),
    "preset-worker": (True, None, "node_name_preset", "kubesched-worker", "2025-11-29T19:38:01Z", None),
    "web-7d9c6b5f4-hw9ds": (False, None, "event", None, None, "FailedScheduling"),
    "web-7d9c6b5f4-zr6jw": (False, None, "event", None, None, "FailedScheduling"),
    "web-7d9c6b5f4-t5bnc": (False, None, "pod", None, None, "Unschedulable"),
    "gated-0": (False, None, "pod", None, None, "SchedulingGated"),
    "orphan-ghost-sched": (False, None, None, None, None, "NoScheduler"),
    "fresh-default": (False, None, None, None, None, "Waiting"),
    "web-7d9c6b5f4-c8pkx": (False, None, None, None, None, "Waiting"),
}


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


# --- polling ---------------------------------------------------------------------------------


def test_poll_until_met_on_third_poll(clock):
    answers = iter([["a", "b"], ["b"], []])
    result = waiter.poll_until(lambda: next(answers), lambda unmet: unmet, timeout=60, interval=5, clock=clock, sleeper=clock.sleep)
    assert result == ([], [], 3, False)
    assert clock.sleeps == [5, 5]


def test_poll_until_times_out(clock):
    polls = []

    def poll():
        polls.append(clock.now)
        return ["still pending"]

    result = waiter.poll_until(poll, lambda unmet: unmet, timeout=12, interval=5, clock=clock, sleeper=clock.sleep)
    assert result == (["still pending"], ["still pending"], 4, True)
    assert clock.sleeps == [5, 5, 2]  # the last sleep is cut to the deadline
    assert polls == [1000.0, 1005.0, 1010.0, 1012.0]


def test_poll_until_zero_timeout_polls_once(clock):
    result = waiter.poll_until(lambda: ["x"], lambda unmet: unmet, timeout=0, interval=5, clock=clock, sleeper=clock.sleep)
    assert result[2:] == (1, True)
    assert clock.sleeps == []


# --- gather and run: the list calls ----------------------------------------------------------


@pytest.fixture
def rollout(placements, items):
    """Two pods that the second scheduler places on the third poll."""
    poll1, poll2 = items("rollout-poll1-pods.json"), items("rollout-poll2-pods.json")
    return placements([poll1, poll1, poll2], items("rollout-poll2-events-scheduled.json"), (), items("leases.json"), items("deployments.json"))


def test_gather_makes_a_fixed_number_of_calls(recorded):
    fake = recorded
    found = placement_gather.gather(object(), namespace="demo", label_selectors=["app=web"], field_selectors=["status.phase!=Failed"])
    assert [(record["name"], record["reason"]) for record in found] == [(name, EXPECTED[name][5]) for name in sorted(EXPECTED)]
    assert fake.calls == [
        ("pods", "demo", "app=web", "status.phase!=Failed"),
        ("events", "demo", "Scheduled", None),
        ("events", "demo", "FailedScheduling", None),
        ("leases", ("ghost-scheduler", "my-scheduler")),
        ("deployments", ("ghost-scheduler", "my-scheduler")),
    ]


def test_gather_cost_does_not_grow_with_pods(items, placements):
    template = next(p for p in items("pods.json") if p["metadata"]["name"] == "orphan-ghost-sched")
    many = []
    for index in range(500):
        pod = copy.deepcopy(template)
        pod["metadata"]["name"] = f"orphan-{index}"
        pod["metadata"]["uid"] = f"uid-{index}"
        many.append(pod)
    fake = placements(many)
    found = placement_gather.gather(object())
    assert len(found) == 500
    assert {record["reason"] for record in found} == {"NoScheduler"}
    assert [call[0] for call in fake.calls] == ["pods", "events", "leases", "deployments"]


def test_gather_skips_lookups_when_not_needed(items, placements):
    scheduled_only = [p for p in items("pods.json") if p["spec"].get("nodeName")]
    fake = placements(scheduled_only, items("events-scheduled.json"))
    found = placement_gather.gather(object(), namespace="demo")
    assert len(found) == 6
    assert fake.calls == [("pods", "demo", None, None), ("events", "demo", "Scheduled", None)]


def test_gather_single_name_narrows_the_lists(recorded):
    fake = recorded
    found = placement_gather.gather(object(), namespace="demo", names=["web-7d9c6b5f4-hw9ds"], field_selectors=["status.phase=Pending"])
    assert [record["name"] for record in found] == ["web-7d9c6b5f4-hw9ds"]
    assert fake.calls == [
        ("pods", "demo", None, "status.phase=Pending,metadata.name=web-7d9c6b5f4-hw9ds"),
        ("events", "demo", "FailedScheduling", "web-7d9c6b5f4-hw9ds"),
    ]


def test_gather_several_names_filter_locally(recorded):
    fake = recorded
    found = placement_gather.gather(object(), names=["preset-ghost", "legacy-web-0", "nope"])
    assert [record["name"] for record in found] == ["legacy-web-0", "preset-ghost"]
    assert fake.calls == [("pods", None, None, None), ("events", None, "Scheduled", None)]


FORBIDDEN_LEASES = (
    'leases.coordination.k8s.io is forbidden: User "system:serviceaccount:demo:viewer" cannot list resource "leases"'
    ' in API group "coordination.k8s.io" at the cluster scope'
)


def test_gather_survives_forbidden_lookups(monkeypatch, recorded, api_error):
    fake = recorded

    def forbidden(api, names):
        raise api_error(403, "Forbidden", FORBIDDEN_LEASES)

    monkeypatch.setattr(placement_gather, "fetch_leases", forbidden)
    fake.deployments = []
    found = by_name(placement_gather.gather(object(), namespace="demo"))
    assert found["orphan-ghost-sched"]["reason"] == "Waiting"
    assert "cannot list Leases: API request failed (403): leases.coordination.k8s.io is forbidden" in found["orphan-ghost-sched"]["message"]


def test_gather_raises_other_api_errors(monkeypatch, recorded):

    class ServerError(Exception):
        status = 500

    def broken(api, names):
        raise ServerError("boom")

    monkeypatch.setattr(placement_gather, "fetch_deployments", broken)
    with pytest.raises(ServerError):
        placement_gather.gather(object(), namespace="demo")


def test_describe_api_error(api_error):
    assert describe_api_error(api_error(403, "Forbidden", FORBIDDEN_LEASES)) == f"API request failed (403): {FORBIDDEN_LEASES}"
    assert describe_api_error(ValueError("bad")) == "bad"


def test_run_waits_until_the_pods_are_placed(rollout, clock):
    fake = rollout
    outcome = placement_gather.run(
        object, {"namespace": "demo", "scheduler_name": "my-scheduler", "state": "scheduled", "wait": True, "wait_timeout": 60, "wait_sleep": 3}
    )
    assert "msg" not in outcome
    assert outcome["attempts"] == 3
    assert clock.sleeps == [3, 3]
    assert [(p["name"], p["node"], p["scheduled_by"], p["evidence"]) for p in outcome["pods"]] == [
        ("web-7d9c6b5f4-c8pkx", "kubesched-worker", "my-scheduler", "event"),
        ("web-7d9c6b5f4-m2n7s", "kubesched-worker2", "my-scheduler", "event"),
    ]
    assert outcome["summary"]["by_scheduler"] == {"my-scheduler": {"scheduled": 2, "pending": 0}}
    assert [call[0] for call in fake.calls] == ["pods", "events", "leases", "deployments"] * 2 + ["pods", "events"]


def test_run_times_out_with_the_offending_pods(items, placements, clock):
    placements(items("rollout-poll1-pods.json"))
    outcome = placement_gather.run(object, {"namespace": "demo", "state": "scheduled", "wait": True, "wait_timeout": 5, "wait_sleep": 2})
    assert outcome["attempts"] == 4
    assert clock.sleeps == [2, 2, 1]
    assert outcome["msg"] == (
        "Timed out after 5s: 2 of 2 selected pods do not meet the expectations: "
        "demo/web-7d9c6b5f4-c8pkx, demo/web-7d9c6b5f4-m2n7s: pending (NoScheduler: " + placement.unserved_message("my-scheduler") + ")"
    )
    assert outcome["summary"]["pending"] == 2


def test_run_without_wait_polls_once(rollout):
    fake = rollout
    outcome = placement_gather.run(object, {"namespace": "demo", "state": "scheduled"})
    assert outcome["attempts"] == 1
    assert len(outcome["unmet"]) == 2
    assert outcome["msg"].startswith(
        "2 of 2 selected pods do not meet the expectations: demo/web-7d9c6b5f4-c8pkx, demo/web-7d9c6b5f4-m2n7s: pending (Waiting: "
    )
    assert [call[0] for call in fake.calls] == ["pods", "events", "leases", "deployments"]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"state": "pending", "nodes": ["kubesched-worker"]}, "nodes cannot be combined with state=pending: a pending pod is on no node"),
        ({"wait": True}, "wait=true needs at least one of scheduler_name, state or nodes to wait for"),
        ({"state": "scheduled", "wait_sleep": 0}, "wait_timeout must be 0 or more and wait_sleep 1 or more"),
        ({"state": "scheduled", "wait_timeout": -1}, "wait_timeout must be 0 or more and wait_sleep 1 or more"),
    ],
)
def test_run_refuses_parameters_before_connecting(params, message):
    def connect():
        raise AssertionError("connected")

    assert placement_gather.run(connect, params) == {"changed": False, "msg": message}


@pytest.fixture
def real_client(kube_api, items):
    lists = {
        "/api/v1/namespaces/demo/pods": items("pods.json"),
        "/api/v1/namespaces/demo/events": items("events-failed.json"),
        "/apis/coordination.k8s.io/v1/leases": items("leases.json"),
        "/apis/apps/v1/deployments": items("deployments.json"),
        "/api/v1/pods": items("pods.json"),
        "/api/v1/events": items("events-scheduled.json"),
    }
    api, pool = kube_api(lambda method, path, query, body: (200, {"kind": "List", "apiVersion": "v1", "metadata": {}, "items": lists[path]}))
    return api, pool.requests


def test_fetchers_issue_one_list_request_each(real_client, items):
    api, requests = real_client
    assert [pod["metadata"]["name"] for pod in placement_gather.fetch_pods(api, "demo", "app=web", "status.phase=Pending")] == [
        pod["metadata"]["name"] for pod in items("pods.json")
    ]
    assert len(list(placement_gather.fetch_events(api, "demo", "FailedScheduling", "web-0"))) == 2
    assert len(list(placement_gather.fetch_pods(api))) == 13
    assert len(list(placement_gather.fetch_events(api, None, "Scheduled"))) == 3
    assert len(list(placement_gather.fetch_leases(api, ["my-scheduler"]))) == 2
    assert len(list(placement_gather.fetch_deployments(api, ["my-scheduler", "ghost-scheduler"]))) == 1
    assert requests == [
        ("GET", "/api/v1/namespaces/demo/pods", {"labelSelector": "app=web", "fieldSelector": "status.phase=Pending", "limit": "500"}),
        (
            "GET",
            "/api/v1/namespaces/demo/events",
            {"fieldSelector": "involvedObject.kind=Pod,reason=FailedScheduling,involvedObject.name=web-0", "limit": "500"},
        ),
        ("GET", "/api/v1/pods", {"limit": "500"}),
        ("GET", "/api/v1/events", {"fieldSelector": "involvedObject.kind=Pod,reason=Scheduled", "limit": "500"}),
        ("GET", "/apis/coordination.k8s.io/v1/leases", {"fieldSelector": "metadata.name=my-scheduler,metadata.namespace!=kube-node-lease", "limit": "500"}),
        ("GET", "/apis/apps/v1/deployments", {"labelSelector": "kubesched.io/scheduler-name", "limit": "500"}),
    ]


def test_selectors_for_lookups():
    assert placement_gather.lease_field_selector(["a", "b"]) == "metadata.namespace!=kube-node-lease"
    assert placement_gather.lease_field_selector(["a"]) == "metadata.name=a,metadata.namespace!=kube-node-lease"
