# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The reads of pod_placement: its lists (``fetch_*``, page by page through the generated API classes, answers as JSON),
what runs for a schedulerName (``look_up_schedulers``, ``look_up_processes``), one poll (``gather``) and the module's
``run``. What the answers mean is placement.py's.
"""

from __future__ import annotations

import json

from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.client import RESTART, ServerClock, pages
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.serving import (
    MIRROR_POD_ANNOTATION,
    NODE_LEASE_NAMESPACE,
    SCHEDULER_LABEL,
    SYSTEM_NAMESPACE,
    lock_lease,
    scheduler_presence,
    served_names,
    static_profiles,
)
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.waiter import poll_until
from ansible_collections.kubesched.scheduler.plugins.module_utils.k8s_module import api_error_status, describe_api_error
from ansible_collections.kubesched.scheduler.plugins.module_utils.pod_groups import group_records, summarize_groups
from ansible_collections.kubesched.scheduler.plugins.module_utils.placement import (
    DEFAULT_PAGE_SIZE,
    REASON_FAILED,
    apply_events,
    evaluate,
    explain_waiting,
    has_expectations,
    join_selectors,
    latest_events_by_uid,
    needs_scheduled_event,
    other_names,
    pod_record,
    schedulers_to_look_up,
    summarize,
    unmet_message,
)

try:
    from kubernetes import client as k8s_client
except ImportError:  # kubernetes.core's module setup reports the missing library before any call
    k8s_client = None


# --- API access ------------------------------------------------------------------------------


class Cluster(ServerClock):
    """What the fetchers list with: the API client, the number of items per page, and the API server's
    clock as the Date header of its latest answer tells it."""

    def __init__(self, client, page_size=DEFAULT_PAGE_SIZE):
        super().__init__()
        self.client = client
        self.page_size = page_size


def as_cluster(api):
    """A Cluster for a bare ``kubernetes.client.ApiClient``, with the default page size."""
    return api if isinstance(api, Cluster) else Cluster(api)


def _list_page(cluster, method, args, kwargs, token):
    """One page of a list call, as the API's JSON (no model objects: cheaper for thousands of pods)."""
    options = dict(kwargs, limit=cluster.page_size)
    if token:
        options["_continue"] = token
    response = method(*args, _preload_content=False, **options)
    try:
        payload = json.loads(response.data)
        cluster.saw_date((getattr(response, "headers", None) or {}).get("Date"))
    finally:
        release = getattr(response, "release_conn", None)
        if release:
            release()
    return payload


def list_items(cluster, method, *args, **kwargs):
    """The items of a list call of a generated API class, ``cluster.page_size`` at a time (see client.pages:
    RESTART is yielded when an expired continue token makes the list start over)."""
    return pages(lambda token: _list_page(cluster, method, args, kwargs, token))


def fetch_pods(api, namespace=None, label_selector=None, field_selector=None):
    """The pods, page by page: in a namespace, or in all namespaces when namespace is None."""
    cluster = as_cluster(api)
    core = k8s_client.CoreV1Api(cluster.client)
    kwargs = {key: value for key, value in (("label_selector", label_selector), ("field_selector", field_selector)) if value}
    if namespace:
        return list_items(cluster, core.list_namespaced_pod, namespace, **kwargs)
    return list_items(cluster, core.list_pod_for_all_namespaces, **kwargs)


def event_field_selector(reason, pod_name=None):
    selector = f"involvedObject.kind=Pod,reason={reason}"
    if pod_name:
        selector += f",involvedObject.name={pod_name}"
    return selector


def fetch_events(api, namespace=None, reason="Scheduled", pod_name=None):
    """The core/v1 events of pods, page by page, filtered by reason on the server (events.k8s.io/v1 events included)."""
    cluster = as_cluster(api)
    core = k8s_client.CoreV1Api(cluster.client)
    selector = event_field_selector(reason, pod_name)
    if namespace:
        return list_items(cluster, core.list_namespaced_event, namespace, field_selector=selector)
    return list_items(cluster, core.list_event_for_all_namespaces, field_selector=selector)


# PodGroups (gang scheduling), served from Kubernetes 1.37 with the gate GenericWorkload.
PODGROUP_API = ("scheduling.k8s.io", "v1beta1", "podgroups")


def fetch_podgroups(api, namespace=None):
    """The PodGroups, page by page: in a namespace, or in all namespaces when namespace is None."""
    cluster = as_cluster(api)
    custom = k8s_client.CustomObjectsApi(cluster.client)
    if namespace:
        return list_items(cluster, custom.list_namespaced_custom_object, *PODGROUP_API[:2], namespace, PODGROUP_API[2])
    return list_items(cluster, custom.list_cluster_custom_object, *PODGROUP_API)


def read_groups(cluster, records, namespace, warnings):
    """The group records of the pods that name a PodGroup (placement.group_records); the PodGroups read only then."""
    if not any(record.get("pod_group") for record in records):
        return []
    podgroups = []
    try:
        for item in fetch_podgroups(cluster, namespace):
            if item is RESTART:
                podgroups.clear()
            else:
                podgroups.append(item)
    except Exception as exc:  # not served (404), or not allowed (403): the groups are reported from their pods alone
        warnings.append(f"PodGroups could not be read ({describe_api_error(exc)}): the groups are reported from their pods alone.")
    return group_records(records, podgroups)


def lease_field_selector(names):
    selector = f"metadata.namespace!={NODE_LEASE_NAMESPACE}"
    if len(names) == 1:
        selector = f"metadata.name={names[0]}," + selector
    return selector


def fetch_leases(api, names):
    """The Leases of all namespaces but kube-node-lease, page by page (by name when there is one name)."""
    cluster = as_cluster(api)
    coordination = k8s_client.CoordinationV1Api(cluster.client)
    return list_items(cluster, coordination.list_lease_for_all_namespaces, field_selector=lease_field_selector(names))


def fetch_deployments(api, names):
    """The Deployments of all namespaces that have a kubesched.io/scheduler-name label, page by page.

    Any value: a Deployment serves the profiles its annotation lists too, which no label selector can
    match; ``names`` are matched by the caller.
    """
    cluster = as_cluster(api)
    apps = k8s_client.AppsV1Api(cluster.client)
    return list_items(cluster, apps.list_deployment_for_all_namespaces, label_selector=SCHEDULER_LABEL)


def _lookup(fetch, api, names, what, errors, keep):
    """The items of ``fetch(api, names)`` for which ``keep(item)`` holds, or [] with an error in
    ``errors`` when the list is not allowed."""
    kept = []
    try:
        for item in fetch(api, names):
            if item is RESTART:
                kept.clear()
            elif keep(item):
                kept.append(item)
    except Exception as exc:  # the client's ApiException, without importing it here
        if api_error_status(exc) in (401, 403, 404):
            errors.append(f"cannot list {what}: {describe_api_error(exc)}")
            return []
        raise
    return kept


def _metadata_key(item):
    metadata = item.get("metadata") or {}
    return metadata.get("namespace"), metadata.get("name")


def look_up_schedulers(api, names, errors):
    """What runs for these schedulerNames (see scheduler_presence), judged by the API server's time.

    One Lease list (by name when there is one name) and one Deployment list; then, when a Deployment
    that serves one of the names locks a Lease of another name, one more Lease list for those.
    """
    cluster = as_cluster(api)
    wanted = set(names)
    known_errors = len(errors)
    leases = _lookup(fetch_leases, cluster, names, "Leases", errors, lambda lease: _metadata_key(lease)[1] in wanted)
    leases_failed = len(errors) > known_errors
    deployments = _lookup(fetch_deployments, cluster, names, "Deployments", errors, lambda deployment: wanted.intersection(served_names(deployment)))
    locks = {lock_lease(deployment) for deployment in deployments} - {None}
    others = sorted({name for _namespace, name in locks if name not in wanted})
    if others and not leases_failed:
        leases += _lookup(fetch_leases, cluster, others, "Leases", errors, lambda lease: _metadata_key(lease) in locks)
    return scheduler_presence(names, leases, deployments, now=cluster.server_now())


STATIC_SELECTOR = "component=kube-scheduler"


def fetch_static_schedulers(api, names):
    """The pods of kube-system labelled component=kube-scheduler (kubeadm's static Pod of the cluster's own scheduler), page by page."""
    return fetch_pods(api, SYSTEM_NAMESPACE, STATIC_SELECTOR)


def look_up_processes(api, names, errors):
    """``{schedulerName: process}`` for the processes that serve any of ``names``: a Deployment of this collection
    (``Deployment <namespace>/<name>``, every profile its annotation lists) or the cluster's own static kube-scheduler
    (``static Pod kube-system/<mirror pod>[, ...]``, the profiles of static_profiles). One Deployment list and one list
    of kube-system's kube-scheduler pods."""
    cluster = as_cluster(api)
    wanted = set(names)
    processes = {}
    for deployment in _lookup(fetch_deployments, cluster, names, "Deployments", errors, lambda item: wanted.intersection(served_names(item))):
        namespace, name = _metadata_key(deployment)
        for profile in served_names(deployment):
            processes.setdefault(profile, f"Deployment {namespace}/{name}")

    def mirror(pod):
        return MIRROR_POD_ANNOTATION in ((pod.get("metadata") or {}).get("annotations") or {})

    static = {}
    for pod in _lookup(fetch_static_schedulers, cluster, names, "the pods of kube-system", errors, mirror):
        static.setdefault(tuple(static_profiles(pod)), []).append(_metadata_key(pod)[1])
    for profiles, pods in static.items():
        for profile in profiles:
            processes.setdefault(profile, f"static Pod {SYSTEM_NAMESPACE}/{', '.join(sorted(pods))}")
    return processes


def gather(api, namespace=None, names=None, label_selectors=None, field_selectors=None, page_size=None):
    """One poll: the placement records of the selected pods.

    Lists pods once, events at most twice (only the reasons some selected pod needs), and Leases and
    Deployments only when a pending pod has no evidence at all (see look_up_schedulers). Each list is
    read page by page (``page_size`` items, or the Cluster's when ``api`` is one) and each page is
    reduced before the next: pods to records, events to the latest one per selected pod.
    """
    cluster = api if isinstance(api, Cluster) else Cluster(api, page_size or DEFAULT_PAGE_SIZE)
    names = sorted(set(names or []))
    field_selector_parts = list(field_selectors or [])
    if len(names) == 1:
        field_selector_parts.append(f"metadata.name={names[0]}")
    wanted = set(names)
    records = []
    for pod in fetch_pods(cluster, namespace, join_selectors(label_selectors), join_selectors(field_selector_parts)):
        if pod is RESTART:
            records.clear()
        elif not wanted or (pod.get("metadata") or {}).get("name") in wanted:
            records.append(pod_record(pod))
    pod_name = names[0] if len(names) == 1 else None
    scheduled_events = {}
    failed_events = {}
    bound = {record["uid"] for record in records if needs_scheduled_event(record)}
    if bound:
        scheduled_events = latest_events_by_uid(fetch_events(cluster, namespace, "Scheduled", pod_name), "Scheduled", bound)
    pending = {record["uid"] for record in records if not record["scheduled"]}
    if pending:
        failed_events = latest_events_by_uid(fetch_events(cluster, namespace, REASON_FAILED, pod_name), REASON_FAILED, pending)
    for record in records:
        apply_events(record, scheduled_events, failed_events)
    records.sort(key=lambda record: (record["namespace"] or "", record["name"] or ""))
    lookup = schedulers_to_look_up(records)
    presence = {}
    errors = []
    if lookup:
        presence = look_up_schedulers(cluster, lookup, errors)
    return explain_waiting(records, presence, errors)


def check_params(params):
    """Why these module parameters cannot be run, or None."""
    if params.get("state") == "pending" and params.get("nodes"):
        return "nodes cannot be combined with state=pending: a pending pod is on no node"
    if params.get("wait") and not has_expectations(params.get("scheduler_name"), params.get("state"), params.get("nodes")):
        return "wait=true needs at least one of scheduler_name, state or nodes to wait for"
    if params.get("wait_timeout", 120) < 0 or params.get("wait_sleep", 2) < 1:
        return "wait_timeout must be 0 or more and wait_sleep 1 or more"
    if params.get("page_size") is not None and params["page_size"] < 1:
        return f"page_size must be 1 or more, got {params['page_size']}"
    return None


def run(connect, params, check_mode=False, diff=False):
    """Gather (and with ``wait`` poll) the placements, then check the expectations; the module's result.

    Read-only, so check and diff mode change nothing. The result has ``pods``, ``summary``, ``unmet``
    and ``attempts``, and a ``msg`` when an expectation does not hold.
    """
    problem = check_params(params)
    if problem:
        return {"changed": False, "msg": problem}
    cluster = Cluster(connect(), params.get("page_size") or DEFAULT_PAGE_SIZE)
    namespace, names = params.get("namespace"), params.get("names")
    expectations = {key: params.get(key) for key in ("scheduler_name", "state", "nodes")}

    def poll():
        return gather(cluster, namespace, names, params.get("label_selectors"), params.get("field_selectors"))

    processes = {}
    lookup_errors = []
    looked_up = []

    def check(records):
        # A pod placed by another name may be of another profile of the same process: looked up once, when first needed.
        expected = expectations["scheduler_name"]
        others = other_names(records, expected) if expected and not looked_up else []
        if others:
            processes.update(look_up_processes(cluster, [expected, *others], lookup_errors))
            looked_up.append(True)
        return evaluate(records, names=names, namespace=namespace, processes=processes, **expectations)

    wait_timeout = params.get("wait_timeout", 120)
    if params.get("wait"):
        records, unmet, attempts, timed_out = poll_until(poll, check, wait_timeout, params.get("wait_sleep", 2))
    else:
        records = poll()
        unmet, attempts, timed_out = check(records), 1, False
    for record in records:
        if record["scheduled_by"]:
            record["scheduler_process"] = processes.get(record["scheduled_by"]) or None
    result = {"changed": False, "pods": records, "summary": summarize(records), "unmet": unmet, "attempts": attempts}
    warnings = []
    if lookup_errors:
        warnings.append(f"Which process serves each profile was not looked up: {'; '.join(dict.fromkeys(lookup_errors))}.")
    groups = read_groups(cluster, records, namespace, warnings)
    if groups:
        result["groups"] = groups
        result["summary"]["groups"] = summarize_groups(groups)
    if warnings:
        result["warnings"] = warnings
    if unmet:
        result["msg"] = unmet_message(unmet, len(records), wait_timeout if timed_out else None)
    return result
