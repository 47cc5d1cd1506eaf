#!/usr/bin/env python3
"""Compares the runs of benchmarks/backlog-drift.sh METRICS_DIR=DIR from the /metrics it kept: where each run's time went.

Per run, from the tuned scheduler's new process (run-N-<scheduler>.txt, a fresh process every run, so its counters
are the run's): its CPU seconds, the mean scheduling attempt, the mean time of each extension point, its client's
requests by verb (count, mean latency) and the time its requests waited for its own rate limiter; from kube-apiserver
and etcd (run-N-*-before.txt and run-N-*-after.txt, counters subtracted): the requests served by verb and resource,
their mean latency, the time requests waited in API Priority and Fairness's queues by priority level, etcd's request
latency by operation, its WAL fsync and backend commit, and each process's CPU seconds.

usage: benchmarks/drift-metrics.py DIR
"""

from __future__ import annotations

import importlib.util
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("kubesched_metrics", ROOT / "plugins" / "module_utils" / "metrics.py")
metrics = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(metrics)


def load(path):
    return metrics.parse(path.read_text(encoding="utf-8")) if path.exists() else {}


def sums(samples, name, by, **match):
    """{label value: sum} of NAME, KEY a tuple of the labels BY."""
    out = {}
    for labels, value in samples.get(name, []):
        if all(labels.get(k) == v for k, v in match.items()):
            key = tuple(labels.get(b, "") for b in by)
            out[key] = out.get(key, 0.0) + value
    return out


def delta(after, before, name, by, **match):
    a, b = sums(after, name, by, **match), sums(before, name, by, **match)
    return {key: value - b.get(key, 0.0) for key, value in a.items()}


def means(after, before, name, by, **match):
    """{key: (count, mean seconds)} of histogram NAME between two readings (BEFORE may be {})."""
    counts = delta(after, before, name + "_count", by, **match)
    totals = delta(after, before, name + "_sum", by, **match)
    return {key: (n, totals.get(key, 0.0) / n) for key, n in counts.items() if n > 0}


def show(title, table, top=12, unit=1000.0, suffix="ms"):
    print(f"  {title}")
    for key, (n, mean) in sorted(table.items(), key=lambda kv: -kv[1][0] * kv[1][1])[:top]:
        print(f"    {'/'.join(k for k in key if k) or '-':60s} {n:9.0f}  {mean * unit:9.2f} {suffix}")


def main():
    directory = pathlib.Path(sys.argv[1])
    runs = sorted({int(m.group(1)) for p in directory.iterdir() if (m := re.match(r"run-(\d+)-", p.name))})
    for run in runs:
        print(f"run {run}")
        for path in sorted(directory.glob(f"run-{run}-*.txt")):
            if path.name.endswith(("-before-apiserver.txt", "-after-apiserver.txt", "-before-etcd.txt", "-after-etcd.txt")):
                continue
            s = load(path)
            cpu = sums(s, "process_cpu_seconds_total", ())
            print(f"  scheduler {path.stem.split('-', 2)[2]}: CPU {sum(cpu.values()):.1f} s")
            show("scheduling attempts (result)", means(s, {}, "scheduler_scheduling_attempt_duration_seconds", ("result",)))
            show("extension points", means(s, {}, "scheduler_framework_extension_point_duration_seconds", ("extension_point", "status")))
            show("its client's requests (verb)", means(s, {}, "rest_client_request_duration_seconds", ("verb",)))
            show("its client's rate limiter", means(s, {}, "rest_client_rate_limiter_duration_seconds", ("verb",)))
            show("event handling", means(s, {}, "scheduler_event_handling_duration_seconds", ("event",)), top=6)
            show("SLI (attempts)", means(s, {}, metrics.SLI, ("attempts",)), top=3, unit=1.0, suffix="s")
        for server in ("apiserver", "etcd"):
            before, after = load(directory / f"run-{run}-before-{server}.txt"), load(directory / f"run-{run}-after-{server}.txt")
            if not after:
                continue
            cpu = delta(after, before, "process_cpu_seconds_total", ())
            print(f"  {server}: CPU {sum(cpu.values()):.1f} s")
            if server == "apiserver":
                show("requests (verb/resource/subresource)",
                     means(after, before, "apiserver_request_duration_seconds", ("verb", "resource", "subresource")))
                wait = means(after, before, "apiserver_flowcontrol_request_wait_duration_seconds", ("priority_level", "execute"))
                show("APF wait (priority level)", wait, top=8)
                show("etcd requests (operation/type)", means(after, before, "etcd_request_duration_seconds", ("operation", "type")), top=8)
            else:
                show("WAL fsync", means(after, before, "etcd_disk_wal_fsync_duration_seconds", ()))
                show("backend commit", means(after, before, "etcd_disk_backend_commit_duration_seconds", ()))


if __name__ == "__main__":
    main()
