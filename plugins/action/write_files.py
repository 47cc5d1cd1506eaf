# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action kubesched.scheduler.write_files: write rendered files under a directory of the controller, in one action.

Documented in plugins/modules/write_files.py.
"""

from __future__ import annotations

import os
import stat
import tempfile

from ansible.errors import AnsibleActionFail
from ansible.module_utils.common.text.converters import to_bytes, to_text

from ansible_collections.kubesched.scheduler.plugins.plugin_utils.controller_action import ControllerAction

ARGUMENT_SPEC = {
    "dest": {"type": "path", "required": True},
    "files": {
        "type": "list",
        "elements": "dict",
        "required": True,
        "options": {
            "path": {"type": "str", "required": True},
            "content": {"type": "str", "required": True},
            "mode": {"type": "raw", "default": "0644"},
        },
    },
    "directory_mode": {"type": "raw", "default": "0755"},
}


def octal(value, name):
    """A file mode given as an octal string ('0644'), or as a number the way ansible.builtin.file reads one (YAML's
    unquoted 0644 is the number 420, which is 0o644)."""
    if isinstance(value, int) and not isinstance(value, bool):
        mode = value
    else:
        try:
            mode = int(str(value), 8)
        except ValueError:
            raise AnsibleActionFail(f"write_files: {name} is {value!r}: give an octal mode such as '0644'") from None
    if not 0 <= mode <= 0o7777:
        raise AnsibleActionFail(f"write_files: {name} is {value!r}: give an octal mode such as '0644'")
    return mode


def target(dest, path):
    """``dest/path``, refusing a path that leaves ``dest``."""
    if os.path.isabs(path) or ".." in path.split("/") or not path.strip("/"):
        raise AnsibleActionFail(f"write_files: files[].path {path!r} must be a relative path inside dest, without '..'")
    return os.path.join(dest, path)


def current(path):
    """(content bytes or None, mode or None) of the file at ``path``."""
    try:
        with open(path, "rb") as handle:
            return handle.read(), stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return None, None


def write(path, data, mode):
    """Write atomically: a temporary file beside it, then a rename."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".write_files-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class ActionModule(ControllerAction):
    ARGUMENT_SPEC = ARGUMENT_SPEC

    def act(self, args, result):
        dest, check_mode = args["dest"], self._task.check_mode
        directory_mode = octal(args["directory_mode"], "directory_mode")
        plans, seen = [], set()
        for index, item in enumerate(args["files"]):
            path = target(dest, item["path"])
            if path in seen:
                raise AnsibleActionFail(f"write_files: files[{index}].path {item['path']!r} is given twice")
            seen.add(path)
            plans.append((item["path"], path, to_bytes(item["content"], errors="surrogate_or_strict"), octal(item["mode"], f"files[{index}].mode")))
        if os.path.exists(dest) and not os.path.isdir(dest):
            raise AnsibleActionFail(f"write_files: dest {dest} exists and is not a directory")
        written, diffs = [], []
        for relative, path, data, mode in plans:
            before, before_mode = current(path)
            if before == data and before_mode == mode:
                continue
            written.append(relative)
            if self._task.diff:
                diffs.append(
                    {
                        "before_header": path if before is not None else f"{path} (absent)",
                        "after_header": path,
                        "before": to_text(before or b"", errors="surrogate_or_replace"),
                        "after": to_text(data, errors="surrogate_or_replace"),
                    }
                )
            if not check_mode:
                directory = os.path.dirname(path)
                if not os.path.isdir(directory):
                    os.makedirs(directory, mode=directory_mode, exist_ok=True)
                write(path, data, mode)
        result.update(changed=bool(written), dest=dest, written=written, files=[relative for relative, *dummy in plans])
        if diffs:
            result["diff"] = diffs
        return result
