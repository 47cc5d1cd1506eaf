# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a kube-scheduler's ``/metrics`` says about its work, read without a Prometheus.

``parse`` reads the Prometheus text exposition format (version 0.0.4, what kube-scheduler serves) into
samples; ``summary`` reduces them to what the verify playbook prints beside the placement table:

* ``attempts``: ``scheduler_schedule_attempts_total`` by ``result`` (scheduled, unschedulable, error), summed over
  the profiles asked for (the scheduler's own ``profile`` label values);
* ``pending``: ``scheduler_pending_pods`` by ``queue`` (active, backoff, unschedulable, gated, ...); one queue serves
  every profile of a scheduler, and only the leader fills it;
* ``sli_p99_seconds``: the 99th percentile of ``scheduler_pod_scheduling_sli_duration_seconds`` (from a pod's first
  attempt until it is bound, without the time its scheduling gates held it), estimated from the histogram's
  buckets as Prometheus's ``histogram_quantile`` does;
* ``leader``: ``leader_election_master_status`` (1 on the pod that holds the Lease, 0 on a standby, absent
  without leader election).

``scrape`` is the only function that talks to a cluster. kube-scheduler's secure port authenticates the caller
(a bearer token through a TokenReview, or a client certificate of the cluster's client CA) and asks the API
server whether the caller may ``get`` the non-resource URL ``/metrics``. The API server's proxy
(``/api/v1/namespaces/<ns>/pods/https:<pod>:10259/proxy/metrics``) does not forward the caller's identity (it
drops the Authorization header and presents none), so kube-scheduler sees ``system:anonymous`` there and
answers 403. ``scrape`` therefore opens a port-forward to the pod through the API server
(``pods/portforward``) and speaks HTTPS to kube-scheduler over it with the caller's own credentials, those of
the kubeconfig: the scheduler checks the caller, as Prometheus's token is checked in the cluster.
"""

from __future__ import annotations

import http.client
import math
import re
import ssl

ATTEMPTS = "scheduler_schedule_attempts_total"
PENDING = "scheduler_pending_pods"
SLI = "scheduler_pod_scheduling_sli_duration_seconds"
LEADER = "leader_election_master_status"
RESULTS = ("scheduled", "unschedulable", "error")
QUEUES = ("active", "backoff", "unschedulable", "gated")
PORT = 10259

_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
_LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*(,|\})')
_ESCAPES = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}


class MetricsError(Exception):
    """Text that is not the Prometheus exposition format, or a scrape that failed; ``status`` is the HTTP status."""

    def __init__(self, msg, status=None):
        super().__init__(msg)
        self.status = status


def _unescape(value):
    return re.sub(r'\\[\\"n]', lambda m: _ESCAPES[m.group(0)], value)


def _number(text):
    lowered = text.lower()
    if lowered in ("+inf", "inf"):
        return math.inf
    if lowered == "-inf":
        return -math.inf
    return float(text)  # NaN too


def parse(text):
    """``{metric name: [(labels, value), ...]}`` of every sample of ``text`` (comments skipped, timestamps ignored)."""
    samples = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = _NAME.match(line)
        if not match:
            raise MetricsError(f"line {number} is not a sample: {line[:120]}")
        name, rest = match.group(0), line[match.end() :].lstrip()
        labels = {}
        if rest.startswith("{"):
            rest = rest[1:]
            if rest.lstrip().startswith("}"):
                rest = rest.lstrip()[1:]
            else:
                while True:
                    label = _LABEL.match(rest)
                    if not label:
                        raise MetricsError(f"line {number} has labels that cannot be read: {line[:120]}")
                    labels[label.group(1)] = _unescape(label.group(2))
                    rest = rest[label.end() :]
                    if label.group(3) == "}":
                        break
                    if rest.lstrip().startswith("}"):  # a trailing comma
                        rest = rest.lstrip()[1:]
                        break
        fields = rest.split()
        if not fields:
            raise MetricsError(f"line {number} has no value: {line[:120]}")
        try:
            value = _number(fields[0])
        except ValueError:
            raise MetricsError(f"line {number} has a value that is no number: {line[:120]}") from None
        samples.setdefault(name, []).append((labels, value))
    return samples


def total(samples, name, by, **match):
    """``{value of label by: sum}`` of the samples of ``name`` whose labels equal ``match`` (a list value: one of)."""
    sums = {}
    for labels, value in samples.get(name, []):
        if all(labels.get(key) in (wanted if isinstance(wanted, (list, tuple)) else (wanted,)) for key, wanted in match.items()):
            key = labels.get(by, "")
            sums[key] = sums.get(key, 0.0) + value
    return sums


def buckets(samples, name):
    """The cumulative buckets of histogram ``name`` summed over its other labels: ``[(upper bound, count), ...]`` by bound."""
    by_bound = {}
    for labels, value in samples.get(name + "_bucket", []):
        if "le" in labels:
            bound = _number(labels["le"])
            by_bound[bound] = by_bound.get(bound, 0.0) + value
    return sorted(by_bound.items())


def histogram_quantile(quantile, cumulative):
    """Prometheus's ``histogram_quantile`` over cumulative ``(upper bound, count)`` buckets; None without observations.

    The rank ``quantile x count`` falls in a bucket; the value is interpolated linearly inside it (from 0 for the
    first bucket); in the ``+Inf`` bucket it is the highest finite bound."""
    if not cumulative or cumulative[-1][0] != math.inf:
        return None
    count = cumulative[-1][1]
    if count <= 0 or math.isnan(count):
        return None
    rank = quantile * count
    previous_bound, previous_count = 0.0, 0.0
    for index, (bound, cum) in enumerate(cumulative):
        if cum >= rank:
            if bound == math.inf:
                return cumulative[-2][0] if len(cumulative) > 1 else None
            if index == 0 and bound <= 0:
                return bound
            if cum == previous_count:
                return bound
            return previous_bound + (bound - previous_bound) * (rank - previous_count) / (cum - previous_count)
        previous_bound, previous_count = bound, cum
    return None


def summary(samples, profiles=None):
    """What a scheduler's samples say: attempts by result (of ``profiles``, all when None), pending pods by queue,
    the scheduling SLI's 99th percentile and count, and whether this pod leads."""
    match = {"profile": list(profiles)} if profiles else {}
    attempts = total(samples, ATTEMPTS, "result", **match)
    pending = total(samples, PENDING, "queue")
    sli = buckets(samples, SLI)
    leader = total(samples, LEADER, "name")
    p99 = histogram_quantile(0.99, sli)
    return {
        "attempts": {result: int(attempts.pop(result, 0)) for result in RESULTS} | {key: int(value) for key, value in attempts.items()},
        "pending": {queue: int(pending.pop(queue, 0)) for queue in QUEUES} | {key: int(value) for key, value in pending.items()},
        "sli_p99_seconds": None if p99 is None else round(p99, 4),
        "sli_count": int(sli[-1][1]) if sli else 0,
        "leader": None if not leader else any(value == 1 for value in leader.values()),
    }


def combine(summaries):
    """The sum of several pods' summaries (counters and queues add up; the percentile needs the buckets, see ``merged``)."""
    attempts, pending = {}, {}
    for one in summaries:
        for key, value in one["attempts"].items():
            attempts[key] = attempts.get(key, 0) + value
        for key, value in one["pending"].items():
            pending[key] = pending.get(key, 0) + value
    return {"attempts": attempts, "pending": pending}


def merged(sample_sets, name=SLI):
    """The buckets of histogram ``name`` summed over several pods' samples."""
    by_bound = {}
    for samples in sample_sets:
        for bound, count in buckets(samples, name):
            by_bound[bound] = by_bound.get(bound, 0.0) + count
    return sorted(by_bound.items())


# --- the one read of a pod ------------------------------------------------------------------------


class _ForwardedHTTPS(http.client.HTTPSConnection):
    """HTTPS over a socket that is already connected (a port-forward), with the caller's client certificate."""

    def __init__(self, sock, context, timeout):
        super().__init__("localhost", PORT, context=context, timeout=timeout)
        self._forwarded = sock

    def connect(self):
        self._forwarded.settimeout(self.timeout)
        self.sock = self._context.wrap_socket(self._forwarded, server_hostname="localhost")


def tls_context(configuration):
    """TLS to kube-scheduler: its serving certificate is self-signed in memory (nothing to verify it against, as
    Prometheus's ``insecure_skip_verify``); the client certificate is the kubeconfig's, when it has one."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    if getattr(configuration, "cert_file", None):
        context.load_cert_chain(configuration.cert_file, getattr(configuration, "key_file", None) or None)
    return context


def auth_headers(configuration):
    """The bearer token of the kubeconfig (a token, an exec or auth provider), as the ApiClient would send it."""
    headers = {}
    for auth in (configuration.auth_settings() or {}).values():
        if auth.get("in") == "header" and auth.get("value"):
            headers[auth["key"]] = auth["value"]
    return headers


def get_metrics(sock, configuration, timeout, where):
    """``GET /metrics`` over ``sock`` (connected to kube-scheduler's secure port) with the credentials of ``configuration``
    (a kubernetes client Configuration); the text. Raises MetricsError, OSError and http.client's errors."""
    connection = _ForwardedHTTPS(sock, tls_context(configuration), timeout)
    try:
        connection.request("GET", "/metrics", headers={"Accept": "text/plain", **auth_headers(configuration)})
        response = connection.getresponse()
        body = response.read().decode("utf-8", "replace")
    finally:
        connection.close()
    if response.status != 200:
        raise MetricsError(f"{where}/metrics answered {response.status}: {body.strip()[:300]}", response.status)
    return body


def scrape(api_client, namespace, pod, port=PORT, timeout=10):
    """``GET /metrics`` of kube-scheduler in ``pod`` through a port-forward, as the caller; the text. Raises MetricsError."""
    from kubernetes import client
    from kubernetes.stream import portforward

    where = f"{namespace}/{pod}:{port}"
    core = client.CoreV1Api(api_client)
    try:
        forward = portforward(core.connect_get_namespaced_pod_portforward, pod, namespace, ports=str(port))
    except Exception as exc:  # ApiException (403 without pods/portforward, 404), websocket errors
        status = getattr(exc, "status", None)
        raise MetricsError(f"no port-forward to {where}: {str(exc).strip().splitlines()[0][:300]}", status) from None
    try:
        return get_metrics(forward.socket(port)._socket, api_client.configuration, timeout, where)
    except (OSError, http.client.HTTPException) as exc:
        raise MetricsError(f"reading {where}/metrics failed: {forward.error(port) or exc}") from None
    finally:
        forward.close()


# --- the module ------------------------------------------------------------------------------------

NAME_LABEL = "kubesched.io/scheduler-name"


def forbidden_hint(name):
    return (
        f"The caller may not read /metrics of kube-scheduler: grant it get on the non-resource URL /metrics (the ClusterRole "
        f"{name}-metrics-reader that the deploy role creates; bind it with kube_scheduler_metrics_reader_subjects) and create on "
        "pods/portforward in the scheduler's namespace."
    )


def run(connect, params, check_mode=False, diff=False):
    """The ``scheduler_metrics`` module: every running pod of the scheduler, scraped once."""
    from ansible_collections.kubesched.scheduler.plugins.module_utils.kube import Kube

    name, namespace = params["name"], params["namespace"]
    profiles = params.get("profiles") or [name]
    api = connect()
    kube = Kube(api)
    pods = [
        pod
        for pod in kube.list("Pod", namespace, f"{NAME_LABEL}={name}")
        if (pod.get("status") or {}).get("phase") == "Running" and not pod["metadata"].get("deletionTimestamp")
    ]
    if params.get("pods"):
        pods = [pod for pod in pods if pod["metadata"]["name"] in params["pods"]]
    result = {"changed": False, "pods": [], "api_requests": kube.requests}
    if not pods:
        result["msg"] = (
            f"No running pod of scheduler {name} in namespace {namespace} (label {NAME_LABEL}={name})"
            + (f" among {', '.join(params['pods'])}" if params.get("pods") else "")
            + ": deploy it (role kubesched.scheduler.deploy), or correct name and namespace."
        )
        return result
    sample_sets, failures = [], []
    for pod in sorted(pods, key=lambda p: p["metadata"]["name"]):
        pod_name = pod["metadata"]["name"]
        entry = {"name": pod_name, "node": (pod.get("spec") or {}).get("nodeName") or ""}
        try:
            samples = parse(scrape(api, namespace, pod_name, params["port"], params["timeout"]))
        except MetricsError as exc:
            entry["error"] = str(exc)
            failures.append(exc)
            result["pods"].append(entry)
            continue
        sample_sets.append(samples)
        entry.update(summary(samples, profiles))
        result["pods"].append(entry)
    result["api_requests"] = kube.requests + len(pods)
    if not sample_sets:
        forbidden = any(exc.status == 403 for exc in failures)
        result["msg"] = f"No pod of scheduler {name} could be read: {failures[0]}." + (" " + forbidden_hint(name) if forbidden else "")
        return result
    read = [entry for entry in result["pods"] if "error" not in entry]
    result.update(combine(read))
    result["leader"] = next((entry["name"] for entry in read if entry.get("leader")), "")
    # A standby fills its queue from the same informers but never attempts: the queues are the leader's.
    if result["leader"]:
        result["pending"] = next(entry["pending"] for entry in read if entry["name"] == result["leader"])
    p99 = histogram_quantile(0.99, merged(sample_sets))
    result["sli_p99_seconds"] = None if p99 is None else round(p99, 4)
    result["sli_count"] = sum(entry["sli_count"] for entry in read)
    result["profiles"] = list(profiles)
    return result
