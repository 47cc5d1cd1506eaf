# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures of the module_utils tests."""

from __future__ import annotations

import pytest

from ansible_collections.kubesched.scheduler.plugins.module_utils import engine
from ansible_collections.kubesched.scheduler.plugins.module_utils import lock as lock_rbac
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s import waiter


@pytest.fixture
def fast(monkeypatch):
    """A clock that jumps by each sleep, and the patch of system:kube-scheduler stubbed (it has its own tests)."""
    now = [0.0]
    monkeypatch.setattr(engine, "monotonic", lambda: now[0])
    monkeypatch.setattr(waiter, "monotonic", lambda: now[0])
    monkeypatch.setattr(waiter, "sleep", lambda seconds: now.__setitem__(0, now[0] + seconds))
    monkeypatch.setattr(lock_rbac.clusterrole, "run", lambda connect, p, check_mode=False: {"changed": False, "attempts": 1})
    return now
