# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every scheduler of a cluster, what it runs and what it serves: the ``scheduler_info`` module.

The functions work on API objects as plain dicts, shaped like the JSON the API server returns, so they
can be tested without a cluster; ``gather`` is the only one that talks to the API, through ``Kube``.
It reads a fixed number of lists, whatever the number of pods, each in pages of ``page_size`` items
(``limit`` and ``continue``), and reduces each page before it asks for the next:

* the Leases of all namespaces but kube-node-lease (kept: all, a few per controller);
* the Deployments of all namespaces labelled ``kubesched.io/scheduler-name``, this collection's schedulers;
* the pods of all namespaces, of which only the ``spec.schedulerName`` counts are kept, with the mirror
  pods of kube-scheduler in kube-system and the pods that hold a Lease. With ``namespace``, the pods of
  that namespace are counted, and the kube-system pods are listed on their own, plus one list by name
  (``metadata.name=<pod>``, all namespaces) per Lease holder not found in those two.

Then one GET per ConfigMap a scheduler's ``--config`` file is mounted from (to read its profiles) and
one per ReplicaSet that owns a pod holding a Lease of no known scheduler (to name its Deployment).

Schedulers are of three kinds:

* ``static_pod``: the mirror pods of kube-scheduler in kube-system (annotation ``kubernetes.io/config.mirror``,
  label ``component=kube-scheduler``), the default scheduler of kubeadm clusters, one per control plane.
  Their ``--config`` (when they have one) is a file on the node, which the API cannot read, unless it is
  mounted from a ConfigMap;
* ``deployment``: the Deployments of this collection, which name what they serve and lock in their
  annotations (``serving.served_names``, ``serving.lock_lease``) and mount their configuration
  from a ConfigMap;
* ``lease_holder``: any other workload that holds a scheduler's Lease: a Lease whose holder identity
  (``<hostname>_<uuid>``, the hostname of a pod being its name) names a running pod that runs a scheduler
  (``scheduler`` in its executable or image name) or whose Lease is named after a schedulerName pods ask for.
"""

from __future__ import annotations

import posixpath
import re
from datetime import timedelta

from ansible.module_utils.common.yaml import HAS_YAML, yaml_load

from ansible_collections.kubesched.scheduler.plugins.module_utils import placement
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.client import RESTART, collect, lease_clock
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.predicates import (
    KUBE_SCHEDULER,
    command_line,
    holder_pod,
    lease_finding,
    parse_flags,
    pod_ready,
    runs_scheduler,
    scheduler_container,
    split_image,
)
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.serving import (
    DEFAULT_SCHEDULER,
    MIRROR_POD_ANNOTATION,
    NODE_LEASE_NAMESPACE,
    PROFILES_ANNOTATION,
    SCHEDULER_LABEL,
    SYSTEM_NAMESPACE,
    is_static_scheduler,
    lock_lease,
    served_names,
)
from ansible_collections.kubesched.scheduler.plugins.module_utils.kube import Kube, KubeError, api_reason

DEFAULT_PAGE_SIZE = placement.DEFAULT_PAGE_SIZE
# What kubesched.scheduler.main_scheduler writes on the static pod (module_utils/static_pod.py PROFILES_ANNOTATION).
STATIC_PROFILES_ANNOTATION = PROFILES_ANNOTATION
# the identity Leases of the API servers (kube-system/apiserver-<hash>), held by no pod
APISERVER_IDENTITY_LABEL = "apiserver.kubernetes.io/identity"
# kube-scheduler's own defaults for its leader election
DEFAULT_LOCK = (SYSTEM_NAMESPACE, KUBE_SCHEDULER)
MAX_LISTED_PODS = placement.MAX_LISTED_PODS

IMAGE_ID = re.compile(r"^sha256:[0-9a-f]{64}$")

KIND_STATIC = "static_pod"
KIND_DEPLOYMENT = "deployment"
KIND_LEASE_HOLDER = "lease_holder"
KIND_LEASE = "lease"
KIND_ORDER = {KIND_STATIC: 0, KIND_DEPLOYMENT: 1, KIND_LEASE_HOLDER: 2}

NO_SCHEDULER = placement.REASON_NO_SCHEDULER
NOT_RUNNING = placement.REASON_NOT_RUNNING


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


def _metadata(obj):
    return obj.get("metadata") or {}


def key_of(obj):
    metadata = _metadata(obj)
    return metadata.get("namespace"), metadata.get("name")


def pod_running(pod):
    return (pod.get("status") or {}).get("phase") == "Running" and not _metadata(pod).get("deletionTimestamp")


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
    references = _metadata(obj).get("ownerReferences") or []
    return next((ref for ref in references if ref.get("controller")), references[0] if references else None)


def pod_owner(pod, get_replicaset=None):
    """``{"kind", "namespace", "name"}`` of the workload a pod belongs to.

    A ReplicaSet's pod belongs to the ReplicaSet's Deployment (from its ownerReferences, read with
    ``get_replicaset(namespace, name)``; when it cannot be read, the ReplicaSet's name without the
    pod's ``pod-template-hash``). A mirror pod is a ``StaticPod`` (of the node that runs it); a pod of no
    controller a ``Pod``.
    """
    metadata = _metadata(pod)
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


# --- the paged lists -------------------------------------------------------------------------


class PodScan:
    """What is kept of the pods, page by page: the schedulerName counts (of the counted pods), the mirror
    pods of kube-scheduler, and the pods whose names are in ``wanted`` (Lease holders)."""

    def __init__(self, wanted):
        self.wanted = set(wanted)
        self.reset()

    def reset(self):
        self.names = {}
        self.static = {}
        self.by_name = {}

    def restart(self, counted):
        """Forget what a restarted list kept: the counts when it was the counted list."""
        if counted:
            self.names = {}

    def add(self, pod, counted=True):
        metadata = _metadata(pod)
        if counted:
            name = pod_scheduler_name(pod)
            entry = self.names.setdefault(name, {"pods": 0, "pending": 0, "pending_pods": []})
            entry["pods"] += 1
            if pod_pending(pod):
                entry["pending"] += 1
                if len(entry["pending_pods"]) < MAX_LISTED_PODS:
                    entry["pending_pods"].append(f"{metadata.get('namespace')}/{metadata.get('name')}")
        if is_static_scheduler(pod):
            self.static[key_of(pod)] = pod
        if metadata.get("name") in self.wanted:
            self.by_name.setdefault(metadata["name"], {})[metadata.get("namespace")] = pod

    def scan(self, items, counted=True):
        for pod in items:
            if pod is RESTART:
                self.restart(counted)
            else:
                self.add(pod, counted)


def _lookup_error(errors, what, exc):
    if isinstance(exc, KubeError) and exc.status in (401, 403, 404):
        errors.append(f"cannot list {what}: {api_reason(exc)[:300]}")
        return True
    return False


def _safe_list(errors, what, items):
    try:
        return collect(items)
    except KubeError as exc:
        if _lookup_error(errors, what, exc):
            return []
        raise


# --- the schedulers --------------------------------------------------------------------------


def _workload(kind, namespace, name, container, configuration, flags, image):
    return {
        "kind": kind,
        "namespace": namespace,
        "name": name,
        "node": None,
        "image": image,
        "image_id": None,
        "version": image_version(image),
        "command": command_line(container or {}),
        "flags": flags,
        "config": configuration["config"],
        "profiles": configuration["profiles"],
        "profiles_source": configuration["profiles_source"],
        "ready": False,
        "restarts": None,
        "phase": None,
        "replicas": None,
        "ready_replicas": None,
        "pod": None,
        "owner": None,
        "leader": None,
        "lease": None,
        "serves": [],
    }


def static_scheduler(pod, get_configmap):
    """A ``static_pod`` scheduler from the mirror pod of kube-scheduler, with the Lease it locks as ``_lock``."""
    metadata = _metadata(pod)
    spec = pod.get("spec") or {}
    container = scheduler_container(spec) or {}
    flags = parse_flags(command_line(container))
    configuration = read_configuration(spec, container, metadata.get("namespace"), flags, get_configmap)
    annotated = [name.strip() for name in ((metadata.get("annotations") or {}).get(STATIC_PROFILES_ANNOTATION) or "").split(",") if name.strip()]
    if configuration["profiles"] is None and annotated:
        # The file is on the node: the main_scheduler role wrote its profiles beside its sha256 on the pod.
        source = f"annotation {STATIC_PROFILES_ANNOTATION} (the file is on the node: {configuration['config']})"
        configuration = dict(configuration, profiles=annotated, profiles_source=source)
    status = container_status(pod, container.get("name"))
    entry = _workload(KIND_STATIC, metadata.get("namespace"), metadata.get("name"), container, configuration, flags, container.get("image"))
    entry.update(
        node=spec.get("nodeName"),
        image_id=status.get("imageID"),
        version=image_version(container.get("image"), status.get("image"), status.get("imageID")),
        ready=pod_ready(pod),
        restarts=status.get("restartCount", 0),
        phase=(pod.get("status") or {}).get("phase"),
        # a kube-scheduler whose profiles cannot be read is taken to serve the default profile, as kubeadm's does
        serves=list(configuration["profiles"] or [DEFAULT_SCHEDULER]),
    )
    entry["_lock"] = configuration["lock"]
    return entry


def deployment_scheduler(deployment, get_configmap):
    """A ``deployment`` scheduler from a Deployment of this collection, with the Lease it locks as ``_lock``."""
    metadata = _metadata(deployment)
    template = ((deployment.get("spec") or {}).get("template") or {}).get("spec") or {}
    container = scheduler_container(template) or {}
    flags = parse_flags(command_line(container))
    configuration = read_configuration(template, container, metadata.get("namespace"), flags, get_configmap)
    status = deployment.get("status") or {}
    ready = status.get("readyReplicas") or 0
    entry = _workload(KIND_DEPLOYMENT, metadata.get("namespace"), metadata.get("name"), container, configuration, flags, container.get("image"))
    served = served_names(deployment)
    entry.update(
        replicas=(deployment.get("spec") or {}).get("replicas", 1),
        ready_replicas=ready,
        ready=ready >= 1,
        serves=list(dict.fromkeys(served + list(configuration["profiles"] or []))),
    )
    entry["_lock"] = lock_lease(deployment) or (configuration["lock"] if configuration["lock_known"] else None)
    return entry


def holder_scheduler(lease, pod, owner, get_configmap):
    """A ``lease_holder`` scheduler: the workload of the running pod that holds a scheduler's Lease."""
    metadata = _metadata(pod)
    spec = pod.get("spec") or {}
    container = scheduler_container(spec) or {}
    flags = parse_flags(command_line(container))
    configuration = read_configuration(spec, container, metadata.get("namespace"), flags, get_configmap)
    status = container_status(pod, container.get("name"))
    name = owner["name"] if owner["kind"] not in ("Pod", "StaticPod") else metadata.get("name")
    entry = _workload(KIND_LEASE_HOLDER, metadata.get("namespace"), name, container, configuration, flags, container.get("image"))
    entry.update(
        node=spec.get("nodeName"),
        image_id=status.get("imageID"),
        version=image_version(container.get("image"), status.get("image"), status.get("imageID")),
        ready=pod_ready(pod),
        restarts=status.get("restartCount", 0),
        pod=metadata.get("name"),
        owner=owner,
        # what it serves: its profiles when they can be read, else the name of its Lease
        serves=list(configuration["profiles"] or [key_of(lease)[1]]),
    )
    entry["_lock"] = key_of(lease)
    return entry


def find_pod(pods_by_name, name, namespace):
    """The pod of that name, in ``namespace`` when there is one there, else a running one elsewhere."""
    candidates = pods_by_name.get(name) or {}
    if namespace in candidates:
        return candidates[namespace]
    running = [candidates[ns] for ns in sorted(candidates) if pod_running(candidates[ns])]
    return running[0] if running else None


def is_scheduler_lease(lease, pod, asked_names):
    """Whether a Lease held by ``pod`` (or by nothing found) is a scheduler's: named after a schedulerName pods ask
    for, or held by a pod that runs a scheduler."""
    if key_of(lease)[1] in asked_names:
        return True
    if pod is None:
        return False
    return any(runs_scheduler(container) for container in (pod.get("spec") or {}).get("containers") or [])


def _attach_lease(entry, leases_by_key):
    lock = entry.pop("_lock", None)
    lease = leases_by_key.get(tuple(lock)) if lock else None
    if lease is None:
        entry["lease"] = {"namespace": lock[0], "name": lock[1], "found": False} if lock else None
        return None
    entry["lease"] = lease
    return lease


def _served_by(entry, running):
    return {"kind": entry["kind"], "namespace": entry["namespace"], "name": entry["name"], "running": running}


def _running(entry):
    """A static pod or Deployment runs when ready; a lease holder when ready and its Lease is live."""
    if entry["kind"] == KIND_LEASE_HOLDER:
        return bool(entry["ready"] and entry["lease"] and entry["lease"].get("live"))
    return bool(entry["ready"])


def assemble(leases, deployments, scan, now, tolerance, get_configmap, get_replicaset, errors=None):
    """The module's answer from what the lists kept (pure but for the two getters).

    ``scan`` is a PodScan: ``names`` (the schedulerName counts), ``static`` (the mirror pods of kube-scheduler)
    and ``by_name`` (the pods named like Lease holders). ``errors`` (what could not be read) is returned with
    what this adds to it.
    """
    errors = list(errors or [])
    states = {}
    for lease in leases:
        if key_of(lease)[0] != NODE_LEASE_NAMESPACE:
            states[key_of(lease)] = lease_state(lease, now, tolerance)
    raw_leases = {key_of(lease): lease for lease in leases}
    static = [static_scheduler(pod, get_configmap) for _key, pod in sorted(scan.static.items())]
    static_nodes = {entry["node"] for entry in static if entry["node"]}
    schedulers = static + [deployment_scheduler(deployment, get_configmap) for deployment in sorted(deployments, key=key_of)]
    reported = {}

    # the Leases of the static pods and Deployments: the holder's pod, and the leader among the replicas
    for entry in schedulers:
        lease = _attach_lease(entry, states)
        if lease is None:
            continue
        reported[(lease["namespace"], lease["name"])] = lease
        reference = {"kind": entry["kind"], "namespace": entry["namespace"], "name": entry["name"]}
        if lease["scheduler"] is None:
            lease["scheduler"] = reference
        holder = holder_pod(lease["holder"])
        if entry["kind"] == KIND_STATIC:
            entry["leader"] = holder is not None and holder == entry["node"] and lease["live"]
            if holder == entry["node"]:
                lease["scheduler"] = reference
                lease["holder_pod"] = f"{entry['namespace']}/{entry['name']}"
                lease["owner"] = {"kind": "StaticPod", "namespace": entry["namespace"], "name": entry["name"], "node": entry["node"]}
            elif holder and holder not in static_nodes and lease["holder_pod"] is None:
                pod = find_pod(scan.by_name, holder, lease["namespace"])
                if pod is not None:
                    lease["holder_pod"] = "/".join(key_of(pod))
                    lease["owner"] = pod_owner(pod, get_replicaset)
        else:
            pod = find_pod(scan.by_name, holder, entry["namespace"]) if holder else None
            if pod is not None:
                lease["holder_pod"] = "/".join(key_of(pod))
                lease["owner"] = pod_owner(pod)
                entry["leader"] = lease["live"]
                entry["node"] = (pod.get("spec") or {}).get("nodeName")
            else:
                entry["leader"] = False

    # any other Lease held by a running pod that runs a scheduler, or named after a schedulerName pods ask for
    asked = {name for name, counts in scan.names.items() if counts["pods"]}
    known = {(entry["kind"], entry["namespace"], entry["name"]) for entry in schedulers}
    deployment_names = {(entry["namespace"], entry["name"]) for entry in schedulers if entry["kind"] == KIND_DEPLOYMENT}
    for key in sorted(states):
        if key in reported:
            continue
        lease = states[key]
        holder = holder_pod(lease["holder"])
        pod = find_pod(scan.by_name, holder, key[0]) if holder else None
        if pod is not None and not pod_running(pod):
            pod = None
        if not is_scheduler_lease(raw_leases[key], pod, asked):
            continue
        reported[key] = lease
        if pod is None:
            continue
        owner = pod_owner(pod, get_replicaset)
        lease["holder_pod"] = "/".join(key_of(pod))
        lease["owner"] = owner
        if owner["kind"] == "Deployment" and (owner["namespace"], owner["name"]) in deployment_names:
            lease["scheduler"] = {"kind": KIND_DEPLOYMENT, "namespace": owner["namespace"], "name": owner["name"]}
            continue
        entry = holder_scheduler(raw_leases[key], pod, owner, get_configmap)
        identity = (entry["kind"], entry["namespace"], entry["name"])
        lease["scheduler"] = {"kind": entry["kind"], "namespace": entry["namespace"], "name": entry["name"]}
        if identity in known:
            continue
        known.add(identity)
        entry["lease"] = lease
        entry.pop("_lock", None)
        entry["leader"] = lease["live"]
        schedulers.append(entry)
    _warn_lock_taken(schedulers, static_nodes, errors)
    schedulers.sort(key=lambda entry: (KIND_ORDER[entry["kind"]], entry["namespace"] or "", entry["name"] or ""))
    leases_out = [reported[key] for key in sorted(reported)]
    names = scheduler_names(schedulers, leases_out, scan.names)
    return {
        "schedulers": schedulers,
        "default_scheduler": default_scheduler(schedulers, states.get(DEFAULT_LOCK)),
        "leases": leases_out,
        "scheduler_names": names,
        "unserved": unserved(names),
        "errors": errors,
    }


def _warn_lock_taken(schedulers, static_nodes, errors):
    """The live Lease the static kube-scheduler pods lock, held by something else than one of their nodes:
    another scheduler elects its leader with the default scheduler's Lease, and the two take turns."""
    for entry in schedulers:
        lease = entry["lease"]
        if entry["kind"] != KIND_STATIC or not lease or not lease.get("live"):
            continue
        if holder_pod(lease["holder"]) not in static_nodes:
            errors.append(
                f"Lease {lease['namespace']}/{lease['name']}, the lock of the kube-scheduler static pods, is held by {lease['holder']}, "
                "not by one of their nodes: another scheduler elects its leader with the default scheduler's Lease"
                + (f" ({lease['holder_pod']})" if lease.get("holder_pod") else "")
            )
            return


def scheduler_names(schedulers, leases, counts):
    """``{schedulerName: {"pods", "pending", "pending_pods", "served_by"}}`` over the names pods ask for and
    the names the schedulers serve; a Lease named after a schedulerName that belongs to no scheduler serves it
    while it is live."""
    names = {}
    for name, entry in counts.items():
        names[name] = {"pods": entry["pods"], "pending": entry["pending"], "pending_pods": list(entry["pending_pods"]), "served_by": []}
    for entry in schedulers:
        for name in entry["serves"]:
            names.setdefault(name, {"pods": 0, "pending": 0, "pending_pods": [], "served_by": []})
            names[name]["served_by"].append(_served_by(entry, _running(entry)))
    for lease in leases:
        if lease["scheduler"] is None and lease["name"] in names:
            names[lease["name"]]["served_by"].append({"kind": KIND_LEASE, "namespace": lease["namespace"], "name": lease["name"], "running": lease["live"]})
    return dict(sorted(names.items()))


def unserved(names):
    """The schedulerNames pods ask for that nothing running serves.

    ``default-scheduler`` with nothing found at all is taken to be served by a control plane that the API does
    not show (a managed cluster), as pod_placement does.
    """
    result = []
    for name, entry in names.items():
        if not entry["pods"] or any(server["running"] for server in entry["served_by"]):
            continue
        if name == DEFAULT_SCHEDULER and not entry["served_by"]:
            continue
        found = [f"{server['kind']} {server['namespace']}/{server['name']}" for server in entry["served_by"]]
        result.append(
            {
                "scheduler_name": name,
                "reason": NOT_RUNNING if found else NO_SCHEDULER,
                "pods": entry["pods"],
                "pending": entry["pending"],
                "pending_pods": list(entry["pending_pods"]),
                "found": found,
            }
        )
    return result


def default_scheduler(schedulers, lease):
    """The lab's answer: the pod of the default scheduler, its node and image; the leader's pod when several
    control planes run one, else the first ready one. Without a static pod (a managed control plane), what the
    Lease tells; None when there is neither."""
    static = [entry for entry in schedulers if entry["kind"] == KIND_STATIC and DEFAULT_SCHEDULER in entry["serves"]]
    chosen = next((entry for entry in static if entry["leader"]), None)
    chosen = chosen or next((entry for entry in static if entry["ready"]), None) or (static[0] if static else None)
    if chosen is None:
        if lease is None:
            return None
        return {
            "pod": None,
            "namespace": None,
            "node": None,
            "image": None,
            "version": None,
            "leader": None,
            "ready": None,
            "lease": f"{lease['namespace']}/{lease['name']}",
            "holder": lease["holder"],
            "note": "no kube-scheduler static pod is visible through the API: the control plane is not run as pods of this cluster",
        }
    return {
        "pod": chosen["name"],
        "namespace": chosen["namespace"],
        "node": chosen["node"],
        "image": chosen["image"],
        "version": chosen["version"],
        "leader": chosen["leader"],
        "ready": chosen["ready"],
        "lease": f"{chosen['lease']['namespace']}/{chosen['lease']['name']}" if chosen["lease"] else None,
        "holder": chosen["lease"].get("holder") if chosen["lease"] else None,
        "note": None,
    }


# --- the module ------------------------------------------------------------------------------


def gather(kube, namespace=None, page_size=DEFAULT_PAGE_SIZE, now=None, tolerance=None):
    """Read the cluster (see the module's docstring for the lists) and return the module's answer.

    ``now`` is the time the Leases are judged by: by default the API server's, from the Date header of its answers
    (this host's clock, with CLOCK_TOLERANCE of slack, when no answer had one; see client.lease_clock).
    """
    errors = []
    leases = _safe_list(errors, "Leases", kube.list_pages("Lease", page_size=page_size, field_selector=f"metadata.namespace!={NODE_LEASE_NAMESPACE}"))
    deployments = _safe_list(errors, "Deployments", kube.list_pages("Deployment", page_size=page_size, label_selector=SCHEDULER_LABEL))
    holders = {}
    for lease in leases:
        if key_of(lease)[0] == NODE_LEASE_NAMESPACE or APISERVER_IDENTITY_LABEL in (_metadata(lease).get("labels") or {}):
            continue
        holder = holder_pod((lease.get("spec") or {}).get("holderIdentity"))
        if holder:
            holders[holder] = key_of(lease)[0]
    scan = PodScan(holders)
    try:
        scan.scan(kube.list_pages("Pod", namespace, page_size=page_size))
        if namespace and namespace != SYSTEM_NAMESPACE:
            scan.scan(kube.list_pages("Pod", SYSTEM_NAMESPACE, page_size=page_size), counted=False)
            nodes = {(pod.get("spec") or {}).get("nodeName") for pod in scan.static.values()}
            for holder in sorted(set(holders) - set(scan.by_name) - nodes):
                scan.scan(kube.list_pages("Pod", page_size=page_size, field_selector=f"metadata.name={holder}"), counted=False)
    except KubeError as exc:
        if not _lookup_error(errors, f"pods{f' in namespace {namespace}' if namespace else ''}", exc):
            raise
    cache = {}

    def cached_get(kind):
        """A reader of one kind that asks the API server once per object and repeats its error."""

        def get(ns, name):
            if (kind, ns, name) not in cache:
                try:
                    cache[(kind, ns, name)] = (kube.get(kind, name, ns), None)
                except KubeError as exc:
                    cache[(kind, ns, name)] = (None, exc)
            found, error = cache[(kind, ns, name)]
            if error is not None:
                raise error
            return found

        return get

    get_configmap, get_replicaset = cached_get("ConfigMap"), cached_get("ReplicaSet")

    if now is None:
        now, tolerance = lease_clock(kube.clock.server_now())
    tolerance = timedelta(0) if tolerance is None else tolerance
    return assemble(leases, deployments, scan, now, tolerance, get_configmap, get_replicaset, errors)


def check_params(params):
    """Why these module parameters cannot be run, or None."""
    if params.get("page_size") is not None and params["page_size"] < 1:
        return f"page_size must be 1 or more, got {params['page_size']}"
    return None


def run(connect, params, check_mode=False, diff=False):
    """The ``scheduler_info`` module: read-only, so check and diff mode change nothing."""
    problem = check_params(params)
    if problem:
        return {"changed": False, "msg": problem}
    kube = Kube(connect())
    result = gather(kube, params.get("namespace"), params.get("page_size") or DEFAULT_PAGE_SIZE)
    result["changed"] = False
    result["api_requests"] = kube.requests
    if result["errors"]:
        result["warnings"] = list(result["errors"])
    return result
