# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests of module_utils/placement_gather.py: the list calls of a poll and the lookups of what serves a schedulerName,
with the list calls replaced by recorded API objects (fixtures/placement) or answered through a real client; the
module's run and its wait; the process a pod's profile belongs to; and the pods the kubelet rejected after a bind."""

from __future__ import annotations

import copy

import pytest

from ansible_collections.kubesched.scheduler.plugins.module_utils import placement
from ansible_collections.kubesched.scheduler.plugins.module_utils import placement_gather
from ansible_collections.kubesched.scheduler.tests.unit.utils.placement_records import EXPECTED, FORBIDDEN_LEASES, by_name


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


# --- the process of a profile ----------------------------------------------------------------
# pod_placement credits a pod placed by a profile to that profile's kube-scheduler process: a second profile of a
# Deployment of this collection, or of the cluster's own static kube-scheduler.


def bound(name, scheduler, node="kwok-node-0", namespace="demo"):
    """A pod bound by ``scheduler`` (its PodScheduled condition true; no event, so the pod is the evidence)."""
    return {
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}"},
        "spec": {"schedulerName": scheduler, "nodeName": node},
        "status": {"phase": "Running", "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-12-01T10:00:00Z"}]},
    }


def pending(name, scheduler, namespace="demo"):
    return {
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}"},
        "spec": {"schedulerName": scheduler},
        "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/4 nodes"}]},
    }


def main_scheduler(node, profiles=None, args=()):
    annotations = {"kubernetes.io/config.mirror": "abc"}
    if profiles:
        annotations["kubesched.io/scheduler-profiles"] = ",".join(profiles)
    return {
        "metadata": {
            "name": f"kube-scheduler-{node}",
            "namespace": "kube-system",
            "uid": f"uid-ks-{node}",
            "annotations": annotations,
            "labels": {"component": "kube-scheduler"},
        },
        "spec": {"nodeName": node, "containers": [{"name": "kube-scheduler", "command": ["kube-scheduler", *args]}]},
        "status": {"phase": "Running"},
    }


def deployment(name, profiles, namespace="kube-system"):
    return {
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"kubesched.io/scheduler-name": name},
            "annotations": {"kubesched.io/scheduler-profiles": ",".join([name, *profiles])},
        },
    }


def test_a_second_profile_of_the_main_scheduler_meets_default_scheduler(placements):
    fake = placements(
        [bound("web", "default-scheduler"), bound("batch", "binpack-scheduler"), main_scheduler("cp-1", ["default-scheduler", "binpack-scheduler"])]
    )
    outcome = placement_gather.run(object, {"namespace": "demo", "scheduler_name": "default-scheduler", "state": "scheduled"})
    assert "msg" not in outcome and outcome["unmet"] == []
    assert {p["name"]: p["scheduler_process"] for p in outcome["pods"]} == {
        "batch": "static Pod kube-system/kube-scheduler-cp-1",
        "web": "static Pod kube-system/kube-scheduler-cp-1",
    }
    # the pods and their Scheduled events, then the lookup once: the Deployments, kube-system's kube-scheduler pods
    assert fake.calls == [
        ("pods", "demo", None, None),
        ("events", "demo", "Scheduled", None),
        ("deployments", ("default-scheduler", "binpack-scheduler")),
        ("pods", "kube-system", "component=kube-scheduler", None),
    ]


def test_a_second_profile_of_a_deployment_meets_its_name(placements):
    placements(
        [bound("a", "my-scheduler"), bound("b", "my-scheduler-batch"), pending("c", "my-scheduler-batch")],
        deployments=[deployment("my-scheduler", ["my-scheduler-batch"])],
    )
    outcome = placement_gather.run(object, {"namespace": "demo", "names": ["a", "b"], "scheduler_name": "my-scheduler", "state": "scheduled"})
    assert outcome["unmet"] == [] and {p["scheduler_process"] for p in outcome["pods"]} == {"Deployment kube-system/my-scheduler"}
    # a pending pod of the other profile asks for the same process: state=pending with scheduler_name holds for it
    outcome = placement_gather.run(object, {"namespace": "demo", "names": ["c"], "scheduler_name": "my-scheduler", "state": "pending"})
    assert outcome["unmet"] == []


@pytest.mark.parametrize(
    ("static", "deployments"),
    [
        # kubeadm's kube-scheduler serves default-scheduler only
        ([main_scheduler("cp-1")], []),
        # another process serves the other name
        ([main_scheduler("cp-1")], [deployment("binpack-scheduler", [])]),
        # a static kube-scheduler with its own --scheduler-name is not the default one
        ([main_scheduler("cp-1", args=["--scheduler-name=binpack-scheduler"])], []),
    ],
    ids=["kubeadm", "another-process", "scheduler-name-flag"],
)
def test_a_pod_of_another_process_does_not_meet_it(placements, static, deployments):
    placements([bound("batch", "binpack-scheduler"), *static], deployments=deployments)
    outcome = placement_gather.run(object, {"namespace": "demo", "scheduler_name": "default-scheduler", "state": "scheduled"})
    assert outcome["unmet"] == [{"namespace": "demo", "name": "batch", "problems": ["placed by binpack-scheduler, expected default-scheduler"]}]


def test_no_lookup_when_every_pod_names_the_expected_scheduler(placements):
    fake = placements([bound("web", "my-scheduler")])
    outcome = placement_gather.run(object, {"namespace": "demo", "scheduler_name": "my-scheduler", "state": "scheduled"})
    assert outcome["unmet"] == [] and outcome["pods"][0]["scheduler_process"] is None
    assert fake.calls == [("pods", "demo", None, None), ("events", "demo", "Scheduled", None)]


def test_a_forbidden_lookup_is_a_warning_and_the_names_are_compared_exactly(placements, monkeypatch, api_error):
    placements([bound("batch", "binpack-scheduler")])

    def forbidden(api, names):
        raise api_error(403, "Forbidden", "deployments.apps is forbidden")

    monkeypatch.setattr(placement_gather, "fetch_deployments", forbidden)
    outcome = placement_gather.run(object, {"namespace": "demo", "scheduler_name": "default-scheduler", "state": "scheduled"})
    assert outcome["unmet"][0]["problems"] == ["placed by binpack-scheduler, expected default-scheduler"]
    assert outcome["warnings"][0].startswith("Which process serves each profile was not looked up: cannot list Deployments: API request failed (403)")


# --- pods the kubelet rejected after a bind --------------------------------------------------
# Pods the kubelet rejected after a bind, from the real kind cluster (v1.37.2): on the node kubesched-worker2 (2 CPUs),
# the pod ``admitted`` (1200m) was bound by the second scheduler pool-scheduler and runs; then the pod ``rejected`` (1200m),
# whose schedulerName nothing serves, was bound through the pods/binding subresource by a second binder, which wrote its
# Scheduled event as a scheduler does (reportingController kubesched-second-binder); its kubelet refused it with OutOfcpu
# (fixtures/placement/rejected-*.json, the pods with their managedFields).

NS = "kubesched-pool-default"
KUBELET = "Pod was rejected: Node didn't have enough resource: cpu, requested: 1200, used: 1210, capacity: 2000"


@pytest.fixture
def rejected(placements, items):
    return placements(items("rejected-pods.json"), items("rejected-events-scheduled.json"))


def records(**kwargs):
    return {record["name"]: record for record in placement_gather.gather(object(), NS, **kwargs)}


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
