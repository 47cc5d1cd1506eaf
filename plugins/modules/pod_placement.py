#!/usr/bin/python
# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: pod_placement
short_description: Tell which scheduler placed each pod, on which node, and why a pod is Pending
version_added: 0.1.0
author:
  - kubesched maintainers (@kubesched)
description:
  - Reports, for each selected pod, the scheduler that bound it, the node it runs on, when it was
    placed and what shows it (a C(Scheduled) event or only the pod itself, as events expire after an
    hour by default).
  - For a pending pod, reports why, with the latest C(FailedScheduling) message, the pod's C(PodScheduled)
    condition, its scheduling gates, that the scheduler of its C(spec.schedulerName) is installed but
    not running, or that no scheduler serves it at all.
  - Reports a pod that the kubelet of its node refused to admit after a scheduler bound it as V(rejected)
    (RV(pods[].state)), with the scheduler that bound it and the kubelet's reason and message - two schedulers that bound
    onto the same free capacity at once (C(OutOfcpu), C(OutOfmemory), C(OutOfpods)), or a node that no longer matches
    the pod (C(NodeAffinity), C(TaintToleration)).
  - Optionally checks expectations (O(scheduler_name), O(state), O(nodes)), fails when a pod does not
    meet them, and with O(wait=true) polls until they hold or O(wait_timeout) runs out.
  - The number of lists does not depend on the number of pods. Each poll lists the pods once and the
    core/v1 events at most twice, filtered on the server by C(reason=Scheduled) and
    C(reason=FailedScheduling) (a field selector cannot match two reasons at once); events written
    through events.k8s.io/v1 are the same objects and are included. Events are joined to pods by UID.
    Only when a pending pod has neither an event nor a C(PodScheduled) condition does the poll also
    list Leases and Deployments to tell whether anything runs for its schedulerName (once each, and
    the Leases a second time when a scheduler's Deployment names a lock Lease of another name).
  - Every list is read in pages of O(page_size) items (C(limit) and C(continue)), and each page is
    reduced before the next one is asked for (pods to their placement records, events to the latest
    one per selected pod, Leases and Deployments to those of the schedulerNames looked up), so memory
    grows with the selected pods, not with the size of the cluster.
  - Read-only. Needs C(list) on pods and events in the selected namespaces and, for the schedulerName
    check, on C(coordination.k8s.io) leases and C(apps) deployments in all namespaces; when the latter
    are forbidden, such pods are reported as C(Waiting) with the reason in their message.
options:
  namespace:
    description:
      - The namespace of the pods. Omit it to select pods in all namespaces.
    type: str
  names:
    description:
      - Names of the pods to report on. Omit it to report on every pod the selectors match.
      - With expectations, a name that no pod carries is reported as not found.
    type: list
    elements: str
    aliases: [name]
  label_selectors:
    description:
      - Label selectors the pods must match, for example V(app=web). They are joined with commas, so
        all of them must hold.
    type: list
    elements: str
    default: []
  field_selectors:
    description:
      - Field selectors the pods must match, for example V(status.phase=Pending) or
        V(spec.nodeName=worker-1). They are joined with commas.
    type: list
    elements: str
    default: []
  scheduler_name:
    description:
      - Expect every selected pod to have been placed by this scheduler (the schedulerName of its
        profile, as named by the C(Scheduled) event or, once the event expired, the pod's
        C(spec.schedulerName)).
      - A pending pod does not meet it, unless O(state=pending), in which case its
        C(spec.schedulerName) must name this scheduler.
      - A pod whose C(spec.nodeName) was set at creation was placed by no scheduler and does not meet it.
      - A pod placed by another profile of the same kube-scheduler process meets it (one process, one queue and one cache
        for every profile). A Deployment of P(kubesched.scheduler.deploy#role) serves every schedulerName of its
        C(kubesched.io/scheduler-profiles) annotation, and the cluster's own static kube-scheduler those the role
        P(kubesched.scheduler.main_scheduler#role) noted on its pod (else C(default-scheduler)). Which process serves which
        profile is looked up once per run, only when a selected pod names another scheduler (one Deployment list and one
        list of the C(component=kube-scheduler) pods of C(kube-system)); RV(pods[].scheduler_process) tells the process.
    type: str
  state:
    description:
      - Expect every selected pod to be V(scheduled) (bound to a node, and not rejected by its kubelet), V(pending) (not
        bound yet) or V(rejected) (bound, then refused by the kubelet of its node).
    type: str
    choices: [scheduled, pending, rejected]
  nodes:
    description:
      - Expect every selected pod to be bound to one of these nodes. A pending pod does not meet it.
      - Cannot be combined with O(state=pending).
    type: list
    elements: str
  wait:
    description:
      - Poll until every expectation holds, or fail after O(wait_timeout) seconds.
      - Needs at least one of O(scheduler_name), O(state) or O(nodes).
      - With expectations, an empty selection does not meet them, so this also waits for the pods to appear.
    type: bool
    default: false
  wait_timeout:
    description:
      - How many seconds to wait for the expectations with O(wait=true).
    type: int
    default: 120
  wait_sleep:
    description:
      - How many seconds to sleep between two polls with O(wait=true).
    type: int
    default: 2
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - kubesched.scheduler._k8s.info_module
  - kubesched.scheduler._k8s.list_pages
notes:
  - The scheduler that placed a pod is taken from its C(Scheduled) event (C(reportingComponent) or
    C(source.component) of a core/v1 event, C(reportingController) of an events.k8s.io/v1 event).
    Once the event has expired, only the pod remains, and the pod's C(spec.schedulerName) is reported
    with RV(pods[].evidence=pod).
  - A scheduler binds a pod through the pods/binding subresource, which sets C(spec.nodeName) and a
    True C(PodScheduled) condition at once. A pod whose C(spec.nodeName) was set when it was created
    (static and mirror pods, pods created with a node) is recognised by the absence of that condition,
    by the mirror-pod annotation or by a C(managedFields) entry owning C(spec.nodeName), and is
    reported with RV(pods[].evidence=node_name_preset) and no scheduler.
  - What serves a schedulerName is looked up in Leases and Deployments. A Lease of that name in any
    namespace but C(kube-node-lease) is a scheduler's leader election lock. A Deployment serves it when
    its label C(kubesched.io/scheduler-name) is that name or its annotation
    C(kubesched.io/scheduler-profiles) lists it among the schedulerNames of its profiles (the deploy
    role of this collection sets both, and C(kubesched.io/scheduler-lease=<namespace>/<name>), the lock
    Lease of the scheduler, which is then looked up too). So a pod of a second profile is served by the
    scheduler whose Lease and label carry the name of the first one.
  - Only a running scheduler serves a schedulerName. A Lease runs while it has a C(holderIdentity) and
    its C(renewTime) plus C(leaseDurationSeconds) is not in the past, by the API server's clock (the
    C(Date) header of its answers) or, when no answer carried one, by the clock of the host the module
    runs on with 5 seconds of tolerance. A Deployment runs when at least one of its replicas is ready
    (C(status.readyReplicas)). When something was found but none of it runs, the pod's reason is
    V(SchedulerNotRunning) and its message lists what was found. C(default-scheduler) is always taken
    to be served.
seealso:
  - module: kubernetes.core.k8s_info
  - name: Configure multiple schedulers
    description: How a pod selects a scheduler with C(spec.schedulerName).
    link: https://kubernetes.io/docs/tasks/extend-kubernetes/configure-multiple-schedulers/
"""

EXAMPLES = r"""
- name: Report where the pods of a namespace are and who put them there
  kubesched.scheduler.pod_placement:
    namespace: demo
  register: placement

- name: Show the counts per scheduler
  ansible.builtin.debug:
    var: placement.summary.by_scheduler

- name: Wait until the second scheduler has placed every pod of the app on a worker
  kubesched.scheduler.pod_placement:
    context: kind-kubesched
    namespace: demo
    label_selectors:
      - app=web
    scheduler_name: my-scheduler
    state: scheduled
    nodes:
      - kubesched-worker
      - kubesched-worker2
    wait: true
    wait_timeout: 180

- name: Explain why two pods are still Pending
  kubesched.scheduler.pod_placement:
    namespace: demo
    names:
      - web-0
      - web-1
    field_selectors:
      - status.phase=Pending
  register: pending

- name: Print the reasons
  ansible.builtin.debug:
    msg: "{{ item.name }}: {{ item.reason }}: {{ item.message }}"
  loop: "{{ pending.pods }}"
  loop_control:
    label: "{{ item.name }}"

- name: Check, without failing, that no pod anywhere waits for a scheduler that does not run
  kubesched.scheduler.pod_placement:
    field_selectors:
      - spec.nodeName=
  register: unbound

- name: List them
  ansible.builtin.debug:
    msg: "{{ unbound.pods | selectattr('reason', 'in', ['NoScheduler', 'SchedulerNotRunning']) | map(attribute='name') | list }}"

- name: On a large cluster, read the lists in smaller pages
  kubesched.scheduler.pod_placement:
    field_selectors:
      - status.phase=Pending
    page_size: 200
  register: pending_everywhere

- name: Show the pods whose scheduler is installed but down, with what was found of it
  ansible.builtin.debug:
    msg: "{{ item.namespace }}/{{ item.name }}: {{ item.message }}"
  loop: "{{ pending_everywhere.pods | selectattr('reason', 'equalto', 'SchedulerNotRunning') | list }}"
  loop_control:
    label: "{{ item.namespace }}/{{ item.name }}"
"""

RETURN = r"""
pods:
  description:
    - One entry per selected pod, sorted by namespace and name.
    - Also returned when the module fails on unmet expectations.
  returned: always
  type: list
  elements: dict
  contains:
    namespace:
      description: The pod's namespace.
      type: str
      returned: always
      sample: demo
    name:
      description: The pod's name.
      type: str
      returned: always
      sample: web-0
    uid:
      description: The pod's UID, which its events refer to.
      type: str
      returned: always
      sample: 6f0a3c1e-2b4d-4e8f-9a51-0c7d2e3b4a10
    phase:
      description: The pod's C(status.phase).
      type: str
      returned: always
      sample: Running
    scheduler_name:
      description: The pod's C(spec.schedulerName), V(default-scheduler) when it is empty.
      type: str
      returned: always
      sample: my-scheduler
    node:
      description: The node the pod is bound to (C(spec.nodeName)), null when it is not bound.
      type: str
      returned: always
      sample: kubesched-worker
    scheduled:
      description: Whether the pod is bound to a node (its C(PodScheduled) condition is True or C(spec.nodeName) is set).
      type: bool
      returned: always
      sample: true
    state:
      description:
        - V(scheduled) when the pod is bound to a node; V(pending) when it is not yet.
        - V(rejected) when it was bound and the kubelet of its node then refused to admit it (the pod's C(status.phase) is
          C(Failed) and its C(status.message) starts with C(Pod was rejected), as the kubelet writes it). RV(pods[].scheduled)
          is true, RV(pods[].scheduled_by) the scheduler that bound it, RV(pods[].reason) and RV(pods[].message) the
          kubelet's (C(status.reason) and C(status.message)).
      type: str
      returned: always
      choices: [scheduled, pending, rejected]
      sample: rejected
    scheduled_by:
      description:
        - The scheduler that bound the pod, null when it is pending or its node was preset.
        - From the C(Scheduled) event when there is one, otherwise C(spec.schedulerName).
      type: str
      returned: always
      sample: my-scheduler
    scheduler_process:
      description:
        - The kube-scheduler process that serves the profile RV(pods[].scheduled_by) names, as V(Deployment <namespace>/<name>)
          or V(static Pod kube-system/<mirror pods>), when it was looked up (O(scheduler_name) given and a selected pod
          named another scheduler, see O(scheduler_name)); null otherwise.
      type: str
      returned: always
      sample: static Pod kube-system/kube-scheduler-kubesched-control-plane
    evidence:
      description:
        - What the placement (or, for a pending pod, the reason) rests on.
        - V(event) - a C(Scheduled) event names the scheduler (for a pending pod, a C(FailedScheduling) event gives the reason).
        - V(pod) - only the pod itself is left (events expire), its C(PodScheduled) condition and C(spec.nodeName);
          RV(pods[].scheduled_by) is then its C(spec.schedulerName). For a pending pod, the reason comes from its
          C(PodScheduled) condition or scheduling gates.
        - V(node_name_preset) - the pod was created with C(spec.nodeName) set and no scheduler was involved.
        - Null for a pending pod about which nothing was recorded yet.
      type: str
      returned: always
      choices: [event, pod, node_name_preset]
      sample: event
    scheduled_at:
      description: When the pod was bound, from the C(Scheduled) event or the C(PodScheduled) condition's lastTransitionTime; null when unknown or pending.
      type: str
      returned: always
      sample: "2025-11-29T19:40:01.123456Z"
    reason:
      description:
        - Why a pending pod is not bound, null for a bound pod.
        - V(FailedScheduling) when a C(FailedScheduling) event exists (its latest message is in RV(pods[].message)).
        - The C(PodScheduled) condition's reason, such as V(Unschedulable) or V(SchedulingGated), when only the pod is left.
        - V(NoScheduler) when nothing was recorded and no Lease or Deployment serves its schedulerName.
        - V(SchedulerNotRunning) when nothing was recorded and its scheduler is installed but not running.
          Leases or Deployments serve its schedulerName, but no Lease is held and renewed in time and no
          Deployment has a ready replica. RV(pods[].message) says what was found, for example
          C(Lease kube-system/my-scheduler held by my-scheduler-7d9f_1a2b last renewed 2025-11-29T19:42:12Z, expired 95s ago;
          Deployment kube-system/my-scheduler (0/1 ready)).
        - V(Waiting) when nothing was recorded yet but its scheduler runs (or could not be checked).
        - For a pod the kubelet rejected (RV(pods[].state=rejected)), the kubelet's reason, such as V(OutOfcpu),
          V(OutOfmemory), V(OutOfpods) or V(NodeAffinity).
      type: str
      returned: always
      sample: FailedScheduling
    message:
      description:
        - The explanation that goes with RV(pods[].reason), null for a bound pod.
        - "For a rejected pod the kubelet's message, for example C(Pod was rejected: Node didn't have enough resource: cpu,
          requested: 1200, used: 1300, capacity: 2000)."
      type: str
      returned: always
      sample: "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu."
    pod_group:
      description: The PodGroup the pod belongs to (C(spec.schedulingGroup.podGroupName), gang scheduling), null for none.
      type: str
      returned: always
      sample: train-1
groups:
  description:
    - One entry per PodGroup (C(scheduling.k8s.io/v1beta1)) that a selected pod names, sorted by namespace and name; the
      PodGroups are read only when a pod names one.
  returned: when a selected pod names a PodGroup
  type: list
  elements: dict
  contains:
    namespace:
      description: The group's namespace.
      type: str
      sample: ml
    name:
      description: The PodGroup's name.
      type: str
      sample: train-1
    min_count:
      description: Its C(schedulingPolicy.gang.minCount); null for a basic policy or a PodGroup not found.
      type: int
      sample: 8
    pods:
      description: How many selected pods name it.
      type: int
      sample: 8
    bound:
      description: How many of them are bound.
      type: int
      sample: 0
    state:
      description: V(bound) (all its pods), V(partly_bound) (some), V(waiting) (none).
      type: str
      choices: [bound, partly_bound, waiting]
      sample: waiting
    waiting_for:
      description: How many more pods must exist before the group can be scheduled (minCount less its pods), 0 when none.
      type: int
      sample: 0
    schedulers:
      description: The schedulerNames its pods ask for; more than one splits the group.
      type: list
      elements: str
      sample: [my-scheduler]
    reason:
      description:
        - Why a group that is not bound waits, null when nothing says.
        - V(PodGroupNotFound), V(SeveralSchedulers), V(WaitingForPods), or the reason of the PodGroup's condition
          C(PodGroupInitiallyScheduled) (for example V(Unschedulable)), or else its pods' RV(pods[].reason).
      type: str
      sample: Unschedulable
    message:
      description: The explanation that goes with RV(groups[].reason).
      type: str
      sample: "minCount (8) cannot be satisfied: 3 scheduled, 0 remaining"
summary:
  description: Counts over the selected pods.
  returned: always
  type: dict
  contains:
    total:
      description: Number of selected pods.
      type: int
      returned: always
      sample: 5
    scheduled:
      description: Number of pods bound to a node.
      type: int
      returned: always
      sample: 4
    pending:
      description: Number of pods not bound yet.
      type: int
      returned: always
      sample: 1
    by_scheduler:
      description:
        - Per scheduler, the number of pods it placed (C(scheduled)) and of pending pods whose
          C(spec.schedulerName) names it (C(pending)). Pods placed without a scheduler are not counted here.
      type: dict
      returned: always
      sample: {"my-scheduler": {"scheduled": 3, "pending": 1}, "default-scheduler": {"scheduled": 1, "pending": 0}}
    by_evidence:
      description: Number of bound pods per RV(pods[].evidence).
      type: dict
      returned: always
      sample: {"event": 3, "pod": 1}
    by_node:
      description: Number of bound pods per node.
      type: dict
      returned: always
      sample: {"kubesched-worker": 2, "kubesched-worker2": 2}
    by_reason:
      description: Number of pending pods per RV(pods[].reason).
      type: dict
      returned: always
      sample: {"FailedScheduling": 1}
    rejected:
      description: Number of pods the kubelet of their node rejected after the bind (counted among RV(summary.scheduled) too).
      type: int
      returned: always
      sample: 1
    by_rejection:
      description: Number of rejected pods per reason of the kubelet.
      type: dict
      returned: always
      sample: {"OutOfcpu": 1}
    groups:
      description: Number of pod groups (RV(groups)) in all and by state.
      type: dict
      returned: when a selected pod names a PodGroup
      sample: {"total": 40, "bound": 20, "partly_bound": 0, "waiting": 20}
unmet:
  description:
    - The pods that do not meet the expectations and why; empty when they all do or there are none.
    - A name of O(names) that no pod carries appears with the problem C(pod not found); an empty
      selection appears as one entry with a null name.
  returned: always
  type: list
  elements: dict
  sample: [{"namespace": "demo", "name": "web-2", "problems": ["placed by default-scheduler, expected my-scheduler"]}]
attempts:
  description: How many times the pods were polled (1 without O(wait)).
  returned: always
  type: int
  sample: 3
"""

from ansible_collections.kubesched.scheduler.plugins.module_utils.k8s_module import execute
from ansible_collections.kubesched.scheduler.plugins.module_utils.placement import DEFAULT_PAGE_SIZE, STATES
from ansible_collections.kubesched.scheduler.plugins.module_utils.placement_gather import run

OPTIONS = {
    "namespace": {"type": "str"},
    "names": {"type": "list", "elements": "str", "aliases": ["name"]},
    "label_selectors": {"type": "list", "elements": "str", "default": []},
    "field_selectors": {"type": "list", "elements": "str", "default": []},
    "scheduler_name": {"type": "str"},
    "state": {"type": "str", "choices": list(STATES)},
    "nodes": {"type": "list", "elements": "str"},
    "wait": {"type": "bool", "default": False},
    "wait_timeout": {"type": "int", "default": 120},
    "wait_sleep": {"type": "int", "default": 2},
    "page_size": {"type": "int", "default": DEFAULT_PAGE_SIZE},
}


def main():
    execute(OPTIONS, run, "Cannot read the pod placements")


if __name__ == "__main__":
    main()
