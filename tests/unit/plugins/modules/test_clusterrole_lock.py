# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests of the clusterrole_lock module against a fake API that enforces the resourceVersion precondition."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml
from ansible.module_utils.testing import patch_module_args

from ansible_collections.kubesched.scheduler.plugins.modules import clusterrole_lock

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "clusterrole"
LEASES = "kubesched.io/added-lease-names"
ENDPOINTS = "kubesched.io/added-endpoints-names"


class Conflict(Exception):
    status = 409
    body = "Operation cannot be fulfilled: the object has been modified"


class Forbidden(Exception):
    status = 403
    body = "clusterroles.rbac.authorization.k8s.io is forbidden"


class FakeAPI:
    """One ClusterRole; replace() is refused with 409 unless metadata.resourceVersion is the stored one."""

    def __init__(self, obj, interfere=0, fail_with=None):
        self.obj = copy.deepcopy(obj)
        if self.obj is not None:
            self.obj["metadata"]["managedFields"] = [{"manager": "kube-apiserver", "operation": "Update"}]
        self.interfere = interfere  # writes by somebody else, one before each of our next writes
        self.fail_with = fail_with
        self.reads = 0
        self.writes = []

    def get(self, name):
        self.reads += 1
        if self.obj is None or self.obj["metadata"]["name"] != name:
            return None
        return copy.deepcopy(self.obj)

    def _bump(self):
        self.obj["metadata"]["resourceVersion"] = str(int(self.obj["metadata"]["resourceVersion"]) + 1)

    def replace(self, name, body):
        if self.fail_with:
            raise self.fail_with
        if self.interfere:
            # Another client adds its own name in between our read and our write.
            self.interfere -= 1
            rule = next(r for r in self.obj["rules"] if r.get("resourceNames") and r["resources"] == ["leases"])
            rule["resourceNames"].append(f"other-{self.interfere}")
            self._bump()
        self.writes.append(copy.deepcopy(body))
        if body["metadata"].get("resourceVersion") != self.obj["metadata"]["resourceVersion"]:
            raise Conflict()
        assert "managedFields" not in body["metadata"]
        self.obj = copy.deepcopy(body)
        self.obj["metadata"]["managedFields"] = [{"manager": "kube-apiserver", "operation": "Update"}]
        self._bump()
        return copy.deepcopy(self.obj)


def fixture(version):
    return yaml.safe_load((FIXTURES / f"system-kube-scheduler-{version}.yaml").read_text())


def run_module(monkeypatch, capsys, api, **args):
    monkeypatch.setattr(clusterrole_lock, "make_client", lambda module: api)
    with patch_module_args(args), pytest.raises(SystemExit) as exit_info:
        clusterrole_lock.main()
    return exit_info.value.code, json.loads(capsys.readouterr().out)


def lease_names(obj):
    return next(r for r in obj["rules"] if r.get("resourceNames") and r["resources"] == ["leases"])["resourceNames"]


def strip(obj):
    """The parts of the ClusterRole an uninstall must give back unchanged."""
    return {"annotations": obj["metadata"].get("annotations"), "labels": obj["metadata"].get("labels"), "rules": obj["rules"]}


@pytest.mark.parametrize("version", ["1.27", "1.34"])
def test_install_then_uninstall_restores_the_clusterrole(monkeypatch, capsys, version):
    original = fixture(version)
    api = FakeAPI(original)

    code, result = run_module(monkeypatch, capsys, api, lock_name="my-scheduler")
    assert code == 0
    assert result["changed"] is True
    assert result["attempts"] == 1
    assert result["added"]["leases"] == ["my-scheduler"]
    assert result["added"]["endpoints"] == (["my-scheduler"] if version == "1.27" else [])
    assert lease_names(api.obj) == ["kube-scheduler", "my-scheduler"]
    assert json.loads(api.obj["metadata"]["annotations"][LEASES]) == ["my-scheduler"]
    assert (ENDPOINTS in api.obj["metadata"]["annotations"]) is (version == "1.27")
    # The write carried the resourceVersion that was read.
    assert api.writes[0]["metadata"]["resourceVersion"] == original["metadata"]["resourceVersion"]
    assert "diff" not in result

    code, result = run_module(monkeypatch, capsys, api, lock_name="my-scheduler")
    assert code == 0
    assert result["changed"] is False
    assert len(api.writes) == 1

    code, result = run_module(monkeypatch, capsys, api, lock_name="my-scheduler", state="absent")
    assert code == 0
    assert result["changed"] is True
    assert result["removed"]["leases"] == ["my-scheduler"]
    assert strip(api.obj) == strip(original)

    code, result = run_module(monkeypatch, capsys, api, lock_name="my-scheduler", state="absent")
    assert result["changed"] is False
    assert len(api.writes) == 2


def test_conflict_is_retried_from_a_fresh_read(monkeypatch, capsys):
    api = FakeAPI(fixture("1.34"), interfere=2)
    code, result = run_module(monkeypatch, capsys, api, lock_name="my-scheduler")
    assert code == 0
    assert result["changed"] is True
    assert result["attempts"] == 3
    assert api.reads == 3
    assert len(api.writes) == 3
    # Nothing written by the other client was lost, and the name is there once.
    assert lease_names(api.obj) == ["kube-scheduler", "other-1", "other-0", "my-scheduler"]
    assert json.loads(api.obj["metadata"]["annotations"][LEASES]) == ["my-scheduler"]


def test_gives_up_after_repeated_conflicts(monkeypatch, capsys):
    api = FakeAPI(fixture("1.34"), interfere=clusterrole_lock.MAX_ATTEMPTS)
    code, result = run_module(monkeypatch, capsys, api, lock_name="my-scheduler")
    assert code == 1
    assert result["failed"] is True
    assert "kept changing" in result["msg"]
    assert result["attempts"] == clusterrole_lock.MAX_ATTEMPTS


def test_other_api_errors_fail(monkeypatch, capsys):
    api = FakeAPI(fixture("1.34"), fail_with=Forbidden())
    code, result = run_module(monkeypatch, capsys, api, lock_name="my-scheduler")
    assert code == 1
    assert "forbidden" in result["msg"]
    assert result["attempts"] == 1


def test_check_mode_predicts_without_writing(monkeypatch, capsys):
    original = fixture("1.27")
    api = FakeAPI(original)
    code, result = run_module(monkeypatch, capsys, api, lock_name="my-scheduler", _ansible_check_mode=True, _ansible_diff=True)
    assert code == 0
    assert result["changed"] is True
    assert api.writes == []
    assert strip(api.obj) == strip(original)
    assert result["lock_names"] == {"leases": ["kube-scheduler", "my-scheduler"], "endpoints": ["kube-scheduler", "my-scheduler"]}
    diff = result["diff"]
    assert diff["before"]["rules"] == original["rules"]
    assert lease_names(diff["after"]) == ["kube-scheduler", "my-scheduler"]
    assert diff["before"]["metadata"]["annotations"] == {}
    assert diff["after"]["metadata"]["annotations"] == {LEASES: '["my-scheduler"]', ENDPOINTS: '["my-scheduler"]'}


def test_diff_when_nothing_changes(monkeypatch, capsys):
    api = FakeAPI(fixture("1.34"))
    run_module(monkeypatch, capsys, api, lock_name="my-scheduler")
    code, result = run_module(monkeypatch, capsys, api, lock_name="my-scheduler", _ansible_diff=True)
    assert code == 0
    assert result["changed"] is False
    assert result["diff"]["before"] == result["diff"]["after"]


def test_absent_leaves_a_name_it_did_not_add(monkeypatch, capsys):
    original = fixture("1.34")
    lease_names(original).append("my-scheduler")  # added by hand before
    api = FakeAPI(original)
    code, result = run_module(monkeypatch, capsys, api, lock_name="my-scheduler")
    assert result["changed"] is False
    code, result = run_module(monkeypatch, capsys, api, lock_name="my-scheduler", state="absent")
    assert code == 0
    assert result["changed"] is False
    assert lease_names(api.obj) == ["kube-scheduler", "my-scheduler"]
    assert api.writes == []


def test_missing_clusterrole(monkeypatch, capsys):
    api = FakeAPI(None)
    code, result = run_module(monkeypatch, capsys, api, lock_name="my-scheduler", state="absent")
    assert code == 0
    assert result["changed"] is False
    code, result = run_module(monkeypatch, capsys, api, lock_name="my-scheduler")
    assert code == 1
    assert "not found" in result["msg"]


def test_other_clusterrole_name(monkeypatch, capsys):
    role = fixture("1.34")
    role["metadata"]["name"] = "custom:scheduler"
    api = FakeAPI(role)
    code, result = run_module(monkeypatch, capsys, api, name="custom:scheduler", lock_name="my-scheduler")
    assert code == 0
    assert result["changed"] is True


def test_a_clusterrole_without_lease_rule_fails(monkeypatch, capsys):
    role = fixture("1.34")
    role["rules"] = [r for r in role["rules"] if "leases" not in r["resources"]]
    api = FakeAPI(role)
    code, result = run_module(monkeypatch, capsys, api, lock_name="my-scheduler")
    assert code == 1
    assert "no rule for coordination.k8s.io leases" in result["msg"]
    assert api.writes == []


def test_lock_name_is_required(monkeypatch, capsys):
    code, result = run_module(monkeypatch, capsys, FakeAPI(fixture("1.34")))
    assert code == 1
    assert "lock_name" in result["msg"]
