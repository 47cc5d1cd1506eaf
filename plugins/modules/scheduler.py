#!/usr/bin/python
# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: scheduler
short_description: Install, update or remove a second kube-scheduler from its rendered objects, safely, in one run
version_added: 0.2.0
author:
  - kubesched maintainers (@kubesched)
description:
  - Installs, updates or removes a second kube-scheduler from the objects the role P(kubesched.scheduler.deploy#role) rendered,
    with the RBAC of its lock, in one run. Objects of the same names that this collection did not make are refused first.
  - An update that changes the pod template is tried first with the image's kube-scheduler in a Pod that never reaches
    the API server; then every object is applied (server-side apply), and the run waits until the new pods are ready and
    one of them holds the Lease. When they do not within O(wait_timeout), the previous objects go back (a first install
    removes what it created), and the run fails with what the new pods did.
  - Objects listed after the Deployment (the routing policy) are applied once the new pods lead, and removed first.
  - O(state=absent) deletes the objects newest first, the Lease, the lock namespace it created and only the RBAC it added.
options:
  state:
    description:
      - V(present) installs or updates, V(absent) removes.
    type: str
    choices: [present, absent]
    default: present
  objects:
    description:
      - The objects of the scheduler, in the order they are applied (and deleted in reverse), as the API's dicts. Exactly
        one C(Deployment) and one C(ConfigMap) (the one the Deployment mounts) among them.
      - Kinds C(ServiceAccount), C(ConfigMap), C(Deployment), C(ClusterRoleBinding), C(RoleBinding), C(Service),
        C(PodDisruptionBudget), C(Role), C(ClusterRole), C(MutatingAdmissionPolicy) and C(MutatingAdmissionPolicyBinding); the
        REST path follows each object's C(apiVersion).
      - The objects after the Deployment are applied once its new pods lead.
    type: list
    elements: dict
    required: true
  lock:
    description:
      - The scheduler's leader election lock and its RBAC.
    type: dict
    required: true
    suboptions:
      leader_elect:
        description: Whether the scheduler elects a leader; without it no Lease is waited for.
        type: bool
        default: true
      lock_name:
        description: C(leaderElection.resourceName).
        type: str
        required: true
      lock_namespace:
        description: C(leaderElection.resourceNamespace).
        type: str
        default: kube-system
      mode:
        description:
          - V(patch) adds O(lock.lock_name) to the lease rules of O(lock.clusterrole) (see M(kubesched.scheduler.clusterrole_lock)).
          - V(dedicated) applies O(lock.dedicated) instead and takes the name back from O(lock.clusterrole).
        type: str
        choices: [patch, dedicated]
        default: patch
      clusterrole:
        description: The ClusterRole patch mode adds the lock name to.
        type: str
        default: system:kube-scheduler
      binding:
        description: The ClusterRoleBinding that gives the scheduler's ServiceAccount the lock's ClusterRole.
        type: dict
        required: true
      dedicated:
        description:
          - The dedicated ClusterRole. In patch mode only its name and its C(kubesched.io/scheduler-name) label are used,
            to delete such a ClusterRole when this collection made it.
        type: dict
        required: true
      namespace:
        description: The lock namespace, created when it does not exist. Omit it to create none.
        type: dict
  adopt:
    description:
      - Take over objects of the scheduler's names that this collection did not make (a hand-made install of the
        Kubernetes task, for example) instead of refusing them.
      - They are applied over with server-side apply. A Deployment whose (immutable) selector differs is deleted with
        its ReplicaSets orphaned, so that its pods keep scheduling until the new pods are ready; then they are deleted,
        before the wait for the Lease. When the new pods do not become ready, the old Deployment is created again and
        adopts its ReplicaSets back, its pods never having stopped.
    type: bool
    default: false
  wait_timeout:
    description:
      - Seconds to wait for the trial Pod, for the new pods to become ready, for the rollout and for the Lease (and, on
        removal, for each deletion). New pods not ready by then are rolled back.
    type: int
    default: 180
  prune:
    description:
      - Objects (C(apiVersion), C(kind), C(metadata.name) and C(metadata.namespace)) the run does not apply because an option
        is turned off, deleted with O(state=present) when they exist and carry the collection's
        C(app.kubernetes.io/managed-by) label.
    type: list
    elements: dict
    default: []
  hint:
    description:
      - What the user can correct when the trial (or a first install's pods) refuse the configuration or the image; the end
        of that message.
    type: str
    default: Correct the configuration or the image.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - kubesched.scheduler._k8s
attributes:
  check_mode:
    details: Every apply is a server-side dry run, no trial runs and nothing is waited for; RV(changes) lists what would change.
  diff_mode:
    support: full
    details: The content of each object before and after (from the dry run in check mode).
notes:
  - Usually called by the role P(kubesched.scheduler.deploy#role), which renders the objects and checks every input first.
seealso:
  - module: kubesched.scheduler.scheduler_preflight
  - module: kubesched.scheduler.clusterrole_lock
  - name: Configure Multiple Schedulers
    description: The Kubernetes task this module automates.
    link: https://kubernetes.io/docs/tasks/extend-kubernetes/configure-multiple-schedulers/
"""

EXAMPLES = r"""
- name: Install the scheduler from the manifests of a render directory
  kubesched.scheduler.scheduler:
    objects: "{{ lookup('ansible.builtin.fileglob', 'out/[1-5]*.yaml', wantlist=True) | map('ansible.builtin.file') | map('from_yaml') | list }}"
    lock:
      lock_name: my-scheduler
      binding: "{{ lookup('ansible.builtin.file', 'out/20-clusterrolebinding-kube-scheduler.yaml') | from_yaml }}"
      dedicated: {metadata: {name: my-scheduler-scheduler, labels: {kubesched.io/scheduler-name: my-scheduler}}}
  register: installed

- name: Show who leads
  ansible.builtin.debug:
    msg: "{{ installed.lease_holder }}"
"""

RETURN = r"""
changes:
  description: What changed (or would change in check mode), one line per object.
  returned: always
  type: list
  elements: str
  sample: ["lock name my-scheduler added to ClusterRole system:kube-scheduler", "Deployment kube-system/my-scheduler"]
phases:
  description: The phases that ran and their seconds (read, trial, lock, apply, wait; remove).
  returned: always
  type: dict
  sample: {"read": 0.1, "trial": 4.2, "lock": 0.1, "apply": 0.2, "wait": 12.3}
lease_holder:
  description: The holder identity of the Lease after the rollout (empty without leader election or in check mode).
  returned: with O(state=present)
  type: str
  sample: my-scheduler-6d8f9c7b5-x2x4q_0f3c2a9e-1b7d-4c55-9a1e-2f6b8d0c4e71
image:
  description: The image the Deployment runs.
  returned: with O(state=present)
  type: str
rolled_back:
  description: Whether a failed rollout put the previous ConfigMap and Deployment back.
  returned: with O(state=present)
  type: bool
foreign:
  description: Objects of the scheduler's names that the collection did not make (the run then fails).
  returned: on that failure
  type: list
  elements: str
adopted:
  description: Objects of the scheduler's names that the collection did not make and took over (O(adopt=true)).
  returned: with O(state=present)
  type: list
  elements: str
pending_pods:
  description:
    - The pods (C(namespace/name)) left unbound after a removal whose C(spec.schedulerName) is one of the names the removed
      scheduler served; they wait until a scheduler of that name runs again.
  returned: with O(state=absent)
  type: list
  elements: str
  sample: [batch/job-7x2kq]
seconds:
  description: Seconds the run took.
  returned: always
  type: float
api_requests:
  description: Requests made to the API server.
  returned: always
  type: int
"""

from ansible_collections.kubesched.scheduler.plugins.module_utils.runner import run
from ansible_collections.kubesched.scheduler.plugins.module_utils.k8s_module import execute

OPTIONS = {
    "state": {"type": "str", "default": "present", "choices": ["present", "absent"]},
    "objects": {"type": "list", "elements": "dict", "required": True},
    "lock": {
        "type": "dict",
        "required": True,
        "options": {
            "leader_elect": {"type": "bool", "default": True},
            "lock_name": {"type": "str", "required": True},
            "lock_namespace": {"type": "str", "default": "kube-system"},
            "mode": {"type": "str", "default": "patch", "choices": ["patch", "dedicated"]},
            "clusterrole": {"type": "str", "default": "system:kube-scheduler"},
            "binding": {"type": "dict", "required": True},
            "dedicated": {"type": "dict", "required": True},
            "namespace": {"type": "dict"},
        },
    },
    "adopt": {"type": "bool", "default": False},
    "wait_timeout": {"type": "int", "default": 180},
    "prune": {"type": "list", "elements": "dict", "default": []},
    "hint": {"type": "str", "default": "Correct the configuration or the image."},
}


def main():
    execute(OPTIONS, run, "Failed to install or remove the scheduler")


if __name__ == "__main__":
    main()
