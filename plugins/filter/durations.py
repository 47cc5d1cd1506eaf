# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter kubesched.scheduler.duration_seconds: a Go duration ("1m30s") in seconds.

Documented in duration_seconds.yml next to this file. The parser is module_utils/durations.py, which the
input checks (module_utils/inputs.py) use too.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.kubesched.scheduler.plugins.module_utils.durations import parse_duration

_RAISE = object()


def duration_seconds(value, default=_RAISE):
    """The number of seconds a Go duration stands for ("15s" -> 15.0, "1m30s" -> 90.0, "-1.5h" -> -5400.0).

    Accepts what Go's ``time.ParseDuration`` accepts, which is what kube-scheduler reads:
    an optional sign, then one or more numbers each followed by a unit, or a bare "0".
    Anything else raises an error naming the value, or returns ``default`` when one is given.
    """
    try:
        return parse_duration(value)
    except ValueError as error:
        if default is _RAISE:
            raise AnsibleFilterError(f"duration_seconds: {error}") from None
        return default


class FilterModule:
    def filters(self):
        return {"duration_seconds": duration_seconds}
