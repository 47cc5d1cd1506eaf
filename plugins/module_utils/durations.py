# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Go durations ("1m30s") as kube-scheduler reads them, in seconds.

Shared by the filter kubesched.scheduler.duration_seconds and the input checks (inputs.py); pure Python.
"""

from __future__ import annotations

import re

# The units of Go's time.ParseDuration, in seconds; "µs" and "μs" (micro and mu) mean "us".
UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
# One number (digits, or digits and a fraction with digits on at least one side of the point) and its unit.
_PART_RE = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)")


def parse_duration(value):
    """The number of seconds a Go duration stands for ("15s" -> 15.0, "1m30s" -> 90.0, "-1.5h" -> -5400.0).

    Accepts what Go's ``time.ParseDuration`` accepts, which is what kube-scheduler reads:
    an optional sign, then one or more numbers each followed by a unit, or a bare "0".
    Anything else raises ``ValueError`` naming the value.
    """
    if isinstance(value, bool) or not isinstance(value, str):
        raise ValueError(f"{value!r} is not a Go duration: give a string such as 15s, 1m30s or 500ms")
    text = value.strip()
    sign = -1.0 if text.startswith("-") else 1.0
    body = text[1:] if text[:1] in "+-" else text
    if body == "0":
        return 0.0
    total, position = 0.0, 0
    while position < len(body):
        match = _PART_RE.match(body, position)
        if not match:
            break
        total += float(match.group(1)) * UNITS[match.group(2)]
        position = match.end()
    if not body or position != len(body):
        raise ValueError(f"{value!r} is not a Go duration: use numbers each followed by a unit (h, m, s, ms, us or ns), such as 15s, 1m30s or 500ms")
    return sign * total
