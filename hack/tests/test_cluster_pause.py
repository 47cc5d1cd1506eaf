# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hack/kind/cluster.sh pause and thaw, with docker and kind stood in by scripts that keep each container's state in
a file: pause freezes every container of the cluster (its load balancer too) and no other cluster's, thaw takes them
back, and both are no-ops when there is nothing to do."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

CLUSTER_SH = Path(__file__).resolve().parents[1] / "kind" / "cluster.sh"

KIND = """#!/bin/sh
case "$1 $2" in
  "get clusters") printf 'kubesched\\nkubesched-ha\\n' ;;
  "get nodes") for f in "$STATE"/"$4"-*; do basename "$f"; done ;;
esac
"""
DOCKER = """#!/bin/sh
case "$1" in
  inspect) cat "$STATE/$4" ;;
  pause) shift
    # $STATE.fails: how many more pauses fail as the cgroup freezer does, after freezing the first container named
    # ($STATE.stuck: freezing none)
    [ -e "$STATE.stuck" ] && { echo "Error response from daemon: Cannot pause container $1: unable to freeze" >&2; exit 1; }
    if [ "$(cat "$STATE.fails" 2>/dev/null || echo 0)" -gt 0 ]; then
      echo $(( $(cat "$STATE.fails") - 1 )) > "$STATE.fails"; echo true > "$STATE/$1"
      echo "Error response from daemon: Cannot pause container $2: unable to freeze" >&2; exit 1
    fi
    for n in "$@"; do echo true > "$STATE/$n"; echo "$n" >> "$STATE.log"; done ;;
  unpause) shift; for n in "$@"; do echo false > "$STATE/$n"; echo "un $n" >> "$STATE.log"; done ;;
  *) exit 1 ;;
esac
"""
HA = ["kubesched-ha-control-plane", "kubesched-ha-control-plane2", "kubesched-ha-external-load-balancer", "kubesched-ha-worker"]


def cluster_sh(tmp_path, *args, name="kubesched-ha"):
    bin_dir = tmp_path / "bin"
    if not bin_dir.exists():
        bin_dir.mkdir()
        (tmp_path / "state").mkdir()
        for node in [*HA, "kubesched-control-plane", "kubesched-worker"]:
            (tmp_path / "state" / node).write_text("false\n")
        for tool, text in (("kind", KIND), ("docker", DOCKER)):
            (bin_dir / tool).write_text(text)
            (bin_dir / tool).chmod(0o755)
    env = dict(
        os.environ,
        PATH=f"{bin_dir}:{os.environ['PATH']}",
        STATE=str(tmp_path / "state"),
        KUBESCHED_CACHE=str(tmp_path / "cache"),
        KUBE_VERSION="v1.37.2",
        CLUSTER_NAME=name,
    )
    return subprocess.run(["bash", str(CLUSTER_SH), *args], env=env, capture_output=True, text=True, timeout=60, check=False)


def paused(tmp_path):
    return sorted(p.name for p in (tmp_path / "state").iterdir() if p.read_text().strip() == "true")


def test_pause_freezes_every_container_of_the_cluster_and_thaw_takes_them_back(tmp_path):
    done = cluster_sh(tmp_path, "pause")
    assert done.returncode == 0, done.stderr
    assert paused(tmp_path) == sorted(HA)
    assert "kubesched-ha paused (4 containers)" in done.stderr
    again = cluster_sh(tmp_path, "pause")
    assert again.returncode == 0 and "paused" not in again.stderr  # nothing left to pause
    thawed = cluster_sh(tmp_path, "thaw")
    assert thawed.returncode == 0, thawed.stderr
    assert paused(tmp_path) == []
    assert "kubesched-ha thawed" in thawed.stderr
    assert cluster_sh(tmp_path, "thaw").returncode == 0  # nothing to thaw is no error


def test_pause_of_a_cluster_that_does_not_exist_does_nothing(tmp_path):
    done = cluster_sh(tmp_path, "pause", name="kubesched-1-35")
    assert done.returncode == 0, done.stderr
    assert paused(tmp_path) == []


def test_pause_tries_again_when_the_freezer_fails(tmp_path):
    cluster_sh(tmp_path, "status")  # makes the fakes
    (tmp_path / "state.fails").write_text("2\n")
    done = cluster_sh(tmp_path, "pause")
    assert done.returncode == 0, done.stderr
    assert paused(tmp_path) == sorted(HA)
    assert done.stderr.count("unable to freeze); trying again") == 2
    assert "kubesched-ha paused (4 containers)" in done.stderr


def test_pause_fails_after_five_tries(tmp_path):
    cluster_sh(tmp_path, "status")
    (tmp_path / "state.stuck").write_text("")
    done = cluster_sh(tmp_path, "pause")
    assert done.returncode != 0
    assert "docker pause of kubesched-ha failed 5 times" in done.stderr
    assert paused(tmp_path) == []
