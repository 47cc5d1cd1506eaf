#!/usr/bin/python
# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: scheduler_metrics
short_description: Read what a second scheduler's /metrics says, without a Prometheus
version_added: 0.2.0
author:
  - kubesched maintainers (@kubesched)
description:
  - Reads C(/metrics) of every running pod of a scheduler the role P(kubesched.scheduler.deploy#role) installed (label
    C(kubesched.io/scheduler-name)) once, and reports per pod and summed over the pods the scheduling attempts by result
    (C(scheduler_schedule_attempts_total), V(scheduled), V(unschedulable), V(error)), the pending pods by queue
    (C(scheduler_pending_pods), V(active), V(backoff), V(unschedulable), V(gated)), the 99th percentile of the scheduling
    SLI (C(scheduler_pod_scheduling_sli_duration_seconds), from a pod's first attempt until it is bound), estimated from the
    histogram's buckets as Prometheus's C(histogram_quantile) does, and which pod leads (C(leader_election_master_status)).
  - The counters count since each pod started; a standby pod has attempted nothing (its queue holds the pods all the same,
    as V(active)).
  - kube-scheduler's secure port authenticates the caller and asks the API server whether it may C(get) the non-resource
    URL C(/metrics). The API server's proxy of a pod (C(/api/v1/namespaces/<ns>/pods/https:<pod>:10259/proxy/metrics)) does
    not forward the caller's identity, so kube-scheduler answers 403 to C(system:anonymous) there. This module opens a
    port-forward to each pod through the API server instead (C(pods/portforward)) and speaks HTTPS to kube-scheduler over
    it with the kubeconfig's own credentials (its bearer token, or its client certificate). The serving certificate of
    kube-scheduler is self-signed in memory and is not verified.
  - Read-only. Needs C(list) on pods and C(create) on C(pods/portforward) in the scheduler's namespace, and C(get) on the
    non-resource URL C(/metrics) (the ClusterRole C(<name>-metrics-reader) of the deploy role grants the latter; a
    cluster-admin has all of them).
options:
  name:
    description: The scheduler's name (C(kube_scheduler_name)); its pods carry the label C(kubesched.io/scheduler-name=<name>).
    type: str
    default: my-scheduler
  namespace:
    description: The namespace of the scheduler's pods (C(kube_scheduler_namespace)).
    type: str
    default: kube-system
  pods:
    description: Only these pods of the scheduler. By default every running one.
    type: list
    elements: str
    default: []
  profiles:
    description:
      - The profiles (schedulerNames) whose attempts are counted (the C(profile) label). By default O(name) alone; give the
        names of C(kube_scheduler_profiles_extra) too to count theirs.
    type: list
    elements: str
    default: []
  port:
    description: kube-scheduler's secure port in the pod.
    type: int
    default: 10259
  timeout:
    description: Seconds one pod's read may take.
    type: int
    default: 10
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - kubesched.scheduler._k8s.info_module
notes:
  - Fails when no pod of the scheduler runs, or when none of them could be read (naming the missing rights on a 403); a
    pod that could not be read while others could is reported with RV(pods[].error).
seealso:
  - module: kubesched.scheduler.pod_placement
  - name: Kubernetes scheduler metrics
    description: The metrics kube-scheduler exposes.
    link: https://kubernetes.io/docs/reference/instrumentation/metrics/
"""

EXAMPLES = r"""
- name: Read my-scheduler's metrics
  kubesched.scheduler.scheduler_metrics:
    name: my-scheduler
    namespace: kube-system
  register: metrics

- name: Show them
  ansible.builtin.debug:
    msg: >-
      scheduled {{ metrics.attempts.scheduled }}, unschedulable {{ metrics.attempts.unschedulable }},
      errors {{ metrics.attempts.error }}, waiting unschedulable {{ metrics.pending.unschedulable }},
      p99 {{ metrics.sli_p99_seconds }} s, leader {{ metrics.leader }}

- name: Fail when the scheduler has made errors
  ansible.builtin.assert:
    that: metrics.attempts.error == 0
"""

RETURN = r"""
pods:
  description: Each running pod of the scheduler, by name.
  returned: always
  type: list
  elements: dict
  contains:
    name:
      description: The pod.
      type: str
    node:
      description: Its node.
      type: str
    leader:
      description: Whether it holds the Lease (C(leader_election_master_status) 1); null without leader election.
      type: bool
    attempts:
      description: C(scheduler_schedule_attempts_total) of O(profiles) by result, since the pod started.
      type: dict
      sample: {scheduled: 42, unschedulable: 3, error: 0}
    pending:
      description: C(scheduler_pending_pods) by queue.
      type: dict
      sample: {active: 0, backoff: 0, unschedulable: 1, gated: 0}
    sli_p99_seconds:
      description: The 99th percentile of the scheduling SLI of this pod's bindings; null when it bound none.
      type: float
    sli_count:
      description: How many pods this pod bound that the SLI counts.
      type: int
    error:
      description: Why the pod could not be read (then the other keys are missing).
      type: str
attempts:
  description: The attempts of all pods that could be read, by result.
  returned: when a pod could be read
  type: dict
  sample: {scheduled: 42, unschedulable: 3, error: 0}
pending:
  description:
    - The pending pods by queue, those of the leader (a standby fills its queue from the same informers but never attempts),
      or summed over the pods read when none leads.
  returned: when a pod could be read
  type: dict
  sample: {active: 0, backoff: 0, unschedulable: 1, gated: 0, incomplete: 0, pending: 0}
sli_p99_seconds:
  description: The 99th percentile of the scheduling SLI over the buckets of all pods read; null when none bound a pod.
  returned: when a pod could be read
  type: float
  sample: 0.0198
sli_count:
  description: The observations of the SLI summed over the pods.
  returned: when a pod could be read
  type: int
leader:
  description: The pod that reports holding the Lease; empty when none does.
  returned: when a pod could be read
  type: str
profiles:
  description: The profiles whose attempts were counted.
  returned: when a pod could be read
  type: list
  elements: str
api_requests:
  description: Requests made to the API server (the pod list, one port-forward per pod).
  returned: always
  type: int
"""

from ansible_collections.kubesched.scheduler.plugins.module_utils.k8s_module import execute
from ansible_collections.kubesched.scheduler.plugins.module_utils.metrics import run

OPTIONS = {
    "name": {"type": "str", "default": "my-scheduler"},
    "namespace": {"type": "str", "default": "kube-system"},
    "pods": {"type": "list", "elements": "str", "default": []},
    "profiles": {"type": "list", "elements": "str", "default": []},
    "port": {"type": "int", "default": 10259},
    "timeout": {"type": "int", "default": 10},
}


def main():
    execute(OPTIONS, run, "Failed to read the scheduler's metrics")


if __name__ == "__main__":
    main()
