# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The action kubesched.scheduler.check_inputs: its arguments, and what it returns for good and bad values."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from ansible.errors import AnsibleActionFail
from ansible.parsing.dataloader import DataLoader
from ansible.playbook.play_context import PlayContext
from ansible.playbook.task import Task
from ansible.template import Templar

from ansible_collections.kubesched.scheduler.plugins.action.check_inputs import ActionModule

COMMON = {
    "kube_scheduler_name": "my-scheduler",
    "kube_scheduler_namespace": "kube-system",
    "kube_scheduler_lock_name": "my-scheduler",
    "kube_scheduler_lock_namespace": "kube-system",
    "kube_scheduler_state": "present",
    "kube_scheduler_render_dir": "",
    "kube_scheduler_cluster_version": "1.37",
}


def run(args):
    task = Task()
    task.args = args
    loader = DataLoader()
    connection = SimpleNamespace(_shell=SimpleNamespace(tmpdir=None))  # the action runs no module: nothing else is used
    action = ActionModule(task, connection, PlayContext(), loader, Templar(loader=loader), None)
    return action.run(task_vars={})


def test_good_values_pass():
    result = run({"checks": ["common"], "values": COMMON})
    assert not result.get("failed")
    assert result["changed"] is False
    assert result["messages"] == []


def test_bad_values_fail_with_every_message():
    result = run({"checks": ["common"], "values": dict(COMMON, kube_scheduler_name="MyScheduler", kube_scheduler_lock_name="MyScheduler")})
    assert result["failed"] is True
    assert len(result["messages"]) == 2
    assert result["msg"] == " ".join(result["messages"])
    assert result["msg"].startswith("kube_scheduler_name is 'MyScheduler': use 1 to 63 lowercase letters")


def test_a_missing_value_is_named():
    values = dict(COMMON)
    del values["kube_scheduler_render_dir"]
    result = run({"checks": ["common"], "values": values})
    assert result["failed"] is True
    assert result["msg"] == "check_inputs: values lacks kube_scheduler_render_dir, which the checks common read"


def test_an_unknown_check_is_refused():
    with pytest.raises(AnsibleActionFail, match="value of checks must be one or more of: common, deploy"):
        run({"checks": ["names"], "values": COMMON})
