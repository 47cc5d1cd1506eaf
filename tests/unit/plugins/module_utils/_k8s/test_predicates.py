# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests of module_utils/_k8s/predicates.py: the lease holder rule, a finished rollout, times, images and flags."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s import predicates
from ansible_collections.kubesched.scheduler.tests.unit.utils.engine_fakes import NAME, deployment
from ansible_collections.kubesched.scheduler.tests.unit.utils.inventory_fakes import DIGEST


@pytest.mark.parametrize(
    "holder, held",
    [
        ("my-scheduler-6d8f9c7b5-x2x4q_0f3c", True),
        ("my-scheduler-x2x4q_0f3c", False),
        ("my-scheduler-other-6d8f9c7b5-x2x4q", False),
        ("another-scheduler-6d8f9c7b5-x2x4q_0f3c", False),
        ("", False),
    ],
)
def test_lease_holder_rule(holder, held):
    assert predicates.held_by(holder, NAME) is held


def test_rolled_out():
    d = deployment()
    d["metadata"]["generation"] = 2
    d["status"] = {"observedGeneration": 2, "replicas": 1, "updatedReplicas": 1, "availableReplicas": 1}
    assert predicates.rolled_out(d)
    d["status"]["replicas"] = 2  # an old pod is still there
    assert not predicates.rolled_out(d)
    d["status"].update(replicas=1, observedGeneration=1)
    assert not predicates.rolled_out(d)


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


def test_split_image_keeps_a_registry_port_out_of_the_tag():
    assert predicates.split_image("localhost:5001/team/app") == ("localhost:5001/team/app", None, None)
    assert predicates.split_image("localhost:5001/team/app:1.0@" + DIGEST) == ("localhost:5001/team/app", "1.0", DIGEST)


def test_flags_are_parsed_in_every_form():
    argv = ["kube-scheduler", "--config=/etc/s.yaml", "--v", "4", "--leader-elect", "-v=5", "--feature-gates=A=true,B=false", "--profiling"]
    assert predicates.parse_flags(argv) == {"config": "/etc/s.yaml", "v": "5", "leader-elect": "true", "feature-gates": "A=true,B=false", "profiling": "true"}


@pytest.mark.parametrize(
    "spec_image, status_image, same",
    [
        ("busybox:1.36", "docker.io/library/busybox:1.36", True),
        ("localhost:5001/my-scheduler:v1", "localhost:5001/my-scheduler:v1", True),
        ("localhost:5001/my-scheduler:broken", "registry.k8s.io/kube-scheduler:v1.37.2", False),
        ("localhost:5001/my-scheduler:broken", "localhost:5001/my-scheduler:v1", False),
        ("localhost:5001/my-scheduler@sha256:" + "a" * 64, "localhost:5001/my-scheduler:v1", True),
        ("localhost:5001/my-scheduler@sha256:" + "a" * 64, "localhost:5001/my-scheduler@sha256:" + "b" * 64, False),
        ("registry.k8s.io/kube-scheduler:v1.37.2", "sha256:" + "c" * 64, True),
        ("registry.k8s.io/kube-scheduler:v1.37.2", "", True),
    ],
)
def test_same_image(spec_image, status_image, same):
    assert predicates.same_image(spec_image, status_image) is same
    assert predicates.same_image(status_image, spec_image) is same


def test_own_statuses_leaves_out_another_specs_status():
    pod = {
        "spec": {"containers": [{"name": "kube-scheduler", "image": "registry.k8s.io/kube-scheduler:v1.37.2"}]},
        "status": {"containerStatuses": [{"name": "kube-scheduler", "image": "localhost:5001/s:broken", "restartCount": 3}]},
    }
    assert predicates.own_statuses(pod)["status"]["containerStatuses"] == []
    assert pod["status"]["containerStatuses"]  # the pod read is left as it was
    pod["status"]["containerStatuses"][0]["image"] = "registry.k8s.io/kube-scheduler:v1.37.2"
    assert predicates.own_statuses(pod) is pod
