# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every scheduler of a cluster, what it runs and what it serves: the ``scheduler_info`` module.

The functions work on API objects as plain dicts, shaped like the JSON the API server returns, so they
can be tested without a cluster; ``gather`` (inventory_gather.py) is the only one that talks to the API,
through ``Kube``; what one scheduler's objects say is inventory_config.py.
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

from ansible_collections.kubesched.scheduler.plugins.module_utils import placement
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.predicates import (
    command_line,
    holder_pod,
    parse_flags,
    pod_ready,
    runs_scheduler,
    scheduler_container,
)
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.serving import (
    CONFIG_SHA256_ANNOTATION,
    DEFAULT_SCHEDULER,
    NODE_LEASE_NAMESPACE,
    lock_lease,
    served_names,
)
from ansible_collections.kubesched.scheduler.plugins.module_utils.inventory_config import (
    DEFAULT_LOCK,
    STATIC_PROFILES_ANNOTATION,
    container_status,
    image_version,
    key_of,
    lease_state,
    metadata_of,
    pod_owner,
    pod_running,
    read_configuration,
)

DEFAULT_PAGE_SIZE = placement.DEFAULT_PAGE_SIZE
# the identity Leases of the API servers (kube-system/apiserver-<hash>), held by no pod
APISERVER_IDENTITY_LABEL = "apiserver.kubernetes.io/identity"
MAX_LISTED_PODS = placement.MAX_LISTED_PODS

KIND_STATIC = "static_pod"
KIND_DEPLOYMENT = "deployment"
KIND_LEASE_HOLDER = "lease_holder"
KIND_LEASE = "lease"
KIND_ORDER = {KIND_STATIC: 0, KIND_DEPLOYMENT: 1, KIND_LEASE_HOLDER: 2}

NO_SCHEDULER = placement.REASON_NO_SCHEDULER
NOT_RUNNING = placement.REASON_NOT_RUNNING


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
        "config_sha256": None,
    }


def _scheduler_of(pod_spec, namespace, get_configmap):
    """``(container, flags, configuration)`` of the container of a pod spec that runs the scheduler."""
    container = scheduler_container(pod_spec) or {}
    flags = parse_flags(command_line(container))
    return container, flags, read_configuration(pod_spec, container, namespace, flags, get_configmap)


def _pod_fields(pod, container):
    """What a scheduler's running pod tells of it: its node, image ID and version, readiness and restarts."""
    status = container_status(pod, container.get("name"))
    return {
        "node": (pod.get("spec") or {}).get("nodeName"),
        "image_id": status.get("imageID"),
        "version": image_version(container.get("image"), status.get("image"), status.get("imageID")),
        "ready": pod_ready(pod),
        "restarts": status.get("restartCount", 0),
    }


def static_scheduler(pod, get_configmap):
    """A ``static_pod`` scheduler from the mirror pod of kube-scheduler, with the Lease it locks as ``_lock``."""
    metadata = metadata_of(pod)
    container, flags, configuration = _scheduler_of(pod.get("spec") or {}, metadata.get("namespace"), get_configmap)
    annotated = [name.strip() for name in ((metadata.get("annotations") or {}).get(STATIC_PROFILES_ANNOTATION) or "").split(",") if name.strip()]
    if configuration["profiles"] is None and annotated:
        # The file is on the node: the main_scheduler role wrote its profiles beside its sha256 on the pod.
        source = f"annotation {STATIC_PROFILES_ANNOTATION} (the file is on the node: {configuration['config']})"
        configuration = dict(configuration, profiles=annotated, profiles_source=source)
    entry = _workload(KIND_STATIC, metadata.get("namespace"), metadata.get("name"), container, configuration, flags, container.get("image"))
    entry.update(
        _pod_fields(pod, container),
        phase=(pod.get("status") or {}).get("phase"),
        # a kube-scheduler whose profiles cannot be read is taken to serve the default profile, as kubeadm's does
        serves=list(configuration["profiles"] or [DEFAULT_SCHEDULER]),
    )
    entry["config_sha256"] = (metadata.get("annotations") or {}).get(CONFIG_SHA256_ANNOTATION, "")
    entry["_lock"] = configuration["lock"]
    return entry


def deployment_scheduler(deployment, get_configmap):
    """A ``deployment`` scheduler from a Deployment of this collection, with the Lease it locks as ``_lock``."""
    metadata = metadata_of(deployment)
    template = ((deployment.get("spec") or {}).get("template") or {}).get("spec") or {}
    container, flags, configuration = _scheduler_of(template, metadata.get("namespace"), get_configmap)
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
    metadata = metadata_of(pod)
    container, flags, configuration = _scheduler_of(pod.get("spec") or {}, metadata.get("namespace"), get_configmap)
    name = owner["name"] if owner["kind"] not in ("Pod", "StaticPod") else metadata.get("name")
    entry = _workload(KIND_LEASE_HOLDER, metadata.get("namespace"), name, container, configuration, flags, container.get("image"))
    entry.update(
        _pod_fields(pod, container),
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


def _running(entry, static_leader=False):
    """A static pod or Deployment runs when ready; a lease holder when ready and its Lease is live. When one of the
    static pods leads (``static_leader``), a static pod serves its profiles only when it is that one: the others are
    standbys, which schedule nothing."""
    if entry["kind"] == KIND_LEASE_HOLDER:
        return bool(entry["ready"] and entry["lease"] and entry["lease"].get("live"))
    if entry["kind"] == KIND_STATIC and static_leader:
        return bool(entry["ready"] and entry["leader"])
    return bool(entry["ready"])


def control_plane(schedulers):
    """The static schedulers of the control-plane nodes side by side: each one's node, configuration sha256 ('' for
    kubeadm's own manifest), image, readiness and leadership; ``split`` when they run different configurations or
    images; the profiles a standby serves that the leader lacks (their pods wait for a leader that has them)."""
    static = [entry for entry in schedulers if entry["kind"] == KIND_STATIC]
    leader = next((entry for entry in static if entry["leader"]), None)
    standby_only = sorted({name for entry in static if entry is not leader for name in entry["serves"]} - set(leader["serves"])) if leader else []
    return {
        "nodes": [
            {"pod": e["name"], "node": e["node"], "config_sha256": e["config_sha256"], "image": e["image"], "ready": e["ready"], "leader": e["leader"]}
            for e in static
        ],
        "split": len({(entry["config_sha256"], entry["image"]) for entry in static}) > 1,
        "standby_only_profiles": standby_only,
    }


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
    plane = control_plane(schedulers)
    if plane["split"]:
        errors.append(
            "the control-plane nodes run different kube-scheduler configurations or images: "
            + "; ".join(f"{n['node']}: {n['config_sha256'][:12] or 'kubeadm'} {n['image']}" + (" (leader)" if n["leader"] else "") for n in plane["nodes"])
        )
    if plane["standby_only_profiles"]:
        errors.append(
            "profiles served only by standby control-plane schedulers, not by the leader: "
            f"{', '.join(plane['standby_only_profiles'])} (their pods stay Pending)"
        )
    return {
        "schedulers": schedulers,
        "control_plane": plane,
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
    static_leader = any(entry["leader"] for entry in schedulers if entry["kind"] == KIND_STATIC)
    for entry in schedulers:
        for name in entry["serves"]:
            names.setdefault(name, {"pods": 0, "pending": 0, "pending_pods": [], "served_by": []})
            names[name]["served_by"].append(_served_by(entry, _running(entry, static_leader)))
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
    """Which pod runs the cluster's own scheduler, on which node, with which image: the leader's pod when several
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
