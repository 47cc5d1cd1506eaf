# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action kubesched.scheduler.check_inputs: the input checks of module_utils/inputs.py, on the controller.

Documented in plugins/modules/check_inputs.py.
"""

from __future__ import annotations

from ansible.plugins.action import ActionBase

from ansible_collections.kubesched.scheduler.plugins.module_utils.inputs import CHECKS, check, missing

ARGUMENT_SPEC = {
    "checks": {"type": "list", "elements": "str", "choices": sorted(CHECKS), "required": True},
    "values": {"type": "dict", "required": True},
}


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True
    _supports_async = False

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp  # no module runs, so no temporary directory is used
        dummy, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        checks, values = args["checks"], args["values"]
        result["changed"] = False
        lacking = missing(checks, values)
        if lacking:
            result.update(failed=True, messages=[], msg=f"check_inputs: values lacks {', '.join(lacking)}, which the checks {', '.join(checks)} read")
            return result
        messages = check(checks, values)
        result["messages"] = messages
        if messages:
            result.update(failed=True, msg=" ".join(messages))
        else:
            result["msg"] = f"The {', '.join(checks)} checks passed"
        return result
