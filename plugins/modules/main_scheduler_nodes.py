#!/usr/bin/python
# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: main_scheduler_nodes
short_description: Read the main scheduler of every control-plane node, order a change of them, wait for one
version_added: 0.4.0
author:
  - kubesched maintainers (@kubesched)
description:
  - Reads each node's kube-scheduler mirror pod (C(kube-scheduler-<node>)) and the Lease C(kube-system/kube-scheduler),
    the spec each node runs, its configuration's sha256 (the annotation C(kubesched.io/config-sha256) of the role
    P(kubesched.scheduler.main_scheduler#role)), image, health, and which node leads.
  - Orders the nodes to change (those whose files differ, or whose pod runs another configuration or is not
    healthy) standby nodes first and the leader's node last, so that leadership moves once.
  - With O(wait), waits for one node's pod to be the one expected, Ready, its container not restarting for 3 s;
    fails at once when the container cannot start or restarts, with the tail of its log.
options:
  nodes:
    description:
      - The control-plane nodes, each its inventory host's name (the node's name too), or a dict with C(host) (its
        inventory host), C(node) (its node's name, default C(host)), C(act) (whether its files are to be changed; it is
        then in RV(order)) and C(config_sha256) (the configuration it must run, the empty string for kubeadm's
        manifest; a node whose pod runs another, or is not healthy, is in RV(order) too). Other keys are ignored.
    type: list
    elements: raw
    required: true
  wait:
    description: The node to wait for and the pod expected there; each key checked when given.
    type: dict
    suboptions:
      node:
        description: The node's name.
        type: str
        required: true
      hash:
        description: The spec expected (the mirror pod's C(kubernetes.io/config.hash)).
        type: str
      not_hash:
        description: A spec the pod must no longer run.
        type: str
      config_sha256:
        description: The configuration's sha256 expected on the pod; the empty string for kubeadm's manifest.
        type: str
      image:
        description: The image expected.
        type: str
      restarts_allowed:
        description: Restarts of the expected pod's container that are not a failure.
        type: int
        default: 0
  timeout:
    description: Seconds to wait for O(wait).
    type: int
    default: 180
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - kubesched.scheduler._k8s.info_module
seealso:
  - module: kubesched.scheduler.main_scheduler_canary
  - module: kubesched.scheduler.scheduler_info
"""

EXAMPLES = r"""
- name: Read the control plane's schedulers and the order of a change
  kubesched.scheduler.main_scheduler_nodes:
    nodes:
      - {host: cp1, act: true}
      - {host: cp2, act: true}
      - {host: cp3}
  register: control_plane
"""

RETURN = r"""
extends_documentation_fragment:
  - kubesched.scheduler._k8s
nodes:
  description:
    - Each node's scheduler, in the order of O(nodes), with C(why) it is to be changed (empty when it is not) and the
      C(action) of the rollout on it.
    - C(action) is C(change) (its files differ, or its pod runs another configuration), C(wait) (its files match and
      its pod runs them but is not healthy yet, as after an interrupted run; a swap of the same spec would restart a
      container that just started) or the empty string.
  returned: always
  type: list
  elements: dict
  sample: [{host: cp1, node: cp1, pod: kube-scheduler-cp1, found: true, hash: 1f0c, config_sha256: "", image: registry.k8s.io/kube-scheduler:v1.37.2,
            ready: true, restarts: 0, problems: [], leads: true, why: "its files differ", action: change}]
order:
  description: The hosts to change, standby nodes first and the leader's node last.
  returned: always
  type: list
  elements: str
leader:
  description: The node whose scheduler holds the Lease; empty when none of O(nodes) does.
  returned: always
  type: str
holder:
  description: The Lease's holder identity.
  returned: always
  type: str
split:
  description: Whether the nodes run different configurations or images.
  returned: always
  type: bool
why:
  description: Why each node in RV(order) is to be changed, in words.
  returned: always
  type: list
  elements: str
report:
  description: Each node's state in words.
  returned: always
  type: list
  elements: str
waited:
  description: The wait's outcome, the pod's last state, the seconds waited and each holder of the Lease seen meanwhile.
  returned: when O(wait) was given
  type: dict
"""

from ansible_collections.kubesched.scheduler.plugins.module_utils.k8s_module import execute
from ansible_collections.kubesched.scheduler.plugins.module_utils.static_rollout import run_nodes

OPTIONS = {
    "nodes": {"type": "list", "elements": "raw", "required": True},
    "wait": {
        "type": "dict",
        "options": {
            "node": {"type": "str", "required": True},
            "hash": {"type": "str"},
            "not_hash": {"type": "str"},
            "config_sha256": {"type": "str"},
            "image": {"type": "str"},
            "restarts_allowed": {"type": "int", "default": 0},
        },
    },
    "timeout": {"type": "int", "default": 180},
}


def main():
    execute(OPTIONS, run_nodes, "Failed to read the control plane's schedulers")


if __name__ == "__main__":
    main()
