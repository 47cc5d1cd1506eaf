# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A role's variables read as ansible-core reads them: the ``bool``, ``int`` and ``float`` filters, the argument spec's
``list`` and ``dict`` from strings (what ``-e name=value`` gives), and a value as a message shows it. Pure Python, for
the input checks (inputs.py) and the filter kubesched.scheduler.as_dict."""

from __future__ import annotations

import json
import re

# What the ``bool`` filter of ansible-core reads as true and false (the roles' templates read the values with it).
TRUE = frozenset(("yes", "on", "true", "1"))
FALSE = frozenset(("no", "off", "false", "0"))


def as_bool(value):
    """As the ``bool`` filter of ansible-core."""
    if isinstance(value, str):
        value = value.lower()
    elif isinstance(value, int):
        value = str(value).lower()
    try:
        if value in TRUE:
            return True
        if value in FALSE:
            return False
        return value == 1
    except TypeError:
        return False


def as_dict(value):
    """A dict as the argument spec's ``dict`` type reads one: a dict as it is, a string as JSON (``{...}``) or as
    ``key=value`` pairs separated by commas or spaces, nothing as {}; None for what is none of these."""
    if isinstance(value, dict):
        return value
    if value is None or value == "":
        return {}
    if not isinstance(value, str):
        return None
    if value.lstrip().startswith("{"):
        try:
            parsed = json.loads(value)
        except ValueError:
            return None
        return parsed if isinstance(parsed, dict) else None
    pairs = [pair for pair in re.split(r"[,\s]+", value.strip()) if pair]
    if not all("=" in pair for pair in pairs):
        return None
    return dict(pair.split("=", 1) for pair in pairs)


def as_int(value):
    """As Jinja's ``int`` filter: "42.23" is 42, what is no number is 0."""
    try:
        return int(value, 10) if isinstance(value, str) else int(value)
    except (TypeError, ValueError):
        try:
            return int(float(value))
        except (TypeError, ValueError, OverflowError):
            return 0


def as_float(value):
    """As Jinja's ``float`` filter: what is no number is 0.0."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def shown(value):
    """A value as a message shows it: as given (a string as it is), a whole float without its ".0"
    (the argument spec makes -e kube_scheduler_client_qps=0 the float 0.0)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def matches(pattern, value):
    return re.match(pattern, str(value)) is not None


def as_list(value):
    """A list as the argument spec reads one: a string is split at commas."""
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, str):
        return value.split(",") if value else []
    return [] if value is None else [value]


def unique(items):
    """As the ``unique`` filter: strings compared without case."""
    seen = []
    for item in items:
        key = item.lower() if isinstance(item, str) else item
        if key not in seen:
            seen.append(key)
    return seen
