# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hack/molecule.sh with molecule and cluster.sh stood in by scripts that record what they are asked: the scenarios in
order, the one of MOLECULE_HA beside those after it, each lane pausing the other's cluster while it runs alone, a
failure in either lane stopping both, both clusters thawed at the end."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "molecule.sh"

# molecule reset|test -s SCENARIO: test records its start and end, sleeps $SLEEP_<scenario> seconds, exits $RC_<scenario>.
MOLECULE = """#!/bin/bash
[ "$1" = test ] || exit 0
s=$3
echo "$(date +%s.%N) start $s" >> "$RECORD"
sleep "$(printenv "SLEEP_$s" || echo 0)"
echo "output of $s"
echo "$(date +%s.%N) end $s" >> "$RECORD"
exit "$(printenv "RC_$s" || echo 0)"
"""
CLUSTER_SH = """#!/bin/sh
echo "$(date +%s.%N) ${CLUSTER_NAME:-kubesched} $1" >> "$RECORD"
"""


def lanes(tmp_path: Path, *scenarios: str, lanes: str | None = "2", **env: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    for name, text in (("molecule", MOLECULE), ("cluster.sh", CLUSTER_SH)):
        (tmp_path / name).write_text(text)
        (tmp_path / name).chmod(0o755)
    record = tmp_path / "record"
    run = subprocess.run(
        [str(SCRIPT), *scenarios],
        env=dict(
            os.environ,
            MOLECULE=str(tmp_path / "molecule"),
            CLUSTER_SH=str(tmp_path / "cluster.sh"),
            MOLECULE_LOG_DIR=str(tmp_path / "logs"),
            MOLECULE_HA="ha",
            **({"MOLECULE_LANES": lanes} if lanes else {}),
            HA_ENV="CLUSTER_NAME=kubesched-ha CLUSTER_WORKERS=1",
            RECORD=str(record),
            **env,
        ),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    events = [line.split(" ", 1)[1] for line in sorted(record.read_text().splitlines(), key=lambda line: float(line.split()[0]))]
    return run, events


def test_the_scenario_beside_runs_with_the_ones_after_it(tmp_path):
    run, events = lanes(tmp_path, "a", "ha", "b", "c", SLEEP_ha="1.5", SLEEP_b="0.5", SLEEP_c="0.5")
    assert run.returncode == 0, run.stdout + run.stderr
    # ha and b start together, in either order.
    assert sorted(events[3:5]) == ["start b", "start ha"]
    assert events[:3] + events[5:] == [
        "kubesched-ha pause",  # a runs alone
        "start a",
        "end a",
        "end b",
        "start c",
        "end c",
        "kubesched pause",  # the lane of kubesched is done; ha runs on
        "end ha",
        "kubesched-ha thaw",
        "kubesched thaw",
    ]
    out = run.stdout
    assert "molecule: scenario ha started beside the others" in out
    assert out.index("molecule: scenario c passed") < out.index("output of ha") < out.index("molecule: scenario ha passed")
    # Its lines carry the time they were written, which hack/timestamps.py keeps.
    line = next(line for line in out.splitlines() if line.endswith("output of ha"))
    assert time.strptime(line.split()[0], "%H:%M:%S")


def test_without_scenarios_after_it_or_with_one_lane_each_runs_alone_the_other_cluster_paused(tmp_path):
    run, events = lanes(tmp_path, "a", "ha")
    assert run.returncode == 0, run.stdout + run.stderr
    assert events == ["kubesched-ha pause", "start a", "end a", "kubesched pause", "start ha", "end ha", "kubesched-ha thaw", "kubesched thaw"]
    (tmp_path / "record").unlink()
    run, events = lanes(tmp_path, "ha", "b", lanes=None)  # one lane unless asked
    assert run.returncode == 0
    assert events == ["kubesched pause", "start ha", "end ha", "kubesched-ha pause", "start b", "end b", "kubesched-ha thaw", "kubesched thaw"]


@pytest.mark.parametrize("failing", ["ha", "b"])
def test_a_failure_in_either_lane_stops_both_and_thaws_both_clusters(tmp_path, failing):
    env = {"SLEEP_ha": "0.2", "SLEEP_b": "1", "SLEEP_c": "1", f"RC_{failing}": "3"}
    if failing == "b":
        env["SLEEP_ha"] = "30"  # still running when b fails: stopped, not waited for
    started = time.monotonic()
    run, events = lanes(tmp_path, "a", "ha", "b", "c", **env)
    assert run.returncode == 1
    assert time.monotonic() - started < 20
    assert "start c" not in events  # nothing starts after a failure
    assert events[-2:] == ["kubesched-ha thaw", "kubesched thaw"]
    if failing == "ha":
        assert "molecule: scenario ha FAILED (exit 3)" in run.stdout
    else:
        assert "end ha" not in events
