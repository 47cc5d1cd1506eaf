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
  - kubernetes.core.k8s_auth_options
  - kubesched.scheduler._k8s
attributes:
  check_mode:
    details: Reads the ClusterRole and predicts the change without writing it.
  diff_mode:
    support: full
    details: Returns the rules and the collection's annotations before and after.
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

from ansible_collections.kubesched.scheduler.plugins.module_utils.clusterrole import run
from ansible_collections.kubesched.scheduler.plugins.module_utils.k8s_module import execute

OPTIONS = {
    "name": {"type": "str", "default": "system:kube-scheduler"},
    "lock_name": {"type": "str", "required": True},
    "state": {"type": "str", "default": "present", "choices": ["present", "absent"]},
}


def main():
    execute(OPTIONS, run, "Failed to read or update the ClusterRole")


if __name__ == "__main__":
    main()
