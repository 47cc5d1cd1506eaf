#!/usr/bin/python
# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

# The documentation of the action plugin plugins/action/check_inputs.py, which does the work on the controller.

from __future__ import annotations

DOCUMENTATION = r"""
module: check_inputs
short_description: Check the roles' inputs that an argument spec cannot express
version_added: 0.2.0
author:
  - kubesched maintainers (@kubesched)
description:
  - The checks the roles of this collection run on their variables after their argument specs have checked types and
    choices, before anything changes.
  - V(common) checks the syntax of the names and namespaces, the default scheduler's reserved name and Leases, and
    render mode.
  - V(deploy), with C(kube_scheduler_state=present) only, checks the number of replicas and leader election, the Go
    durations of leader election and their order, the KubeSchedulerConfiguration settings (qps, burst, parallelism,
    the percentage of nodes to score, the extra profiles' schedulerNames) and the Deployment settings (extra
    arguments, verbosity, wait timeout, image digest).
  - Fails with every message of what is wrong, each naming the variable and the fix.
  - Runs on the controller, with no module run on the host; it contacts no cluster.
options:
  checks:
    description:
      - The checks to run, in this order.
      - V(common) reads C(kube_scheduler_name), C(kube_scheduler_namespace), C(kube_scheduler_lock_name),
        C(kube_scheduler_lock_namespace), C(kube_scheduler_state), C(kube_scheduler_render_dir) and
        C(kube_scheduler_cluster_version).
      - V(deploy) reads C(kube_scheduler_name), C(kube_scheduler_state), C(kube_scheduler_replicas),
        C(kube_scheduler_leader_elect), C(kube_scheduler_lease_duration), C(kube_scheduler_renew_deadline),
        C(kube_scheduler_retry_period), C(kube_scheduler_client_qps), C(kube_scheduler_client_burst),
        C(kube_scheduler_parallelism), C(kube_scheduler_percentage_of_nodes_to_score),
        C(kube_scheduler_profiles_extra), C(kube_scheduler_extra_args), C(kube_scheduler_verbosity),
        C(kube_scheduler_wait_timeout) and C(kube_scheduler_image_digest).
    type: list
    elements: str
    choices: [common, deploy]
    required: true
  values:
    description:
      - The variables the checks read, by their names, as the role has them (strings given with C(-e) are read as
        the argument spec and the role's templates read them).
      - A variable a check reads that is missing fails the task, naming it.
    type: dict
    required: true
extends_documentation_fragment:
  - kubesched.scheduler._attributes.info_module
notes:
  - The checks are C(check_common) and C(check_deploy) of the collection's C(plugins/module_utils/inputs.py).
seealso:
  - module: kubesched.scheduler.scheduler_preflight
    description: The checks that need the cluster and the registry.
"""

EXAMPLES = r"""
- name: Check the names before anything changes
  kubesched.scheduler.check_inputs:
    checks: [common]
    values:
      kube_scheduler_name: "{{ kube_scheduler_name }}"
      kube_scheduler_namespace: "{{ kube_scheduler_namespace }}"
      kube_scheduler_lock_name: "{{ kube_scheduler_lock_name }}"
      kube_scheduler_lock_namespace: "{{ kube_scheduler_lock_namespace }}"
      kube_scheduler_state: "{{ kube_scheduler_state }}"
      kube_scheduler_render_dir: "{{ kube_scheduler_render_dir }}"
      kube_scheduler_cluster_version: "{{ kube_scheduler_cluster_version }}"
"""

RETURN = r"""
messages:
  description: What is wrong, one message each; empty when every check passed.
  returned: always
  type: list
  elements: str
  sample: ["kube_scheduler_name is 'MyScheduler': use 1 to 63 lowercase letters, digits and '-', ..."]
"""
