# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fakes the unit tests share: recorded API objects, a clock, the placement fetchers, and an HTTP pool
under a real ``kubernetes.client.ApiClient``."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

import pytest

from ansible_collections.kubesched.scheduler.plugins.module_utils import k8s_module, placement_gather
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s import client, waiter

FIXTURES = Path(__file__).resolve().parent / "plugins" / "fixtures"


@pytest.fixture(autouse=True)
def fresh_warnings():
    """ansible-core keeps a module's warnings in one process-wide table, each message once: a test's warning would be
    reported by the next module run, and a second test warning the same is not told. Each test starts with none."""
    from ansible.module_utils.common import warnings

    for table in (warnings._global_warnings, warnings._global_deprecations):  # noqa: SLF001 - no public reset
        table.clear()


@pytest.fixture
def items():
    """The ``items`` of a recorded list in fixtures/placement."""
    return lambda name: json.loads((FIXTURES / "placement" / name).read_text())["items"]


class FakeClock:
    def __init__(self):
        self.now = 1000.0
        self.sleeps = []

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def clock(monkeypatch):
    """A clock that only moves when slept on, installed as the layer's monotonic and sleep (_k8s.waiter, _k8s.client)."""
    fake = FakeClock()
    monkeypatch.setattr(waiter, "monotonic", fake)
    monkeypatch.setattr(waiter, "sleep", fake.sleep)
    monkeypatch.setattr(client, "monotonic", fake)
    return fake


class Placements:
    """Recorded lists served in place of placement_gather.fetch_*; every call is recorded.

    ``pods`` is one list, or several: one per poll, the last one repeated.
    """

    def __init__(self, pods, scheduled=(), failed=(), leases=(), deployments=(), podgroups=()):
        self.pod_lists = [pods] if not pods or isinstance(pods[0], dict) else list(pods)
        self.events = {"Scheduled": list(scheduled), "FailedScheduling": list(failed)}
        self.leases = list(leases)
        self.deployments = list(deployments)
        self.podgroups = podgroups  # a list, or an exception to raise (the API not served, not allowed)
        self.calls = []

    def fetch_pods(self, api, namespace=None, label_selector=None, field_selector=None):
        self.calls.append(("pods", namespace, label_selector, field_selector))
        pods = self.pod_lists.pop(0) if len(self.pod_lists) > 1 else self.pod_lists[0]
        return copy.deepcopy([pod for pod in pods if not namespace or pod["metadata"]["namespace"] == namespace])

    def fetch_events(self, api, namespace=None, reason="Scheduled", pod_name=None):
        self.calls.append(("events", namespace, reason, pod_name))
        return copy.deepcopy([event for event in self.events[reason] if event.get("reason") == reason])

    def fetch_leases(self, api, names):
        self.calls.append(("leases", tuple(names)))
        return copy.deepcopy(self.leases)

    def fetch_deployments(self, api, names):
        self.calls.append(("deployments", tuple(names)))
        return copy.deepcopy(self.deployments)

    def fetch_podgroups(self, api, namespace=None):
        self.calls.append(("podgroups", namespace))
        if isinstance(self.podgroups, Exception):
            raise self.podgroups
        return copy.deepcopy(list(self.podgroups))


@pytest.fixture
def placements(monkeypatch):
    """Installs a Placements (built from the arguments) in place of the fetchers; returns it."""

    def install(*args, **kwargs):
        fake = Placements(*args, **kwargs)
        for name in ("fetch_pods", "fetch_events", "fetch_leases", "fetch_deployments", "fetch_podgroups"):
            monkeypatch.setattr(placement_gather, name, getattr(fake, name))
        return fake

    return install


@pytest.fixture
def recorded(placements, items):
    """The recorded namespace ``demo``: pods, both kinds of events (through both APIs), Leases, Deployments."""
    v1 = items("events-k8s-io-v1.json")
    return placements(
        items("pods.json"),
        items("events-scheduled.json") + v1,
        items("events-failed.json") + v1,
        items("leases.json"),
        items("deployments.json"),
    )


class ApiError(Exception):
    """Shaped like kubernetes.client's ApiException: an HTTP status, its reason, and the server's Status as body."""

    def __init__(self, status, reason, message):
        super().__init__(f"({status})\nReason: {reason}")
        self.status = status
        self.reason = reason
        self.body = json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": reason, "code": status, "message": message})


@pytest.fixture
def api_error():
    """Makes an error the API server answered with: api_error(403, "Forbidden", "pods is forbidden: ...")."""
    return ApiError


class FakePool:
    """Stands in for urllib3's PoolManager under a real kubernetes ApiClient.

    ``answer(method, path, query, body)`` returns ``(status, object)``; every request is recorded as
    ``(method, path, query)``.
    """

    def __init__(self, answer):
        self.answer = answer
        self.requests = []

    def request(self, method, url, fields=None, body=None, **kwargs):
        import urllib3

        parts = urlsplit(url)
        query = dict(parse_qsl(parts.query))
        query.update(dict(fields or []))
        path = unquote(parts.path)
        self.requests.append((method, path, query))
        status, obj = self.answer(method, path, query, json.loads(body) if body else None)
        return urllib3.HTTPResponse(
            body=io.BytesIO(json.dumps(obj).encode()),
            status=status,
            reason={200: "OK", 404: "Not Found", 409: "Conflict"}.get(status, "Error"),
            headers={"Content-Type": "application/json"},
            preload_content=kwargs.get("preload_content", True),
        )


@pytest.fixture
def kube_api():
    """A real ``kubernetes.client.ApiClient`` whose requests ``answer`` serves; returns (client, pool)."""
    from kubernetes import client

    def build(answer):
        api = client.ApiClient(client.Configuration())
        api.rest_client.pool_manager = FakePool(answer)
        return api, api.rest_client.pool_manager

    return build


@pytest.fixture
def connect_to(monkeypatch):
    """Makes the modules connect to ``api`` instead of building a client from their connection options."""

    def install(api):
        monkeypatch.setattr(k8s_module, "api_client", lambda module: api)
        return api

    return install
