# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests of module_utils/_k8s/client.py: a list read page by page (client.pages, under Kube.list_pages) starts over once
when the API server answers 410 Gone to its continue token, and fails on a second expiry; read through
inventory_gather.gather and the fake API server of tests/unit/utils/inventory_fakes.py."""

from __future__ import annotations

import pytest

from ansible_collections.kubesched.scheduler.plugins.module_utils import inventory_gather
from ansible_collections.kubesched.scheduler.plugins.module_utils.kube import KubeError
from ansible_collections.kubesched.scheduler.tests.unit.utils import inventory_fakes
from ansible_collections.kubesched.scheduler.tests.unit.utils.inventory_fakes import PODS, gather

# The fixtures of the recorded kind cluster; this module's clock overrides the conftest's.
kind_cluster = inventory_fakes.kind_cluster
clock = inventory_fakes.clock
serve = inventory_fakes.serve


def test_an_expired_continue_token_restarts_the_list_once(serve, kind_cluster):
    expected, _requests, _count = gather(serve, **kind_cluster)
    result, requests, _count = gather(serve, page_size=5, expire=[f"{PODS}@10"], **kind_cluster)
    assert result == expected  # no pod counted twice
    assert [query.get("continue") for _method, path, query in requests if path == PODS] == [None, f"{PODS}@5", f"{PODS}@10", None, f"{PODS}@5", f"{PODS}@10"]


def test_a_second_expiry_fails(serve, kind_cluster):
    kube, _requests = serve(expire=[f"{PODS}@5", f"{PODS}@5"], **kind_cluster)
    with pytest.raises(KubeError) as error:
        inventory_gather.gather(kube, page_size=5)
    assert error.value.status == 410
