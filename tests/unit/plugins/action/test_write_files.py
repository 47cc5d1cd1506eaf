# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The action kubesched.scheduler.write_files: what it writes, what it leaves alone, check mode, diff, bad paths."""

from __future__ import annotations

import os
import stat
from types import SimpleNamespace

import pytest
from ansible.errors import AnsibleActionFail
from ansible.parsing.dataloader import DataLoader
from ansible.playbook.play_context import PlayContext
from ansible.playbook.task import Task
from ansible.template import Templar

from ansible_collections.kubesched.scheduler.plugins.action.write_files import ActionModule


def run(args, check_mode=False, diff=False):
    task = Task()
    task.args = args
    task.check_mode = check_mode
    task.diff = diff
    loader = DataLoader()
    connection = SimpleNamespace(_shell=SimpleNamespace(tmpdir=None))  # the action runs no module: nothing else is used
    action = ActionModule(task, connection, PlayContext(), loader, Templar(loader=loader), None)
    return action.run(task_vars={})


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


FILES = [
    {"path": "10-a.yaml", "content": "kind: A\n"},
    {"path": "config/b.yaml", "content": "b: 1\n", "mode": "0600"},
]


def test_writes_every_file_and_the_directories(tmp_path):
    dest = tmp_path / "out"
    result = run({"dest": str(dest), "files": FILES})
    assert result["changed"] is True
    assert result["written"] == ["10-a.yaml", "config/b.yaml"]
    assert result["files"] == ["10-a.yaml", "config/b.yaml"]
    assert (dest / "10-a.yaml").read_text() == "kind: A\n"
    assert (dest / "config" / "b.yaml").read_text() == "b: 1\n"
    assert mode(dest / "10-a.yaml") == 0o644
    assert mode(dest / "config" / "b.yaml") == 0o600
    assert not list(dest.rglob(".write_files-*"))


def test_a_second_run_changes_nothing(tmp_path):
    run({"dest": str(tmp_path), "files": FILES})
    before = (tmp_path / "10-a.yaml").stat().st_mtime_ns
    result = run({"dest": str(tmp_path), "files": FILES})
    assert result["changed"] is False
    assert result["written"] == []
    assert (tmp_path / "10-a.yaml").stat().st_mtime_ns == before


def test_only_what_differs_is_written_and_a_mode_counts(tmp_path):
    run({"dest": str(tmp_path), "files": FILES})
    os.chmod(tmp_path / "config" / "b.yaml", 0o644)
    result = run({"dest": str(tmp_path), "files": [FILES[0], dict(FILES[1]), {"path": "10-a.yaml.bak", "content": "x"}]})
    assert result["written"] == ["config/b.yaml", "10-a.yaml.bak"]
    assert mode(tmp_path / "config" / "b.yaml") == 0o600


def test_check_mode_writes_nothing_and_diff_shows_the_change(tmp_path):
    run({"dest": str(tmp_path), "files": FILES})
    changed = [{"path": "10-a.yaml", "content": "kind: B\n"}, {"path": "new/c.yaml", "content": "c\n"}]
    result = run({"dest": str(tmp_path), "files": changed}, check_mode=True, diff=True)
    assert result["changed"] is True
    assert result["written"] == ["10-a.yaml", "new/c.yaml"]
    assert (tmp_path / "10-a.yaml").read_text() == "kind: A\n"
    assert not (tmp_path / "new").exists()
    assert [(d["before"], d["after"]) for d in result["diff"]] == [("kind: A\n", "kind: B\n"), ("", "c\n")]
    assert result["diff"][1]["before_header"].endswith("(absent)")


def test_a_number_is_a_mode_as_ansible_builtin_file_reads_it(tmp_path):
    run({"dest": str(tmp_path), "files": [{"path": "a", "content": "", "mode": 0o640}]})
    assert mode(tmp_path / "a") == 0o640


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ([{"path": "../escape.yaml", "content": ""}], "must be a relative path inside dest"),
        ([{"path": "/etc/passwd", "content": ""}], "must be a relative path inside dest"),
        ([{"path": "a", "content": ""}, {"path": "a", "content": "x"}], "is given twice"),
        ([{"path": "a", "content": "", "mode": "rw-r--r--"}], "files[0].mode is 'rw-r--r--': give an octal mode"),
    ],
)
def test_bad_input_is_refused_before_anything_is_written(tmp_path, files, message):
    with pytest.raises(AnsibleActionFail, match=message.replace("[", r"\[").replace("]", r"\]")):
        run({"dest": str(tmp_path / "out"), "files": files})
    assert not (tmp_path / "out").exists()


def test_dest_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(AnsibleActionFail, match="exists and is not a directory"):
        run({"dest": str(tmp_path / "f"), "files": FILES})
