# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The deploy engine's failure: a message for the user and what goes into the module's result."""

from __future__ import annotations


class EngineError(Exception):
    """A failure with a message for the user; ``result`` is merged into the module's result."""

    def __init__(self, msg, **result):
        super().__init__(msg)
        self.msg = msg
        self.result = result
