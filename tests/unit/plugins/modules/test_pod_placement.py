# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests of the pod_placement module with the list calls replaced by recorded API objects, or with a real
client whose requests a fake API server answers (in pages)."""

from __future__ import annotations

import copy
import json
from collections import Counter
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest
from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.testing import patch_module_args

from ansible_collections.kubesched.scheduler.plugins.module_utils import placement
from ansible_collections.kubesched.scheduler.plugins.module_utils import placement_gather
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s import client, predicates, serving
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
        "state": "scheduled",
        "scheduled_by": "my-scheduler",
        "scheduler_process": None,
        "evidence": "event",
        "scheduled_at": "2025-11-29T19:40:01.118734Z",
        "reason": None,
        "message": None,
        "pod_group": None,
    }
    assert "groups" not in result and "groups" not in result["summary"]
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

    monkeypatch.setattr(placement_gather, "fetch_pods", forbidden)
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
    return predicates.parse_time(RENEWED) + timedelta(seconds=seconds_after_renewal)


@pytest.fixture
def local_clock(monkeypatch):
    """Sets the host's UTC clock, by which Leases are judged when no answer of the API server carried a Date."""

    def install(moment):
        monkeypatch.setattr(client, "utc_now", lambda: moment)

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
        annotations[serving.PROFILES_ANNOTATION] = ",".join(profiles)
    if lease:
        annotations[serving.LEASE_ANNOTATION] = lease
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


def with_date(pool, date):
    """Makes every answer of this FakePool carry a Date header, as the API server's do."""
    request = pool.request

    def dated(*args, **kwargs):
        response = request(*args, **kwargs)
        response.headers["Date"] = date
        return response

    pool.request = dated


@pytest.mark.parametrize(
    ("server_date", "reason"),
    [
        ("Sat, 29 Nov 2025 19:42:20 GMT", "Waiting"),  # 8s after the renewal: the server's clock, not the host's, decides
        ("Sat, 29 Nov 2025 19:42:30 GMT", "SchedulerNotRunning"),  # 3s after the Lease ran out: no tolerance with the server's clock
    ],
)
def test_leases_are_judged_by_the_api_servers_clock(capsys, kube_api, connect_to, items, local_clock, server_date, reason):
    local_clock(at(-3600) if reason == "SchedulerNotRunning" else at(3600))  # the host's clock says the opposite
    lists = {
        "/api/v1/namespaces/demo/pods": [waiting_pod(items)],
        "/api/v1/namespaces/demo/events": [],
        "/apis/coordination.k8s.io/v1/leases": [scheduler_lease(items)],
        "/apis/apps/v1/deployments": [],
    }
    api, pool = kube_api(lambda method, path, query, body: (200, {"kind": "List", "apiVersion": "v1", "metadata": {}, "items": lists[path]}))
    with_date(pool, server_date)
    connect_to(api)
    _code, result = run_module(capsys, {"namespace": "demo"})
    assert result["pods"][0]["reason"] == reason
    if reason == "SchedulerNotRunning":
        assert result["pods"][0]["message"].endswith(f"last renewed {RENEWED}, expired 2s ago")  # the Date has whole seconds


def test_server_clock_advances_with_the_local_monotonic_clock(clock):
    cluster = placement_gather.Cluster(object())
    assert cluster.server_now() is None
    cluster.saw_date("Sat, 29 Nov 2025 19:42:20 GMT")
    clock.sleep(7.5)
    assert cluster.server_now() == datetime(2025, 11, 29, 19, 42, 27, 500000, tzinfo=timezone.utc)
    cluster.saw_date("not a date")
    assert cluster.server_now() == datetime(2025, 11, 29, 19, 42, 27, 500000, tzinfo=timezone.utc)


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
    other["metadata"]["name"] = other["metadata"]["labels"][serving.SCHEDULER_LABEL] = "team-b"
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
        ("/apis/coordination.k8s.io/v1/leases", {"fieldSelector": "metadata.name=my-scheduler-batch,metadata.namespace!=kube-node-lease", "limit": "500"}),
        ("/apis/apps/v1/deployments", {"labelSelector": "kubesched.io/scheduler-name", "limit": "500"}),
        ("/apis/coordination.k8s.io/v1/leases", {"fieldSelector": "metadata.name=my-scheduler,metadata.namespace!=kube-node-lease", "limit": "500"}),
    ]


def test_served_names_and_lock_lease():
    deployment = {
        "metadata": {
            "labels": {serving.SCHEDULER_LABEL: "a"},
            "annotations": {serving.PROFILES_ANNOTATION: " a, b ,,c,b", serving.LEASE_ANNOTATION: "kube-system/a"},
        }
    }
    assert serving.served_names(deployment) == ["a", "b", "c"]
    assert serving.lock_lease(deployment) == ("kube-system", "a")
    deployment["metadata"]["annotations"][serving.LEASE_ANNOTATION] = "a"
    assert serving.lock_lease(deployment) is None
    del deployment["metadata"]["labels"][serving.SCHEDULER_LABEL]
    assert serving.served_names(deployment) == []


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


def test_no_scheduled_event_is_listed_when_every_bound_pod_has_a_preset_node(capsys, placements, items):
    preset = pod_named(items, "preset-worker")
    fake = placements([preset], [forged_scheduled_event(items, preset)])
    _code, result = run_module(capsys, {"namespace": "demo"})
    assert result["pods"][0]["evidence"] == "node_name_preset"
    assert fake.calls == [("pods", "demo", None, None)]


# --- paging ---------------------------------------------------------------------------------


def paged_api(kube_api, lists, expire=()):
    """A real ApiClient over a FakePool that serves ``lists[path]`` (filtered by reason for events) in pages of ``limit``.

    The continue token of the page that starts at item N is ``<path>@N``; a token of ``expire`` is answered
    410 Gone as many times as it is listed there (None: the first page).
    """
    expired = Counter(expire)

    def answer(method, path, query, body):
        items = lists[path]
        reason = dict(part.split("=", 1) for part in query.get("fieldSelector", "").split(",") if "=" in part).get("reason")
        if reason:
            items = [item for item in items if item.get("reason") == reason]
        token = query.get("continue")
        if expired[token]:
            expired[token] -= 1
            message = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter."
            return 410, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Expired", "code": 410, "message": message}
        start = int(token.rsplit("@", 1)[1]) if token else 0
        end = start + int(query["limit"])
        metadata = {"resourceVersion": "41950"}
        if end < len(items):
            metadata["continue"] = f"{path}@{end}"
        return 200, {"kind": "List", "apiVersion": "v1", "metadata": metadata, "items": items[start:end]}

    return kube_api(answer)


def renamed(obj, name, namespace=None):
    obj = copy.deepcopy(obj)
    obj["metadata"]["name"] = name
    obj["metadata"]["namespace"] = namespace or obj["metadata"]["namespace"]
    return obj


@pytest.fixture
def recorded_lists(items):
    """The recorded namespace demo as the API server lists it, with Leases and Deployments of other schedulers."""
    v1 = items("events-k8s-io-v1.json")
    lease, deployment = items("leases.json")[0], items("deployments.json")[0]
    others = [renamed(deployment, name) for name in ("team-b", "team-c")]
    for other in others:
        other["metadata"]["labels"][serving.SCHEDULER_LABEL] = other["metadata"]["name"]
    return {
        "/api/v1/namespaces/demo/pods": items("pods.json"),
        "/api/v1/namespaces/demo/events": items("events-scheduled.json") + items("events-failed.json") + v1,
        "/apis/coordination.k8s.io/v1/leases": [renamed(lease, name) for name in ("kube-controller-manager", "team-b", "team-c")] + items("leases.json"),
        "/apis/apps/v1/deployments": others + items("deployments.json"),
    }


def requests_of(pool, path):
    return [query for _method, request_path, query in pool.requests if request_path == path]


def run_in_one_page(capsys, kube_api, connect_to, lists):
    """The module's result when every list fits in one page."""
    connect_to(paged_api(kube_api, lists)[0])
    _code, result = run_module(capsys, {"namespace": "demo", "page_size": 100})
    assert len(result["pods"]) == 13
    assert result["summary"]["by_reason"] == {"Waiting": 2, "SchedulingGated": 1, "NoScheduler": 1, "FailedScheduling": 2, "Unschedulable": 1}
    return result


def test_every_list_is_read_page_by_page(capsys, kube_api, connect_to, recorded_lists):
    """The same answer as in one page, read 2 items at a time."""
    expected = run_in_one_page(capsys, kube_api, connect_to, recorded_lists)
    api, pool = paged_api(kube_api, recorded_lists)
    connect_to(api)
    code, result = run_module(capsys, {"namespace": "demo", "page_size": 2})
    assert code == 0
    assert result == expected
    pods = requests_of(pool, "/api/v1/namespaces/demo/pods")
    assert pods == [{"limit": "2"}] + [{"limit": "2", "continue": f"/api/v1/namespaces/demo/pods@{n}"} for n in range(2, 13, 2)]
    events = requests_of(pool, "/api/v1/namespaces/demo/events")
    # 4 Scheduled events (one of a deleted pod), then 3 FailedScheduling ones
    assert [query.get("continue") for query in events] == [None, "/api/v1/namespaces/demo/events@2"] * 2
    assert [query["fieldSelector"].rsplit("=", 1)[1] for query in events] == ["Scheduled"] * 2 + ["FailedScheduling"] * 2
    assert {query["limit"] for query in events} == {"2"}
    leases = "/apis/coordination.k8s.io/v1/leases"
    assert [query.get("continue") for query in requests_of(pool, leases)] == [None, f"{leases}@2", f"{leases}@4"]
    deployments = "/apis/apps/v1/deployments"
    assert [query.get("continue") for query in requests_of(pool, deployments)] == [None, f"{deployments}@2"]
    assert len(pool.requests) == 7 + 4 + 3 + 2


def test_the_default_page_size_is_500(capsys, kube_api, connect_to, recorded_lists):
    api, pool = paged_api(kube_api, recorded_lists)
    connect_to(api)
    run_module(capsys, {"namespace": "demo"})
    assert {query["limit"] for _method, _path, query in pool.requests} == {"500"}
    assert all("continue" not in query for _method, _path, query in pool.requests)


def test_an_expired_continue_token_restarts_the_list_once(capsys, kube_api, connect_to, recorded_lists):
    expected = run_in_one_page(capsys, kube_api, connect_to, recorded_lists)
    pods, events = "/api/v1/namespaces/demo/pods", "/api/v1/namespaces/demo/events"
    api, pool = paged_api(kube_api, recorded_lists, expire=[f"{pods}@9", f"{events}@3"])
    connect_to(api)
    code, result = run_module(capsys, {"namespace": "demo", "page_size": 3})
    assert code == 0
    assert result == expected  # no pod or event twice, none missing
    assert [query.get("continue") for query in requests_of(pool, pods)] == [None, f"{pods}@3", f"{pods}@6", f"{pods}@9"] * 2 + [f"{pods}@12"]
    # the Scheduled events start over too; the FailedScheduling ones fit in a page
    assert [query.get("continue") for query in requests_of(pool, events)] == [None, f"{events}@3"] * 2 + [None]


def test_a_second_expiry_fails(capsys, kube_api, connect_to, recorded_lists):
    second_page = "/api/v1/namespaces/demo/pods@4"
    api, pool = paged_api(kube_api, recorded_lists, expire=[second_page, second_page])
    connect_to(api)
    code, result = run_module(capsys, {"namespace": "demo", "page_size": 4})
    assert code == 1
    assert result["msg"].startswith("Cannot read the pod placements: API request failed (410): The provided continue parameter is too old")
    assert [query.get("continue") for query in requests_of(pool, "/api/v1/namespaces/demo/pods")] == [None, second_page] * 2


def test_an_expiry_on_the_first_page_is_not_retried(kube_api, recorded_lists):
    api, pool = paged_api(kube_api, recorded_lists, expire=[None])
    with pytest.raises(Exception, match=r"\(410\)"):
        list(placement_gather.fetch_pods(api, "demo"))
    assert len(pool.requests) == 1


class PagedList:
    """A list method of the kubernetes client, answering ``pages`` with continue tokens ``p1``, ``p2``...; the
    tokens in ``expire`` raise the API's 410 Gone (conftest's ApiError) once each."""

    def __init__(self, pages, api_error, expire=()):
        self.pages = pages
        self.api_error = api_error
        self.expire = Counter(expire)
        self.calls = []

    def __call__(self, namespace, _preload_content, limit, _continue=None, **kwargs):
        self.calls.append((namespace, limit, _continue, kwargs))
        if self.expire[_continue]:
            self.expire[_continue] -= 1
            raise self.api_error(410, "Expired", "The provided continue parameter is too old to display a consistent list result.")
        index = int(_continue[1:]) if _continue else 0
        metadata = {"continue": f"p{index + 1}"} if index + 1 < len(self.pages) else {}
        return SimpleNamespace(data=json.dumps({"metadata": metadata, "items": self.pages[index]}), headers={})


def test_list_items_follows_continue_and_restarts_on_gone(api_error):
    method = PagedList([["a", "b"], ["c", "d"], ["e"]], api_error, expire=["p2"])
    got = list(placement_gather.list_items(placement_gather.Cluster(object(), page_size=2), method, "demo", field_selector="reason=Scheduled"))
    assert got == ["a", "b", "c", "d", placement.RESTART, "a", "b", "c", "d", "e"]
    assert [call[2] for call in method.calls] == [None, "p1", "p2", None, "p1", "p2"]
    assert {(call[0], call[1]) for call in method.calls} == {("demo", 2)}
    assert {tuple(call[3].items()) for call in method.calls} == {(("field_selector", "reason=Scheduled"),)}


def test_list_items_raises_other_errors_and_a_second_gone(api_error):
    with pytest.raises(Exception, match=r"\(410\)"):
        list(placement_gather.list_items(placement_gather.Cluster(object()), PagedList([["a"], ["b"]], api_error, expire=["p1", "p1"]), "demo"))
    forbidden = PagedList([["a"], ["b"]], api_error, expire=["p1"])
    forbidden.api_error = lambda *args: api_error(403, "Forbidden", "events is forbidden")
    with pytest.raises(Exception, match=r"\(403\)"):
        list(placement_gather.list_items(placement_gather.Cluster(object()), forbidden, "demo"))


def test_pages_are_asked_for_as_they_are_consumed(kube_api, recorded_lists):
    api, pool = paged_api(kube_api, recorded_lists)
    pods = placement_gather.fetch_pods(placement_gather.Cluster(api, page_size=5), "demo")
    assert pool.requests == []
    assert next(pods)["metadata"]["name"] == "web-7d9c6b5f4-2xkqp"
    assert len(pool.requests) == 1
    assert len([next(pods) for dummy in range(5)]) == 5
    assert len(pool.requests) == 2
    assert len(list(pods)) == 7
    assert len(pool.requests) == 3


def test_events_keep_the_latest_one_per_selected_pod(items):
    failed = items("events-failed.json")
    uid = "0b6f3f0e-5a0c-4d0e-8f7a-1e2d3c4b5a07"
    latest = placement.latest_events_by_uid(iter([failed[0], placement.RESTART, *failed]), "FailedScheduling", {uid})
    assert list(latest) == [uid]
    assert latest[uid]["count"] == 4
    assert placement.latest_events_by_uid(failed, "FailedScheduling", {"another-pod"}) == {}
    assert placement.latest_events_by_uid([*failed, placement.RESTART], "FailedScheduling") == {}


@pytest.mark.parametrize("page_size", [0, -5])
def test_page_size_must_be_positive(capsys, recorded, page_size):
    code, result = run_module(capsys, {"namespace": "demo", "page_size": page_size})
    assert code == 1
    assert result["msg"] == f"page_size must be 1 or more, got {page_size}"
    assert recorded.calls == []


def test_groups_are_reported_when_a_pod_names_one(capsys, placements, items):
    # pods and PodGroups recorded on kubesched-ha with gang-scheduler (tests/unit/plugins/module_utils/test_placement.py)
    fake = placements(items("pods-gang.json"), podgroups=items("podgroups-gang.json"))
    code, result = run_module(capsys, {"namespace": "gang-fixture"})
    assert code == 0 and ("podgroups", "gang-fixture") in fake.calls
    assert result["summary"]["groups"] == {"total": 4, "bound": 1, "partly_bound": 0, "waiting": 3}
    assert [group["name"] for group in result["groups"]] == ["fits", "no-such-group", "short", "too-big"]
    assert by_name(result["pods"])["fits-0"]["pod_group"] == "fits"


def test_groups_without_the_podgroups_api_come_from_their_pods_with_a_warning(placements, items, api_error):
    # read_groups itself: how AnsibleModule reports warnings depends on what else the test process imported.
    placements(items("pods-gang.json"), podgroups=api_error(404, "NotFound", "the server could not find the requested resource"))
    records = placement_gather.gather(object(), "gang-fixture")
    warnings = []
    groups = placement_gather.read_groups(object(), records, "gang-fixture", warnings)
    assert len(groups) == 4 and {group["reason"] for group in groups} == {"PodGroupNotFound"}
    assert warnings == [
        "PodGroups could not be read (API request failed (404): the server could not find the requested resource): "
        "the groups are reported from their pods alone."
    ]
