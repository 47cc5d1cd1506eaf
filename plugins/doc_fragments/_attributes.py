# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Attribute descriptions shared by the collection's modules (private fragment).

Each module supports check mode and is idempotent, and gives its diff mode's support and any details itself. A module
that only reads names ``_attributes.info_module`` instead, which says so. The Kubernetes modules name ``_k8s`` (or
``_k8s.info_module``) instead: the same attributes, with the note on the connection options."""

from __future__ import annotations

CHECK_MODE = """  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
"""
IDEMPOTENT = """  idempotent:
    description:
      - When run twice in a row outside check mode, with the same arguments, the second invocation
        indicates no change.
    support: full
"""
# A module that changes something: its diff mode's support is its own to give.
ATTRIBUTES = (
    "attributes:\n"
    + CHECK_MODE
    + """  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
"""
    + IDEMPOTENT
)
# A module that only reads.
INFO_ATTRIBUTES = (
    "attributes:\n"
    + CHECK_MODE
    + """    details: This action does not modify state.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: N/A
    details: This action does not modify state.
"""
    + IDEMPOTENT
)


# The sections are composed, so annotated: ansible-test's yamllint reads a fragment's plain assignments as string
# literals from the source; tests/unit/plugins/doc_fragments/test_fragments.py lints the composed text instead.
class ModuleDocFragment:
    DOCUMENTATION: str = "options: {}\n" + ATTRIBUTES

    INFO_MODULE: str = "options: {}\n" + INFO_ATTRIBUTES
