# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The REST client of the deploy engine (module_utils/kube.py): the path of an object."""

from __future__ import annotations

import pytest

from ansible_collections.kubesched.scheduler.plugins.module_utils.kube import Kube
from ansible_collections.kubesched.scheduler.tests.unit.utils.preflight_fakes import V1, V1BETA1
from ansible_collections.kubesched.scheduler.tests.unit.utils.engine_fakes import NAME, NS


@pytest.mark.usefixtures("fast")
def test_the_rest_path_follows_the_objects_api_version():
    assert Kube.path("MutatingAdmissionPolicy", f"{NAME}-routing") == f"/apis/{V1}/mutatingadmissionpolicies/{NAME}-routing"
    assert Kube.path("MutatingAdmissionPolicy", "x", api_version=V1BETA1) == f"/apis/{V1BETA1}/mutatingadmissionpolicies/x"
    assert Kube.path("ServiceAccount", NAME, NS, api_version="v1") == f"/api/v1/namespaces/{NS}/serviceaccounts/{NAME}"
    assert Kube.path("Node") == "/api/v1/nodes"
