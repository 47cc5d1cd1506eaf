# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kubernetes versions ("1.34", "v1.34.4", a ``/version`` dict) read as (major, minor).

Shared by the filters of plugins/filter/versions.py and the input checks (inputs.py); pure Python, errors are
``ValueError`` naming the value.
"""

from __future__ import annotations

import re

_VERSION_RE = re.compile(r"^\s*v?(?P<major>\d+)\.(?P<minor>\d+)\+?(?:\.\d+)?(?:[-+.].*)?\s*$")


def parse_version(version, what="scheduler_config_api"):
    """Return ``(major, minor)`` from "1.34", "v1.34.4", "v1.34.4-gke.1" or a ``/version`` dict.

    :arg what: the name the error messages start with (the filter's).
    """
    if isinstance(version, bool):
        raise ValueError(f"{what}: {version!r} is not a Kubernetes version")
    if isinstance(version, float):
        raise ValueError(
            f"{what}: the Kubernetes version {version!r} is a number, which loses trailing zeros "
            '(1.30 becomes 1.3); quote it, for example kube_scheduler_cluster_version: "1.30"'
        )
    if isinstance(version, dict):
        major = str(version.get("major", "")).strip()
        minor = str(version.get("minor", "")).strip()
        if major and minor:
            # Managed clusters report minors like "34+".
            major_digits = re.match(r"^(\d+)", major)
            minor_digits = re.match(r"^(\d+)", minor)
            if major_digits and minor_digits:
                return int(major_digits.group(1)), int(minor_digits.group(1))
        git_version = version.get("gitVersion") or version.get("git_version")
        if git_version:
            return parse_version(str(git_version), what)
        raise ValueError(f"{what}: cannot read a Kubernetes version from {version!r}")
    match = _VERSION_RE.match(str(version))
    if not match:
        raise ValueError(f'{what}: cannot read a Kubernetes version from {version!r} (expected "1.34" or "v1.34.4")')
    return int(match.group("major")), int(match.group("minor"))


def kubernetes_minor(version):
    """The minor of a Kubernetes 1.x ``version`` (37 for "v1.37.2"); ``ValueError`` for what it cannot read."""
    major, minor = parse_version(version, "kubernetes_minor")
    if major != 1:
        raise ValueError(f"kubernetes_minor: Kubernetes {major}.{minor} (from {version!r}) is not a 1.x release")
    return minor
