# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one poll loop of the collection, private to it: poll an API read until a check over its answer is met."""

from __future__ import annotations

import time
from typing import Any, Callable, Optional, Tuple, TypeVar

T = TypeVar("T")

# looked up when called, so that tests can replace them with a fake clock
monotonic = time.monotonic
sleep = time.sleep
# Seconds between two polls of the deploy engine's waits (a GET of one object, or a list by label): a pod that becomes
# ready, a trial that ends or a Lease that is taken is seen within half a second, for a few requests a second.
POLL = 0.5


def poll_until(
    poll: Callable[[], T],
    check: Callable[[T], Any],
    timeout: float,
    interval: float,
    clock: Optional[Callable[[], float]] = None,
    sleeper: Optional[Callable[[float], Any]] = None,
) -> Tuple[T, Any, int, bool]:
    """Call ``poll()`` until ``check(result)`` returns nothing (what is still unmet, falsy when met) or ``timeout``
    seconds have passed, sleeping ``interval`` seconds between two polls.

    Returns ``(result, unmet, attempts, timed_out)``. ``clock`` and ``sleeper`` default to this module's
    ``monotonic`` and ``sleep``.
    """
    clock = clock or monotonic
    sleeper = sleeper or sleep
    deadline = clock() + timeout
    attempts = 0
    while True:
        attempts += 1
        result = poll()
        unmet = check(result)
        if not unmet:
            return result, unmet, attempts, False
        remaining = deadline - clock()
        if remaining <= 0:
            return result, unmet, attempts, True
        sleeper(min(interval, remaining) if interval > 0 else remaining)


def wait_for(poll: Callable[[], T], done: Callable[[T], bool], timeout: float, interval: float = POLL) -> Tuple[T, bool]:
    """``poll()`` until the predicate ``done(result)`` holds or ``timeout`` seconds; ``(result, met)``."""
    result, _unmet, _attempts, timed_out = poll_until(poll, lambda answer: not done(answer), timeout, interval)
    return result, not timed_out
