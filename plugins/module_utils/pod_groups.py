# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pod groups for pod_placement (gang scheduling: PodGroups of scheduling.k8s.io/v1beta1, named by the pods'
spec.schedulingGroup): each group's pods bound, what it waits for and why, from placement.py's records of its pods and
the PodGroup objects."""

from __future__ import annotations

GROUP_BOUND = "bound"
GROUP_PARTLY_BOUND = "partly_bound"
GROUP_WAITING = "waiting"
GROUP_CONDITION = "PodGroupInitiallyScheduled"


def group_records(records, podgroups):
    """One record per pod group that a pod of ``records`` names: its minCount (gang policy; None for a basic one or a
    PodGroup not found), its pods and how many are bound, its state (bound, partly_bound, waiting), how many more pods it
    waits for before it can be scheduled, the schedulers its pods ask for, and why it waits (the PodGroup's condition
    PodGroupInitiallyScheduled, the missing pods, the missing PodGroup, pods asking for several schedulers).
    ``podgroups``: the PodGroup objects (dicts) of the namespaces read."""
    objects = {((pg.get("metadata") or {}).get("namespace"), (pg.get("metadata") or {}).get("name")): pg for pg in podgroups or []}
    members = {}
    for record in records:
        if record.get("pod_group"):
            members.setdefault((record["namespace"], record["pod_group"]), []).append(record)
    groups = []
    for (namespace, name), pods in sorted(members.items(), key=lambda item: (item[0][0] or "", item[0][1])):
        podgroup = objects.get((namespace, name))
        spec = (podgroup or {}).get("spec") or {}
        gang = (spec.get("schedulingPolicy") or {}).get("gang")
        min_count = int(gang["minCount"]) if gang and gang.get("minCount") is not None else None
        bound = sum(1 for record in pods if record["scheduled"])
        schedulers = sorted({record["scheduler_name"] for record in pods})
        if bound == len(pods):
            state = GROUP_BOUND
        elif bound:
            state = GROUP_PARTLY_BOUND
        else:
            state = GROUP_WAITING
        missing = max(0, (min_count or 0) - len(pods))
        reason = message = None
        condition = next((c for c in ((podgroup or {}).get("status") or {}).get("conditions") or [] if c.get("type") == GROUP_CONDITION), None)
        if podgroup is None:
            reason, message = "PodGroupNotFound", f"no PodGroup {namespace}/{name}: its pods wait until it is created"
        elif len(schedulers) > 1:
            reason, message = "SeveralSchedulers", f"its pods ask for several schedulers ({', '.join(schedulers)}): each binds its own part"
        elif state != GROUP_BOUND and missing:
            reason = "WaitingForPods"
            message = f"{len(pods)} of minCount {min_count} pods exist: waiting for {missing} more before it is scheduled"
        elif state != GROUP_BOUND and condition and condition.get("status") == "False":
            reason, message = condition.get("reason") or "Unschedulable", condition.get("message") or ""
        elif state != GROUP_BOUND:
            waiting = [record for record in pods if not record["scheduled"] and record["reason"]]
            if waiting:
                reason, message = waiting[0]["reason"], waiting[0]["message"]
        groups.append(
            {
                "namespace": namespace,
                "name": name,
                "min_count": min_count,
                "pods": len(pods),
                "bound": bound,
                "state": state,
                "waiting_for": missing,
                "schedulers": schedulers,
                "reason": reason,
                "message": message,
            }
        )
    return groups


def summarize_groups(groups):
    """Counts of the pod groups by state."""
    counts = {"total": len(groups), GROUP_BOUND: 0, GROUP_PARTLY_BOUND: 0, GROUP_WAITING: 0}
    for group in groups:
        counts[group["state"]] += 1
    return counts
