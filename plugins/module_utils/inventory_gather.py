# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The reads of scheduler_info (see inventory.py for the lists it makes): the pods scanned page by page,
``gather`` and the module's ``run``."""

from __future__ import annotations

from datetime import timedelta

from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.client import RESTART, collect, lease_clock
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.predicates import (
    holder_pod,
)
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.serving import (
    NODE_LEASE_NAMESPACE,
    SCHEDULER_LABEL,
    SYSTEM_NAMESPACE,
    is_static_scheduler,
)
from ansible_collections.kubesched.scheduler.plugins.module_utils.inventory import (
    APISERVER_IDENTITY_LABEL,
    DEFAULT_PAGE_SIZE,
    MAX_LISTED_PODS,
    assemble,
)
from ansible_collections.kubesched.scheduler.plugins.module_utils.inventory_config import (
    key_of,
    metadata_of,
    pod_pending,
    pod_scheduler_name,
)
from ansible_collections.kubesched.scheduler.plugins.module_utils.kube import Kube, KubeError, api_reason
from ansible_collections.kubesched.scheduler.plugins.module_utils.lock import NAME_LABEL, dedicated_lacks

# The cluster's own scheduler's ClusterRole, which the dedicated ClusterRoles follow.
DEFAULT_CLUSTERROLE = "system:kube-scheduler"

# --- the paged lists -------------------------------------------------------------------------


class PodScan:
    """What is kept of the pods, page by page: the schedulerName counts (of the counted pods), the mirror
    pods of kube-scheduler, and the pods whose names are in ``wanted`` (Lease holders)."""

    def __init__(self, wanted):
        self.wanted = set(wanted)
        self.reset()

    def reset(self):
        self.names = {}
        self.static = {}
        self.by_name = {}

    def restart(self, counted):
        """Forget what a restarted list kept: the counts when it was the counted list."""
        if counted:
            self.names = {}

    def add(self, pod, counted=True):
        metadata = metadata_of(pod)
        if counted:
            name = pod_scheduler_name(pod)
            entry = self.names.setdefault(name, {"pods": 0, "pending": 0, "pending_pods": []})
            entry["pods"] += 1
            if pod_pending(pod):
                entry["pending"] += 1
                if len(entry["pending_pods"]) < MAX_LISTED_PODS:
                    entry["pending_pods"].append(f"{metadata.get('namespace')}/{metadata.get('name')}")
        if is_static_scheduler(pod):
            self.static[key_of(pod)] = pod
        if metadata.get("name") in self.wanted:
            self.by_name.setdefault(metadata["name"], {})[metadata.get("namespace")] = pod

    def scan(self, items, counted=True):
        for pod in items:
            if pod is RESTART:
                self.restart(counted)
            else:
                self.add(pod, counted)


def _lookup_error(errors, what, exc):
    if isinstance(exc, KubeError) and exc.status in (401, 403, 404):
        errors.append(f"cannot list {what}: {api_reason(exc)[:300]}")
        return True
    return False


def _safe_list(errors, what, items):
    try:
        return collect(items)
    except KubeError as exc:
        if _lookup_error(errors, what, exc):
            return []
        raise


# --- the module ------------------------------------------------------------------------------


def gather(kube, namespace=None, page_size=DEFAULT_PAGE_SIZE, now=None, tolerance=None):
    """Read the cluster (see the module's docstring for the lists) and return the module's answer.

    ``now`` is the time the Leases are judged by: by default the API server's, from the Date header of its answers
    (this host's clock, with CLOCK_TOLERANCE of slack, when no answer had one; see client.lease_clock).
    """
    errors = []
    leases = _safe_list(errors, "Leases", kube.list_pages("Lease", page_size=page_size, field_selector=f"metadata.namespace!={NODE_LEASE_NAMESPACE}"))
    deployments = _safe_list(errors, "Deployments", kube.list_pages("Deployment", page_size=page_size, label_selector=SCHEDULER_LABEL))
    holders = {}
    for lease in leases:
        if key_of(lease)[0] == NODE_LEASE_NAMESPACE or APISERVER_IDENTITY_LABEL in (metadata_of(lease).get("labels") or {}):
            continue
        holder = holder_pod((lease.get("spec") or {}).get("holderIdentity"))
        if holder:
            holders[holder] = key_of(lease)[0]
    scan = PodScan(holders)
    try:
        scan.scan(kube.list_pages("Pod", namespace, page_size=page_size))
        if namespace and namespace != SYSTEM_NAMESPACE:
            scan.scan(kube.list_pages("Pod", SYSTEM_NAMESPACE, page_size=page_size), counted=False)
            nodes = {(pod.get("spec") or {}).get("nodeName") for pod in scan.static.values()}
            for holder in sorted(set(holders) - set(scan.by_name) - nodes):
                scan.scan(kube.list_pages("Pod", page_size=page_size, field_selector=f"metadata.name={holder}"), counted=False)
    except KubeError as exc:
        if not _lookup_error(errors, f"pods{f' in namespace {namespace}' if namespace else ''}", exc):
            raise
    cache = {}

    def cached_get(kind):
        """A reader of one kind that asks the API server once per object and repeats its error."""

        def get(ns, name):
            if (kind, ns, name) not in cache:
                try:
                    cache[(kind, ns, name)] = (kube.get(kind, name, ns), None)
                except KubeError as exc:
                    cache[(kind, ns, name)] = (None, exc)
            found, error = cache[(kind, ns, name)]
            if error is not None:
                raise error
            return found

        return get

    get_configmap, get_replicaset = cached_get("ConfigMap"), cached_get("ReplicaSet")

    if now is None:
        now, tolerance = lease_clock(kube.clock.server_now())
    tolerance = timedelta(0) if tolerance is None else tolerance
    result = assemble(leases, deployments, scan, now, tolerance, get_configmap, get_replicaset, errors)
    # Dedicated ClusterRoles exist only beside Deployments of this collection: listed only then.
    result["dedicated_roles"] = dedicated_roles(kube, result["errors"]) if deployments else []
    return result


def dedicated_roles(kube, errors):
    """The dedicated ClusterRoles of this collection's schedulers (``<name>-scheduler``, labelled with the scheduler's name),
    each with what the cluster's own system:kube-scheduler grants that it lacks; a role that lacks something is an error
    too, naming the fix."""
    roles = [
        role
        for role in _safe_list(errors, "ClusterRoles", kube.list_pages("ClusterRole", label_selector=NAME_LABEL))
        if metadata_of(role).get("name") == f"{(metadata_of(role).get('labels') or {}).get(NAME_LABEL)}-scheduler"
    ]
    if not roles:
        return []
    try:
        system = kube.get("ClusterRole", DEFAULT_CLUSTERROLE) or {}
    except KubeError as exc:
        _lookup_error(errors, f"ClusterRole {DEFAULT_CLUSTERROLE}", exc)
        return []
    out = []
    for role in sorted(roles, key=lambda item: metadata_of(item)["name"]):
        name, scheduler = metadata_of(role)["name"], metadata_of(role)["labels"][NAME_LABEL]
        lacks = dedicated_lacks(role, system.get("rules")) if system.get("rules") else ""
        out.append({"name": name, "scheduler": scheduler, "lacks": lacks})
        if lacks:
            errors.append(
                f"the dedicated ClusterRole {name} of {scheduler} lacks what {DEFAULT_CLUSTERROLE} grants since (a gate turned on, an "
                f"upgrade): {lacks}; run the deploy role for {scheduler} again, which makes it follow the cluster's"
            )
    return out


def check_params(params):
    """Why these module parameters cannot be run, or None."""
    if params.get("page_size") is not None and params["page_size"] < 1:
        return f"page_size must be 1 or more, got {params['page_size']}"
    return None


def run(connect, params, check_mode=False, diff=False):
    """The ``scheduler_info`` module: read-only, so check and diff mode change nothing."""
    problem = check_params(params)
    if problem:
        return {"changed": False, "msg": problem}
    kube = Kube(connect())
    result = gather(kube, params.get("namespace"), params.get("page_size") or DEFAULT_PAGE_SIZE)
    result["changed"] = False
    result["api_requests"] = kube.requests
    if result["errors"]:
        result["warnings"] = list(result["errors"])
    return result
