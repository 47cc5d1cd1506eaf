# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What one scheduler's objects say, for scheduler_info: its image's version, the configuration its ``--config``
file holds (read from the ConfigMap it is mounted from), its profiles and lock; a pod's state and owner, a Lease's
state. Pure functions over API objects as dicts."""

from __future__ import annotations

import posixpath
import re

from ansible.module_utils.common.yaml import HAS_YAML, yaml_load
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.predicates import (
    KUBE_SCHEDULER,
    lease_finding,
    split_image,
)
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.serving import (
    DEFAULT_SCHEDULER,
    MIRROR_POD_ANNOTATION,
    PROFILES_ANNOTATION,
    SYSTEM_NAMESPACE,
)
from ansible_collections.kubesched.scheduler.plugins.module_utils.kube import KubeError, api_reason

# What kubesched.scheduler.main_scheduler writes on the static pod (module_utils/static_pod.py PROFILES_ANNOTATION).
STATIC_PROFILES_ANNOTATION = PROFILES_ANNOTATION
# kube-scheduler's own defaults for its leader election
DEFAULT_LOCK = (SYSTEM_NAMESPACE, KUBE_SCHEDULER)
IMAGE_ID = re.compile(r"^sha256:[0-9a-f]{64}$")


# --- images, flags, configuration ------------------------------------------------------------


def image_version(*images):
    """The tag of the first of ``images`` that has one (the spec's image, then what the runtime reports).

    An image ID (``sha256:<hex>``, which containerd reports as the image of a container started by digest)
    has no tag.
    """
    for image in images:
        if not image or IMAGE_ID.match(image):
            continue
        tag = split_image(image)[1]
        if tag:
            return tag
    return None


def config_volume(pod_spec, container, path):
    """Where the file ``path`` of the container comes from.

    ``{"configmap": name, "key": key}`` when it is a key of a ConfigMap volume (with or without
    ``items``, or mounted with ``subPath``); ``{"node": path}`` when it is in a hostPath volume (the path on
    the node); ``{"volume": name}`` for another kind of volume; ``{"image": path}`` when no volume
    covers it (the file is the image's).
    """
    best = None
    for mount in (container or {}).get("volumeMounts") or []:
        mount_path = (mount.get("mountPath") or "").rstrip("/") or "/"
        if mount.get("subPath"):
            if path == mount_path:
                best = (len(mount_path) + 1, mount, mount["subPath"])
            continue
        if path == mount_path:  # a file mounted at its own path (a hostPath of type File)
            best = (len(mount_path), mount, "")
        elif path.startswith(mount_path.rstrip("/") + "/") and (best is None or len(mount_path) > best[0]):
            best = (len(mount_path), mount, path[len(mount_path.rstrip("/")) + 1 :])
    if best is None:
        return {"image": path}
    dummy, mount, relative = best
    volume = next((v for v in (pod_spec or {}).get("volumes") or [] if v.get("name") == mount.get("name")), None) or {}
    if volume.get("configMap"):
        items = volume["configMap"].get("items")
        # without items every key is a file of the volume; with items only those listed, at their paths
        key = relative if "/" not in relative else None
        if items:
            key = next((item.get("key") for item in items if item.get("path") == relative), None)
        return {"configmap": volume["configMap"].get("name"), "key": key}
    if volume.get("hostPath"):
        host_path = volume["hostPath"].get("path") or ""
        return {"node": posixpath.join(host_path, relative) if relative else host_path}
    return {"volume": mount.get("name")}


def config_profiles(config):
    """The schedulerNames of a KubeSchedulerConfiguration's profiles (the first defaults to default-scheduler)."""
    profiles = (config or {}).get("profiles")
    if not profiles:
        return [DEFAULT_SCHEDULER]
    names = []
    for index, profile in enumerate(profiles):
        name = (profile or {}).get("schedulerName") or (DEFAULT_SCHEDULER if index == 0 else None)
        if name and name not in names:
            names.append(name)
    return names


def _false(value):
    return str(value).strip().lower() in ("false", "0", "no")


def config_lock(config):
    """``(namespace, name)`` of the Lease a KubeSchedulerConfiguration elects its leader with, None when it does not."""
    election = (config or {}).get("leaderElection") or {}
    if election.get("leaderElect") is False:
        return None
    return (election.get("resourceNamespace") or DEFAULT_LOCK[0], election.get("resourceName") or DEFAULT_LOCK[1])


def flags_lock(flags):
    """``(namespace, name)`` of the Lease kube-scheduler locks by its flags (no ``--config``), None with ``--leader-elect=false``."""
    if _false(flags.get("leader-elect", "true")):
        return None
    return (flags.get("leader-elect-resource-namespace") or DEFAULT_LOCK[0], flags.get("leader-elect-resource-name") or DEFAULT_LOCK[1])


def read_configuration(pod_spec, container, namespace, flags, get_configmap):
    """What a scheduler's configuration tells: ``{"config", "profiles", "profiles_source", "lock"}``.

    ``profiles`` is None when the configuration cannot be read through the API; ``lock`` is then taken
    from the flags (kube-scheduler's defaults unless ``--leader-elect=false``) and ``lock_known`` is False.
    ``get_configmap(namespace, name)`` returns the ConfigMap, or raises KubeError.
    """
    path = flags.get("config")
    if not path:
        profile = flags.get("scheduler-name") or DEFAULT_SCHEDULER
        source = "no --config: the built-in default profile"
        return {"config": None, "profiles": [profile], "profiles_source": source, "lock": flags_lock(flags), "lock_known": True}
    unread = {"config": path, "profiles": None, "lock": flags_lock(flags), "lock_known": False}
    where = config_volume(pod_spec, container, path)
    if "node" in where:
        return dict(unread, profiles_source=f"not readable through the API (on the node: {where['node']})")
    if "image" in where:
        return dict(unread, profiles_source=f"not readable through the API (in the container's image: {path})")
    if "volume" in where:
        return dict(unread, profiles_source=f"not readable through the API (in the volume {where['volume']}: {path})")
    name, key = where["configmap"], where["key"]
    source = f"ConfigMap {namespace}/{name}"
    if not key:
        return dict(unread, profiles_source=f"{source} has no key for {path}")
    try:
        configmap = get_configmap(namespace, name)
    except KubeError as exc:
        return dict(unread, profiles_source=f"{source} not readable: {api_reason(exc)[:200]}")
    if configmap is None:
        return dict(unread, profiles_source=f"{source} does not exist")
    text = (configmap.get("data") or {}).get(key)
    if text is None:
        return dict(unread, profiles_source=f"{source} has no key {key}")
    if not HAS_YAML:
        return dict(unread, profiles_source=f"{source} key {key} not read: PyYAML is missing")
    try:
        config = yaml_load(text)
    except Exception as exc:  # yaml.YAMLError, without importing yaml here
        return dict(unread, profiles_source=f"{source} key {key} is not valid YAML: {str(exc).splitlines()[0][:200]}")
    if not isinstance(config, dict):
        return dict(unread, profiles_source=f"{source} key {key} is not a KubeSchedulerConfiguration")
    return {"config": path, "profiles": config_profiles(config), "profiles_source": f"{source}, key {key}", "lock": config_lock(config), "lock_known": True}


# --- pods, Leases ----------------------------------------------------------------------------


def metadata_of(obj):
    return obj.get("metadata") or {}


def key_of(obj):
    metadata = metadata_of(obj)
    return metadata.get("namespace"), metadata.get("name")


def pod_running(pod):
    return (pod.get("status") or {}).get("phase") == "Running" and not metadata_of(pod).get("deletionTimestamp")


def pod_pending(pod):
    """Not bound to a node yet (and not finished)."""
    return not (pod.get("spec") or {}).get("nodeName") and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")


def pod_scheduler_name(pod):
    return (pod.get("spec") or {}).get("schedulerName") or DEFAULT_SCHEDULER


def container_status(pod, name):
    for status in (pod.get("status") or {}).get("containerStatuses") or []:
        if status.get("name") == name:
            return status
    return {}


def lease_state(lease, now, tolerance):
    """The Lease as reported: holder, times, and whether it is live (``predicates.lease_finding``)."""
    spec = lease.get("spec") or {}
    finding = lease_finding(lease, now, tolerance)
    namespace, name = key_of(lease)
    return {
        "namespace": namespace,
        "name": name,
        "holder": spec.get("holderIdentity") or None,
        "holder_pod": None,
        "renew_time": spec.get("renewTime"),
        "acquire_time": spec.get("acquireTime"),
        "lease_duration_seconds": spec.get("leaseDurationSeconds"),
        "lease_transitions": spec.get("leaseTransitions"),
        "live": finding["running"],
        "text": finding["text"],
        "scheduler": None,
        "owner": None,
    }


def owner_reference(obj):
    """The controller's ownerReference of an object (or its first one), or None."""
    references = metadata_of(obj).get("ownerReferences") or []
    return next((ref for ref in references if ref.get("controller")), references[0] if references else None)


def pod_owner(pod, get_replicaset=None):
    """``{"kind", "namespace", "name"}`` of the workload a pod belongs to.

    A ReplicaSet's pod belongs to the ReplicaSet's Deployment (from its ownerReferences, read with
    ``get_replicaset(namespace, name)``; when it cannot be read, the ReplicaSet's name without the
    pod's ``pod-template-hash``). A mirror pod is a ``StaticPod`` (of the node that runs it); a pod of no
    controller a ``Pod``.
    """
    metadata = metadata_of(pod)
    namespace, name = metadata.get("namespace"), metadata.get("name")
    if MIRROR_POD_ANNOTATION in (metadata.get("annotations") or {}):
        return {"kind": "StaticPod", "namespace": namespace, "name": name, "node": (pod.get("spec") or {}).get("nodeName")}
    reference = owner_reference(pod)
    if not reference:
        return {"kind": "Pod", "namespace": namespace, "name": name}
    if reference.get("kind") == "ReplicaSet":
        replicaset = None
        if get_replicaset:
            try:
                replicaset = get_replicaset(namespace, reference["name"])
            except KubeError:
                replicaset = None
        parent = owner_reference(replicaset) if replicaset else None
        if parent:
            return {"kind": parent.get("kind"), "namespace": namespace, "name": parent.get("name")}
        template_hash = (metadata.get("labels") or {}).get("pod-template-hash")
        if replicaset is None and template_hash and reference["name"].endswith("-" + template_hash):
            return {"kind": "Deployment", "namespace": namespace, "name": reference["name"][: -len(template_hash) - 1]}
    return {"kind": reference.get("kind"), "namespace": namespace, "name": reference.get("name")}
