# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rollout's decisions over the control-plane nodes (module_utils/static_rollout.py), on the mirror pod, Lease and
node images of the kind cluster kubesched-ha (three control-plane nodes, v1.37.2) after a change by the role: each
node's state, the order (standby nodes first, the leader's last), what a wait accepts and what ends it at once, the
canary's image and pod; and the wait and the canary against a scripted API server."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from ansible_collections.kubesched.scheduler.plugins.module_utils import static_rollout as rollout
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s import waiter

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rollout"
POD = json.loads((FIXTURES / "mirror-pod.json").read_text())
LEASE = json.loads((FIXTURES / "lease.json").read_text())
NODE = json.loads((FIXTURES / "node-images.json").read_text())
CP = ["kubesched-ha-control-plane", "kubesched-ha-control-plane2", "kubesched-ha-control-plane3"]
SHA = "5855355d7d3dfb814b1ede7f4245ed84763e3532e94d17ed6fbc175bacf18c25"
HASH = "fe0b54994fe6065f5392be08cb88aa81"
HOLDER = LEASE["spec"]["holderIdentity"]


def pod(node, **changes):
    found = copy.deepcopy(POD)
    found["metadata"]["name"] = rollout.pod_name(node)
    status = found["status"]["containerStatuses"][0]
    if "restarts" in changes:
        status["restartCount"] = changes["restarts"]
    if "waiting" in changes:
        status["state"] = {"waiting": {"reason": changes["waiting"]}}
        status["ready"] = False
        found["status"]["conditions"] = [c for c in found["status"]["conditions"] if c["type"] != "Ready"] + [{"type": "Ready", "status": "False"}]
    if "status_image" in changes:
        status["image"] = changes["status_image"]
    if "hash" in changes:
        found["metadata"]["annotations"]["kubernetes.io/config.hash"] = changes["hash"]
    if "sha" in changes:
        found["metadata"]["annotations"]["kubesched.io/config-sha256"] = changes["sha"]
    return found


def test_node_state_of_the_real_mirror_pod():
    state = rollout.node_state(CP[1], pod(CP[1]), HOLDER)
    # Read after a rollback had put this spec back: the static pod of the same spec (UID) kept its container's count.
    assert state == {
        "node": CP[1],
        "pod": "kube-scheduler-" + CP[1],
        "found": True,
        "hash": HASH,
        "config_sha256": SHA,
        "image": "registry.k8s.io/kube-scheduler:v1.37.2",
        "ready": True,
        "restarts": 1,
        "problems": [],
        "leads": True,
    }
    assert not rollout.node_state(CP[0], pod(CP[0]), HOLDER)["leads"]  # control-plane is a prefix of control-plane2
    assert rollout.node_state(CP[2], None, HOLDER)["problems"] == ["no mirror pod"]
    assert "leader" in rollout.describe(state) and "configuration 5855355d7d3d" in rollout.describe(state)


def test_a_pod_restarted_long_ago_is_healthy_and_one_that_cannot_start_is_not():
    assert rollout.node_state(CP[0], pod(CP[0], restarts=3), HOLDER)["problems"] == []
    assert rollout.node_state(CP[0], pod(CP[0], waiting="CrashLoopBackOff"), HOLDER)["problems"] == ["CrashLoopBackOff"]


def test_order_puts_standby_nodes_first_and_the_leader_last():
    states = {node: rollout.node_state(node, pod(node), HOLDER) for node in CP}
    hosts = [{"host": node, "node": node, "act": True, "config_sha256": SHA} for node in CP]
    assert rollout.order(hosts, states) == [CP[0], CP[2], CP[1]]
    hosts[0]["act"] = False
    assert rollout.order(hosts, states) == [CP[2], CP[1]]


def test_a_node_whose_files_match_is_changed_when_its_pod_runs_another_configuration_or_is_unhealthy():
    host = {"host": CP[0], "node": CP[0], "act": False, "config_sha256": SHA}
    assert rollout.why(host, rollout.node_state(CP[0], pod(CP[0]), HOLDER)) == ""
    assert "another configuration" in rollout.why(host, rollout.node_state(CP[0], pod(CP[0], sha="0" * 64), HOLDER))
    assert "not healthy (CrashLoopBackOff)" in rollout.why(host, rollout.node_state(CP[0], pod(CP[0], waiting="CrashLoopBackOff"), HOLDER))
    assert "another configuration" in rollout.why(dict(host, config_sha256=""), rollout.node_state(CP[0], pod(CP[0]), HOLDER))
    assert rollout.why(dict(host, config_sha256=None), rollout.node_state(CP[0], pod(CP[0], sha="1" * 64), HOLDER)) == ""


def test_a_node_is_changed_when_its_files_or_configuration_differ_and_only_waited_for_when_just_unhealthy():
    host = {"host": CP[0], "node": CP[0], "act": False, "config_sha256": SHA}
    healthy = rollout.node_state(CP[0], pod(CP[0]), HOLDER)
    crashing = rollout.node_state(CP[0], pod(CP[0], waiting="CrashLoopBackOff"), HOLDER)
    other = rollout.node_state(CP[0], pod(CP[0], sha="0" * 64), HOLDER)
    assert rollout.decide(host, healthy)[0] == ""
    assert rollout.decide(dict(host, act=True), healthy)[0] == "change"
    assert rollout.decide(host, other)[0] == "change"
    assert rollout.decide(dict(host, act=True), crashing)[0] == "change"
    # files that match, a pod that runs them and has not come up yet: waited for, not swapped again
    assert rollout.decide(host, crashing)[0] == "wait"
    assert rollout.decide(dict(host, config_sha256=None), crashing)[0] == "wait"
    # files that match, a pod of another configuration that is not healthy either: changed
    unhealthy_other = rollout.node_state(CP[0], pod(CP[0], sha="0" * 64, waiting="CrashLoopBackOff"), HOLDER)
    assert rollout.decide(host, unhealthy_other)[0] == "change"


def test_what_a_wait_accepts_and_what_ends_it_at_once():
    new = rollout.node_state(CP[0], pod(CP[0]), HOLDER)
    assert rollout.spec_unmet(new, {"not_hash": HASH}) == ["still the spec of before"]
    assert rollout.spec_unmet(new, {"not_hash": "old", "config_sha256": SHA, "image": new["image"]}) == []
    assert rollout.spec_unmet(new, {"config_sha256": ""}) == ["configuration 5855355d7d3d, not none"]
    crashing = rollout.node_state(CP[0], pod(CP[0], waiting="CrashLoopBackOff", restarts=2), HOLDER)
    assert rollout.failed(crashing, {"config_sha256": SHA}) == ["CrashLoopBackOff", "restarted 2 time(s)"]
    # the old pod failing is not the new one failing
    assert rollout.failed(crashing, {"not_hash": HASH}) == []
    # a pod put back on its spec keeps its count: one more restart is allowed
    assert rollout.failed(rollout.node_state(CP[0], pod(CP[0], restarts=1), HOLDER), {"hash": HASH, "restarts_allowed": 1}) == []


def test_the_status_left_by_the_manifest_replaced_is_not_the_pods_own():
    # A rollback put the spec of before back (same hash): for a moment its mirror pod still shows the container status
    # of the broken image it replaced. That is not the restored pod failing: the wait goes on.
    stale = pod(CP[0], waiting="CrashLoopBackOff", restarts=4, status_image="localhost:5001/my-scheduler:broken")
    state = rollout.node_state(CP[0], stale, HOLDER)
    assert state["problems"] == ["not Ready (the status of another spec)"] and state["restarts"] == 0 and not state["ready"]
    assert rollout.failed(state, {"hash": HASH, "restarts_allowed": 2}) == []
    # the same reason under the spec's own image is the pod's own failure
    own = rollout.node_state(CP[0], pod(CP[0], waiting="CrashLoopBackOff", restarts=4, status_image="registry.k8s.io/kube-scheduler:v1.37.2"), HOLDER)
    assert rollout.failed(own, {"hash": HASH, "restarts_allowed": 2}) == ["CrashLoopBackOff", "restarted 4 time(s)"]


class ScriptedKube:
    """Answers GETs of the Lease and the mirror pods from a script: each poll of a pod takes the next of its answers."""

    def __init__(self, pods, lease=LEASE):
        self.pods = {name: list(answers) for name, answers in pods.items()}
        self.lease = lease
        self.requests = 0
        self.created, self.deleted = [], []
        self.events = {}

    def get(self, kind, name, namespace=None, api_version=None):
        self.requests += 1
        if kind == "Lease":
            return self.lease
        answers = self.pods.get(name) or [None]
        return answers.pop(0) if len(answers) > 1 else answers[0]

    def log(self, name, namespace, previous=False, tail_lines=20):
        return "E1204 error: invalid configuration\n"

    def list(self, kind, namespace=None, label_selector=None, field_selector=None):
        if kind == "Node":
            return [NODE]
        if kind == "Event":
            name = field_selector.split(",")[0].split("=")[1]
            return self.events.get(name, [])
        return [p for p in self.created if p["metadata"]["name"] not in self.deleted]

    @staticmethod
    def path(kind, name=None, namespace=None, subresource=None, api_version=None):
        return f"/{kind}/{namespace}"

    def request(self, method, path, query=None, body=None, **kwargs):
        created = copy.deepcopy(body)
        created["metadata"]["name"] = f"kubesched-canary-{len(self.created)}"
        self.created.append(created)
        return created

    def delete(self, kind, name, namespace=None, **kwargs):
        self.deleted.append(name)
        return True


@pytest.fixture
def clock(monkeypatch):
    now = [0.0]
    monkeypatch.setattr(waiter, "monotonic", lambda: now[0])
    monkeypatch.setattr(waiter, "sleep", lambda seconds: now.__setitem__(0, now[0] + seconds))
    monkeypatch.setattr(rollout.time, "monotonic", lambda: now[0])
    return now


def test_wait_node_settles_then_passes(clock):
    kube = ScriptedKube({rollout.pod_name(CP[0]): [pod(CP[0], hash="old", sha=""), None, pod(CP[0], restarts=0)]})
    waited = rollout.wait_node(kube, CP[0], {"not_hash": "old", "config_sha256": SHA}, timeout=60)
    assert waited["ok"] and waited["reason"] == ""
    assert waited["seconds"] >= rollout.SETTLE
    assert [h["holder"] for h in waited["holders"]] == [HOLDER]


def test_wait_node_fails_at_once_on_a_crash(clock):
    kube = ScriptedKube({rollout.pod_name(CP[0]): [pod(CP[0], hash="old"), pod(CP[0], waiting="CrashLoopBackOff", restarts=1)]})
    waited = rollout.wait_node(kube, CP[0], {"not_hash": "old"}, timeout=60)
    assert not waited["ok"] and waited["seconds"] < 5
    assert waited["reason"] == "its container CrashLoopBackOff; restarted 1 time(s)"


def test_wait_node_waits_past_the_status_of_the_replaced_manifest(clock):
    stale = pod(CP[0], waiting="CrashLoopBackOff", restarts=4, status_image="localhost:5001/my-scheduler:broken")
    kube = ScriptedKube({rollout.pod_name(CP[0]): [stale, stale, pod(CP[0], restarts=2)]})
    waited = rollout.wait_node(kube, CP[0], {"hash": HASH, "restarts_allowed": 2}, timeout=60)
    assert waited["ok"], waited["reason"]


def test_wait_node_times_out_naming_what_is_missing(clock):
    kube = ScriptedKube({rollout.pod_name(CP[0]): [pod(CP[0])]})
    waited = rollout.wait_node(kube, CP[0], {"not_hash": HASH}, timeout=10)
    assert not waited["ok"] and waited["reason"] == "not the expected Ready pod after 10 s: still the spec of before"


def test_canary_image_is_the_pause_image_the_nodes_have():
    assert rollout.canary_image([NODE], "fallback") == "registry.k8s.io/pause:3.10.2"
    assert rollout.canary_image([{"status": {"images": []}}], "fallback") == "fallback"
    spec = rollout.canary_pod("binpack-scheduler", "pause", "kube-system")["spec"]
    assert spec["schedulerName"] == "binpack-scheduler" and "tolerations" not in spec and "affinity" not in spec


def test_canary_binds_a_pod_of_each_profile_and_deletes_them(clock):
    pods = {rollout.pod_name(node): [pod(node)] for node in CP}
    kube = ScriptedKube(pods)
    bound = {"spec": {"nodeName": "kubesched-ha-worker"}}

    def get(kind, name, namespace=None, api_version=None, original=kube.get):
        if kind == "Pod" and name.startswith("kubesched-canary-"):
            created = next(p for p in kube.created if p["metadata"]["name"] == name)
            return dict(created, spec=dict(created["spec"], **bound["spec"]))
        return original(kind, name, namespace, api_version)

    kube.get = get
    kube.events = {"kubesched-canary-0": [{"reportingComponent": "default-scheduler"}], "kubesched-canary-1": [{"source": {"component": "binpack-scheduler"}}]}
    done = rollout.canary(kube, CP, SHA, ["default-scheduler", "binpack-scheduler"], "kube-system", "", 30)
    assert done["ok"], done
    assert [c["scheduled_by"] for c in done["canaries"]] == ["default-scheduler", "binpack-scheduler"]
    assert done["leader"] == CP[1]
    assert kube.created[0]["spec"]["containers"][0]["image"] == "registry.k8s.io/pause:3.10.2"
    assert sorted(kube.deleted) == ["kubesched-canary-0", "kubesched-canary-1"]


def test_canary_fails_when_the_leader_runs_another_configuration(clock):
    kube = ScriptedKube({rollout.pod_name(node): [pod(node, sha="0" * 64)] for node in CP})
    done = rollout.canary(kube, CP, SHA, ["default-scheduler"], "kube-system", "pause", 5)
    assert not done["ok"] and done["reason"].startswith("no node on the new configuration leads: the leader kubesched-ha-control-plane2")
    assert kube.created == []


def test_canary_fails_at_once_when_the_profile_finds_no_node(clock):
    kube = ScriptedKube({rollout.pod_name(node): [pod(node)] for node in CP})
    unschedulable = {
        "type": "PodScheduled",
        "status": "False",
        "reason": "Unschedulable",
        "message": "0/4 nodes are available: 1 node(s) didn't match scheduler-enforced node affinity",
    }

    def get(kind, name, namespace=None, api_version=None, original=kube.get):
        if kind == "Pod" and name.startswith("kubesched-canary-"):
            return dict(kube.created[0], status={"conditions": [unschedulable]})
        return original(kind, name, namespace, api_version)

    kube.get = get
    done = rollout.canary(kube, CP, SHA, ["default-scheduler"], "kube-system", "pause", 60)
    assert not done["ok"] and "didn't match scheduler-enforced node affinity" in done["reason"]
    assert clock[0] < 5 and kube.deleted == ["kubesched-canary-0"]
