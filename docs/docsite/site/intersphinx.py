#!/usr/bin/env python3
# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write a Sphinx inventory (objects.inv) of the Ansible docsite for an offline docs build.

The collection's pages link to labels of the Ansible docsite: pages of ansible-core's
documentation (`common_return_values`, `ansible_configuration_settings`, used by antsibull-docs'
templates) and plugin pages of other collections (M(kubernetes.core.k8s_info) in a module's
documentation, or M(community.okd.k8s_auth) in a doc fragment it uses). Sphinx resolves them with
intersphinx, which downloads the inventory from the docsite. Where that site cannot be reached,
this script writes an inventory of exactly the labels of other collections that the RST files in
RST_DIR refer to, with the docsite's URL layout (collections/NS/NAME/PLUGIN_TYPE.html, and
#ANCHOR for a label's __ANCHOR part). It does not check that those plugins exist: `antsibull-docs
lint-collection-docs --validate-collection-refs all` does, before the build (`make docs`).

usage: intersphinx.py OUTPUT RST_DIR COLLECTION   (COLLECTION: the one documented, not linked;
       `make docs` runs it between antsibull-docs and sphinx-build)
"""

from __future__ import annotations

import pathlib
import re
import sys
import zlib

# Labels of ansible-core's own documentation that antsibull-docs' templates refer to.
CORE_LABELS = {
    "common_return_values": ("reference_appendices/common_return_values.html", "Return Values"),
    "ansible_configuration_settings": ("reference_appendices/config.html", "Ansible Configuration Settings"),
    # the note of a module that has an action plugin of the same name (check_inputs, write_files)
    "action_plugins": ("plugins/action.html", "Action plugins"),
}
# A reference to a label of a collection: ansible_collections.NS.NAME.REST.
REFERENCE = re.compile(r"ansible_collections\.([a-z0-9_]+)\.([a-z0-9_]+)\.([A-Za-z0-9_.-]*[A-Za-z0-9_-])")


def referenced(rst_dir: str, own: str) -> set[tuple[str, str, str]]:
    """(namespace, name, rest) of every label of another collection the RST files refer to."""
    found = set()
    for rst in pathlib.Path(rst_dir).rglob("*.rst"):
        found.update(REFERENCE.findall(rst.read_text(encoding="utf-8")))
    return {ref for ref in found if f"{ref[0]}.{ref[1]}" != own}


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__[__doc__.index("usage:"):].strip(), file=sys.stderr)
        return 2
    output, rst_dir, own = sys.argv[1:]
    lines = [f"{label} std:label -1 {uri} {title}" for label, (uri, title) in CORE_LABELS.items()]
    refs = referenced(rst_dir, own)
    for ns, name, rest in sorted(refs):
        page, _, anchor = rest.partition("__")
        uri = f"collections/{ns}/{name}/{page}.html" + (f"#{anchor}" if anchor else "")
        lines.append(f"ansible_collections.{ns}.{name}.{rest} std:label -1 {uri} -")
    header = "# Sphinx inventory version 2\n# Project: Ansible\n# Version: devel\n"
    header += "# The remainder of this file is compressed using zlib.\n"
    with open(output, "wb") as inv:
        inv.write(header.encode())
        inv.write(zlib.compress(("\n".join(lines) + "\n").encode()))
    others = sorted({f"{ns}.{name}" for ns, name, _ in refs})
    print(f"{output}: {len(refs)} labels of {', '.join(others) or 'no other collection'} and "
          f"{len(CORE_LABELS)} of ansible-core's docs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
