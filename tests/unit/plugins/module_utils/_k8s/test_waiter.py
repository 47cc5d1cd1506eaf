# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests of module_utils/_k8s/waiter.py: polling until a condition holds, on the conftest's clock."""

from __future__ import annotations

from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s import waiter


def test_poll_until_met_on_third_poll(clock):
    answers = iter([["a", "b"], ["b"], []])
    result = waiter.poll_until(lambda: next(answers), lambda unmet: unmet, timeout=60, interval=5, clock=clock, sleeper=clock.sleep)
    assert result == ([], [], 3, False)
    assert clock.sleeps == [5, 5]


def test_poll_until_times_out(clock):
    polls = []

    def poll():
        polls.append(clock.now)
        return ["still pending"]

    result = waiter.poll_until(poll, lambda unmet: unmet, timeout=12, interval=5, clock=clock, sleeper=clock.sleep)
    assert result == (["still pending"], ["still pending"], 4, True)
    assert clock.sleeps == [5, 5, 2]  # the last sleep is cut to the deadline
    assert polls == [1000.0, 1005.0, 1010.0, 1012.0]


def test_poll_until_zero_timeout_polls_once(clock):
    result = waiter.poll_until(lambda: ["x"], lambda unmet: unmet, timeout=0, interval=5, clock=clock, sleeper=clock.sleep)
    assert result[2:] == (1, True)
    assert clock.sleeps == []
