# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests of the scheduler_config_api filter (KubeSchedulerConfiguration apiVersion by Kubernetes version)."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kubesched.scheduler.plugins.filter.scheduler_config_api import FilterModule, scheduler_config_api

V1 = "kubescheduler.config.k8s.io/v1"
V1BETA3 = "kubescheduler.config.k8s.io/v1beta3"
V1BETA2 = "kubescheduler.config.k8s.io/v1beta2"


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("1.34", V1),
        ("v1.34.4", V1),
        ("1.25", V1),
        ("v1.25.0", V1),
        ("1.28.15", V1),
        ("v1.30.2-gke.1587003", V1),
        ("v1.29.1+k3s2", V1),
        ("v1.31.0-eks-a737599", V1),
        ("v1.36.0-alpha.1", V1),
        ("1.24", V1BETA3),
        ("v1.23.17", V1BETA3),
        ("1.22", V1BETA2),
        ("v1.22.0", V1BETA2),
        ({"major": "1", "minor": "34"}, V1),
        ({"major": "1", "minor": "27+", "gitVersion": "v1.27.16-eks-2f46c53"}, V1),
        ({"major": "1", "minor": "24"}, V1BETA3),
        ({"major": 1, "minor": 22}, V1BETA2),
        ({"gitVersion": "v1.23.0"}, V1BETA3),
        ({"major": "", "minor": "", "gitVersion": "v1.26.3"}, V1),
    ],
)
def test_api_version(version, expected):
    assert scheduler_config_api(version) == expected


@pytest.mark.parametrize(
    ("version", "named"),
    [("1.21", "1.21"), ("v1.21.14", "1.21"), ("1.19", "1.19"), ({"major": "1", "minor": "20"}, "1.20"), ("2.0", "2.0"), ("0.9", "0.9")],
)
def test_unsupported_versions_are_named(version, named):
    with pytest.raises(AnsibleFilterError, match=f"Kubernetes {named} .*is not supported.*1.22 or newer"):
        scheduler_config_api(version)


@pytest.mark.parametrize("version", ["", "latest", "v1", "1", None, True, {"major": "1"}, {}])
def test_unreadable_versions(version):
    with pytest.raises(AnsibleFilterError, match="cannot read a Kubernetes version|is not a Kubernetes version"):
        scheduler_config_api(version)


def test_numbers_are_refused_with_advice():
    with pytest.raises(AnsibleFilterError, match="quote it"):
        scheduler_config_api(1.30)


def test_registered_name():
    assert FilterModule().filters()["scheduler_config_api"] is scheduler_config_api
