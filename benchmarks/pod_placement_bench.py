#!/usr/bin/env python3
# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Cost of kubesched.scheduler.pod_placement against a per-pod event lookup, on a live cluster.

Creates a namespace with --pods pods that no kubelet runs:

* most carry ``schedulerName: bench-nobody``, which no scheduler serves, so they stay Pending;
  half of all pods get a FailedScheduling event (most through core/v1, some through
  events.k8s.io/v1), the rest have none (the module then looks for a Lease or Deployment once);
* --preset-fraction of them are created with ``spec.nodeName`` of a node that does not exist
  (bound without a scheduler); most of those get a core/v1 Scheduled event naming a
  ``reportingComponent``. The PodGC controller deletes pods bound to a missing node after about
  40 seconds, so they are created last, right before the measurements, and the table reports the
  pods actually seen.

Then measures

(a) the module's logic in-process (``placement.gather``, what each poll of the module runs) with the
    same kubernetes client, wall time and API requests (counted at the REST client);
(b) a per-pod loop of ``kubectl get events --field-selector involvedObject.uid=<uid>``, timed over
    every pod or over --kubectl-sample pods and then extrapolated (labelled as such);
(c) the same per-pod loop in-process with the API client (no kubectl start-up), for reference.

Prints a markdown table and deletes the namespace unless --keep. Needs the ``kubernetes`` Python
client and, for (b), kubectl. Run from the repository:

    .venv/bin/python benchmarks/pod_placement_bench.py --context kind-kubesched
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import kubernetes
from kubernetes import client, config

SCHEDULER = "bench-nobody"
GHOST_NODE = "bench-ghost-node"
BENCH_LABEL = "kubesched.io/benchmark"
FAILED_MESSAGE = "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. (recorded by pod_placement_bench)"


def load_placement():
    """Import the collection's placement module, laying out ansible_collections/ in a temporary directory if needed."""
    try:
        from ansible_collections.kubesched.scheduler.plugins.module_utils import placement

        return placement
    except ImportError:
        pass
    root = Path(__file__).resolve().parent.parent
    layout = Path(tempfile.mkdtemp(prefix="pod-placement-bench-"))
    (layout / "ansible_collections" / "kubesched").mkdir(parents=True)
    (layout / "ansible_collections" / "kubesched" / "scheduler").symlink_to(root)
    sys.path.insert(0, str(layout))
    from ansible_collections.kubesched.scheduler.plugins.module_utils import placement

    return placement


def micro_now():
    """An RFC 3339 MicroTime; the microseconds are never 0 (the client would drop them and the API needs them)."""
    now = datetime.now(timezone.utc)
    if now.microsecond == 0:
        now = now.replace(microsecond=1)
    return now.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def second_now():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class RequestCounter:
    """Counts the HTTP requests a kubernetes ApiClient makes (older and newer generated clients)."""

    def __init__(self, api):
        self.count = 0
        self._lock = threading.Lock()
        original = api.rest_client.request

        def counted(*args, **kwargs):
            with self._lock:
                self.count += 1
            return original(*args, **kwargs)

        api.rest_client.request = counted


def new_api(context, pool_size):
    configuration = client.Configuration()
    config.load_kube_config(context=context, client_configuration=configuration)
    configuration.connection_pool_maxsize = max(pool_size, 4)
    return client.ApiClient(configuration)


def progress(label, done, total, started):
    if done == total or done % 500 == 0:
        rate = done / max(time.monotonic() - started, 1e-6)
        print(f"  {label}: {done}/{total} ({rate:.0f}/s)", file=sys.stderr, flush=True)


def run_pool(label, work, items, workers):
    """Run work(item) over items with a few threads; returns the results in order."""
    started = time.monotonic()
    results = [None] * len(items)
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(work, item): index for index, item in enumerate(items)}
        for done, future in enumerate(concurrent.futures.as_completed(futures), start=1):
            results[futures[future]] = future.result()
            progress(label, done, len(items), started)
    return results, time.monotonic() - started


def pod_body(name, preset):
    spec = {
        "automountServiceAccountToken": False,
        "enableServiceLinks": False,
        "terminationGracePeriodSeconds": 0,
        "tolerations": [{"operator": "Exists"}],
        "containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10"}],
    }
    if preset:
        spec["nodeName"] = GHOST_NODE
    else:
        spec["schedulerName"] = SCHEDULER
    group = "preset" if preset else "pending"
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {BENCH_LABEL: "pod-placement", "bench-group": group}}, "spec": spec}


def core_event(namespace, pod, reason, legacy):
    """A core/v1 event about a pod: legacy (source.component, timestamps) or new style (eventTime, reportingComponent)."""
    ref = {"apiVersion": "v1", "kind": "Pod", "namespace": namespace, "name": pod["name"], "uid": pod["uid"]}
    message = FAILED_MESSAGE if reason == "FailedScheduling" else f"Successfully assigned {namespace}/{pod['name']} to {GHOST_NODE}"
    kind = "Warning" if reason == "FailedScheduling" else "Normal"
    body = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{pod['name']}.{reason.lower()}"},
        "involvedObject": ref,
        "reason": reason,
        "message": message,
        "type": kind,
    }
    if legacy:
        stamp = second_now()
        body.update(source={"component": SCHEDULER}, firstTimestamp=stamp, lastTimestamp=stamp, count=1)
    else:
        body.update(
            eventTime=micro_now(),
            reportingComponent=SCHEDULER,
            reportingInstance=f"{SCHEDULER}-bench",
            action="Binding" if reason == "Scheduled" else "Scheduling",
        )
    return body


def events_v1_event(namespace, pod):
    """A FailedScheduling event written through events.k8s.io/v1, as kube-scheduler writes them."""
    return {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": f"{pod['name']}.failedscheduling"},
        "regarding": {"apiVersion": "v1", "kind": "Pod", "namespace": namespace, "name": pod["name"], "uid": pod["uid"]},
        "reason": "FailedScheduling",
        "note": FAILED_MESSAGE,
        "type": "Warning",
        "eventTime": micro_now(),
        "reportingController": SCHEDULER,
        "reportingInstance": f"{SCHEDULER}-bench",
        "action": "Scheduling",
    }


def wait_for_service_account(core, namespace, timeout=60):
    """Pods are refused until the namespace's default ServiceAccount exists."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            core.read_namespaced_service_account("default", namespace)
            return
        except client.exceptions.ApiException as exc:
            if exc.status != 404 or time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def create_fixture(api, namespace, total, preset_fraction, workers):
    core = client.CoreV1Api(api)
    events_v1 = client.EventsV1Api(api)
    core.create_namespace({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace, "labels": {BENCH_LABEL: "pod-placement"}}})
    wait_for_service_account(core, namespace)
    preset_count = int(total * preset_fraction)
    pending_count = total - preset_count
    timings = {}

    def create_pod(spec):
        name, preset = spec
        response = core.create_namespaced_pod(namespace, pod_body(name, preset), _preload_content=False)
        created = json.loads(response.data)
        return {"name": name, "uid": created["metadata"]["uid"], "preset": preset}

    def create_event(job):
        kind, pod = job
        if kind == "failed-core":
            core.create_namespaced_event(namespace, core_event(namespace, pod, "FailedScheduling", legacy=pod["index"] % 2 == 0), _preload_content=False)
        elif kind == "failed-v1":
            events_v1.create_namespaced_event(namespace, events_v1_event(namespace, pod), _preload_content=False)
        else:
            core.create_namespaced_event(namespace, core_event(namespace, pod, "Scheduled", legacy=False), _preload_content=False)

    # pending pods and their FailedScheduling events first: they last
    pending, timings["pending pods"] = run_pool("pending pods", create_pod, [(f"pending-{i:05d}", False) for i in range(pending_count)], workers)
    failed_jobs = []
    for index, pod in enumerate(pending[: min(total // 2, pending_count)]):
        pod["index"] = index
        failed_jobs.append(("failed-v1" if index % 5 == 4 else "failed-core", pod))
    _, timings["FailedScheduling events"] = run_pool("FailedScheduling events", create_event, failed_jobs, workers)

    # pods bound to a node that does not exist, last (PodGC removes them after ~40 s)
    preset, timings["preset-node pods"] = run_pool("preset-node pods", create_pod, [(f"preset-{i:05d}", True) for i in range(preset_count)], workers)
    scheduled_jobs = [("scheduled", pod) for index, pod in enumerate(preset) if index % 5 != 4]
    _, timings["Scheduled events"] = run_pool("Scheduled events", create_event, scheduled_jobs, workers)
    counts = {
        "pending pods": pending_count,
        "preset-node pods": preset_count,
        "FailedScheduling events (core/v1)": sum(1 for kind, _ in failed_jobs if kind == "failed-core"),
        "FailedScheduling events (events.k8s.io/v1)": sum(1 for kind, _ in failed_jobs if kind == "failed-v1"),
        "Scheduled events (core/v1)": len(scheduled_jobs),
    }
    return pending + preset, timings, counts


def existing_pods(api, namespace):
    core = client.CoreV1Api(api)
    response = core.list_namespaced_pod(namespace, _preload_content=False)
    return [{"name": pod["metadata"]["name"], "uid": pod["metadata"]["uid"]} for pod in json.loads(response.data)["items"]]


def measure_gather(placement, api, counter, namespace, repeat):
    times = []
    requests = []
    records = []
    for _ in range(repeat):
        before = counter.count
        started = time.perf_counter()
        records = placement.gather(api, namespace=namespace)
        times.append(time.perf_counter() - started)
        requests.append(counter.count - before)
    return times, requests, records


def sample_of(pods, size):
    if not size or size >= len(pods):
        return list(pods), False
    step = len(pods) / size
    return [pods[int(index * step)] for index in range(size)], True


def measure_kubectl(kubectl, context, namespace, pods, sample):
    chosen, sampled = sample_of(pods, sample)
    command = [kubectl]
    if context:
        command += ["--context", context]
    started = time.perf_counter()
    for done, pod in enumerate(chosen, start=1):
        subprocess.run(
            command + ["-n", namespace, "get", "events", "--field-selector", f"involvedObject.uid={pod['uid']}", "-o", "json"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        if done % 100 == 0:
            print(f"  kubectl loop: {done}/{len(chosen)}", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - started
    return elapsed, len(chosen), sampled


def measure_api_loop(api, counter, namespace, pods, sample):
    chosen, sampled = sample_of(pods, sample)
    core = client.CoreV1Api(api)
    before = counter.count
    started = time.perf_counter()
    for pod in chosen:
        response = core.list_namespaced_event(namespace, field_selector=f"involvedObject.uid={pod['uid']}", _preload_content=False)
        json.loads(response.data)
    return time.perf_counter() - started, counter.count - before, len(chosen), sampled


def seconds(value):
    return f"{value:.2f} s" if value < 100 else f"{value:.0f} s"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--context", help="kubeconfig context (default: the current one)")
    parser.add_argument("--namespace", default="pod-placement-bench", help="namespace to create (default: %(default)s)")
    parser.add_argument("--pods", type=int, default=5000, help="number of pods (default: %(default)s)")
    parser.add_argument("--preset-fraction", type=float, default=0.1, help="share of pods created with spec.nodeName of a missing node (default: %(default)s)")
    parser.add_argument("--workers", type=int, default=4, help="threads creating objects (default: %(default)s)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of the module's logic (default: %(default)s)")
    parser.add_argument("--kubectl", default="kubectl", help="kubectl binary (default: %(default)s)")
    parser.add_argument("--kubectl-sample", type=int, default=0, help="time the kubectl loop over N pods and extrapolate (default: all pods)")
    parser.add_argument("--api-loop-sample", type=int, default=0, help="time the in-process per-pod loop over N pods and extrapolate (default: all pods)")
    parser.add_argument("--skip-kubectl", action="store_true", help="do not run the kubectl loop")
    parser.add_argument("--reuse", action="store_true", help="measure the pods of an existing namespace instead of creating it")
    parser.add_argument("--keep", action="store_true", help="keep the namespace afterwards")
    args = parser.parse_args(argv)

    placement = load_placement()
    setup_api = new_api(args.context, args.workers)
    api = new_api(args.context, 4)
    counter = RequestCounter(api)
    core = client.CoreV1Api(setup_api)
    try:
        version = client.VersionApi(setup_api).get_code().git_version
    except client.exceptions.ApiException as exc:
        version = f"unknown ({exc.status})"

    created = False
    timings, counts = {}, {}
    try:
        if args.reuse:
            pods = existing_pods(setup_api, args.namespace)
        else:
            try:
                core.read_namespace(args.namespace)
                parser.error(f"namespace {args.namespace} exists; delete it, choose another --namespace or pass --reuse")
            except client.exceptions.ApiException as exc:
                if exc.status != 404:
                    raise
            created = True
            print(f"Creating {args.pods} pods and their events in {args.namespace} ...", file=sys.stderr)
            pods, timings, counts = create_fixture(setup_api, args.namespace, args.pods, args.preset_fraction, args.workers)

        print("Measuring the module's logic ...", file=sys.stderr)
        gather_times, gather_requests, records = measure_gather(placement, api, counter, args.namespace, max(args.repeat, 1))
        summary = placement.summarize(records)

        print("Measuring the in-process per-pod loop ...", file=sys.stderr)
        loop_time, loop_requests, loop_pods, loop_sampled = measure_api_loop(api, counter, args.namespace, pods, args.api_loop_sample)

        kubectl_row = None
        kubectl = shutil.which(args.kubectl)
        if not args.skip_kubectl and kubectl:
            print("Measuring the kubectl loop ...", file=sys.stderr)
            kubectl_row = measure_kubectl(kubectl, args.context, args.namespace, pods, args.kubectl_sample)
    finally:
        if created and not args.keep:
            print(f"Deleting namespace {args.namespace} ...", file=sys.stderr)
            try:
                core.delete_namespace(args.namespace, propagation_policy="Background")
            except client.exceptions.ApiException as exc:
                print(f"  could not delete namespace {args.namespace}: {exc.status} {exc.reason}", file=sys.stderr)

    total = len(pods)
    print(f"## pod_placement benchmark ({datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')})\n")
    print(
        f"- cluster: Kubernetes {version}, context `{args.context or 'current'}`; "
        f"client: kubernetes {kubernetes.__version__}; Python {platform.python_version()}; {os.cpu_count()} CPUs"
    )
    print(
        f"- namespace `{args.namespace}`: {total} pods; seen by the module: {summary['total']} "
        f"({summary['scheduled']} bound, {summary['pending']} pending; pending by reason {json.dumps(summary['by_reason'], sort_keys=True)}; "
        f"bound by evidence {json.dumps(summary['by_evidence'], sort_keys=True)})"
    )
    for label, value in counts.items():
        print(f"- {label}: {value}")
    for label, value in timings.items():
        print(f"- creating {label}: {seconds(value)}")
    print()
    print("| Approach | Pods | API requests | Wall time | Notes |")
    print("|---|---:|---:|---:|---|")
    median = statistics.median(gather_times)
    print(
        f"| pod_placement logic (`placement.gather`, one poll) | {summary['total']} | {max(gather_requests)} | {seconds(median)} | "
        f"median of {len(gather_times)} runs (min {seconds(min(gather_times))}, max {seconds(max(gather_times))}); "
        "requests: one pod list, one event list per reason needed, one Lease and one Deployment list |"
    )
    per_pod = loop_time / max(loop_pods, 1)
    if loop_sampled:
        print(
            f"| per-pod `list events` via the API client, in-process | {total} | {total} | {seconds(per_pod * total)} (extrapolated) | "
            f"timed over {loop_pods} pods ({seconds(loop_time)}, {per_pod * 1000:.1f} ms per pod), extrapolated to {total} |"
        )
    else:
        print(f"| per-pod `list events` via the API client, in-process | {total} | {loop_requests} | {seconds(loop_time)} | {per_pod * 1000:.1f} ms per pod |")
    if kubectl_row:
        elapsed, timed, sampled = kubectl_row
        each = elapsed / max(timed, 1)
        if sampled:
            print(
                f"| per-pod `kubectl get events --field-selector involvedObject.uid=<uid>` | {total} | >= {total} | "
                f"{seconds(each * total)} (extrapolated) | timed over {timed} pods ({seconds(elapsed)}, {each * 1000:.0f} ms per pod), "
                f"extrapolated to {total}; one kubectl process per pod |"
            )
        else:
            print(
                f"| per-pod `kubectl get events --field-selector involvedObject.uid=<uid>` | {total} | >= {total} | {seconds(elapsed)} | "
                f"{each * 1000:.0f} ms per pod; one kubectl process per pod |"
            )
    elif not args.skip_kubectl:
        print(f"| per-pod kubectl loop | {total} | - | - | skipped: `{args.kubectl}` not found |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
