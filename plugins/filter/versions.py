# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters that read Kubernetes versions: kubesched.scheduler.scheduler_config_api (the
KubeSchedulerConfiguration apiVersion for a server version) and kubesched.scheduler.kubernetes_minor.

Each is documented in the YAML file of its name next to this file. Versions are read by module_utils/versions.py,
which the input checks (module_utils/inputs.py) use too.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.kubesched.scheduler.plugins.module_utils import versions as _versions

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


def parse_version(version, what="scheduler_config_api"):
    """Return ``(major, minor)`` from "1.34", "v1.34.4", "v1.34.4-gke.1" or a ``/version`` dict (module_utils/versions.py).

    :arg what: the name the error messages start with (the filter's).
    """
    try:
        return _versions.parse_version(version, what)
    except ValueError as error:
        raise AnsibleFilterError(str(error)) from None


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
        return _versions.kubernetes_minor(version)
    except ValueError as error:
        if default is _RAISE:
            raise AnsibleFilterError(str(error)) from None
        return default


class FilterModule:
    def filters(self):
        return {"scheduler_config_api": scheduler_config_api, "kubernetes_minor": kubernetes_minor}
