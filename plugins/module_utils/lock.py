# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The scheduler's right to hold its own lock (the ``scheduler_lock`` module, and step 3 of a converge), and the
server-side apply every step of the deploy engine makes."""

from __future__ import annotations

from ansible_collections.kubesched.scheduler.plugins.module_utils import clusterrole
from ansible_collections.kubesched.scheduler.plugins.module_utils.errors import EngineError
from ansible_collections.kubesched.scheduler.plugins.module_utils.kube import content, managed_by_us, ref

NAME_LABEL = "kubesched.io/scheduler-name"


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
    if state == "present" and lock["mode"] == "dedicated" and apply_changed(kube, dedicated, check_mode):
        changes.append(ref(dedicated))
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
