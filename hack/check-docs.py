#!/usr/bin/env python3
"""Keep the collection's variable documentation from drifting.

Checks, for every role, that defaults/main.yml and meta/argument_specs.yml declare the same
variables with the same defaults; that a variable shared by several roles has one default and one
type everywhere; and that README.md's variables table (between the VARIABLES markers) is the one
generated from the argument specs.

usage: hack/check-docs.py            check (exit 1 with the differences)
       hack/check-docs.py --write    regenerate the README table
"""

import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- BEGIN VARIABLES (hack/check-docs.py --write) -->", "<!-- END VARIABLES -->"


def load(path):
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f) or {}


def collect():
    errors, variables = [], {}
    for role in sorted(p for p in (ROOT / "roles").iterdir() if (p / "meta" / "argument_specs.yml").exists()):
        defaults = load(role / "defaults" / "main.yml") if (role / "defaults" / "main.yml").exists() else {}
        options = load(role / "meta" / "argument_specs.yml")["argument_specs"]["main"].get("options", {})
        for name in sorted(set(defaults) - set(options)):
            errors.append(f"{role.name}: {name} is in defaults/main.yml but not in meta/argument_specs.yml")
        for name, spec in options.items():
            if not name.startswith("kube_scheduler_"):
                errors.append(f"{role.name}: {name} does not start with kube_scheduler_")
            if name not in defaults and not spec.get("required"):
                errors.append(f"{role.name}: {name} is documented but has no default in defaults/main.yml")
            elif name in defaults and spec.get("default") != defaults[name]:
                errors.append(f"{role.name}: {name} defaults to {defaults[name]!r} but argument_specs says {spec.get('default')!r}")
            entry = variables.setdefault(name, {"spec": spec, "roles": []})
            entry["roles"].append(role.name)
            for key in ("default", "type", "choices"):
                if entry["spec"].get(key) != spec.get(key):
                    errors.append(f"{name}: {key} differs between roles {entry['roles'][0]} and {role.name}")
    return errors, variables


def cell(text):
    text = " ".join(text) if isinstance(text, list) else str(text)
    text = re.sub(r"[OCIV]\(([^)=]*)(=[^)]*)?\)", lambda m: f"`{m.group(1)}{m.group(2) or ''}`", text)
    return text.replace("|", "\\|").replace("\n", " ")


def table(variables):
    rows = ["| variable | roles | type | default | description |", "| --- | --- | --- | --- | --- |"]
    for name in sorted(variables):
        spec = variables[name]["spec"]
        default = spec.get("default")
        shown = "" if default is None else f"`{yaml.safe_dump(default, default_flow_style=True).strip().removesuffix('...').strip()}`"
        choices = f" One of {', '.join(map(str, spec['choices']))}." if spec.get("choices") else ""
        roles = ", ".join(variables[name]["roles"])
        rows.append(f"| `{name}` | {roles} | {spec.get('type', 'str')} | {shown} | {cell(spec.get('description', ''))}{choices} |")
    return "\n".join(rows)


def main(argv):
    errors, variables = collect()
    readme_path = ROOT / "README.md"
    readme = readme_path.read_text(encoding="utf-8")
    if BEGIN not in readme or END not in readme:
        errors.append(f"README.md lacks the markers {BEGIN} and {END}")
    else:
        head, rest = readme.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        wanted = f"{head}{BEGIN}\n{table(variables)}\n{END}{tail}"
        if wanted != readme:
            if "--write" in argv:
                readme_path.write_text(wanted, encoding="utf-8")
                print("README.md: variables table regenerated")
            else:
                errors.append("README.md's variables table is out of date: run hack/check-docs.py --write")
    for e in errors:
        print(f"check-docs: {e}", file=sys.stderr)
    print(f"check-docs: {len(variables)} variables in {len({r for v in variables.values() for r in v['roles']})} roles, {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
