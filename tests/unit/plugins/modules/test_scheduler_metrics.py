# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The scheduler_metrics module: its options reach the reader, its result and its failure are the module's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ansible.module_utils.testing import patch_module_args

from ansible_collections.kubesched.scheduler.plugins.module_utils import metrics
from ansible_collections.kubesched.scheduler.plugins.modules import scheduler_metrics

LEADER = (Path(__file__).resolve().parents[1] / "fixtures" / "metrics" / "kube-scheduler-v1.37.2-leader.txt").read_text()
POD = {
    "metadata": {"name": "obs-scheduler-7ddf7fd5f7-vd6vg", "namespace": "kubesched-obs"},
    "spec": {"nodeName": "kubesched-worker"},
    "status": {"phase": "Running"},
}


def run_module(capsys, args):
    with patch_module_args(args), pytest.raises(SystemExit) as exit_info:
        scheduler_metrics.main()
    return exit_info.value.code, json.loads(capsys.readouterr().out)


@pytest.fixture
def scraped(kube_api, connect_to, monkeypatch):
    api, dummy = kube_api(lambda method, path, query, body: (200, {"items": [POD]}))
    connect_to(api)
    calls = []

    def scrape(api_client, namespace, pod, port, timeout):
        calls.append((api_client, namespace, pod, port, timeout))
        return LEADER

    monkeypatch.setattr(metrics, "scrape", scrape)
    return api, calls


def test_the_module_reports_the_summary(capsys, scraped):
    api, calls = scraped
    code, result = run_module(capsys, {"name": "obs-scheduler", "namespace": "kubesched-obs", "port": 10260, "timeout": 3})
    assert code == 0
    assert calls == [(api, "kubesched-obs", "obs-scheduler-7ddf7fd5f7-vd6vg", 10260, 3)]
    assert result["changed"] is False
    assert result["attempts"] == {"scheduled": 6, "unschedulable": 2, "error": 0}
    assert result["leader"] == "obs-scheduler-7ddf7fd5f7-vd6vg"
    assert result["sli_p99_seconds"] == 0.0788


def test_check_mode_reads_too(capsys, scraped):
    code, result = run_module(capsys, {"name": "obs-scheduler", "namespace": "kubesched-obs", "_ansible_check_mode": True})
    assert (code, result["changed"], result["attempts"]["scheduled"]) == (0, False, 6)


def test_a_scheduler_without_pods_fails(capsys, scraped):
    code, result = run_module(capsys, {"name": "obs-scheduler", "namespace": "kubesched-obs", "pods": ["no-such-pod"]})
    assert code == 1
    assert result["failed"] is True
    assert result["msg"].startswith("No running pod of scheduler obs-scheduler in namespace kubesched-obs")
