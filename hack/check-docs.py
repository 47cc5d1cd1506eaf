#!/usr/bin/env python3
"""Keep the collection's variable documentation from drifting.

Each public variable is declared once: in the defaults/main.yml and meta/argument_specs.yml of the role
that owns it (kubesched.scheduler.common for the variables several roles read). Checks, for every role,
that its defaults and its argument spec declare the same variables with the same defaults, and that no
variable is declared by two roles; that docs/variables.md's table (between the VARIABLES markers) is the one
generated from the argument specs, with the roles that read each variable; that the include example in README.md is
examples/playbooks/infrastructure.yml, the play molecule runs; that README.md and docs/ci.md stay within their sizes;
and that the user documentation speaks of the collection, not of how it was made.

usage: hack/check-docs.py            check (exit 1 with the differences)
       hack/check-docs.py --write    regenerate the variables table
"""

import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- BEGIN VARIABLES (hack/check-docs.py --write) -->", "<!-- END VARIABLES -->"
EXAMPLE = "examples/playbooks/infrastructure.yml"
VARIABLES_PAGE = "docs/variables.md"
# Pages a user reads first, and the most each may weigh: details go to pages of their own.
SIZES = {"README.md": 15 * 1024, "docs/ci.md": 4 * 1024}
# Words of the project's own making (the material it started from), which mean nothing to a user.
MAKING = re.compile(r"\b(?:the seeds?|seed's|study note|the lab's|the lab\b)", re.IGNORECASE)
PUBLIC_DOCS = ["README.md", "docs/*.md", "docs/docsite/rst/*.rst", "roles/*/README.md", "roles/*/meta/argument_specs.yml", "plugins/modules/*.py"]
SHARED = "common"


def load(path):
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f) or {}


NAME = re.compile(r"\b(?:__)?kube_scheduler_[a-z0-9_]+|\bchecks\.yml\b")


def readers(role_dirs):
    """{variable: roles that read it}, directly or through a default, an internal variable or the shared checks."""
    refers = {}  # a name -> the names its value (or, for checks.yml, its tasks) refer to
    for role in role_dirs:
        for path in (role / "defaults" / "main.yml", role / "vars" / "main.yml"):
            if path.exists():
                for name, value in load(path).items():
                    refers.setdefault(name, set()).update(NAME.findall(yaml.safe_dump(value)))
    refers["checks.yml"] = set(NAME.findall((ROOT / "roles" / SHARED / "tasks" / "checks.yml").read_text(encoding="utf-8")))
    found = {}
    for role in role_dirs:
        if role.name == SHARED:
            continue
        todo = set()
        for path in role.rglob("*"):
            if path.is_file() and path.parts[-2] in ("tasks", "templates"):
                todo.update(NAME.findall(path.read_text(encoding="utf-8")))
        seen = set()
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo.update(refers.get(name, ()))
        for name in seen:
            found.setdefault(name, set()).add(role.name)
    return found


def collect():
    errors, variables = [], {}
    role_dirs = sorted(p for p in (ROOT / "roles").iterdir() if (p / "meta" / "argument_specs.yml").exists())
    for role in role_dirs:
        defaults = load(role / "defaults" / "main.yml") if (role / "defaults" / "main.yml").exists() else {}
        options = load(role / "meta" / "argument_specs.yml")["argument_specs"]["main"].get("options") or {}
        for name in sorted(set(defaults) - set(options)):
            errors.append(f"{role.name}: {name} is in defaults/main.yml but not in meta/argument_specs.yml")
        for name, spec in options.items():
            if not name.startswith("kube_scheduler_"):
                errors.append(f"{role.name}: {name} does not start with kube_scheduler_")
            if name not in defaults and not spec.get("required"):
                errors.append(f"{role.name}: {name} is documented but has no default in defaults/main.yml")
            elif name in defaults and "default" not in spec and isinstance(defaults[name], str) and "{{" in defaults[name]:
                pass  # a default computed from another variable (a preset): the description says it
            elif name in defaults and spec.get("default") != defaults[name]:
                errors.append(f"{role.name}: {name} defaults to {defaults[name]!r} but argument_specs says {spec.get('default')!r}")
            if name in variables:
                errors.append(f"{name} is declared by the roles {variables[name]['owner']} and {role.name}: declare it once ({SHARED} when shared)")
            variables[name] = {"spec": spec, "owner": role.name}
    used = readers(role_dirs)
    for name, entry in variables.items():
        entry["roles"] = sorted(used.get(name, set())) or [entry["owner"]]
        if entry["owner"] != SHARED and set(entry["roles"]) - {entry["owner"]}:
            errors.append(f"{name} is read by {', '.join(entry['roles'])} but declared by {entry['owner']} alone: move it to {SHARED}")
    return errors, variables


def cell(text):
    text = " ".join(text) if isinstance(text, list) else str(text)
    text = re.sub(r"[OCIVE]\(([^)=]*)(=[^)]*)?\)", lambda m: f"`{m.group(1)}{m.group(2) or ''}`", text)
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
    page_path = ROOT / VARIABLES_PAGE
    page = page_path.read_text(encoding="utf-8")
    if BEGIN not in page or END not in page:
        errors.append(f"{VARIABLES_PAGE} lacks the markers {BEGIN} and {END}")
    else:
        head, rest = page.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        wanted = f"{head}{BEGIN}\n{table(variables)}\n{END}{tail}"
        if wanted != page:
            if "--write" in argv:
                page_path.write_text(wanted, encoding="utf-8")
                print(f"{VARIABLES_PAGE}: variables table regenerated")
            else:
                errors.append(f"{VARIABLES_PAGE}'s variables table is out of date: run hack/check-docs.py --write")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = "\n".join(line for line in (ROOT / EXAMPLE).read_text(encoding="utf-8").splitlines() if line != "---" and not line.startswith("#"))
    if f"({EXAMPLE})" not in readme or f"```yaml\n{example.strip()}\n```" not in readme:
        errors.append(f"README.md does not show {EXAMPLE} as it is (a link to it, then the play without its comments in a yaml block)")
    for name, limit in SIZES.items():
        size = (ROOT / name).stat().st_size
        if size > limit:
            errors.append(f"{name} is {size} bytes, over its {limit}: move the details to a page of their own and link it")
    for pattern in PUBLIC_DOCS:
        for path in sorted(ROOT.glob(pattern)):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if MAKING.search(line):
                    errors.append(f"{path.relative_to(ROOT)}:{number}: speaks of how the project was made ({MAKING.search(line).group(0)!r}): say what it does")
    for e in errors:
        print(f"check-docs: {e}", file=sys.stderr)
    owners = {v["owner"] for v in variables.values()}
    print(f"check-docs: {len(variables)} variables declared once each in {len(owners)} roles, {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
