# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The metrics and disruption options in the preflight: its one read of the Prometheus Operator's API (the discovery
document the v1.37.2 kind cluster served for monitoring.coreos.com/v1 with the ServiceMonitor and PrometheusRule CRDs of
molecule/leader_election), and its check of a PriorityClass the run does not create. The trial Pod's priority class is
tested in test_engine.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ansible_collections.kubesched.scheduler.plugins.module_utils import engine
from ansible_collections.kubesched.scheduler.plugins.module_utils import preflight as preflight_checks
from ansible_collections.kubesched.scheduler.tests.unit.utils.engine_fakes import NAME
from ansible_collections.kubesched.scheduler.tests.unit.utils.preflight_fakes import SharedKube, preflight_params

DISCOVERY = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "metrics" / "monitoring-coreos-com-v1.json").read_text())
SERVED = [resource["name"] for resource in DISCOVERY["resources"]]


def preflight(monkeypatch, kube, **kwargs):
    """The preflight on ``kube`` (a SharedKube of test_sharing.py, which serves discovery documents)."""
    monkeypatch.setattr(preflight_checks, "Kube", lambda api: kube)
    return preflight_checks.preflight(lambda: None, preflight_params(**kwargs))


def test_preflight_reads_the_operators_api_with_one_request(monkeypatch):
    kube = SharedKube(served={preflight_checks.MONITORING_API: SERVED})
    before = kube.requests
    with_metrics = preflight(monkeypatch, kube, metrics=True)
    with_requests = kube.requests - before
    assert with_metrics["monitoring_api"] is True
    before = kube.requests
    without = preflight(monkeypatch, kube, metrics=False)
    assert "monitoring_api" not in without
    assert with_requests - (kube.requests - before) == 1


def test_preflight_tells_a_cluster_without_the_operator(monkeypatch):
    assert preflight(monkeypatch, SharedKube(served={}), metrics=True)["monitoring_api"] is False


def test_a_group_serving_only_one_of_the_two_kinds_is_not_enough(monkeypatch):
    assert preflight(monkeypatch, SharedKube(served={preflight_checks.MONITORING_API: ["servicemonitors"]}), metrics=True)["monitoring_api"] is False


def test_preflight_refuses_a_priority_class_the_cluster_lacks(monkeypatch):
    with pytest.raises(engine.EngineError) as refused:
        preflight(monkeypatch, SharedKube(), priority_class="batch-critical")
    assert refused.value.msg.startswith("kube_scheduler_priority_class_name 'batch-critical' is no PriorityClass of this cluster")
    assert f"else {NAME}-critical, which the role creates), or empty it for none." in refused.value.msg


def test_preflight_accepts_an_existing_priority_class(monkeypatch):
    kube = SharedKube()
    kube.put({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "system-cluster-critical"}, "value": 2000000000})
    assert "msg" not in preflight(monkeypatch, kube, priority_class="system-cluster-critical")
