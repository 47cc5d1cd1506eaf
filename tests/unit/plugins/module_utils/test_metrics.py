# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The /metrics reader: the exposition format parser and the summary on real scrapes of kube-scheduler v1.37.2
(fixtures/metrics, the leader and the standby of a second scheduler that placed six pods while two asked for 64 CPUs),
histogram_quantile against Prometheus's rules, HTTPS over a connected socket, and the module's run on a fake API."""

from __future__ import annotations

import math
import socket
import ssl
import subprocess
import threading
from pathlib import Path

import pytest

from ansible_collections.kubesched.scheduler.plugins.module_utils import metrics

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "metrics"
LEADER = (FIXTURES / "kube-scheduler-v1.37.2-leader.txt").read_text()
STANDBY = (FIXTURES / "kube-scheduler-v1.37.2-standby.txt").read_text()


def test_parse_reads_every_sample_of_a_real_scrape():
    samples = metrics.parse(LEADER)
    assert samples[metrics.ATTEMPTS] == [
        ({"profile": "obs-scheduler", "result": "scheduled"}, 6.0),
        ({"profile": "obs-scheduler", "result": "unschedulable"}, 2.0),
    ]
    assert ({"queue": "unschedulable"}, 2.0) in samples[metrics.PENDING]
    assert samples[metrics.LEADER] == [({"name": "kube-scheduler"}, 1.0)]
    assert samples[metrics.SLI + "_count"] == [({"attempts": "1"}, 6.0)]
    assert ({"attempts": "1", "le": "+Inf"}, 6.0) in samples[metrics.SLI + "_bucket"]
    # Every sample line of the file, and nothing else, is read.
    lines = [line for line in LEADER.splitlines() if line and not line.startswith("#")]
    assert sum(len(values) for values in samples.values()) == len(lines)


def test_summary_of_the_leader():
    assert metrics.summary(metrics.parse(LEADER), ["obs-scheduler"]) == {
        "attempts": {"scheduled": 6, "unschedulable": 2, "error": 0},
        "pending": {"active": 0, "backoff": 0, "unschedulable": 2, "gated": 0, "incomplete": 0, "pending": 0},
        # Six bindings: two under 20 ms, two more under 40 ms, the last two under 80 ms. The 99th percentile's rank,
        # 5.94, lies in the (0.04, 0.08] bucket, 1.94 of its 2 observations in: 0.04 + 0.04 x 1.94 / 2.
        "sli_p99_seconds": 0.0788,
        "sli_count": 6,
        "leader": True,
    }


def test_summary_of_the_standby():
    summary = metrics.summary(metrics.parse(STANDBY), ["obs-scheduler"])
    assert summary["leader"] is False
    assert summary["attempts"] == {"scheduled": 0, "unschedulable": 0, "error": 0}
    # The standby's queue holds the two waiting pods too, as active: it never attempts them.
    assert summary["pending"]["active"] == 2 and summary["pending"]["unschedulable"] == 0
    assert (summary["sli_p99_seconds"], summary["sli_count"]) == (None, 0)


def test_summary_counts_only_the_profiles_asked_for():
    samples = metrics.parse(LEADER)
    assert metrics.summary(samples, ["another-profile"])["attempts"] == {"scheduled": 0, "unschedulable": 0, "error": 0}
    assert metrics.summary(samples)["attempts"]["scheduled"] == 6


def test_no_leader_election_reports_none():
    text = "\n".join(line for line in LEADER.splitlines() if not line.startswith(metrics.LEADER))
    assert metrics.summary(metrics.parse(text))["leader"] is None


@pytest.mark.parametrize(
    ("quantile", "buckets", "expected"),
    [
        # No observation: no value (Prometheus says NaN).
        (0.99, [(0.01, 0), (math.inf, 0)], None),
        (0.99, [], None),
        # Without the +Inf bucket a histogram cannot be read.
        (0.5, [(0.01, 1), (0.02, 2)], None),
        # Interpolated from 0 in the first bucket.
        (0.5, [(0.1, 4), (0.2, 4), (math.inf, 4)], 0.05),
        # Linear inside the bucket the rank falls in.
        (0.75, [(0.1, 2), (0.2, 6), (math.inf, 6)], 0.1 + 0.1 * (4.5 - 2) / 4),
        # A rank in the +Inf bucket gives the highest finite bound.
        (0.99, [(0.1, 1), (0.2, 2), (math.inf, 10)], 0.2),
        # A first bucket of bound 0 or less is its bound.
        (0.5, [(0.0, 5), (1.0, 10), (math.inf, 10)], 0.0),
        # The rank at the top of a bucket is its upper bound.
        (0.5, [(1.0, 5), (2.0, 10), (math.inf, 10)], 1.0),
    ],
)
def test_histogram_quantile(quantile, buckets, expected):
    got = metrics.histogram_quantile(quantile, buckets)
    assert got == expected if expected is None else got == pytest.approx(expected)


def test_histogram_quantile_agrees_with_promtool(tmp_path):
    """The same buckets through Prometheus's own histogram_quantile (promtool's rule test) give the same value."""
    rules = tmp_path / "rules.yaml"
    rules.write_text(
        "groups:\n  - name: q\n    rules:\n      - record: p99\n"
        "        expr: histogram_quantile(0.99, sum by (le) (scheduler_pod_scheduling_sli_duration_seconds_bucket))\n"
    )
    samples = metrics.parse(LEADER)
    series = "\n".join(
        f"      - series: 'scheduler_pod_scheduling_sli_duration_seconds_bucket{{attempts=\"{labels['attempts']}\", le=\"{labels['le']}\"}}'\n"
        f"        values: '{int(value)}'"
        for labels, value in samples[metrics.SLI + "_bucket"]
    )
    ours = metrics.histogram_quantile(0.99, metrics.buckets(samples, metrics.SLI))
    (tmp_path / "test.yaml").write_text(
        "rule_files: [rules.yaml]\ntests:\n  - interval: 1m\n    input_series:\n"
        + series
        + f"\n    promql_expr_test:\n      - expr: p99\n        eval_time: 0m\n        exp_samples:\n          - labels: p99\n            value: {ours!r}\n"
    )
    promtool = subprocess.run(["promtool", "test", "rules", "test.yaml"], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)
    assert promtool.returncode == 0, promtool.stdout + promtool.stderr


def test_parse_reads_escapes_special_values_and_timestamps():
    text = (
        "# HELP odd A family with what the format allows.\n"
        "# TYPE odd gauge\n"
        'odd{path="C:\\\\dir",quote="say \\"hi\\"",nl="a\\nb"} 1\n'
        'odd{trailing="comma",} -Inf\n'
        "odd{} NaN 1700000000000\n"
        "bare +Inf\n"
        "   \n"
        "spaced { a = \"1\" , b=\"2\" } 2.5e-3\n"
    )
    samples = metrics.parse(text)
    assert samples["odd"][0] == ({"path": "C:\\dir", "quote": 'say "hi"', "nl": "a\nb"}, 1.0)
    assert samples["odd"][1] == ({"trailing": "comma"}, -math.inf)
    assert samples["odd"][2][0] == {} and math.isnan(samples["odd"][2][1])
    assert samples["bare"] == [({}, math.inf)]
    assert samples["spaced"] == [({"a": "1", "b": "2"}, 0.0025)]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("<html>Forbidden</html>", "line 1 is not a sample"),
        ('good 1\nbad{x=1} 2', "line 2 has labels that cannot be read"),
        ("novalue{}", "line 1 has no value"),
        ("word many", "line 1 has a value that is no number"),
    ],
)
def test_parse_refuses_what_is_not_the_format(text, message):
    with pytest.raises(metrics.MetricsError, match=message):
        metrics.parse(text)


def test_combine_and_merged_add_up_the_pods():
    leader, standby = metrics.parse(LEADER), metrics.parse(STANDBY)
    combined = metrics.combine([metrics.summary(leader, ["obs-scheduler"]), metrics.summary(standby, ["obs-scheduler"])])
    assert combined["attempts"] == {"scheduled": 6, "unschedulable": 2, "error": 0}
    assert metrics.merged([leader, standby]) == metrics.buckets(leader, metrics.SLI)  # the standby observed nothing


# --- HTTPS over a connected socket, as over a port-forward ---------------------------------------------------------------


class Configuration:
    """What get_metrics reads of a kubernetes client Configuration."""

    def __init__(self, bearer=None, cert_file=None, key_file=None):
        self.bearer, self.cert_file, self.key_file = bearer, cert_file, key_file

    def auth_settings(self):
        return {"BearerToken": {"in": "header", "key": "authorization", "value": f"Bearer {self.bearer}"}} if self.bearer else {}


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    """A self-signed serving certificate, as kube-scheduler makes itself in memory."""
    base = tmp_path_factory.mktemp("tls")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost@1796000000",
         "-keyout", str(base / "key.pem"), "-out", str(base / "cert.pem")],
        capture_output=True, check=True, timeout=60,
    )  # fmt: skip
    return base / "cert.pem", base / "key.pem"


def serve_once(certificate, status, body, seen):
    """One end of a socket pair, served by a TLS server thread that answers one request with a chunked body."""
    ours, theirs = socket.socketpair()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*map(str, certificate))

    def serve():
        with context.wrap_socket(theirs, server_side=True) as tls:
            request = b""
            while b"\r\n\r\n" not in request:
                request += tls.recv(4096)
            seen.append(request.decode())
            chunks = b"".join(f"{len(part):x}\r\n".encode() + part + b"\r\n" for part in (body[:100], body[100:]) if part)
            tls.sendall(f"HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n".encode() + chunks + b"0\r\n\r\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return ours, thread


def test_get_metrics_speaks_https_with_the_token_and_reads_a_chunked_answer(certificate):
    seen = []
    sock, thread = serve_once(certificate, "200 OK", LEADER.encode(), seen)
    text = metrics.get_metrics(sock, Configuration(bearer="abc"), 10, "ns/pod:10259")
    thread.join(10)
    assert text == LEADER
    assert seen[0].startswith("GET /metrics HTTP/1.1\r\n")
    assert "\r\nauthorization: Bearer abc\r\n" in seen[0]


def test_get_metrics_reports_a_refusal_with_its_status(certificate):
    seen = []
    sock, thread = serve_once(certificate, "403 Forbidden", b'forbidden: User "system:anonymous" cannot get path "/metrics"', seen)
    with pytest.raises(metrics.MetricsError) as refused:
        metrics.get_metrics(sock, Configuration(), 10, "ns/pod:10259")
    thread.join(10)
    assert refused.value.status == 403
    assert 'ns/pod:10259/metrics answered 403: forbidden: User "system:anonymous"' in str(refused.value)
    assert "authorization" not in seen[0].lower()  # no token, no header


def test_tls_context_presents_the_kubeconfig_client_certificate(certificate):
    context = metrics.tls_context(Configuration(cert_file=str(certificate[0]), key_file=str(certificate[1])))
    assert context.verify_mode == ssl.CERT_NONE and context.check_hostname is False


# --- the module's run ----------------------------------------------------------------------------------------------------


def pod(name, node, phase="Running", deleting=False):
    metadata = {"name": name, "namespace": "kubesched-obs", "labels": {"kubesched.io/scheduler-name": "obs-scheduler"}}
    if deleting:
        metadata["deletionTimestamp"] = "2026-12-01T15:00:00Z"
    return {"metadata": metadata, "spec": {"nodeName": node}, "status": {"phase": phase}}


PODS = [
    pod("obs-scheduler-7ddf7fd5f7-vd6vg", "kubesched-worker"),
    pod("obs-scheduler-7ddf7fd5f7-hd9jb", "kubesched-worker2"),
    pod("obs-scheduler-7ddf7fd5f7-old00", "kubesched-worker", deleting=True),
    pod("obs-scheduler-7ddf7fd5f7-new00", "", phase="Pending"),
]
PARAMS = {"name": "obs-scheduler", "namespace": "kubesched-obs", "pods": [], "profiles": [], "port": 10259, "timeout": 10}


@pytest.fixture
def cluster(kube_api, monkeypatch):
    """The pod list from a fake API server; each pod's /metrics from ``texts`` (an exception to raise, or text)."""

    def install(texts):
        def answer(method, path, query, body):
            assert (method, path, query) == ("GET", "/api/v1/namespaces/kubesched-obs/pods", {"labelSelector": "kubesched.io/scheduler-name=obs-scheduler"})
            return 200, {"kind": "PodList", "items": PODS}

        api, pool = kube_api(answer)
        scraped = []

        def scrape(api_client, namespace, name, port, timeout):
            scraped.append((namespace, name, port, timeout))
            if isinstance(texts[name], Exception):
                raise texts[name]
            return texts[name]

        monkeypatch.setattr(metrics, "scrape", scrape)
        return api, scraped

    return install


def test_run_reads_every_running_pod(cluster):
    api, scraped = cluster({"obs-scheduler-7ddf7fd5f7-vd6vg": LEADER, "obs-scheduler-7ddf7fd5f7-hd9jb": STANDBY})
    result = metrics.run(lambda: api, dict(PARAMS))
    assert [name for dummy, name, dummy, dummy in scraped] == ["obs-scheduler-7ddf7fd5f7-hd9jb", "obs-scheduler-7ddf7fd5f7-vd6vg"]
    assert "msg" not in result
    assert result["leader"] == "obs-scheduler-7ddf7fd5f7-vd6vg"
    assert result["attempts"] == {"scheduled": 6, "unschedulable": 2, "error": 0}
    assert result["pending"]["unschedulable"] == 2 and result["pending"]["active"] == 0  # the leader's queue
    assert (result["sli_p99_seconds"], result["sli_count"]) == (0.0788, 6)
    assert [(p["name"], p["node"], p["leader"]) for p in result["pods"]] == [
        ("obs-scheduler-7ddf7fd5f7-hd9jb", "kubesched-worker2", False),
        ("obs-scheduler-7ddf7fd5f7-vd6vg", "kubesched-worker", True),
    ]
    assert result["profiles"] == ["obs-scheduler"]
    assert result["api_requests"] == 3


def test_run_reports_a_pod_it_could_not_read_beside_the_others(cluster):
    api, dummy = cluster(
        {"obs-scheduler-7ddf7fd5f7-vd6vg": LEADER, "obs-scheduler-7ddf7fd5f7-hd9jb": metrics.MetricsError("no port-forward to x: (404)", 404)}
    )
    result = metrics.run(lambda: api, dict(PARAMS))
    assert "msg" not in result
    assert result["pods"][0] == {"name": "obs-scheduler-7ddf7fd5f7-hd9jb", "node": "kubesched-worker2", "error": "no port-forward to x: (404)"}
    assert result["attempts"]["scheduled"] == 6


def test_run_fails_naming_the_rights_when_every_read_is_forbidden(cluster):
    refused = metrics.MetricsError('kubesched-obs/x:10259/metrics answered 403: forbidden: User "system:anonymous"', 403)
    api, dummy = cluster({"obs-scheduler-7ddf7fd5f7-vd6vg": refused, "obs-scheduler-7ddf7fd5f7-hd9jb": refused})
    result = metrics.run(lambda: api, dict(PARAMS))
    assert result["msg"].startswith("No pod of scheduler obs-scheduler could be read: kubesched-obs/x:10259/metrics answered 403")
    assert "get on the non-resource URL /metrics (the ClusterRole obs-scheduler-metrics-reader" in result["msg"]
    assert "kube_scheduler_metrics_reader_subjects" in result["msg"] and "pods/portforward" in result["msg"]


def test_run_fails_without_a_running_pod(cluster):
    api, scraped = cluster({})
    result = metrics.run(lambda: api, dict(PARAMS, pods=["obs-scheduler-7ddf7fd5f7-new00"]))
    assert result["msg"].startswith("No running pod of scheduler obs-scheduler in namespace kubesched-obs")
    assert "among obs-scheduler-7ddf7fd5f7-new00" in result["msg"]
    assert scraped == []
