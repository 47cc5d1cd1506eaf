# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The deploy role's inputs as its tests see them: the roles' defaults and argument specs, and the values a play
resolves (role_values)."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]
ROLES = ROOT / "roles"


def _load(path):
    return yaml.safe_load(path.read_text()) or {}


def role_options(role):
    return _load(ROLES / role / "meta" / "argument_specs.yml")["argument_specs"]["main"]["options"]


DEFAULTS = {**_load(ROLES / "common" / "defaults" / "main.yml"), **_load(ROLES / "deploy" / "defaults" / "main.yml")}
SPEC = {**role_options("common"), **role_options("deploy")}
PRESETS = _load(ROLES / "deploy" / "vars" / "main.yml")["__kube_scheduler_tuning_presets"]

# The templated defaults, resolved as the roles resolve them (after the row's variables are merged).
TEMPLATED = {
    "kube_scheduler_lock_name": lambda values: values["kube_scheduler_name"],
    "kube_scheduler_image_tag": lambda values: values["kube_scheduler_version"],
    "kube_scheduler_priority_class_name": lambda values: (
        "system-cluster-critical" if values["kube_scheduler_namespace"] == "kube-system" else values["kube_scheduler_name"] + "-critical"
    ),
    **{
        f"kube_scheduler_{setting}": (lambda values, setting=setting: PRESETS.get(values["kube_scheduler_tuning"], PRESETS["default"])[setting])
        for setting in ("client_qps", "client_burst", "parallelism", "percentage_of_nodes_to_score")
    },
}


def role_values(given):
    """The role defaults with ``given`` on top, the templated defaults that were not given resolved."""
    values = {**DEFAULTS, **given}
    for name, resolve in TEMPLATED.items():
        if name not in given:
            values[name] = resolve(values)
    return values
