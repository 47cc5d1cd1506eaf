# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which scheduler placed each pod, on which node, and why a pod is Pending.

The functions work on API objects as plain dicts, shaped exactly like the JSON the API server
returns (camelCase keys), so they can be tested without a cluster. The few ``fetch_*`` functions
of placement_gather.py are the only ones that talk to the API; its ``gather`` is one poll and makes a fixed number of lists
whatever the number of pods:

* one pod list (per namespace, or one for all namespaces);
* at most two core/v1 event lists, filtered on the server by ``reason=Scheduled`` and
  ``reason=FailedScheduling`` (a field selector cannot OR two values), each made only when a
  selected pod needs it. Events written through events.k8s.io/v1 are the same objects and show up
  there too; both shapes are understood;
* only when a pending pod has neither an event nor a PodScheduled condition, one Lease list and one
  Deployment list to tell whether anything runs for its schedulerName, and a second Lease list when
  a scheduler's Deployment names a lock Lease that the first one did not cover (a pod of another
  profile than the one the Lease is named after).

Each list is read in pages of ``page_size`` items (``limit`` and ``continue``), and each page is
reduced before the next one is asked for: pods to their placement records, events to the latest one
per selected pod, Leases and Deployments to those of the schedulerNames looked up. Memory grows with
the selected pods, not with the cluster.

Events are joined to pods by UID (``involvedObject.uid`` / ``regarding.uid``), never fetched per pod.
"""

from __future__ import annotations

from datetime import datetime, timezone

from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.client import RESTART
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.predicates import parse_time, pod_condition
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.serving import DEFAULT_SCHEDULER, MIRROR_POD_ANNOTATION

EVIDENCE_EVENT = "event"
EVIDENCE_POD = "pod"
EVIDENCE_PRESET = "node_name_preset"

REASON_FAILED = "FailedScheduling"
REASON_GATED = "SchedulingGated"
REASON_WAITING = "Waiting"
REASON_NO_SCHEDULER = "NoScheduler"
REASON_NOT_RUNNING = "SchedulerNotRunning"

STATES = ("scheduled", "pending", "rejected")
STATE_SCHEDULED, STATE_PENDING, STATE_REJECTED = STATES
# What the kubelet writes into the status of a pod it refuses to admit after the bind (Kubelet.rejectPod): phase
# Failed, the admission's reason (OutOfcpu, OutOfmemory, OutOfpods, NodeAffinity, TaintToleration, NodeShutdown, ...)
# and this message prefix.
REJECTED_PREFIX = "Pod was rejected"
MAX_LISTED_PODS = 10
MAX_LISTED_GROUPS = 10
NOT_FOUND = "pod not found"

DEFAULT_PAGE_SIZE = 500


# --- small helpers ---------------------------------------------------------------------------


def _sort_key(value):
    moment = parse_time(value)
    return moment or datetime.min.replace(tzinfo=timezone.utc)


def join_selectors(selectors):
    """Selector strings (or None) joined with commas, empty parts dropped; None when nothing is left."""
    parts = [part.strip() for part in (selectors or []) if part and part.strip()]
    return ",".join(parts) or None


# --- events ----------------------------------------------------------------------------------


# Where each Event API keeps what normalize_event reads: the pod, the message, the source, the reporting component,
# the times (newest first) and the count.
EVENT_FIELDS = {
    "events.k8s.io/v1": (
        "regarding",
        "note",
        "deprecatedSource",
        "reportingController",
        ("deprecatedLastTimestamp", "eventTime", "deprecatedFirstTimestamp"),
        "deprecatedCount",
    ),
    "v1": ("involvedObject", "message", "source", "reportingComponent", ("lastTimestamp", "eventTime", "firstTimestamp"), "count"),
}


def normalize_event(event):
    """The fields that matter of a core/v1 or events.k8s.io/v1 Event about a pod.

    Returns a dict with ``uid`` (of the pod), ``namespace``, ``name``, ``reason``, ``component`` (the
    reporting scheduler), ``time`` (the latest observation, as the API wrote it), ``message``,
    ``count`` and ``api``; None for an event about something other than a pod.
    """
    api = "events.k8s.io/v1" if "regarding" in event or "reportingController" in event or "note" in event else "v1"
    regarding, note, deprecated_source, reporter, times, counted = EVENT_FIELDS[api]
    ref = event.get(regarding) or {}
    message = event.get(note)
    source = event.get(deprecated_source) or {}
    component = event.get(reporter) or source.get("component")
    count = event.get(counted)
    uid = ref.get("uid")
    if not uid or ref.get("kind", "Pod") != "Pod":
        return None
    series = event.get("series") or {}
    candidates = [series.get("lastObservedTime")] + [event.get(key) for key in times]
    candidates.append((event.get("metadata") or {}).get("creationTimestamp"))
    stamps = [value for value in candidates if parse_time(value)]
    moment = max(stamps, key=_sort_key) if stamps else None
    return {
        "uid": uid,
        "namespace": ref.get("namespace"),
        "name": ref.get("name"),
        "reason": event.get("reason"),
        "component": component or None,
        "time": moment,
        "message": message or "",
        "count": series.get("count") or count or 1,
        "api": api,
    }


def latest_events_by_uid(events, reason, uids=None):
    """The latest event with this reason for each pod UID: ``{uid: normalized event}``.

    ``events`` may be a list or the items of a list call as list_items yields them, page after page:
    only the latest event of each UID is kept (and, with ``uids``, only those of these UIDs), and a
    RESTART forgets what was kept.
    """
    latest = {}
    for event in events or []:
        if event is RESTART:
            latest.clear()
            continue
        view = normalize_event(event)
        if view is None or view["reason"] != reason or (uids is not None and view["uid"] not in uids):
            continue
        current = latest.get(view["uid"])
        if current is None or _sort_key(view["time"]) >= _sort_key(current["time"]):
            latest[view["uid"]] = view
    return latest


# --- pods ------------------------------------------------------------------------------------


def is_scheduled(pod):
    """True when the pod is bound: spec.nodeName is set or its PodScheduled condition is True."""
    if (pod.get("spec") or {}).get("nodeName"):
        return True
    condition = pod_condition(pod, "PodScheduled")
    return bool(condition and condition.get("status") == "True")


def node_name_preset(pod):
    """Whether a pod that has spec.nodeName got it at creation time rather than from a scheduler.

    A scheduler binds through the pods/binding subresource, which sets spec.nodeName and a True
    PodScheduled condition in the same write and leaves managedFields alone; spec.nodeName cannot be
    changed by an update afterwards. So the node was preset when the pod is a mirror pod, when it has
    a node but no True PodScheduled condition (no kubelet admitted it yet), or when a managedFields
    entry of the pod itself (not of a subresource) owns ``f:spec.f:nodeName``. A pod the kubelet
    rejected has no conditions left (the kubelet replaces its status), so only the last two tell.
    """
    metadata = pod.get("metadata") or {}
    if MIRROR_POD_ANNOTATION in (metadata.get("annotations") or {}):
        return True
    condition = pod_condition(pod, "PodScheduled")
    if (not condition or condition.get("status") != "True") and not rejected_by_kubelet(pod):
        return True
    for entry in metadata.get("managedFields") or []:
        if entry.get("subresource"):
            continue
        spec_fields = (entry.get("fieldsV1") or {}).get("f:spec") or {}
        if "f:nodeName" in spec_fields:
            return True
    return False


def rejected_by_kubelet(pod):
    """Whether the kubelet of the pod's node refused to admit it after it was bound: phase Failed with a message
    ``Pod was rejected: ...`` (two schedulers that bound onto the same free capacity, a node that changed, ...)."""
    status = pod.get("status") or {}
    return bool((pod.get("spec") or {}).get("nodeName")) and status.get("phase") == "Failed" and (status.get("message") or "").startswith(REJECTED_PREFIX)


def pod_record(pod):
    """The placement record of one pod from the pod alone, before its events are known (see apply_events).

    A pod whose spec.nodeName was preset is final here: whatever an event says, no scheduler placed it.
    A pending pod with neither a PodScheduled condition nor scheduling gates is left with ``reason``
    None; apply_events or explain_waiting fills it in. A pod the kubelet rejected after the bind is bound
    (``scheduled``) with ``state`` rejected, and the kubelet's reason and message.
    """
    metadata = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    node = spec.get("nodeName") or None
    condition = pod_condition(pod, "PodScheduled")
    record = {
        "namespace": metadata.get("namespace"),
        "name": metadata.get("name"),
        "uid": metadata.get("uid"),
        "phase": status.get("phase"),
        "scheduler_name": spec.get("schedulerName") or DEFAULT_SCHEDULER,
        "node": node,
        "scheduled": is_scheduled(pod),
        "state": STATE_PENDING,
        "scheduled_by": None,
        "scheduler_process": None,
        "evidence": None,
        "scheduled_at": None,
        "reason": None,
        "message": None,
        "pod_group": (spec.get("schedulingGroup") or {}).get("podGroupName") or None,
    }
    condition_true = bool(condition and condition.get("status") == "True")
    if record["scheduled"]:
        record["state"] = STATE_SCHEDULED
        if rejected_by_kubelet(pod):
            record.update(state=STATE_REJECTED, reason=status.get("reason") or "Rejected", message=status.get("message"))
        scheduled_at = condition.get("lastTransitionTime") if condition_true else None
        if node and node_name_preset(pod):
            record.update(evidence=EVIDENCE_PRESET, scheduled_at=scheduled_at)
        else:
            record.update(scheduled_by=record["scheduler_name"], evidence=EVIDENCE_POD, scheduled_at=scheduled_at)
        return record

    gates = [gate.get("name") for gate in spec.get("schedulingGates") or [] if gate.get("name")]
    if condition and condition.get("status") == "False" and (condition.get("reason") or condition.get("message")):
        record.update(
            reason=condition.get("reason") or "Unschedulable",
            message=condition.get("message") or "",
            evidence=EVIDENCE_POD,
        )
    elif gates:
        record.update(reason=REASON_GATED, message=f"scheduling is blocked by schedulingGates: {', '.join(gates)}", evidence=EVIDENCE_POD)
    return record


def needs_scheduled_event(record):
    """Whether a Scheduled event could tell more about this record: it is bound, and not by a preset node."""
    return record["scheduled"] and record["evidence"] == EVIDENCE_POD


def apply_events(record, scheduled_events=None, failed_events=None):
    """Complete a record of pod_record with the latest events by UID (see latest_events_by_uid), in place.

    A Scheduled event names the scheduler of a bound pod, unless its node was preset (such an event
    would be forged: no scheduler binds a pod that already has a node). The latest FailedScheduling
    event is the reason of a pending pod, before its PodScheduled condition and scheduling gates.
    """
    uid = record["uid"]
    if record["scheduled"]:
        event = (scheduled_events or {}).get(uid)
        if needs_scheduled_event(record) and event and event["component"]:
            record.update(scheduled_by=event["component"], evidence=EVIDENCE_EVENT, scheduled_at=event["time"])
        return record
    event = (failed_events or {}).get(uid)
    if event:
        record.update(reason=REASON_FAILED, message=event["message"], evidence=EVIDENCE_EVENT)
    return record


def place_pod(pod, scheduled_events=None, failed_events=None):
    """The placement record of one pod, given the latest events by UID (see latest_events_by_uid).

    A pending pod with neither a FailedScheduling event, a PodScheduled condition nor scheduling gates
    is left with ``reason`` None; explain_waiting fills it in once the schedulers are known.
    """
    return apply_events(pod_record(pod), scheduled_events, failed_events)


def place_pods(pods, scheduled_events=(), failed_events=()):
    """Placement records for a list of pods and the raw event lists, sorted by namespace and name."""
    scheduled = latest_events_by_uid(scheduled_events, "Scheduled")
    failed = latest_events_by_uid(failed_events, REASON_FAILED)
    records = [place_pod(pod, scheduled, failed) for pod in pods or []]
    return sorted(records, key=lambda record: (record["namespace"] or "", record["name"] or ""))


def schedulers_to_look_up(records):
    """schedulerNames of pending pods that have no evidence at all, except default-scheduler."""
    return sorted(
        {
            record["scheduler_name"]
            for record in records
            if not record["scheduled"] and record["reason"] is None and record["scheduler_name"] != DEFAULT_SCHEDULER
        }
    )


# --- who serves a schedulerName --------------------------------------------------------------


def unserved_message(scheduler_name):
    return f"no running scheduler serves schedulerName '{scheduler_name}': no FailedScheduling event and no Lease or Deployment for it"


def not_running_message(scheduler_name, findings):
    found = "; ".join(finding["text"] for finding in findings)
    return f"no FailedScheduling event, and the scheduler of schedulerName '{scheduler_name}' is installed but not running: {found}"


def explain_waiting(records, presence=None, lookup_errors=()):
    """Fill in reason and message of pending pods that place_pod left without one (in place).

    ``presence`` is what scheduler_presence found. A pod waits (``Waiting``) for default-scheduler, for
    a scheduler of which something runs, or when the look-up failed; its scheduler is installed but
    not running (``SchedulerNotRunning``) when only Leases that expired and Deployments without a ready
    replica were found; and nothing serves it (``NoScheduler``) when nothing was found at all.
    """
    presence = presence or {}
    for record in records:
        if record["scheduled"] or record["reason"] is not None:
            continue
        name = record["scheduler_name"]
        found = presence.get(name) or []
        described = "; ".join(finding["text"] for finding in found)
        if name == DEFAULT_SCHEDULER:
            message = "no FailedScheduling event yet; waiting for default-scheduler to place it"
        elif any(finding["running"] for finding in found):
            message = f"no FailedScheduling event yet; schedulerName '{name}' is served by {described}"
        elif lookup_errors:
            seen = f" (found {described})" if found else ""
            message = f"no FailedScheduling event yet; could not tell whether anything serves schedulerName '{name}'{seen}: {'; '.join(lookup_errors)}"
        elif found:
            record.update(reason=REASON_NOT_RUNNING, message=not_running_message(name, found))
            continue
        else:
            record.update(reason=REASON_NO_SCHEDULER, message=unserved_message(name))
            continue
        record.update(reason=REASON_WAITING, message=message)
    return records


# --- summary and expectations ----------------------------------------------------------------


def summarize(records):
    """Counts by state, by scheduler, by evidence, by node, by pending reason and by the kubelet's reason of a rejection."""
    summary = {
        "total": len(records),
        "scheduled": 0,
        "pending": 0,
        "by_scheduler": {},
        "by_evidence": {},
        "by_node": {},
        "by_reason": {},
        "rejected": 0,
        "by_rejection": {},
    }
    for record in records:
        if record["state"] == STATE_REJECTED:
            summary["rejected"] += 1
            summary["by_rejection"][record["reason"]] = summary["by_rejection"].get(record["reason"], 0) + 1
        if record["scheduled"]:
            summary["scheduled"] += 1
            summary["by_evidence"][record["evidence"]] = summary["by_evidence"].get(record["evidence"], 0) + 1
            if record["node"]:
                summary["by_node"][record["node"]] = summary["by_node"].get(record["node"], 0) + 1
            if record["scheduled_by"]:
                counts = summary["by_scheduler"].setdefault(record["scheduled_by"], {"scheduled": 0, "pending": 0})
                counts["scheduled"] += 1
        else:
            summary["pending"] += 1
            summary["by_reason"][record["reason"]] = summary["by_reason"].get(record["reason"], 0) + 1
            counts = summary["by_scheduler"].setdefault(record["scheduler_name"], {"scheduled": 0, "pending": 0})
            counts["pending"] += 1
    return summary


def has_expectations(scheduler_name=None, state=None, nodes=None):
    return bool(scheduler_name or state or nodes)


def _who(record):
    if record["scheduled_by"]:
        return record["scheduled_by"]
    return "no scheduler (spec.nodeName was preset)"


def same_process(name, expected, processes=None):
    """Whether schedulerName ``name`` is ``expected`` or a profile of the same scheduler process (``processes``: profile ->
    process, see look_up_processes)."""
    if name == expected:
        return True
    process = (processes or {}).get(expected)
    return bool(process) and (processes or {}).get(name) == process


def pod_problems(record, scheduler_name=None, state=None, nodes=None, processes=None):
    """Why one placement record does not meet the expectations; an empty list when it does. A pod placed by (or asking for)
    another profile of the process that serves ``scheduler_name`` meets ``scheduler_name``."""
    problems = []
    if record["scheduled"]:
        rejected = record["state"] == STATE_REJECTED
        if state == STATE_PENDING:
            problems.append(f"scheduled on node {record['node']}" if record["node"] else "scheduled")
        if state == STATE_SCHEDULED and rejected:
            problems.append(f"rejected by the kubelet of node {record['node']} after the bind ({record['reason']}: {record['message']})")
        if state == STATE_REJECTED and not rejected:
            problems.append(f"scheduled on node {record['node']}, not rejected" if record["node"] else "scheduled, not rejected")
        if scheduler_name and not same_process(record["scheduled_by"], scheduler_name, processes):
            problems.append(f"placed by {_who(record)}, expected {scheduler_name}")
        if nodes and record["node"] not in nodes:
            problems.append(f"on node {record['node']}, expected one of {', '.join(nodes)}")
        return problems
    if state in (STATE_SCHEDULED, STATE_REJECTED) or (state != STATE_PENDING and (scheduler_name or nodes)):
        problems.append(f"pending ({record['reason']}: {record['message']})")
    if scheduler_name and not same_process(record["scheduler_name"], scheduler_name, processes):
        problems.append(f"spec.schedulerName is {record['scheduler_name']}, expected {scheduler_name}")
    return problems


def other_names(records, scheduler_name):
    """The schedulerNames other than ``scheduler_name`` that placed the records, or that pending ones ask for."""
    names = set()
    for record in records:
        name = record["scheduled_by"] if record["scheduled"] else record["scheduler_name"]
        if name and name != scheduler_name:
            names.add(name)
    return sorted(names)


def evaluate(records, scheduler_name=None, state=None, nodes=None, names=None, namespace=None, processes=None):
    """The pods that do not meet the expectations: ``[{namespace, name, problems}]``.

    Without expectations nothing is unmet. With some, an empty selection is unmet (there is nothing to
    wait for yet), and so is every name of ``names`` that no selected pod carries.
    """
    if not has_expectations(scheduler_name, state, nodes):
        return []
    unmet = []
    if not records and not names:
        return [{"namespace": namespace, "name": None, "problems": ["no pod matches the selection"]}]
    found = {record["name"] for record in records}
    for missing in sorted(set(names or []) - found):
        unmet.append({"namespace": namespace, "name": missing, "problems": [NOT_FOUND]})
    for record in records:
        problems = pod_problems(record, scheduler_name, state, nodes, processes)
        if problems:
            unmet.append({"namespace": record["namespace"], "name": record["name"], "problems": problems})
    return unmet


def unmet_message(unmet, total, timed_out_after=None):
    """A failure message listing the offending pods, grouped by identical problems.

    At most MAX_LISTED_GROUPS groups and MAX_LISTED_PODS names per group are spelled out; the
    ``unmet`` list returned next to the message has them all. ``total`` is the number of selected pods;
    names that were asked for but not found are added to it.
    """
    if len(unmet) == 1 and unmet[0]["name"] is None:
        head = "No pod matches the selection"
        body = ""
    else:
        missing = sum(1 for entry in unmet if entry["problems"] == [NOT_FOUND])
        head = f"{len(unmet)} of {total + missing} selected pods do not meet the expectations"
        groups = {}
        for entry in unmet:
            where = f"{entry['namespace']}/{entry['name']}" if entry["namespace"] else entry["name"]
            groups.setdefault("; ".join(entry["problems"]), []).append(where)
        lines = []
        for problem, pods in list(groups.items())[:MAX_LISTED_GROUPS]:
            names = ", ".join(pods[:MAX_LISTED_PODS])
            if len(pods) > MAX_LISTED_PODS:
                names += f" and {len(pods) - MAX_LISTED_PODS} more"
            lines.append(f"{names}: {problem}")
        if len(groups) > MAX_LISTED_GROUPS:
            lines.append(f"... and {len(groups) - MAX_LISTED_GROUPS} more problems (see unmet)")
        body = ": " + " | ".join(lines)
    if timed_out_after is not None:
        head = f"Timed out after {timed_out_after}s: {head[0].lower()}{head[1:]}"
    return head + body
