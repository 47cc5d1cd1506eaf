#!/usr/bin/python
# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: scheduler_lock
short_description: Let a second scheduler hold its own leader-election lock, in either RBAC mode, or take that back
version_added: 0.2.0
author:
  - kubesched maintainers (@kubesched)
description:
  - The RBAC of a second scheduler's lock, as the role P(kubesched.scheduler.clusterrole#role) applies it on its own (the
    module M(kubesched.scheduler.scheduler) does the same as part of an install).
  - In V(patch) mode the lock name is added to the lease rules of O(clusterrole) (by default C(system:kube-scheduler), as
    the Kubernetes task does with C(kubectl edit)); in V(dedicated) mode the ClusterRole O(dedicated) is applied instead.
    The ClusterRoleBinding O(binding) gives the chosen ClusterRole to the scheduler's ServiceAccount.
  - A switch between the modes never leaves a running scheduler without its lock. The new grant exists before the
    binding moves to it (its C(roleRef) cannot change, so it is deleted and created), and the other mode's grant goes
    only after. O(state=absent) removes the binding, the lock name (only when the collection added it) and a dedicated
    ClusterRole this collection made.
options:
  state:
    description: V(present) grants, V(absent) takes back.
    type: str
    choices: [present, absent]
    default: present
  lock_name:
    description: C(leaderElection.resourceName) of the scheduler.
    type: str
    required: true
  mode:
    description: V(patch) or V(dedicated), as described above.
    type: str
    choices: [patch, dedicated]
    default: patch
  clusterrole:
    description: The ClusterRole whose lease rules get O(lock_name) in V(patch) mode, and lose it in V(dedicated) mode.
    type: str
    default: system:kube-scheduler
  binding:
    description: The ClusterRoleBinding of the scheduler's ServiceAccount to the lock's ClusterRole, as a dict.
    type: dict
    required: true
  dedicated:
    description:
      - The dedicated ClusterRole, as a dict. In patch mode only its name and C(kubesched.io/scheduler-name) label are used.
    type: dict
    required: true
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - kubesched.scheduler._k8s
attributes:
  check_mode:
    details: Server-side dry runs; RV(changes) lists what would change.
  diff_mode:
    support: partial
    details: Lists the changes, not the objects' fields.
seealso:
  - module: kubesched.scheduler.clusterrole_lock
  - module: kubesched.scheduler.scheduler
"""

EXAMPLES = r"""
- name: Let my-scheduler hold its own Lease, through system:kube-scheduler
  kubesched.scheduler.scheduler_lock:
    lock_name: my-scheduler
    binding: "{{ lookup('ansible.builtin.template', 'clusterrolebinding-kube-scheduler.yaml.j2') | from_yaml }}"
    dedicated: {metadata: {name: my-scheduler-scheduler, labels: {kubesched.io/scheduler-name: my-scheduler}}}
"""

RETURN = r"""
extends_documentation_fragment:
  - kubesched.scheduler._k8s
changes:
  description: What changed (or would change in check mode).
  returned: always
  type: list
  elements: str
  sample: ["lock name my-scheduler added to ClusterRole system:kube-scheduler", "ClusterRoleBinding my-scheduler-as-kube-scheduler"]
"""

from ansible_collections.kubesched.scheduler.plugins.module_utils.runner import run_lock
from ansible_collections.kubesched.scheduler.plugins.module_utils.k8s_module import execute

OPTIONS = {
    "state": {"type": "str", "default": "present", "choices": ["present", "absent"]},
    "lock_name": {"type": "str", "required": True},
    "mode": {"type": "str", "default": "patch", "choices": ["patch", "dedicated"]},
    "clusterrole": {"type": "str", "default": "system:kube-scheduler"},
    "binding": {"type": "dict", "required": True},
    "dedicated": {"type": "dict", "required": True},
}


def main():
    execute(OPTIONS, run_lock, "Failed to grant or take back the lock")


if __name__ == "__main__":
    main()
