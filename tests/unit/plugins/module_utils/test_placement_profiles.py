# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""pod_placement credits a pod placed by a profile to that profile's kube-scheduler process: a second profile of a
Deployment of this collection, or of the cluster's own static kube-scheduler."""

from __future__ import annotations

import pytest

from ansible_collections.kubesched.scheduler.plugins.module_utils import placement_gather


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
