# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The base of the collection's actions that run on the controller only: no connection, no module run, no temporary
directory on the host. A subclass declares ARGUMENT_SPEC and implements act(args, result)."""

from __future__ import annotations

from ansible.plugins.action import ActionBase


class ControllerAction(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True
    _supports_async = False
    ARGUMENT_SPEC: dict = {}

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp  # no module runs, so no temporary directory is used
        dummy, args = self.validate_argument_spec(argument_spec=self.ARGUMENT_SPEC)
        result["changed"] = False
        return self.act(args, result)

    def act(self, args, result):
        """Fill ``result`` from the validated ``args`` and return it."""
        raise NotImplementedError
