# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The module flow of the deploy engine's three modules (``scheduler``, ``scheduler_preflight``, ``scheduler_lock``):
connect, run the step, and put its failure, its time and its number of API requests into the module's result."""

from __future__ import annotations

import time

from ansible_collections.kubesched.scheduler.plugins.module_utils.engine import converge, remove
from ansible_collections.kubesched.scheduler.plugins.module_utils.errors import EngineError
from ansible_collections.kubesched.scheduler.plugins.module_utils.kube import Kube
from ansible_collections.kubesched.scheduler.plugins.module_utils.lock import lock_converge
from ansible_collections.kubesched.scheduler.plugins.module_utils.preflight import preflight

monotonic = time.monotonic


def run_preflight(connect, params, check_mode=False, diff=False):
    """The ``scheduler_preflight`` module."""
    try:
        return preflight(connect, params)
    except EngineError as exc:
        return dict(exc.result, changed=False, msg=exc.msg)


def run(connect, params, check_mode=False, diff=False):
    """The ``scheduler`` module: converge (state present) or remove (state absent)."""
    kube = Kube(connect())
    start = monotonic()
    step = converge if params["state"] == "present" else remove
    try:
        result = step(kube, params, check_mode, diff)
    except EngineError as exc:
        result = dict(exc.result, msg=exc.msg, changed=bool(exc.result.get("changes")) or exc.result.get("rolled_back", False))
    result["seconds"] = round(monotonic() - start, 1)
    result["api_requests"] = kube.requests
    return result


def run_lock(connect, params, check_mode=False, diff=False):
    """The ``scheduler_lock`` module: the lock's RBAC alone."""
    kube = Kube(connect())
    try:
        changes = lock_converge(kube, params, params["state"], check_mode)
    except EngineError as exc:
        return {"changed": False, "changes": [], "msg": exc.msg, "api_requests": kube.requests}
    result = {"changed": bool(changes), "changes": changes, "api_requests": kube.requests}
    if diff and changes:
        result["diff"] = {"before": "", "after": "\n".join(changes) + "\n"}
    return result
