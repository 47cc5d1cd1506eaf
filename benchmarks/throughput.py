#!/usr/bin/env python3
"""Scheduling throughput of several schedulers on the same kwok nodes, side by side.

For each repetition and each scheduler (the order rotates every repetition, so no scheduler always
goes first): a fresh namespace, PODS pause pods created as fast as the API accepts them (16 client
threads), a watch that notes when each pod gets spec.nodeName, then the checks (every pod bound, to a
kwok node, one Scheduled event per pod reported by the expected scheduler) and the namespace deleted.
Figures per run: pods bound per second (PODS / (last bind - first creation)), p50 and p99 of the time
from a pod's creation to its bind, and the creation rate. Output: benchmarks/results/throughput.json.

usage: throughput.py --context kind-kubesched --schedulers default-scheduler,bench-scheduler,bench-scheduler-tuned
"""

from __future__ import annotations

import time

import benchlib


def one_run(api, scheduler, pods, image, namespace, timeout):
    benchlib.ensure_namespace(api, namespace)
    created = {}
    watch = benchlib.BindWatch(api, namespace)
    try:
        manifests = [benchlib.bench_pod(f"tp-{i:05d}", scheduler, image) for i in range(pods)]
        start = time.monotonic()
        creation = benchlib.create_pods(api, namespace, manifests, on_created=lambda name, t: created.__setitem__(name, t))
        if not watch.wait(created, timeout):
            missing = len(set(created) - watch.bound.keys())
            raise benchlib.BenchError(f"{scheduler}: {missing} of {pods} pods not bound within {timeout}s")
        bound, nodes = dict(watch.bound), dict(watch.nodes)
    finally:
        watch.close()
    not_kwok = [name for name, node in nodes.items() if not node.startswith("kwok-node-")]
    if not_kwok:
        raise benchlib.BenchError(f"{scheduler}: {len(not_kwok)} pods bound outside the kwok nodes, e.g. {not_kwok[0]} on {nodes[not_kwok[0]]}")
    # The scheduler's event broadcaster drops events when its queue overflows (client-go's events
    # library: 1,000 queued, DropIfChannelFull), so a burst may leave pods without a Scheduled event.
    # Checked: no pod has two, none is reported by another scheduler; the missing ones are counted.
    events = {}
    for _ in range(30):
        events = benchlib.scheduled_events(api, namespace)
        if len(events) >= pods:
            break
        time.sleep(1)
    wrong = {name: comps for name, comps in events.items() if comps != [scheduler]}
    if wrong or set(events) - set(created):
        raise benchlib.BenchError(f"{scheduler}: Scheduled events not exactly one by {scheduler}: {list(wrong.items())[:3]}")
    latencies = [bound[name] - created[name] for name in created]
    span = max(bound.values()) - start
    return {
        "scheduler": scheduler,
        "pods": pods,
        "pods_per_second": pods / span,
        "p50_seconds": benchlib.percentile(latencies, 50),
        "p99_seconds": benchlib.percentile(latencies, 99),
        "creation_seconds": creation,
        "creation_per_second": pods / creation,
        "span_seconds": span,
        "nodes_used": len(set(nodes.values())),
        "scheduled_events_missing": pods - len(events),
    }


def main():
    args = benchlib.scheduler_arguments(__doc__, "throughput").parse_args()
    schedulers, labels, image, api, facts = benchlib.side_by_side(args, "throughput")
    runs = []
    for rep in range(args.repetitions):
        order = schedulers[rep % len(schedulers) :] + schedulers[: rep % len(schedulers)]
        for scheduler in order:
            namespace = f"bench-tp-{rep}-{schedulers.index(scheduler)}"
            try:
                run = one_run(api, scheduler, args.pods, image, namespace, args.timeout)
            finally:
                benchlib.delete_namespace(api, namespace)
            run["repetition"] = rep
            runs.append(run)
            print(
                f"throughput: rep {rep} {scheduler}: {run['pods_per_second']:.1f} pods/s, p50 {run['p50_seconds']:.2f}s, p99 {run['p99_seconds']:.2f}s",
                flush=True,
            )
    summary = benchlib.by_scheduler(runs, schedulers, labels, ("pods_per_second", "p50_seconds", "p99_seconds"))
    benchlib.write_side_by_side("throughput", args, schedulers, facts, runs, summary)

if __name__ == "__main__":
    main()
