# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A fact a role sets (set_fact outlives the role and outranks role vars) must not carry the name of another role's
variable: a play that includes the deploy role and then the image role for another scheduler would otherwise have
the image role use the deploy role's leftover value."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]


def set_facts(role):
    names = set()

    def walk(node):
        if isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            for key, value in node.items():
                if key in ("ansible.builtin.set_fact", "set_fact") and isinstance(value, dict):
                    names.update(k for k in value if k != "cacheable")
                else:
                    walk(value)

    for path in (ROOT / "roles" / role / "tasks").glob("*.yml"):
        walk(yaml.safe_load(path.read_text()))
    return names


def role_variables(role):
    names = set()
    for sub in ("vars", "defaults"):
        path = ROOT / "roles" / role / sub / "main.yml"
        if path.exists():
            names.update(yaml.safe_load(path.read_text()) or {})
    return names


def test_no_fact_shadows_a_variable_of_another_role():
    roles = sorted(p.name for p in (ROOT / "roles").iterdir() if (p / "tasks").is_dir())
    clashes = [
        f"{role} sets {name}, a variable of {other}"
        for role in roles
        for name in set_facts(role)
        for other in roles
        if other != role and name in role_variables(other)
    ]
    assert clashes == []
