# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The scheduler_info module: its answer on the recorded kind cluster, read-only, and a page size of zero refused
(the fake API server: tests/unit/utils/inventory_fakes.py)."""

from __future__ import annotations

import json

import pytest
from ansible.module_utils.testing import patch_module_args

from ansible_collections.kubesched.scheduler.plugins.modules import scheduler_info
from ansible_collections.kubesched.scheduler.tests.unit.utils import inventory_fakes
from ansible_collections.kubesched.scheduler.tests.unit.utils.inventory_fakes import IMAGE, STATIC, FakeCluster

# The fixtures of the recorded kind cluster; this module's clock overrides the conftest's.
kind_cluster = inventory_fakes.kind_cluster
clock = inventory_fakes.clock


def test_the_module_answers_the_lab_and_is_read_only(capsys, kube_api, connect_to, clock, kind_cluster):
    api, pool = kube_api(FakeCluster(**kind_cluster))
    connect_to(api)
    with patch_module_args({"_ansible_check_mode": True}), pytest.raises(SystemExit) as exit_info:
        scheduler_info.main()
    result = json.loads(capsys.readouterr().out)
    assert exit_info.value.code == 0
    assert result["changed"] is False
    assert (result["default_scheduler"]["pod"], result["default_scheduler"]["image"]) == (STATIC, IMAGE)
    assert result["api_requests"] == 3 == len(pool.requests)
    assert "warnings" not in result


def test_the_module_refuses_a_page_size_of_zero(capsys, connect_to):
    connect_to(object())
    with patch_module_args({"page_size": 0}), pytest.raises(SystemExit) as exit_info:
        scheduler_info.main()
    result = json.loads(capsys.readouterr().out)
    assert exit_info.value.code == 1
    assert result["msg"] == "page_size must be 1 or more, got 0"
