# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters that read Kubernetes versions: kubesched.scheduler.scheduler_config_api (the
KubeSchedulerConfiguration apiVersion for a server version) and kubesched.scheduler.kubernetes_minor.

Each is documented in the YAML file of its name next to this file.
"""

from __future__ import annotations

import re

from ansible.errors import AnsibleFilterError

GROUP = "kubescheduler.config.k8s.io"

# (first minor, apiVersion) from the newest down; 1.x releases older than the last entry are refused.
# v1 is GA since 1.25; v1beta3 came in 1.23 (removed in 1.29); v1beta2 came in 1.22 (removed in 1.28).
# Each release is given the newest version it serves.
API_VERSIONS = (
    (25, f"{GROUP}/v1"),
    (23, f"{GROUP}/v1beta3"),
    (22, f"{GROUP}/v1beta2"),
)
OLDEST = API_VERSIONS[-1][0]

_VERSION_RE = re.compile(r"^\s*v?(?P<major>\d+)\.(?P<minor>\d+)\+?(?:\.\d+)?(?:[-+.].*)?\s*$")


def parse_version(version, what="scheduler_config_api"):
    """Return ``(major, minor)`` from "1.34", "v1.34.4", "v1.34.4-gke.1" or a ``/version`` dict.

    :arg what: the name the error messages start with (the filter's).
    """
    if isinstance(version, bool):
        raise AnsibleFilterError(f"{what}: {version!r} is not a Kubernetes version")
    if isinstance(version, float):
        raise AnsibleFilterError(
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
        raise AnsibleFilterError(f"{what}: cannot read a Kubernetes version from {version!r}")
    match = _VERSION_RE.match(str(version))
    if not match:
        raise AnsibleFilterError(f'{what}: cannot read a Kubernetes version from {version!r} (expected "1.34" or "v1.34.4")')
    return int(match.group("major")), int(match.group("minor"))


def scheduler_config_api(version):
    """The KubeSchedulerConfiguration apiVersion a kube-scheduler of ``version`` accepts."""
    major, minor = parse_version(version)
    if major == 1:
        for first_minor, api_version in API_VERSIONS:
            if minor >= first_minor:
                return api_version
    raise AnsibleFilterError(
        f"scheduler_config_api: Kubernetes {major}.{minor} (from {version!r}) is not supported: "
        f"a second scheduler needs Kubernetes 1.{OLDEST} or newer (KubeSchedulerConfiguration "
        f"{GROUP}/v1beta2 or later with profiles[].schedulerName)"
    )


_RAISE = object()


def kubernetes_minor(version, default=_RAISE):
    """The minor of a Kubernetes 1.x ``version`` (37 for "v1.37.2"), for choices that depend on the release.

    A version it cannot read raises an error naming it, or returns ``default`` when one is given.
    """
    try:
        major, minor = parse_version(version, "kubernetes_minor")
        if major != 1:
            raise AnsibleFilterError(f"kubernetes_minor: Kubernetes {major}.{minor} (from {version!r}) is not a 1.x release")
    except AnsibleFilterError:
        if default is _RAISE:
            raise
        return default
    return minor


class FilterModule:
    def filters(self):
        return {"scheduler_config_api": scheduler_config_api, "kubernetes_minor": kubernetes_minor}
