#!/usr/bin/env python3
"""Throughput from a backlog: pods created while the scheduler under test does not run, then the time it takes to bind them.

For each repetition and each scheduler (the order rotates every repetition):
  1. the scheduler is stopped: the cluster's default scheduler by moving its static Pod's manifest out of
     /etc/kubernetes/manifests on the kind control-plane node (the kubelet stops it), a second scheduler by scaling
     its Deployment to 0 replicas; the run waits until no kube-scheduler process of it is left;
  2. PODS pause pods for it are created in a fresh namespace (16 client threads, as fast as the API server accepts
     them: with nothing binding them, this is the API server's own pod-create rate on this machine, the ceiling of
     the creation-paced figures of throughput.py);
  3. the scheduler is started again (the manifest moved back, or the replicas restored); the clock starts when its
     new process acquires its Lease (spec.acquireTime) and stops when the last pod has spec.nodeName (a watch);
  4. checked: every pod bound to a kwok node, and the new process's own counter
     scheduler_schedule_attempts_total{result="scheduled"} of its profile (read from its /metrics through a
     port-forward) at least PODS; no Scheduled event names another scheduler. Kept beside: how many of the new
     process's requests the API server refused with 429 (its rest_client_requests_total{code="429"}).
Figures per run: pods bound per second from the Lease's acquisition (PODS / (last bind - acquireTime)), the same
from the first bind, the start-up (from the start to acquireTime) and the creation rate. Whatever happens, the
manifest and the replicas are put back. Output: benchmarks/results/backlog.json.

usage: backlog.py --context kind-kubesched --schedulers default-scheduler,bench-scheduler,bench-scheduler-tuned
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import subprocess
import time
from datetime import datetime

import benchlib
from kubernetes import client

# The collection's own /metrics reader (pure Python, no Ansible in it).
_spec = importlib.util.spec_from_file_location("kubesched_metrics", benchlib.ROOT / "plugins" / "module_utils" / "metrics.py")
metrics = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(metrics)

DEFAULT = "default-scheduler"
MANIFEST = "/etc/kubernetes/manifests/kube-scheduler.yaml"
# Outside the kubelet's manifest directory, on the same node; run.sh's cleanup moves it back too.
PARKED = "/etc/kubernetes/kube-scheduler.yaml.backlog"
NAME_LABEL = "kubesched.io/scheduler-name"


def parse_time(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def read_lease(api, namespace, name):
    """(holderIdentity, acquireTime as epoch seconds) of a Lease; ('', None) when it does not exist."""
    try:
        lease = json.loads(client.CoordinationV1Api(api).read_namespaced_lease(name, namespace, _preload_content=False).data)
    except client.ApiException as exc:
        if exc.status == 404:
            return "", None
        raise
    spec = lease.get("spec") or {}
    return spec.get("holderIdentity") or "", parse_time(spec["acquireTime"]) if spec.get("acquireTime") else None


def wait_for(what, predicate, timeout, interval=0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise benchlib.BenchError(f"{what}: not within {timeout}s")


class DefaultScheduler:
    """The cluster's own kube-scheduler, a static Pod of the kind control-plane node."""

    lock = ("kube-system", "kube-scheduler")

    def __init__(self, api, node):
        self.api, self.node = api, node
        self.name = DEFAULT

    def node_sh(self, script):
        result = subprocess.run(["docker", "exec", self.node, "sh", "-c", script], capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise benchlib.BenchError(f"on {self.node}: {script}: {result.stderr.strip()[-300:]}")
        return result.stdout

    def running(self):
        return bool(self.node_sh("crictl ps -q --name '^kube-scheduler$'").strip())

    def stop(self):
        self.node_sh(f"mv {MANIFEST} {PARKED}")
        wait_for("the default scheduler's container stopped", lambda: not self.running(), 120, 1)

    def start(self):
        self.node_sh(f"mv {PARKED} {MANIFEST}")

    def restore(self):
        self.node_sh(f"if [ -f {PARKED} ]; then mv {PARKED} {MANIFEST}; fi")

    def pod(self):
        return "kube-system", f"kube-scheduler-{self.node}"


class SecondScheduler:
    """A scheduler the collection deployed (its Deployment of the scheduler's name in kube-system)."""

    def __init__(self, api, name, namespace="kube-system"):
        self.api, self.name, self.namespace = api, name, namespace
        self.apps = client.AppsV1Api(api)
        self.replicas = self.apps.read_namespaced_deployment(name, namespace).spec.replicas
        self.lock = (namespace, name)

    def pods(self, running_only=False):
        items = benchlib.list_all(client.CoreV1Api(self.api).list_namespaced_pod, self.namespace, label_selector=f"{NAME_LABEL}={self.name}")
        if running_only:
            items = [p for p in items if (p.get("status") or {}).get("phase") == "Running" and not p["metadata"].get("deletionTimestamp")]
        return items

    def scale(self, replicas):
        self.apps.patch_namespaced_deployment_scale(self.name, self.namespace, {"spec": {"replicas": replicas}})

    def stop(self):
        self.scale(0)
        wait_for(f"{self.name}'s pods gone", lambda: not self.pods(), 120, 0.5)

    def start(self):
        self.scale(self.replicas)

    def restore(self):
        self.scale(self.replicas)

    def pod(self):
        running = wait_for(f"a running pod of {self.name}", lambda: self.pods(running_only=True), 60, 0.5)
        return self.namespace, running[0]["metadata"]["name"]


def own_counts(api, scheduler, keep=""):
    """The new process's own counters, from its /metrics (the text kept in KEEP<name>.txt): its attempts by result (its
    profile), and how many of its requests the API server refused with 429 (rest_client_requests_total{code="429"}:
    API Priority and Fairness found the queues of its priority level full; client-go retried each after Retry-After)."""
    namespace, pod = scheduler.pod()
    text = metrics.scrape(api, namespace, pod)
    if keep:
        with open(f"{keep}{scheduler.name}.txt", "w", encoding="utf-8") as out:
            out.write(text)
    samples = metrics.parse(text)
    refused = sum(value for labels, value in samples.get("rest_client_requests_total", []) if labels.get("code") == "429")
    return metrics.summary(samples, profiles=[scheduler.name])["attempts"], int(refused)


def one_run(api, scheduler, pods, image, namespace, timeout, keep=""):
    benchlib.ensure_namespace(api, namespace)
    scheduler.stop()
    holder_before, _ = read_lease(api, *scheduler.lock)
    created = {}
    manifests = [benchlib.bench_pod(f"bl-{i:05d}", scheduler.name, image) for i in range(pods)]
    creation = benchlib.create_pods(api, namespace, manifests, on_created=lambda name, t: created.__setitem__(name, t))
    watch = benchlib.BindWatch(api, namespace)
    try:
        early = [p["metadata"]["name"] for p in benchlib.list_all(client.CoreV1Api(api).list_namespaced_pod, namespace) if p["spec"].get("nodeName")]
        if early:
            raise benchlib.BenchError(f"{scheduler.name}: {len(early)} pods were bound while it was stopped, e.g. {early[0]}")
        started = time.monotonic()
        scheduler.start()

        def acquired():
            holder, when = read_lease(api, *scheduler.lock)
            return (holder, when) if holder and holder != holder_before and when else None

        holder, acquire_wall = wait_for(f"{scheduler.name}'s new process holds its Lease", acquired, 180)
        # acquireTime is the API server's wall clock (the same host's clock on kind); the binds are monotonic.
        acquire = acquire_wall - (time.time() - time.monotonic())
        if not watch.wait(created, timeout):
            missing = len(set(created) - watch.bound.keys())
            raise benchlib.BenchError(f"{scheduler.name}: {missing} of {pods} pods not bound within {timeout}s of its start")
        bound, nodes = dict(watch.bound), dict(watch.nodes)
    finally:
        watch.close()
    not_kwok = [name for name, node in nodes.items() if not node.startswith("kwok-node-")]
    if not_kwok:
        raise benchlib.BenchError(f"{scheduler.name}: {len(not_kwok)} pods bound outside the kwok nodes, e.g. {not_kwok[0]} on {nodes[not_kwok[0]]}")
    attempts, refused = own_counts(api, scheduler, keep)
    if attempts["scheduled"] < pods:
        counted = attempts["scheduled"]
        raise benchlib.BenchError(f"{scheduler.name}: its scheduler_schedule_attempts_total says {counted} scheduled, fewer than the {pods} pods bound")
    events = benchlib.scheduled_events(api, namespace)
    wrong = {name: comps for name, comps in events.items() if comps != [scheduler.name]}
    if wrong:
        raise benchlib.BenchError(f"{scheduler.name}: Scheduled events by another scheduler: {list(wrong.items())[:3]}")
    first, last = min(bound.values()), max(bound.values())
    drain = last - acquire
    return {
        "scheduler": scheduler.name,
        "pods": pods,
        "pods_per_second": pods / drain,
        "drain_seconds": drain,
        "pods_per_second_from_first_bind": (pods - 1) / (last - first) if last > first else None,
        "first_bind_after_acquire_seconds": first - acquire,
        "startup_seconds": acquire - started,
        "creation_seconds": creation,
        "creation_per_second": pods / creation,
        "attempts": attempts,
        "refused_429": refused,
        "holder": holder,
        "nodes_used": len(set(nodes.values())),
        "scheduled_events_missing": pods - len(events),
    }


def main():
    parser = benchlib.scheduler_arguments(__doc__, "backlog")
    parser.add_argument("--control-plane", default="", help="the kind control-plane node container (default: <cluster>-control-plane)")
    parser.add_argument("--keep-metrics", default="", metavar="PREFIX",
                        help="keep each run's /metrics of the scheduler in PREFIX<scheduler>.txt (a diagnostic; backlog-drift.sh)")
    args = parser.parse_args()
    names, labels, image, api, facts = benchlib.side_by_side(args, "backlog")
    node = args.control_plane or args.context.removeprefix("kind-") + "-control-plane"
    schedulers = {name: DefaultScheduler(api, node) if name == DEFAULT else SecondScheduler(api, name) for name in names}
    runs = []
    try:
        for rep in range(args.repetitions):
            order = names[rep % len(names) :] + names[: rep % len(names)]
            for name in order:
                namespace = f"bench-bl-{rep}-{names.index(name)}"
                try:
                    run = one_run(api, schedulers[name], args.pods, image, namespace, args.timeout, args.keep_metrics)
                finally:
                    schedulers[name].restore()
                    benchlib.delete_namespace(api, namespace)
                run["repetition"] = rep
                runs.append(run)
                print(
                    f"backlog: rep {rep} {name}: {run['pods_per_second']:.1f} pods/s from its Lease ({run['drain_seconds']:.1f}s for {args.pods}), "
                    f"start-up {run['startup_seconds']:.1f}s, created at {run['creation_per_second']:.0f}/s, "
                    f"{run['refused_429']} of its requests refused with 429",
                    flush=True,
                )
    finally:
        for scheduler in schedulers.values():
            with contextlib.suppress(Exception):
                scheduler.restore()
    summary = {
        "ceiling_creation_per_second": benchlib.spread([r["creation_per_second"] for r in runs]),
        "schedulers": benchlib.by_scheduler(
            runs, names, labels, ("pods_per_second", "pods_per_second_from_first_bind", "drain_seconds", "startup_seconds")
        ),
    }
    benchlib.write_side_by_side("backlog", args, names, facts, runs, summary)

if __name__ == "__main__":
    main()
