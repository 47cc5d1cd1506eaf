# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The scheduler's right to hold its own lock (the ``scheduler_lock`` module, and step 3 of a converge), and the
server-side apply every step of the deploy engine makes."""

from __future__ import annotations

from ansible_collections.kubesched.scheduler.plugins.module_utils import clusterrole
from ansible_collections.kubesched.scheduler.plugins.module_utils.errors import EngineError
from ansible_collections.kubesched.scheduler.plugins.module_utils.kube import KubeError, content, managed_by_us, ref

NAME_LABEL = "kubesched.io/scheduler-name"
# What the dedicated ClusterRole leaves out of the cluster's system:kube-scheduler on purpose: lease candidates (only
# used with the gate CoordinatedLeaderElection) and the extensions API group (gone since 1.16).
LEFT_OUT_RESOURCES = ("leasecandidates",)
LEFT_OUT_GROUPS = ("extensions",)


def follow_cluster_role(rules, lock_name):
    """The dedicated ClusterRole's rules from those of the cluster's own system:kube-scheduler, so that what a gate or a
    newer release grants the default scheduler comes along: each lock rule (a Lease or Endpoints by name: kube-scheduler,
    and the lock names patch mode added for other schedulers) gives way to one rule on the scheduler's own Lease with
    the same verbs; lease candidates and the extensions group are left out."""
    followed, own_lease = [], None
    for rule in rules or []:
        groups = [group for group in rule.get("apiGroups") or [] if group not in LEFT_OUT_GROUPS]
        resources = [resource for resource in rule.get("resources") or [] if resource not in LEFT_OUT_RESOURCES]
        if not groups or not resources or rule.get("nonResourceURLs"):
            continue
        if rule.get("resourceNames") and any(clusterrole.is_lock_rule(rule, resource, group) for resource, group in clusterrole.LOCK_RESOURCES):
            if clusterrole.is_lock_rule(rule, clusterrole.LEASES, "coordination.k8s.io") and own_lease is None:
                own_lease = {"apiGroups": groups, "resources": resources, "resourceNames": [lock_name], "verbs": list(rule.get("verbs") or [])}
                followed.append(own_lease)
            continue
        followed.append(dict(rule, apiGroups=groups, resources=resources))
    return followed


def grants(rules):
    """(apiGroup, resource, resourceName or *, verb) of each rule."""
    return {
        (group, resource, name, verb)
        for rule in rules or []
        for group in rule.get("apiGroups") or []
        for resource in rule.get("resources") or []
        for name in rule.get("resourceNames") or ["*"]
        for verb in rule.get("verbs") or []
    }


def grants_text(grant_set):
    """Grants as a short sorted list: resource.group[/name] verbs."""
    by_target = {}
    for group, resource, name, verb in grant_set:
        target = f"{resource}{'.' + group if group else ''}{'' if name == '*' else '/' + name}"
        by_target.setdefault(target, set()).add(verb)
    return "; ".join(f"{target} {','.join(sorted(verbs))}" for target, verbs in sorted(by_target.items()))


def dedicated_lacks(role, system_rules):
    """What the cluster's own system:kube-scheduler (``system_rules``) grants that the dedicated ClusterRole ``role``, as it
    is on the cluster, lacks, as follow_cluster_role reads it (for the role's own Lease name): a gate turned on or an
    upgrade since the role was last applied. Grants as grants_text writes them."""
    lease_rules = [rule for rule in role.get("rules") or [] if clusterrole.is_lock_rule(rule, clusterrole.LEASES, "coordination.k8s.io")]
    own = [name for rule in lease_rules for name in rule["resourceNames"]]
    wanted = grants(follow_cluster_role(system_rules, own[0] if own else ""))
    return grants_text(wanted - grants(role.get("rules")))


def followed_dedicated(kube, lock):
    """The dedicated ClusterRole with the rules of the cluster's own (``lock['clusterrole']``) when it can be read, else as
    rendered (the rules of the cluster's minor, which the clusterrole role's template keeps)."""
    dedicated = lock["dedicated"]
    try:
        system = kube.get("ClusterRole", lock["clusterrole"])
    except KubeError:  # not allowed to read it
        return dedicated
    if not system or not system.get("rules"):
        return dedicated
    return dict(dedicated, rules=follow_cluster_role(system["rules"], lock["lock_name"]))


def lock_converge(kube, lock, state, check_mode):
    """The scheduler's right to hold its own lock, for both RBAC modes and a switch between them.

    ``lock``: ``mode`` (patch or dedicated), ``clusterrole`` (the ClusterRole patch mode adds the lock name
    to), ``lock_name``, ``binding`` (the ClusterRoleBinding ``<name>-as-kube-scheduler``, rendered) and
    ``dedicated`` (the dedicated ClusterRole, rendered; in patch mode only its name and labels are used, to
    delete one this collection made before). A switch never leaves a running scheduler without its lock:
    the new grant exists before the binding moves to it, and the other mode's grant goes only after.
    Returns the list of changes made (predicted in check mode).
    """
    changes = []
    binding, dedicated = lock["binding"], lock["dedicated"]
    binding_name = binding["metadata"]["name"]
    bound = kube.get("ClusterRoleBinding", binding_name)
    bound_now = ((bound or {}).get("roleRef") or {}).get("name") or ""
    bind_to = ""
    if state == "present":
        bind_to = lock["clusterrole"] if lock["mode"] == "patch" else dedicated["metadata"]["name"]

    def patch_role(patch_state):
        result = clusterrole.run(lambda: kube, {"name": lock["clusterrole"], "lock_name": lock["lock_name"], "state": patch_state}, check_mode=check_mode)
        if result.get("msg"):
            raise EngineError(result["msg"])
        if result.get("changed"):
            verb = "added to" if patch_state == "present" else "removed from"
            changes.append(f"lock name {lock['lock_name']} {verb} ClusterRole {lock['clusterrole']}")

    # 1. The grant of the mode asked for.
    if state == "present" and lock["mode"] == "patch":
        patch_role("present")
    if state == "present" and lock["mode"] == "dedicated":
        dedicated = followed_dedicated(kube, lock)
        before = kube.get("ClusterRole", dedicated["metadata"]["name"])
        if apply_changed(kube, dedicated, check_mode, before=before):
            added = grants(dedicated["rules"]) - grants((before or {}).get("rules"))
            said = f" (rules of {lock['clusterrole']} added: {grants_text(added)})" if before and added else ""
            changes.append(ref(dedicated) + said)
    # 2. The binding; its roleRef cannot change, so moving it deletes and creates it.
    moving = bound_now not in ("", bind_to)
    if moving:
        if not check_mode:
            kube.delete("ClusterRoleBinding", binding_name)
        changes.append(f"ClusterRoleBinding {binding_name} deleted (bound {bound_now})")
    if state == "present" and not (check_mode and moving) and apply_changed(kube, binding, check_mode):
        changes.append(ref(binding))
    # 3. The other grants: the other mode's, or both on removal. Only what the collection added goes.
    if state == "absent" or lock["mode"] == "dedicated":
        patch_role("absent")
    if state == "absent" or lock["mode"] == "patch":
        name = dedicated["metadata"]["name"]
        role = kube.get("ClusterRole", name)
        labels = ((role or {}).get("metadata") or {}).get("labels") or {}
        if role and managed_by_us(role) and labels.get(NAME_LABEL) == dedicated["metadata"]["labels"].get(NAME_LABEL):
            if not check_mode:
                kube.delete("ClusterRole", name)
            changes.append(f"ClusterRole {name} deleted")
    return changes


def apply_changed(kube, obj, check_mode, before=None, diffs=None):
    """Server-side apply (a dry run in check mode); whether the object's content changed."""
    if before is None:
        metadata = obj["metadata"]
        before = kube.get(obj["kind"], metadata["name"], metadata.get("namespace"))
    after = kube.apply(obj, dry_run=check_mode)
    if before is not None and not check_mode:
        changed = (after.get("metadata") or {}).get("resourceVersion") != (before.get("metadata") or {}).get("resourceVersion")
    else:
        changed = content(before) != content(after)
    if changed and diffs is not None:
        diffs.append({"before_header": ref(obj), "after_header": ref(obj), "before": content(before), "after": content(after)})
    return changed
