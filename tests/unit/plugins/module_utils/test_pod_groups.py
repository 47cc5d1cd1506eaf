# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pod groups (module_utils/pod_groups.py) from the pods and PodGroups recorded on kubesched-ha."""

from __future__ import annotations

import json
from pathlib import Path

from ansible_collections.kubesched.scheduler.plugins.module_utils import placement, pod_groups


def gang_fixture(name):
    return json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "placement" / name).read_text())["items"]


def test_groups_are_reported_from_the_pods_and_their_podgroups():
    # Recorded on kubesched-ha (v1.37.2, API servers with GenericWorkload) with gang-scheduler: on a node of 8 CPUs, "fits"
    # (3 pods of 1 CPU) bound; "too-big" (3 of 2 CPUs) left whole; "short" (minCount 4, 2 pods); a pod of no PodGroup.
    records = placement.place_pods(gang_fixture("pods-gang.json"))
    assert {record["name"]: record["pod_group"] for record in records}["orphan-0"] == "no-such-group"
    groups = {group["name"]: group for group in pod_groups.group_records(records, gang_fixture("podgroups-gang.json"))}
    assert groups["fits"] == {
        "namespace": "gang-fixture",
        "name": "fits",
        "min_count": 3,
        "pods": 3,
        "bound": 3,
        "state": "bound",
        "waiting_for": 0,
        "schedulers": ["gang-scheduler"],
        "reason": None,
        "message": None,
    }
    assert (groups["too-big"]["state"], groups["too-big"]["bound"], groups["too-big"]["reason"]) == ("waiting", 0, "Unschedulable")
    assert groups["too-big"]["message"].startswith("minCount (3) cannot be satisfied: 2 scheduled, 0 remaining")
    assert (groups["short"]["waiting_for"], groups["short"]["reason"]) == (2, "WaitingForPods")
    assert groups["short"]["message"] == "2 of minCount 4 pods exist: waiting for 2 more before it is scheduled"
    assert (groups["no-such-group"]["reason"], groups["no-such-group"]["min_count"]) == ("PodGroupNotFound", None)
    assert pod_groups.summarize_groups(list(groups.values())) == {"total": 4, "bound": 1, "partly_bound": 0, "waiting": 3}


def test_a_group_split_between_schedulers_is_named_and_partly_bound():
    records = placement.place_pods(gang_fixture("pods-gang.json"))
    fits = [record for record in records if record["pod_group"] == "fits"]
    fits[0].update(scheduler_name="default-scheduler", scheduled=False, state="pending")
    group = next(g for g in pod_groups.group_records(records, gang_fixture("podgroups-gang.json")) if g["name"] == "fits")
    assert (group["state"], group["bound"], group["reason"]) == ("partly_bound", 2, "SeveralSchedulers")
    assert group["schedulers"] == ["default-scheduler", "gang-scheduler"]
