#!/usr/bin/python
# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: main_scheduler_canary
short_description: Prove that the main scheduler's new configuration leads and places a pod of each profile
version_added: 0.4.0
author:
  - kubesched maintainers (@kubesched)
description:
  - Waits for the Lease C(kube-system/kube-scheduler) to be held by one of O(nodes) whose kube-scheduler runs the
    configuration O(config_sha256); then creates one plain pod per profile (no tolerations, no affinity) and waits for
    it to be bound by that profile (its C(Scheduled) event names it). The canary pods are deleted at the end, and
    those an interrupted run left at the start.
  - A configuration that loads but cannot place a plain pod fails here, with the pod's C(PodScheduled) message.
options:
  nodes:
    description: The control-plane nodes' names.
    type: list
    elements: str
    required: true
  config_sha256:
    description: The sha256 of the configuration the leader must run.
    type: str
    required: true
  profiles:
    description: The configuration's scheduler names.
    type: list
    elements: str
    required: true
  namespace:
    description: Where the canary pods are made.
    type: str
    default: kube-system
  image:
    description: The canary's image; by default the pause image the nodes have.
    type: str
  timeout:
    description: Seconds for the Lease and the canaries, together.
    type: int
    default: 120
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - kubesched.scheduler._k8s
attributes:
  check_mode:
    details: Makes no canary.
  diff_mode:
    support: none
  idempotent:
    details: The canaries are deleted; the module never reports a change.
seealso:
  - module: kubesched.scheduler.main_scheduler_nodes
"""

EXAMPLES = r"""
- name: Check that the new configuration leads and places pods
  kubesched.scheduler.main_scheduler_canary:
    nodes: [cp1, cp2, cp3]
    config_sha256: "{{ config | hash('sha256') }}"
    profiles: [default-scheduler, binpack-scheduler]
"""

RETURN = r"""
extends_documentation_fragment:
  - kubesched.scheduler._k8s
leader:
  description: The node whose scheduler held the Lease.
  returned: always
  type: str
canaries:
  description: Each canary's profile, pod, node, the scheduler its Scheduled event names and the seconds to it.
  returned: always
  type: list
  elements: dict
  sample: [{profile: default-scheduler, pod: kubesched-canary-x7k2p, node: worker, scheduled_by: default-scheduler, seconds: 0.6}]
report:
  description: Each canary in words.
  returned: always
  type: list
  elements: str
"""

from ansible_collections.kubesched.scheduler.plugins.module_utils.k8s_module import execute
from ansible_collections.kubesched.scheduler.plugins.module_utils.static_rollout import run_canary

OPTIONS = {
    "nodes": {"type": "list", "elements": "str", "required": True},
    "config_sha256": {"type": "str", "required": True},
    "profiles": {"type": "list", "elements": "str", "required": True},
    "namespace": {"type": "str", "default": "kube-system"},
    "image": {"type": "str"},
    "timeout": {"type": "int", "default": 120},
}


def main():
    execute(OPTIONS, run_canary, "Failed to run the canary")


if __name__ == "__main__":
    main()
