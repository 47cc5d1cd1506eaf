"""Shared pieces of the benchmarks: the API client, bench pods on kwok nodes, statistics, results.

Every benchmark writes one JSON document (benchmarks/results/<name>.json): the machine's facts, the
parameters, every repetition's raw figures and the summary that benchmarks/report.py turns into
docs/benchmarks.md. A repetition whose own checks fail raises BenchError: no figure is recorded for it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

import urllib3
import yaml
from kubernetes import client, config

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(os.environ.get("BENCH_RESULTS") or ROOT / "benchmarks" / "results")
KWOK_TAINT = {"key": "kwok.x-k8s.io/node", "operator": "Exists", "effect": "NoSchedule"}


class BenchError(RuntimeError):
    """A repetition that did not do what it measures."""


def versions_env():
    values = {}
    for line in (ROOT / "hack" / "kind" / "versions.env").read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            name, value = line.split("=", 1)
            values[name] = value.split("${", 1)[0].strip('"')
    return values


def scheduler_arguments(doc, name):
    """The command line the side-by-side benchmarks share (throughput.py, backlog.py), with ``doc`` as its help; the parser,
    for a benchmark's own arguments."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--context", required=True)
    parser.add_argument("--schedulers", required=True, help="comma-separated schedulerNames; the first is the baseline")
    parser.add_argument("--labels", default="", help="comma-separated labels for the table, one per scheduler")
    parser.add_argument("--pods", type=int, default=3000)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--timeout", type=int, default=600)
    parser.add_argument("--name", default=name, help="result file name (benchmarks/results/NAME.json)")
    return parser


def side_by_side(args, what):
    """What the parsed arguments of scheduler_arguments name: (schedulers, labels, the pod image, API client, machine facts);
    exits when the cluster has no kwok node."""
    names = args.schedulers.split(",")
    labels = args.labels.split(",") if args.labels else names
    api = api_client(args.context)
    facts = machine(api)
    if facts.get("nodes_kwok", 0) < 1:
        sys.exit(f"{what}: no kwok nodes (hack/kind/kwok.sh up NODES)")
    return names, labels, versions_env()["TEST_POD_IMAGE"], api, facts


def by_scheduler(runs, names, labels, fields):
    """Per scheduler of a side-by-side benchmark: its label, the spread of each of ``fields`` over its runs, and the spread of
    its pods_per_second over the baseline's (the first name's) of the same repetition."""
    base = {run["repetition"]: run["pods_per_second"] for run in runs if run["scheduler"] == names[0]}
    summary = {}
    for name, label in zip(names, labels, strict=True):
        mine = [run for run in runs if run["scheduler"] == name]
        summary[name] = {"label": label} | {field: spread([run[field] for run in mine]) for field in fields}
        summary[name]["ratio_to_baseline"] = spread([run["pods_per_second"] / base[run["repetition"]] for run in mine])
    return summary


def write_side_by_side(benchmark, args, names, facts, runs, summary):
    """The result document of a side-by-side benchmark (the command, the machine, its parameters, every run, the summary)."""
    parameters = {"pods": args.pods, "repetitions": args.repetitions, "schedulers": names, "baseline": names[0], "tuning_presets": tuning_presets()}
    document = {"benchmark": benchmark, "command": " ".join(sys.argv), "machine": facts, "parameters": parameters, "runs": runs, "summary": summary}
    write_result(args.name, document)


def tuning_presets():
    """The deploy role's tuning presets the bench schedulers were installed with (roles/deploy/vars/main.yml), kept with the
    results: the report's client rate bounds are those of the run, not of a later checkout."""
    return yaml.safe_load((ROOT / "roles" / "deploy" / "vars" / "main.yml").read_text())["__kube_scheduler_tuning_presets"]


def api_client(context, pool=32):
    configuration = client.Configuration()
    config.load_kube_config(context=context, client_configuration=configuration)
    configuration.connection_pool_maxsize = pool
    return client.ApiClient(configuration)


def machine(api=None):
    """What ran the benchmark: cores, memory, load, versions."""
    facts = {
        "cores": os.cpu_count(),
        "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "load_average": os.getloadavg(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
    }
    with contextlib.suppress(OSError):
        facts["docker"] = subprocess.run(["docker", "version", "-f", "{{.Server.Version}}"], capture_output=True, text=True, check=False).stdout.strip()
    with contextlib.suppress(OSError):
        facts["ansible_core"] = subprocess.run(
            [str(ROOT / ".venv" / "bin" / "python"), "-c", "import ansible.release as r; print(r.__version__)"], capture_output=True, text=True, check=False
        ).stdout.strip()
    if api is not None:
        info = client.VersionApi(api).get_code()
        facts["kubernetes"] = info.git_version
        nodes = client.CoreV1Api(api).list_node(_preload_content=False)
        items = json.loads(nodes.data)["items"]
        facts["nodes_real"] = sum(1 for n in items if (n["metadata"].get("labels") or {}).get("type") != "kwok")
        facts["nodes_kwok"] = len(items) - facts["nodes_real"]
    return facts


def bench_pod(name, scheduler, image, labels=None):
    """A pause pod with small requests that only kwok's fake nodes accept."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app.kubernetes.io/part-of": "kubesched-bench", **(labels or {})}},
        "spec": {
            "schedulerName": scheduler,
            "nodeSelector": {"type": "kwok"},
            "tolerations": [KWOK_TAINT],
            "terminationGracePeriodSeconds": 0,
            "containers": [{"name": "pause", "image": image, "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}],
        },
    }


def create_pods(api, namespace, pods, workers=16, on_created=None, rate=None):
    """Create the pods as fast as the API accepts them, from ``workers`` threads, or at most ``rate`` per
    second. Returns the seconds taken."""
    core = client.CoreV1Api(api)
    errors = []

    start = time.monotonic()

    def create(indexed):
        index, pod = indexed
        if rate:
            delay = start + index / rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        try:
            core.create_namespaced_pod(namespace, pod, _preload_content=False)
            if on_created:
                on_created(pod["metadata"]["name"], time.monotonic())
        except Exception as exc:  # noqa: BLE001 - reported below, the run is refused
            errors.append(f"{pod['metadata']['name']}: {exc}")

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(create, enumerate(pods)))
    if errors:
        raise BenchError(f"{len(errors)} pods were not created, first: {errors[0][:300]}")
    return time.monotonic() - start


def list_all(method, *args, limit=500, **kwargs):
    """Every item of a list call, paged, as JSON."""
    items, token = [], None
    while True:
        response = method(*args, limit=limit, _continue=token, _preload_content=False, **kwargs)
        payload = json.loads(response.data)
        items.extend(payload.get("items") or [])
        token = (payload.get("metadata") or {}).get("continue")
        if not token:
            return items


def ensure_namespace(api, name):
    core = client.CoreV1Api(api)
    try:
        core.create_namespace({"metadata": {"name": name, "labels": {"app.kubernetes.io/part-of": "kubesched-bench"}}})
    except client.ApiException as exc:
        if exc.status != 409:
            raise


def delete_namespace(api, name, timeout=600):
    """Delete a namespace and wait until it is gone. Its pods go first, at once (grace period 0): the
    namespace controller would delete them one by one with their grace period, through kwok."""
    core = client.CoreV1Api(api)
    deadline = time.monotonic() + timeout
    # Tens of thousands of pods outlast one request's timeout (the API server answers 504 and goes on deleting,
    # or the client gives up): ask again until the collection is empty.
    while True:
        try:
            core.delete_collection_namespaced_pod(name, grace_period_seconds=0, _request_timeout=120)
            if not core.list_namespaced_pod(name, limit=1).items:
                break
        except client.ApiException as exc:
            if exc.status == 404:
                return
            if exc.status not in (500, 503, 504) or time.monotonic() > deadline:
                raise
        except urllib3.exceptions.HTTPError:
            if time.monotonic() > deadline:
                raise
        time.sleep(2)
    try:
        core.delete_namespace(name, grace_period_seconds=0)
    except client.ApiException as exc:
        if exc.status != 404:
            raise
    while time.monotonic() < deadline:
        try:
            core.read_namespace(name)
        except client.ApiException as exc:
            if exc.status == 404:
                return
            raise
        time.sleep(1)
    raise BenchError(f"namespace {name} was not deleted within {timeout}s")


class BindWatch:
    """Watches the pods of a namespace and records when each one first has spec.nodeName (monotonic seconds)."""

    def __init__(self, api, namespace):
        self.core = client.CoreV1Api(api)
        self.namespace = namespace
        self.bound = {}
        self.nodes = {}
        self.stop = threading.Event()
        self.error = None
        listing = self.core.list_namespaced_pod(namespace, limit=1, _preload_content=False)
        self.resource_version = json.loads(listing.data)["metadata"]["resourceVersion"]
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        rv = self.resource_version
        try:
            while not self.stop.is_set():
                response = self.core.list_namespaced_pod(
                    self.namespace, watch=True, resource_version=rv, timeout_seconds=30, allow_watch_bookmarks=True, _preload_content=False
                )
                for line in response:
                    if self.stop.is_set():
                        break
                    event = json.loads(line)
                    obj = event.get("object") or {}
                    rv = (obj.get("metadata") or {}).get("resourceVersion", rv)
                    if event.get("type") == "ERROR":
                        raise BenchError(f"watch error: {obj}")
                    if event.get("type") == "BOOKMARK":  # only a resourceVersion
                        continue
                    node = (obj.get("spec") or {}).get("nodeName")
                    name = obj["metadata"]["name"]
                    if node and name not in self.bound:
                        self.bound[name] = time.monotonic()
                        self.nodes[name] = node
        except Exception as exc:  # noqa: BLE001 - re-raised by wait()
            self.error = exc

    def wait(self, names, timeout):
        deadline = time.monotonic() + timeout
        wanted = set(names)
        while time.monotonic() < deadline:
            if self.error:
                raise BenchError(f"pod watch failed: {self.error}")
            if wanted <= self.bound.keys():
                return True
            time.sleep(0.2)
        return False

    def close(self):
        self.stop.set()


def scheduled_events(api, namespace):
    """The Scheduled events of a namespace: {pod name: [reporting component, ...]}."""
    events = list_all(client.CoreV1Api(api).list_namespaced_event, namespace, field_selector="reason=Scheduled,involvedObject.kind=Pod")
    found = {}
    for event in events:
        component = event.get("reportingComponent") or (event.get("source") or {}).get("component") or ""
        found.setdefault(event["involvedObject"]["name"], []).append(component)
    return found


def _stamp(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def playbook_profile(playbook_path, variables, *options, env_extra=None):
    """Run a playbook with the ansible.posix.json callback, which records every task's start, end and module;
    raise unless rc 0 and no failure. Returns wall seconds, changed, the number of tasks, the time inside tasks
    and outside them (start-up, variables, includes), and the time and calls by module. ``env_extra``: more
    environment (another collection's ANSIBLE_COLLECTIONS_PATH)."""
    env = dict(os.environ, ANSIBLE_STDOUT_CALLBACK="ansible.posix.json", ANSIBLE_LOAD_CALLBACK_PLUGINS="1", ANSIBLE_NOCOLOR="1", **(env_extra or {}))
    command = ["ansible-playbook", str(playbook_path), "-e", json.dumps(variables), *options]
    start = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True, env=env, check=False)  # noqa: S603
    seconds = time.monotonic() - start
    try:
        document = json.loads(result.stdout[result.stdout.index("{") :])
    except ValueError as exc:
        raise BenchError(f"{playbook_path} {' '.join(options)}: no JSON output (rc {result.returncode}): {result.stderr[-500:]}") from exc
    stats = document.get("stats", {})
    failures = sum(host.get("failures", 0) + host.get("unreachable", 0) for host in stats.values())
    if result.returncode != 0 or failures:
        raise BenchError(
            f"{playbook_path} {' '.join(options)} failed (rc {result.returncode}, failures {failures}): {result.stdout[-1500:]}{result.stderr[-500:]}"
        )
    by_module = {}
    tasks = 0
    in_tasks = 0.0
    slowest = []
    for play in document.get("plays", []):
        for task in play.get("tasks", []):
            duration = task["task"].get("duration", {})
            if not duration.get("end"):
                continue
            took = _stamp(duration["end"]) - _stamp(duration["start"])
            module = sorted({host.get("action", "?") for host in task.get("hosts", {}).values()} or {"?"})[0]
            tasks += 1
            in_tasks += took
            entry = by_module.setdefault(module, {"calls": 0, "seconds": 0.0})
            entry["calls"] += 1
            entry["seconds"] += took
            slowest.append({"seconds": took, "task": task["task"]["name"], "module": module})
    slowest.sort(key=lambda item: -item["seconds"])
    return {
        "seconds": seconds,
        "changed": sum(host.get("changed", 0) for host in stats.values()),
        "tasks": tasks,
        "in_tasks_seconds": in_tasks,
        "outside_tasks_seconds": seconds - in_tasks,
        "by_module": by_module,
        "slowest": slowest[:10],
    }


def playbook(playbook_name, variables, *options):
    """Run playbooks/NAME with ``variables`` (JSON); raise unless rc 0 and failed=0 and unreachable=0.

    Returns (seconds, changed count of the recap, number of tasks run)."""
    profile = playbook_profile(ROOT / "playbooks" / playbook_name, variables, *options)
    return profile["seconds"], profile["changed"], profile["tasks"]


def profile_summary(profiles):
    """Medians over several playbook_profile results of the same playbook."""
    modules = sorted({m for p in profiles for m in p["by_module"]})
    return {
        "tasks": spread([p["tasks"] for p in profiles]),
        "in_tasks_seconds": spread([p["in_tasks_seconds"] for p in profiles]),
        "outside_tasks_seconds": spread([p["outside_tasks_seconds"] for p in profiles]),
        "by_module": {
            m: {
                "calls": spread([p["by_module"].get(m, {}).get("calls", 0) for p in profiles]),
                "seconds": spread([p["by_module"].get(m, {}).get("seconds", 0.0) for p in profiles]),
            }
            for m in modules
        },
    }


def percentile(values, q):
    ordered = sorted(values)
    if not ordered:
        return None
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def spread(values):
    """median, min, max and the number of values."""
    values = [v for v in values if v is not None]
    if not values:
        return {"median": None, "min": None, "max": None, "n": 0}
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def write_result(name, document):
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
    print(f"bench: wrote {path}")
    return path
