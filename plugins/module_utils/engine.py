# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The deploy engine of a second scheduler: everything the deploy role does on the cluster, in one process.

``converge`` takes the objects the role rendered (ServiceAccount, bindings, ConfigMap, Deployment, the
lock's RBAC) and:

1. reads what is deployed, and refuses objects of the scheduler's name that the collection did not make;
2. tries the configuration with the image's kube-scheduler in a Pod that never connects (only when the
   pod template changed);
3. lets the scheduler hold its own lock (``lock_converge``: the lock name added to a ClusterRole, or a
   dedicated ClusterRole, and the binding to it);
4. applies every object with server-side apply;
5. waits until the new pods are ready, have not restarted beyond what they had before, the Deployment
   has no other pod left, and one of the new pods holds the Lease;
6. then applies the objects listed after the Deployment (what sends pods to the scheduler: a
   MutatingAdmissionPolicy and its binding), so that no pod is routed to a scheduler that does not lead,
   and deletes the objects of ``prune`` (an option turned off) that the collection made;
7. on failure puts the previous ConfigMap and Deployment back and fails with what the new pods did.

``remove`` deletes it all again, newest first (so the routing goes before the scheduler), and lists the
pods still waiting for the names it served. ``preflight`` (preflight.py) is the one read of the cluster and
the registry before anything is rendered; the lock's RBAC is lock.py, the trial trial.py, the modules' flow
runner.py. Every wait is a Python predicate over API objects as dicts, so
each can be tested without a cluster.
"""

from __future__ import annotations

import time

from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.predicates import (
    cannot_start,
    held_by,
    holder_pod,
    lease_holder,
    not_deleted,
    pod_ready,
    restarts,
    rolled_out,
)
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.serving import served_names
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.waiter import wait_for
from ansible_collections.kubesched.scheduler.plugins.module_utils.errors import EngineError
from ansible_collections.kubesched.scheduler.plugins.module_utils.kube import MANAGER, KubeError, api_reason, managed_by_us, ref
from ansible_collections.kubesched.scheduler.plugins.module_utils.lock import NAME_LABEL, apply_changed, lock_converge
from ansible_collections.kubesched.scheduler.plugins.module_utils.trial import delete_and_wait, last_lines, run_trial, wait_gone

monotonic = time.monotonic
TEMPLATE_LABEL = "kubesched.io/pod-template"
PROTECTED_NAMESPACES = ("kube-system", "kube-public", "kube-node-lease", "default")


# --- one rule each -----------------------------------------------------------------------------


def pod_states(pods):
    """One line per pod: its name, phase, the messages of its false conditions and of its waiting containers."""
    lines = []
    for pod in pods:
        status = pod.get("status") or {}
        words = [pod["metadata"]["name"], status.get("phase") or "Unknown"]
        words += [c.get("message") for c in status.get("conditions") or [] if c.get("status") != "True" and c.get("message")]
        words += [
            ((s.get("state") or {}).get("waiting") or {}).get("message")
            for s in status.get("containerStatuses") or []
            if ((s.get("state") or {}).get("waiting") or {}).get("message")
        ]
        lines.append(" ".join(dict.fromkeys(words)))  # Ready and ContainersReady say the same
    return lines


def template_label(deployment):
    return ((((deployment or {}).get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels", {}).get(TEMPLATE_LABEL)


def not_ours(objects, found):
    """The objects of the scheduler's names that exist and that the collection did not make."""
    return [ref(obj) for obj, current in zip(objects, found, strict=True) if current is not None and not managed_by_us(current)]


def previous_objects(configmap, deployment):
    """What rollback applies: the ConfigMap and the Deployment as they were, their own fields only."""
    objects = []
    for current in (configmap, deployment):
        metadata = current["metadata"]
        kept = {key: metadata[key] for key in ("name", "namespace", "labels", "annotations") if key in metadata}
        kept.get("annotations", {}).pop("deployment.kubernetes.io/revision", None)
        api_version, kind = ("v1", "ConfigMap") if current is configmap else ("apps/v1", "Deployment")
        body = {"apiVersion": api_version, "kind": kind, "metadata": kept}
        for key in ("data", "binaryData", "spec"):
            if key in current:
                body[key] = current[key]
        objects.append(body)
    return objects


def find_kind(objects, kind):
    return next((obj for obj in objects if obj["kind"] == kind), None)


def read_current(kube, obj):
    """The object ``obj`` names (kind, apiVersion, name, namespace) as the cluster has it, or None."""
    metadata = obj["metadata"]
    return kube.get(obj["kind"], metadata["name"], metadata.get("namespace"), api_version=obj.get("apiVersion"))


def prune(kube, refs, check_mode):
    """Delete the objects of ``refs`` that exist and that the collection made (options turned off); the changes."""
    changes = []
    for obj in refs or []:
        current = read_current(kube, obj)
        if current is None or not managed_by_us(current):
            continue
        if not check_mode:
            metadata = obj["metadata"]
            kube.delete(obj["kind"], metadata["name"], metadata.get("namespace"), api_version=obj.get("apiVersion"))
        changes.append(f"{ref(obj)} deleted")
    return changes


def waiting_pods(kube, names):
    """``namespace/name`` of the pods not bound to a node whose schedulerName is one of ``names`` (one list each), and
    why they could not be listed ('' when they could)."""
    pods = []
    for name in names:
        try:
            found = kube.list("Pod", field_selector=f"spec.schedulerName={name},spec.nodeName=,status.phase=Pending")
        except KubeError as exc:
            if exc.status not in (401, 403):
                raise
            return [], f"could not list the pods left waiting for schedulerName {', '.join(names)}: {exc}"
        pods += [f"{pod['metadata']['namespace']}/{pod['metadata']['name']}" for pod in not_deleted(found)]
    return sorted(pods), ""


def converge(kube, params, check_mode=False, diff=False):
    """Install or update the scheduler; the module's result. Raises EngineError on failure."""
    objects = params["objects"]
    deployment, configmap = find_kind(objects, "Deployment"), find_kind(objects, "ConfigMap")
    name, namespace = deployment["metadata"]["name"], deployment["metadata"]["namespace"]
    lock = params["lock"]
    timeout = params["wait_timeout"]
    image = deployment["spec"]["template"]["spec"]["containers"][0]["image"]
    result = {"changed": False, "changes": [], "phases": {}, "rolled_back": False, "lease_holder": "", "image": image}
    diffs = []
    timings = result["phases"]

    # 1. What is deployed; objects of these names that the collection did not make are not taken over.
    start = monotonic()
    found = [read_current(kube, obj) for obj in objects]
    binding = kube.get("ClusterRoleBinding", lock["binding"]["metadata"]["name"])
    others = not_ours(objects + [lock["binding"]], found + [binding])
    if others and not params.get("adopt"):
        raise EngineError(
            f"{', '.join(others)} already exist{'s' if len(others) == 1 else ''} and {'was' if len(others) == 1 else 'were'} not made by this collection "
            f"(no label app.kubernetes.io/managed-by={MANAGER}), for example by a hand-made install of the Kubernetes task: "
            f"nothing was changed. Remove {'it' if len(others) == 1 else 'them'} (kubectl delete), set kube_scheduler_adopt: true to take "
            f"{'it' if len(others) == 1 else 'them'} over (the running pods keep scheduling until the new ones hold the Lease), or choose "
            "another kube_scheduler_name.",
            foreign=others,
        )
    result["adopted"] = others
    previous = dict(zip((obj["kind"] for obj in objects), found, strict=True))
    previous_deployment, previous_configmap = previous.get("Deployment"), previous.get("ConfigMap")
    # A Deployment of another selector (immutable) is replaced: deleted with its ReplicaSets orphaned, so its pods
    # keep scheduling until the new pods are ready; they go before the wait for the Lease.
    replaced = previous_deployment if previous_deployment and not managed_by_us(previous_deployment) else None
    if replaced and replaced["spec"].get("selector") == deployment["spec"]["selector"]:
        replaced = None
    timings["read"] = round(monotonic() - start, 1)

    # 2. The trial, when an update changes the pod template (which covers the configuration): the scheduler that runs
    #    keeps running unless the new one loads its configuration. A first install has no scheduler to protect: its own
    #    pods are the trial, and when they fail, what the run created goes again (below), like helm install --atomic.
    template = template_label(deployment)
    first_install = previous_deployment is None
    if not check_mode and not first_install and template_label(previous_deployment) != template:
        timings["trial"] = run_trial(kube, deployment, configmap, timeout, image, params["hint"])

    # 3. The lock.
    start = monotonic()
    lock_changes = lock_converge(kube, lock, "present", check_mode)
    result["changes"] += lock_changes
    namespace_object, namespace_created = lock.get("namespace"), None
    if namespace_object and kube.get("Namespace", namespace_object["metadata"]["name"]) is None:
        apply_changed(kube, namespace_object, check_mode, before={}, diffs=diffs if diff else None)
        result["changes"].append(ref(namespace_object))
        namespace_created = namespace_object
    timings["lock"] = round(monotonic() - start, 1)

    # 4. Apply. Restarts of pods already running the template to deploy are not this run's doing.
    start = monotonic()
    selector = f"app.kubernetes.io/name={name},{NAME_LABEL}={name},{TEMPLATE_LABEL}={template}"
    restarts_before = restarts(kube.list("Pod", namespace, selector)) if previous_deployment and not check_mode else 0
    # What is listed after the Deployment sends pods to it: applied only once the new pods lead.
    after = objects.index(deployment) + 1
    try:
        orphans = []
        for obj, before in zip(objects[:after], found[:after], strict=True):
            if obj is deployment and replaced:
                orphans = orphan(kube, replaced, timeout, check_mode)
                result["changes"].append(f"{ref(obj)} replaced (selector {replaced['spec'].get('selector')})")
                before = None
            if apply_changed(kube, obj, check_mode, before=before, diffs=diffs if diff else None):
                result["changes"].append(ref(obj))
        timings["apply"] = round(monotonic() - start, 1)
        if not check_mode:
            start = monotonic()
            result["lease_holder"] = wait_rollout(kube, params, selector, restarts_before, orphans)
            timings["wait"] = round(monotonic() - start, 1)
        for obj, before in zip(objects[after:], found[after:], strict=True):
            if apply_changed(kube, obj, check_mode, before=before, diffs=diffs if diff else None):
                result["changes"].append(ref(obj))
        result["changes"] += prune(kube, params.get("prune"), check_mode)
    except Exception as exc:
        if check_mode:
            raise
        why = exc.msg if isinstance(exc, EngineError) else f"Applying the objects failed: {api_reason(exc)}."
        if first_install:
            created = [obj for obj, before in zip(objects, found, strict=True) if before is None]
            msg = undo_install(kube, params, created, bool(lock_changes), namespace_created, why)
            raise EngineError(msg, rolled_back=True, changes=[]) from None
        if replaced:  # the replaced Deployment comes back and adopts its ReplicaSets again: its pods never stopped
            kube.delete("Deployment", name, namespace, propagation="Background")
            wait_gone(kube, "Deployment", name, namespace, timeout)
        msg = rollback(kube, params, previous_configmap, previous_deployment, why)
        raise EngineError(msg, rolled_back=bool(previous_deployment), changes=result["changes"]) from None
    result["changed"] = bool(result["changes"])
    if diff and diffs:
        result["diff"] = diffs
    return result


def orphan(kube, replaced, timeout, check_mode):
    """Delete a Deployment the collection did not make, leaving its ReplicaSets (and so its pods) running; their names."""
    metadata = replaced["metadata"]
    owned = [
        rs["metadata"]["name"]
        for rs in kube.list("ReplicaSet", metadata["namespace"])
        if any(owner.get("uid") == metadata.get("uid") for owner in rs["metadata"].get("ownerReferences") or [])
    ]
    if not check_mode:
        kube.delete("Deployment", metadata["name"], metadata["namespace"], propagation="Orphan")
        wait_gone(kube, "Deployment", metadata["name"], metadata["namespace"], timeout)
    return owned


def wait_rollout(kube, params, selector, restarts_before, orphans=()):
    """Until every new pod is ready (or one cannot start), the Deployment has rolled out, the ReplicaSets of a replaced
    Deployment are gone, and a new pod holds the Lease."""
    objects, lock, timeout = params["objects"], params["lock"], params["wait_timeout"]
    deployment = find_kind(objects, "Deployment")
    name, namespace = deployment["metadata"]["name"], deployment["metadata"]["namespace"]
    replicas = deployment["spec"].get("replicas", 1)
    image = deployment["spec"]["template"]["spec"]["containers"][0]["image"]

    def settled(pods):
        return len([pod for pod in not_deleted(pods) if pod_ready(pod)]) >= replicas or cannot_start(pods, restarts_before)

    pods, dummy = wait_for(lambda: kube.list("Pod", namespace, selector), settled, timeout)
    failing = cannot_start(pods, restarts_before)
    ready = [pod for pod in not_deleted(pods) if pod_ready(pod)]
    if failing or len(ready) < replicas:
        msg = f"The new pods of Deployment {namespace}/{name} (image {image}) "
        msg += f"fail ({', '.join(failing)})." if failing else f"are not ready after {timeout}s."
        msg += f" Pods: {'; '.join(pod_states(pods))}."
        if failing and not_deleted(pods):
            pod = not_deleted(pods)[0]
            restarted = any((s.get("restartCount") or 0) > 0 for s in (pod.get("status") or {}).get("containerStatuses") or [])
            log = kube.log(pod["metadata"]["name"], namespace, previous=restarted)
            if log.strip():
                msg += f" Log: {last_lines(log, 3)}"
        raise EngineError(msg)
    current, met = wait_for(lambda: kube.get("Deployment", name, namespace), lambda d: d is not None and rolled_out(d), timeout)
    if not met:
        raise EngineError(f"Deployment {namespace}/{name} did not roll out within {timeout}s: status {(current or {}).get('status')}.")
    for replica_set in orphans:
        kube.delete("ReplicaSet", replica_set, namespace, propagation="Background")
    if not lock["leader_elect"]:
        return ""
    new_pods = {pod["metadata"]["name"] for pod in not_deleted(kube.list("Pod", namespace, selector))}
    lease, met = wait_for(
        lambda: kube.get("Lease", lock["lock_name"], lock["lock_namespace"]),
        lambda lease: holder_pod(lease_holder(lease)) in new_pods,
        timeout,
    )
    if not met:
        raise EngineError(
            f"No new pod of Deployment {namespace}/{name} took the Lease {lock['lock_namespace']}/{lock['lock_name']} within {timeout}s "
            f"(held by {lease_holder(lease) or 'nobody'})."
        )
    return lease_holder(lease)


def rollback(kube, params, previous_configmap, previous_deployment, why):
    """Like ``helm upgrade --atomic``: the ConfigMap and the Deployment go back to what they were before this run.

    The previous pods never stopped (the rollout keeps them until new ones are ready), so the scheduler that
    ran before keeps its Lease. Returns the failure message."""
    lock, timeout = params["lock"], params["wait_timeout"]
    deployment = find_kind(params["objects"], "Deployment")
    name, namespace = deployment["metadata"]["name"], deployment["metadata"]["namespace"]
    if not (previous_deployment and previous_configmap):
        return f"{why} Not rolled back: the Deployment had no ConfigMap to go back to (kube_scheduler_state=absent removes it)."
    for obj in previous_objects(previous_configmap, previous_deployment):
        kube.apply(obj)
    wanted = (previous_deployment.get("spec") or {}).get("replicas", 1)
    current, dummy = wait_for(lambda: kube.get("Deployment", name, namespace), lambda d: d is not None and rolled_out(d), timeout)
    ready = ((current or {}).get("status") or {}).get("readyReplicas") or 0
    msg = f"{why} Rolled back: the ConfigMap and the Deployment are as they were before this run, and its pods are "
    msg += "ready" if ready >= wanted else "not ready yet"
    if lock["leader_elect"]:
        lease = kube.get("Lease", lock["lock_name"], lock["lock_namespace"])
        if lease:
            msg += f"; the Lease {lock['lock_namespace']}/{lock['lock_name']} is held by {lease_holder(lease) or 'nobody'}"
    return msg + "."


def undo_install(kube, params, created, lock_granted, namespace, why):
    """A first install that failed: what the run created goes again, newest first (the Deployment in the foreground, so
    its pods go with it), the Lease when one of its pods took it, the lock's RBAC when the run granted it, and the lock
    namespace when the run created it. Returns the failure message."""
    lock, timeout = params["lock"], params["wait_timeout"]
    name = find_kind(params["objects"], "Deployment")["metadata"]["name"]
    gone = [ref(obj) for obj in reversed(created) if delete_and_wait(kube, obj, timeout)]
    lease = kube.get("Lease", lock["lock_name"], lock["lock_namespace"]) if lock["leader_elect"] else None
    if lease is not None and held_by(lease_holder(lease), name):
        kube.delete("Lease", lock["lock_name"], lock["lock_namespace"])
        gone.append(f"Lease {lock['lock_namespace']}/{lock['lock_name']}")
    if lock_granted:
        gone += lock_converge(kube, lock, "absent", False)
    if namespace is not None and delete_and_wait(kube, namespace, timeout):
        gone.append(ref(namespace))
    return (
        f"{why} This was the first install: what it created is removed again ({', '.join(gone) or 'nothing was left'}), "
        f"and the cluster is as it was before this run. {params['hint']}"
    )


def remove(kube, params, check_mode=False, diff=False):
    """Delete the objects newest first, the Lease when a pod of the scheduler held it last (or nobody), the
    lock namespace when the collection created it, then the lock's RBAC. The module's result."""
    objects, lock, timeout = params["objects"], params["lock"], params["wait_timeout"]
    result = {"changed": False, "changes": [], "phases": {}}
    start = monotonic()
    deployment = find_kind(objects, "Deployment")
    name = deployment["metadata"]["name"]
    served = [name]
    for obj in reversed(objects):
        current = read_current(kube, obj)
        if current is None:
            continue
        if obj["kind"] == "Deployment":
            served = served_names(current) or served
        if not check_mode:
            delete_and_wait(kube, obj, timeout)
        result["changes"].append(f"{ref(obj)} deleted")
    # The scheduler's pods created the Lease: it goes when one of them held it last, or when it was released.
    lease = kube.get("Lease", lock["lock_name"], lock["lock_namespace"])
    if lease is not None and (not lease_holder(lease) or held_by(lease_holder(lease), name)):
        if not check_mode:
            kube.delete("Lease", lock["lock_name"], lock["lock_namespace"])
        result["changes"].append(f"Lease {lock['lock_namespace']}/{lock['lock_name']} deleted")
    ns_name = lock["lock_namespace"]
    if ns_name not in PROTECTED_NAMESPACES and ns_name != deployment["metadata"]["namespace"]:
        ns = kube.get("Namespace", ns_name)
        if ns is not None and managed_by_us(ns) and ((ns["metadata"].get("labels") or {}).get(NAME_LABEL) == name):
            if not check_mode:
                kube.delete("Namespace", ns_name)
                wait_gone(kube, "Namespace", ns_name, None, timeout)
            result["changes"].append(f"Namespace {ns_name} deleted")
    result["changes"] += lock_converge(kube, lock, "absent", check_mode)
    # Pods that asked for the removed names wait for a scheduler that is gone; a pod's schedulerName cannot change.
    result["pending_pods"], unlisted = waiting_pods(kube, served)
    if unlisted:
        result["warnings"] = [f"Removed, but {unlisted}."]
    if result["pending_pods"]:
        shown = ", ".join(result["pending_pods"][:10]) + (f" and {len(result['pending_pods']) - 10} more" if len(result["pending_pods"]) > 10 else "")
        result["warnings"] = [
            f"{len(result['pending_pods'])} pod(s) still wait for schedulerName {', '.join(served)}, which nothing serves now: {shown}. Delete "
            "them, or create them again without spec.schedulerName (the default scheduler); a pod's schedulerName cannot be changed."
        ]
    result["phases"]["remove"] = round(monotonic() - start, 1)
    result["changed"] = bool(result["changes"])
    if diff and result["changed"]:
        result["diff"] = {"before": "\n".join(result["changes"]) + "\n", "after": ""}
    return result
