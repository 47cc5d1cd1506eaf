#!/usr/bin/python
# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: clusterrole_lock
short_description: Add or remove a scheduler's lock name in the resourceNames of a ClusterRole
version_added: 0.1.0
author:
  - kubesched maintainers (@kubesched)
description:
  - Grants a second kube-scheduler C(get) and C(update) on its own leader-election lock by adding its
    lock name to the C(resourceNames) of the lock rules of a ClusterRole, by default
    C(system:kube-scheduler), as the Kubernetes task "Configure Multiple Schedulers" does by hand with
    C(kubectl edit clusterrole system:kube-scheduler).
  - The lock rules are the C(coordination.k8s.io) C(leases) rules that carry C(resourceNames), and the
    core C(endpoints) rules that carry C(resourceNames) where such a rule exists (Kubernetes before 1.28).
    No other rule is changed and a name is never added twice.
  - C(rules) is an atomic list, so the module reads the ClusterRole, changes the list and writes the
    whole object back with its C(metadata.resourceVersion) as a precondition. When somebody else wrote
    the object in between, the API server answers 409 Conflict and the module reads and tries again.
  - The names the module added are recorded in the annotations C(kubesched.io/added-lease-names) and
    C(kubesched.io/added-endpoints-names) (JSON lists). O(state=absent) removes a name only if it was
    recorded there, so a name that was present before is left alone and the ClusterRole ends up as it
    was before the module added the name.
  - The default ClusterRoles carry C(rbac.authorization.kubernetes.io/autoupdate=true). The API server
    reconciles them at start-up by adding missing permissions; it does not remove added names, so the
    change survives API server restarts.
options:
  name:
    description:
      - Name of the ClusterRole to change.
    type: str
    default: system:kube-scheduler
  lock_name:
    description:
      - The scheduler's leader-election lock name, that is C(leaderElection.resourceName) of its
        KubeSchedulerConfiguration.
    type: str
    required: true
  state:
    description:
      - V(present) adds O(lock_name) to the lock rules, V(absent) removes it if this module added it.
    type: str
    choices: [present, absent]
    default: present
extends_documentation_fragment:
  - kubesched.scheduler.k8s_auth
  - kubesched.scheduler._attributes
attributes:
  check_mode:
    support: full
    details: Reads the ClusterRole and predicts the change without writing it.
  diff_mode:
    support: full
    details: Returns the rules and the collection's annotations before and after.
  idempotent:
    support: full
notes:
  - The module fails with O(state=present) when the ClusterRole has no lease rule with C(resourceNames)
    and no rule granting C(get) and C(update) on every lease; use a dedicated ClusterRole then.
  - With O(state=absent) a missing ClusterRole is not an error.
seealso:
  - name: Configure Multiple Schedulers
    description: The Kubernetes task this module automates a step of.
    link: https://kubernetes.io/docs/tasks/extend-kubernetes/configure-multiple-schedulers/
  - name: Auto-reconciliation of default roles
    description: How the API server updates default ClusterRoles at start-up.
    link: https://kubernetes.io/docs/reference/access-authn-authz/rbac/#auto-reconciliation
"""

EXAMPLES = r"""
- name: Let my-scheduler hold its own leader-election lease
  kubesched.scheduler.clusterrole_lock:
    lock_name: my-scheduler

- name: Remove the name again (only if this module added it)
  kubesched.scheduler.clusterrole_lock:
    lock_name: my-scheduler
    state: absent
    kubeconfig: ~/.kube/config
    context: kind-kubesched
"""

RETURN = r"""
added:
  description: Names this run added, per lock resource.
  returned: always
  type: dict
  sample: {"leases": ["my-scheduler"], "endpoints": []}
removed:
  description: Names this run removed, per lock resource.
  returned: always
  type: dict
  sample: {"leases": [], "endpoints": []}
lock_names:
  description: The names the lock rules grant after the run (predicted in check mode), per lock resource.
  returned: when the ClusterRole exists
  type: dict
  sample: {"leases": ["kube-scheduler", "my-scheduler"], "endpoints": []}
recorded:
  description: The names recorded as added by the collection after the run, per lock resource.
  returned: when the ClusterRole exists
  type: dict
  sample: {"leases": ["my-scheduler"], "endpoints": []}
rules:
  description: The ClusterRole's rules after the run (predicted in check mode).
  returned: when the ClusterRole exists
  type: list
  elements: dict
attempts:
  description: Number of read-modify-write attempts (more than one after a 409 Conflict).
  returned: always
  type: int
  sample: 1
"""

import traceback  # noqa: E402

from ansible.module_utils.basic import AnsibleModule  # noqa: E402

from ansible_collections.kubesched.scheduler.plugins.module_utils.clusterrole import (  # noqa: E402
    ANNOTATIONS,
    ClusterRoleLockError,
    compute_patch,
    lock_names,
    parse_added,
    render_added,
)
from ansible_collections.kubesched.scheduler.plugins.module_utils.k8s_connection import api_client, connection_arg_spec  # noqa: E402

MAX_ATTEMPTS = 5


class ClusterRoleClient:
    """Reads and replaces ClusterRoles as plain dicts."""

    def __init__(self, client):
        from kubernetes import client as k8s_client

        self._client = client
        self._rbac = k8s_client.RbacAuthorizationV1Api(client)

    def get(self, name):
        """The ClusterRole as a dict, or None when it does not exist."""
        from kubernetes.client.exceptions import ApiException

        try:
            obj = self._rbac.read_cluster_role(name)
        except ApiException as exc:
            if exc.status == 404:
                return None
            raise
        return self._client.sanitize_for_serialization(obj)

    def replace(self, name, body):
        return self._client.sanitize_for_serialization(self._rbac.replace_cluster_role(name, body))


def make_client(module):
    return ClusterRoleClient(api_client(module))


def is_conflict(exc):
    return getattr(exc, "status", None) == 409


def _empty():
    return {resource: [] for resource in ANNOTATIONS}


def argspec():
    spec = connection_arg_spec()
    spec.update(
        name={"type": "str", "default": "system:kube-scheduler"},
        lock_name={"type": "str", "required": True},
        state={"type": "str", "default": "present", "choices": ["present", "absent"]},
    )
    return spec


def run(module, client):
    name = module.params["name"]
    lock_name = module.params["lock_name"]
    state = module.params["state"]
    result = {"changed": False, "added": _empty(), "removed": _empty(), "attempts": 0}

    for attempt in range(1, MAX_ATTEMPTS + 1):
        result["attempts"] = attempt
        role = client.get(name)
        if role is None:
            if state == "absent":
                return result
            module.fail_json(msg=f"ClusterRole {name} not found", **result)

        metadata = role.setdefault("metadata", {})
        old_rules = role.get("rules") or []
        old_annotations = metadata.get("annotations") or {}
        before_added = parse_added(old_annotations)
        try:
            new_rules, changed, after_added = compute_patch(old_rules, lock_name, state, before_added)
        except ClusterRoleLockError as exc:
            module.fail_json(msg=f"Cannot add {lock_name} to ClusterRole {name}: {exc}", **result)
        new_annotations = render_added(old_annotations, after_added)

        result.update(
            changed=changed,
            rules=new_rules,
            lock_names=lock_names(new_rules),
            recorded=after_added,
            added={r: [n for n in lock_names(new_rules)[r] if n not in lock_names(old_rules)[r]] for r in ANNOTATIONS},
            removed={r: [n for n in lock_names(old_rules)[r] if n not in lock_names(new_rules)[r]] for r in ANNOTATIONS},
        )
        if module._diff:
            result["diff"] = {
                "before_header": f"ClusterRole {name}",
                "after_header": f"ClusterRole {name}",
                "before": {"metadata": {"annotations": _ours(old_annotations)}, "rules": old_rules},
                "after": {"metadata": {"annotations": _ours(new_annotations)}, "rules": new_rules},
            }
        if not changed or module.check_mode:
            return result

        body = dict(role)
        body["metadata"] = {k: v for k, v in metadata.items() if k != "managedFields"}
        body["metadata"]["annotations"] = new_annotations
        body["rules"] = new_rules
        # metadata.resourceVersion stays as read: the API server rejects the write with 409 if the
        # ClusterRole changed since, and the loop starts again from a fresh read.
        try:
            written = client.replace(name, body)
        except Exception as exc:  # the kubernetes client raises ApiException; fakes may raise others
            if is_conflict(exc) and attempt < MAX_ATTEMPTS:
                continue
            if is_conflict(exc):
                module.fail_json(msg=f"ClusterRole {name} kept changing: gave up after {attempt} conflicting writes", **result)
            module.fail_json(msg=f"Failed to update ClusterRole {name}: {getattr(exc, 'body', None) or exc}", exception=traceback.format_exc(), **result)
        if isinstance(written, dict) and "rules" in written:
            result["rules"] = written.get("rules") or []
            result["lock_names"] = lock_names(result["rules"])
        return result
    return result  # not reached: the loop either returns or fails


def _ours(annotations):
    return {k: v for k, v in (annotations or {}).items() if k in ANNOTATIONS.values()}


def main():
    module = AnsibleModule(argument_spec=argspec(), supports_check_mode=True)
    client = make_client(module)
    try:
        result = run(module, client)
    except Exception as exc:  # API errors other than the handled ones
        reason = getattr(exc, "body", None) or exc
        module.fail_json(msg=f"Failed to read or update ClusterRole {module.params['name']}: {reason}", exception=traceback.format_exc())
    module.exit_json(**result)


if __name__ == "__main__":
    main()
