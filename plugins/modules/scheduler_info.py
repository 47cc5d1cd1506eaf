#!/usr/bin/python
# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: scheduler_info
short_description: List every scheduler of a cluster, what it runs and which schedulerNames it serves
version_added: 0.2.0
author:
  - kubesched maintainers (@kubesched)
description:
  - Reports every scheduler found on the cluster, its pod or workload, node, image and version, command-line
    flags, profiles, readiness and leader election Lease, the schedulerNames it serves, and the
    schedulerNames that pods ask for but nothing running serves.
  - Answers the questions of the Kubernetes task "Configure Multiple Schedulers" directly, such as which
    pod runs the default scheduler and which image it uses (RV(default_scheduler)).
  - Three kinds of schedulers are found. V(static_pod) - the mirror pods of kube-scheduler in C(kube-system)
    (annotation C(kubernetes.io/config.mirror), label C(component=kube-scheduler)), the default scheduler of
    kubeadm clusters, one per control-plane node. V(deployment) - the Deployments of this collection (label
    C(kubesched.io/scheduler-name)) in every namespace. V(lease_holder) - any other workload whose running pod
    holds a scheduler's Lease, such as a scheduler installed by hand with kubectl.
  - The number of lists does not depend on the number of pods. It lists the Leases of all namespaces but
    C(kube-node-lease) once, the Deployments labelled C(kubesched.io/scheduler-name) once and the pods once
    (of all namespaces, or of O(namespace)). With O(namespace), the pods of C(kube-system) are listed as well,
    and one more list by name (field selector C(metadata.name)) is made for each Lease holder found in neither.
    It then reads each ConfigMap that a scheduler's C(--config) file is mounted from, once, and each ReplicaSet
    that owns a pod holding the Lease of a scheduler of no other kind, once. When a Deployment of this collection
    runs, it lists the ClusterRoles labelled C(kubesched.io/scheduler-name) once, and reads C(system:kube-scheduler)
    when a dedicated one is among them (RV(dedicated_roles)).
  - Every list is read in pages of O(page_size) items (C(limit) and C(continue)), and each page is reduced
    before the next one is asked for; of the pods only the counts per C(spec.schedulerName) are kept, with the
    pods of kube-scheduler and those holding a Lease, so memory grows with the number of schedulers, not with
    the size of the cluster.
  - Read-only. Needs C(list) on pods, C(coordination.k8s.io) leases and C(apps) deployments in all
    namespaces, and C(get) on the ConfigMaps and ReplicaSets it reads. What cannot be read is reported in
    RV(errors) (and as warnings) rather than failing the module.
options:
  namespace:
    description:
      - Count only the pods of this namespace in RV(scheduler_names) and RV(unserved). Omit it to count the
        pods of all namespaces.
      - The schedulers and their Leases are looked up in all namespaces either way.
    type: str
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - kubesched.scheduler._k8s.info_module
  - kubesched.scheduler._k8s.list_pages
notes:
  - The version of a scheduler is the tag of its image; when the image is given by digest only, the tag of
    the image the container runtime reports (C(status.containerStatuses[].image), then C(imageID)).
  - The profiles of a scheduler are read from its C(--config) file when it is a key of a ConfigMap volume.
    A file on the node (a hostPath volume, as with kubeadm) or in the image cannot be read through the API;
    RV(schedulers[].profiles) is then null and RV(schedulers[].profiles_source) says where the file is. A
    kube-scheduler without C(--config) runs the one built-in profile, C(default-scheduler). A kube-scheduler
    static pod whose profiles cannot be read is taken to serve C(default-scheduler).
  - A Lease is a scheduler's when it is the lock of a static pod or Deployment found (by its flags, its
    configuration or the C(kubesched.io/scheduler-lease) annotation), when it is named after a schedulerName
    pods ask for, or when its holder (the part of C(holderIdentity) before C(_), a pod's hostname, which is its
    name) is a running pod whose executable or image name contains C(scheduler). The holder of the lock of the
    static pods is the name of the control-plane node that leads.
  - A Lease is live while it has a holder and its C(renewTime) plus C(leaseDurationSeconds) is not in the past
    by the clock of the host the module runs on, with 5 seconds of tolerance.
  - A static pod or Deployment runs when it is ready (a ready replica); a lease holder when its pod is ready and
    its Lease is live. C(default-scheduler) with nothing found at all (a managed control plane that the API does
    not show) is taken to be served, as by M(kubesched.scheduler.pod_placement).
seealso:
  - module: kubesched.scheduler.pod_placement
  - module: kubernetes.core.k8s_info
  - name: Configure multiple schedulers
    description: Running a second scheduler next to the default one, and the questions this module answers.
    link: https://kubernetes.io/docs/tasks/extend-kubernetes/configure-multiple-schedulers/
"""

EXAMPLES = r"""
- name: Which pod runs the default scheduler, and which image does it use?
  kubesched.scheduler.scheduler_info:
    context: kind-kubesched
  register: info

- name: Answer
  ansible.builtin.debug:
    msg: "{{ info.default_scheduler.pod }} on {{ info.default_scheduler.node }} runs {{ info.default_scheduler.image }}"

- name: Every scheduler, its kind and what it serves
  ansible.builtin.debug:
    msg: "{{ item.kind }} {{ item.namespace }}/{{ item.name }} {{ item.version }} serves {{ item.serves | join(', ') }} (ready {{ item.ready }})"
  loop: "{{ info.schedulers }}"
  loop_control:
    label: "{{ item.name }}"

- name: Fail when pods ask for a scheduler that nothing running serves
  ansible.builtin.assert:
    that: info.unserved | length == 0
    fail_msg: "{{ info.unserved | map(attribute='scheduler_name') | join(', ') }} served by nothing running"

- name: Count the pods of one namespace only, in smaller pages
  kubesched.scheduler.scheduler_info:
    namespace: batch
    page_size: 200
  register: batch

- name: Pods of the namespace per schedulerName, and what serves each
  ansible.builtin.debug:
    var: batch.scheduler_names
"""

RETURN = r"""
schedulers:
  description:
    - Every scheduler found, the static pods first (by name), then the Deployments and the lease holders (by
      namespace and name).
    - Every entry has every key; those that do not apply to its kind are null.
  returned: always
  type: list
  elements: dict
  contains:
    kind:
      description:
        - V(static_pod) - a mirror pod of kube-scheduler in C(kube-system).
        - V(deployment) - a Deployment of this collection (label C(kubesched.io/scheduler-name)).
        - V(lease_holder) - another workload whose running pod holds a scheduler's Lease.
      type: str
      returned: always
      choices: [static_pod, deployment, lease_holder]
      sample: static_pod
    name:
      description: The pod's name (static pod), the Deployment's, or the name of the lease holder's workload (its pod's when it has none).
      type: str
      returned: always
      sample: kube-scheduler-kubesched-control-plane
    namespace:
      description: The namespace of the pod or workload.
      type: str
      returned: always
      sample: kube-system
    node:
      description: The node of the pod; of a Deployment or lease holder, the node of the pod that holds its Lease. Null when unknown.
      type: str
      returned: always
      sample: kubesched-control-plane
    pod:
      description: The pod of a lease holder that holds the Lease; null for the other kinds.
      type: str
      returned: always
      sample: my-scheduler-6c8f7d9b5-x2l4q
    image:
      description: The image of the scheduler's container (the pod template's for a Deployment).
      type: str
      returned: always
      sample: registry.k8s.io/kube-scheduler:v1.37.2
    image_id:
      description: The image ID the container runtime reports (C(status.containerStatuses[].imageID)); null for a Deployment.
      type: str
      returned: always
      sample: registry.k8s.io/kube-scheduler@sha256:e98340be040f9ef327014adcf5bf38ecd423040e5964efe8e8ef4296eef7c57a
    version:
      description: The tag of the image (see the notes), null when the image has none.
      type: str
      returned: always
      sample: v1.37.2
    command:
      description: The container's command line, C(command) then C(args), as the pod gives it.
      type: list
      elements: str
      returned: always
      sample: ["kube-scheduler", "--kubeconfig=/etc/kubernetes/scheduler.conf", "--leader-elect=true"]
    flags:
      description:
        - The flags of the command line by name, without the dashes, as strings (C(--flag=value), C(--flag value),
          and a bare C(--flag) as V(true)); a flag given twice has its last value.
      type: dict
      returned: always
      sample: {"kubeconfig": "/etc/kubernetes/scheduler.conf", "leader-elect": "true", "bind-address": "127.0.0.1"}
    config:
      description: The path of the C(--config) file, null without one.
      type: str
      returned: always
      sample: /etc/kubernetes/my-scheduler/my-scheduler-config.yaml
    profiles:
      description:
        - The schedulerNames of the profiles of its configuration, null when the configuration cannot be read
          through the API (see RV(schedulers[].profiles_source)).
      type: list
      elements: str
      returned: always
      sample: ["my-scheduler", "my-scheduler-batch"]
    profiles_source:
      description: Where RV(schedulers[].profiles) come from, or why they could not be read.
      type: str
      returned: always
      sample: "ConfigMap kube-system/my-scheduler-config, key my-scheduler-config.yaml"
    ready:
      description: Whether the pod is ready (its C(Ready) condition); for a Deployment, whether one replica is ready.
      type: bool
      returned: always
      sample: true
    restarts:
      description: The restart count of the scheduler's container; null for a Deployment.
      type: int
      returned: always
      sample: 0
    phase:
      description: The C(status.phase) of a static pod; null for the other kinds.
      type: str
      returned: always
      sample: Running
    replicas:
      description: The replicas a Deployment asks for; null for the other kinds.
      type: int
      returned: always
      sample: 1
    ready_replicas:
      description: The ready replicas of a Deployment; null for the other kinds.
      type: int
      returned: always
      sample: 1
    owner:
      description: The workload of a lease holder's pod (C(kind), C(namespace), C(name)); null for the other kinds.
      type: dict
      returned: always
      sample: {"kind": "Deployment", "namespace": "kube-system", "name": "my-scheduler"}
    leader:
      description:
        - Whether it holds its Lease now (a static pod, when its node is the holder and the Lease is live).
        - Null when it elects no leader.
      type: bool
      returned: always
      sample: true
    lease:
      description:
        - The Lease it elects its leader with, as in RV(leases); null when it elects none.
        - When the Lease does not exist, only C(namespace), C(name) and C(found=false).
      type: dict
      returned: always
    serves:
      description:
        - The schedulerNames it serves - its profiles; for a Deployment also its label and its
          C(kubesched.io/scheduler-profiles) annotation; for a static pod whose profiles cannot be read,
          C(default-scheduler); for a lease holder whose profiles cannot be read, the name of its Lease.
      type: list
      elements: str
      returned: always
      sample: ["default-scheduler"]
    config_sha256:
      description:
        - For a static pod, the sha256 of the configuration the role P(kubesched.scheduler.main_scheduler#role) wrote
          (its C(kubesched.io/config-sha256) annotation); empty for kubeadm's own manifest; null for the other kinds.
      type: str
      returned: always
control_plane:
  description:
    - The static schedulers of the control-plane nodes side by side, each with its C(pod), C(node), C(config_sha256),
      C(image), C(ready) and C(leader); C(split) when they run different configurations or images; and
      C(standby_only_profiles), the profiles a standby serves that the leader lacks (their pods wait). Either one is
      also reported in RV(errors).
    - A static pod serves its profiles in RV(scheduler_names) only while it leads, when one of them does.
  returned: always
  type: dict
  sample: {"nodes": [{"pod": "kube-scheduler-cp1", "node": "cp1", "config_sha256": "", "image": "registry.k8s.io/kube-scheduler:v1.37.2",
           "ready": true, "leader": true}], "split": false, "standby_only_profiles": []}
default_scheduler:
  description:
    - The cluster's default scheduler - which pod runs it, on which node, with what image and version.
    - With several control planes, the pod on the node that holds the default scheduler's Lease; else the
      first ready one.
    - Without a kube-scheduler static pod but with the Lease C(kube-system/kube-scheduler) (a managed
      control plane), only C(lease), C(holder) and a C(note); null when there is neither.
  returned: always
  type: dict
  contains:
    pod:
      description: The name of the pod.
      type: str
      returned: always
      sample: kube-scheduler-kubesched-control-plane
    namespace:
      description: Its namespace.
      type: str
      returned: always
      sample: kube-system
    node:
      description: The node it runs on.
      type: str
      returned: always
      sample: kubesched-control-plane
    image:
      description: Its image.
      type: str
      returned: always
      sample: registry.k8s.io/kube-scheduler:v1.37.2
    version:
      description: The tag of its image.
      type: str
      returned: always
      sample: v1.37.2
    leader:
      description: Whether it holds the Lease; null when it elects no leader.
      type: bool
      returned: always
      sample: true
    ready:
      description: Whether the pod is ready.
      type: bool
      returned: always
      sample: true
    lease:
      description: Its Lease as C(namespace/name).
      type: str
      returned: always
      sample: kube-system/kube-scheduler
    holder:
      description: The Lease's C(holderIdentity).
      type: str
      returned: always
      sample: kubesched-control-plane_ce931703-a91a-4599-994e-48aa6d162469
    note:
      description: Why there is no pod, null when there is one.
      type: str
      returned: always
leases:
  description: The Leases of the schedulers found, and the other scheduler Leases (see the notes), by namespace and name.
  returned: always
  type: list
  elements: dict
  contains:
    namespace:
      description: The Lease's namespace.
      type: str
      returned: always
      sample: kube-system
    name:
      description: The Lease's name.
      type: str
      returned: always
      sample: kube-scheduler
    holder:
      description: Its C(spec.holderIdentity), null when nobody holds it.
      type: str
      returned: always
      sample: kubesched-control-plane_ce931703-a91a-4599-994e-48aa6d162469
    holder_pod:
      description: The holder's pod as C(namespace/name), null when no such pod was found.
      type: str
      returned: always
      sample: kube-system/kube-scheduler-kubesched-control-plane
    owner:
      description:
        - The workload of the holder's pod, C(kind) (V(Deployment), V(StatefulSet), V(DaemonSet), V(StaticPod),
          V(Pod) for a pod of no controller, ...), C(namespace) and C(name); null when no pod was found.
      type: dict
      returned: always
      sample: {"kind": "StaticPod", "namespace": "kube-system", "name": "kube-scheduler-kubesched-control-plane", "node": "kubesched-control-plane"}
    renew_time:
      description: Its C(spec.renewTime).
      type: str
      returned: always
      sample: "2026-12-01T11:58:20.114351Z"
    acquire_time:
      description: Its C(spec.acquireTime).
      type: str
      returned: always
      sample: "2026-12-01T11:37:36.530123Z"
    lease_duration_seconds:
      description: Its C(spec.leaseDurationSeconds).
      type: int
      returned: always
      sample: 15
    lease_transitions:
      description: Its C(spec.leaseTransitions).
      type: int
      returned: always
      sample: 0
    live:
      description: Whether it has a holder and C(renew_time) plus C(lease_duration_seconds) is not past (see the notes).
      type: bool
      returned: always
      sample: true
    text:
      description: The Lease in words, with how long ago it expired when it is not live.
      type: str
      returned: always
      sample: "Lease kube-system/my-scheduler held by my-scheduler-7d9f_1a2b last renewed 2026-12-01T10:02:12Z, expired 1h54m ago"
    scheduler:
      description: The scheduler of RV(schedulers) it belongs to (C(kind), C(namespace), C(name)), null when none.
      type: dict
      returned: always
      sample: {"kind": "static_pod", "namespace": "kube-system", "name": "kube-scheduler-kubesched-control-plane"}
scheduler_names:
  description:
    - Per schedulerName that pods ask for (C(spec.schedulerName), V(default-scheduler) when empty) or that a
      scheduler serves - the pods that ask for it, those pending (bound to no node yet), the first 10 pending
      ones as C(namespace/name), and what serves it.
    - C(served_by) entries are C(kind) (a kind of RV(schedulers), or V(lease) for a Lease named after it that
      belongs to no scheduler found), C(namespace), C(name) and C(running).
  returned: always
  type: dict
  sample:
    default-scheduler:
      pods: 14
      pending: 0
      pending_pods: []
      served_by: [{"kind": "static_pod", "namespace": "kube-system", "name": "kube-scheduler-kubesched-control-plane", "running": true}]
unserved:
  description:
    - The schedulerNames pods ask for that nothing running serves - C(reason) is V(NoScheduler) when nothing was
      found for it, V(SchedulerNotRunning) when what was found (C(found)) does not run; with the number of pods
      asking for it (C(pods)), of those pending (C(pending)) and the first 10 pending pods (C(pending_pods)).
  returned: always
  type: list
  elements: dict
  sample: [{"scheduler_name": "no-such-scheduler", "reason": "NoScheduler", "pods": 1, "pending": 1, "pending_pods": ["demo/pod3"], "found": []}]
dedicated_roles:
  description:
    - The dedicated ClusterRoles (C(kube_scheduler_rbac_mode=dedicated)) of this collection's schedulers, read when a
      Deployment of this collection runs, each with what the cluster's own C(system:kube-scheduler) grants that it lacks
      (C(lacks), empty when nothing), as when a gate was turned on or the cluster upgraded after the role was applied.
  returned: always
  type: list
  elements: dict
  sample: [{"name": "my-scheduler-scheduler", "scheduler": "my-scheduler", "lacks": "podgroups.scheduling.k8s.io get,list,watch"}]
errors:
  description:
    - What could not be listed (forbidden or unknown to the API server); the rest of the result is then partial.
    - A control plane whose nodes run different scheduler configurations, and profiles only standbys serve.
    - A dedicated ClusterRole that lacks what C(system:kube-scheduler) grants (RV(dedicated_roles)).
  returned: always
  type: list
  elements: str
  sample: []
api_requests:
  description: How many requests were made to the API server.
  returned: always
  type: int
  sample: 3
"""

from ansible_collections.kubesched.scheduler.plugins.module_utils.inventory_gather import DEFAULT_PAGE_SIZE, run
from ansible_collections.kubesched.scheduler.plugins.module_utils.k8s_module import execute

OPTIONS = {
    "namespace": {"type": "str"},
    "page_size": {"type": "int", "default": DEFAULT_PAGE_SIZE},
}


def main():
    execute(OPTIONS, run, "Cannot list the schedulers")


if __name__ == "__main__":
    main()
