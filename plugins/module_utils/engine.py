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
pods still waiting for the names it served. ``preflight`` is the one read of the cluster and the
registry before anything is rendered. Every wait is a Python predicate over API objects as dicts, so
each can be tested without a cluster.
"""

from __future__ import annotations

import copy
import re
import time

from ansible_collections.kubesched.scheduler.plugins.module_utils import clusterrole
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.predicates import (
    CANNOT_START,
    KUBE_SCHEDULER,
    cannot_start,
    held_by,
    holder_pod,
    lease_holder,
    not_deleted,
    pod_ready,
    restarts,
    rolled_out,
)
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.serving import COMPONENT_LABEL, SYSTEM_NAMESPACE, is_static_scheduler, served_names
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.waiter import wait_for
from ansible_collections.kubesched.scheduler.plugins.module_utils.kube import MANAGER, Kube, KubeError, api_reason, content, managed_by_us, ref

monotonic = time.monotonic
TEMPLATE_LABEL = "kubesched.io/pod-template"
NAME_LABEL = "kubesched.io/scheduler-name"
TRIAL_LABEL = "kubesched.io/trial"
PROTECTED_NAMESPACES = ("kube-system", "kube-public", "kube-node-lease", "default")


class EngineError(Exception):
    """A failure with a message for the user; ``result`` is merged into the module's result."""

    def __init__(self, msg, **result):
        super().__init__(msg)
        self.msg = msg
        self.result = result


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


def last_lines(text, lines, limit=600):
    said = " ".join(line.strip() for line in (text or "").strip().splitlines()[-lines:])
    return said if len(said) <= limit else said[: limit - 3] + "..."


# --- the trial -----------------------------------------------------------------------------------


def trial_objects(deployment, configmap, manager=MANAGER):
    """The trial's ConfigMap and Pod: the Deployment's pod, run once with ``--master`` at a closed port and
    ``--write-config-to``, so that kube-scheduler loads, defaults and validates the configuration and exits
    before it connects. Its labels are not the Deployment's, and it needs neither the ServiceAccount nor a token."""
    name = deployment["metadata"]["name"]
    namespace = deployment["metadata"]["namespace"]
    trial = f"{name}-trial"
    labels = {"app.kubernetes.io/managed-by": manager, TRIAL_LABEL: name}
    spec = copy.deepcopy(deployment["spec"]["template"]["spec"])
    container = {key: value for key, value in spec["containers"][0].items() if key not in ("livenessProbe", "readinessProbe", "startupProbe")}
    container["command"] = list(container.get("command") or []) + ["--master=https://127.0.0.1:9", "--write-config-to=/dev/null"]
    spec = {key: value for key, value in spec.items() if key not in ("serviceAccountName", "affinity")}
    spec.update(
        containers=[container],
        restartPolicy="Never",
        automountServiceAccountToken=False,
        volumes=[{"name": "config-volume", "configMap": {"name": trial}}],
    )
    meta = {"name": trial, "namespace": namespace, "labels": labels}
    return (
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": dict(meta), "data": copy.deepcopy(configmap.get("data") or {})},
        {"apiVersion": "v1", "kind": "Pod", "metadata": dict(meta), "spec": spec},
    )


def trial_reasons(pod):
    """``reason: message`` of the trial container's waiting and terminated states, waiting first."""
    states = [status.get("state") or {} for status in ((pod or {}).get("status") or {}).get("containerStatuses") or []]
    said = [state["waiting"] for state in states if state.get("waiting")] + [state["terminated"] for state in states if state.get("terminated")]
    return "; ".join(": ".join(part for part in (s.get("reason") or "", s.get("message") or "") if part) for s in said if s.get("reason") or s.get("message"))


def trial_finished(pod):
    status = (pod or {}).get("status") or {}
    if status.get("phase") in ("Succeeded", "Failed"):
        return True
    waiting = [((s.get("state") or {}).get("waiting") or {}).get("reason") for s in status.get("containerStatuses") or []]
    return any(reason in CANNOT_START for reason in waiting)


def wait_gone(kube, kind, name, namespace, timeout, api_version=None):
    wait_for(lambda: kube.get(kind, name, namespace, api_version=api_version), lambda obj: obj is None, timeout)


def delete_and_wait(kube, obj, timeout):
    """Delete the object ``obj`` names and wait until it is gone; False when it did not exist. A Deployment goes in the
    foreground: once it is gone, so are its pods, and nothing renews the Lease."""
    kind, metadata, api_version = obj["kind"], obj["metadata"], obj.get("apiVersion")
    propagation = "Foreground" if kind == "Deployment" else None
    if not kube.delete(kind, metadata["name"], metadata.get("namespace"), propagation=propagation, api_version=api_version):
        return False
    wait_gone(kube, kind, metadata["name"], metadata.get("namespace"), timeout, api_version=api_version)
    return True


def run_trial(kube, deployment, configmap, timeout, image, fix):
    """Try the configuration; raise EngineError when kube-scheduler refuses it or does not start. Returns seconds taken."""
    start = monotonic()
    trial_cm, trial_pod = trial_objects(deployment, configmap, kube.manager)
    name, namespace = trial_pod["metadata"]["name"], trial_pod["metadata"]["namespace"]
    priority = trial_pod["spec"].get("priorityClassName")
    if priority and kube.get("PriorityClass", priority) is None:  # one this run creates, after the trial
        del trial_pod["spec"]["priorityClassName"]
    for kind in ("Pod", "ConfigMap"):  # an interrupted run's leftovers
        if kube.delete(kind, name, namespace, grace_period=0):
            wait_gone(kube, kind, name, namespace, timeout)
    log = ""
    try:
        kube.apply(trial_cm)
        kube.apply(trial_pod)
        pod, dummy = wait_for(lambda: kube.get("Pod", name, namespace), trial_finished, timeout)
        phase = ((pod or {}).get("status") or {}).get("phase")
        if phase == "Failed":
            log = kube.log(name, namespace, tail_lines=10)
    finally:
        kube.delete("Pod", name, namespace, grace_period=0)
        kube.delete("ConfigMap", name, namespace)
        wait_gone(kube, "Pod", name, namespace, timeout)
    if phase != "Succeeded":
        said = trial_reasons(pod) or "no Pod ran within kube_scheduler_wait_timeout"
        msg = f"kube-scheduler of {image} did not accept the configuration, or did not start ({said})."
        if log.strip():
            msg += f" It said: {last_lines(log, 2)}."
        raise EngineError(msg + " Nothing was changed. " + fix, trial={"result": "refused", "said": said})
    return round(monotonic() - start, 1)


# --- the lock ------------------------------------------------------------------------------------


def lock_converge(kube, lock, state, check_mode):
    """The scheduler's right to hold its own lock, for both RBAC modes and a switch between them.

    ``lock``: ``mode`` (patch or dedicated), ``clusterrole`` (the ClusterRole patch mode adds the lock name
    to), ``lock_name``, ``binding`` (the ClusterRoleBinding ``<name>-as-kube-scheduler``, rendered) and
    ``dedicated`` (the dedicated ClusterRole, rendered; in patch mode only its name and labels are used, to
    delete one this collection made before). A switch never leaves a running scheduler without its lock:
    the new grant exists before the binding moves to it, and the other mode's grant goes only after.
    Returns the list of changes made (predicted in check mode).
    """
    changes = []
    binding, dedicated = lock["binding"], lock["dedicated"]
    binding_name = binding["metadata"]["name"]
    bound = kube.get("ClusterRoleBinding", binding_name)
    bound_now = ((bound or {}).get("roleRef") or {}).get("name") or ""
    bind_to = ""
    if state == "present":
        bind_to = lock["clusterrole"] if lock["mode"] == "patch" else dedicated["metadata"]["name"]

    def patch_role(patch_state):
        result = clusterrole.run(lambda: kube, {"name": lock["clusterrole"], "lock_name": lock["lock_name"], "state": patch_state}, check_mode=check_mode)
        if result.get("msg"):
            raise EngineError(result["msg"])
        if result.get("changed"):
            verb = "added to" if patch_state == "present" else "removed from"
            changes.append(f"lock name {lock['lock_name']} {verb} ClusterRole {lock['clusterrole']}")

    # 1. The grant of the mode asked for.
    if state == "present" and lock["mode"] == "patch":
        patch_role("present")
    if state == "present" and lock["mode"] == "dedicated" and apply_changed(kube, dedicated, check_mode):
        changes.append(ref(dedicated))
    # 2. The binding; its roleRef cannot change, so moving it deletes and creates it.
    moving = bound_now not in ("", bind_to)
    if moving:
        if not check_mode:
            kube.delete("ClusterRoleBinding", binding_name)
        changes.append(f"ClusterRoleBinding {binding_name} deleted (bound {bound_now})")
    if state == "present" and not (check_mode and moving) and apply_changed(kube, binding, check_mode):
        changes.append(ref(binding))
    # 3. The other grants: the other mode's, or both on removal. Only what the collection added goes.
    if state == "absent" or lock["mode"] == "dedicated":
        patch_role("absent")
    if state == "absent" or lock["mode"] == "patch":
        name = dedicated["metadata"]["name"]
        role = kube.get("ClusterRole", name)
        labels = ((role or {}).get("metadata") or {}).get("labels") or {}
        if role and managed_by_us(role) and labels.get(NAME_LABEL) == dedicated["metadata"]["labels"].get(NAME_LABEL):
            if not check_mode:
                kube.delete("ClusterRole", name)
            changes.append(f"ClusterRole {name} deleted")
    return changes


# --- apply ---------------------------------------------------------------------------------------


def apply_changed(kube, obj, check_mode, before=None, diffs=None):
    """Server-side apply (a dry run in check mode); whether the object's content changed."""
    if before is None:
        metadata = obj["metadata"]
        before = kube.get(obj["kind"], metadata["name"], metadata.get("namespace"))
    after = kube.apply(obj, dry_run=check_mode)
    if before is not None and not check_mode:
        changed = (after.get("metadata") or {}).get("resourceVersion") != (before.get("metadata") or {}).get("resourceVersion")
    else:
        changed = content(before) != content(after)
    if changed and diffs is not None:
        diffs.append({"before_header": ref(obj), "after_header": ref(obj), "before": content(before), "after": content(after)})
    return changed


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


# --- the preflight ---------------------------------------------------------------------------------

# What a ServiceMonitor and a PrometheusRule need: the Prometheus Operator's API.
MONITORING_API = "monitoring.coreos.com/v1"
MONITORING_RESOURCES = ("servicemonitors", "prometheusrules")
NO_REGISTRY = "With kube_scheduler_image_target=kind or local the Deployment names repo:tag without asking a registry."


def connection_text(params):
    kubeconfig = params.get("kubeconfig")
    if isinstance(kubeconfig, dict):
        kubeconfig = "an in-memory kubeconfig"
    return (
        f"kube_scheduler_kubeconfig ('{kubeconfig or 'the kubernetes.core default'}') and "
        f"kube_scheduler_context ('{params.get('context') or 'the current context'}')"
    )


def image_digest(params):
    """The digest of ``image:tag`` in its registry, or the failure message."""
    from ansible_collections.kubesched.scheduler.plugins.module_utils import registry

    image, tag = params["image"], params["image_tag"]
    try:
        api = registry.api_url(image, params.get("registry_url") or "")
    except ValueError as exc:
        raise EngineError(f"kube_scheduler_image '{image}': {exc}") from None
    try:
        return registry.manifest_digest(
            image,
            tag,
            registry_url=params.get("registry_url") or "",
            username=params.get("registry_username") or "",
            password=params.get("registry_password") or "",
        )
    except registry.RegistryError as exc:
        if exc.kind == "unreachable":
            raise EngineError(
                f"The registry of kube_scheduler_image ({api}) did not answer ({exc}): start it, or correct kube_scheduler_image or "
                f"kube_scheduler_registry_url. {NO_REGISTRY}"
            ) from None
        if exc.kind == "denied":
            raise EngineError(
                f"The registry {api} refused to show {image}:{tag} (HTTP {exc.status}): set kube_scheduler_registry_username and "
                f"kube_scheduler_registry_password, or give kube_scheduler_image_digest. {NO_REGISTRY}"
            ) from None
        raise EngineError(
            f"The registry {api} has no kube_scheduler_image_tag '{tag}' of kube_scheduler_image '{image}' (HTTP {exc.status}): build and "
            f"push it first (roles build and image), or correct the tag. {NO_REGISTRY}"
        ) from None


# --- sharing the nodes: the node pool and the routing of pods --------------------------------------

# What serves MutatingAdmissionPolicy, newest first: GA (on by default) from Kubernetes 1.36; beta in 1.34 and 1.35,
# served only with the feature gate MutatingAdmissionPolicy and --runtime-config=admissionregistration.k8s.io/v1beta1=true.
ROUTING_RESOURCE = "mutatingadmissionpolicies"
ROUTING_GATE = "MutatingAdmissionPolicy"
ROUTING_API_VERSIONS = ("admissionregistration.k8s.io/v1", "admissionregistration.k8s.io/v1beta1")
# How to get it on a cluster without it.
ROUTING_MINIMUM = (
    "Kubernetes 1.36 or newer serves it (admissionregistration.k8s.io/v1, on by default); 1.34 and 1.35 serve "
    "admissionregistration.k8s.io/v1beta1 with the API server's --feature-gates=MutatingAdmissionPolicy=true and "
    "--runtime-config=admissionregistration.k8s.io/v1beta1=true. Upgrade or configure the cluster, or empty "
    "kube_scheduler_route_namespace_selector (and set spec.schedulerName in the workloads). Nothing was changed."
)


def admission_policy_api(kube):
    """The apiVersion at which the API server serves MutatingAdmissionPolicy, or '' (one GET when v1 is served)."""
    for api_version in ROUTING_API_VERSIONS:
        if ROUTING_RESOURCE in kube.resources(api_version):
            return api_version
    return ""


def feature_enabled(kube, gate):
    """Whether the API server runs with the feature gate on, from its ``kubernetes_feature_enabled`` metric (Kubernetes
    1.26 and newer); None when it cannot tell (/metrics refused, or no such line)."""
    try:
        text = kube.request("GET", "/metrics", raw=True)
    except KubeError:
        return None
    match = re.search(r'^kubernetes_feature_enabled\{[^}]*name="' + re.escape(gate) + r'"[^}]*\} (\S+)$', text, re.M)
    return None if match is None else float(match.group(1)) == 1


def routing_refused(server_version, api_version=""):
    if api_version:
        # Kubernetes 1.34 and 1.35 serve the v1beta1 objects with --runtime-config alone, but apply them only with the gate.
        said = f"serves {api_version} MutatingAdmissionPolicy objects but runs without the feature gate {ROUTING_GATE}, so none would apply"
    else:
        said = "does not serve it"
    return f"kube_scheduler_route_namespace_selector needs MutatingAdmissionPolicy, and this cluster ({server_version}) {said}: {ROUTING_MINIMUM}"


def label_selector(labels):
    """``key=value,...`` of a dict of labels, sorted."""
    return ",".join(f"{key}={value}" for key, value in sorted((labels or {}).items()))


def taint_text(taint):
    """A taint as kubectl taint writes it: ``key=value:Effect`` (``key:Effect`` without a value)."""
    value = taint.get("value") or ""
    return f"{taint['key']}{'=' + value if value else ''}:{taint.get('effect') or 'NoSchedule'}"


def has_taint(node, taint):
    effect = taint.get("effect") or "NoSchedule"
    return any(
        t.get("key") == taint["key"] and (t.get("value") or "") == (taint.get("value") or "") and t.get("effect") == effect
        for t in ((node.get("spec") or {}).get("taints") or [])
    )


def pool_warnings(name, pool, nodes):
    """What lets default-scheduler and the scheduler ``name`` place pods onto the same nodes. ``pool`` is
    kube_scheduler_node_pool, ``nodes`` the nodes that carry its labels (None when they could not be listed)."""
    if not (pool or {}).get("labels"):
        return [
            f"kube_scheduler_node_pool is not set: {name} and default-scheduler can place pods onto the same nodes. Two schedulers do "
            "not see each other's decisions until they are written: both can bind onto the same free capacity, and the node's kubelet "
            "then rejects one of the pods (OutOfcpu, OutOfmemory; kubernetes#60469). Give the scheduler nodes of its own "
            "(kube_scheduler_node_pool: {labels: ..., taint: ...}), or run its profile in the default scheduler instead "
            "(kube_scheduler_main_profiles_extra of the role main_scheduler)."
        ]
    selector = label_selector(pool["labels"])
    names = [node["metadata"]["name"] for node in nodes or []]
    warnings = []
    if nodes == []:
        warnings.append(
            f"No node carries the labels of kube_scheduler_node_pool ({selector}): the pods of {name} stay Pending until one does "
            f"(kubectl label nodes <node> {selector.replace(',', ' ')})."
        )
    taint = pool.get("taint") or {}
    where = ", ".join(names) or selector
    if not taint.get("key") or (taint.get("effect") or "NoSchedule") == "PreferNoSchedule":
        warnings.append(
            f"kube_scheduler_node_pool has no taint that keeps other pods off ({'PreferNoSchedule only prefers' if taint.get('key') else 'none given'}): "
            f"default-scheduler can place pods onto the pool's nodes ({where}) too, where {name} places its pods, and a node both bind onto "
            "at once can be overcommitted. Give the pool a taint with effect NoSchedule (kube_scheduler_node_pool.taint, and kubectl taint "
            "on its nodes), or give default-scheduler's profile the inverse addedAffinity (kube_scheduler_main_plugin_config of the role "
            "main_scheduler)."
        )
    else:
        untainted = [node["metadata"]["name"] for node in nodes or [] if not has_taint(node, taint)]
        if untainted:
            warnings.append(
                f"Node(s) {', '.join(untainted)} carry the labels of kube_scheduler_node_pool ({selector}) but not its taint {taint_text(taint)}: "
                f"default-scheduler can place pods there too, where {name} places its pods. Taint them: kubectl taint nodes "
                f"{' '.join(untainted)} {taint_text(taint)}"
            )
    return warnings


def preflight(connect, params):
    """What only the cluster and the registry can tell, read once before anything is rendered or changed."""
    result = {"changed": False}
    try:
        kube = Kube(connect())
        result["server_version"] = kube.version()
    except Exception as exc:  # no kubeconfig, no such context, connection refused, 401, ...
        raise EngineError(
            f"Cannot reach the cluster with {connection_text(params)}: {api_reason(exc)[:400]}. Point them at the "
            "cluster (kubectl --context <context> version tells whether they work), or set the connection with kube_scheduler_k8s_auth."
        ) from None
    result["api_requests"] = 1
    if params.get("version_only"):
        return result
    # Where MutatingAdmissionPolicy is served: the routing's apiVersion, also what a removal or a run without routing deletes.
    result["admission_policy_api"] = admission_policy_api(kube)
    if params["state"] != "present":
        result["api_requests"] = kube.requests
        return result
    warnings = []
    api_version = result["admission_policy_api"]
    if params.get("route") and not api_version:
        raise EngineError(routing_refused(result["server_version"]), admission_policy_api="")
    if params.get("route") and api_version != ROUTING_API_VERSIONS[0]:
        enabled = feature_enabled(kube, ROUTING_GATE)
        if enabled is False:
            raise EngineError(routing_refused(result["server_version"], api_version), admission_policy_api=api_version)
        if enabled is None:
            warnings.append(
                f"Could not tell whether the API server runs with the feature gate {ROUTING_GATE} (its /metrics did not say): without it "
                f"the {api_version} MutatingAdmissionPolicy of kube_scheduler_route_namespace_selector routes no pod."
            )
    missing = [option for option in ("name", "lock_name", "image", "image_tag") if not params.get(option)]
    if missing:
        raise EngineError(f"{', '.join(missing)} must be given with state=present (unless version_only=true)")
    name, namespace = params["name"], params["namespace"]
    lock_name, lock_namespace = params["lock_name"], params["lock_namespace"]

    served = kube.list("Deployment", label_selector=f"{NAME_LABEL}={name}")
    others = [d["metadata"] for d in served if (d["metadata"]["namespace"], d["metadata"]["name"]) != (namespace, name)]
    if others:
        raise EngineError(
            f"kube_scheduler_name '{name}' is already served by the Deployment(s) {', '.join(m['namespace'] + '/' + m['name'] for m in others)}: "
            "two schedulers with the same name would both bind the same pods. Choose another kube_scheduler_name, or set "
            "kube_scheduler_namespace to the namespace of the existing one to manage it."
        )
    # The cluster's own kube-scheduler may serve the name too, as a profile of its configuration (one list of kube-system).
    main = main_scheduler_serving(kube, name, warnings)
    if main:
        raise EngineError(
            f"kube_scheduler_name '{name}' is already served by the cluster's own kube-scheduler ({', '.join(main)}: a profile of its "
            "configuration): two schedulers with the same name would both bind the same pods. Choose another kube_scheduler_name, or "
            "leave that name to the main scheduler's profile (the main_scheduler role's kube_scheduler_main_profiles_extra)."
        )
    existing = {ns: kube.get("Namespace", ns) is not None for ns in dict.fromkeys((namespace, lock_namespace))}
    result.update(namespace_exists=existing[namespace], lock_namespace_exists=existing[lock_namespace])
    if not existing[namespace]:
        raise EngineError(
            f"kube_scheduler_namespace '{namespace}' does not exist: create it first or choose an existing namespace (the default is kube-system)."
        )
    if params["leader_elect"] and not existing[lock_namespace] and not params["lock_namespace_create"]:
        raise EngineError(
            f"kube_scheduler_lock_namespace '{lock_namespace}' does not exist: the scheduler creates its Lease there but not the "
            "namespace. Create it, set kube_scheduler_lock_namespace_create: true, or use kube-system."
        )
    # The Prometheus Operator's API (one GET), for the ServiceMonitor and PrometheusRule; a priority class the run does not make.
    if params.get("metrics"):
        result["monitoring_api"] = set(MONITORING_RESOURCES) <= set(kube.resources(MONITORING_API))
    priority = params.get("priority_class")
    if priority and kube.get("PriorityClass", priority) is None:
        raise EngineError(
            f"kube_scheduler_priority_class_name '{priority}' is no PriorityClass of this cluster (kubectl get priorityclasses lists "
            "them): create it first, leave kube_scheduler_priority_class_name at its default (system-cluster-critical in kube-system, "
            f"else {name}-critical, which the role creates), or empty it for none."
        )
    result["digest"] = params.get("image_digest") or ""
    if params["image_target"] == "registry" and not result["digest"]:
        result["digest"] = image_digest(params)
    if params["leader_elect"] and existing[lock_namespace]:
        holder = lease_holder(kube.get("Lease", lock_name, lock_namespace))
        result["lease_holder"] = holder
        if holder and not held_by(holder, name):
            raise EngineError(
                f"kube_scheduler_lock_name '{lock_name}' in kube_scheduler_lock_namespace '{lock_namespace}' is held by '{holder}', not by a "
                f"pod of {name}: another scheduler elects its leader with that Lease, and the two would take turns. Choose another "
                "kube_scheduler_lock_name (the default is kube_scheduler_name), or remove the other scheduler."
            )
    pool = params.get("node_pool") or {}
    nodes = []
    try:
        nodes = kube.list("Node", label_selector=label_selector(pool["labels"])) if pool.get("labels") else []
    except KubeError as exc:
        if exc.status not in (401, 403):
            raise
        warnings.append(f"Could not list the nodes of kube_scheduler_node_pool ({exc}): their labels and taint were not checked.")
        nodes = None
    result["node_pool_nodes"] = sorted(node["metadata"]["name"] for node in nodes or [])
    result["warnings"] = warnings + pool_warnings(name, pool, nodes)
    result["api_requests"] = kube.requests
    return result


def main_scheduler_serving(kube, name, warnings):
    """The mirror pods of the cluster's own kube-scheduler (static Pods of the control-plane nodes) whose configuration is known
    to serve ``name``: read from a ConfigMap it mounts, or from the profiles the main_scheduler role wrote on the pod. A
    configuration that cannot be read through the API is not guessed at."""
    from ansible_collections.kubesched.scheduler.plugins.module_utils import inventory

    try:
        pods = kube.list("Pod", SYSTEM_NAMESPACE, label_selector=f"{COMPONENT_LABEL}={KUBE_SCHEDULER}")
    except KubeError as exc:
        if exc.status not in (401, 403):
            raise
        warnings.append(f"Could not list the pods of kube-system ({exc}): whether the cluster's own kube-scheduler serves the name was not checked.")
        return []
    found = []
    for pod in pods:
        if is_static_scheduler(pod):
            entry = inventory.static_scheduler(pod, lambda namespace, configmap: kube.get("ConfigMap", configmap, namespace))
            if name in (entry["profiles"] or []):
                found.append(f"{entry['namespace']}/{entry['name']}")
    return found


def run_preflight(connect, params, check_mode=False, diff=False):
    """The ``scheduler_preflight`` module."""
    try:
        return preflight(connect, params)
    except EngineError as exc:
        return dict(exc.result, changed=False, msg=exc.msg)


def run(connect, params, check_mode=False, diff=False):
    """The ``scheduler`` module: converge (state present) or remove (state absent)."""
    kube = Kube(connect())
    start = monotonic()
    step = converge if params["state"] == "present" else remove
    try:
        result = step(kube, params, check_mode, diff)
    except EngineError as exc:
        result = dict(exc.result, msg=exc.msg, changed=bool(exc.result.get("changes")) or exc.result.get("rolled_back", False))
    result["seconds"] = round(monotonic() - start, 1)
    result["api_requests"] = kube.requests
    return result


def run_lock(connect, params, check_mode=False, diff=False):
    """The ``scheduler_lock`` module: the lock's RBAC alone."""
    kube = Kube(connect())
    try:
        changes = lock_converge(kube, params, params["state"], check_mode)
    except EngineError as exc:
        return {"changed": False, "changes": [], "msg": exc.msg, "api_requests": kube.requests}
    result = {"changed": bool(changes), "changes": changes, "api_requests": kube.requests}
    if diff and changes:
        result["diff"] = {"before": "", "after": "\n".join(changes) + "\n"}
    return result
