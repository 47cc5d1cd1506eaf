# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kube-scheduler static Pod manifest of a control-plane node (kubeadm's
/etc/kubernetes/manifests/kube-scheduler.yaml), read and patched as YAML text, and the kubeadm
ClusterConfiguration that regenerates it. Pure functions: text in, text out, no I/O.

The role kubesched.scheduler.main_scheduler uses them through the filters of plugins/filter/static_pod.py.

Patching the manifest (``patch_manifest``):

* the kube-scheduler container gets ``--config=<path>``; the flags the configuration file now owns
  (``--kubeconfig``, ``--leader-elect`` and the other leader-election flags, an older ``--config``) go;
  every other flag stays where it was (``--authentication-kubeconfig``, ``--authorization-kubeconfig``,
  ``--bind-address``, ...);
* a hostPath volume of the file (type ``File``) and its read-only mount at the same path;
* optionally another image;
* the annotation ``kubesched.io/config-sha256`` on the pod, so that a new configuration is a new pod
  spec: the kubelet restarts a static pod only when its manifest changes;
* the annotation ``kubesched.io/scheduler-profiles`` (the schedulerNames of the file's profiles, comma-separated):
  the file is on the node, and the mirror pod's annotations are what the API server can tell of it
  (``kubesched.scheduler.scheduler_info`` reads them).

The result is a fixed point: patching a patched manifest with the same arguments gives the same text.
"""

from __future__ import annotations

import copy

from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s import predicates

try:
    import yaml
except ImportError:  # only the controller's filters (plugins/filter/static_pod.py) use this, where ansible-core's PyYAML is
    yaml = None

VOLUME = "kubesched-config"
HASH_ANNOTATION = "kubesched.io/config-sha256"
PROFILES_ANNOTATION = "kubesched.io/scheduler-profiles"
# The flags the configuration file owns once --config is given (kube-scheduler's deprecated and
# leader-election flags, which would override the file's values).
OWNED_FLAGS = (
    "--config",
    "--kubeconfig",
    "--master",
    "--leader-elect",
    "--leader-elect-lease-duration",
    "--leader-elect-renew-deadline",
    "--leader-elect-retry-period",
    "--leader-elect-resource-lock",
    "--leader-elect-resource-name",
    "--leader-elect-resource-namespace",
)
DEFAULT_KUBECONFIG = "/etc/kubernetes/scheduler.conf"


class StaticPodError(ValueError):
    """A manifest or ClusterConfiguration that cannot be read or patched."""


def load(text, what="manifest"):
    try:
        obj = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise StaticPodError(f"the {what} is not YAML: {error}") from None
    if not isinstance(obj, dict):
        raise StaticPodError(f"the {what} is not a YAML mapping")
    return obj


def dump(obj):
    """YAML the way kubeadm writes it: keys in their order, lists not indented under their key."""
    return yaml.safe_dump(obj, sort_keys=False, default_flow_style=False)


def manifest_scheduler_container(pod):
    """The kube-scheduler container of a static Pod manifest (its name, or the executable of its command); raises
    StaticPodError when the manifest is not a Pod or has none."""
    if pod.get("kind") != "Pod":
        raise StaticPodError(f"the manifest is a {pod.get('kind')!r}, not a Pod")
    container = predicates.scheduler_container(pod.get("spec"), exact=True)
    if container is None:
        raise StaticPodError("the manifest has no kube-scheduler container")
    return container


def flag_name(arg):
    return str(arg).split("=", 1)[0]


def flags(argv):
    """``{"--name": "value"}`` of the ``--name=value`` arguments (``--name`` alone is "true")."""
    given = [arg for arg in argv if str(arg).startswith("--")]
    return {f"--{name}": value for name, value in predicates.parse_flags(given, separate_values=False).items()}


def _argv_key(container):
    """The list holding the flags: command (kubeadm) or args."""
    command = container.get("command") or []
    if any(str(arg).startswith("--") for arg in command) or not container.get("args"):
        return "command"
    return "args"


def info(text):
    """What the role reads from a manifest: image, command, flags, the kubeconfig and leader election it runs with."""
    pod = load(text)
    container = manifest_scheduler_container(pod)
    argv = list(container.get("command") or []) + list(container.get("args") or [])
    found = flags(argv)
    return {
        "image": container.get("image") or "",
        "command": argv,
        "flags": found,
        "config": found.get("--config", ""),
        "kubeconfig": found.get("--kubeconfig", DEFAULT_KUBECONFIG),
        "leader_elect": found.get("--leader-elect", "true").lower() not in ("false", "0", "f"),
        "config_sha256": ((pod.get("metadata") or {}).get("annotations") or {}).get(HASH_ANNOTATION, ""),
        "host_paths": [volume["hostPath"]["path"] for volume in (pod.get("spec") or {}).get("volumes") or [] if (volume.get("hostPath") or {}).get("path")],
    }


def _insert_sorted(argv, arg):
    """Insert ``arg`` before the first flag that sorts after it (kubeadm sorts its flags), else at the end."""
    for index, existing in enumerate(argv):
        if str(existing).startswith("--") and flag_name(existing) > flag_name(arg):
            return argv[:index] + [arg] + argv[index:]
    return argv + [arg]


def _set_named(items, item):
    """Replace the entry of ``item``'s name in a list of named dicts, or append it."""
    for index, existing in enumerate(items):
        if existing.get("name") == item["name"]:
            items[index] = item
            return items
    items.append(item)
    return items


def _plain(value):
    return "".join(str(value or ""))


def patch_pod(pod, config_path, image="", config_sha256="", volume=VOLUME, profiles=()):
    """The Pod (a dict, not changed) with the configuration of ``patch_manifest``."""
    profiles = ",".join(_plain(name) for name in profiles or () if name)
    # plain str: YAML cannot represent the str subclasses templating hands over (ansible-core's data tags)
    config_path, image, config_sha256, volume = (_plain(value) for value in (config_path, image, config_sha256, volume))
    if not str(config_path).startswith("/"):
        raise StaticPodError(f"the configuration path {config_path!r} is not absolute")
    pod = copy.deepcopy(pod)
    container = manifest_scheduler_container(pod)
    key = _argv_key(container)
    argv = [arg for arg in container.get(key) or [] if flag_name(arg) not in OWNED_FLAGS]
    container[key] = _insert_sorted(argv, f"--config={config_path}")
    if image:
        container["image"] = image
    mounts = [m for m in container.get("volumeMounts") or [] if m.get("name") == volume or m.get("mountPath") != config_path]
    container["volumeMounts"] = _set_named(mounts, {"mountPath": config_path, "name": volume, "readOnly": True})
    spec = pod.setdefault("spec", {})
    volumes = list(spec.get("volumes") or [])
    spec["volumes"] = _set_named(volumes, {"hostPath": {"path": config_path, "type": "File"}, "name": volume})
    metadata = pod.setdefault("metadata", {})
    annotations = dict(metadata.get("annotations") or {})
    for key, value in ((HASH_ANNOTATION, config_sha256), (PROFILES_ANNOTATION, profiles)):
        if value:
            annotations[key] = value
    if annotations:
        metadata["annotations"] = annotations
    return pod


def patch_manifest(text, config_path, image="", config_sha256="", volume=VOLUME, profiles=()):
    """The manifest ``text`` with kube-scheduler reading ``config_path`` (see the module's docstring)."""
    return dump(patch_pod(load(text), config_path, image=image, config_sha256=config_sha256, volume=volume, profiles=profiles))


def trial_command(text, extra=("--master=https://127.0.0.1:9", "--write-config-to=/dev/null")):
    """The command of a patched manifest's container with the trial's flags: kube-scheduler loads, defaults and
    validates the configuration, writes it to /dev/null and exits before it connects to anything."""
    container = manifest_scheduler_container(load(text))
    argv = list(container.get("command") or []) + list(container.get("args") or [])
    return [arg for arg in argv if flag_name(arg) not in ("--master", "--write-config-to")] + list(extra)


# --- kubeadm's ClusterConfiguration ----------------------------------------------------------------


def patch_cluster_configuration(text, config_path, volume=VOLUME):
    """kubeadm's ClusterConfiguration (the ``ClusterConfiguration`` key of the ConfigMap kube-system/kubeadm-config)
    with ``scheduler.extraArgs`` config=<path> and the file as ``scheduler.extraVolumes``, so that
    ``kubeadm upgrade`` and ``kubeadm init phase control-plane scheduler`` write a manifest that reads it.

    kubeadm.k8s.io/v1beta4 (kubeadm 1.31+) takes extraArgs as a list of ``{name, value}``, v1beta3 as a map.
    kubeadm still writes --kubeconfig and --leader-elect=true; kube-scheduler lets such flags override the file,
    which is why the file keeps kubeadm's values for them.
    """
    config_path, volume = _plain(config_path), _plain(volume)
    config = load(text, "ClusterConfiguration")
    if config.get("kind") != "ClusterConfiguration":
        raise StaticPodError(f"not a ClusterConfiguration but {config.get('kind')!r}")
    api = str(config.get("apiVersion") or "")
    scheduler = config.setdefault("scheduler", {}) or {}
    config["scheduler"] = scheduler
    if api.endswith("/v1beta3"):
        args = dict(scheduler.get("extraArgs") or {})
        args["config"] = config_path
        scheduler["extraArgs"] = args
    else:
        args = [arg for arg in scheduler.get("extraArgs") or [] if arg.get("name") != "config"]
        args.append({"name": "config", "value": config_path})
        scheduler["extraArgs"] = args
    volumes = list(scheduler.get("extraVolumes") or [])
    scheduler["extraVolumes"] = _set_named(volumes, {"name": volume, "hostPath": config_path, "mountPath": config_path, "readOnly": True, "pathType": "File"})
    return dump(config)


def unpatch_cluster_configuration(text, volume=VOLUME):
    """The ClusterConfiguration without what ``patch_cluster_configuration`` added."""
    volume = _plain(volume)
    config = load(text, "ClusterConfiguration")
    scheduler = config.get("scheduler") or {}
    if not scheduler:
        return dump(config)
    args = scheduler.get("extraArgs")
    if isinstance(args, dict):
        args.pop("config", None)
    elif isinstance(args, list):
        scheduler["extraArgs"] = [arg for arg in args if arg.get("name") != "config"]
    if not scheduler.get("extraArgs"):
        scheduler.pop("extraArgs", None)
    scheduler["extraVolumes"] = [v for v in scheduler.get("extraVolumes") or [] if v.get("name") != volume]
    if not scheduler["extraVolumes"]:
        scheduler.pop("extraVolumes")
    return dump(config)
