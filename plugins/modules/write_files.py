#!/usr/bin/python
# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

# The documentation of the action plugin plugins/action/write_files.py, which does the work on the controller.

from __future__ import annotations

DOCUMENTATION = r"""
module: write_files
short_description: Write rendered files under a directory of the controller, in one action
version_added: 0.2.0
author:
  - kubesched maintainers (@kubesched)
description:
  - Writes each of O(files) under O(dest) on the Ansible controller, creating the directories it needs, in one action
    and with no module run; the roles' render mode writes every manifest with it.
  - A file whose content and mode are already those given is left alone; the others are written atomically (a
    temporary file beside it, then a rename).
  - It never removes a file.
options:
  dest:
    description:
      - The directory the paths of O(files) are relative to, on the controller. It and the subdirectories the files
        need are created as they are written (not in check mode).
    type: path
    required: true
  files:
    description:
      - The files to write.
    type: list
    elements: dict
    required: true
    suboptions:
      path:
        description:
          - The file's path relative to O(dest); it may name subdirectories, and may not leave O(dest) (no C(..), not
            absolute).
        type: str
        required: true
      content:
        description:
          - The file's content, as text (encoded as UTF-8).
        type: str
        required: true
      mode:
        description:
          - The file's permissions, an octal string such as V('0644'); a number is read as M(ansible.builtin.file) reads one.
        type: raw
        default: "0644"
  directory_mode:
    description:
      - The permissions of the directories it creates, an octal string.
    type: raw
    default: "0755"
extends_documentation_fragment:
  - kubesched.scheduler._attributes
attributes:
  diff_mode:
    support: full
    details: One diff per file that would change, its content before and after.
notes:
  - The files are written on the controller whatever the task's host, like the output of a C(delegate_to=localhost)
    task; the roles run it with C(run_once=true).
seealso:
  - module: ansible.builtin.template
    description: Templates one file on the host, with a module run for each.
"""

EXAMPLES = r"""
- name: Write the manifests the role would apply
  kubesched.scheduler.write_files:
    dest: /tmp/manifests
    files:
      - path: 10-serviceaccount.yaml
        content: "{{ lookup('ansible.builtin.template', 'serviceaccount.yaml.j2') }}"
      - path: config/my-scheduler-config.yaml
        content: "{{ my_config }}"
        mode: "0600"
  run_once: true
"""

RETURN = r"""
dest:
  description: The directory the files were written under.
  returned: always
  type: str
  sample: /tmp/manifests
files:
  description: The paths of every file given, relative to RV(dest), in the order given.
  returned: always
  type: list
  elements: str
  sample: [10-serviceaccount.yaml, config/my-scheduler-config.yaml]
written:
  description: The paths of the files that were written (or would be, in check mode), relative to RV(dest).
  returned: always
  type: list
  elements: str
  sample: [config/my-scheduler-config.yaml]
"""
