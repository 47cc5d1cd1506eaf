# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests of the version filters: scheduler_config_api (KubeSchedulerConfiguration apiVersion by Kubernetes version)
and kubernetes_minor."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kubesched.scheduler.plugins.filter.versions import kubernetes_minor, scheduler_config_api

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


@pytest.mark.parametrize(
    ("version", "minor"),
    [("1.37", 37), ("v1.37.2", 37), ("v1.27.16-eks-2f46c53", 27), ({"major": "1", "minor": "34+"}, 34), ({"gitVersion": "v1.22.0"}, 22)],
)
def test_kubernetes_minor(version, minor):
    assert kubernetes_minor(version) == minor


@pytest.mark.parametrize(
    ("version", "message"),
    [
        ("2.0", "kubernetes_minor: Kubernetes 2.0 (from '2.0') is not a 1.x release"),
        ("latest", "kubernetes_minor: cannot read a Kubernetes version from 'latest'"),
        (1.3, "kubernetes_minor: the Kubernetes version 1.3 is a number"),
    ],
)
def test_kubernetes_minor_names_what_it_cannot_read(version, message):
    with pytest.raises(AnsibleFilterError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        kubernetes_minor(version)


@pytest.mark.parametrize("version", ["2.0", "latest", 1.3, None])
def test_kubernetes_minor_default_replaces_the_error(version):
    assert kubernetes_minor(version, default=0) == 0
    assert kubernetes_minor("v1.30.1", default=0) == 30
