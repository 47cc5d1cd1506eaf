# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests of module_utils/inventory.py: what scheduler_info finds (its schedulers, Leases, control plane and the
schedulerNames they serve), read by inventory_gather.gather through a real kubernetes ApiClient whose requests a
fake API server answers in pages (tests/unit/utils/inventory_fakes.py), with objects recorded from the kind cluster
of `make cluster` (fixtures/inventory) and hand-made variants of them: several control planes, a Deployment of two
profiles, a scheduler installed by hand, a stale Lease, a schedulerName nothing serves."""

from __future__ import annotations

import copy
from datetime import timedelta

from pathlib import Path

import pytest
import yaml

from ansible_collections.kubesched.scheduler.plugins.module_utils import inventory, static_pod
from ansible_collections.kubesched.scheduler.tests.unit.utils import inventory_fakes
from ansible_collections.kubesched.scheduler.tests.unit.utils.inventory_fakes import (
    DEPLOYMENTS,
    DIGEST,
    HOLDER,
    IMAGE,
    LEASES,
    NODE,
    PODS,
    STATIC,
    asking,
    configmap,
    deployment,
    gather,
    lease,
    named,
    recorded,
    renewed,
    scheduler_pod,
    task_scheduler,
    time_text,
)

# The fixtures of the recorded kind cluster; this module's clock overrides the conftest's.
kind_cluster = inventory_fakes.kind_cluster
clock = inventory_fakes.clock
serve = inventory_fakes.serve


# --- the recorded kind cluster -------------------------------------------------------------------


def test_the_lab_answer_is_the_static_pod_and_its_image(serve, kind_cluster):
    result, requests, count = gather(serve, **kind_cluster)
    assert result["default_scheduler"] == {
        "pod": STATIC,
        "namespace": "kube-system",
        "node": NODE,
        "image": IMAGE,
        "version": "v1.37.2",
        "leader": True,
        "ready": True,
        "lease": "kube-system/kube-scheduler",
        "holder": named(kind_cluster["leases"], "kube-scheduler")["spec"]["holderIdentity"],
        "note": None,
    }
    [static] = result["schedulers"]
    assert static["kind"] == "static_pod"
    assert (static["name"], static["node"], static["image"], static["version"]) == (STATIC, NODE, IMAGE, "v1.37.2")
    assert static["image_id"].startswith("docker.io/library/import-") and "@sha256:" in static["image_id"]
    assert static["command"][0] == "kube-scheduler"
    assert static["flags"] == {
        "authentication-kubeconfig": "/etc/kubernetes/scheduler.conf",
        "authorization-kubeconfig": "/etc/kubernetes/scheduler.conf",
        "bind-address": "127.0.0.1",
        "kubeconfig": "/etc/kubernetes/scheduler.conf",
        "leader-elect": "true",
    }
    # kind's kubeadm runs kube-scheduler without --config: its one built-in profile
    assert (static["config"], static["profiles"], static["profiles_source"]) == (None, ["default-scheduler"], "no --config: the built-in default profile")
    assert (static["ready"], static["restarts"], static["phase"], static["leader"]) == (True, 0, "Running", True)
    assert static["serves"] == ["default-scheduler"]
    # one scheduler Lease: not the controller-manager's, the API server's identity or the nodes'
    [lease] = result["leases"]
    assert static["lease"] is lease
    assert (lease["namespace"], lease["name"], lease["live"], lease["lease_duration_seconds"]) == ("kube-system", "kube-scheduler", True, 15)
    assert lease["holder"].startswith(NODE + "_")
    assert lease["holder_pod"] == f"kube-system/{STATIC}"
    assert lease["owner"] == {"kind": "StaticPod", "namespace": "kube-system", "name": STATIC, "node": NODE}
    assert lease["scheduler"] == {"kind": "static_pod", "namespace": "kube-system", "name": STATIC}
    assert result["scheduler_names"] == {
        "default-scheduler": {
            "pods": 12,
            "pending": 0,
            "pending_pods": [],
            "served_by": [{"kind": "static_pod", "namespace": "kube-system", "name": STATIC, "running": True}],
        }
    }
    assert result["unserved"] == [] and result["errors"] == []
    # three lists, one page each, and nothing else
    assert count == 3
    assert requests == [
        ("GET", LEASES, {"limit": "500", "fieldSelector": "metadata.namespace!=kube-node-lease"}),
        ("GET", DEPLOYMENTS, {"limit": "500", "labelSelector": "kubesched.io/scheduler-name"}),
        ("GET", PODS, {"limit": "500"}),
    ]


# --- several control planes ------------------------------------------------------------------


def control_planes(kind_cluster, holder_node, renew=None):
    """The recorded cluster with kube-scheduler static pods on three control-plane nodes, the Lease held by ``holder_node``."""
    static = named(kind_cluster["pods"], STATIC)
    pods = [pod for pod in kind_cluster["pods"] if pod is not static]
    for node in (NODE, NODE + "2", NODE + "3"):
        pod = copy.deepcopy(static)
        pod["metadata"]["name"] = f"kube-scheduler-{node}"
        pod["spec"]["nodeName"] = node
        pod["metadata"]["ownerReferences"][0]["name"] = node
        pods.append(pod)
    leases = copy.deepcopy(kind_cluster["leases"])
    lease = named(leases, "kube-scheduler")
    lease["spec"]["holderIdentity"] = f"{holder_node}_7c4a1b2e-0d3f-4e5a-9b6c-8d7e6f5a4b3c"
    if renew:
        lease["spec"]["renewTime"] = renew
    return {"pods": pods, "leases": leases}


def test_with_several_control_planes_the_leader_is_the_lease_holders_node(serve, kind_cluster):
    result, _requests, count = gather(serve, **control_planes(kind_cluster, NODE + "2"))
    assert [(entry["name"], entry["leader"]) for entry in result["schedulers"]] == [
        ("kube-scheduler-kubesched-control-plane", False),
        ("kube-scheduler-kubesched-control-plane2", True),
        ("kube-scheduler-kubesched-control-plane3", False),
    ]
    assert (result["default_scheduler"]["pod"], result["default_scheduler"]["node"], result["default_scheduler"]["leader"]) == (
        "kube-scheduler-kubesched-control-plane2",
        NODE + "2",
        True,
    )
    [lease] = result["leases"]
    assert lease["holder_pod"] == "kube-system/kube-scheduler-kubesched-control-plane2"
    assert lease["scheduler"]["name"] == "kube-scheduler-kubesched-control-plane2"
    # a standby schedules nothing: only the leader serves the profile
    assert [server["running"] for server in result["scheduler_names"]["default-scheduler"]["served_by"]] == [False, True, False]
    assert result["control_plane"]["split"] is False and result["control_plane"]["standby_only_profiles"] == []
    assert [(n["node"], n["config_sha256"], n["leader"]) for n in result["control_plane"]["nodes"]] == [
        (NODE, "", False),
        (NODE + "2", "", True),
        (NODE + "3", "", False),
    ]
    assert result["errors"] == [] and count == 3


def test_a_split_control_plane_and_a_profile_only_standbys_serve_are_flagged(serve, kind_cluster):
    cluster = control_planes(kind_cluster, NODE + "2")
    standby = named(cluster["pods"], "kube-scheduler-kubesched-control-plane3")
    # as the main_scheduler role leaves a node: --config of a file on the node, its profiles and sha256 on the pod
    standby["metadata"]["annotations"].update({"kubesched.io/config-sha256": "ab" * 32, "kubesched.io/scheduler-profiles": "default-scheduler,binpack"})
    standby["spec"]["containers"][0]["command"].append("--config=/etc/kubernetes/kubesched/kube-scheduler-config.yaml")
    result, _requests, _count = gather(serve, **cluster)
    plane = result["control_plane"]
    assert plane["split"] is True and plane["standby_only_profiles"] == ["binpack"]
    assert [n["config_sha256"] for n in plane["nodes"]] == ["", "", "ab" * 32]
    assert result["errors"] == [
        "the control-plane nodes run different kube-scheduler configurations or images: kubesched-control-plane: kubeadm "
        "registry.k8s.io/kube-scheduler:v1.37.2; kubesched-control-plane2: kubeadm registry.k8s.io/kube-scheduler:v1.37.2 (leader); "
        "kubesched-control-plane3: abababababab registry.k8s.io/kube-scheduler:v1.37.2",
        "profiles served only by standby control-plane schedulers, not by the leader: binpack (their pods stay Pending)",
    ]
    assert result["scheduler_names"]["binpack"]["served_by"] == [
        {"kind": "static_pod", "namespace": "kube-system", "name": "kube-scheduler-kubesched-control-plane3", "running": False}
    ]


def test_with_an_expired_lease_no_control_plane_leads_and_the_first_ready_one_answers(serve, kind_cluster, clock):
    cluster = control_planes(kind_cluster, NODE + "3")
    for pod in cluster["pods"]:
        if pod["metadata"]["name"] == STATIC:
            pod["status"]["conditions"] = [{"type": "Ready", "status": "False"}]
    clock.set(renewed(named(cluster["leases"], "kube-scheduler")) + timedelta(minutes=5))
    result, _requests, _count = gather(serve, **cluster)
    assert [entry["leader"] for entry in result["schedulers"]] == [False, False, False]
    assert result["default_scheduler"]["pod"] == "kube-scheduler-kubesched-control-plane2"
    assert result["default_scheduler"]["leader"] is False
    assert result["leases"][0]["live"] is False
    assert "expired 4m" in result["leases"][0]["text"]
    # two of the three static pods are ready: default-scheduler is served
    assert result["unserved"] == []


def test_a_default_lock_held_by_another_scheduler_is_reported(serve, kind_cluster):
    cluster = copy.deepcopy(kind_cluster)
    named(cluster["leases"], "kube-scheduler")["spec"]["holderIdentity"] = "coredns-bcfc556f5-bfx4s_0a1b2c3d"
    result, _requests, _count = gather(serve, **cluster)
    assert result["schedulers"][0]["leader"] is False
    assert result["leases"][0]["holder_pod"] == "kube-system/coredns-bcfc556f5-bfx4s"
    # its ReplicaSet is not recorded (404): the Deployment is named by the pod's pod-template-hash
    assert result["leases"][0]["owner"] == {"kind": "Deployment", "namespace": "kube-system", "name": "coredns"}
    [error] = result["errors"]
    assert error.startswith("Lease kube-system/kube-scheduler, the lock of the kube-scheduler static pods, is held by coredns-bcfc556f5-bfx4s_0a1b2c3d")


def test_a_managed_control_plane_shows_only_its_lease(serve, kind_cluster):
    pods = [pod for pod in kind_cluster["pods"] if pod["metadata"]["name"] != STATIC]
    result, _requests, _count = gather(serve, pods=pods, leases=kind_cluster["leases"])
    assert result["schedulers"] == []
    assert result["default_scheduler"]["pod"] is None
    assert result["default_scheduler"]["lease"] == "kube-system/kube-scheduler"
    assert "no kube-scheduler static pod" in result["default_scheduler"]["note"]
    # nothing is found for default-scheduler: taken to be served by the control plane the API does not show
    assert result["scheduler_names"]["default-scheduler"]["served_by"] == []
    assert result["unserved"] == []


# --- a Deployment of this collection ------------------------------------------------------------


def test_the_recorded_deployment_of_two_replicas_and_its_leader(serve, kind_cluster, clock):
    """Recorded during molecule's leader_election scenario: two replicas, the Lease in its own namespace."""
    leases = recorded("leases-leader-election.json")
    clock.set(renewed(named(leases, "my-scheduler")) + timedelta(seconds=3))
    cluster = {
        "pods": kind_cluster["pods"] + recorded("scheduler-pods.json"),
        "leases": leases,
        "deployments": recorded("deployments.json"),
        "configmaps": recorded("scheduler-configmaps.json"),
    }
    result, requests, count = gather(serve, **cluster)
    static, mine = result["schedulers"]
    assert static["leader"] is True and result["default_scheduler"]["pod"] == STATIC
    assert (mine["kind"], mine["namespace"], mine["name"]) == ("deployment", "kube-system", "my-scheduler")
    assert mine["image"].startswith("localhost:5001/my-scheduler:v1.37.2@sha256:") and mine["version"] == "v1.37.2"
    assert (mine["replicas"], mine["ready_replicas"], mine["ready"]) == (2, 2, True)
    assert mine["flags"] == {"config": "/etc/kubernetes/my-scheduler/my-scheduler-config.yaml", "v": "2"}
    assert (mine["profiles"], mine["serves"]) == (["my-scheduler"], ["my-scheduler"])
    assert mine["profiles_source"] == "ConfigMap kube-system/my-scheduler-config, key my-scheduler-config.yaml"
    # the leader is the replica whose name is the Lease's holder identity, on its node
    assert (mine["leader"], mine["node"]) == (True, "kubesched-worker2")
    lock = mine["lease"]
    assert (lock["namespace"], lock["name"], lock["live"]) == ("kubesched-locks", "my-scheduler", True)
    assert lock["holder_pod"] == "kube-system/my-scheduler-cb76b697c-65nx2"
    assert lock["owner"] == {"kind": "Deployment", "namespace": "kube-system", "name": "my-scheduler"}
    assert [(lease["namespace"], lease["name"]) for lease in result["leases"]] == [("kube-system", "kube-scheduler"), ("kubesched-locks", "my-scheduler")]
    assert result["scheduler_names"]["my-scheduler"] == {
        "pods": 0,
        "pending": 0,
        "pending_pods": [],
        "served_by": [{"kind": "deployment", "namespace": "kube-system", "name": "my-scheduler", "running": True}],
    }
    assert result["unserved"] == [] and result["errors"] == []
    # and, beside a Deployment of this collection, one list of its dedicated ClusterRoles (none here)
    assert count == 5 and result["dedicated_roles"] == []
    assert requests[-2] == ("GET", "/api/v1/namespaces/kube-system/configmaps/my-scheduler-config", {})
    assert requests[-1][1] == "/apis/rbac.authorization.k8s.io/v1/clusterroles"


# --- a Deployment with two profiles, and pods asking for them --------------------------------------


@pytest.fixture
def second_scheduler(kind_cluster, clock):
    """The recorded cluster with the deploy role's scheduler my-scheduler (two profiles), its pod holding its Lease,
    and pods asking for both profiles and for a name nothing serves."""
    now = time_text(clock.now - timedelta(seconds=2))
    return {
        "pods": kind_cluster["pods"]
        + [
            scheduler_pod(),
            asking("web-0", "my-scheduler", node="kubesched-worker"),
            asking("web-1", "my-scheduler"),
            asking("batch-0", "my-scheduler-batch", node="kubesched-worker2"),
            asking("pod3", "no-such-scheduler"),
            asking("pod4", "no-such-scheduler", namespace="other"),
        ],
        "leases": kind_cluster["leases"] + [lease("my-scheduler", f"{HOLDER}_8e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b", now)],
        "deployments": [deployment()],
        "configmaps": [configmap()],
    }


def test_a_deployment_of_two_profiles_serves_both(serve, second_scheduler):
    result, requests, count = gather(serve, **second_scheduler)
    static, mine = result["schedulers"]
    assert static["kind"] == "static_pod"
    assert mine["kind"] == "deployment"
    assert (mine["namespace"], mine["name"], mine["node"]) == ("kube-system", "my-scheduler", "kubesched-worker")
    assert (mine["image"], mine["version"]) == (f"localhost:5001/my-scheduler:v1.37.2@{DIGEST}", "v1.37.2")
    assert mine["flags"] == {"config": "/etc/kubernetes/my-scheduler/my-scheduler-config.yaml", "v": "2"}
    assert mine["profiles"] == ["my-scheduler", "my-scheduler-batch"]
    assert mine["profiles_source"] == "ConfigMap kube-system/my-scheduler-config, key my-scheduler-config.yaml"
    assert (mine["replicas"], mine["ready_replicas"], mine["ready"], mine["leader"]) == (1, 1, True, True)
    assert mine["serves"] == ["my-scheduler", "my-scheduler-batch"]
    assert mine["lease"]["live"] is True
    assert mine["lease"]["holder_pod"] == f"kube-system/{HOLDER}"
    assert mine["lease"]["owner"] == {"kind": "Deployment", "namespace": "kube-system", "name": "my-scheduler"}
    assert [(lease["namespace"], lease["name"]) for lease in result["leases"]] == [("kube-system", "kube-scheduler"), ("kube-system", "my-scheduler")]
    names = result["scheduler_names"]
    running = [{"kind": "deployment", "namespace": "kube-system", "name": "my-scheduler", "running": True}]
    assert names["my-scheduler"] == {"pods": 2, "pending": 1, "pending_pods": ["demo/web-1"], "served_by": running}
    assert names["my-scheduler-batch"] == {"pods": 1, "pending": 0, "pending_pods": [], "served_by": running}
    assert names["default-scheduler"]["pods"] == 13  # the recorded pods and the scheduler's own
    assert result["unserved"] == [
        {
            "scheduler_name": "no-such-scheduler",
            "reason": "NoScheduler",
            "pods": 2,
            "pending": 2,
            "pending_pods": ["demo/pod3", "other/pod4"],
            "found": [],
        }
    ]
    # three lists and the one ConfigMap; the Deployment's holder needs no ReplicaSet
    # and, beside a Deployment of this collection, one list of its dedicated ClusterRoles (none here)
    assert count == 5 and result["dedicated_roles"] == []
    assert requests[-2] == ("GET", "/api/v1/namespaces/kube-system/configmaps/my-scheduler-config", {})
    assert requests[-1][1] == "/apis/rbac.authorization.k8s.io/v1/clusterroles"


def test_a_dedicated_role_that_lacks_what_a_gate_added_is_reported(serve, second_scheduler):
    # my-scheduler's dedicated ClusterRole as made on 1.37 with the default gates; then the API servers got
    # GenericWorkload, and system:kube-scheduler the PodGroups' rules (both recorded on kind clusters).
    import yaml

    from ansible_collections.kubesched.scheduler.plugins.module_utils.lock import NAME_LABEL, follow_cluster_role

    roles = Path(__file__).resolve().parents[1] / "fixtures" / "clusterrole"
    before = yaml.safe_load((roles / "system-kube-scheduler-1.37.yaml").read_text())["rules"]
    gated = yaml.safe_load((roles / "system-kube-scheduler-1.37-GenericWorkload.yaml").read_text())["rules"]
    dedicated = {"metadata": {"name": "my-scheduler-scheduler", "labels": {NAME_LABEL: "my-scheduler"}}, "rules": follow_cluster_role(before, "my-scheduler")}
    second_scheduler["clusterroles"] = [dedicated, {"metadata": {"name": "system:kube-scheduler"}, "rules": gated}]
    result, _requests, count = gather(serve, **second_scheduler)
    lacks = "podgroups.scheduling.k8s.io get,list,watch; podgroups/status.scheduling.k8s.io patch,update"
    assert result["dedicated_roles"] == [{"name": "my-scheduler-scheduler", "scheduler": "my-scheduler", "lacks": lacks}]
    assert result["errors"] == [
        f"the dedicated ClusterRole my-scheduler-scheduler of my-scheduler lacks what system:kube-scheduler grants since (a gate "
        f"turned on, an upgrade): {lacks}; run the deploy role for my-scheduler again, which makes it follow the cluster's"
    ]
    assert count == 6  # the list of dedicated ClusterRoles, and system:kube-scheduler
    dedicated["rules"] = follow_cluster_role(gated, "my-scheduler")
    result, _requests, _count = gather(serve, **second_scheduler)
    assert result["dedicated_roles"][0]["lacks"] == "" and result["errors"] == []


def test_an_unreadable_configmap_leaves_the_annotation(serve, second_scheduler):
    second_scheduler["configmaps"] = []
    result, _requests, _count = gather(serve, **second_scheduler)
    mine = result["schedulers"][1]
    assert mine["profiles"] is None
    assert mine["profiles_source"] == "ConfigMap kube-system/my-scheduler-config does not exist"
    assert mine["serves"] == ["my-scheduler", "my-scheduler-batch"]  # its label and kubesched.io/scheduler-profiles


def test_a_stopped_deployment_with_a_stale_lease_does_not_serve(serve, second_scheduler, clock):
    second_scheduler["deployments"] = [deployment(ready=0)]
    stale = clock.now - timedelta(hours=2)
    second_scheduler["leases"][-1] = lease("my-scheduler", f"{HOLDER}_8e1f2a3b", time_text(stale))
    second_scheduler["pods"] = [pod for pod in second_scheduler["pods"] if pod["metadata"]["name"] != HOLDER]
    result, _requests, _count = gather(serve, **second_scheduler)
    mine = result["schedulers"][1]
    assert (mine["ready"], mine["leader"], mine["node"]) == (False, False, None)
    assert mine["lease"]["live"] is False
    assert mine["lease"]["holder_pod"] is None
    assert "expired 1h59m ago" in mine["lease"]["text"]
    unserved = {entry["scheduler_name"]: entry for entry in result["unserved"]}
    assert unserved["my-scheduler"]["reason"] == "SchedulerNotRunning"
    assert unserved["my-scheduler"]["found"] == ["deployment kube-system/my-scheduler"]
    assert unserved["my-scheduler-batch"]["reason"] == "SchedulerNotRunning"
    assert unserved["no-such-scheduler"]["reason"] == "NoScheduler"


def test_a_stale_lease_named_after_a_scheduler_name_is_reported_and_does_not_serve(serve, kind_cluster, clock):
    stale = lease("gone-scheduler", "gone-scheduler-5f6d7c8b9-abcde_1234", time_text(clock.now - timedelta(minutes=10)))
    cluster = {"pods": kind_cluster["pods"] + [asking("job-0", "gone-scheduler")], "leases": kind_cluster["leases"] + [stale]}
    result, _requests, _count = gather(serve, **cluster)
    gone = next(entry for entry in result["leases"] if entry["name"] == "gone-scheduler")
    assert (gone["live"], gone["holder_pod"], gone["scheduler"]) == (False, None, None)
    assert gone["text"].endswith("expired 9m45s ago")
    assert result["scheduler_names"]["gone-scheduler"]["served_by"] == [
        {"kind": "lease", "namespace": "kube-system", "name": "gone-scheduler", "running": False}
    ]
    assert result["unserved"] == [
        {
            "scheduler_name": "gone-scheduler",
            "reason": "SchedulerNotRunning",
            "pods": 1,
            "pending": 1,
            "pending_pods": ["demo/job-0"],
            "found": ["lease kube-system/gone-scheduler"],
        }
    ]
    assert [entry["kind"] for entry in result["schedulers"]] == ["static_pod"]


# --- a scheduler installed by hand (the Kubernetes task's my-scheduler.yaml) ---------------------------


def test_a_hand_made_scheduler_holding_a_lease_is_found(serve, kind_cluster, clock):
    pod, held, config, replicaset = task_scheduler(clock)
    cluster = {
        "pods": kind_cluster["pods"] + [pod, asking("pod2", "my-scheduler", node="kubesched-worker")],
        "leases": kind_cluster["leases"] + [held],
        "configmaps": [config],
        "replicasets": [replicaset],
    }
    result, requests, count = gather(serve, **cluster)
    static, mine = result["schedulers"]
    assert mine["kind"] == "lease_holder"
    assert (mine["namespace"], mine["name"], mine["pod"], mine["node"]) == ("kube-system", "my-scheduler", "my-scheduler-7b9d6c5f4-q8w2e", "kubesched-worker")
    assert (mine["image"], mine["version"], mine["restarts"]) == ("gcr.io/my-gcp-project/my-kube-scheduler:1.0", "1.0", 1)
    assert mine["owner"] == {"kind": "Deployment", "namespace": "kube-system", "name": "my-scheduler"}
    assert mine["profiles"] == ["my-scheduler"] and mine["serves"] == ["my-scheduler"]
    assert (mine["ready"], mine["leader"], mine["lease"]["live"]) == (True, True, True)
    assert mine["lease"]["scheduler"] == {"kind": "lease_holder", "namespace": "kube-system", "name": "my-scheduler"}
    assert result["scheduler_names"]["my-scheduler"]["served_by"] == [
        {"kind": "lease_holder", "namespace": "kube-system", "name": "my-scheduler", "running": True}
    ]
    assert result["unserved"] == []
    # the kube-controller-manager's Lease, held by a node, is not a scheduler's
    assert [lease["name"] for lease in result["leases"]] == ["kube-scheduler", "my-scheduler"]
    assert count == 5
    assert sorted(path for _method, path, _query in requests[3:]) == [
        "/api/v1/namespaces/kube-system/configmaps/my-scheduler-config",
        "/apis/apps/v1/namespaces/kube-system/replicasets/my-scheduler-7b9d6c5f4",
    ]


def test_a_forbidden_replicaset_names_the_deployment_by_its_pod_template_hash(serve, kind_cluster, clock):
    pod, held, config, dummy = task_scheduler(clock)
    cluster = {"pods": kind_cluster["pods"] + [pod], "leases": kind_cluster["leases"] + [held], "configmaps": [config]}
    cluster["forbidden"] = ["/apis/apps/v1/namespaces/kube-system/replicasets/my-scheduler-7b9d6c5f4"]
    result, _requests, _count = gather(serve, **cluster)
    assert result["schedulers"][1]["owner"] == {"kind": "Deployment", "namespace": "kube-system", "name": "my-scheduler"}
    assert result["errors"] == []


def test_a_lease_held_by_a_pod_that_is_no_scheduler_is_left_out(serve, kind_cluster, clock):
    held = lease("cert-manager-controller", "coredns-bcfc556f5-bfx4s_0a1b", time_text(clock.now))
    result, _requests, count = gather(serve, pods=kind_cluster["pods"], leases=kind_cluster["leases"] + [held])
    assert [lease["name"] for lease in result["leases"]] == ["kube-scheduler"]
    assert count == 3  # no ReplicaSet read for it


# --- a configuration file on the node --------------------------------------------------------


def test_a_config_file_on_the_node_is_not_readable(kind_cluster):
    """kubeadm's --config, when set (ClusterConfiguration's scheduler.extraArgs), is a hostPath file."""
    pod = copy.deepcopy(named(kind_cluster["pods"], STATIC))
    container = pod["spec"]["containers"][0]
    container["command"].append("--config=/etc/kubernetes/scheduler-config.yaml")
    container["volumeMounts"].append({"name": "config", "mountPath": "/etc/kubernetes/scheduler-config.yaml", "readOnly": True})
    pod["spec"]["volumes"].append({"name": "config", "hostPath": {"path": "/etc/kubernetes/scheduler-config.yaml", "type": "FileOrCreate"}})

    def get_configmap(namespace, name):
        raise AssertionError("no ConfigMap to read")

    entry = inventory.static_scheduler(pod, get_configmap)
    assert entry["profiles"] is None
    assert entry["profiles_source"] == "not readable through the API (on the node: /etc/kubernetes/scheduler-config.yaml)"
    assert entry["serves"] == ["default-scheduler"]
    assert entry["config"] == "/etc/kubernetes/scheduler-config.yaml"


def test_a_config_file_on_the_node_tells_its_profiles_by_the_main_scheduler_annotation(kind_cluster):
    """The main_scheduler role writes the profiles beside the file's sha256 on the static pod (static_pod.patch_pod)."""
    pod = yaml.safe_load(
        static_pod.patch_manifest(
            yaml.safe_dump(dict(named(kind_cluster["pods"], STATIC), apiVersion="v1", kind="Pod")),
            "/etc/kubernetes/kubesched/kube-scheduler-config.yaml",
            config_sha256="abc",
            profiles=["default-scheduler", "binpack-scheduler"],
        )
    )

    def get_configmap(namespace, name):
        raise AssertionError("no ConfigMap to read")

    entry = inventory.static_scheduler(pod, get_configmap)
    assert entry["profiles"] == entry["serves"] == ["default-scheduler", "binpack-scheduler"]
    assert entry["profiles_source"] == (
        "annotation kubesched.io/scheduler-profiles (the file is on the node: /etc/kubernetes/kubesched/kube-scheduler-config.yaml)"
    )
