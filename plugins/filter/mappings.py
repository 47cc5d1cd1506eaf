# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubesched.scheduler.as_dict: a role's dict variable as the argument spec reads it, also when ``-e`` gave it as a
string (documented in as_dict.yml next to this file; the input checks of module_utils/inputs.py read it the same way, with module_utils/input_values.py)."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.kubesched.scheduler.plugins.module_utils import input_values as _values


def as_dict(value):
    """``value`` as a dict: a dict as it is, a string as JSON or as key=value pairs."""
    result = _values.as_dict(value)
    if result is None:
        raise AnsibleFilterError(f"as_dict: {value!r} is no dict, JSON object or list of key=value pairs")
    return result


class FilterModule:
    def filters(self):
        return {"as_dict": as_dict}
