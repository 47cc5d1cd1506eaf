# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The decisions of a change of the cluster's main scheduler over its control-plane nodes, read from the API server.

Each control-plane node runs kube-scheduler as a static pod; the API server shows it as the node's mirror pod
``kube-scheduler-<node>`` (its ``kubernetes.io/config.hash`` names the manifest it runs, the annotation
``kubesched.io/config-sha256`` the configuration the role wrote). One of them leads, on the Lease
``kube-system/kube-scheduler`` (holder ``<node's hostname>_<uuid>``). From these: the state of every node, the order of a
change (standby nodes first, the leader's node last, so that leadership moves once), the wait for one node's new pod,
and the canary: the Lease held by a node on the new configuration and one pod per profile bound by that profile.
"""

from __future__ import annotations

import time
from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s import predicates
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.waiter import poll_until
from ansible_collections.kubesched.scheduler.plugins.module_utils.kube import Kube
from ansible_collections.kubesched.scheduler.plugins.module_utils.static_pod import HASH_ANNOTATION

NAMESPACE = "kube-system"
LEASE = "kube-scheduler"
SPEC_HASH = "kubernetes.io/config.hash"
CANARY_LABEL = "kubesched.io/canary"
# How long a node's new pod must stay Ready with its container not restarting before the node counts as changed.
SETTLE = 3.0
POLL = 0.5


def pod_name(node: str) -> str:
    return f"kube-scheduler-{node}"


def node_state(node: str, pod: Optional[Dict[str, Any]], holder: str) -> Dict[str, Any]:
    """What the API server shows of a node's scheduler: its mirror pod's spec hash, configuration sha256 ('' for
    kubeadm's own manifest), image, readiness, restarts, why its container cannot start, whether it leads."""
    leads = bool(holder) and (predicates.holder_pod(holder) or "").lower() == node.lower()
    if not pod:
        return {
            "node": node,
            "pod": pod_name(node),
            "found": False,
            "hash": "",
            "config_sha256": "",
            "image": "",
            "ready": False,
            "restarts": 0,
            "problems": ["no mirror pod"],
            "leads": leads,
        }
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    container = predicates.scheduler_container(pod.get("spec")) or {}
    own = predicates.own_statuses(pod)
    problems = predicates.cannot_start([own], restarts_before=predicates.restarts([own]))
    ready = predicates.pod_ready(pod) and own is pod
    if not ready and not problems:
        problems.append("not Ready" if own is pod else "not Ready (the status of another spec)")
    return {
        "node": node,
        "pod": pod_name(node),
        "found": True,
        "hash": annotations.get(SPEC_HASH, ""),
        "config_sha256": annotations.get(HASH_ANNOTATION, ""),
        "image": container.get("image", ""),
        "ready": ready,
        "restarts": predicates.restarts([own]),
        "problems": problems,
        "leads": leads,
    }


def describe(state: Dict[str, Any]) -> str:
    """A node's state in a few words, for reports and failures."""
    config = f"configuration {state['config_sha256'][:12]}" if state["config_sha256"] else "kubeadm's manifest"
    health = "Ready" if state["ready"] and not state["problems"] else ", ".join(state["problems"]) or "not Ready"
    return f"{state['node']}: {config}, {state['image'] or 'no image'}, {health}" + (", leader" if state["leads"] else "")


def decide(host: Dict[str, Any], state: Dict[str, Any]) -> Tuple[str, str]:
    """What the rollout does on a node, and why: ``change`` when its files differ or its pod runs another
    configuration (its files written and swapped in, then its pod waited for); ``wait`` when its files match and its
    pod runs them but is not healthy yet (a run stopped during its wait, a manifest just put back from aside, a node
    that did not come back): only waited for, as a swap of the same spec would restart a container that ran moments
    before and the kubelet would hold it back in CrashLoopBackOff; ``''`` with no reason when there is nothing to do."""
    if host.get("act"):
        return "change", "its files differ"
    if host.get("config_sha256") is not None and state["config_sha256"] != host["config_sha256"]:
        return "change", "its files match but its pod runs another configuration"
    if not state["ready"] or state["problems"]:
        return "wait", "its files match but its pod is not healthy (" + (", ".join(state["problems"]) or "not Ready") + ")"
    return "", ""


def why(host: Dict[str, Any], state: Dict[str, Any]) -> str:
    """Why a node is to be changed or waited for ('' when it is not)."""
    return decide(host, state)[1]


def order(hosts: List[Dict[str, Any]], states: Dict[str, Dict[str, Any]]) -> List[str]:
    """The hosts to act on, standby nodes first (in the inventory's order) and the leader's node last."""
    acting = [host for host in hosts if why(host, states[host["node"]])]
    standby = [host["host"] for host in acting if not states[host["node"]]["leads"]]
    leader = [host["host"] for host in acting if states[host["node"]]["leads"]]
    return standby + leader


def read(kube: Kube, nodes: List[str]) -> Dict[str, Any]:
    """Every node's state and the Lease's holder."""
    lease = kube.get("Lease", LEASE, NAMESPACE)
    holder = predicates.lease_holder(lease)
    states = {node: node_state(node, kube.get("Pod", pod_name(node), NAMESPACE), holder) for node in nodes}
    return {"holder": holder, "states": states}


def split(states: Dict[str, Dict[str, Any]]) -> bool:
    """Whether the nodes run different manifests (configurations or images)."""
    return len({(state["config_sha256"], state["image"]) for state in states.values()}) > 1


def spec_unmet(state: Dict[str, Any], expect: Dict[str, Any]) -> List[str]:
    """How a node's pod differs from the one expected: ``expect`` has ``hash`` (the same spec), ``not_hash`` (a spec
    other than this one), ``config_sha256`` and ``image`` (each checked when given; '' is kubeadm's configuration)."""
    if not state["found"]:
        return ["no mirror pod yet"]
    unmet = []
    if expect.get("hash") and state["hash"] != expect["hash"]:
        unmet.append(f"spec {state['hash'][:12]}, not {expect['hash'][:12]}")
    if expect.get("not_hash") and state["hash"] == expect["not_hash"]:
        unmet.append("still the spec of before")
    if expect.get("config_sha256") is not None and state["config_sha256"] != expect["config_sha256"]:
        unmet.append(f"configuration {state['config_sha256'][:12] or 'none'}, not {expect['config_sha256'][:12] or 'none'}")
    if expect.get("image") and state["image"] != expect["image"]:
        unmet.append(f"image {state['image']}, not {expect['image']}")
    return unmet


def failed(state: Dict[str, Any], expect: Dict[str, Any]) -> List[str]:
    """Why the expected pod will not become a running scheduler without another change: its container cannot start,
    or it restarted more than ``expect["restarts_allowed"]`` times (0: a new spec's container starts with none)."""
    if spec_unmet(state, expect):
        return []
    reasons = [problem for problem in state["problems"] if not problem.startswith("not Ready")]
    if state["restarts"] > int(expect.get("restarts_allowed") or 0):
        reasons.append(f"restarted {state['restarts']} time(s)")
    return reasons


def wait_node(kube: Kube, node: str, expect: Dict[str, Any], timeout: float, settle: float = SETTLE) -> Dict[str, Any]:
    """Poll the node's mirror pod until it is the one expected, Ready, its container not restarting for ``settle``
    seconds; or until it fails (cannot start, restarts) or ``timeout``. Returns the last state, ``ok``, ``reason``,
    the seconds waited, and the Lease's holders seen meanwhile (each change of holder, with the time it was seen)."""
    started = time.monotonic()
    holders: List[Dict[str, Any]] = []
    settled: Dict[str, Any] = {}

    def poll() -> Dict[str, Any]:
        seen = read(kube, [node])
        if not holders or holders[-1]["holder"] != seen["holder"]:
            holders.append({"holder": seen["holder"], "seconds": round(time.monotonic() - started, 1)})
        return seen["states"][node]

    def check(state: Dict[str, Any]) -> Any:
        if failed(state, expect):
            return None  # ends the wait: judged below
        unmet = spec_unmet(state, expect) or ([] if state["ready"] else ["not Ready"])
        if unmet:
            settled.clear()
            return unmet
        if not settled or settled["restarts"] != state["restarts"] or settled["hash"] != state["hash"]:
            settled.update(since=time.monotonic(), restarts=state["restarts"], hash=state["hash"])
        if time.monotonic() - settled["since"] < settle:
            return ["settling"]
        return None

    state, unmet, _attempts, timed_out = poll_until(poll, check, timeout, POLL)
    reasons = failed(state, expect)
    result = {"state": state, "seconds": round(time.monotonic() - started, 1), "holders": holders}
    if reasons:
        return dict(result, ok=False, reason="its container " + "; ".join(reasons))
    if timed_out:
        return dict(result, ok=False, reason=f"not the expected Ready pod after {timeout:g} s: " + "; ".join(unmet or []))
    return dict(result, ok=True, reason="")


def pod_log(kube: Kube, state: Dict[str, Any]) -> str:
    """The tail of the node's scheduler log: the previous container's when it restarted."""
    text = kube.log(state["pod"], NAMESPACE, previous=state["restarts"] > 0, tail_lines=15) if state["found"] else ""
    return " / ".join(line for line in text.splitlines() if line.strip())


# --- the canary ------------------------------------------------------------------------------


def canary_image(nodes: List[Dict[str, Any]], fallback: str) -> str:
    """The pause image every node has (the pod sandbox's), the one most nodes list; else ``fallback``."""
    counts: Dict[str, int] = {}
    for node in nodes:
        for image in (node.get("status") or {}).get("images") or []:
            for name in image.get("names") or []:
                repository, tag, _digest = predicates.split_image(name)
                if tag and (repository or "").endswith("/pause"):
                    counts[name] = counts.get(name, 0) + 1
    return max(sorted(counts), key=lambda name: counts[name]) if counts else fallback


def canary_pod(profile: str, image: str, namespace: str) -> Dict[str, Any]:
    """A plain pod for ``profile``: no tolerations, no affinity, the least of requests; deleted once bound."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"generateName": "kubesched-canary-", "namespace": namespace, "labels": {CANARY_LABEL: profile}},
        "spec": {
            "schedulerName": profile,
            "terminationGracePeriodSeconds": 0,
            "automountServiceAccountToken": False,
            "enableServiceLinks": False,
            "containers": [{"name": "canary", "image": image, "imagePullPolicy": "IfNotPresent", "resources": {"requests": {"cpu": "1m", "memory": "1Mi"}}}],
        },
    }


def scheduled_by(kube: Kube, pod: Dict[str, Any]) -> str:
    """The scheduler whose Scheduled event names the pod ('' when there is none yet)."""
    metadata = pod.get("metadata") or {}
    events = kube.list("Event", metadata.get("namespace"), field_selector=f"involvedObject.name={metadata.get('name')},reason=Scheduled")
    for event in events:
        by = event.get("reportingComponent") or (event.get("source") or {}).get("component") or ""
        if by:
            return str(by)
    return ""


def remove_canaries(kube: Kube, namespace: str) -> int:
    """Delete every canary pod (also those an interrupted run left); how many there were."""
    pods = kube.list("Pod", namespace, label_selector=CANARY_LABEL)
    for pod in pods:
        kube.delete("Pod", pod["metadata"]["name"], namespace, grace_period=0)
    return len(pods)


def canary(kube: Kube, nodes: List[str], config_sha256: str, profiles: List[str], namespace: str, image: str, timeout: float) -> Dict[str, Any]:
    """The Lease held by a node whose scheduler runs ``config_sha256``, then one canary pod per profile bound by it
    (its Scheduled event names the profile); the canaries are deleted whatever happens. ``ok`` and ``reason``."""
    deadline = time.monotonic() + timeout

    def lease_on_new() -> Any:
        seen = read(kube, nodes)
        leaders = [state for state in seen["states"].values() if state["leads"]]
        if not leaders:
            return seen, [f"the Lease {NAMESPACE}/{LEASE} is held by {seen['holder'] or 'nobody'}, none of {', '.join(nodes)}"]
        if leaders[0]["config_sha256"] != config_sha256 or not leaders[0]["ready"]:
            return seen, [f"the leader {describe(leaders[0])}"]
        return seen, []

    seen_unmet, _unmet, _attempts, timed_out = poll_until(lease_on_new, lambda answer: answer[1], timeout, 1.0)
    seen, unmet = seen_unmet
    result: Dict[str, Any] = {"leader": next((s["node"] for s in seen["states"].values() if s["leads"]), ""), "canaries": []}
    if timed_out:
        return dict(result, ok=False, reason="no node on the new configuration leads: " + "; ".join(unmet))
    remove_canaries(kube, namespace)
    if not image:
        fallback = next((s["image"] for s in seen["states"].values() if s["leads"]), "")
        image = canary_image(kube.list("Node"), fallback)
    created = [kube.request("POST", kube.path("Pod", namespace=namespace), body=canary_pod(profile, image, namespace)) for profile in profiles]
    try:
        for index, profile in enumerate(profiles):
            name = created[index]["metadata"]["name"]
            started = time.monotonic()

            def bound(name: str = name) -> Any:
                current = kube.get("Pod", name, namespace) or {}
                if (current.get("spec") or {}).get("nodeName"):
                    return current, bool(scheduled_by(kube, current))
                # The profile tried and found no node for a plain pod: it will not do better by waiting.
                condition = predicates.pod_condition(current, "PodScheduled") or {}
                return current, condition.get("status") == "False" and condition.get("reason") == "Unschedulable"

            answer, _unmet, _attempts, _timed_out = poll_until(bound, lambda answer: not answer[1], max(1.0, deadline - time.monotonic()), POLL)
            current = answer[0]
            by = scheduled_by(kube, current) if (current.get("spec") or {}).get("nodeName") else ""
            entry = {
                "profile": profile,
                "pod": name,
                "node": (current.get("spec") or {}).get("nodeName", ""),
                "scheduled_by": by,
                "seconds": round(time.monotonic() - started, 1),
            }
            result["canaries"].append(entry)
            if not entry["node"]:
                condition = predicates.pod_condition(current, "PodScheduled") or {}
                why = condition.get("message") or "no Scheduled event"
                return dict(result, ok=False, reason=f"the canary pod of profile {profile} was not placed ({entry['seconds']} s): {why}")
            if by != profile:
                return dict(result, ok=False, reason=f"the canary pod of profile {profile} was bound by {by or 'nobody known'}, not by {profile}")
    finally:
        remove_canaries(kube, namespace)
    return dict(result, ok=True, reason="")


# --- the modules' runs -----------------------------------------------------------------------


def entry(host: Dict[str, Any], state: Dict[str, Any]) -> Dict[str, Any]:
    """A node as main_scheduler_nodes returns it: its state, its host, why and what the rollout does on it."""
    action, reason = decide(host, state)
    return dict(state, host=host["host"], why=reason, action=action)


def run_nodes(connect: Any, params: Dict[str, Any], check_mode: bool = False, diff: bool = False) -> Dict[str, Any]:
    """main_scheduler_nodes: every node's state and the order of a change; with ``wait``, one node waited for."""
    kube = Kube(connect())
    hosts = []
    for index, given in enumerate(params["nodes"]):
        if isinstance(given, str) and given.strip():
            given = {"host": given.strip()}
        if not isinstance(given, dict) or not given.get("host"):
            return {"changed": False, "msg": f"nodes[{index}] must be a host's name or a dict with a host, not {given!r}"}
        act = given.get("act", False)
        act = act if isinstance(act, bool) else str(act).strip().lower() in ("true", "yes", "1", "on", "y")
        sha = given.get("config_sha256")
        node = str(given.get("node") or given["host"])
        hosts.append({"host": str(given["host"]), "node": node, "act": act, "config_sha256": None if sha is None else str(sha)})
    seen = read(kube, [host["node"] for host in hosts])
    states = seen["states"]
    result: Dict[str, Any] = {
        "changed": False,
        "holder": seen["holder"],
        "leader": next((state["node"] for state in states.values() if state["leads"]), ""),
        "nodes": [entry(host, states[host["node"]]) for host in hosts],
        "order": order(hosts, states),
        "split": split(states),
        "report": [describe(states[host["node"]]) for host in hosts],
        "why": [f"{host['host']}: {why(host, states[host['node']])}" for host in hosts if why(host, states[host["node"]])],
    }
    wait = params.get("wait")
    if wait and not check_mode:
        node = wait.get("node") or ""
        if node not in states:
            return dict(result, msg=f"wait.node {node!r} is none of the nodes ({', '.join(states)})")
        expect = {key: wait.get(key) for key in ("hash", "not_hash", "config_sha256", "image", "restarts_allowed")}
        waited = wait_node(kube, node, expect, float(params["timeout"]))
        result["waited"] = waited
        states[node] = waited["state"]
        result["nodes"] = [entry(host, states[host["node"]]) for host in hosts]
        result["report"] = [describe(states[host["node"]]) for host in hosts]
        if not waited["ok"]:
            log = pod_log(kube, waited["state"])
            result["log"] = log
            result["msg"] = f"{pod_name(node)} is not a Ready kube-scheduler of the expected spec: {waited['reason']}. kube-scheduler said: {log or 'no log'}"
    result["api_requests"] = kube.requests
    return result


def run_canary(connect: Any, params: Dict[str, Any], check_mode: bool = False, diff: bool = False) -> Dict[str, Any]:
    """main_scheduler_canary: the Lease on the new configuration, one pod per profile bound by it."""
    kube = Kube(connect())
    if check_mode:
        return {"changed": False, "skipped": True, "canaries": [], "report": [], "leader": "", "api_requests": 0}
    done = canary(kube, params["nodes"], params["config_sha256"], params["profiles"], params["namespace"], params.get("image") or "", float(params["timeout"]))
    report = [
        f"canary of {c['profile']}: {c['pod']} bound to {c['node'] or 'no node'} by {c['scheduled_by'] or 'nobody'} in {c['seconds']} s"
        for c in done["canaries"]
    ]
    result = {"changed": False, "leader": done["leader"], "canaries": done["canaries"], "report": report, "api_requests": kube.requests}
    if not done["ok"]:
        result["msg"] = f"The canary failed: {done['reason']}"
    return result
