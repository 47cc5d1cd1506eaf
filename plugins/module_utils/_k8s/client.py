# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Lists read page by page, and the API server's clock; private to the collection.

``pages`` is the one pager: whatever reads a page (a REST GET through ``kube.Kube``, or a call of a generated
API class), a list goes on with ``continue`` tokens and starts over once when the API server answers 410 Gone.
``ServerClock`` keeps the API server's time from the Date header of its answers, so that a Lease is judged by
the clock that renews it, not by this host's.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple

from ansible_collections.kubesched.scheduler.plugins.module_utils.k8s_module import api_error_status

# looked up when called, so that tests can replace it with a fake clock
monotonic = time.monotonic
# Slack given to a Lease when it is judged by this host's clock, which may be behind or ahead of the
# API server's; none is needed with the server's own time (the Date header of its answers).
CLOCK_TOLERANCE = timedelta(seconds=5)


class _Restart:
    """What a list yields when it starts over from its first page (see pages)."""

    def __repr__(self) -> str:
        return "RESTART"


RESTART = _Restart()


def pages(read_page: Callable[[Optional[str]], Dict[str, Any]]) -> Iterator[Any]:
    """The items of a list, one page of ``read_page(continue_token)`` at a time (None for the first page).

    A generator, which asks for the next page only once the items of the current one are consumed. When the
    API server answers 410 Gone to a continue token (it expired: etcd compacted the revision the list was
    reading, typically after five minutes), the list starts over from its first page, once: RESTART is yielded
    first, so that the consumer forgets what it kept. A 410 to a first page, or a second one, is raised.
    """
    token: Optional[str] = None
    restarted = False
    while True:
        try:
            payload = read_page(token)
        except Exception as exc:  # KubeError or the client's ApiException, both with a status
            if token is None or restarted or api_error_status(exc) != 410:
                raise
            restarted, token = True, None
            yield RESTART
            continue
        yield from payload.get("items") or []
        token = (payload.get("metadata") or {}).get("continue")
        if not token:
            return


def collect(items: Iterable[Any]) -> List[Any]:
    """The items of ``pages`` as a list (what came before a restart dropped)."""
    kept: List[Any] = []
    for item in items:
        if item is RESTART:
            kept.clear()
        else:
            kept.append(item)
    return kept


def parse_http_date(value: Any) -> Optional[datetime]:
    """An HTTP Date header (RFC 9110, such as ``Sun, 30 Nov 2025 07:48:00 GMT``) as an aware datetime; None when absent or unreadable."""
    if not value or not isinstance(value, str):
        return None
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


class ServerClock:
    """The API server's clock, as the Date header of its latest answer tells it."""

    def __init__(self) -> None:
        self._date: Optional[Tuple[datetime, float]] = None  # (the latest Date header, monotonic() when it came)

    def saw_date(self, header: Any) -> None:
        moment = parse_http_date(header)
        if moment is not None:
            self._date = (moment, monotonic())

    def server_now(self) -> Optional[datetime]:
        """The API server's time now (its latest Date header plus the time since), or None before any Date."""
        if self._date is None:
            return None
        moment, seen_at = self._date
        return moment + timedelta(seconds=max(0.0, monotonic() - seen_at))


def utc_now() -> datetime:
    """This host's clock, in UTC."""
    return datetime.now(timezone.utc)


def lease_clock(server_now: Optional[datetime]) -> Tuple[datetime, timedelta]:
    """``(now, tolerance)`` to judge Leases by: the API server's time when an answer told it, else this host's UTC
    clock (``utc_now``, looked up when called) with CLOCK_TOLERANCE of slack."""
    if server_now is None:
        return utc_now(), CLOCK_TOLERANCE
    return server_now, timedelta(0)
