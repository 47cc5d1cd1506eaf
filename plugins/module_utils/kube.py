# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The few Kubernetes API calls the deploy engine makes, on plain dicts.

The kinds the collection manages are known in advance, so every call goes straight to its typed
``kubernetes.client`` method (``patch_namespaced_deployment``, ``read_cluster_role``, ...) without API
discovery, and reads the answer as JSON without building model objects. ``apply`` is server-side apply
with the collection's field manager; ``dry_run`` asks the API server to validate and default a change
without storing it (check mode and ``--diff``).
"""

from __future__ import annotations

import json
import re

from ansible_collections.kubesched.scheduler.plugins.module_utils.k8s_module import api_error_status

try:
    from kubernetes import client as k8s_client
except ImportError:  # kubernetes.core's module setup reports the missing library before any call
    k8s_client = None

MANAGER = "kubesched.scheduler"

# kind: (API class, snake-case name in the method names, namespaced)
KINDS = {
    "Namespace": ("CoreV1Api", "namespace", False),
    "ServiceAccount": ("CoreV1Api", "service_account", True),
    "ConfigMap": ("CoreV1Api", "config_map", True),
    "Pod": ("CoreV1Api", "pod", True),
    "Service": ("CoreV1Api", "service", True),
    "Deployment": ("AppsV1Api", "deployment", True),
    "ReplicaSet": ("AppsV1Api", "replica_set", True),
    "ClusterRole": ("RbacAuthorizationV1Api", "cluster_role", False),
    "ClusterRoleBinding": ("RbacAuthorizationV1Api", "cluster_role_binding", False),
    "Role": ("RbacAuthorizationV1Api", "role", True),
    "RoleBinding": ("RbacAuthorizationV1Api", "role_binding", True),
    "Lease": ("CoordinationV1Api", "lease", True),
    "PodDisruptionBudget": ("PolicyV1Api", "pod_disruption_budget", True),
}

# What an object's content is, for telling whether an apply changed it: everything but what the API
# server keeps for itself.
SERVER_METADATA = ("resourceVersion", "managedFields", "generation", "creationTimestamp", "uid", "selfLink")


def ref(obj):
    """``Kind namespace/name`` (or ``Kind name``) of an object, for messages."""
    metadata = obj.get("metadata") or {}
    where = f"{metadata['namespace']}/" if metadata.get("namespace") else ""
    return f"{obj.get('kind')} {where}{metadata.get('name')}"


def content(obj):
    """The object without status and the metadata the server keeps: what a user's change is about."""
    if not obj:
        return {}
    kept = {key: value for key, value in obj.items() if key != "status"}
    kept["metadata"] = {key: value for key, value in (obj.get("metadata") or {}).items() if key not in SERVER_METADATA}
    annotations = kept["metadata"].get("annotations")
    if annotations is not None:
        annotations = {key: value for key, value in annotations.items() if key != "deployment.kubernetes.io/revision"}
        if annotations:
            kept["metadata"]["annotations"] = annotations
        else:
            kept["metadata"].pop("annotations")
    return kept


def managed_by_us(obj):
    return ((obj.get("metadata") or {}).get("labels") or {}).get("app.kubernetes.io/managed-by") == MANAGER


def api_reason(exc):
    """The API server's message of an ApiException (its Status), or the exception's text."""
    body = getattr(exc, "body", None)
    if body:
        try:
            return json.loads(body).get("message") or str(exc)
        except (TypeError, ValueError, AttributeError):
            pass
    return re.sub(r"\s+", " ", str(exc)).strip()


class Kube:
    """Typed calls of ``kubernetes.client`` by kind, on dicts; counts the requests it makes."""

    def __init__(self, api, manager=MANAGER):
        self.api = api
        self.manager = manager
        self.requests = 0
        self._apis = {}

    def _method(self, kind, verb, namespace=None, all_namespaces=False):
        try:
            api_class, snake, namespaced = KINDS[kind]
        except KeyError:
            raise ValueError(f"kind {kind} is not one the collection manages") from None
        if api_class not in self._apis:
            self._apis[api_class] = getattr(k8s_client, api_class)(self.api)
        scope = "namespaced_" if namespaced and not all_namespaces else ""
        name = f"{verb}_{scope}{snake}" + ("_for_all_namespaces" if all_namespaces else "")
        args = (namespace,) if namespaced and not all_namespaces else ()
        return getattr(self._apis[api_class], name), args

    def _call(self, method, *args, **kwargs):
        self.requests += 1
        response = method(*args, _preload_content=False, **kwargs)
        try:
            data = response.data
        finally:
            release = getattr(response, "release_conn", None)
            if release:
                release()
        return json.loads(data) if data else {}

    def get(self, kind, name, namespace=None):
        """The object as a dict, or None when it does not exist."""
        method, args = self._method(kind, "read", namespace)
        try:
            return self._call(method, name, *args)
        except Exception as exc:  # ApiException
            if api_error_status(exc) == 404:
                return None
            raise

    def list(self, kind, namespace=None, label_selector=None):
        """The items of a kind: in a namespace, or in all namespaces (namespaced kinds) when namespace is None."""
        namespaced = KINDS[kind][2]
        method, args = self._method(kind, "list", namespace, all_namespaces=namespaced and not namespace)
        kwargs = {"label_selector": label_selector} if label_selector else {}
        return self._call(method, *args, **kwargs).get("items") or []

    def apply(self, obj, dry_run=False):
        """Server-side apply of ``obj`` (forcing conflicts, as the collection owns its fields); the object after."""
        metadata = obj["metadata"]
        method, args = self._method(obj["kind"], "patch", metadata.get("namespace"))
        kwargs = {"field_manager": self.manager, "force": True, "_content_type": "application/apply-patch+yaml"}
        if dry_run:
            kwargs["dry_run"] = "All"
        return self._call(method, metadata["name"], *args, obj, **kwargs)

    def delete(self, kind, name, namespace=None, propagation=None, grace_period=None, dry_run=False):
        """Delete an object; False when it did not exist."""
        method, args = self._method(kind, "delete", namespace)
        kwargs = {}
        if propagation:
            kwargs["propagation_policy"] = propagation
        if grace_period is not None:
            kwargs["grace_period_seconds"] = grace_period
        if dry_run:
            kwargs["dry_run"] = "All"
        try:
            self._call(method, name, *args, **kwargs)
        except Exception as exc:  # ApiException
            if api_error_status(exc) == 404:
                return False
            raise
        return True

    def log(self, name, namespace, previous=False, tail_lines=20):
        """The tail of a pod's log as text ('' when the API server has none to give)."""
        self.requests += 1
        core = k8s_client.CoreV1Api(self.api)
        try:
            response = core.read_namespaced_pod_log(name, namespace, previous=previous, tail_lines=tail_lines, _preload_content=False)
        except Exception:  # ApiException: the container never started, or was not kept
            return ""
        return (response.data or b"").decode("utf-8", "replace")

    def version(self):
        """The API server's gitVersion."""
        self.requests += 1
        response = k8s_client.VersionApi(self.api).get_code(_preload_content=False)
        return json.loads(response.data)["gitVersion"]
