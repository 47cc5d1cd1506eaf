# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The reliability scenario's load script: how long it waits for Scheduled events that may never be written."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[3] / "molecule" / "reliability" / "files" / "reliability_load.py"


@pytest.fixture
def load(monkeypatch):
    spec = importlib.util.spec_from_file_location("reliability_load", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    clock = {"now": 1000.0}
    monkeypatch.setattr(module.time, "time", lambda: clock["now"])
    monkeypatch.setattr(module.time, "sleep", lambda seconds: clock.__setitem__("now", clock["now"] + seconds))
    module.clock = clock
    return module


class Core:
    """list_namespaced_event answers the events whose (uid, at) has arrived by the fake clock."""

    def __init__(self, load, arrivals):
        self.load, self.arrivals = load, arrivals

    def list_namespaced_event(self, namespace, **kwargs):
        return [{"involvedObject": {"uid": uid}} for uid, at in self.arrivals if self.load.clock["now"] >= at]


def events_of(load, monkeypatch, arrivals):
    monkeypatch.setattr(load, "list_all", lambda method, *args, **kwargs: method(*args, **kwargs))
    return Core(load, arrivals)


def test_waits_for_events_that_come(load, monkeypatch):
    core = events_of(load, monkeypatch, [("a", 1000.0), ("b", 1030.0)])
    got = load.read_events(core, "ns", "Scheduled", {"a", "b"}, timeout=90)
    assert {e["involvedObject"]["uid"] for e in got} == {"a", "b"}
    assert 1030.0 <= load.clock["now"] < 1033.0


def test_a_pod_bound_as_its_leader_stopped_is_waited_for_briefly(load, monkeypatch):
    core = events_of(load, monkeypatch, [("a", 1000.0)])
    got = load.read_events(core, "ns", "Scheduled", {"a", "lost"}, timeout=90, may_lack={"lost"}, grace=10)
    assert [e["involvedObject"]["uid"] for e in got] == ["a"]
    assert 1010.0 <= load.clock["now"] < 1013.0


def test_a_pod_not_near_a_stop_is_waited_for_until_the_timeout(load, monkeypatch):
    core = events_of(load, monkeypatch, [("a", 1000.0)])
    load.read_events(core, "ns", "Scheduled", {"a", "slow", "lost"}, timeout=90, may_lack={"lost"}, grace=10)
    assert load.clock["now"] >= 1090.0


def test_near_stop(load):
    bound = {"p1": 100.0, "p2": 104.9, "p3": 120.0}
    assert load.near_stop(bound, [], 5.0) == {}
    assert load.near_stop(bound, [100.5, 200.0], 5.0) == {"p1": -0.5, "p2": 4.4}
