# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Attribute descriptions shared by the collection's modules (private fragment)."""

from __future__ import annotations


class ModuleDocFragment:
    DOCUMENTATION = r"""
options: {}
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
  idempotent:
    description:
      - When run twice in a row outside check mode, with the same arguments, the second invocation
        indicates no change.
"""

    INFO_MODULE = r"""
options: {}
attributes:
  check_mode:
    support: full
    details: This action does not modify state.
  diff_mode:
    support: N/A
    details: This action does not modify state.
  idempotent:
    support: full
"""
