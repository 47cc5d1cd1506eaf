# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Attribute descriptions shared by the collection's modules (private fragment).

Each module supports check mode and is idempotent, and gives its diff mode's support and any details itself. A module
that only reads names ``_attributes.info_module`` too, which says so. The Kubernetes modules name ``_k8s`` instead of
``_attributes``: it carries the same attributes (ansible-test reads a fragment as one plain string, so they are written
there again) and the note on the connection options."""

from __future__ import annotations


class ModuleDocFragment:
    DOCUMENTATION = r"""
options: {}
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
  idempotent:
    description:
      - When run twice in a row outside check mode, with the same arguments, the second invocation
        indicates no change.
    support: full
"""

    INFO_MODULE = r"""
options: {}
attributes:
  check_mode:
    details: This action does not modify state.
  diff_mode:
    support: N/A
    details: This action does not modify state.
"""
