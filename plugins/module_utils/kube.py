# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The few Kubernetes API calls the deploy engine makes, on plain dicts.

The kinds the collection manages are known in advance, so every call goes straight to its REST path
(``/apis/apps/v1/namespaces/<ns>/deployments/<name>``, ...) through the connection pool of the
``kubernetes.client.ApiClient`` that kubernetes.core built (its TLS settings, proxy and credentials), without
API discovery and without the generated API classes, whose import and per-method validation cost more than
the requests themselves. Answers are read as JSON dicts. ``apply`` is server-side apply with the collection's
field manager; ``dry_run`` asks the API server to validate and default a change without storing it (check
mode and ``--diff``).
"""

from __future__ import annotations

import json
import re
from urllib.parse import quote, urlencode

from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.client import ServerClock, pages

MANAGER = "kubesched.scheduler"
TIMEOUT = 30

# kind: (API path prefix, plural, namespaced)
KINDS = {
    "Namespace": ("/api/v1", "namespaces", False),
    "ServiceAccount": ("/api/v1", "serviceaccounts", True),
    "ConfigMap": ("/api/v1", "configmaps", True),
    "Pod": ("/api/v1", "pods", True),
    "Service": ("/api/v1", "services", True),
    "Deployment": ("/apis/apps/v1", "deployments", True),
    "ReplicaSet": ("/apis/apps/v1", "replicasets", True),
    "ClusterRole": ("/apis/rbac.authorization.k8s.io/v1", "clusterroles", False),
    "ClusterRoleBinding": ("/apis/rbac.authorization.k8s.io/v1", "clusterrolebindings", False),
    "Role": ("/apis/rbac.authorization.k8s.io/v1", "roles", True),
    "RoleBinding": ("/apis/rbac.authorization.k8s.io/v1", "rolebindings", True),
    "Lease": ("/apis/coordination.k8s.io/v1", "leases", True),
    "PodDisruptionBudget": ("/apis/policy/v1", "poddisruptionbudgets", True),
    "PriorityClass": ("/apis/scheduling.k8s.io/v1", "priorityclasses", False),
    # The Prometheus Operator's, where the cluster serves them.
    "ServiceMonitor": ("/apis/monitoring.coreos.com/v1", "servicemonitors", True),
    "PrometheusRule": ("/apis/monitoring.coreos.com/v1", "prometheusrules", True),
    "Node": ("/api/v1", "nodes", False),
    "Event": ("/api/v1", "events", True),
    # Served as v1 from Kubernetes 1.36, as v1beta1 before when enabled: the object's apiVersion chooses.
    "MutatingAdmissionPolicy": ("/apis/admissionregistration.k8s.io/v1", "mutatingadmissionpolicies", False),
    "MutatingAdmissionPolicyBinding": ("/apis/admissionregistration.k8s.io/v1", "mutatingadmissionpolicybindings", False),
}


class KubeError(Exception):
    """An answer of the API server outside 2xx: its HTTP status, reason and body (a Status), like ApiException."""

    def __init__(self, status, reason, body):
        self.status = status
        self.reason = reason
        self.body = body
        try:
            message = json.loads(body).get("message")
        except (TypeError, ValueError, AttributeError):
            message = None
        super().__init__(f"({status}) {reason}: {message or body[:200]}")


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
    """REST calls by kind, on dicts, through an ApiClient's connection pool; counts the requests it makes and keeps
    the API server's clock from the Date header of its answers (``clock.server_now()``)."""

    def __init__(self, api, manager=MANAGER):
        self.api = api
        self.manager = manager
        self.requests = 0
        self.clock = ServerClock()

    @staticmethod
    def path(kind, name=None, namespace=None, subresource=None, api_version=None):
        """The REST path of a kind (an object, a subresource); ``api_version`` (``group/version``) replaces the kind's
        usual version, for kinds served at several (``admissionregistration.k8s.io/v1beta1``)."""
        try:
            prefix, plural, namespaced = KINDS[kind]
        except KeyError:
            raise ValueError(f"kind {kind} is not one the collection manages") from None
        if api_version:
            prefix = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
        path = prefix + (f"/namespaces/{quote(namespace, safe='')}" if namespaced and namespace else "") + f"/{plural}"
        if name:
            path += f"/{quote(name, safe='')}"
        if subresource:
            path += f"/{subresource}"
        return path

    def request(self, method, path, query=None, body=None, content_type="application/json", raw=False):
        """One request; the answer's JSON (or text with ``raw``). Raises KubeError outside 2xx."""
        self.requests += 1
        configuration = self.api.configuration
        url = configuration.host.rstrip("/") + path + (f"?{urlencode(query)}" if query else "")
        headers = dict(getattr(self.api, "default_headers", {}) or {})
        headers.update({"Accept": "application/json", "Content-Type": content_type})
        for auth in (configuration.auth_settings() or {}).values():
            if auth.get("in") == "header" and auth.get("value"):
                headers[auth["key"]] = auth["value"]
        response = self.api.rest_client.pool_manager.request(
            method, url, body=json.dumps(body) if body is not None else None, headers=headers, timeout=TIMEOUT, preload_content=True
        )
        data = response.data.decode("utf-8", "replace") if response.data else ""
        self.clock.saw_date((getattr(response, "headers", None) or {}).get("Date"))
        if not 200 <= response.status <= 299:
            raise KubeError(response.status, response.reason, data)
        if raw:
            return data
        return json.loads(data) if data else {}

    def get(self, kind, name, namespace=None, api_version=None):
        """The object as a dict, or None when it does not exist."""
        try:
            return self.request("GET", self.path(kind, name, namespace, api_version=api_version))
        except KubeError as exc:
            if exc.status == 404:
                return None
            raise

    def list(self, kind, namespace=None, label_selector=None, field_selector=None):
        """The items of a kind: in a namespace, or in all namespaces (namespaced kinds) when namespace is None."""
        query = {key: value for key, value in (("labelSelector", label_selector), ("fieldSelector", field_selector)) if value} or None
        return self.request("GET", self.path(kind, namespace=namespace), query).get("items") or []

    def list_pages(self, kind, namespace=None, page_size=500, label_selector=None, field_selector=None):
        """The items of a list, read ``page_size`` at a time with ``limit`` and ``continue`` (see client.pages: RESTART
        is yielded when an expired continue token makes the list start over)."""
        path = self.path(kind, namespace=namespace)
        selectors = {key: value for key, value in (("labelSelector", label_selector), ("fieldSelector", field_selector)) if value}

        def read_page(token):
            return self.request("GET", path, dict({"limit": page_size}, **selectors, **({"continue": token} if token else {})))

        return pages(read_page)

    def apply(self, obj, dry_run=False):
        """Server-side apply of ``obj`` (forcing conflicts, as the collection owns its fields); the object after."""
        metadata = obj["metadata"]
        query = {"fieldManager": self.manager, "force": "true"}
        if dry_run:
            query["dryRun"] = "All"
        path = self.path(obj["kind"], metadata["name"], metadata.get("namespace"), api_version=obj.get("apiVersion"))
        return self.request("PATCH", path, query, obj, content_type="application/apply-patch+yaml")

    def delete(self, kind, name, namespace=None, propagation=None, grace_period=None, dry_run=False, api_version=None):
        """Delete an object; False when it did not exist."""
        body = {"kind": "DeleteOptions", "apiVersion": "v1"}
        if propagation:
            body["propagationPolicy"] = propagation
        if grace_period is not None:
            body["gracePeriodSeconds"] = grace_period
        if dry_run:
            body["dryRun"] = ["All"]
        try:
            self.request("DELETE", self.path(kind, name, namespace, api_version=api_version), body=body)
        except KubeError as exc:
            if exc.status == 404:
                return False
            raise
        return True

    def log(self, name, namespace, previous=False, tail_lines=20):
        """The tail of a pod's log as text ('' when the API server has none to give)."""
        query = {"tailLines": tail_lines}
        if previous:
            query["previous"] = "true"
        try:
            return self.request("GET", self.path("Pod", name, namespace, "log"), query, raw=True)
        except KubeError:  # the container never started, or was not kept
            return ""

    def version(self):
        """The API server's gitVersion."""
        return self.request("GET", "/version")["gitVersion"]

    def resources(self, api_version):
        """The resource names (plurals) the API server serves at ``group/version``; empty when it serves no such version."""
        path = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
        try:
            listing = self.request("GET", path)
        except KubeError as exc:
            if exc.status == 404:
                return []
            raise
        return [resource.get("name") for resource in listing.get("resources") or []]
