# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests of the pod_placement module with the list calls replaced by recorded API objects, or with a real
client whose requests a fake API server answers."""

from __future__ import annotations

import copy
import json
from datetime import timedelta

import pytest
from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.testing import patch_module_args

from ansible_collections.kubesched.scheduler.plugins.module_utils import placement
from ansible_collections.kubesched.scheduler.plugins.modules import pod_placement

MSG_CPU = (
    "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. "
    "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
)


@pytest.fixture(autouse=True)
def cluster(connect_to):
    """The client the module connects with; the fetchers the tests install check they are given it."""
    return connect_to(object())


def run_module(capsys, args):
    """Run main() with these arguments; returns (exit code, result)."""
    with patch_module_args(args), pytest.raises(SystemExit) as exit_info:
        pod_placement.main()
    return exit_info.value.code, json.loads(capsys.readouterr().out)


def by_name(pods):
    return {pod["name"]: pod for pod in pods}


def test_reports_every_pod(capsys, recorded):
    code, result = run_module(capsys, {"namespace": "demo"})
    assert code == 0
    assert result["changed"] is False
    assert result["attempts"] == 1
    assert result["unmet"] == []
    assert len(result["pods"]) == 13
    pods = by_name(result["pods"])
    assert pods["web-7d9c6b5f4-2xkqp"] == {
        "namespace": "demo",
        "name": "web-7d9c6b5f4-2xkqp",
        "uid": "0b6f3f0e-5a0c-4d0e-8f7a-1e2d3c4b5a01",
        "phase": "Running",
        "scheduler_name": "my-scheduler",
        "node": "kubesched-worker",
        "scheduled": True,
        "scheduled_by": "my-scheduler",
        "evidence": "event",
        "scheduled_at": "2025-11-29T19:40:01.118734Z",
        "reason": None,
        "message": None,
    }
    assert pods["web-7d9c6b5f4-hw9ds"]["reason"] == "FailedScheduling"
    assert pods["web-7d9c6b5f4-hw9ds"]["message"] == MSG_CPU
    assert pods["orphan-ghost-sched"]["reason"] == "NoScheduler"
    assert pods["preset-ghost"]["evidence"] == "node_name_preset"
    assert pods["web-7d9c6b5f4-q4lrt"]["evidence"] == "pod"
    assert result["summary"]["total"] == 13
    assert result["summary"]["scheduled"] == 6
    assert result["summary"]["pending"] == 7
    assert result["summary"]["by_scheduler"]["my-scheduler"] == {"scheduled": 3, "pending": 5}
    assert recorded.calls == [
        ("pods", "demo", None, None),
        ("events", "demo", "Scheduled", None),
        ("events", "demo", "FailedScheduling", None),
        ("leases", ("ghost-scheduler", "my-scheduler")),
        ("deployments", ("ghost-scheduler", "my-scheduler")),
    ]


def test_selectors_are_joined(capsys, recorded):
    code, _result = run_module(
        capsys,
        {"label_selectors": ["app=web", "tier!=db"], "field_selectors": ["status.phase=Running", "spec.nodeName=kubesched-worker"]},
    )
    assert code == 0
    assert recorded.calls[0] == ("pods", None, "app=web,tier!=db", "status.phase=Running,spec.nodeName=kubesched-worker")


def test_expectations_met(capsys, recorded):
    code, result = run_module(
        capsys,
        {
            "namespace": "demo",
            "names": ["web-7d9c6b5f4-2xkqp", "web-7d9c6b5f4-8mzvn"],
            "scheduler_name": "my-scheduler",
            "state": "scheduled",
            "nodes": ["kubesched-worker", "kubesched-worker2"],
        },
    )
    assert code == 0
    assert "failed" not in result
    assert [pod["name"] for pod in result["pods"]] == ["web-7d9c6b5f4-2xkqp", "web-7d9c6b5f4-8mzvn"]
    assert result["summary"]["by_scheduler"] == {"my-scheduler": {"scheduled": 2, "pending": 0}}
    assert result["summary"]["by_evidence"] == {"event": 2}


def test_expectations_unmet_fail_and_still_return_pods(capsys, recorded):
    code, result = run_module(capsys, {"namespace": "demo", "label_selectors": ["app=web"], "scheduler_name": "my-scheduler"})
    assert code == 1
    assert result["failed"] is True
    assert result["changed"] is False
    assert result["msg"].startswith("10 of 13 selected pods do not meet the expectations: demo/fresh-default: pending (Waiting: ")
    assert "demo/legacy-web-0: placed by default-scheduler, expected my-scheduler" in result["msg"]
    assert "demo/preset-ghost, demo/preset-worker: placed by no scheduler (spec.nodeName was preset), expected my-scheduler" in result["msg"]
    assert len(result["pods"]) == 13
    assert result["summary"]["pending"] == 7
    assert by_name(result["unmet"])["web-7d9c6b5f4-hw9ds"]["problems"] == [f"pending (FailedScheduling: {MSG_CPU})"]
    assert len(result["unmet"]) == 10


def test_unknown_scheduler_name(capsys, placements, items):
    pod = next(p for p in items("pods.json") if p["metadata"]["name"] == "orphan-ghost-sched")
    fake = placements([pod], leases=items("leases.json"), deployments=items("deployments.json"))
    code, result = run_module(capsys, {"namespace": "demo", "names": ["orphan-ghost-sched"], "state": "scheduled"})
    assert code == 1
    assert result["pods"][0]["reason"] == "NoScheduler"
    assert result["msg"] == (
        "1 of 1 selected pods do not meet the expectations: demo/orphan-ghost-sched: pending (NoScheduler: "
        "no running scheduler serves schedulerName 'ghost-scheduler': no FailedScheduling event and no Lease or Deployment for it)"
    )
    assert fake.calls == [
        ("pods", "demo", None, "metadata.name=orphan-ghost-sched"),
        ("events", "demo", "FailedScheduling", "orphan-ghost-sched"),
        ("leases", ("ghost-scheduler",)),
        ("deployments", ("ghost-scheduler",)),
    ]


def test_pending_expectation(capsys, recorded):
    code, result = run_module(capsys, {"namespace": "demo", "names": ["web-7d9c6b5f4-hw9ds", "gated-0"], "state": "pending", "scheduler_name": "my-scheduler"})
    assert code == 0
    assert [(pod["name"], pod["reason"]) for pod in result["pods"]] == [("gated-0", "SchedulingGated"), ("web-7d9c6b5f4-hw9ds", "FailedScheduling")]


def test_missing_name_is_reported(capsys, recorded):
    code, result = run_module(capsys, {"namespace": "demo", "names": ["web-7d9c6b5f4-2xkqp", "web-404"], "state": "scheduled"})
    assert code == 1
    assert result["unmet"] == [{"namespace": "demo", "name": "web-404", "problems": ["pod not found"]}]
    assert result["msg"] == "1 of 2 selected pods do not meet the expectations: demo/web-404: pod not found"


def test_wait_polls_until_placed(capsys, placements, items, clock):
    fake = placements(
        [items("rollout-poll1-pods.json"), items("rollout-poll1-pods.json"), items("rollout-poll1-pods.json"), items("rollout-poll2-pods.json")],
        items("rollout-poll2-events-scheduled.json"),
        (),
        items("leases.json"),
        items("deployments.json"),
    )
    code, result = run_module(
        capsys,
        {"namespace": "demo", "label_selectors": ["app=web"], "scheduler_name": "my-scheduler", "state": "scheduled", "wait": True, "wait_sleep": 5},
    )
    assert code == 0
    assert result["attempts"] == 4
    assert clock.sleeps == [5, 5, 5]
    assert [(pod["name"], pod["node"], pod["scheduled_by"]) for pod in result["pods"]] == [
        ("web-7d9c6b5f4-c8pkx", "kubesched-worker", "my-scheduler"),
        ("web-7d9c6b5f4-m2n7s", "kubesched-worker2", "my-scheduler"),
    ]
    assert [call[0] for call in fake.calls].count("pods") == 4


def test_wait_times_out(capsys, placements, items, clock):
    placements(items("rollout-poll1-pods.json"), (), (), items("leases.json"), items("deployments.json"))
    code, result = run_module(capsys, {"namespace": "demo", "state": "scheduled", "wait": True, "wait_timeout": 10, "wait_sleep": 4})
    assert code == 1
    assert result["attempts"] == 4
    assert clock.sleeps == [4, 4, 2]
    assert result["msg"].startswith(
        "Timed out after 10s: 2 of 2 selected pods do not meet the expectations: demo/web-7d9c6b5f4-c8pkx, demo/web-7d9c6b5f4-m2n7s: pending (Waiting: "
    )
    assert result["summary"]["pending"] == 2


def test_wait_for_pods_to_appear(capsys, placements, items, clock):
    placements([[], items("rollout-poll2-pods.json")], items("rollout-poll2-events-scheduled.json"))
    code, result = run_module(capsys, {"namespace": "demo", "state": "scheduled", "wait": True})
    assert code == 0
    assert result["attempts"] == 2
    assert clock.sleeps == [2]


def test_check_mode(capsys, recorded):
    code, result = run_module(capsys, {"namespace": "demo", "names": ["web-7d9c6b5f4-2xkqp"], "_ansible_check_mode": True})
    assert code == 0
    assert result["changed"] is False
    assert result["pods"][0]["scheduled_by"] == "my-scheduler"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"state": "pending", "nodes": ["kubesched-worker"]}, "nodes cannot be combined with state=pending: a pending pod is on no node"),
        ({"wait": True}, "wait=true needs at least one of scheduler_name, state or nodes to wait for"),
        ({"state": "scheduled", "wait_sleep": 0}, "wait_timeout must be 0 or more and wait_sleep 1 or more"),
    ],
)
def test_invalid_combinations(capsys, recorded, args, message):
    code, result = run_module(capsys, args)
    assert code == 1
    assert result["msg"] == message
    assert recorded.calls == []


def test_api_error_fails_with_traceback(capsys, recorded, monkeypatch, api_error):
    def forbidden(*args, **kwargs):
        raise api_error(403, "Forbidden", 'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "demo"')

    failures = []
    original = AnsibleModule.fail_json

    def fail_json(module, msg, **kwargs):
        failures.append(kwargs)
        return original(module, msg, **kwargs)

    monkeypatch.setattr(placement, "fetch_pods", forbidden)
    monkeypatch.setattr(AnsibleModule, "fail_json", fail_json)
    code, result = run_module(capsys, {"namespace": "demo"})
    assert code == 1
    assert result["msg"] == (
        'Cannot read the pod placements: API request failed (403): pods is forbidden: User "alice" cannot list resource "pods"'
        ' in API group "" in the namespace "demo"'
    )
    assert failures[0]["exception"].startswith("Traceback (most recent call last):")
    assert "ApiError: (403)" in failures[0]["exception"]


# --- a scheduler that is installed is not necessarily running -----------------------------------

RENEWED = "2025-11-29T19:42:12.009381Z"  # the renewTime of the recorded Lease my-scheduler, held for 15s
HOLDER = "my-scheduler-6c8f7d9b5-x2l4q_8e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b"


def at(seconds_after_renewal):
    """A clock reading this many seconds after the recorded Lease was renewed."""
    return placement.parse_time(RENEWED) + timedelta(seconds=seconds_after_renewal)


@pytest.fixture
def local_clock(monkeypatch):
    """Sets the host's UTC clock, by which Leases are judged when no answer of the API server carried a Date."""

    def install(moment):
        monkeypatch.setattr(placement, "utc_now", lambda: moment)

    return install


def pod_named(items, name, file="pods.json"):
    return copy.deepcopy(next(pod for pod in items(file) if pod["metadata"]["name"] == name))


def scheduler_deployment(items, ready=1, profiles=None, lease=None):
    """The recorded Deployment of my-scheduler with ``ready`` ready replicas, and the annotations the deploy role sets."""
    deployment = copy.deepcopy(items("deployments.json")[0])
    deployment["status"]["readyReplicas"] = ready
    if not ready:
        del deployment["status"]["readyReplicas"]  # as the API server leaves it out at 0
    annotations = deployment["metadata"]["annotations"]
    if profiles:
        annotations[placement.PROFILES_ANNOTATION] = ",".join(profiles)
    if lease:
        annotations[placement.LEASE_ANNOTATION] = lease
    return deployment


def scheduler_lease(items, holder=HOLDER):
    lease = copy.deepcopy(items("leases.json")[1])
    assert lease["metadata"]["name"] == "my-scheduler"
    if holder is None:
        del lease["spec"]["holderIdentity"]
    return lease


def waiting_pod(items, scheduler_name="my-scheduler"):
    """A pending pod of ``scheduler_name`` with no event and no PodScheduled condition yet."""
    pod = pod_named(items, "web-7d9c6b5f4-c8pkx")
    pod["spec"]["schedulerName"] = scheduler_name
    assert "conditions" not in pod["status"] or not pod["status"]["conditions"]
    return pod


NOT_RUNNING = "no FailedScheduling event, and the scheduler of schedulerName 'my-scheduler' is installed but not running: "


def test_expired_lease_and_no_ready_replica_mean_not_running(capsys, placements, items, local_clock):
    local_clock(at(15 + 95))
    placements([waiting_pod(items)], leases=[scheduler_lease(items)], deployments=[scheduler_deployment(items, ready=0)])
    code, result = run_module(capsys, {"namespace": "demo", "state": "scheduled"})
    assert code == 1
    pod = result["pods"][0]
    assert pod["reason"] == placement.REASON_NOT_RUNNING == "SchedulerNotRunning"
    assert pod["message"] == (
        NOT_RUNNING + f"Lease kubesched-system/my-scheduler held by {HOLDER} last renewed {RENEWED}, expired 95s ago; "
        "Deployment kubesched-system/my-scheduler (0/1 ready)"
    )
    assert result["summary"]["by_reason"] == {"SchedulerNotRunning": 1}
    assert result["msg"] == f"1 of 1 selected pods do not meet the expectations: demo/web-7d9c6b5f4-c8pkx: pending (SchedulerNotRunning: {pod['message']})"


@pytest.mark.parametrize(
    ("seconds", "reason"),
    [
        (10, "Waiting"),  # within leaseDurationSeconds
        (15 + 4, "Waiting"),  # expired by less than the tolerance of the local clock
        (15 + 6, "SchedulerNotRunning"),
    ],
)
def test_a_lease_renewed_in_time_runs(capsys, placements, items, local_clock, seconds, reason):
    local_clock(at(seconds))
    placements([waiting_pod(items)], leases=[scheduler_lease(items)], deployments=[scheduler_deployment(items, ready=0)])
    _code, result = run_module(capsys, {"namespace": "demo"})
    assert result["pods"][0]["reason"] == reason
    if reason == "Waiting":
        assert result["pods"][0]["message"] == (
            f"no FailedScheduling event yet; schedulerName 'my-scheduler' is served by Lease kubesched-system/my-scheduler held by {HOLDER}"
            f" (renewed {RENEWED}); Deployment kubesched-system/my-scheduler (0/1 ready)"
        )


def test_a_released_lease_does_not_run(capsys, placements, items, local_clock):
    local_clock(at(1))
    placements([waiting_pod(items)], leases=[scheduler_lease(items, holder=None)])
    _code, result = run_module(capsys, {"namespace": "demo"})
    assert result["pods"][0]["reason"] == "SchedulerNotRunning"
    assert result["pods"][0]["message"] == NOT_RUNNING + f"Lease kubesched-system/my-scheduler has no holder (last renewed {RENEWED})"


def test_a_ready_replica_runs_whatever_the_lease(capsys, placements, items, local_clock):
    local_clock(at(3600))
    placements([waiting_pod(items)], leases=[scheduler_lease(items)], deployments=[scheduler_deployment(items, ready=1)])
    _code, result = run_module(capsys, {"namespace": "demo"})
    assert result["pods"][0]["reason"] == "Waiting"
    assert result["pods"][0]["message"].endswith(f"last renewed {RENEWED}, expired 59m45s ago; Deployment kubesched-system/my-scheduler (1/1 ready)")


def test_a_deployment_without_ready_replica_alone_does_not_run(capsys, placements, items):
    placements([waiting_pod(items)], deployments=[scheduler_deployment(items, ready=0)])
    _code, result = run_module(capsys, {"namespace": "demo"})
    assert result["pods"][0]["reason"] == "SchedulerNotRunning"
    assert result["pods"][0]["message"] == NOT_RUNNING + "Deployment kubesched-system/my-scheduler (0/1 ready)"


def test_nothing_found_is_still_no_scheduler(capsys, placements, items):
    placements([waiting_pod(items)], leases=[], deployments=[])
    _code, result = run_module(capsys, {"namespace": "demo"})
    assert (result["pods"][0]["reason"], result["pods"][0]["message"]) == ("NoScheduler", placement.unserved_message("my-scheduler"))


# --- the profiles of a scheduler --------------------------------------------------------------

PROFILES = ["my-scheduler", "my-scheduler-batch"]


def test_a_pod_of_a_second_profile_is_served_by_its_scheduler(capsys, placements, items, local_clock):
    local_clock(at(5))
    deployment = scheduler_deployment(items, ready=1, profiles=PROFILES, lease="kubesched-system/my-scheduler")
    fake = placements([waiting_pod(items, "my-scheduler-batch")], leases=items("leases.json"), deployments=[deployment])
    code, result = run_module(capsys, {"namespace": "demo", "state": "pending", "scheduler_name": "my-scheduler-batch"})
    assert code == 0
    assert result["pods"][0]["reason"] == "Waiting"
    assert result["pods"][0]["message"] == (
        f"no FailedScheduling event yet; schedulerName 'my-scheduler-batch' is served by Lease kubesched-system/my-scheduler held by {HOLDER}"
        f" (renewed {RENEWED}); Deployment kubesched-system/my-scheduler of scheduler my-scheduler (1/1 ready)"
    )
    # the Lease is named after the first profile: it is listed by that name once the Deployment names it
    assert fake.calls[-3:] == [("leases", ("my-scheduler-batch",)), ("deployments", ("my-scheduler-batch",)), ("leases", ("my-scheduler",))]


def test_a_pod_of_a_second_profile_of_a_stopped_scheduler(capsys, placements, items, local_clock):
    local_clock(at(15 + 600))
    deployment = scheduler_deployment(items, ready=0, profiles=PROFILES, lease="kubesched-system/my-scheduler")
    placements([waiting_pod(items, "my-scheduler-batch")], leases=items("leases.json"), deployments=[deployment])
    _code, result = run_module(capsys, {"namespace": "demo"})
    assert result["pods"][0]["reason"] == "SchedulerNotRunning"
    assert result["pods"][0]["message"] == (
        "no FailedScheduling event, and the scheduler of schedulerName 'my-scheduler-batch' is installed but not running: "
        f"Lease kubesched-system/my-scheduler held by {HOLDER} last renewed {RENEWED}, expired 10m ago; "
        "Deployment kubesched-system/my-scheduler of scheduler my-scheduler (0/1 ready)"
    )


def test_the_lock_lease_is_matched_by_namespace_and_name(capsys, placements, items, local_clock):
    """Only the Lease the Deployment names: a Lease of the same name in another namespace is someone else's."""
    local_clock(at(5))
    elsewhere = scheduler_lease(items)
    elsewhere["metadata"]["namespace"] = "team-b"
    deployment = scheduler_deployment(items, ready=0, profiles=PROFILES, lease="kube-system/my-scheduler")
    placements([waiting_pod(items, "my-scheduler-batch")], leases=[elsewhere], deployments=[deployment])
    _code, result = run_module(capsys, {"namespace": "demo"})
    assert result["pods"][0]["reason"] == "SchedulerNotRunning"
    assert "Lease" not in result["pods"][0]["message"]


def test_a_deployment_without_the_profiles_annotation_serves_its_label_only(capsys, placements, items):
    placements([waiting_pod(items, "my-scheduler-batch")], leases=items("leases.json"), deployments=[scheduler_deployment(items)])
    _code, result = run_module(capsys, {"namespace": "demo"})
    assert result["pods"][0]["reason"] == "NoScheduler"


def test_deployments_are_listed_by_the_label_key_and_matched_by_profile(capsys, kube_api, connect_to, items, local_clock):
    local_clock(at(5))
    other = scheduler_deployment(items, ready=1, profiles=["team-b", "team-b-batch"], lease="kube-system/team-b")
    other["metadata"]["name"] = other["metadata"]["labels"][placement.SCHEDULER_LABEL] = "team-b"
    mine = scheduler_deployment(items, ready=0, profiles=PROFILES, lease="kubesched-system/my-scheduler")
    lists = {
        "/api/v1/namespaces/demo/pods": [waiting_pod(items, "my-scheduler-batch")],
        "/api/v1/namespaces/demo/events": [],
        "/apis/coordination.k8s.io/v1/leases": [],
        "/apis/apps/v1/deployments": [other, mine],
    }
    api, pool = kube_api(lambda method, path, query, body: (200, {"kind": "List", "apiVersion": "v1", "metadata": {}, "items": lists[path]}))
    connect_to(api)
    _code, result = run_module(capsys, {"namespace": "demo"})
    assert result["pods"][0]["message"].endswith(": Deployment kubesched-system/my-scheduler of scheduler my-scheduler (0/1 ready)")
    assert [(path, query) for _method, path, query in pool.requests[-3:]] == [
        ("/apis/coordination.k8s.io/v1/leases", {"fieldSelector": "metadata.name=my-scheduler-batch,metadata.namespace!=kube-node-lease"}),
        ("/apis/apps/v1/deployments", {"labelSelector": "kubesched.io/scheduler-name"}),
        ("/apis/coordination.k8s.io/v1/leases", {"fieldSelector": "metadata.name=my-scheduler,metadata.namespace!=kube-node-lease"}),
    ]


def test_served_names_and_lock_lease():
    deployment = {
        "metadata": {
            "labels": {placement.SCHEDULER_LABEL: "a"},
            "annotations": {placement.PROFILES_ANNOTATION: " a, b ,,c,b", placement.LEASE_ANNOTATION: "kube-system/a"},
        }
    }
    assert placement.served_names(deployment) == ["a", "b", "c"]
    assert placement.lock_lease(deployment) == ("kube-system", "a")
    deployment["metadata"]["annotations"][placement.LEASE_ANNOTATION] = "a"
    assert placement.lock_lease(deployment) is None
    del deployment["metadata"]["labels"][placement.SCHEDULER_LABEL]
    assert placement.served_names(deployment) == []


# --- a preset spec.nodeName wins over any event -----------------------------------------------


def forged_scheduled_event(items, pod, component="my-scheduler"):
    """A Scheduled event about ``pod`` that no scheduler wrote (anyone who may create events can)."""
    event = copy.deepcopy(items("events-scheduled.json")[0])
    event["metadata"]["name"] = f"{pod['metadata']['name']}.forged"
    event["involvedObject"].update(name=pod["metadata"]["name"], uid=pod["metadata"]["uid"])
    event["reportingComponent"] = event["source"]["component"] = component
    event["message"] = f"Successfully assigned demo/{pod['metadata']['name']} to {pod['spec']['nodeName']}"
    return event


def test_preset_node_wins_over_a_scheduled_event(items):
    pod = pod_named(items, "preset-worker")
    assert placement.node_name_preset(pod)
    scheduled = placement.latest_events_by_uid([forged_scheduled_event(items, pod)], "Scheduled")
    assert pod["metadata"]["uid"] in scheduled
    record = placement.place_pod(pod, scheduled, {})
    assert (record["scheduled_by"], record["evidence"], record["scheduled_at"]) == (None, "node_name_preset", "2025-11-29T19:38:01Z")


def test_module_never_credits_a_scheduler_with_a_preset_node(capsys, placements, items):
    preset = pod_named(items, "preset-worker")
    fake = placements(
        [preset, pod_named(items, "web-7d9c6b5f4-2xkqp")],
        items("events-scheduled.json") + [forged_scheduled_event(items, preset)],
    )
    code, result = run_module(capsys, {"namespace": "demo", "scheduler_name": "my-scheduler"})
    assert ("events", "demo", "Scheduled", None) in fake.calls  # the forged event was read
    pods = by_name(result["pods"])
    assert (pods["preset-worker"]["scheduled_by"], pods["preset-worker"]["evidence"]) == (None, "node_name_preset")
    assert (pods["web-7d9c6b5f4-2xkqp"]["scheduled_by"], pods["web-7d9c6b5f4-2xkqp"]["evidence"]) == ("my-scheduler", "event")
    assert result["summary"]["by_scheduler"] == {"my-scheduler": {"scheduled": 1, "pending": 0}}
    assert code == 1
    assert result["msg"] == (
        "1 of 2 selected pods do not meet the expectations: demo/preset-worker: placed by no scheduler (spec.nodeName was preset), expected my-scheduler"
    )
