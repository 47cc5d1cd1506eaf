# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the placement tests share (test_placement.py, test_placement_gather.py, test_k8s_module.py): the placement
expected of each pod of the recorded namespace (fixtures/placement), records by name, and the message of a Forbidden
list of Leases."""

from __future__ import annotations


def by_name(records):
    return {record["name"]: record for record in records}


EXPECTED = {
    # name: (scheduled, scheduled_by, evidence, node, scheduled_at, reason)
    "web-7d9c6b5f4-2xkqp": (True, "my-scheduler", "event", "kubesched-worker", "2025-11-29T19:40:01.118734Z", None),
    "web-7d9c6b5f4-8mzvn": (True, "my-scheduler", "event", "kubesched-worker2", "2025-11-29T19:40:01.304562Z", None),
    "legacy-web-0": (True, "default-scheduler", "event", "kubesched-worker", "2025-11-29T19:31:12Z", None),
    "web-7d9c6b5f4-q4lrt": (True, "my-scheduler", "pod", "kubesched-worker2", "2025-11-29T17:02:11Z", None),
    "preset-ghost": (True, None, "node_name_preset", "ghost-node", None, None),
    "preset-worker": (True, None, "node_name_preset", "kubesched-worker", "2025-11-29T19:38:01Z", None),
    "web-7d9c6b5f4-hw9ds": (False, None, "event", None, None, "FailedScheduling"),
    "web-7d9c6b5f4-zr6jw": (False, None, "event", None, None, "FailedScheduling"),
    "web-7d9c6b5f4-t5bnc": (False, None, "pod", None, None, "Unschedulable"),
    "gated-0": (False, None, "pod", None, None, "SchedulingGated"),
    "orphan-ghost-sched": (False, None, None, None, None, "NoScheduler"),
    "fresh-default": (False, None, None, None, None, "Waiting"),
    "web-7d9c6b5f4-c8pkx": (False, None, None, None, None, "Waiting"),
}


FORBIDDEN_LEASES = (
    'leases.coordination.k8s.io is forbidden: User "system:serviceaccount:demo:viewer" cannot list resource "leases"'
    ' in API group "coordination.k8s.io" at the cluster scope'
)
