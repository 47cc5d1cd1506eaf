# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action kubesched.scheduler.check_inputs: the input checks of module_utils/inputs.py, on the controller.

Documented in plugins/modules/check_inputs.py.
"""

from __future__ import annotations


from ansible_collections.kubesched.scheduler.plugins.module_utils.inputs import CHECKS, check, missing
from ansible_collections.kubesched.scheduler.plugins.plugin_utils.controller_action import ControllerAction

ARGUMENT_SPEC = {
    "checks": {"type": "list", "elements": "str", "choices": sorted(CHECKS), "required": True},
    "values": {"type": "dict", "required": True},
}


class ActionModule(ControllerAction):
    ARGUMENT_SPEC = ARGUMENT_SPEC

    def act(self, args, result):
        checks, values = args["checks"], args["values"]
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
