#!/usr/bin/python
# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: scheduler_preflight
short_description: Read, once, what only the cluster and the registry can tell before a second scheduler is installed
version_added: 0.2.0
author:
  - kubesched maintainers (@kubesched)
description:
  - The one read of the cluster and of the registry that the role P(kubesched.scheduler.deploy#role) makes before it renders
    anything. It reads the API server's version (which chooses the KubeSchedulerConfiguration apiVersion and the rules of a
    dedicated ClusterRole), whether another Deployment already serves the scheduler name, whether a profile of the cluster's
    own kube-scheduler (its static Pods' mirror pods in C(kube-system)) serves it, whether the namespaces exist, who holds
    the lock's Lease, and the digest of the image's tag in its registry.
  - Fails, naming the variable and the fix, when the cluster cannot be reached, the name is served by another
    Deployment or by a profile of the main scheduler (known from a ConfigMap it mounts, or from the profiles the role
    P(kubesched.scheduler.main_scheduler#role) notes on its pod), a namespace is missing, the Lease is held by another
    scheduler, or the registry does not answer, refuses to show the tag or does not have it.
  - With O(metrics=true) it reads whether the cluster serves the Prometheus Operator's C(monitoring.coreos.com/v1), and with
    O(priority_class) whether that PriorityClass exists (failing, naming the variable, when it does not).
  - The registry is asked with the distribution API (C(HEAD /v2/<repository>/manifests/<tag>)), anonymously, with basic
    authentication, or with the token flow (a 401 with C(WWW-Authenticate Bearer) is answered with a token from the realm).
  - It reads at which apiVersion the API server serves C(MutatingAdmissionPolicy) (C(GET /apis/admissionregistration.k8s.io/v1),
    then C(v1beta1) when v1 does not serve it), also with O(state=absent), and fails, naming the minimum version, when
    O(route=true) and neither serves it.
  - With O(node_pool), it lists the nodes that carry the pool's labels. It warns (a warning in the run's output, not a
    failure) when the scheduler and C(default-scheduler) can place pods onto the same nodes, naming both - no pool, a pool
    without a C(NoSchedule) or C(NoExecute) taint, or nodes of the pool without the taint - and when no node carries the
    pool's labels.
options:
  state:
    description:
      - With V(absent) only the server's version is read.
    type: str
    choices: [present, absent]
    default: present
  version_only:
    description:
      - Read only the server's version.
    type: bool
    default: false
  name:
    description:
      - The scheduler's name (C(kubesched.io/scheduler-name) of its Deployment).
      - Required unless O(version_only=true) or O(state=absent).
    type: str
    default: ''
  namespace:
    description: The namespace of the scheduler's Deployment.
    type: str
    default: kube-system
  lock_name:
    description:
      - The Lease of the scheduler's leader election.
      - Required unless O(version_only=true) or O(state=absent).
    type: str
    default: ''
  lock_namespace:
    description: The namespace of the Lease.
    type: str
    default: kube-system
  leader_elect:
    description: Whether the scheduler elects a leader (the Lease and its namespace are checked only then).
    type: bool
    default: true
  lock_namespace_create:
    description: Whether a missing lock namespace will be created (it is then not an error).
    type: bool
    default: false
  image:
    description:
      - The image repository with its registry host, for example C(registry.example.com/team/my-scheduler).
      - Required unless O(version_only=true) or O(state=absent).
    type: str
    default: ''
  image_tag:
    description:
      - The tag whose digest is read.
      - Required unless O(version_only=true) or O(state=absent).
    type: str
    default: ''
  image_digest:
    description: A digest given by the user; the registry is not asked then.
    type: str
    default: ''
  image_target:
    description: Only V(registry) reads the digest from the registry.
    type: str
    choices: [registry, kind, local]
    default: registry
  registry_url:
    description: The base URL of the registry's API; empty derives it from O(image).
    type: str
    default: ''
  registry_username:
    description: The registry user.
    type: str
    default: ''
  registry_password:
    description: The registry password or token.
    type: str
    default: ''
  metrics:
    description:
      - Whether the scheduler's metrics are to be scraped; the preflight then reads whether the cluster serves the Prometheus
        Operator's API (C(GET /apis/monitoring.coreos.com/v1), one request) for the ServiceMonitor and PrometheusRule.
    type: bool
    default: false
  priority_class:
    description:
      - A PriorityClass the scheduler's pods name that the run does not create; fails, naming the variable, when the cluster
        has none of that name. Empty checks none.
    type: str
    default: ''
  node_pool:
    description:
      - The nodes of the scheduler, as the role's C(kube_scheduler_node_pool) gives them; empty for none.
    type: dict
    default: {}
    suboptions:
      labels:
        description: The labels every node of the pool carries.
        type: dict
      taint:
        description: The taint the pool's nodes carry, which keeps the default scheduler's pods off them.
        type: dict
        suboptions:
          key:
            description: The taint's key.
            type: str
            required: true
          value:
            description: The taint's value (empty for none).
            type: str
            default: ''
          effect:
            description: The taint's effect.
            type: str
            choices: [NoSchedule, PreferNoSchedule, NoExecute]
            default: NoSchedule
  route:
    description:
      - Whether pods will be routed to the scheduler by a C(MutatingAdmissionPolicy); fails when the cluster serves none.
    type: bool
    default: false
  gang_scheduling:
    description:
      - Whether the scheduler will gang-schedule; fails, naming the flags to set, when the cluster does not serve C(podgroups) of
        C(scheduling.k8s.io/v1beta1) or its API server's C(/metrics) says the gate C(GenericWorkload) is off.
    type: bool
    default: false
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - kubesched.scheduler._k8s.info_module
seealso:
  - module: kubesched.scheduler.scheduler
"""

EXAMPLES = r"""
- name: Read the cluster and the registry before installing my-scheduler
  kubesched.scheduler.scheduler_preflight:
    name: my-scheduler
    lock_name: my-scheduler
    image: localhost:5001/my-scheduler
    image_tag: v1.37.2
  register: preflight
"""

RETURN = r"""
extends_documentation_fragment:
  - kubesched.scheduler._k8s
server_version:
  description: The API server's gitVersion.
  returned: always
  type: str
  sample: v1.37.2
digest:
  description: The digest of the image's tag in its registry (or O(image_digest)); empty for other targets.
  returned: with O(state=present)
  type: str
  sample: sha256:0f3c2a9e1b7d4c559a1e2f6b8d0c4e710f3c2a9e1b7d4c559a1e2f6b8d0c4e71
namespace_exists:
  description: Whether the scheduler's namespace exists.
  returned: with O(state=present)
  type: bool
lock_namespace_exists:
  description: Whether the lock namespace exists.
  returned: with O(state=present)
  type: bool
lease_holder:
  description: The holder of the Lease before the run (empty when there is none).
  returned: with O(state=present) and O(leader_elect=true)
  type: str
monitoring_api:
  description: Whether the cluster serves C(servicemonitors) and C(prometheusrules) of C(monitoring.coreos.com/v1).
  returned: with O(state=present) and O(metrics=true)
  type: bool
admission_policy_api:
  description: The apiVersion at which the cluster serves C(MutatingAdmissionPolicy); empty when it serves none.
  returned: unless O(version_only=true)
  type: str
  sample: admissionregistration.k8s.io/v1
node_pool_nodes:
  description: The nodes that carry the labels of O(node_pool) (empty without a pool).
  returned: with O(state=present)
  type: list
  elements: str
  sample: [kubesched-worker2]
"""

from ansible_collections.kubesched.scheduler.plugins.module_utils.runner import run_preflight
from ansible_collections.kubesched.scheduler.plugins.module_utils.k8s_module import execute

OPTIONS = {
    "state": {"type": "str", "default": "present", "choices": ["present", "absent"]},
    "version_only": {"type": "bool", "default": False},
    "name": {"type": "str", "default": ""},
    "namespace": {"type": "str", "default": "kube-system"},
    "lock_name": {"type": "str", "default": ""},
    "lock_namespace": {"type": "str", "default": "kube-system"},
    "leader_elect": {"type": "bool", "default": True},
    "lock_namespace_create": {"type": "bool", "default": False},
    "image": {"type": "str", "default": ""},
    "image_tag": {"type": "str", "default": ""},
    "image_digest": {"type": "str", "default": ""},
    "image_target": {"type": "str", "default": "registry", "choices": ["registry", "kind", "local"]},
    "registry_url": {"type": "str", "default": ""},
    "registry_username": {"type": "str", "default": ""},
    "registry_password": {"type": "str", "default": "", "no_log": True},
    "metrics": {"type": "bool", "default": False},
    "priority_class": {"type": "str", "default": ""},
    "node_pool": {
        "type": "dict",
        "default": {},
        "options": {
            "labels": {"type": "dict"},
            "taint": {
                "type": "dict",
                "options": {
                    "key": {"type": "str", "required": True, "no_log": False},
                    "value": {"type": "str", "default": ""},
                    "effect": {"type": "str", "default": "NoSchedule", "choices": ["NoSchedule", "PreferNoSchedule", "NoExecute"]},
                },
            },
        },
    },
    "route": {"type": "bool", "default": False},
    "gang_scheduling": {"type": "bool", "default": False},
}


def main():
    execute(OPTIONS, run_preflight, "Failed to read the cluster")


if __name__ == "__main__":
    main()
