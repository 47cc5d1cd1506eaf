# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The clusterrole_lock module through the real kubernetes client, against a fake API server that
enforces the resourceVersion precondition of a replace."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml
from ansible.module_utils.testing import patch_module_args

from ansible_collections.kubesched.scheduler.plugins.module_utils.clusterrole import MAX_ATTEMPTS
from ansible_collections.kubesched.scheduler.plugins.modules import clusterrole_lock

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "clusterrole"
PATH = "/apis/rbac.authorization.k8s.io/v1/clusterroles/"
LEASES = "kubesched.io/added-lease-names"
ENDPOINTS = "kubesched.io/added-endpoints-names"


def status(code, message):
    return {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message, "code": code}


class ClusterRoles:
    """The API server's side of one ClusterRole: GET, and PUT refused with 409 unless the body carries the
    stored resourceVersion. ``interfere`` writes by somebody else, one before each of the next PUTs."""

    def __init__(self, obj, interfere=0, refuse=None):
        self.obj = copy.deepcopy(obj)
        if self.obj is not None:
            self.obj["metadata"]["managedFields"] = [{"manager": "kube-apiserver", "operation": "Update"}]
        self.interfere = interfere
        self.refuse = refuse
        self.writes = []

    def _bump(self):
        self.obj["metadata"]["resourceVersion"] = str(int(self.obj["metadata"]["resourceVersion"]) + 1)

    def __call__(self, method, path, query, body):
        name = path.removeprefix(PATH)
        if self.obj is None or self.obj["metadata"]["name"] != name:
            return 404, status(404, f'clusterroles.rbac.authorization.k8s.io "{name}" not found')
        if method == "GET":
            return 200, self.obj
        assert method == "PUT"
        if self.refuse:
            return self.refuse
        if self.interfere:
            self.interfere -= 1
            lease_names(self.obj).append(f"other-{self.interfere}")
            self._bump()
        self.writes.append(body)
        if body["metadata"].get("resourceVersion") != self.obj["metadata"]["resourceVersion"]:
            return 409, status(409, "Operation cannot be fulfilled: the object has been modified")
        assert "managedFields" not in body["metadata"]
        self.obj = copy.deepcopy(body)
        self._bump()
        return 200, self.obj


def fixture(version):
    return yaml.safe_load((FIXTURES / f"system-kube-scheduler-{version}.yaml").read_text())


def lease_names(obj):
    return next(r for r in obj["rules"] if r.get("resourceNames") and r["resources"] == ["leases"])["resourceNames"]


def strip(obj):
    """The parts of the ClusterRole an uninstall must give back unchanged."""
    return {"annotations": obj["metadata"].get("annotations"), "labels": obj["metadata"].get("labels"), "rules": obj["rules"]}


@pytest.fixture
def serve(kube_api, connect_to):
    """Serves ``roles`` (a ClusterRoles) to the module; returns the recorded requests."""

    def install(roles):
        api, pool = kube_api(roles)
        connect_to(api)
        return pool.requests

    return install


def run_module(capsys, **args):
    with patch_module_args(args), pytest.raises(SystemExit) as exit_info:
        clusterrole_lock.main()
    return exit_info.value.code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("version", ["1.27", "1.34", "1.35", "1.36", "1.37"])
def test_install_then_uninstall_restores_the_clusterrole(serve, capsys, version):
    original = fixture(version)
    roles = ClusterRoles(original)
    requests = serve(roles)

    code, result = run_module(capsys, lock_name="my-scheduler")
    assert code == 0
    assert result["changed"] is True
    assert result["attempts"] == 1
    assert result["added"]["leases"] == ["my-scheduler"]
    assert result["added"]["endpoints"] == (["my-scheduler"] if version == "1.27" else [])
    assert lease_names(roles.obj) == ["kube-scheduler", "my-scheduler"]
    assert json.loads(roles.obj["metadata"]["annotations"][LEASES]) == ["my-scheduler"]
    assert (ENDPOINTS in roles.obj["metadata"]["annotations"]) is (version == "1.27")
    # One read, one replace carrying the resourceVersion that was read.
    assert [(method, path) for method, path, query in requests] == [("GET", PATH + "system:kube-scheduler"), ("PUT", PATH + "system:kube-scheduler")]
    assert roles.writes[0]["metadata"]["resourceVersion"] == original["metadata"]["resourceVersion"]
    assert result["lock_names"]["leases"] == ["kube-scheduler", "my-scheduler"]
    assert "diff" not in result

    code, result = run_module(capsys, lock_name="my-scheduler")
    assert (code, result["changed"], len(roles.writes)) == (0, False, 1)

    code, result = run_module(capsys, lock_name="my-scheduler", state="absent")
    assert code == 0
    assert result["changed"] is True
    assert result["removed"]["leases"] == ["my-scheduler"]
    assert strip(roles.obj) == strip(original)

    code, result = run_module(capsys, lock_name="my-scheduler", state="absent")
    assert (code, result["changed"], len(roles.writes)) == (0, False, 2)


def test_conflict_is_retried_from_a_fresh_read(serve, capsys):
    roles = ClusterRoles(fixture("1.34"), interfere=2)
    requests = serve(roles)
    code, result = run_module(capsys, lock_name="my-scheduler")
    assert code == 0
    assert result["changed"] is True
    assert result["attempts"] == 3
    assert [method for method, path, query in requests] == ["GET", "PUT"] * 3
    # Nothing written by the other client was lost, and the name is there once.
    assert lease_names(roles.obj) == ["kube-scheduler", "other-1", "other-0", "my-scheduler"]
    assert json.loads(roles.obj["metadata"]["annotations"][LEASES]) == ["my-scheduler"]


def test_gives_up_after_repeated_conflicts(serve, capsys):
    serve(ClusterRoles(fixture("1.34"), interfere=MAX_ATTEMPTS))
    code, result = run_module(capsys, lock_name="my-scheduler")
    assert code == 1
    assert result["msg"] == f"ClusterRole system:kube-scheduler kept changing: gave up after {MAX_ATTEMPTS} conflicting writes"
    assert result["attempts"] == MAX_ATTEMPTS


def test_a_refused_write_fails_with_the_servers_message(serve, capsys):
    message = 'clusterroles.rbac.authorization.k8s.io "system:kube-scheduler" is forbidden: User "alice" cannot update resource'
    serve(ClusterRoles(fixture("1.34"), refuse=(403, status(403, message))))
    code, result = run_module(capsys, lock_name="my-scheduler")
    assert code == 1
    assert result["msg"] == f"Failed to update ClusterRole system:kube-scheduler: API request failed (403): {message}"
    assert result["attempts"] == 1


def test_a_refused_read_fails_with_the_servers_message(kube_api, connect_to, capsys):
    api, dummy = kube_api(lambda method, path, query, body: (500, status(500, "etcdserver: request timed out")))
    connect_to(api)
    code, result = run_module(capsys, lock_name="my-scheduler")
    assert code == 1
    assert result["msg"] == "Failed to read or update the ClusterRole: API request failed (500): etcdserver: request timed out"


def test_check_mode_predicts_without_writing(serve, capsys):
    original = fixture("1.27")
    roles = ClusterRoles(original)
    serve(roles)
    code, result = run_module(capsys, lock_name="my-scheduler", _ansible_check_mode=True, _ansible_diff=True)
    assert code == 0
    assert result["changed"] is True
    assert roles.writes == []
    assert strip(roles.obj) == strip(original)
    assert result["lock_names"] == {"leases": ["kube-scheduler", "my-scheduler"], "endpoints": ["kube-scheduler", "my-scheduler"]}
    diff = result["diff"]
    assert diff["before"]["rules"] == original["rules"]
    assert lease_names(diff["after"]) == ["kube-scheduler", "my-scheduler"]
    assert diff["before"]["metadata"]["annotations"] == {}
    assert diff["after"]["metadata"]["annotations"] == {LEASES: '["my-scheduler"]', ENDPOINTS: '["my-scheduler"]'}


def test_diff_when_nothing_changes(serve, capsys):
    serve(ClusterRoles(fixture("1.34")))
    run_module(capsys, lock_name="my-scheduler")
    code, result = run_module(capsys, lock_name="my-scheduler", _ansible_diff=True)
    assert code == 0
    assert result["changed"] is False
    assert result["diff"]["before"] == result["diff"]["after"]


def test_absent_leaves_a_name_it_did_not_add(serve, capsys):
    original = fixture("1.34")
    lease_names(original).append("my-scheduler")  # added by hand before
    roles = ClusterRoles(original)
    serve(roles)
    code, result = run_module(capsys, lock_name="my-scheduler")
    assert result["changed"] is False
    code, result = run_module(capsys, lock_name="my-scheduler", state="absent")
    assert code == 0
    assert result["changed"] is False
    assert lease_names(roles.obj) == ["kube-scheduler", "my-scheduler"]
    assert roles.writes == []


def test_missing_clusterrole(serve, capsys):
    serve(ClusterRoles(None))
    code, result = run_module(capsys, lock_name="my-scheduler", state="absent")
    assert (code, result["changed"]) == (0, False)
    code, result = run_module(capsys, lock_name="my-scheduler")
    assert code == 1
    assert result["msg"] == "ClusterRole system:kube-scheduler not found"


def test_other_clusterrole_name(serve, capsys):
    role = fixture("1.34")
    role["metadata"]["name"] = "custom:scheduler"
    requests = serve(ClusterRoles(role))
    code, result = run_module(capsys, name="custom:scheduler", lock_name="my-scheduler")
    assert (code, result["changed"]) == (0, True)
    assert requests[0][1] == PATH + "custom:scheduler"


def test_a_clusterrole_without_lease_rule_fails(serve, capsys):
    role = fixture("1.34")
    role["rules"] = [r for r in role["rules"] if "leases" not in r["resources"]]
    roles = ClusterRoles(role)
    serve(roles)
    code, result = run_module(capsys, lock_name="my-scheduler")
    assert code == 1
    assert "no rule for coordination.k8s.io leases" in result["msg"]
    assert roles.writes == []


def test_an_empty_lock_name_is_refused_before_connecting(capsys, connect_to):
    connect_to(None)
    code, result = run_module(capsys, lock_name="")
    assert code == 1
    assert result["msg"] == "lock_name must not be empty"
