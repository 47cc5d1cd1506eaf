# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hack/kind/lib.sh's locks: what the scripts start in the background holds none of them, a lock is free once its
holder ends, and a waiter names the holder and does not wait forever on a process that is not one of the scripts."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[1] / "kind" / "lib.sh"


def bash(script, tmp_path, timeout=60, **env):
    """``script`` in bash with lib.sh sourced (its cache in tmp_path); the completed process."""
    environ = dict(os.environ, KUBESCHED_CACHE=str(tmp_path / "cache"), KUBE_VERSION="v1.37.2", **env)
    return subprocess.run(["bash", "-c", f'. "{LIB}"\n{script}'], env=environ, capture_output=True, text=True, timeout=timeout, check=False)


def holders(path):
    """The pids of the processes that have ``path`` open."""
    found = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == str(path):
                    found.add(int(pid))
            except OSError:
                pass
    return found


def kill(pid):
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, 9)


def test_a_daemon_started_under_the_lock_does_not_hold_it(tmp_path):
    """As `cluster.sh up` starts dockerd inside its lock: the daemon gets none of the lock's descriptors, and the
    lock is free as soon as the script that took it has ended, the daemon still running."""
    lock = tmp_path / "cluster.lock"
    run = bash(f'lock 9 "{lock}" test\nbackground "{tmp_path}/daemon.log" sleep 300\necho "$!"', tmp_path)
    assert run.returncode == 0, run.stderr
    daemon = int(run.stdout.split()[-1])
    try:
        assert Path(f"/proc/{daemon}").exists(), "the background process is not running"
        assert holders(lock) == set(), f"processes still hold {lock}: {holders(lock)}"
        again = bash(f'lock 9 "{lock}" test && echo taken', tmp_path, timeout=20, KUBESCHED_LOCK_WAIT="5")
        assert again.stdout.strip() == "taken", again.stderr
        assert os.getsid(daemon) == daemon, "the background process is not in a session of its own"
    finally:
        kill(daemon)


def test_start_dockerd_starts_it_without_the_lock(tmp_path):
    """install-host.sh's start_dockerd (lib.sh), under a lock as in `cluster.sh up`, on a host where dockerd does not
    run yet: the dockerd it starts (a stand-in on PATH that makes `docker info` answer) holds no lock."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    ready = tmp_path / "dockerd-ready"
    (bindir / "docker").write_text(f'#!/bin/sh\n[ "$1" = info ] && [ -e "{ready}" ]\n')
    (bindir / "dockerd").write_text(f'#!/bin/sh\necho $$ > "{ready}"\nexec sleep 300\n')
    (bindir / "pgrep").write_text(f'#!/bin/sh\n[ -e "{ready}" ]\n')
    for tool in bindir.iterdir():
        tool.chmod(0o755)
    lock = tmp_path / "cluster.lock"
    run = bash(f'lock 9 "{lock}" test\nstart_dockerd', tmp_path, PATH=f"{bindir}:{os.environ['PATH']}")
    assert run.returncode == 0, run.stderr
    daemon = int(ready.read_text())
    try:
        assert "starting dockerd" in run.stderr
        assert holders(lock) == set(), f"dockerd (pid {daemon}) holds {lock}"
    finally:
        kill(daemon)


def test_a_waiter_names_a_foreign_holder_and_gives_up(tmp_path):
    """A process that is not one of the scripts holds the lock (as dockerd did): the waiter names its pid and command,
    and fails after KUBESCHED_LOCK_WAIT seconds with what to do."""
    lock = tmp_path / "cluster.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", f"import fcntl, time; f = open({str(lock)!r}, 'w'); fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); time.sleep(300)"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        start = time.monotonic()
        run = bash(f'lock 9 "{lock}" "bring-up of test" && echo taken', tmp_path, timeout=60, KUBESCHED_LOCK_WAIT="3")
        elapsed = time.monotonic() - start
        assert run.returncode != 0 and "taken" not in run.stdout
        assert f"{holder.pid} {sys.executable}" in run.stderr, run.stderr
        assert "not the project's scripts" in run.stderr and "Stop them" in run.stderr
        assert 3 <= elapsed < 60
    finally:
        kill(holder.pid)
        holder.wait()


@pytest.mark.parametrize("script", ["cluster.sh", "kwok.sh"])
def test_a_waiter_waits_for_a_running_script_and_names_it(tmp_path, script):
    """Held by a running cluster.sh (or kwok.sh): waited for beyond KUBESCHED_LOCK_WAIT, named, then taken once the
    holder ends. The holder holds until the test ends it, so that a slow machine cannot release it early."""
    lock = tmp_path / "cluster.lock"
    fake = tmp_path / script
    fake.write_text(f'. "{LIB}"\nlock 9 "{lock}" test\necho held\nsleep 300\n')
    env = dict(os.environ, KUBESCHED_CACHE=str(tmp_path / "cache"), KUBE_VERSION="v1.37.2")
    holder = subprocess.Popen(["bash", str(fake)], stdout=subprocess.PIPE, text=True, env=env, start_new_session=True)
    waiter = None
    try:
        assert holder.stdout.readline().strip() == "held"
        waiter = subprocess.Popen(
            ["bash", "-c", f'. "{LIB}"\nlock 9 "{lock}" test && echo taken'],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(env, KUBESCHED_LOCK_WAIT="1"),
        )
        said = waiter.stderr.readline()
        assert f"waiting for {holder.pid} bash {fake}" in said, said
        time.sleep(3)  # beyond KUBESCHED_LOCK_WAIT: still waiting, not refused
        assert waiter.poll() is None, waiter.stderr.read()
        os.killpg(holder.pid, 9)  # the script and its sleep, which holds the lock's descriptor too
        holder.wait()
        out, err = waiter.communicate(timeout=60)
        assert waiter.returncode == 0 and out.strip() == "taken", err
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(holder.pid, 9)
        holder.wait()
        if waiter is not None and waiter.poll() is None:
            kill(waiter.pid)
