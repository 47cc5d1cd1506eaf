# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The build role's environment (roles/build/vars/main.yml), evaluated by ansible-playbook as the role does: the build
compiles into the build host's own Go build cache unless kube_scheduler_build_env names one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
PLAYBOOK = """
- name: Evaluate the build environment
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Read the role's internal values
      ansible.builtin.include_vars:
        file: {vars}
    - name: Write the environment the build runs with
      ansible.builtin.copy:
        content: "{{{{ __kube_scheduler_build_environment | to_json }}}}"
        dest: {out}
        mode: "0644"
"""

pytestmark = pytest.mark.skipif(not (BIN / "ansible-playbook").exists(), reason="ansible-playbook is not installed next to this Python")


def environment(tmp_path, build_env, status, *strings):
    out = tmp_path / "env.json"
    playbook = tmp_path / "env.yml"
    playbook.write_text(PLAYBOOK.format(vars=ROOT / "roles" / "build" / "vars" / "main.yml", out=out))
    given = {"kube_scheduler_build_env": build_env} if build_env is not None else {}
    extra = json.dumps({"kube_scheduler_build_platform": "", "__kube_scheduler_build_status": status, **given})
    options = [arg for string in strings for arg in ("-e", string)]
    run = subprocess.run(
        [str(BIN / "ansible-playbook"), str(playbook), "-e", extra, *options],
        env=dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_RETRY_FILES_ENABLED="0"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return json.loads(out.read_text())


STATUS = {"host_platform": "linux/amd64", "go_cache": "/root/.cache/go-build"}
PLATFORM = {"KUBE_BUILD_PLATFORMS": "linux/amd64", "GOOS": "linux", "GOARCH": "amd64"}


def test_the_default_environment_shares_the_build_hosts_go_cache(tmp_path):
    assert environment(tmp_path, {"FORCE_HOST_GO": "y"}, STATUS) == {"GOCACHE": "/root/.cache/go-build", "FORCE_HOST_GO": "y", **PLATFORM}


def test_the_default_environment_of_the_roles_default(tmp_path):
    """kube_scheduler_build_env as defaults/main.yml declares it ({})."""
    assert environment(tmp_path, {}, STATUS) == {"GOCACHE": "/root/.cache/go-build", **PLATFORM}


def test_a_gocache_of_the_users_wins(tmp_path):
    assert environment(tmp_path, {"GOCACHE": "/srv/go-cache"}, STATUS)["GOCACHE"] == "/srv/go-cache"


def test_a_gocache_from_the_command_line_wins(tmp_path):
    """-e '{"kube_scheduler_build_env": {...}}' replaces the whole dict, as hack/demo.sh passes it."""
    found = environment(tmp_path, None, STATUS, '{"kube_scheduler_build_env": {"FORCE_HOST_GO": "y", "GOCACHE": "/tmp/c"}}')
    assert found["GOCACHE"] == "/tmp/c" and found["FORCE_HOST_GO"] == "y"  # noqa: S108 a path the role only passes on


def test_no_cache_read_sets_none(tmp_path):
    """A build_status without go_cache (the role's older record of it): the environment sets no GOCACHE."""
    assert "GOCACHE" not in environment(tmp_path, {}, {"host_platform": "linux/amd64"})
