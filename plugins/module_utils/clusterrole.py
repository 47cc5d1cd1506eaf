# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the ``kubesched.scheduler.clusterrole_lock`` module does, and the functions it is built from.

A second scheduler that elects a leader needs ``get`` and ``update`` on its own lock object. The
default ClusterRole ``system:kube-scheduler`` grants them only for the names in the ``resourceNames``
of two kinds of rules:

* ``coordination.k8s.io`` ``leases`` (every supported release);
* core ``endpoints`` (releases before 1.28, where the rule still exists).

``rules`` is an atomic list (``+listType=atomic``), so the whole list is read, changed here and written
back. Nothing else in the list is touched, names are never duplicated, and the names this code added
are recorded per resource in annotations so that removal takes away only what was added.

``run`` reads, computes and writes back with the ``metadata.resourceVersion`` it read as a
precondition (the API server answers 409 Conflict when somebody else wrote in between, and the
read starts again); everything else is pure.
"""

from __future__ import annotations

import copy
import json

from ansible_collections.kubesched.scheduler.plugins.module_utils.k8s_module import api_error_status, describe_api_error
from ansible_collections.kubesched.scheduler.plugins.module_utils.kube import Kube

# Annotations that record the names added by the collection, one JSON list per resource.
ANNOTATION_PREFIX = "kubesched.io/added-"
LEASES = "leases"
ENDPOINTS = "endpoints"
ANNOTATIONS = {
    LEASES: ANNOTATION_PREFIX + "lease-names",
    ENDPOINTS: ANNOTATION_PREFIX + "endpoints-names",
}

# (API group, resource) of each kind of lock rule; the order is the order of the annotations.
LOCK_RESOURCES = (
    (LEASES, "coordination.k8s.io"),
    (ENDPOINTS, ""),
)

# Verbs the leader election needs on its own named lock object.
LOCK_VERBS = ("get", "update")


class ClusterRoleLockError(Exception):
    """The ClusterRole cannot be patched safely (for example it has no lease rule to extend)."""


def _as_list(value):
    return list(value or [])


def is_lock_rule(rule, resource, group):
    """True for a rule that grants ``resource`` in ``group`` to a list of names (``resourceNames``)."""
    if not rule.get("resourceNames"):
        return False
    if rule.get("nonResourceURLs"):
        return False
    return group in _as_list(rule.get("apiGroups")) and resource in _as_list(rule.get("resources"))


def grants_unnamed(rules, resource, group, verbs=LOCK_VERBS):
    """True when some rule already grants ``verbs`` on every object of ``resource`` (no resourceNames)."""
    for rule in rules:
        if rule.get("resourceNames"):
            continue
        groups = _as_list(rule.get("apiGroups"))
        resources = _as_list(rule.get("resources"))
        rule_verbs = _as_list(rule.get("verbs"))
        if (group in groups or "*" in groups) and (resource in resources or "*" in resources) and ("*" in rule_verbs or all(v in rule_verbs for v in verbs)):
            return True
    return False


def parse_added(annotations):
    """Read the collection's annotations into ``{resource: [names]}``; malformed values count as empty."""
    annotations = annotations or {}
    added = {}
    for resource, key in ANNOTATIONS.items():
        raw = annotations.get(key)
        names = []
        if raw:
            try:
                value = json.loads(raw)
            except ValueError:
                value = []
            if isinstance(value, list):
                names = [name for name in value if isinstance(name, str)]
        added[resource] = names
    return added


def render_added(annotations, added):
    """Return a copy of ``annotations`` with the collection's annotations set from ``added``.

    An empty list removes its annotation, so that the object returns to how it was before install.
    """
    result = dict(annotations or {})
    for resource, key in ANNOTATIONS.items():
        names = added.get(resource) or []
        if names:
            result[key] = json.dumps(names)
        else:
            result.pop(key, None)
    return result


def compute_patch(rules, lock_name, state, added_annotation=None):
    """Compute the new ``rules`` of a ClusterRole for a scheduler's lock name.

    :arg rules: the ClusterRole's current rules (a list of dicts as the API returns them).
    :arg lock_name: the leader-election lock name of the scheduler (``leaderElection.resourceName``).
    :arg state: ``present`` adds ``lock_name`` to every lease rule with ``resourceNames`` (and every
        endpoints rule with ``resourceNames`` where one exists); ``absent`` removes it from the rules
        it was recorded as added to.
    :arg added_annotation: what the collection added before, either ``{resource: [names]}`` or the
        ClusterRole's ``metadata.annotations`` (parsed with :func:`parse_added`).
    :returns: ``(new_rules, changed, added)`` where ``added`` is the new ``{resource: [names]}``
        record to store in the annotations. ``rules`` is never modified in place.
    :raises ClusterRoleLockError: when ``state=present`` and no lease rule can carry the name.
    """
    if added_annotation is None:
        added = {resource: [] for resource in ANNOTATIONS}
    elif all(key in ANNOTATIONS for key in added_annotation) and all(isinstance(v, list) for v in added_annotation.values()):
        added = {resource: list(added_annotation.get(resource) or []) for resource in ANNOTATIONS}
    else:
        added = parse_added(added_annotation)

    new_rules = copy.deepcopy(list(rules or []))
    changed = False

    for resource, group in LOCK_RESOURCES:
        lock_rules = [rule for rule in new_rules if is_lock_rule(rule, resource, group)]
        if state == "present":
            if not lock_rules:
                if resource == LEASES and not grants_unnamed(new_rules, resource, group):
                    raise ClusterRoleLockError(
                        "the ClusterRole has no rule for coordination.k8s.io leases with resourceNames to add "
                        f"{lock_name!r} to, and no rule granting get/update on every lease"
                    )
                continue
            newly_added = False
            for rule in lock_rules:
                if lock_name not in rule["resourceNames"]:
                    rule["resourceNames"] = list(rule["resourceNames"]) + [lock_name]
                    newly_added = True
            if newly_added:
                changed = True
                if lock_name not in added[resource]:
                    added[resource].append(lock_name)
        else:
            if lock_name not in added[resource]:
                continue
            for rule in lock_rules:
                if lock_name in rule["resourceNames"]:
                    rule["resourceNames"] = [name for name in rule["resourceNames"] if name != lock_name]
                    changed = True
            added[resource] = [name for name in added[resource] if name != lock_name]
            # The record itself changes even if somebody removed the name by hand already.
            changed = True

    return new_rules, changed, added


def lock_names(rules):
    """``{resource: [names]}`` granted by the lock rules of ``rules`` (for reporting)."""
    result = {}
    for resource, group in LOCK_RESOURCES:
        names = []
        for rule in rules or []:
            if is_lock_rule(rule, resource, group):
                names.extend(name for name in rule["resourceNames"] if name not in names)
        result[resource] = names
    return result


# --- the API ---------------------------------------------------------------------------------

MAX_ATTEMPTS = 5


class ClusterRoleClient:
    """Reads and replaces ClusterRoles as plain dicts, through a ``kubernetes.client.ApiClient`` (or a Kube on one)."""

    def __init__(self, api):
        self._kube = api if isinstance(api, Kube) else Kube(api)

    def get(self, name):
        """The ClusterRole as a dict, or None when it does not exist."""
        return self._kube.get("ClusterRole", name)

    def replace(self, name, body):
        return self._kube.request("PUT", Kube.path("ClusterRole", name), body=body)


def _empty():
    return {resource: [] for resource in ANNOTATIONS}


def _ours(annotations):
    return {key: value for key, value in (annotations or {}).items() if key in ANNOTATIONS.values()}


def run(connect, params, check_mode=False, diff=False):
    """Add or remove ``params['lock_name']`` in the ClusterRole ``params['name']``; the module's result."""
    name, lock_name, state = params["name"], params["lock_name"], params["state"]
    result = {"changed": False, "added": _empty(), "removed": _empty(), "attempts": 0}
    if not lock_name:
        return dict(result, msg="lock_name must not be empty")
    client = ClusterRoleClient(connect())

    for attempt in range(1, MAX_ATTEMPTS + 1):
        result["attempts"] = attempt
        role = client.get(name)
        if role is None:
            return result if state == "absent" else dict(result, msg=f"ClusterRole {name} not found")

        metadata = role["metadata"]
        old_rules = role.get("rules") or []
        old_annotations = metadata.get("annotations") or {}
        try:
            new_rules, changed, recorded = compute_patch(old_rules, lock_name, state, parse_added(old_annotations))
        except ClusterRoleLockError as exc:
            return dict(result, msg=f"Cannot add {lock_name} to ClusterRole {name}: {exc}")
        new_annotations = render_added(old_annotations, recorded)
        before, after = lock_names(old_rules), lock_names(new_rules)
        result.update(
            changed=changed,
            rules=new_rules,
            lock_names=after,
            recorded=recorded,
            added={resource: [n for n in after[resource] if n not in before[resource]] for resource in ANNOTATIONS},
            removed={resource: [n for n in before[resource] if n not in after[resource]] for resource in ANNOTATIONS},
        )
        if diff:
            result["diff"] = {
                "before_header": f"ClusterRole {name}",
                "after_header": f"ClusterRole {name}",
                "before": {"metadata": {"annotations": _ours(old_annotations)}, "rules": old_rules},
                "after": {"metadata": {"annotations": _ours(new_annotations)}, "rules": new_rules},
            }
        if not changed or check_mode:
            return result

        # metadata.resourceVersion stays as read: the API server refuses the write with 409 when the
        # ClusterRole changed since, and the loop starts again from a fresh read.
        body = dict(role, rules=new_rules)
        body["metadata"] = {key: value for key, value in metadata.items() if key != "managedFields"}
        body["metadata"]["annotations"] = new_annotations
        try:
            written = client.replace(name, body)
        except Exception as exc:  # ApiException
            if api_error_status(exc) != 409:
                return dict(result, msg=f"Failed to update ClusterRole {name}: {describe_api_error(exc)}")
            continue
        result["rules"] = written.get("rules") or []
        result["lock_names"] = lock_names(result["rules"])
        return result
    return dict(result, msg=f"ClusterRole {name} kept changing: gave up after {MAX_ATTEMPTS} conflicting writes")
