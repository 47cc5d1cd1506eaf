#!/usr/bin/env python3
"""pod_placement at scale: the module through Ansible against what a person would run instead.

For each size: a namespace with SIZE pause pods on the kwok nodes, placed half by each of two second schedulers
(--schedulers; make bench: bench-scheduler with the default settings and bench-scheduler-tuned), for real: their
Scheduled events come from the schedulers. (The cluster's own scheduler writes fewer Scheduled events than it binds
pods under load, see throughput.py's scheduled_events_missing, so it cannot serve as ground truth here.) Then, in
alternation, each approach run in full, REPETITIONS times (the per-pod loop LOOP_REPETITIONS times):
  module   ansible localhost -m kubesched.scheduler.pod_placement -a namespace=NS (one process, JSON out)
  kubectl  kubectl get pods -o json + kubectl get events --field-selector reason=Scheduled -o json,
           joined by UID with jq (what a person would run)
  loop     one kubectl get events --field-selector involvedObject.name=POD,reason=Scheduled per pod
Each run checks its answer (every pod, the right scheduler for each half) before its time counts.
Also recorded: LIST requests the API server counted (apiserver_request_total, pods/events/leases/
deployments, before and after) and the peak resident memory of the module's process and of kubectl.
Output: benchmarks/results/placement.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import benchlib

JOIN = r"""
($e[0].items | map({key: .involvedObject.uid, value: (.reportingComponent // .source.component)}) | from_entries) as $by
| [$p[0].items[] | {name: .metadata.name, node: .spec.nodeName, scheduler: $by[.metadata.uid]}]
"""


def list_requests(context):
    """LIST requests for pods, events, leases and deployments the API server has counted so far."""
    text = subprocess.run(["kubectl", "--context", context, "get", "--raw", "/metrics"], capture_output=True, text=True, check=True).stdout
    total = 0.0
    for line in text.splitlines():
        if line.startswith("apiserver_request_total{") and 'verb="LIST"' in line:
            resource = re.search(r'resource="([^"]*)"', line)
            if resource and resource.group(1) in ("pods", "events", "leases", "deployments"):
                total += float(line.rsplit(" ", 1)[1])
    return total


class PeakMemory:
    """Samples /proc every 20 ms for processes whose command line contains a pattern; keeps the largest VmHWM."""

    def __init__(self, pattern):
        self.pattern = pattern.encode()
        self.peak_kib = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop.is_set():
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                try:
                    if self.pattern not in Path(f"/proc/{pid}/cmdline").read_bytes():
                        continue
                    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                        if line.startswith("VmHWM:"):
                            self.peak_kib = max(self.peak_kib, int(line.split()[1]))
                except OSError:
                    continue
            time.sleep(0.02)

    def close(self):
        self.stop.set()
        self.thread.join()
        return round(self.peak_kib / 1024, 1)


def timed(command, context, pattern, env=None, shell=False):
    before = list_requests(context)
    memory = PeakMemory(pattern)
    start = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True, env=env, shell=shell, check=False, executable="/bin/bash" if shell else None)  # noqa: S603
    seconds = time.monotonic() - start
    peak = memory.close()
    requests = list_requests(context) - before
    if result.returncode != 0:
        raise benchlib.BenchError(f"{command if isinstance(command, str) else ' '.join(command)[:200]} failed: {result.stderr[-500:]}")
    return result.stdout, seconds, peak, requests


def check(rows, size, schedulers, what):
    """rows: [{name, scheduler}]; every pod once, half by each scheduler."""
    if len(rows) != size:
        raise benchlib.BenchError(f"{what}: {len(rows)} pods, expected {size}")
    counts = {}
    for row in rows:
        counts[row["scheduler"]] = counts.get(row["scheduler"], 0) + 1
    expected = {schedulers[0]: size - size // 2, schedulers[1]: size // 2}
    if counts != expected:
        raise benchlib.BenchError(f"{what}: pods by scheduler {counts}, expected {expected}")


def run_module(context, namespace, size, schedulers, env):
    command = ["ansible", "localhost", "-m", "kubesched.scheduler.pod_placement", "-a", json.dumps({"namespace": namespace, "context": context})]
    out, seconds, peak, requests = timed(command, context, "AnsiballZ_pod_placement", env=env)
    result = json.loads(out[out.index("{") :])["plays"][0]["tasks"][0]["hosts"]["localhost"]
    if result.get("failed") or result.get("msg"):
        raise benchlib.BenchError(f"module: {result.get('msg')}")
    evidence = result["summary"].get("by_evidence", {})
    if evidence != {"event": size}:
        raise benchlib.BenchError(f"module: evidence {evidence}, expected event for all {size}")
    check([{"name": p["name"], "scheduler": p["scheduled_by"]} for p in result["pods"]], size, schedulers, "module")
    return seconds, peak, requests


def run_kubectl(context, namespace, size, schedulers, tmp):
    command = (
        f"kubectl --context {context} -n {namespace} get pods -o json > {tmp}/pods.json && "
        f"kubectl --context {context} -n {namespace} get events --field-selector reason=Scheduled -o json > {tmp}/events.json && "
        f"jq -n --slurpfile p {tmp}/pods.json --slurpfile e {tmp}/events.json '{JOIN}'"
    )
    out, seconds, peak, requests = timed(command, context, "kubectl", shell=True)  # noqa: S604 - the command a person would type
    check(json.loads(out), size, schedulers, "kubectl")
    return seconds, peak, requests


def run_loop(context, namespace, size, schedulers):
    command = (
        f"for p in $(kubectl --context {context} -n {namespace} get pods -o name); do "
        f"kubectl --context {context} -n {namespace} get events --field-selector involvedObject.name=${{p#pod/}},reason=Scheduled "
        "-o jsonpath='{.items[0].involvedObject.name} {.items[0].reportingComponent}{\"\\n\"}'; done"
    )
    out, seconds, peak, requests = timed(command, context, "kubectl", shell=True)  # noqa: S604 - the command a person would type
    rows = [dict(zip(("name", "scheduler"), line.split(), strict=False)) for line in out.splitlines() if line.strip()]
    check(rows, size, schedulers, "loop")
    return seconds, peak, requests


def populate(api, namespace, size, schedulers, image, timeout, rate):
    benchlib.ensure_namespace(api, namespace)
    watch = benchlib.BindWatch(api, namespace)
    try:
        pods = [benchlib.bench_pod(f"pp-{i:06d}", schedulers[i % 2], image) for i in range(size)]
        names = [p["metadata"]["name"] for p in pods]
        start = time.monotonic()
        # 40 pods a second (--rate), 20 for each scheduler: well below the 50 queries a second of the default
        # settings, so that each scheduler's event broadcaster keeps up and every pod gets its Scheduled event.
        benchlib.create_pods(api, namespace, pods, rate=rate)
        if not watch.wait(names, timeout):
            raise benchlib.BenchError(f"populate: {size - len(watch.bound)} of {size} pods not bound within {timeout}s")
    finally:
        watch.close()
    for _ in range(240):
        events = len(benchlib.scheduled_events(api, namespace))
        if events >= size:
            return time.monotonic() - start
        time.sleep(2)
    raise benchlib.BenchError(f"populate: {events} Scheduled events for {size} pods")


def summarize(runs):
    """Median, min and max of each approach's figures, and the ratios of the runs of the same repetition."""
    summary = {}
    for approach in ("module", "kubectl", "loop"):
        mine = [r for r in runs if r["approach"] == approach]
        summary[approach] = {
            "seconds": benchlib.spread([r["seconds"] for r in mine]),
            "peak_mib": benchlib.spread([r["peak_mib"] for r in mine]),
            "list_requests": benchlib.spread([r["list_requests"] for r in mine]),
        }
    by_rep = {}
    for r in runs:
        by_rep.setdefault(r["repetition"], {})[r["approach"]] = r["seconds"]
    summary["module_vs_kubectl"] = benchlib.spread([v["module"] / v["kubectl"] for v in by_rep.values() if "module" in v and "kubectl" in v])
    summary["loop_vs_module"] = benchlib.spread([v["loop"] / v["module"] for v in by_rep.values() if "module" in v and "loop" in v])
    return summary


def delete_timeout(size):
    """Seconds allowed to delete a size's namespace: 50,000 pods took more than 10 minutes here."""
    return max(600, size // 25)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--context", required=True)
    parser.add_argument("--schedulers", default="bench-scheduler,bench-scheduler-tuned", help="the two schedulers that place half each")
    parser.add_argument("--sizes", default="500,5000")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--loop-repetitions", type=int, default=1)
    parser.add_argument("--loop-max-size", type=int, default=5000, help="sizes above this skip the per-pod loop (said in the results)")
    parser.add_argument("--rate", type=float, default=40, help="pods created per second while populating")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds for every pod of a size to be bound")
    parser.add_argument("--name", default="placement")
    args = parser.parse_args()
    schedulers = args.schedulers.split(",")
    image = benchlib.versions_env()["TEST_POD_IMAGE"]
    api = benchlib.api_client(args.context)
    facts = benchlib.machine(api)
    env = dict(os.environ, ANSIBLE_LOAD_CALLBACK_PLUGINS="1", ANSIBLE_STDOUT_CALLBACK="ansible.posix.json", ANSIBLE_NOCOLOR="1")
    if not shutil.which("ansible") or not shutil.which("jq"):
        sys.exit("placement_scale: ansible (in .venv/bin) and jq must be on PATH")
    sizes = [int(s) for s in args.sizes.split(",")]
    results = {"benchmark": "placement", "command": " ".join(sys.argv), "machine": facts, "sizes": {}}
    results["parameters"] = {
        "sizes": sizes,
        "repetitions": args.repetitions,
        "loop_repetitions": args.loop_repetitions,
        "loop_max_size": args.loop_max_size,
        "rate": args.rate,
        "schedulers": schedulers,
    }
    for size in sizes:
        namespace = f"bench-pp-{size}"
        benchlib.delete_namespace(api, namespace, timeout=delete_timeout(size))
        runs, loop_run = [], size <= args.loop_max_size
        try:
            populate_seconds = populate(api, namespace, size, schedulers, image, args.timeout, args.rate)
            print(f"placement: {size} pods placed in {populate_seconds:.0f}s", flush=True)
            with tempfile.TemporaryDirectory() as tmp:
                for rep in range(args.repetitions):
                    approaches = ["module", "kubectl"] if rep % 2 == 0 else ["kubectl", "module"]
                    if rep < args.loop_repetitions and loop_run:
                        approaches.append("loop")
                    for approach in approaches:
                        if approach == "module":
                            seconds, peak, requests = run_module(args.context, namespace, size, schedulers, env)
                        elif approach == "kubectl":
                            seconds, peak, requests = run_kubectl(args.context, namespace, size, schedulers, tmp)
                        else:
                            seconds, peak, requests = run_loop(args.context, namespace, size, schedulers)
                        runs.append({"approach": approach, "repetition": rep, "seconds": seconds, "peak_mib": peak, "list_requests": requests})
                        print(f"placement: {size} pods, rep {rep}, {approach}: {seconds:.2f}s, peak {peak} MiB, {requests:.0f} LIST requests", flush=True)
            results["sizes"][str(size)] = {"populate_seconds": populate_seconds, "runs": runs, "summary": summarize(runs), "loop_run": loop_run}
            # Written after every size and before its namespace is deleted (tens of thousands of pods take minutes),
            # so that a size that fails later leaves the finished ones; "complete" says whether every size planned was measured.
            results["complete"] = len(results["sizes"]) == len(sizes)
            benchlib.write_result(args.name, results)
        finally:
            benchlib.delete_namespace(api, namespace, timeout=delete_timeout(size))


if __name__ == "__main__":
    main()
