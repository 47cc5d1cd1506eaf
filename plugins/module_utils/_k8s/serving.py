# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What serves a schedulerName, private to the collection: used by pod_placement, scheduler_info and the preflight.

A scheduler of this collection is a Deployment labelled ``kubesched.io/scheduler-name`` (its profiles in the
``kubesched.io/scheduler-profiles`` annotation, its lock in ``kubesched.io/scheduler-lease``); the cluster's own
kube-scheduler is a static Pod whose mirror pod is in kube-system; either holds its leader election Lease.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s import client
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.predicates import (
    KUBE_SCHEDULER,
    command_line,
    lease_finding,
    parse_flags,
)

Obj = Dict[str, Any]

DEFAULT_SCHEDULER = "default-scheduler"
SCHEDULER_LABEL = "kubesched.io/scheduler-name"
PROFILES_ANNOTATION = "kubesched.io/scheduler-profiles"
# The sha256 of the configuration the main_scheduler role wrote, on the static pod (so on its mirror pod).
CONFIG_SHA256_ANNOTATION = "kubesched.io/config-sha256"
LEASE_ANNOTATION = "kubesched.io/scheduler-lease"
NODE_LEASE_NAMESPACE = "kube-node-lease"
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
SYSTEM_NAMESPACE = "kube-system"
COMPONENT_LABEL = "component"


def served_names(deployment: Obj) -> List[str]:
    """The schedulerNames a scheduler's Deployment serves: its kubesched.io/scheduler-name label and
    the profiles listed by its kubesched.io/scheduler-profiles annotation. Empty without the label."""
    metadata = deployment.get("metadata") or {}
    label = (metadata.get("labels") or {}).get(SCHEDULER_LABEL)
    if not label:
        return []
    profiles = ((metadata.get("annotations") or {}).get(PROFILES_ANNOTATION) or "").split(",")
    return [label] + [name for name in dict.fromkeys(part.strip() for part in profiles) if name and name != label]


def lock_lease(deployment: Obj) -> Optional[Tuple[str, str]]:
    """``(namespace, name)`` of the Lease a scheduler's Deployment says it locks, or None."""
    value = ((deployment.get("metadata") or {}).get("annotations") or {}).get(LEASE_ANNOTATION) or ""
    namespace, _slash, name = value.strip().partition("/")
    return (namespace, name) if namespace and name else None


def is_static_scheduler(pod: Obj) -> bool:
    """A mirror pod of kube-scheduler in kube-system: the kubelet's copy of a static pod."""
    metadata = pod.get("metadata") or {}
    return (
        metadata.get("namespace") == SYSTEM_NAMESPACE
        and MIRROR_POD_ANNOTATION in (metadata.get("annotations") or {})
        and (metadata.get("labels") or {}).get(COMPONENT_LABEL) == KUBE_SCHEDULER
    )


def static_profiles(pod: Obj) -> List[str]:
    """The schedulerNames a static kube-scheduler serves: those the main_scheduler role noted on it, else its
    --scheduler-name or the default profile (kubeadm's kube-scheduler, or one whose configuration is on its node)."""
    metadata = pod.get("metadata") or {}
    noted = [name.strip() for name in ((metadata.get("annotations") or {}).get(PROFILES_ANNOTATION) or "").split(",") if name.strip()]
    if noted:
        return noted
    for container in (pod.get("spec") or {}).get("containers") or []:
        flags = parse_flags(command_line(container), separate_values=False)
        if "scheduler-name" in flags:
            return [flags["scheduler-name"]]
    return [DEFAULT_SCHEDULER]


def deployment_finding(deployment: Obj, name: str) -> Dict[str, Any]:
    """A Deployment's finding: running when at least one replica is ready."""
    metadata = deployment.get("metadata") or {}
    label = (metadata.get("labels") or {}).get(SCHEDULER_LABEL)
    wanted = (deployment.get("spec") or {}).get("replicas", 1)
    ready = (deployment.get("status") or {}).get("readyReplicas") or 0
    text = f"Deployment {metadata.get('namespace')}/{metadata.get('name')}"
    if label != name:
        text += f" of scheduler {label}"
    return {"kind": "Deployment", "running": ready >= 1, "text": f"{text} ({ready}/{wanted} ready)"}


def scheduler_presence(
    names: Sequence[str],
    leases: Optional[Iterable[Obj]] = None,
    deployments: Optional[Iterable[Obj]] = None,
    now: Optional[datetime] = None,
) -> Dict[str, List[Dict[str, Any]]]:
    """What was found for each schedulerName: ``{name: [finding, ...]}``, an empty list when nothing.

    A finding is ``{"kind": "Lease" or "Deployment", "running": bool, "text": str}``, Leases first. It
    is made of a Lease named after the scheduler in any namespace but kube-node-lease (its leader
    election lock), a Deployment labelled ``kubesched.io/scheduler-name`` with the name or listing it
    among the profiles of its ``kubesched.io/scheduler-profiles`` annotation, and the lock Lease such
    a Deployment names in its ``kubesched.io/scheduler-lease`` annotation.

    A Lease runs when it has a holder and ``renewTime + leaseDurationSeconds`` is not past ``now``, the
    API server's time; when ``now`` is None, this host's UTC clock is used instead, with
    CLOCK_TOLERANCE of slack (client.lease_clock). A Deployment runs when ``status.readyReplicas`` is 1 or more.
    """
    now, tolerance = client.lease_clock(now)
    lease_findings: Dict[str, List[Dict[str, Any]]] = {name: [] for name in names}
    deployment_findings: Dict[str, List[Dict[str, Any]]] = {name: [] for name in names}
    locks: Dict[str, Set[Tuple[str, str]]] = {name: set() for name in names}
    for deployment in deployments or []:
        served = served_names(deployment)
        lock = lock_lease(deployment)
        for name in names:
            if name in served:
                deployment_findings[name].append(deployment_finding(deployment, name))
                if lock:
                    locks[name].add(lock)
    for lease in leases or []:
        metadata = lease.get("metadata") or {}
        key = (metadata.get("namespace"), metadata.get("name"))
        if key[0] == NODE_LEASE_NAMESPACE:
            continue
        for name in names:
            if key[1] == name or key in locks[name]:
                lease_findings[name].append(lease_finding(lease, now, tolerance))
    return {name: lease_findings[name] + deployment_findings[name] for name in names}
