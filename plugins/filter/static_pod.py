# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters over the kube-scheduler static Pod manifest and kubeadm's ClusterConfiguration, YAML text in and out:
kubesched.scheduler.static_pod_patch, static_pod_info, static_pod_trial_command and kubeadm_scheduler_patch.

Each is documented in the YAML file of its name next to this file; the functions are module_utils/static_pod.py.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.kubesched.scheduler.plugins.module_utils import static_pod as _static_pod


def _call(name, function, *args, **kwargs):
    try:
        return function(*args, **kwargs)
    except _static_pod.StaticPodError as error:
        raise AnsibleFilterError(f"{name}: {error}") from None


def static_pod_patch(manifest, config_path, image="", config_sha256="", profiles=None):
    """The manifest with --config=<config_path>, the file's hostPath volume and mount, and optionally another image."""
    return _call(
        "static_pod_patch",
        _static_pod.patch_manifest,
        str(manifest),
        config_path,
        image=image or "",
        config_sha256=config_sha256 or "",
        profiles=list(profiles or []),
    )


def static_pod_info(manifest):
    """Image, command, flags, kubeconfig and leader election of the manifest's kube-scheduler container."""
    return _call("static_pod_info", _static_pod.info, str(manifest))


def static_pod_trial_command(manifest):
    """The container's command with --master at a closed port and --write-config-to=/dev/null."""
    return _call("static_pod_trial_command", _static_pod.trial_command, str(manifest))


def kubeadm_scheduler_patch(cluster_configuration, config_path="", state="present"):
    """kubeadm's ClusterConfiguration with (state=present) or without (absent) scheduler --config and its volume."""
    if state == "absent":
        return _call("kubeadm_scheduler_patch", _static_pod.unpatch_cluster_configuration, str(cluster_configuration))
    return _call("kubeadm_scheduler_patch", _static_pod.patch_cluster_configuration, str(cluster_configuration), config_path)


class FilterModule:
    def filters(self):
        return {
            "static_pod_patch": static_pod_patch,
            "static_pod_info": static_pod_info,
            "static_pod_trial_command": static_pod_trial_command,
            "kubeadm_scheduler_patch": kubeadm_scheduler_patch,
        }
