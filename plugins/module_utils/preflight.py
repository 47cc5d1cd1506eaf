# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The preflight: what only the cluster and the registry can tell, read once before anything is rendered (the
``scheduler_preflight`` module): the connection, the name and the Lease not taken by another scheduler, the namespaces,
the image's digest in its registry, the node pool and the routing of pods."""

from __future__ import annotations

import re

from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.predicates import KUBE_SCHEDULER, held_by, lease_holder
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.serving import COMPONENT_LABEL, SYSTEM_NAMESPACE, is_static_scheduler
from ansible_collections.kubesched.scheduler.plugins.module_utils.errors import EngineError
from ansible_collections.kubesched.scheduler.plugins.module_utils.inputs import GANG_GATE
from ansible_collections.kubesched.scheduler.plugins.module_utils.kube import Kube, KubeError, api_reason
from ansible_collections.kubesched.scheduler.plugins.module_utils.lock import NAME_LABEL

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


# --- gang scheduling: PodGroups served, and the API server's gate -------------------------------------

GANG_API_VERSION = "scheduling.k8s.io/v1beta1"
GANG_RESOURCE = "podgroups"
GANG_HOW = (
    f"Start the API servers with --runtime-config={GANG_API_VERSION}=true and --feature-gates={GANG_GATE}=true (the controller "
    "managers with the gate too; with kubeadm, extraArgs of apiServer and controllerManager in its ClusterConfiguration), or "
    "set kube_scheduler_gang_scheduling: false. Nothing was changed."
)


def gang_refused(kube, server_version):
    """Why this cluster cannot carry gang scheduling, or '' (it serves PodGroups of scheduling.k8s.io/v1beta1 and its API
    server runs with the gate, as far as its /metrics tells)."""
    resources = kube.resources(GANG_API_VERSION)
    if GANG_RESOURCE not in resources:
        said = (
            f"serves {GANG_API_VERSION} without {GANG_RESOURCE} (its API server runs without the feature gate {GANG_GATE})"
            if resources
            else f"does not serve {GANG_API_VERSION}"
        )
        return f"kube_scheduler_gang_scheduling needs PodGroups ({GANG_API_VERSION}), and this cluster ({server_version}) {said}. {GANG_HOW}"
    if feature_enabled(kube, GANG_GATE) is False:
        return (
            f"kube_scheduler_gang_scheduling needs the API server's feature gate {GANG_GATE} (without it the API server drops the "
            f"pods' spec.schedulingGroup), and this cluster's ({server_version}) /metrics says it is off. {GANG_HOW}"
        )
    return ""


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
    if params.get("gang_scheduling"):
        refused = gang_refused(kube, result["server_version"])
        if refused:
            raise EngineError(refused, admission_policy_api=api_version)
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
