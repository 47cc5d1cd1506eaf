# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests of the duration_seconds filter against what Go's time.ParseDuration accepts and refuses."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kubesched.scheduler.plugins.filter.durations import duration_seconds


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("15s", 15.0),
        ("10s", 10.0),
        ("2s", 2.0),
        ("1m30s", 90.0),
        ("1h2m3s", 3723.0),
        ("1.5h", 5400.0),
        ("500ms", 0.5),
        ("250us", 0.00025),
        ("250µs", 0.00025),
        ("250μs", 0.00025),
        ("100ns", 1e-7),
        (".5s", 0.5),
        ("5.s", 5.0),
        ("0", 0.0),
        ("+0", 0.0),
        ("0s", 0.0),
        ("-1m", -60.0),
        ("+2s", 2.0),
        ("1m1m", 120.0),
    ],
)
def test_go_durations(value, seconds):
    assert duration_seconds(value) == pytest.approx(seconds)


@pytest.mark.parametrize("value", ["", "15", "s", "15 s", "1.2.3s", "15sec", "15S", "1d", ".s", "-", "1m 30s", "abc", "10s-"])
def test_what_go_refuses_is_refused(value):
    with pytest.raises(AnsibleFilterError, match=f"duration_seconds: {value!r} is not a Go duration: use numbers each followed by a unit"):
        duration_seconds(value)


@pytest.mark.parametrize("value", [15, 1.5, None, True, ["15s"]])
def test_only_strings_are_durations(value):
    with pytest.raises(AnsibleFilterError, match="give a string such as 15s"):
        duration_seconds(value)


@pytest.mark.parametrize(("value", "default"), [("15x", None), (15, 0.0), ("", "unset")])
def test_a_default_replaces_the_error(value, default):
    assert duration_seconds(value, default=default) == default
    assert duration_seconds("1m", default=default) == 60.0
