"""Load, disruption and measurement for the molecule scenario `reliability` (docs/reliability.md).

One run: pause pods for one scheduler, on kwok's fake nodes, created at a steady rate (--rate per second) in one namespace; a
watch that notes when each pod first has spec.nodeName (and deletes it right after, so that minutes of load
never fill the nodes' pod capacity); the scheduler's Lease read every --lease-interval seconds.

With --disrupt failover, meanwhile: the pod that holds the Lease (holderIdentity <pod name>_<uuid>) is deleted
at each second of --delete-leader-at (each time once a live pod other than the ones deleted holds the Lease),
then at --drain-at the node of the other replica is cordoned and drained with kubectl; every node this run
cordoned is uncordoned at the end, whatever happened.

With --disrupt freeze: at --freeze-at seconds the node of the pod that holds the Lease is frozen (docker pause of its
kind node container), thawed --freeze-for seconds later; then the frozen pod must give way (its container restarts,
another pod holds the Lease). molecule/main_scheduler_ha uses it on its three control-plane nodes.

Load runs --duration seconds; with --stop-file also until that file exists; with disruptions also until they
are done plus --tail seconds; never longer than --max-duration. Then the run waits until every pod was seen
bound (--bind-timeout), reads the Scheduled and FailedScheduling events of the namespace and writes the figures
to --out (JSON). It asserts nothing: the play reads the JSON and asserts.

Exit status: 0 when the figures were written, 2 when the run could not be measured (the reason on stderr).
Run it with the controller's Python, the one with the kubernetes client (the play uses ansible_playbook_python).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import re
import subprocess
import sys
import threading
import time
import traceback
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

from kubernetes import client, config

PART_OF = "kubesched-reliability"
# A FailedScheduling message that says a pod was bound already: two schedulers (or two leaders) binding it.
BINDING_CONFLICT = re.compile(r"already assigned|already bound|binding rejected|Operation cannot be fulfilled on pods/binding", re.IGNORECASE)


class MeasurementError(RuntimeError):
    """The run could not be measured (a problem of the test, not a finding about the scheduler)."""


def api_client(context):
    configuration = client.Configuration()
    config.load_kube_config(context=context, client_configuration=configuration)
    configuration.connection_pool_maxsize = 32
    return client.ApiClient(configuration)


def body(response):
    return json.loads(response.data)


def api_time(value):
    """Epoch seconds of an API time or MicroTime (2026-11-30T10:00:00.123456Z); None when empty."""
    if not value:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def iso(epoch):
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def percentile(values, q):
    ordered = sorted(values)
    if not ordered:
        return None
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def list_all(method, *args, limit=500, **kwargs):
    """Every item of a list call, read in pages, as JSON."""
    items, token = [], None
    while True:
        payload = body(method(*args, limit=limit, _continue=token, _preload_content=False, **kwargs))
        items.extend(payload.get("items") or [])
        token = (payload.get("metadata") or {}).get("continue")
        if not token:
            return items


def ensure_namespace(core, name, timeout=60):
    """The namespace, Active, with its default ServiceAccount (pods are refused until that exists)."""
    try:
        core.create_namespace({"metadata": {"name": name, "labels": {"app.kubernetes.io/part-of": PART_OF}}})
    except client.ApiException as exc:
        if exc.status != 409:
            raise
    phase = (body(core.read_namespace(name, _preload_content=False)).get("status") or {}).get("phase")
    if phase != "Active":
        raise MeasurementError(f"namespace {name} is {phase}: delete it and wait until it is gone first")
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            core.read_namespaced_service_account("default", name, _preload_content=False)
            return
        except client.ApiException as exc:
            if exc.status != 404:
                raise
        time.sleep(0.5)
    raise MeasurementError(f"namespace {name} has no default ServiceAccount after {timeout}s")


# The load goes to kwok's fake nodes (hack/kind/kwok.sh, started by prepare): binding is what is measured, and
# minutes of real containers started and stopped at 12 a second would starve a 2-core machine's control plane.
KWOK_TAINT = {"key": "kwok.x-k8s.io/node", "operator": "Equal", "value": "fake", "effect": "NoSchedule"}


def pod_manifest(name, scheduler, image, part):
    """A pause pod with tiny requests for the scheduler under test, for kwok's fake nodes only."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app.kubernetes.io/part-of": PART_OF, "kubesched.io/reliability-part": part}},
        "spec": {
            "schedulerName": scheduler,
            "terminationGracePeriodSeconds": 0,
            "automountServiceAccountToken": False,
            "enableServiceLinks": False,
            "nodeSelector": {"type": "kwok"},
            "tolerations": [KWOK_TAINT],
            "containers": [{"name": "pause", "image": image, "imagePullPolicy": "IfNotPresent", "resources": {"requests": {"cpu": "1m", "memory": "4Mi"}}}],
        },
    }


def ready(pod):
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


class LeasePoller(threading.Thread):
    """Reads the Lease every `interval` seconds and keeps every distinct record, with the time it was first read."""

    def __init__(self, api, namespace, name, interval):
        super().__init__(daemon=True)
        self.coordination = client.CoordinationV1Api(api)
        self.namespace, self.name, self.interval = namespace, name, interval
        self.samples = []
        self.latest = None
        self.polls = 0
        self.errors = 0
        self.error_samples = []
        self.halt = threading.Event()

    def read(self):
        response = self.coordination.read_namespaced_lease(self.name, self.namespace, _preload_content=False, _request_timeout=5)
        spec = body(response).get("spec") or {}
        return {
            "holder": spec.get("holderIdentity") or "",
            "acquire": spec.get("acquireTime"),
            "renew": spec.get("renewTime"),
            "duration": spec.get("leaseDurationSeconds"),
            "transitions": spec.get("leaseTransitions"),
        }

    def run(self):
        while not self.halt.is_set():
            began = time.time()
            try:
                record = self.read()
                self.polls += 1
                if self.latest is None or record != {k: v for k, v in self.latest.items() if k != "t"}:
                    self.latest = {"t": began, **record}
                    self.samples.append(self.latest)
            except Exception as exc:  # noqa: BLE001 - counted; the play bounds the share of failed reads
                self.errors += 1
                if len(self.error_samples) < 10:
                    self.error_samples.append(f"{iso(began)}: {exc}"[:300])
            self.halt.wait(max(0.0, self.interval - (time.time() - began)))

    def holder_pod(self):
        """The pod named by the latest holderIdentity (<pod name>_<uuid>), '' when nobody holds it."""
        return ((self.latest or {}).get("holder") or "").split("_", 1)[0]


class PodWatch(threading.Thread):
    """When each pod of the namespace is first seen with spec.nodeName, and on which node; deletes each once bound."""

    def __init__(self, api, namespace, delete_bound=True):
        super().__init__(daemon=True)
        self.core = client.CoreV1Api(api)
        self.namespace = namespace
        self.bound = {}
        self.nodes = {}
        self.rebound = []
        self.approximate = 0
        self.relists = 0
        self.watch_failures = 0
        self.delete_errors = 0
        self.error = None
        self.halt = threading.Event()
        self.deleter = ThreadPoolExecutor(4) if delete_bound else None
        self.resource_version = self._list(note=False)

    def _list(self, note=True):
        payload = body(self.core.list_namespaced_pod(self.namespace, _preload_content=False))
        if note:
            now = time.time()
            for obj in payload.get("items") or []:
                self._note(obj, now, approximate=True)
        return payload["metadata"]["resourceVersion"]

    def _note(self, obj, now, approximate=False):
        name = (obj.get("metadata") or {}).get("name")
        node = (obj.get("spec") or {}).get("nodeName")
        if not name or not node:
            return
        if name not in self.bound:
            self.bound[name] = now
            self.nodes[name] = node
            self.approximate += int(approximate)
            if self.deleter:
                self.deleter.submit(self._delete, name)
        elif self.nodes[name] != node and name not in self.rebound:
            self.rebound.append(name)

    def _delete(self, name):
        try:
            self.core.delete_namespaced_pod(name, self.namespace, grace_period_seconds=0, _request_timeout=30)
        except client.ApiException as exc:
            if exc.status != 404:
                self.delete_errors += 1
        except Exception:  # noqa: BLE001 - a pod left behind goes with the namespace
            self.delete_errors += 1

    def run(self):
        rv = self.resource_version
        failures = 0
        while not self.halt.is_set():
            try:
                stream = self.core.list_namespaced_pod(
                    self.namespace,
                    watch=True,
                    resource_version=rv,
                    timeout_seconds=30,
                    allow_watch_bookmarks=True,
                    _preload_content=False,
                    _request_timeout=60,
                )
                for line in stream:
                    if self.halt.is_set():
                        break
                    event = json.loads(line)
                    obj = event.get("object") or {}
                    if event.get("type") == "ERROR":  # 410 Gone: list again and watch on from there
                        self.relists += 1
                        rv = self._list()
                        break
                    rv = (obj.get("metadata") or {}).get("resourceVersion", rv)
                    if event.get("type") in ("ADDED", "MODIFIED"):
                        self._note(obj, time.time())
                with contextlib.suppress(Exception):
                    stream.release_conn()
                failures = 0
            except Exception as exc:  # noqa: BLE001 - a broken watch is listed again; repeated failures end the run
                failures += 1
                self.watch_failures += 1
                if failures > 20:
                    self.error = f"the pod watch failed {failures} times in a row, last: {exc}"
                    return
                time.sleep(1)
                with contextlib.suppress(Exception):
                    self.relists += 1
                    rv = self._list()

    def close(self):
        self.halt.set()
        if self.deleter:
            self.deleter.shutdown(wait=True)


class Load:
    """Creates pods at `rate` per second from a pool of threads, so that a slow answer does not slow the rate."""

    def __init__(self, api, namespace, scheduler, image, part, rate, prefix="load"):
        self.core = client.CoreV1Api(api)
        self.namespace, self.scheduler, self.image, self.part, self.rate, self.prefix = namespace, scheduler, image, part, rate, prefix
        self.created = {}
        self.errors = 0
        self.error_samples = []
        self.attempted = 0

    def _create(self, name):
        try:
            manifest = pod_manifest(name, self.scheduler, self.image, self.part)
            payload = body(self.core.create_namespaced_pod(self.namespace, manifest, _preload_content=False, _request_timeout=10))
            self.created[name] = {"t": time.time(), "uid": payload["metadata"]["uid"]}
        except Exception as exc:  # noqa: BLE001 - counted and reported; the play asserts there are none
            self.errors += 1
            if len(self.error_samples) < 10:
                self.error_samples.append(f"{name}: {exc}"[:300])

    def run(self, start, should_stop):
        # 32 threads, a creation given up after 10 s: while a control-plane node is frozen, a creation may wait for
        # etcd's election or hang on a connection to the frozen API server, and 8 threads with 30 s fell behind the rate.
        with ThreadPoolExecutor(32) as pool:
            i = 0
            while True:
                now = time.time()
                if should_stop(now):
                    break
                due = start + i / self.rate
                if due > now:
                    time.sleep(due - now)
                pool.submit(self._create, f"{self.prefix}-{i:05d}")
                i += 1
        self.attempted = i
        return time.time()


class Failover(threading.Thread):
    """Deletes the leading pod at given seconds, then cordons and drains the node of the other replica."""

    def __init__(self, api, args, lease, start):
        super().__init__(daemon=True)
        self.core = client.CoreV1Api(api)
        self.args, self.lease, self.start_time = args, lease, start
        self.namespace, self.deployment = args.deployment.split("/", 1)
        spec = body(client.AppsV1Api(api).read_namespaced_deployment(self.deployment, self.namespace, _preload_content=False))["spec"]
        self.selector = ",".join(f"{k}={v}" for k, v in sorted(spec["selector"]["matchLabels"].items()))
        self.actions = []
        self.cordoned = []
        self.uncordoned = []
        self.done_at = None
        self.error = None

    def _sleep_until(self, when):
        time.sleep(max(0.0, when - time.time()))

    def _pod(self, name):
        try:
            return body(self.core.read_namespaced_pod(name, self.namespace, _preload_content=False))
        except client.ApiException as exc:
            if exc.status == 404:
                return None
            raise

    def _live_holder(self, exclude):
        """The pod that holds the Lease, once it is a pod of the Deployment that is not being deleted and not in `exclude`."""
        deadline = time.time() + self.args.leader_wait
        while time.time() < deadline:
            name = self.lease.holder_pod()
            if name and name not in exclude:
                pod = self._pod(name)
                if pod and not pod["metadata"].get("deletionTimestamp"):
                    return pod
            time.sleep(0.3)
        return None

    def _other_replica(self, holder):
        """A running, ready pod of the Deployment other than the holder."""
        deadline = time.time() + self.args.leader_wait
        while time.time() < deadline:
            pods = body(self.core.list_namespaced_pod(self.namespace, label_selector=self.selector, _preload_content=False))["items"]
            for pod in sorted(pods, key=lambda p: p["metadata"]["name"]):
                if pod["metadata"]["name"] != holder and not pod["metadata"].get("deletionTimestamp") and ready(pod):
                    return pod
            time.sleep(0.5)
        return None

    def _kubectl(self, *argv, timeout):
        command = [self.args.kubectl, "--context", self.args.context, *argv]
        began = time.time()
        try:
            proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
            rc, output = proc.returncode, (proc.stdout + proc.stderr).strip().splitlines()
        except subprocess.TimeoutExpired as exc:
            rc, output = -1, [f"timed out after {timeout}s", *str(exc.output or "").splitlines()]
        return {"command": " ".join(command), "rc": rc, "seconds": round(time.time() - began, 3), "output": output[-15:]}

    def run(self):
        try:
            deleted = []
            for at in self.args.delete_leader_at:
                self._sleep_until(self.start_time + at)
                pod = self._live_holder(exclude=deleted)
                if pod is None:
                    self.actions.append(
                        {"action": "delete-leader", "planned_at": at, "done": False, "why": f"no live holder but {deleted} within {self.args.leader_wait}s"}
                    )
                    continue
                name, now = pod["metadata"]["name"], time.time()
                self.core.delete_namespaced_pod(name, self.namespace, _preload_content=False)
                deleted.append(name)
                self.actions.append(
                    {
                        "action": "delete-leader",
                        "planned_at": at,
                        "at": round(now - self.start_time, 3),
                        "pod": name,
                        "node": pod["spec"].get("nodeName"),
                        "done": True,
                    }
                )
            if self.args.drain_at is not None:
                self._sleep_until(self.start_time + self.args.drain_at)
                holder = self._live_holder(exclude=deleted)
                other = self._other_replica(holder["metadata"]["name"]) if holder else None
                if other is None:
                    why = f"no live holder and other ready replica within {self.args.leader_wait}s"
                    self.actions.append({"action": "drain", "planned_at": self.args.drain_at, "done": False, "why": why})
                else:
                    node, now = other["spec"]["nodeName"], time.time()
                    self.cordoned.append(node)  # drain cordons first, whatever happens next
                    # --force: the load's pods have no controller, and drain refuses such pods without it.
                    drain = ["drain", node, "--ignore-daemonsets", "--delete-emptydir-data", "--force", f"--timeout={self.args.drain_timeout}s"]
                    result = self._kubectl(*drain, timeout=self.args.drain_timeout + 30)
                    self.actions.append(
                        {
                            "action": "drain",
                            "planned_at": self.args.drain_at,
                            "at": round(now - self.start_time, 3),
                            "node": node,
                            "pod": other["metadata"]["name"],
                            "leader": holder["metadata"]["name"],
                            "done": result["rc"] == 0,
                            **result,
                        }
                    )
        except Exception as exc:  # noqa: BLE001 - reported as a problem of the run
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self.done_at = time.time()

    def uncordon(self):
        for node in self.cordoned:
            self.uncordoned.append({"node": node, **self._kubectl("uncordon", node, timeout=60)})


class Freeze(Failover):
    """Freezes the node of the leading pod (docker pause of its kind node container: the kubelet, the pod and, on a
    control-plane node, its API server and etcd member stop without a word, as a hung machine does) at --freeze-at
    seconds, and thaws it after --freeze-for seconds; then notes whether the frozen leader gave way (its container
    restarted, or it is not the holder) within --leader-wait seconds."""

    def _docker(self, verb, node):
        began = time.time()
        proc = subprocess.run(["docker", verb, node], capture_output=True, text=True, timeout=60, check=False)
        return {
            "command": f"docker {verb} {node}",
            "rc": proc.returncode,
            "seconds": round(time.time() - began, 3),
            "output": (proc.stdout + proc.stderr).strip()[-300:],
        }

    def run(self):
        node = None
        try:
            self._sleep_until(self.start_time + self.args.freeze_at)
            pod = self._live_holder(exclude=[])
            if pod is None:
                self.actions.append(
                    {"action": "freeze", "planned_at": self.args.freeze_at, "done": False, "why": f"no live holder within {self.args.leader_wait}s"}
                )
                return
            name, node, now = pod["metadata"]["name"], pod["spec"]["nodeName"], time.time()
            restarts = sum(status.get("restartCount", 0) for status in pod["status"].get("containerStatuses") or [])
            result = self._docker("pause", node)
            self.cordoned.append(node)  # thawed by uncordon() whatever happens
            self.actions.append(
                {
                    "action": "freeze",
                    "planned_at": self.args.freeze_at,
                    "at": round(now - self.start_time, 3),
                    "pod": name,
                    "node": node,
                    "done": result["rc"] == 0,
                    **result,
                }
            )
            self._sleep_until(now + self.args.freeze_for)
            thawed_at = time.time()
            result = self._docker("unpause", node)
            self.cordoned.remove(node)
            self.actions.append({"action": "thaw", "at": round(thawed_at - self.start_time, 3), "node": node, "done": result["rc"] == 0, **result})
            deadline = time.time() + self.args.leader_wait
            gave_way = None
            while time.time() < deadline:
                current = self._pod(name)
                now_restarts = sum(s.get("restartCount", 0) for s in (current or {}).get("status", {}).get("containerStatuses") or [])
                if current is not None and now_restarts > restarts and self.lease.holder_pod() != name:
                    gave_way = {
                        "action": "gave-way",
                        "at": round(time.time() - self.start_time, 3),
                        "pod": name,
                        "restarts": now_restarts,
                        "holder": self.lease.holder_pod(),
                        "done": True,
                    }
                    break
                time.sleep(0.5)
            self.actions.append(
                gave_way
                or {
                    "action": "gave-way",
                    "pod": name,
                    "done": False,
                    "holder": self.lease.holder_pod(),
                    "why": f"its container did not restart, or it holds the Lease, {self.args.leader_wait}s after the thaw",
                }
            )
        except Exception as exc:  # noqa: BLE001 - reported as a problem of the run
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self.done_at = time.time()

    def uncordon(self):
        for node in list(self.cordoned):
            self.uncordoned.append({"node": node, **self._docker("unpause", node)})
            self.cordoned.remove(node)


def leadership(samples, end):
    """Each change of leader seen in the Lease's records, and how long nobody led: from the last sign of life of the
    record before the change (its renewTime: the last renewal of the previous holder, or its release) to the
    acquireTime of the new holder. Also the time nobody leads at the end, when the last record has expired."""
    changes = []
    last_holder = samples[0]["holder"] if samples else ""
    for previous, current in zip(samples, samples[1:], strict=False):
        if current["holder"] and (current["holder"], current["acquire"]) != (previous["holder"], previous["acquire"]):
            last_sign = api_time(previous["renew"]) or api_time(previous["acquire"]) or previous["t"]
            acquired = api_time(current["acquire"]) or current["t"]
            changes.append(
                {
                    "from": previous["holder"],
                    "previous_holder": previous["holder"] or last_holder,  # the one that released it, when it was released
                    "released": not previous["holder"],
                    "to": current["holder"],
                    "last_renewal_before": previous["renew"],
                    "acquired": current["acquire"],
                    "leaderless_seconds": round(max(0.0, acquired - last_sign), 3),
                }
            )
        if current["holder"]:
            last_holder = current["holder"]
    renewals = {}
    for sample in samples:
        if sample["holder"] and sample["renew"]:
            renewals.setdefault((sample["holder"], sample["acquire"]), []).append(api_time(sample["renew"]))
    longest_renewal = max((b - a for times in renewals.values() for a, b in zip(times, times[1:], strict=False)), default=0.0)
    open_seconds = 0.0
    if samples:
        last = samples[-1]
        renewed = api_time(last["renew"]) or last["t"]
        if not last["holder"] or renewed + (last["duration"] or 0) < end:
            open_seconds = end - renewed
    return changes, round(open_seconds, 3), round(longest_renewal, 3)


def longest_wait_between_binds(created, bound, start):
    """The longest interval in which pods waited and none was bound: between two consecutive binds (or from the
    first creation to the first bind), counted from the later of the earlier bind and the creation of the oldest
    pod still waiting after it."""
    pods = sorted((bound[name], created[name]["t"]) for name in created if name in bound)
    oldest_waiting = [0.0] * len(pods)
    oldest = math.inf
    for i in range(len(pods) - 1, -1, -1):
        oldest = min(oldest, pods[i][1])
        oldest_waiting[i] = oldest
    longest, since, previous = 0.0, None, None
    for i, bind in enumerate(p[0] for p in pods):
        waiting_from = oldest_waiting[i] if previous is None else max(previous, oldest_waiting[i])
        if bind - waiting_from > longest:
            longest, since = bind - waiting_from, waiting_from - start
        previous = bind
    return round(longest, 3), (round(since, 3) if since is not None else None)


def read_events(core, namespace, reason, want_uids=(), timeout=0, may_lack=(), grace=10.0):
    """Events of a reason in the namespace; with want_uids, until every one of those pods has one or timeout passes
    (the scheduler writes its events asynchronously). Pods in may_lack (bound as their leader stopped, whose event
    may never be written) are waited for only `grace` s once they are all that is missing."""
    began = time.time()
    deadline, only_optional_since = began + timeout, None
    while True:
        events = list_all(core.list_namespaced_event, namespace, field_selector=f"reason={reason},involvedObject.kind=Pod")
        seen = {(e.get("involvedObject") or {}).get("uid") for e in events}
        missing = set(want_uids) - seen
        now = time.time()
        if not missing or now >= deadline:
            return events
        if missing <= set(may_lack):
            only_optional_since = only_optional_since or now
            if now - only_optional_since >= grace:
                return events
        else:
            only_optional_since = None
        time.sleep(2)


def near_stop(bound, stops, stop_window):
    """{pod: seconds from the nearest leader stop to its bind} of the bound pods within stop_window s of a stop."""
    if not stops:
        return {}
    return {
        name: round(min((when - stop for stop in stops), key=abs), 3) for name, when in bound.items() if min(abs(when - stop) for stop in stops) <= stop_window
    }


def occurrences(event):
    """How many times an event happened: its series' count (events.k8s.io), its count (core/v1), or once."""
    return (event.get("series") or {}).get("count") or event.get("count") or 1


def event_figures(core, namespace, created, bound, timeout, stops=(), stop_window=5.0):
    """Scheduled and FailedScheduling events of the load's pods. `stops`: when (epoch) a leader stopped (its pod was
    deleted, or it released the Lease). A pod without a Scheduled event that was bound within `stop_window` s of such
    a moment is counted apart: the stopping leader bound it, and its event broadcaster ended before the event was
    written (events are best effort; the binding is what counts)."""
    want = {created[name]["uid"] for name in created if name in bound}
    close = near_stop({name: bound[name] for name in created if name in bound}, stops, stop_window)
    scheduled = read_events(core, namespace, "Scheduled", want, timeout, may_lack={created[name]["uid"] for name in close})
    failed = read_events(core, namespace, "FailedScheduling")
    per_uid = {}
    by_component, by_instance = Counter(), Counter()
    for event in scheduled:
        uid = (event.get("involvedObject") or {}).get("uid")
        component = event.get("reportingComponent") or (event.get("source") or {}).get("component") or ""
        count = occurrences(event)
        per_uid[uid] = per_uid.get(uid, 0) + count
        by_component[component] += count
        by_instance[event.get("reportingInstance") or (event.get("source") or {}).get("host") or ""] += count
    ours = {created[name]["uid"]: name for name in created}
    missing = sorted(name for uid, name in ours.items() if per_uid.get(uid, 0) == 0)
    repeated = sorted(name for uid, name in ours.items() if per_uid.get(uid, 0) > 1)
    conflicts = [
        f"{(e.get('involvedObject') or {}).get('name')}: {e.get('message') or e.get('note')}"[:300]
        for e in failed
        if BINDING_CONFLICT.search(e.get("message") or e.get("note") or "")
    ]
    at_stop = {name: close[name] for name in missing if name in close}
    return {
        "pods_with_exactly_one_scheduled_event": sum(1 for uid in ours if per_uid.get(uid, 0) == 1),
        "pods_without_scheduled_event": len(missing),
        "pods_without_scheduled_event_bound_as_a_leader_stopped": len(at_stop),
        "seconds_from_leader_stop_to_bind_of_those": at_stop,
        "pods_without_scheduled_event_sample": missing[:20],
        "pods_with_several_scheduled_events": len(repeated),
        "pods_with_several_scheduled_events_sample": repeated[:20],
        "scheduled_by_component": dict(by_component),
        "scheduled_by_instance": dict(by_instance),
        "scheduled_events_of_other_pods": sum(1 for uid in per_uid if uid not in ours),
        "failed_scheduling": sum(occurrences(e) for e in failed),
        "failed_scheduling_messages": sorted(Counter((e.get("message") or e.get("note") or "")[:200] for e in failed).items(), key=lambda kv: -kv[1])[:10],
        "binding_conflicts": len(conflicts),
        "binding_conflict_samples": conflicts[:10],
    }


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--context", required=True, help="kubeconfig context of the cluster")
    parser.add_argument("--part", required=True, help="name of the part, recorded in the figures and the pods' labels")
    parser.add_argument("--namespace", required=True, help="namespace of the load's pods (created when missing)")
    parser.add_argument("--scheduler", required=True, help="schedulerName of the load's pods")
    parser.add_argument("--lease", required=True, help="NAMESPACE/NAME of the scheduler's Lease")
    parser.add_argument("--deployment", help="NAMESPACE/NAME of the scheduler's Deployment (for --disrupt failover)")
    parser.add_argument("--image", required=True, help="image of the load's pods (the nodes' pause image)")
    parser.add_argument("--rate", type=float, default=12.0, help="pods created per second")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load at least")
    parser.add_argument("--max-duration", type=float, default=900.0, help="seconds of load at most")
    parser.add_argument("--stop-file", help="keep the load on until this file exists")
    parser.add_argument("--tail", type=float, default=5.0, help="seconds of load after the last disruption")
    parser.add_argument("--disrupt", choices=["none", "failover", "freeze"], default="none")
    parser.add_argument("--freeze-at", type=float, default=10.0, help="seconds after the start: the leader's node is frozen (--disrupt freeze)")
    parser.add_argument("--freeze-for", type=float, default=25.0, help="seconds the node stays frozen")
    parser.add_argument("--delete-leader-at", default="15,35", help="comma-separated seconds after the start")
    parser.add_argument("--drain-at", default="50", help="seconds after the start; 'none' drains nothing")
    parser.add_argument("--leader-wait", type=float, default=120.0, help="seconds to wait for a live leader before a disruption")
    parser.add_argument("--drain-timeout", type=int, default=180)
    parser.add_argument("--kubectl", default="kubectl")
    parser.add_argument("--lease-interval", type=float, default=0.2, help="seconds between two reads of the Lease")
    parser.add_argument("--bind-timeout", type=float, default=300.0, help="seconds to wait, after the load, for every pod to be bound")
    parser.add_argument("--events-timeout", type=float, default=90.0, help="seconds to wait for the Scheduled events")
    parser.add_argument("--out", required=True, help="where to write the figures (JSON)")
    args = parser.parse_args(argv)
    args.delete_leader_at = sorted(float(s) for s in args.delete_leader_at.split(",") if s.strip())
    args.drain_at = None if args.drain_at.strip().lower() in ("", "none") else float(args.drain_at)
    if args.disrupt in ("failover", "freeze") and not args.deployment:
        parser.error(f"--disrupt {args.disrupt} needs --deployment")
    if args.rate <= 0:
        parser.error("--rate must be above 0")
    return args


def measure(args):
    api = api_client(args.context)
    core = client.CoreV1Api(api)
    ensure_namespace(core, args.namespace)
    lease_namespace, lease_name = args.lease.split("/", 1)
    lease = LeasePoller(api, lease_namespace, lease_name, args.lease_interval)
    lease.start()
    watch = PodWatch(api, args.namespace)
    watch.start()
    time.sleep(2 * args.lease_interval + 1)  # a first record of the Lease before the load
    problems = []
    if not lease.samples:
        problems.append(f"the Lease {args.lease} could not be read before the load: {lease.error_samples[:1]}")
    start = time.time()
    chaos = {"failover": Failover, "freeze": Freeze}.get(args.disrupt)
    chaos = chaos(api, args, lease, start) if chaos else None
    load = Load(api, args.namespace, args.scheduler, args.image, args.part, args.rate)

    def should_stop(now):
        elapsed = now - start
        if elapsed >= args.max_duration:
            return True
        if elapsed < args.duration:
            return False
        if args.stop_file and not Path(args.stop_file).exists():
            return False
        # with disruptions: until they are done, and --tail seconds more
        return chaos is None or (not chaos.is_alive() and now >= (chaos.done_at or now) + args.tail)

    try:
        if chaos is not None:
            chaos.start()
        load_end = load.run(start, should_stop)
        if chaos is not None:
            chaos.join(timeout=args.leader_wait * 3 + args.drain_timeout + 60)
        names = set(load.created)
        deadline = time.time() + args.bind_timeout
        while time.time() < deadline and not names <= watch.bound.keys() and watch.error is None:
            time.sleep(0.5)
        binds_done = time.time()
        time.sleep(max(3.0, 2 * args.lease_interval))  # the Lease as it is after the load: held and renewed
    finally:
        if chaos is not None:
            chaos.uncordon()
        lease.halt.set()
        watch.close()
    lease.join(timeout=10)
    end = time.time()
    if watch.error:
        problems.append(watch.error)
    if chaos is not None and chaos.error:
        problems.append(f"disruption: {chaos.error}")

    created, bound = dict(load.created), dict(watch.bound)
    unbound = sorted(set(created) - bound.keys())
    latencies = [bound[n] - created[n]["t"] for n in created if n in bound]
    times = sorted(c["t"] for c in created.values())
    changes, open_seconds, longest_renewal = leadership(lease.samples, end)
    gap, gap_from = longest_wait_between_binds(created, bound, start)
    return {
        "part": args.part,
        "command": " ".join(sys.argv),
        "started": iso(start),
        "parameters": {
            "scheduler": args.scheduler,
            "namespace": args.namespace,
            "lease": args.lease,
            "deployment": args.deployment,
            "image": args.image,
            "rate": args.rate,
            "duration": args.duration,
            "stop_file": args.stop_file,
            "disrupt": args.disrupt,
            "delete_leader_at": args.delete_leader_at if args.disrupt == "failover" else [],
            "freeze_at": args.freeze_at if args.disrupt == "freeze" else None,
            "freeze_for": args.freeze_for if args.disrupt == "freeze" else None,
            "drain_at": args.drain_at if args.disrupt == "failover" else None,
            "lease_interval": args.lease_interval,
        },
        "load": {
            "seconds": round(load_end - start, 3),
            "attempted": load.attempted,
            "created": len(created),
            "creation_rate": round((len(times) - 1) / (times[-1] - times[0]), 3) if len(times) > 1 and times[-1] > times[0] else 0.0,
            "creation_errors": load.errors,
            "creation_error_samples": load.error_samples,
        },
        "pods": {
            "bound": sum(1 for n in created if n in bound),
            "unbound_count": len(unbound),
            "unbound_sample": unbound[:20],
            "rebound": watch.rebound,
            "binds_found_by_relisting": watch.approximate,
            "relists": watch.relists,
            "watch_failures": watch.watch_failures,
            "delete_errors": watch.delete_errors,
            "seconds_to_last_bind_after_load": round(max(0.0, binds_done - load_end), 3),
            "bind_latency_seconds": {
                "p50": round(percentile(latencies, 50), 3) if latencies else None,
                "p99": round(percentile(latencies, 99), 3) if latencies else None,
                "max": round(max(latencies), 3) if latencies else None,
            },
            "nodes": dict(Counter(watch.nodes[n] for n in created if n in watch.nodes)),
        },
        "events": event_figures(
            core,
            args.namespace,
            created,
            bound,
            args.events_timeout,
            stops=[start + a["at"] for a in (chaos.actions if chaos else []) if a.get("action") == "delete-leader" and a.get("done")]
            + [api_time(c["last_renewal_before"]) for c in changes if c.get("released") and c.get("last_renewal_before")],
        ),
        "lease": {
            "polls": lease.polls,
            "poll_errors": lease.errors,
            "poll_error_samples": lease.error_samples,
            "records": len(lease.samples),
            "holder_changes": len(changes),
            "changes": changes,
            "max_leaderless_seconds": max((c["leaderless_seconds"] for c in changes), default=0.0),
            "open_leaderless_seconds": open_seconds,
            "longest_renewal_interval_seconds": longest_renewal,
            "first_holder": lease.samples[0]["holder"] if lease.samples else None,
            "final_holder": lease.samples[-1]["holder"] if lease.samples else None,
            "final_renew": lease.samples[-1]["renew"] if lease.samples else None,
        },
        "binds": {"max_gap_seconds": gap, "max_gap_from_seconds": gap_from},
        "disruptions": chaos.actions if chaos else [],
        "uncordoned": chaos.uncordoned if chaos else [],
        "problems": problems,
    }


def main(argv=None):
    args = parse_args(argv)
    try:
        figures = measure(args)
    except Exception as exc:  # noqa: BLE001 - the run could not be measured
        traceback.print_exc()
        print(f"reliability_load: {args.part}: could not measure: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_suffix(out.suffix + ".partial")
    partial.write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    partial.replace(out)
    load, lease, binds = figures["load"], figures["lease"], figures["binds"]
    print(
        f"reliability_load: {args.part}: {load['created']} pods in {load['seconds']}s ({load['creation_rate']}/s), "
        f"{figures['pods']['unbound_count']} unbound, {lease['holder_changes']} leader changes, "
        f"longest without a leader {lease['max_leaderless_seconds']}s (Lease) / {binds['max_gap_seconds']}s (binds); wrote {out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
