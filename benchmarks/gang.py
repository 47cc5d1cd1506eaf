#!/usr/bin/env python3
"""Gang scheduling side by side: the same stream of pod groups handed to a scheduler with gang scheduling and to one without.

Each repetition runs the scheduler under test (--scheduler, a second scheduler with the gate GenericWorkload, so that its
profile has the plugin GangScheduling: the deploy role's kube_scheduler_gang_scheduling) and the baseline (--baseline, the
cluster's own scheduler without the gate, which ignores pod groups), the order alternating every repetition. Each run, in a
namespace of its own:
  - fake Nodes of its own (kwok's controller, hack/kind/kwok.sh, keeps every Node annotated kwok.x-k8s.io/node=fake Ready),
    --node-pods one-CPU pods each (plus 500m for the DaemonSet pods every node gets), holding --fit of the --groups groups;
  - a PodGroup per group (scheduling.k8s.io/v1beta1, schedulingPolicy.gang.minCount = --group-size) and its pods, created
    interleaved across the groups (pod 0 of every group, then pod 1, ...) at --rate per second from a pool of threads, each
    requesting 1 CPU, with spec.schedulingGroup.podGroupName its group and schedulerName the scheduler of the run (the
    baseline's pods the same: the API server keeps the field, a scheduler without the gate ignores it);
  - --settle seconds after the last pod was created, the capacity for the other groups arrives (more fake Nodes), and the
    run goes on until every group is bound, or --timeout.
A list of the namespace's pods every --interval second (the samples, all kept in the JSON: pods bound, groups fully bound,
groups partly bound, the CPU held by the bound pods of partly bound groups) gives each group's first time partly bound and
fully bound; a watch of the pods gives the time each pod's binding reached this client (the "watch" figures beside the sampled
ones: finer than a sample, later than the bind by the watch's delivery).
Figures per run: groups fully bound before the capacity came; groups partly bound when it came (and the CPU their pods held)
and at the end; the longest time a group stayed partly bound; the peak CPU held by partly bound groups; from the capacity's
arrival (the start of its Nodes' creation) to the first bind after it and to the last pod of the groups that waited for it
bound; the rate the pods were created at.
Checked (exit 1 with --check): for the scheduler under test, every group that fits (fit x groups) fully bound before the
capacity came, no group partly bound then nor at the end, none partly bound longer than 5 s, every pod bound in the end;
for every run, pods created at >= 0.9 x --rate and none refused. The baseline's figures are reported, not judged.
Output: benchmarks/results/NAME.json (default gang); docs/benchmarks.md's section by benchmarks/report.py.
Not part of benchmarks/run.sh (make bench), whose cluster is kind-kubesched: this one needs make cluster-ha's cluster (its
API servers serve the PodGroups) with kwok's controller and a second scheduler installed with kube_scheduler_gang_scheduling:
  KWOK_CONTEXT=kind-kubesched-ha hack/kind/kwok.sh up 1
  benchmarks/gang.py --repetitions 5 --check                               # 40 groups of 8 at 10 pods/s: about 14 min
  benchmarks/gang.py --groups 12 --group-size 4 --repetitions 1 --check   # the CI size: about 75 s
"""

from __future__ import annotations

import argparse
import json
import math
import secrets
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import benchlib
from kubernetes import client

PART_OF = {"app.kubernetes.io/part-of": "kubesched-bench"}
BENCH = "kubesched.io/gang-bench"  # label and taint of the run's Nodes; its value, the invocation
SET = "kubesched.io/gang-bench-set"  # label of one run's Nodes (repetition and scheduler), the pods' nodeSelector
GROUP = "kubesched.io/gang-group"
PODGROUPS = ("scheduling.k8s.io", "v1beta1", "podgroups")
NODE_SLACK_MILLI = 500  # a DaemonSet pod (kubesched-cni, 100m) lands on every Node
MAX_PARTLY_SECONDS = 5.0


def short(name, other):
    """A Node-name-safe short form of a scheduler's name, not the same as the other one's."""
    mine, theirs = name.split("-")[0][:10], other.split("-")[0][:10]
    return mine if mine != theirs else name[:10]


def node(name, run_id, node_set, pods):
    cpu = f"{pods * 1000 + NODE_SLACK_MILLI}m"
    resources = {"cpu": cpu, "memory": "64Gi", "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "annotations": {"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
            "labels": {"type": "kwok", BENCH: run_id, SET: node_set, "kubernetes.io/hostname": name},
        },
        "spec": {"taints": [{"key": BENCH, "value": run_id, "effect": "NoSchedule"}]},
        "status": {"allocatable": resources, "capacity": resources},
    }


def nodes_for(pods, per_node):
    """Pods per Node for ``pods`` one-CPU pods: full Nodes of ``per_node`` and the rest on a last one."""
    return [min(per_node, pods - start) for start in range(0, pods, per_node)]


def create_nodes(core, names_and_pods, run_id, node_set):
    """Create the Nodes from a pool of threads, at once."""
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda item: core.create_node(node(item[0], run_id, node_set, item[1]), _preload_content=False), names_and_pods))


def wait_nodes_ready(core, node_set, count, timeout):
    """Until ``count`` Nodes of the set are Ready with no taint but the bench's own."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        items = json.loads(core.list_node(label_selector=f"{SET}={node_set}", _preload_content=False).data)["items"]
        ready = [
            n
            for n in items
            if any(c["type"] == "Ready" and c["status"] == "True" for c in (n.get("status") or {}).get("conditions") or [])
            and all(t["key"] == BENCH for t in (n.get("spec") or {}).get("taints") or [])
        ]
        if len(ready) == count:
            return
        time.sleep(0.5)
    raise benchlib.BenchError(f"the {count} Nodes of {node_set} were not Ready within {timeout}s (is kwok's controller running?)")


def pod(name, group, scheduler, image, run_id, node_set):
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {**PART_OF, GROUP: group}},
        "spec": {
            "schedulerName": scheduler,
            "schedulingGroup": {"podGroupName": group},
            "nodeSelector": {BENCH: run_id, SET: node_set},
            "tolerations": [{"key": BENCH, "operator": "Exists", "effect": "NoSchedule"}],
            "terminationGracePeriodSeconds": 0,
            "containers": [{"name": "pause", "image": image, "resources": {"requests": {"cpu": "1", "memory": "16Mi"}}}],
        },
    }


def pod_group(name, size):
    return {
        "apiVersion": "/".join(PODGROUPS[:2]),
        "kind": "PodGroup",
        "metadata": {"name": name, "labels": PART_OF},
        "spec": {"schedulingPolicy": {"gang": {"minCount": size}}},
    }


class Sampler:
    """Lists the namespace's pods every ``interval`` seconds from ``t0`` (monotonic): per sample the seconds since t0, pods
    created, pods bound, groups fully bound, groups partly bound (0 < bound < size) and the CPU their bound pods hold; and
    each pod's first sample bound."""

    def __init__(self, api, namespace, size, t0, interval):
        self.core = client.CoreV1Api(api)
        self.namespace, self.size, self.t0, self.interval = namespace, size, t0, interval
        self.samples, self.bound, self.errors = [], {}, []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        tick = 0
        while not self.stop.is_set():
            delay = self.t0 + tick * self.interval - time.monotonic()
            if delay > 0 and self.stop.wait(delay):
                break
            tick = max(tick + 1, math.floor((time.monotonic() - self.t0) / self.interval) + 1)  # a slow list skips ticks
            try:
                self.sample()
            except Exception as exc:  # noqa: BLE001 - a failed list loses one sample; counted in the run's figures
                self.errors.append(str(exc)[:300])

    def sample(self):
        response = self.core.list_namespaced_pod(self.namespace, _preload_content=False, _request_timeout=10)
        now = round(time.monotonic() - self.t0, 2)  # the sample's time, as kept: bind times compare with it
        items = json.loads(response.data)["items"]
        per_group = {}
        for item in items:
            group = item["metadata"]["labels"][GROUP]
            per_group.setdefault(group, 0)
            if (item.get("spec") or {}).get("nodeName"):
                per_group[group] += 1
                self.bound.setdefault(item["metadata"]["name"], now)
        partly = [n for n in per_group.values() if 0 < n < self.size]
        self.samples.append(
            {
                "t": now,
                "created": len(items),
                "bound": sum(per_group.values()),
                "full": sum(1 for n in per_group.values() if n >= self.size),
                "partly": len(partly),
                "partly_cpu": sum(partly),  # one CPU a pod
            }
        )
        return self.samples[-1]

    def close(self):
        self.stop.set()
        self.thread.join()


def group_times(bound, groups, size):
    """Per group, from each pod's bind time (seconds since t0; a pod never bound is missing): its first bind ("first") and,
    once all its pods are bound, its last ("full"). A group is partly bound from its first bind until its last."""
    times = {}
    for group in groups:
        binds = sorted(bound[f"{group}-p{i}"] for i in range(size) if f"{group}-p{i}" in bound)
        times[group] = {"first": binds[0] if binds else None, "full": binds[-1] if len(binds) == size else None}
    return times


def partly_at(times, t):
    return sum(1 for g in times.values() if g["first"] is not None and g["first"] <= t and (g["full"] is None or t < g["full"]))


def partly_longest(times, end_at):
    return max(((g["full"] if g["full"] is not None else end_at) - g["first"] for g in times.values() if g["first"] is not None), default=0.0)


def capacity_to_last_bound(times, capacity_at):
    """From the capacity's arrival to the last bind of the groups not fully bound before it; None when one of them never
    was, or none waited."""
    waiting = [g for g in times.values() if g["full"] is None or g["full"] > capacity_at]
    if not waiting or any(g["full"] is None for g in waiting):
        return None
    return max(g["full"] for g in waiting) - capacity_at


def first_after(bound, capacity_at):
    """From the capacity's arrival to the first bind after it."""
    after = [t for t in bound.values() if t > capacity_at]
    return min(after) - capacity_at if after else None


def figures(samples, sampled, watched, groups, size, capacity_at):
    """The run's figures: counts from the samples (each pod's first sample bound), times both from the samples and from
    the times the watch saw the binds."""
    end_at = samples[-1]["t"] if samples else capacity_at
    times = group_times(sampled, groups, size)
    seen = group_times(watched, groups, size)
    to_last = capacity_to_last_bound(times, capacity_at)
    to_last_watch = capacity_to_last_bound(seen, capacity_at)
    return {
        "full_before_capacity": sum(1 for g in times.values() if g["full"] is not None and g["full"] <= capacity_at),
        "partly_at_capacity": partly_at(times, capacity_at),
        "partly_end": partly_at(times, end_at),
        "full_end": sum(1 for g in times.values() if g["full"] is not None),
        "pods_bound": len(sampled),
        "waiting_groups": sum(1 for g in times.values() if g["full"] is None or g["full"] > capacity_at),
        "partly_longest": round(partly_longest(times, end_at), 2),
        "partly_longest_watch": round(partly_longest(seen, end_at), 3) if watched else None,
        "partly_cpu_peak": max((s["partly_cpu"] for s in samples), default=0),
        "partly_cpu_at_capacity": next((s["partly_cpu"] for s in reversed(samples) if s["t"] <= capacity_at), 0),
        "capacity_to_last_bound": None if to_last is None else round(to_last, 2),
        "capacity_to_last_bound_watch": None if to_last_watch is None or not watched else round(to_last_watch, 3),
        "capacity_to_first_bound": r(first_after(sampled, capacity_at)),
        "capacity_to_first_bound_watch": r(first_after(watched, capacity_at), 3),
        "groups": {
            g: {"first": r(times[g]["first"]), "full": r(times[g]["full"]), "first_watch": r(seen[g]["first"], 3), "full_watch": r(seen[g]["full"], 3)}
            for g in groups
        },
    }


def r(value, digits=2):
    return None if value is None else round(value, digits)


def podgroup_status(custom, namespace):
    """How many PodGroups the scheduler marked scheduled (condition PodGroupInitiallyScheduled True), the reasons of the others,
    and one of their messages."""
    items = custom.list_namespaced_custom_object(*PODGROUPS[:2], namespace, PODGROUPS[2])["items"]
    scheduled, reasons, message = 0, {}, None
    for item in items:
        condition = next((c for c in (item.get("status") or {}).get("conditions") or [] if c["type"] == "PodGroupInitiallyScheduled"), None)
        if condition and condition["status"] == "True":
            scheduled += 1
            continue
        reason = condition["reason"] if condition else "no condition"
        reasons[reason] = reasons.get(reason, 0) + 1
        message = message or (condition or {}).get("message")
    return {"scheduled": scheduled, "not_scheduled_reasons": reasons, "message": (message or "")[:300] or None}


def cleanup(api, namespace, node_selector, timeout):
    """The run's namespace (its pods first, at once), then its Nodes."""
    benchlib.delete_namespace(api, namespace, timeout=timeout)
    client.CoreV1Api(api).delete_collection_node(label_selector=node_selector, grace_period_seconds=0)


def one_run(api, args, rep, order, scheduler, tag, run_id, image):
    core, custom = client.CoreV1Api(api), client.CustomObjectsApi(api)
    namespace, node_set = f"kubesched-gang-{run_id}-{rep}-{tag}", f"{rep}-{tag}"
    width = len(str(args.groups - 1))
    groups = [f"g{i:0{width}d}" for i in range(args.groups)]
    fit_groups = round(args.fit * args.groups)
    first = nodes_for(fit_groups * args.group_size, args.node_pods)
    rest = nodes_for((args.groups - fit_groups) * args.group_size, args.node_pods)
    names = [f"gang-{run_id}-{rep}-{tag}-{i}" for i in range(len(first) + len(rest))]
    pods = [pod(f"{g}-p{i}", g, scheduler, image, run_id, node_set) for i in range(args.group_size) for g in groups]
    created, errors = {}, []
    sampler = watch = None
    try:
        core.create_namespace({"metadata": {"name": namespace, "labels": {**PART_OF, BENCH: run_id}}})
        create_nodes(core, zip(names, first, strict=False), run_id, node_set)
        wait_nodes_ready(core, node_set, len(first), args.timeout)
        for group in groups:
            custom.create_namespaced_custom_object(*PODGROUPS[:2], namespace, PODGROUPS[2], pod_group(group, args.group_size))
        watch = benchlib.BindWatch(api, namespace)
        t0 = time.monotonic()
        sampler = Sampler(api, namespace, args.group_size, t0, args.interval)
        try:
            benchlib.create_pods(api, namespace, pods, workers=16, on_created=lambda name, when: created.__setitem__(name, when), rate=args.rate)
        except benchlib.BenchError as exc:
            errors.append(str(exc)[:300])
        created_at = time.monotonic()
        time.sleep(max(0.0, created_at + args.settle - time.monotonic()))
        phase1 = podgroup_status(custom, namespace)
        # The capacity arrives when its first Node may: the time before the first create (a group may bind on it before
        # the last one is created).
        capacity_at = round(time.monotonic() - t0, 2)
        create_nodes(core, zip(names[len(first) :], rest, strict=True), run_id, node_set)
        capacity_created = time.monotonic() - t0 - capacity_at
        deadline = time.monotonic() + args.timeout
        while time.monotonic() < deadline:
            last = sampler.samples[-1] if sampler.samples else {}
            if last.get("bound") == len(pods) and last["t"] > capacity_at:
                break
            time.sleep(0.2)
        sampler.close()
        watch.close()
        end_podgroups = podgroup_status(custom, namespace)
    finally:
        if sampler:
            sampler.close()
        if watch:
            watch.close()
        if not args.keep:
            cleanup(api, namespace, f"{BENCH}={run_id},{SET}={node_set}", max(args.timeout, 120))
    watched = {name: when - t0 for name, when in watch.bound.items()} if not watch.error else {}
    sampled = {name: when for name, when in sampler.bound.items()}
    span = max(created.values()) - min(created.values()) if len(created) > 1 else 0
    row = {
        "repetition": rep,
        "order": order,
        "scheduler": scheduler,
        "namespace": namespace,
        "nodes": {"first": len(first), "first_pods": sum(first), "rest": len(rest), "rest_pods": sum(rest)},
        "groups_fit": fit_groups,
        "pods": len(pods),
        "pods_created": len(created),
        "creation_errors": errors,
        "create_rate": round((len(created) - 1) / span, 2) if span else 0,
        "creation_seconds": round(created_at - t0, 2),
        "capacity_at": capacity_at,
        "capacity_create_seconds": round(capacity_created, 2),
        "end_at": sampler.samples[-1]["t"] if sampler.samples else None,
        "sample_errors": sampler.errors[:10],
        "watch_error": str(watch.error)[:300] if watch.error else None,
        "podgroups_at_capacity": phase1,
        "podgroups_end": end_podgroups,
        "samples": sampler.samples,
    }
    row |= figures(sampler.samples, sampled, watched, groups, args.group_size, capacity_at)
    return row


def problems(row, args, under_test):
    found = []
    if row["creation_errors"]:
        found.append(f"pods refused by the API server: {row['creation_errors']}")
    if row["create_rate"] < args.rate * 0.9:
        found.append(f"pods created at {row['create_rate']}/s, not {args.rate:g}/s")
    if not under_test:
        return found
    if row["full_before_capacity"] != row["groups_fit"]:
        found.append(f"{row['full_before_capacity']} groups fully bound before the capacity came, not the {row['groups_fit']} that fit")
    if row["partly_at_capacity"]:
        found.append(f"{row['partly_at_capacity']} groups partly bound when the capacity came")
    if row["partly_end"]:
        found.append(f"{row['partly_end']} groups partly bound at the end")
    if row["partly_longest"] > MAX_PARTLY_SECONDS:
        found.append(f"a group partly bound for {row['partly_longest']} s > {MAX_PARTLY_SECONDS:g} s")
    if row["pods_bound"] != row["pods"]:
        found.append(f"{row['pods'] - row['pods_bound']} of {row['pods']} pods never bound (timeout {args.timeout} s)")
    return found


FIELDS = (
    "full_before_capacity",
    "partly_at_capacity",
    "partly_end",
    "full_end",
    "pods_bound",
    "partly_longest",
    "partly_longest_watch",
    "partly_cpu_peak",
    "partly_cpu_at_capacity",
    "capacity_to_last_bound",
    "capacity_to_last_bound_watch",
    "capacity_to_first_bound",
    "capacity_to_first_bound_watch",
    "create_rate",
)


def run_line(row):
    return (
        f"gang: rep {row['repetition']} {row['scheduler']}: {row['pods_created']}/{row['pods']} pods at {row['create_rate']}/s; "
        f"before the capacity (at {row['capacity_at']} s) {row['full_before_capacity']}/{row['groups_fit']} fitting groups fully "
        f"bound, {row['partly_at_capacity']} partly holding {row['partly_cpu_at_capacity']} CPU (peak {row['partly_cpu_peak']}); "
        f"longest partly bound {row['partly_longest']} s (watch {row['partly_longest_watch']} s); capacity -> first bind "
        f"{row['capacity_to_first_bound_watch']} s, last waiting pod bound {row['capacity_to_last_bound']} s "
        f"(watch {row['capacity_to_last_bound_watch']} s); at the end {row['full_end']}/{len(row['groups'])} groups bound, "
        f"{row['partly_end']} partly" + (f"; PROBLEMS: {'; '.join(row['problems'])}" if row["problems"] else "")
    )


def summary_line(scheduler, item, fit):
    def m(field):
        return f"{item[field]['median']} ({item[field]['min']}-{item[field]['max']})"

    return (
        f"gang: summary {scheduler}: groups fully bound before the capacity {m('full_before_capacity')} of {fit}; partly bound "
        f"then {m('partly_at_capacity')} holding {m('partly_cpu_at_capacity')} CPU, at the end {m('partly_end')}; longest partly "
        f"bound {m('partly_longest')} s, watch {m('partly_longest_watch')} s; peak CPU held by partly bound groups "
        f"{m('partly_cpu_peak')}; capacity -> first bind {m('capacity_to_first_bound_watch')} s, last bound "
        f"{m('capacity_to_last_bound')} s, watch {m('capacity_to_last_bound_watch')} s; created at {m('create_rate')}/s"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--context", default="kind-kubesched-ha")
    parser.add_argument("--scheduler", default="gang-scheduler", help="the schedulerName with gang scheduling, under test")
    parser.add_argument("--baseline", default="default-scheduler", help="the schedulerName without it, reported beside")
    parser.add_argument("--groups", type=int, default=40)
    parser.add_argument("--group-size", type=int, default=8, help="pods per group, its PodGroup's minCount")
    parser.add_argument("--fit", type=float, default=0.5, help="the share of the groups the first capacity holds")
    parser.add_argument("--node-pods", type=int, default=8, help="one-CPU pods per fake Node")
    parser.add_argument("--rate", type=float, default=10.0, help="pods created per second")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--settle", type=float, default=15.0, help="seconds from the last pod created to the capacity's arrival")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per phase: Nodes Ready, every pod bound, cleanup")
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between samples")
    parser.add_argument("--image", default=benchlib.versions_env()["TEST_POD_IMAGE"])
    parser.add_argument("--out", help="the result file (default benchmarks/results/gang.json)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed, with the problems")
    parser.add_argument("--keep", action="store_true", help="keep every namespace and fake Node (debugging)")
    args = parser.parse_args()
    if not 0 < args.fit < 1:
        sys.exit("gang: --fit must be between 0 and 1 (both excluded)")
    api = benchlib.api_client(args.context)
    facts = benchlib.machine(api)
    run_id = secrets.token_hex(2)
    tags = {args.scheduler: short(args.scheduler, args.baseline), args.baseline: short(args.baseline, args.scheduler)}
    runs = []
    try:
        for rep in range(args.repetitions):
            order = [args.scheduler, args.baseline] if rep % 2 == 0 else [args.baseline, args.scheduler]
            for position, scheduler in enumerate(order):
                row = one_run(api, args, rep, position, scheduler, tags[scheduler], run_id, args.image)
                row["problems"] = problems(row, args, scheduler == args.scheduler)
                runs.append(row)
                print(run_line(row), flush=True)
    finally:
        if not args.keep:  # what a run that stopped half-way left
            core = client.CoreV1Api(api)
            for item in core.list_namespace(label_selector=f"{BENCH}={run_id}").items:
                benchlib.delete_namespace(api, item.metadata.name, timeout=max(args.timeout, 120))
            core.delete_collection_node(label_selector=f"{BENCH}={run_id}", grace_period_seconds=0)
        else:
            print(f"gang: kept the namespaces and Nodes labelled {BENCH}={run_id}", flush=True)
    summary = {"repetitions": args.repetitions, "passed": sum(1 for r in runs if not r["problems"]), "runs": len(runs), "schedulers": {}}
    for scheduler in (args.scheduler, args.baseline):
        mine = [r for r in runs if r["scheduler"] == scheduler]
        summary["schedulers"][scheduler] = {field: benchlib.spread([r[field] for r in mine]) for field in FIELDS}
        print(summary_line(scheduler, summary["schedulers"][scheduler], round(args.fit * args.groups)), flush=True)
    parameters = vars(args) | {"groups_fit": round(args.fit * args.groups), "node_cpu_slack_milli": NODE_SLACK_MILLI, "max_partly_seconds": MAX_PARTLY_SECONDS}
    document = {"benchmark": "gang", "command": " ".join(sys.argv), "machine": facts, "parameters": parameters, "runs": runs, "summary": summary}
    if args.out:
        path = benchlib.Path(args.out)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
        print(f"bench: wrote {path}")
    else:
        benchlib.write_result("gang", document)
    failed = [f"rep {r['repetition']} {r['scheduler']}: {p}" for r in runs for p in r["problems"]]
    if failed:
        print("gang: PROBLEMS:\n  " + "\n  ".join(failed), flush=True)
    if args.check and failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
