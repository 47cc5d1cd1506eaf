# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests of the pod_placement module with the list calls replaced by recorded API objects."""

from __future__ import annotations

import copy
import json

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


# --- a preset spec.nodeName wins over any event -----------------------------------------------


def pod_named(items, name, file="pods.json"):
    return copy.deepcopy(next(pod for pod in items(file) if pod["metadata"]["name"] == name))


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
