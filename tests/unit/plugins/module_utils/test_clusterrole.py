# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests of the lock-name patch computed for system:kube-scheduler, on the real rule sets of 1.27 and 1.34."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from ansible_collections.kubesched.scheduler.plugins.module_utils.clusterrole import (
    ANNOTATIONS,
    ClusterRoleLockError,
    compute_patch,
    lock_names,
    parse_added,
    render_added,
)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "clusterrole"
NOTHING = {"leases": [], "endpoints": []}


def load(version):
    return yaml.safe_load((FIXTURES / f"system-kube-scheduler-{version}.yaml").read_text())


# Every minor whose system:kube-scheduler was read from a running cluster (hack/clusterrole-fixtures.sh).
# One fixture per minor with the default gates (system-kube-scheduler-1.NN.yaml; those of gates are named after them).
VERSIONS = sorted(
    (p.stem.rsplit("-", 1)[1] for p in FIXTURES.glob("system-kube-scheduler-1.*.yaml") if p.stem.rsplit("-", 1)[1].replace(".", "").isdigit()),
    key=lambda v: tuple(map(int, v.split("."))),
)


@pytest.fixture(params=VERSIONS)
def role(request):
    return load(request.param)


@pytest.mark.parametrize("version", [v for v in VERSIONS if tuple(map(int, v.split("."))) >= (1, 28)])
def test_from_1_28_the_lock_is_a_lease_only(version):
    rules = load(version)["rules"]
    assert lock_names(rules) == {"leases": ["kube-scheduler"], "endpoints": []}
    new_rules, changed, added = compute_patch(rules, "my-scheduler", "present")
    assert changed is True
    assert added == {"leases": ["my-scheduler"], "endpoints": []}
    assert [r for r in new_rules if r.get("resourceNames") != lease_rule(new_rules).get("resourceNames")] == [
        r for r in rules if r.get("resourceNames") != lease_rule(rules).get("resourceNames")
    ]


def lease_rule(rules):
    return next(rule for rule in rules if rule.get("resourceNames") and rule["resources"] == ["leases"])


def endpoints_rules(rules):
    return [rule for rule in rules if rule.get("resourceNames") and rule["resources"] == ["endpoints"]]


def test_fixtures_are_the_default_rule_sets():
    old, new = load("1.27"), load("1.34")
    assert lock_names(old["rules"]) == {"leases": ["kube-scheduler"], "endpoints": ["kube-scheduler"]}
    assert lock_names(new["rules"]) == {"leases": ["kube-scheduler"], "endpoints": []}
    assert lease_rule(old["rules"])["verbs"] == ["get", "update"]
    assert lease_rule(new["rules"])["verbs"] == ["get", "list", "update", "watch"]
    for role in (old, new):
        assert role["metadata"]["annotations"] == {"rbac.authorization.kubernetes.io/autoupdate": "true"}


def test_present_on_1_34_extends_only_the_lease_rule():
    rules = load("1.34")["rules"]
    new_rules, changed, added = compute_patch(rules, "my-scheduler", "present")
    assert changed is True
    assert added == {"leases": ["my-scheduler"], "endpoints": []}
    assert lease_rule(new_rules)["resourceNames"] == ["kube-scheduler", "my-scheduler"]
    # Every other rule is untouched and in the same place.
    index = rules.index(lease_rule(rules))
    assert len(new_rules) == len(rules)
    assert [r for i, r in enumerate(new_rules) if i != index] == [r for i, r in enumerate(rules) if i != index]
    assert endpoints_rules(new_rules) == []


def test_present_on_1_27_extends_the_lease_and_endpoints_rules():
    rules = load("1.27")["rules"]
    new_rules, changed, added = compute_patch(rules, "my-scheduler", "present")
    assert changed is True
    assert added == {"leases": ["my-scheduler"], "endpoints": ["my-scheduler"]}
    assert lease_rule(new_rules)["resourceNames"] == ["kube-scheduler", "my-scheduler"]
    assert [rule["resourceNames"] for rule in endpoints_rules(new_rules)] == [["kube-scheduler", "my-scheduler"]]
    changed_indexes = [i for i, (a, b) in enumerate(zip(rules, new_rules, strict=True)) if a != b]
    assert changed_indexes == [2, 4]
    # The unnamed "create endpoints" rule stays as it is.
    assert new_rules[3] == {"apiGroups": [""], "resources": ["endpoints"], "verbs": ["create"]}


def test_input_is_not_modified(role):
    before = copy.deepcopy(role["rules"])
    compute_patch(role["rules"], "my-scheduler", "present")
    assert role["rules"] == before


def test_present_twice_is_unchanged(role):
    once, dummy, added = compute_patch(role["rules"], "my-scheduler", "present")
    twice, changed, added_again = compute_patch(once, "my-scheduler", "present", added)
    assert changed is False
    assert twice == once
    assert added_again == added
    assert lease_rule(twice)["resourceNames"].count("my-scheduler") == 1


def test_absent_restores_the_rules(role):
    patched, dummy, added = compute_patch(role["rules"], "my-scheduler", "present")
    restored, changed, record = compute_patch(patched, "my-scheduler", "absent", added)
    assert changed is True
    assert restored == role["rules"]
    assert record == NOTHING


def test_absent_twice_is_unchanged(role):
    patched, dummy, added = compute_patch(role["rules"], "my-scheduler", "present")
    restored, dummy, record = compute_patch(patched, "my-scheduler", "absent", added)
    again, changed, record_again = compute_patch(restored, "my-scheduler", "absent", record)
    assert changed is False
    assert again == role["rules"]
    assert record_again == NOTHING


def test_a_name_that_was_there_before_is_never_removed(role):
    rules, dummy, dummy1 = compute_patch(role["rules"], "hand-made", "present")  # as if added by kubectl edit
    after, changed, added = compute_patch(rules, "hand-made", "present", NOTHING)
    assert changed is False
    assert added == NOTHING
    kept, changed, dummy = compute_patch(after, "hand-made", "absent", added)
    assert changed is False
    assert "hand-made" in lease_rule(kept)["resourceNames"]


def test_the_default_schedulers_own_name_is_never_recorded(role):
    # present never records a name that was already there, so absent can never take kube-scheduler away.
    dummy, changed, added = compute_patch(role["rules"], "kube-scheduler", "present")
    assert changed is False
    assert added == NOTHING


def test_two_schedulers_share_the_rule(role):
    rules, dummy, added = compute_patch(role["rules"], "sched-a", "present")
    rules, dummy, added = compute_patch(rules, "sched-b", "present", added)
    assert lease_rule(rules)["resourceNames"] == ["kube-scheduler", "sched-a", "sched-b"]
    assert added["leases"] == ["sched-a", "sched-b"]
    rules, changed, added = compute_patch(rules, "sched-a", "absent", added)
    assert changed is True
    assert lease_rule(rules)["resourceNames"] == ["kube-scheduler", "sched-b"]
    assert added["leases"] == ["sched-b"]


def test_absent_after_a_hand_removal_only_updates_the_record(role):
    patched, dummy, added = compute_patch(role["rules"], "my-scheduler", "present")
    by_hand, dummy, dummy1 = compute_patch(patched, "my-scheduler", "absent", added)
    rules, changed, record = compute_patch(by_hand, "my-scheduler", "absent", added)
    assert changed is True
    assert rules == role["rules"]
    assert record == NOTHING


def test_accepts_the_annotations_themselves():
    role = load("1.34")
    rules, dummy, added = compute_patch(role["rules"], "my-scheduler", "present")
    annotations = render_added(role["metadata"]["annotations"], added)
    assert annotations[ANNOTATIONS["leases"]] == '["my-scheduler"]'
    assert ANNOTATIONS["endpoints"] not in annotations
    restored, changed, record = compute_patch(rules, "my-scheduler", "absent", annotations)
    assert changed is True
    assert restored == role["rules"]
    assert render_added(annotations, record) == role["metadata"]["annotations"]


def test_annotations_round_trip():
    annotations = {"other": "x", ANNOTATIONS["leases"]: json.dumps(["a", "b"]), ANNOTATIONS["endpoints"]: "not json"}
    assert parse_added(annotations) == {"leases": ["a", "b"], "endpoints": []}
    assert parse_added(None) == NOTHING
    assert parse_added({ANNOTATIONS["leases"]: '{"a": 1}'}) == NOTHING
    rendered = render_added(annotations, {"leases": [], "endpoints": ["c"]})
    assert rendered == {"other": "x", ANNOTATIONS["endpoints"]: '["c"]'}
    assert annotations[ANNOTATIONS["leases"]] == '["a", "b"]'  # not modified in place


def test_rules_of_other_groups_or_kinds_are_ignored():
    rules = [
        {"apiGroups": [""], "resources": ["leases"], "resourceNames": ["x"], "verbs": ["get"]},
        {"apiGroups": ["coordination.k8s.io"], "resources": ["leasecandidates"], "resourceNames": ["x"], "verbs": ["get"]},
        {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "resourceNames": ["kube-scheduler"], "verbs": ["get", "update"]},
        {"nonResourceURLs": ["/healthz"], "verbs": ["get"]},
    ]
    new_rules, changed, dummy = compute_patch(rules, "my-scheduler", "present")
    assert changed is True
    assert new_rules[:2] == rules[:2]
    assert new_rules[2]["resourceNames"] == ["kube-scheduler", "my-scheduler"]
    assert new_rules[3] == rules[3]


def test_a_rule_granting_every_lease_needs_no_change():
    rules = [{"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["*"]}]
    new_rules, changed, added = compute_patch(rules, "my-scheduler", "present")
    assert changed is False
    assert new_rules == rules
    assert added == NOTHING


def test_no_lease_rule_is_an_error():
    rules = [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]
    with pytest.raises(ClusterRoleLockError, match="no rule for coordination.k8s.io leases"):
        compute_patch(rules, "my-scheduler", "present")
    # Removing from such a role is harmless.
    assert compute_patch(rules, "my-scheduler", "absent")[1] is False
