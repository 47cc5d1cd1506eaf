# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hack/molecule.sh: scenarios of one cluster one after the other, another cluster's beside them, a failure in any
lane fails the run and is printed last."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "molecule.sh"

# A molecule that notes when each scenario's test starts and ends, takes a second, and fails the scenarios in $FAIL.
FAKE = """#!/bin/sh
[ "$1" = test ] || exit 0
echo "start $3 $(date +%s.%N)" >> "$TRACE"
sleep 1
echo "end $3 $(date +%s.%N)" >> "$TRACE"
case " $FAIL " in *" $3 "*) echo "fatal: [localhost]: FAILED! => $3"; exit 2 ;; esac
echo "ran $3"
"""


def run(tmp_path, scenarios, fail=""):
    for name, cluster in (("one", None), ("two", None), ("ha", "kubesched-ha")):
        (tmp_path / "molecule" / name).mkdir(parents=True, exist_ok=True)
        env = f"    CLUSTER_NAME: {cluster}\n" if cluster else ""
        (tmp_path / "molecule" / name / "molecule.yml").write_text(f"provisioner:\n  env:\n{env}    X: y\n")
    fake = tmp_path / "molecule-fake"
    fake.write_text(FAKE)
    fake.chmod(0o755)
    env = dict(
        os.environ,
        MOLECULE=str(fake),
        MOLECULE_SCENARIO_DIR=str(tmp_path / "molecule"),
        MOLECULE_LANE_DIR=str(tmp_path / "out"),
        TRACE=str(tmp_path / "trace"),
        FAIL=fail,
    )
    done = subprocess.run(["bash", str(SCRIPT), *scenarios], env=env, capture_output=True, text=True, timeout=60, check=False)
    trace = {}
    for line in (tmp_path / "trace").read_text().splitlines():
        what, name, moment = line.split()
        trace.setdefault(name, {})[what] = float(moment)
    return done, trace


def test_another_clusters_scenario_runs_beside_and_one_clusters_in_turn(tmp_path):
    done, trace = run(tmp_path, ["one", "two", "ha"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert trace["two"]["start"] >= trace["one"]["end"]  # one cluster: in turn
    assert trace["ha"]["start"] < trace["one"]["end"]  # another cluster: beside
    out = done.stdout
    assert out.index("ran one") < out.index("ran two") < out.index("---- molecule on kubesched-ha")
    assert "ran ha" in out.split("---- molecule on kubesched-ha", 1)[1]
    # The side lane's lines carry the time they were written.
    assert any(line[:2].isdigit() and line.endswith("ran ha") for line in out.splitlines())
    # The summary of every lane ends the output.
    summary = out.split("molecule: every lane has ended:", 1)[1].split()
    assert sorted(summary[i + 1] for i, word in enumerate(summary) if word == "scenario") == ["ha", "one", "two"]


def test_a_failed_side_lane_fails_the_run_and_comes_last(tmp_path):
    done, _trace = run(tmp_path, ["one", "ha"], fail="ha")
    assert done.returncode == 1
    tail = done.stdout.split("FAILED ----", 1)[1]
    assert "fatal: [localhost]: FAILED! => ha" in tail
    assert "ran one" not in tail
    assert done.stdout.splitlines()[-1].startswith("  scenario ha FAILED after")


def test_a_failure_stops_its_lane_only(tmp_path):
    done, trace = run(tmp_path, ["one", "two", "ha"], fail="one")
    assert done.returncode == 1
    assert "two" not in trace  # the lane stopped at its failure
    assert "end" in trace["ha"]  # the other lane ran to its end


def test_an_unknown_scenario_is_refused_before_any_runs(tmp_path):
    done = subprocess.run(
        ["bash", str(SCRIPT), "nope"],
        env=dict(os.environ, MOLECULE="/bin/false", MOLECULE_SCENARIO_DIR=str(tmp_path), MOLECULE_LANE_DIR=str(tmp_path / "o")),
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "no scenario 'nope'" in done.stderr
