# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The checks of the roles' inputs that an argument spec cannot express, in pure Python.

Types and choices are checked by the roles' meta/argument_specs.yml before these run; these check what is
left: name syntax and reserved names, the lock, render mode, replicas and leader election, the Go durations and
their order, the KubeSchedulerConfiguration and Deployment settings, the node pool and the routing of pods.

Each ``check_*`` takes the variables by their names (``kube_scheduler_name``, ...), as the roles have them:
strings from ``-e`` or typed values, the argument spec's conversions not applied (a role keeps the values it
was given), and returns the list of what is wrong, one message each, naming the variable and the fix. The action
plugin kubesched.scheduler.check_inputs runs them in the roles; the unit tests run them on a table of bad inputs.
"""

from __future__ import annotations

from ansible_collections.kubesched.scheduler.plugins.module_utils.durations import parse_duration
from ansible_collections.kubesched.scheduler.plugins.module_utils.input_values import (
    FALSE as _FALSE,
    TRUE as _TRUE,
    as_dict,
    as_bool as _bool,
    as_float as _float,
    as_int as _int,
    as_list as _list,
    matches as _match,
    shown as _show,
    unique as _unique,
)
from ansible_collections.kubesched.scheduler.plugins.module_utils.versions import kubernetes_minor

# kube_scheduler_name: a DNS label that starts with a letter (it names a Deployment, a Service account, ...).
NAME_PATTERN = r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$"
# A namespace: a DNS label.
LABEL_PATTERN = r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"
# A Lease name: a DNS subdomain.
SUBDOMAIN_PATTERN = r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$"
DIGEST_PATTERN = r"^(sha256:[0-9a-f]{64})?$"
# A Prometheus duration (the `for` of an alert rule): units from years to milliseconds, largest first.
PROMETHEUS_DURATION_PATTERN = r"^(0|(?=\d)(\d+y)?(\d+w)?(\d+d)?(\d+h)?(\d+m)?(\d+s)?(\d+ms)?)$"
# The alert rules of kube_scheduler_alert_for, and who may be bound to read the metrics.
ALERT_RULES = ("down", "no_leader", "errors", "throttled", "unschedulable", "unserved")
SUBJECT_KINDS = ("ServiceAccount", "User", "Group")
# A label key (a qualified name with an optional DNS subdomain prefix) and a label value, as Kubernetes validates them.
LABEL_KEY_PATTERN = r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$"
LABEL_VALUE_PATTERN = r"^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$"
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
# The oldest minor that serves MutatingAdmissionPolicy (v1beta1, when enabled; v1 from 1.36).
ROUTING_MINOR = 34
# An argument the role sets itself.
CONFIG_ARG_PATTERN = r"--config(=|$)"
# A feature gate's name, and the argument the role writes from kube_scheduler_feature_gates.
GATE_PATTERN = r"^[A-Z][A-Za-z0-9]*$"
GATES_ARG_PATTERN = r"--feature-gates(=|$)"
# An environment variable's name, as Kubernetes validates it (a C identifier, also with '-' and '.').
ENV_NAME_PATTERN = r"^[-._a-zA-Z][-._a-zA-Z0-9]*$"
# Gang scheduling: PodGroups of scheduling.k8s.io/v1beta1 and the pods' spec.schedulingGroup, from kube-scheduler 1.37.
GANG_GATE = "GenericWorkload"
GANG_MINOR = 37
DEFAULT_SCHEDULER = "default-scheduler"
# The default scheduler's own Leases in kube-system.
RESERVED_LOCKS = ("kube-scheduler", "kube-controller-manager")
# The oldest Kubernetes minor render mode renders for.
OLDEST_MINOR = 22
DURATIONS = ("kube_scheduler_lease_duration", "kube_scheduler_renew_deadline", "kube_scheduler_retry_period")

COMMON_VARIABLES = (
    "kube_scheduler_name",
    "kube_scheduler_namespace",
    "kube_scheduler_lock_name",
    "kube_scheduler_lock_namespace",
    "kube_scheduler_state",
    "kube_scheduler_render_dir",
    "kube_scheduler_cluster_version",
)
DEPLOY_VARIABLES = (
    "kube_scheduler_name",
    "kube_scheduler_state",
    "kube_scheduler_replicas",
    "kube_scheduler_leader_elect",
    *DURATIONS,
    "kube_scheduler_client_qps",
    "kube_scheduler_client_burst",
    "kube_scheduler_parallelism",
    "kube_scheduler_percentage_of_nodes_to_score",
    "kube_scheduler_profiles_extra",
    "kube_scheduler_extra_args",
    "kube_scheduler_verbosity",
    "kube_scheduler_wait_timeout",
    "kube_scheduler_metrics_reader_subjects",
    "kube_scheduler_metrics_labels",
    "kube_scheduler_alert_for",
    "kube_scheduler_priority_class_name",
    "kube_scheduler_image_digest",
    "kube_scheduler_extra_rules",
    "kube_scheduler_feature_gates",
    "kube_scheduler_env",
    "kube_scheduler_gang_scheduling",
    "kube_scheduler_version",
)

SHARING_VARIABLES = (
    "kube_scheduler_name",
    "kube_scheduler_state",
    "kube_scheduler_node_pool",
    "kube_scheduler_route_namespace_selector",
    "kube_scheduler_plugin_config",
    "kube_scheduler_profiles_extra",
    "kube_scheduler_render_dir",
    "kube_scheduler_cluster_version",
)


def missing(names, values):
    """The variables the checks ``names`` read that ``values`` lacks."""
    wanted = []
    for name in names:
        wanted.extend(VARIABLES[name])
    return sorted({variable for variable in wanted if variable not in values})


def check_common(values):
    """The shared values (every role's): names, namespaces, the lock name and, in render mode, the state and the
    Kubernetes version to render for."""
    name = values["kube_scheduler_name"]
    namespace = values["kube_scheduler_namespace"]
    lock_name = values["kube_scheduler_lock_name"]
    lock_namespace = values["kube_scheduler_lock_namespace"]
    render_dir = values["kube_scheduler_render_dir"]
    messages = []
    if not _match(NAME_PATTERN, name) or name == DEFAULT_SCHEDULER:
        messages.append(
            f"kube_scheduler_name is '{_show(name)}': use 1 to 63 lowercase letters, digits and '-', starting with a letter "
            "and ending with a letter or digit (it names the Deployment, its ConfigMap and RBAC objects and the profile's "
            f"schedulerName), and not '{DEFAULT_SCHEDULER}', which is the default scheduler's own name."
        )
    if not (_match(LABEL_PATTERN, namespace) and _match(LABEL_PATTERN, lock_namespace)):
        messages.append(
            f"kube_scheduler_namespace ('{_show(namespace)}') and kube_scheduler_lock_namespace ('{_show(lock_namespace)}') "
            "must be namespace names: 1 to 63 lowercase letters, digits and '-'."
        )
    if not _match(SUBDOMAIN_PATTERN, lock_name) or (lock_namespace == "kube-system" and lock_name in RESERVED_LOCKS):
        messages.append(
            f"kube_scheduler_lock_name is '{_show(lock_name)}' in namespace '{_show(lock_namespace)}': use a DNS subdomain "
            "name of your own (at most 253 lowercase letters, digits, '-' and '.'; the default is kube_scheduler_name). "
            "The lease kube-system/kube-scheduler belongs to the default scheduler; sharing it makes the two schedulers "
            "take turns or never lead."
        )
    if render_dir:
        if values["kube_scheduler_state"] != "present":
            messages.append(
                f"kube_scheduler_render_dir is set ('{_show(render_dir)}') with kube_scheduler_state=absent: render mode "
                "writes what present would apply; empty kube_scheduler_render_dir to remove the scheduler from a cluster."
            )
        cluster_version = values["kube_scheduler_cluster_version"]
        try:
            minor = kubernetes_minor(cluster_version)
        except ValueError:
            minor = 0
        if minor < OLDEST_MINOR:
            messages.append(
                f"kube_scheduler_cluster_version is '{_show(cluster_version)}': give the Kubernetes version to render for, "
                f'such as "1.37" or "v1.37.2" (quoted), 1.{OLDEST_MINOR} or newer.'
            )
    return messages


def check_deploy(values):
    """The deploy role's settings, with kube_scheduler_state=present: replicas and leader election, the Go
    durations and their order, the KubeSchedulerConfiguration and the Deployment."""
    if values["kube_scheduler_state"] != "present":
        return []
    messages = []
    replicas = values["kube_scheduler_replicas"]
    leader_elect = _bool(values["kube_scheduler_leader_elect"])
    if _int(replicas) < 1 or not (leader_elect or _int(replicas) == 1):
        messages.append(
            f"kube_scheduler_replicas is {_show(replicas)} and kube_scheduler_leader_elect is {leader_elect}: use at least "
            "1 replica, and set kube_scheduler_leader_elect: true for more than one (replicas without leader election would "
            "all schedule and double-book nodes)."
        )

    messages.extend(_check_durations(values, leader_elect))
    messages.extend(_check_metrics(values))
    messages.extend(_check_extra_rules(values["kube_scheduler_extra_rules"]))
    messages.extend(_check_gates(values))

    qps = values["kube_scheduler_client_qps"]
    burst = values["kube_scheduler_client_burst"]
    parallelism = values["kube_scheduler_parallelism"]
    percentage = values["kube_scheduler_percentage_of_nodes_to_score"]
    name = values["kube_scheduler_name"]
    profiles = _list(values["kube_scheduler_profiles_extra"])
    named = [profile for profile in profiles if isinstance(profile, dict) and "schedulerName" in profile]
    names = [profile["schedulerName"] for profile in named] + [name, DEFAULT_SCHEDULER]
    if not (
        _float(qps) > 0
        and _int(burst) > 0
        and _int(parallelism) > 0
        and 0 <= _int(percentage) <= 100
        and len(named) == len(profiles)
        and len(_unique(names)) == len(profiles) + 2
    ):
        messages.append(
            f"Check kube_scheduler_client_qps ({_show(qps)}), kube_scheduler_client_burst ({_show(burst)}) and "
            f"kube_scheduler_parallelism ({_show(parallelism)}): each must be above 0; "
            f"kube_scheduler_percentage_of_nodes_to_score ({_show(percentage)}): 0 to 100; and kube_scheduler_profiles_extra: "
            f"each profile needs its own schedulerName, different from kube_scheduler_name ('{_show(name)}'), from each other "
            f"and from '{DEFAULT_SCHEDULER}'."
        )

    verbosity = values["kube_scheduler_verbosity"]
    wait_timeout = values["kube_scheduler_wait_timeout"]
    digest = values["kube_scheduler_image_digest"]
    if (
        any(_match(CONFIG_ARG_PATTERN, arg) for arg in _list(values["kube_scheduler_extra_args"]))
        or _int(verbosity) < 0
        or _int(wait_timeout) <= 0
        or not _match(DIGEST_PATTERN, digest)
    ):
        messages.append(
            f"Check kube_scheduler_extra_args (--config is set by the role), kube_scheduler_verbosity ({_show(verbosity)}, "
            f"0 or more), kube_scheduler_wait_timeout ({_show(wait_timeout)}, seconds above 0) and kube_scheduler_image_digest "
            f"('{_show(digest)}', empty or sha256: and 64 hexadecimal digits)."
        )
    return messages


def _check_gates(values):
    """kube_scheduler_feature_gates, kube_scheduler_env and kube_scheduler_gang_scheduling."""
    messages = []
    gates = as_dict(values["kube_scheduler_feature_gates"])
    if gates is None or not all(
        _match(GATE_PATTERN, gate) and str(enabled).lower() in _TRUE | _FALSE for gate, enabled in gates.items()
    ):
        messages.append(
            f"kube_scheduler_feature_gates ({_show(gates)}) must map feature gate names (such as {GANG_GATE}) to true or false, "
            "for example {GenericWorkload: true}."
        )
        gates = {}
    if any(_match(GATES_ARG_PATTERN, arg) for arg in _list(values["kube_scheduler_extra_args"])):
        messages.append("kube_scheduler_extra_args sets --feature-gates, which the role writes: give the gates in kube_scheduler_feature_gates instead.")
    env = as_dict(values["kube_scheduler_env"])
    if env is None or not all(
        _match(ENV_NAME_PATTERN, name) and isinstance(value, (str, int, float, bool)) for name, value in env.items()
    ):
        messages.append(
            f"kube_scheduler_env ({_show(env)}) must map environment variable names (letters, digits, '_', '-', '.', not "
            "starting with a digit) to plain values, for example {HTTP2_READ_IDLE_TIMEOUT_SECONDS: '5'}."
        )
    if _bool(values["kube_scheduler_gang_scheduling"]):
        version = values["kube_scheduler_version"]
        try:
            minor = kubernetes_minor(str(version))
        except ValueError:
            minor = 0
        if minor < GANG_MINOR:
            messages.append(
                f"kube_scheduler_gang_scheduling needs kube-scheduler 1.{GANG_MINOR} or newer (PodGroups of scheduling.k8s.io/v1beta1, "
                f"named by the pods' spec.schedulingGroup), and kube_scheduler_version is '{_show(version)}' (1.35 and 1.36 have only the "
                "alpha Workload API, which this role does not configure): set kube_scheduler_version to v1.37 or newer, or "
                "kube_scheduler_gang_scheduling: false."
            )
        if gates.get(GANG_GATE) is not None and not _bool(gates[GANG_GATE]):
            messages.append(
                f"kube_scheduler_gang_scheduling is true but kube_scheduler_feature_gates sets {GANG_GATE}: false, the gate gang "
                "scheduling needs: remove it from kube_scheduler_feature_gates."
            )
    return messages


def _check_metrics(values):
    """The readers of /metrics, the labels of the ServiceMonitor and PrometheusRule, the alert rules' durations and the
    priority class of the pods."""
    messages = []
    subjects = values["kube_scheduler_metrics_reader_subjects"]
    for index, subject in enumerate(subjects if isinstance(subjects, list) else [subjects]):
        if not (
            isinstance(subject, dict)
            and set(subject) <= {"kind", "name", "namespace", "apiGroup"}
            and subject.get("kind") in SUBJECT_KINDS
            and isinstance(subject.get("name"), str)
            and subject["name"]
            and (_match(LABEL_PATTERN, subject.get("namespace") or "") if subject["kind"] == "ServiceAccount" else not subject.get("namespace"))
        ):
            messages.append(
                f"kube_scheduler_metrics_reader_subjects[{index}] is {_show(subject)}: give each subject a kind ({', '.join(SUBJECT_KINDS)}), "
                "a name and, for a ServiceAccount only, its namespace, for example {kind: ServiceAccount, name: prometheus-k8s, "
                "namespace: monitoring}."
            )
    labels = values["kube_scheduler_metrics_labels"]
    if labels and not _labels_valid(labels):
        messages.append(
            f"kube_scheduler_metrics_labels is {_show(labels)}: give label keys and values as kubectl label takes them, for example "
            "{release: kube-prometheus-stack}, or {} for none."
        )
    durations = values["kube_scheduler_alert_for"]
    wrong = (
        [f"{key}: {_show(value)}" for key, value in durations.items() if key not in ALERT_RULES or not _match(PROMETHEUS_DURATION_PATTERN, value)]
        if isinstance(durations, dict)
        else [_show(durations)]
    )
    if wrong:
        messages.append(
            f"kube_scheduler_alert_for has {', '.join(wrong)}: give the for duration of the alert rules {', '.join(ALERT_RULES)} "
            "as Prometheus durations (for example 30s, 5m or 1h30m); a rule left out keeps its default."
        )
    priority = values["kube_scheduler_priority_class_name"]
    if priority and not (_match(SUBDOMAIN_PATTERN, priority) and len(str(priority)) <= 253):
        messages.append(
            f"kube_scheduler_priority_class_name is '{_show(priority)}': name a PriorityClass (a DNS subdomain name, such as "
            "system-cluster-critical), or leave it at its default, or empty for none."
        )
    return messages


def _names(value, empty=False):
    """A non-empty list of strings (of non-empty strings unless ``empty``)."""
    return isinstance(value, list) and bool(value) and all(isinstance(item, str) and (empty or item) for item in value)


def _check_extra_rules(rules):
    """kube_scheduler_extra_rules: PolicyRules with verbs, for resources of API groups or for non-resource URLs."""
    messages = []
    for index, rule in enumerate(_list(rules)):
        keys = set(rule) if isinstance(rule, dict) else {"?"}
        resources = keys <= {"apiGroups", "resources", "resourceNames", "verbs"} and _names(rule.get("resources")) and _names(rule.get("apiGroups"), True)
        urls = keys == {"nonResourceURLs", "verbs"} and _names(rule["nonResourceURLs"])
        if not ((resources and ("resourceNames" not in rule or _names(rule["resourceNames"])) or urls) and _names(rule.get("verbs"))):
            messages.append(
                f"kube_scheduler_extra_rules[{index}] is {_show(rule)}: give each rule verbs and either apiGroups with resources "
                "(and optionally resourceNames) or nonResourceURLs, as a ClusterRole's rules, for example "
                "{apiGroups: [example.com], resources: [teams], verbs: [get, list, watch]}."
            )
    return messages


def _check_durations(values, leader_elect):
    """The leader election durations are Go durations and, with leader election, in kube-scheduler's order."""
    seconds, unreadable = {}, []
    for variable in DURATIONS:
        try:
            seconds[variable] = parse_duration(str(values[variable]))
        except ValueError:
            unreadable.append(variable)
    if unreadable:
        named = " and ".join(f"{variable} ('{_show(values[variable])}')" for variable in unreadable)
        verb = "is not a Go duration" if len(unreadable) == 1 else "are not Go durations"
        return [f"{named} {verb}: use numbers each followed by a unit (h, m, s, ms, us or ns), such as 15s, 1m30s or 500ms."]
    lease, renew, retry = (seconds[variable] for variable in DURATIONS)
    if leader_elect and not (retry > 0 and lease > renew and renew > 1.2 * retry):
        return [
            f"Leader election needs kube_scheduler_lease_duration ({_show(values['kube_scheduler_lease_duration'])}) > "
            f"kube_scheduler_renew_deadline ({_show(values['kube_scheduler_renew_deadline'])}) > 1.2 x "
            f"kube_scheduler_retry_period ({_show(values['kube_scheduler_retry_period'])}) > 0; kube-scheduler refuses to "
            "start otherwise. The defaults are 15s, 10s and 2s."
        ]
    return []


def _labels_valid(labels):
    """A dict of label keys and values, as ``kubectl label`` takes them."""
    return isinstance(labels, dict) and all(
        _match(LABEL_KEY_PATTERN, key)
        and len(str(key)) <= 317
        and isinstance(value, (str, int))
        and not isinstance(value, bool)
        and _match(LABEL_VALUE_PATTERN, value)
        for key, value in labels.items()
    )


def _taint_valid(taint):
    return (
        isinstance(taint, dict)
        and set(taint) <= {"key", "value", "effect"}
        and _match(LABEL_KEY_PATTERN, taint.get("key") or "")
        and _match(LABEL_VALUE_PATTERN, "" if taint.get("value") is None else taint["value"])
        and (taint.get("effect") or "NoSchedule") in TAINT_EFFECTS
    )


def _expression_valid(expression):
    if not isinstance(expression, dict) or set(expression) - {"key", "operator", "values"}:
        return False
    values = expression.get("values") or []
    operator = expression.get("operator")
    return (
        _match(LABEL_KEY_PATTERN, expression.get("key") or "")
        and operator in SELECTOR_OPERATORS
        and isinstance(values, list)
        and all(isinstance(value, str) and _match(LABEL_VALUE_PATTERN, value) for value in values)
        and (bool(values) if operator in ("In", "NotIn") else not values)
    )


def _configures_node_affinity(values):
    """Where the user's own configuration has a NodeAffinity pluginConfig entry (kube-scheduler takes one per plugin)."""
    where = []
    if any(isinstance(entry, dict) and entry.get("name") == "NodeAffinity" for entry in _list(values["kube_scheduler_plugin_config"])):
        where.append("kube_scheduler_plugin_config")
    for profile in _list(values["kube_scheduler_profiles_extra"]):
        entries = profile.get("pluginConfig") if isinstance(profile, dict) else None
        if any(isinstance(entry, dict) and entry.get("name") == "NodeAffinity" for entry in entries or []):
            where.append(f"the profile {profile.get('schedulerName')} of kube_scheduler_profiles_extra")
    return where


def _given(value):
    """Whether a dict option is set: not empty, nor a dict of empty values (as an argument spec fills in suboptions)."""
    return bool(value) and not (isinstance(value, dict) and not any(value.values()))


def check_sharing(values):
    """With kube_scheduler_state=present: kube_scheduler_node_pool (node labels, an optional taint, and no NodeAffinity
    of the user's own beside it) and kube_scheduler_route_namespace_selector (a namespace label selector; render mode
    renders it only for a Kubernetes that serves MutatingAdmissionPolicy)."""
    if values["kube_scheduler_state"] != "present":
        return []
    messages = []
    name = values["kube_scheduler_name"]
    pool = values["kube_scheduler_node_pool"]
    if _given(pool):
        if not (isinstance(pool, dict) and set(pool) <= {"labels", "taint"} and pool.get("labels") and _labels_valid(pool["labels"])):
            messages.append(
                f"kube_scheduler_node_pool is {_show(pool)}: give the node labels of the pool and, optionally, its taint, for example "
                "{labels: {pool: batch}, taint: {key: pool, value: batch, effect: NoSchedule}} (label keys and values as kubectl label "
                "nodes takes them; as YAML or JSON, not key=value), or {} for none."
            )
        elif pool.get("taint") and not _taint_valid(pool["taint"]):
            messages.append(
                f"kube_scheduler_node_pool.taint is {_show(pool['taint'])}: give key (a label key such as pool or example.com/pool), "
                "value (empty, or a label value) and effect (NoSchedule, PreferNoSchedule or NoExecute; NoSchedule when not given), "
                "as kubectl taint nodes <node> key=value:effect sets it."
            )
        where = _configures_node_affinity(values)
        if where:
            messages.append(
                f"kube_scheduler_node_pool gives every profile the NodeAffinity plugin's addedAffinity, and {' and '.join(where)} "
                "configures NodeAffinity too: kube-scheduler takes one pluginConfig entry per plugin. Put the pool's labels into "
                "your NodeAffinity addedAffinity and empty kube_scheduler_node_pool, or remove your NodeAffinity entry."
            )
    selector = values["kube_scheduler_route_namespace_selector"]
    if _given(selector):
        if not (
            isinstance(selector, dict)
            and set(selector) <= {"matchLabels", "matchExpressions"}
            and _labels_valid(selector.get("matchLabels") or {})
            and isinstance(selector.get("matchExpressions") or [], list)
            and all(_expression_valid(expression) for expression in selector.get("matchExpressions") or [])
        ):
            messages.append(
                f"kube_scheduler_route_namespace_selector is {_show(selector)}: give the label selector of the namespaces whose "
                f"pods go to {_show(name)}, for example {{matchLabels: {{kubesched.io/scheduler: {_show(name)}}}}} (matchLabels of "
                "label keys and values, matchExpressions of key, operator In, NotIn, Exists or DoesNotExist and values), or {} to "
                "route nothing."
            )
        if values["kube_scheduler_render_dir"]:
            try:
                minor = kubernetes_minor(values["kube_scheduler_cluster_version"])
            except ValueError:
                minor = ROUTING_MINOR  # check_common names the version
            if minor < ROUTING_MINOR:
                messages.append(
                    f"kube_scheduler_route_namespace_selector needs MutatingAdmissionPolicy, which Kubernetes "
                    f"{_show(values['kube_scheduler_cluster_version'])} (kube_scheduler_cluster_version) does not serve: render for "
                    "1.36 or newer (admissionregistration.k8s.io/v1), or 1.34 or 1.35 with the API server's feature gate "
                    "MutatingAdmissionPolicy and --runtime-config=admissionregistration.k8s.io/v1beta1=true (v1beta1); or empty "
                    "kube_scheduler_route_namespace_selector."
                )
    return messages


CHECKS = {"common": check_common, "deploy": check_deploy, "sharing": check_sharing}
VARIABLES = {"common": COMMON_VARIABLES, "deploy": DEPLOY_VARIABLES, "sharing": SHARING_VARIABLES}


def check(names, values):
    """The messages of the checks ``names`` (keys of CHECKS), in that order."""
    messages = []
    for name in names:
        messages.extend(CHECKS[name](values))
    return messages
