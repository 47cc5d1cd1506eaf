#!/usr/bin/env python3
"""A change of the main scheduler on a control plane of three nodes, watched from outside while pods keep coming.

Each repetition runs playbooks/main_scheduler.yml with a configuration other than the one the nodes run (the default
profile's NodeResourcesFit scoring alternates between MostAllocated and LeastAllocated), while
  - a watch of the Lease kube-system/kube-scheduler records every version of it: the handovers (a new holder), and for
    each the leaderless time, from the old leader's release (the Lease written with no holder, which kube-scheduler
    does on SIGTERM; or, without one, the old holder's last renewal) to the new holder's acquireTime, both the API
    server's MicroTime;
  - pods for default-scheduler are created at --rate per second on kwok's fake nodes (hack/kind/kwok.sh), from before
    the run to its end; a pod watch records when each one is bound; after the run every pod must be bound within
    --bind-timeout, and none may be Failed (a kubelet's rejection).
Checked per repetition (exit 1 when one is not met, with --check): the playbook passed; exactly one handover;
leaderless <= --max-leaderless s; every pod bound; none Pending longer than the leaderless time plus 5 s; none Failed;
none refused by the API server; the pods were created at >= --rate * 0.9 per second (from a pool of threads).
Output: benchmarks/results/NAME.json (default ha_rollout), every repetition's raw figures and the spread.
  benchmarks/ha_rollout.py --context kind-kubesched-ha --inventory examples/inventory/control-plane-kind-ha.yml --repetitions 5
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

import benchlib
from kubernetes import client

ROOT = benchlib.ROOT
NAMESPACE = "kubesched-ha-rollout"
STRATEGIES = ("LeastAllocated", "MostAllocated")


def micro(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() if text else None


class LeaseWatch:
    """Every version of the Lease kube-system/kube-scheduler, as (monotonic seconds, spec)."""

    def __init__(self, api):
        self.coordination = client.CoordinationV1Api(api)
        self.versions = []
        self.stop = threading.Event()
        self.error = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        rv = None
        try:
            while not self.stop.is_set():
                kwargs = {"field_selector": "metadata.name=kube-scheduler", "watch": True, "timeout_seconds": 10, "_preload_content": False}
                if rv:
                    kwargs["resource_version"] = rv
                for line in self.coordination.list_namespaced_lease("kube-system", **kwargs):
                    event = json.loads(line)
                    obj = event.get("object") or {}
                    if event.get("type") == "ERROR":  # e.g. a version another API server behind the LB has not seen
                        rv = None  # watch again from the current version (an ADDED of it, which changes no holder)
                        break
                    rv = (obj.get("metadata") or {}).get("resourceVersion", rv)
                    if event.get("type") in ("ADDED", "MODIFIED"):
                        self.versions.append((time.monotonic(), obj.get("spec") or {}))
                    if self.stop.is_set():
                        break
        except Exception as exc:  # noqa: BLE001 - reported by handovers()
            self.error = exc

    def handovers(self):
        """Each change of holder: from, to, and the leaderless seconds (release or last renewal to acquireTime)."""
        if self.error:
            raise benchlib.BenchError(f"Lease watch failed: {self.error}")
        found, leader, last_renew, released = [], None, None, None
        for _seen, spec in self.versions:
            holder = spec.get("holderIdentity") or ""
            if not holder:
                released = micro(spec.get("renewTime")) or released
                continue
            if leader is not None and holder != leader:
                start = released or last_renew
                acquired = micro(spec.get("acquireTime"))
                found.append(
                    {
                        "from": leader.split("_")[0],
                        "to": holder.split("_")[0],
                        "released": released is not None,
                        "leaderless": round(acquired - start, 3) if acquired and start else None,
                    }
                )
            leader, last_renew, released = holder, micro(spec.get("renewTime")), None
        return found

    def close(self):
        self.stop.set()


def plugin_config(strategy):
    resources = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
    return [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": strategy, "resources": resources}}}]


def one_change(api, args, strategy, index, image):
    core = client.CoreV1Api(api)
    benchlib.ensure_namespace(api, NAMESPACE)
    binds = benchlib.BindWatch(api, NAMESPACE)
    lease = LeaseWatch(api)
    created = {}
    stop = threading.Event()

    errors = []

    def create_one(name):
        try:
            core.create_namespaced_pod(NAMESPACE, benchlib.bench_pod(name, "default-scheduler", image), _preload_content=False)
            created[name] = time.monotonic()
        except Exception as exc:  # noqa: BLE001 - counted and reported as a problem
            errors.append(f"{name}: {exc}"[:300])

    # From a pool of threads, each pod at its time: an answer slower than 1/rate (an API server short of CPU on a
    # loaded machine) does not slow the rate down.
    def create():
        n = 0
        start = time.monotonic()
        with ThreadPoolExecutor(8) as pool:
            while not stop.is_set():
                delay = start + n / args.rate - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                pool.submit(create_one, f"r{index}-{n:05d}")
                n += 1

    creator = threading.Thread(target=create, daemon=True)
    time.sleep(1)
    creator.start()
    time.sleep(2)
    command = [
        str(ROOT / ".venv" / "bin" / "ansible-playbook"), "-i", args.inventory, str(ROOT / "playbooks" / "main_scheduler.yml"),
        "-e", json.dumps({"kube_scheduler_main_plugin_config": plugin_config(strategy)}),
    ]  # fmt: skip
    start = time.monotonic()
    run = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
    seconds = time.monotonic() - start
    time.sleep(2)
    stop.set()
    creator.join()
    created_seconds = max(created.values()) - min(created.values()) if created else 0
    all_bound = binds.wait(list(created), args.bind_timeout)
    lease.close()
    binds.close()
    handovers = lease.handovers()
    pending = sorted(binds.bound[name] - created[name] for name in created if name in binds.bound)
    failed = [pod.metadata.name for pod in core.list_namespaced_pod(NAMESPACE).items if pod.status.phase == "Failed"]
    leaderless = [h["leaderless"] for h in handovers if h["leaderless"] is not None]
    row = {
        "repetition": index,
        "strategy": strategy,
        "playbook_rc": run.returncode,
        "playbook_seconds": round(seconds, 1),
        "handovers": handovers,
        "leaderless_seconds": leaderless,
        "pods_created": len(created),
        "creation_errors": errors[:10],
        "create_rate": round((len(created) - 1) / created_seconds, 1) if created_seconds else 0,
        "pods_bound": len(pending),
        "all_bound": all_bound,
        "pending_max": round(pending[-1], 2) if pending else None,
        "pending_p50": round(benchlib.percentile(pending, 50), 2) if pending else None,
        "pods_failed": len(failed),
        "lease_versions": len(lease.versions),
    }
    if run.returncode != 0:
        row["playbook_tail"] = (run.stdout + run.stderr)[-2000:]
        row["playbook_fatal"] = [line.strip()[:600] for line in run.stdout.splitlines() if line.startswith("fatal:")][-3:]
    benchlib.delete_namespace(api, NAMESPACE)
    return row


def problems(row, args):
    found = []
    if row["playbook_rc"] != 0:
        fatal = row.get("playbook_fatal") or []
        found.append(f"the playbook failed (rc {row['playbook_rc']})" + (f": {fatal[-1]}" if fatal else ""))
    if len(row["handovers"]) != 1:
        found.append(f"{len(row['handovers'])} handovers, not 1: {row['handovers']}")
    worst = max(row["leaderless_seconds"] or [0])
    if worst > args.max_leaderless:
        found.append(f"leaderless {worst} s > {args.max_leaderless} s")
    if not row["all_bound"] or row["pods_bound"] != row["pods_created"]:
        found.append(f"{row['pods_created'] - row['pods_bound']} of {row['pods_created']} pods not bound")
    if row["pending_max"] is not None and row["pending_max"] > worst + 5:
        found.append(f"a pod Pending {row['pending_max']} s > leaderless {worst} s + 5 s")
    if row["pods_failed"]:
        found.append(f"{row['pods_failed']} pods Failed")
    if row["creation_errors"]:
        found.append(f"pods refused by the API server: {row['creation_errors']}")
    if row["create_rate"] < args.rate * 0.9:
        found.append(f"pods created at {row['create_rate']}/s, not {args.rate}/s")
    return found


def first_offset(args):
    """0 when the nodes do not run the first strategy (a check-mode run of it changes them), else 1."""
    check = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "ansible-playbook"), "-i", args.inventory, str(ROOT / "playbooks" / "main_scheduler.yml"), "--check",
         "-e", json.dumps({"kube_scheduler_main_plugin_config": plugin_config(STRATEGIES[0])})],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if check.returncode != 0 or "PLAY RECAP" not in check.stdout:
        raise benchlib.BenchError(f"the check-mode run failed: {(check.stdout + check.stderr)[-1500:]}")
    return 0 if re.search(r"changed=[1-9]", check.stdout.split("PLAY RECAP", 1)[1]) else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--context", default="kind-kubesched-ha")
    parser.add_argument("--inventory", default=str(ROOT / "examples" / "inventory" / "control-plane-kind-ha.yml"))
    parser.add_argument("--repetitions", type=int, default=1)
    parser.add_argument("--rate", type=float, default=10.0)
    parser.add_argument("--max-leaderless", type=float, default=5.0)
    parser.add_argument("--bind-timeout", type=int, default=60)
    parser.add_argument("--image", default="registry.k8s.io/pause:3.10.2")
    parser.add_argument("--check", action="store_true", help="exit 1 when a repetition misses a goal")
    parser.add_argument("--first", choices=STRATEGIES, help="the first repetition's strategy (one the nodes do not run); default: found by a check-mode run")
    parser.add_argument("--name", default="ha_rollout", help="result file name (benchmarks/results/NAME.json)")
    args = parser.parse_args()
    os.environ.setdefault("ANSIBLE_NOCOLOR", "1")
    api = benchlib.api_client(args.context)
    facts = benchlib.machine(api)
    runs = []
    # Every repetition must change the nodes: when they run the first strategy already (a run before left it), the
    # alternation starts with the other one (a check-mode run tells: changed=0 on every node), unless --first names it.
    offset = STRATEGIES.index(args.first) if args.first else first_offset(args)
    for index in range(args.repetitions):
        strategy = STRATEGIES[(index + offset) % 2]
        row = one_change(api, args, strategy, index, args.image)
        row["problems"] = problems(row, args)
        runs.append(row)
        print(
            f"ha_rollout: rep {index} ({strategy}): playbook {row['playbook_seconds']} s rc {row['playbook_rc']}, "
            f"handovers {[(h['from'], h['to']) for h in row['handovers']]}, leaderless {row['leaderless_seconds']} s, "
            f"{row['pods_created']} pods at {row['create_rate']}/s, bound {row['pods_bound']}, Pending max {row['pending_max']} s "
            f"(p50 {row['pending_p50']} s), Failed {row['pods_failed']}" + (f"; PROBLEMS: {'; '.join(row['problems'])}" if row["problems"] else ""),
            flush=True,
        )
    leaderless = [max(r["leaderless_seconds"] or [0]) for r in runs]
    pending = [r["pending_max"] for r in runs if r["pending_max"] is not None]
    summary = {
        "repetitions": len(runs),
        "passed": sum(1 for r in runs if not r["problems"]),
        "handovers": [len(r["handovers"]) for r in runs],
        "leaderless_min_max": [min(leaderless), max(leaderless)] if leaderless else None,
        "pending_max_min_max": [min(pending), max(pending)] if pending else None,
        "playbook_seconds_min_max": [min(r["playbook_seconds"] for r in runs), max(r["playbook_seconds"] for r in runs)],
    }
    print(f"ha_rollout: summary {json.dumps(summary)}", flush=True)
    benchlib.write_result(args.name, {"benchmark": "ha_rollout", "machine": facts, "parameters": vars(args), "runs": runs, "summary": summary})
    if args.check and summary["passed"] != len(runs):
        sys.exit(1)


if __name__ == "__main__":
    main()
