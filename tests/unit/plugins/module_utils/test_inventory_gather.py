# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests of module_utils/inventory_gather.py: the lists scheduler_info reads, page by page and in a namespace, the pods
it counts, the lists it may not read, and the module's run; through a real kubernetes ApiClient whose requests the
fake API server of tests/unit/utils/inventory_fakes.py answers."""

from __future__ import annotations

import math
from collections import Counter

from ansible_collections.kubesched.scheduler.plugins.module_utils import inventory_gather
from ansible_collections.kubesched.scheduler.tests.unit.utils import inventory_fakes
from ansible_collections.kubesched.scheduler.tests.unit.utils.inventory_fakes import (
    DEPLOYMENTS,
    LEASES,
    PODS,
    STATIC,
    FakeCluster,
    asking,
    gather,
    task_scheduler,
)

# The fixtures of the recorded kind cluster; this module's clock overrides the conftest's.
kind_cluster = inventory_fakes.kind_cluster
clock = inventory_fakes.clock
serve = inventory_fakes.serve


# --- the recorded kind cluster -------------------------------------------------------------------


def test_every_list_is_read_page_by_page(serve, kind_cluster):
    expected, _requests, _count = gather(serve, **kind_cluster)
    result, requests, count = gather(serve, page_size=2, **kind_cluster)
    assert result == expected
    leases = [lease for lease in kind_cluster["leases"] if lease["metadata"]["namespace"] != "kube-node-lease"]
    pages = {LEASES: math.ceil(len(leases) / 2), DEPLOYMENTS: 1, PODS: math.ceil(12 / 2)}
    assert Counter(path for _method, path, _query in requests) == pages
    assert count == sum(pages.values())
    assert all(query["limit"] == "2" for _method, _path, query in requests)
    pod_pages = [query for _method, path, query in requests if path == PODS]
    assert [query.get("continue") for query in pod_pages] == [None] + [f"{PODS}@{n}" for n in range(2, 12, 2)]


def test_the_pending_pods_listed_are_capped(serve, kind_cluster):
    pods = kind_cluster["pods"] + [asking(f"pod-{n:02}", "no-such-scheduler") for n in range(25)]
    result, _requests, _count = gather(serve, page_size=7, pods=pods, leases=kind_cluster["leases"])
    [entry] = result["unserved"]
    assert (entry["pods"], entry["pending"]) == (25, 25)
    assert entry["pending_pods"] == [f"demo/pod-{n:02}" for n in range(10)]


# --- namespace, errors -----------------------------------------------------------------------


def test_a_namespace_limits_the_pods_counted(serve, kind_cluster, clock):
    pod, held, config, replicaset = task_scheduler(clock)
    pods = kind_cluster["pods"] + [pod, asking("web-0", "my-scheduler"), asking("pod4", "no-such-scheduler", namespace="other")]
    # the hand-made scheduler runs in its own namespace, and its Lease is in kube-system
    pod["metadata"]["namespace"] = config["metadata"]["namespace"] = replicaset["metadata"]["namespace"] = "team-a"
    cluster = {"pods": pods, "leases": kind_cluster["leases"] + [held], "configmaps": [config], "replicasets": [replicaset]}
    result, requests, count = gather(serve, namespace="demo", **cluster)
    assert result["scheduler_names"]["my-scheduler"]["pods"] == 1
    assert "no-such-scheduler" not in result["scheduler_names"]
    assert result["default_scheduler"]["pod"] == STATIC
    assert [(entry["kind"], entry["namespace"], entry["name"]) for entry in result["schedulers"]] == [
        ("static_pod", "kube-system", STATIC),
        ("lease_holder", "team-a", "my-scheduler"),
    ]
    lists = [(path, query.get("fieldSelector")) for _method, path, query in requests if "limit" in query]
    assert lists == [
        (LEASES, "metadata.namespace!=kube-node-lease"),
        (DEPLOYMENTS, None),
        ("/api/v1/namespaces/demo/pods", None),
        ("/api/v1/namespaces/kube-system/pods", None),
        # the holders found in neither list, by name (the API server's identity Leases are held by no pod)
        (PODS, "metadata.name=my-scheduler-7b9d6c5f4-q8w2e"),
    ]
    assert count == 7


def test_forbidden_lists_are_reported_not_raised(serve, kind_cluster):
    result, _requests, _count = gather(serve, forbidden=[LEASES, DEPLOYMENTS], **kind_cluster)
    assert result["errors"] == [
        f"cannot list Leases: {LEASES} is forbidden: User cannot list it",
        f"cannot list Deployments: {DEPLOYMENTS} is forbidden: User cannot list it",
    ]
    assert result["default_scheduler"]["pod"] == STATIC
    assert result["default_scheduler"]["leader"] is None and result["leases"] == []


def test_run_reports_errors_as_warnings(kube_api, clock, kind_cluster):
    api, _pool = kube_api(FakeCluster(forbidden=[PODS], **kind_cluster))
    result = inventory_gather.run(lambda: api, {"page_size": 500})
    assert result["errors"] == [f"cannot list pods: {PODS} is forbidden: User cannot list it"]
    assert result["warnings"] == result["errors"]
    assert result["schedulers"] == [] and result["changed"] is False and result["api_requests"] == 3


def test_run_refuses_a_bad_page_size_before_connecting():
    def connect():
        raise AssertionError("connected")

    assert inventory_gather.run(connect, {"page_size": 0}) == {"changed": False, "msg": "page_size must be 1 or more, got 0"}
