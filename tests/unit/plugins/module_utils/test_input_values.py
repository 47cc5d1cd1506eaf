# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A role's variables read as ansible-core reads them (module_utils/input_values.py)."""

from __future__ import annotations

import pytest

from ansible_collections.kubesched.scheduler.plugins.module_utils import input_values


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({"A": True}, {"A": True}),
        ("GenericWorkload=true,DRADeviceTaints=false", {"GenericWorkload": "true", "DRADeviceTaints": "false"}),
        ("A=1 B=2", {"A": "1", "B": "2"}),
        ('{"A": true}', {"A": True}),
        ("", {}),
        (None, {}),
        ("A", None),
        ("[1]", None),
        (3, None),
    ],
)
def test_a_dict_variable_is_read_as_the_argument_spec_reads_it(given, expected):
    assert input_values.as_dict(given) == expected


@pytest.mark.parametrize(("given", "expected"), [("yes", True), ("Off", False), (1, True), ("2", False), (None, False)])
def test_a_flag_is_read_as_the_bool_filter_reads_it(given, expected):
    assert input_values.as_bool(given) is expected
