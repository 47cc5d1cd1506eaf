#!/usr/bin/env python3
"""Writes docs/benchmarks.md from the JSON results of the benchmarks (benchmarks/results/*.json).

Every figure in the page comes from those files; a benchmark without a result file is listed as not run.
usage: report.py [--results DIR] [--out FILE]
"""

from __future__ import annotations

import argparse
import html
import json
import re
from pathlib import Path

import benchlib

ROOT = Path(__file__).resolve().parents[1]


def s(value, unit="s", digits=2):
    return "n/a" if value is None else f"{value:.{digits}f}{(' ' + unit) if unit else ''}"


def spread(item, unit="s", digits=2):
    if not item or not item.get("n"):
        return "not run"
    if item["n"] == 1:
        return f"{s(item['median'], unit, digits)} (1 run)"
    return f"{s(item['median'], unit, digits)} ({s(item['min'], '', digits)}–{s(item['max'], '', digits)}, n={item['n']})"


def spread_of(values):
    values = sorted(values)
    if not values:
        return {"n": 0}
    mid = len(values) // 2
    median = values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2
    return {"median": median, "min": values[0], "max": values[-1], "n": len(values)}


def goal(met):
    return "met" if met else "**not met**"


def same_goal(ratio, baseline, default):
    """The goal line of the second scheduler with the default settings; a median just under 1.0 whose per-repetition
    spread holds 1.0 is said to be a tie, not hidden."""
    same = ratio["median"]
    tie = (
        ""
        if same >= 1.0 or not ratio["min"] <= 1.0 <= ratio["max"]
        else f"; per repetition {ratio['min']:.3f}–{ratio['max']:.3f}x, which holds 1.0: the two are equal within what the "
        f"repetitions vary, both held by the same client rate limit (qps {default['client_qps']}, burst {default['client_burst']})"
    )
    # A median that rounds to 1.000 at three digits but lies under 1.0 is printed with more, so that the verdict reads true.
    shown = f"{same:.5f}" if same < 1.0 and f"{same:.3f}" == "1.000" else f"{same:.3f}"
    return f"- Second scheduler with the default settings against `{baseline}`: {shown}x (goal >= 1.0x: {goal(same >= 1.0)}{tie})."


def machine_line(facts):
    # A benchmark that does not use the cluster (build_image) records no cluster facts: none are printed for it.
    cluster = (
        f"Kubernetes {facts['kubernetes']} on kind ({facts.get('nodes_real', '?')} real nodes, {facts.get('nodes_kwok', '?')} kwok nodes), "
        if "kubernetes" in facts
        else ""
    )
    return (
        f"{facts.get('cores')} cores, {facts.get('memory_gib')} GiB, kernel {facts.get('kernel')}, Docker {facts.get('docker', '?')}, "
        f"{cluster}ansible-core {facts.get('ansible_core', '?')}, Python {facts.get('python')}; load average "
        f"{', '.join(f'{x:.1f}' for x in facts.get('load_average', []))} at {facts.get('date')}, when these facts were recorded"
    )


def throughput(doc):
    summary = doc["summary"]
    baseline = doc["parameters"]["baseline"]
    lines = [
        "## Scheduling throughput on simulated nodes",
        "",
        f"`{doc['command']}`",
        "",
        f"Machine: {machine_line(doc['machine'])}.",
        "",
        f"{doc['parameters']['pods']} pause pods (requests 10m CPU, 16Mi) per run, created by 16 client threads as fast as the API "
        "accepts them, on kwok's fake nodes; each scheduler in turn, the order rotating every repetition; each run checked "
        "(every pod bound to a kwok node; no pod with two Scheduled events or one from another scheduler). Rate = pods / (last bind − "
        "first creation); latency = creation to bind, seen by a watch. Median (min–max, n).",
        "",
        "| scheduler | pods bound / s | p50 create→bind | p99 create→bind | ratio to default-scheduler (per repetition) "
        "| pods created / s | Scheduled events missing |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for scheduler in doc["parameters"]["schedulers"]:
        item = summary[scheduler]
        missing = sum(r.get("scheduled_events_missing", 0) for r in doc["runs"] if r["scheduler"] == scheduler)
        runs = sum(1 for r in doc["runs"] if r["scheduler"] == scheduler)
        creation = spread_of([r["creation_per_second"] for r in doc["runs"] if r["scheduler"] == scheduler])
        lines.append(
            f"| {item['label']} (`{scheduler}`) | {spread(item['pods_per_second'], '', 1)} | {spread(item['p50_seconds'])} | "
            f"{spread(item['p99_seconds'])} | {spread(item['ratio_to_baseline'], 'x')} | {spread(creation, '', 1)} | "
            f"{missing} of {runs * doc['parameters']['pods']} |"
        )
    schedulers = doc["parameters"]["schedulers"]
    goals = []
    if len(schedulers) >= 2:
        goals.append(same_goal(summary[schedulers[1]]["ratio_to_baseline"], baseline, presets(doc)[0]["default"]))
    if len(schedulers) >= 3:
        tuned = summary[schedulers[2]]["ratio_to_baseline"]["median"]
        goals.append(f"- Second scheduler with `kube_scheduler_tuning: throughput` against `{baseline}`: {tuned:.3f}x (goal >= 1.5x: {goal(tuned >= 1.5)}).")
        runs = [r for r in doc["runs"] if r["scheduler"] == schedulers[2]]
        kept_up = sum(1 for r in runs if r["pods_per_second"] >= 0.95 * r["creation_per_second"])
        goals.append(
            f"  - In {kept_up} of {len(runs)} of its runs it bound pods at 95 % or more of the rate they were created: there the "
            "limit was how fast pods arrived, not the scheduler."
        )
    goals += client_limit(doc)
    goals.append(
        "- Pods created / s: how fast the 16 client threads got pods accepted by the API server on this machine; a scheduler "
        "cannot bind faster than pods arrive, so a rate close to it means the scheduler kept up (then the latency shows it)."
    )
    goals.append(
        "- Scheduled events missing: pods bound without a Scheduled event (the binding itself was checked by the watch: every "
        "pod was bound). client-go's event broadcaster, which kube-scheduler uses, queues at most 1,000 events and drops "
        "further ones when its writer falls behind; why only the cluster's own (static pod) scheduler fell behind here was "
        "not investigated."
    )
    return lines + [""] + goals


def backlog(doc):
    summary = doc["summary"]
    schedulers = doc["parameters"]["schedulers"]
    baseline = doc["parameters"]["baseline"]
    lines = [
        "## Throughput from a backlog",
        "",
        f"`{doc['command']}`",
        "",
        f"Machine: {machine_line(doc['machine'])}.",
        "",
        f"{doc['parameters']['pods']} pause pods per run created while the scheduler under test did not run (the cluster's "
        "default scheduler: its static Pod's manifest moved out of /etc/kubernetes/manifests on the control-plane node; a second "
        "scheduler: its Deployment scaled to 0), then the scheduler started again. Rate = pods / (last bind − the new process's "
        "Lease acquireTime); each run checked (every pod bound to a kwok node, the new process's own "
        '`scheduler_schedule_attempts_total{result="scheduled"}` at least the pods, no Scheduled event by another scheduler). '
        "Each scheduler in turn, the order rotating every repetition. Median (min–max, n).",
        "",
        "| scheduler | pods bound / s from its Lease | from its first bind | time to bind all | start-up to Lease | ratio to "
        f"{baseline} (per repetition) | scheduled (its own counter) | its requests refused with 429 |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name in schedulers:
        item = summary["schedulers"][name]
        counted = spread_of([r["attempts"]["scheduled"] for r in doc["runs"] if r["scheduler"] == name])
        lines.append(
            f"| {item['label']} (`{name}`) | {spread(item['pods_per_second'], '', 1)} | {spread(item['pods_per_second_from_first_bind'], '', 1)} | "
            f"{spread(item['drain_seconds'])} | {spread(item['startup_seconds'])} | {spread(item['ratio_to_baseline'], 'x')} | "
            f"{spread(counted, '', 0)} | {refused_of(doc, name)} |"
        )
    goals = []
    if len(schedulers) >= 2:
        goals.append(same_goal(summary["schedulers"][schedulers[1]]["ratio_to_baseline"], baseline, presets(doc)[0]["default"]))
    if len(schedulers) >= 3:
        tuned = summary["schedulers"][schedulers[2]]["ratio_to_baseline"]["median"]
        goals.append(f"- Second scheduler with `kube_scheduler_tuning: throughput` against `{baseline}`: {tuned:.3f}x (goal >= 1.5x: {goal(tuned >= 1.5)}).")
    if any("refused_429" in run for run in doc["runs"]):
        goals.append(
            "- Its requests refused with 429: the new process's own `rest_client_requests_total{code=\"429\"}`, requests the API "
            "server's API Priority and Fairness refused because the queues of the scheduler's priority level were full; kube-scheduler "
            "retries each after the `Retry-After` it was sent, so binding slows down: a client rate above what the API server serves "
            "is not faster. Compare the pods bound a second with the API server's own pod-create rate below."
        )
    ceiling = summary["ceiling_creation_per_second"]
    goals.append(
        f"- The API server's own pod-create rate on this machine, measured while no scheduler bound the pods (16 client threads, every "
        f"run): {spread(ceiling, 'pods/s', 1)}. It is the ceiling of the creation-paced figures of the section above: a scheduler there "
        "cannot bind faster than pods arrive; from a backlog it can."
    )
    return lines + [""] + goals


def refused_of(doc, name):
    """Median (min–max) of a scheduler's requests refused with 429 per run, or n/a for results recorded before they were counted."""
    values = [r["refused_429"] for r in doc["runs"] if r["scheduler"] == name and "refused_429" in r]
    return spread(spread_of(values), "", 0) if values else "n/a"


def preset_of(label):
    """run.sh labels the scheduler installed with a preset other than default "tuning=NAME"."""
    match = re.search(r"tuning=(\w+)", label)
    return match.group(1) if match else "default"


def presets(doc):
    """The tuning presets the run recorded, or for a result written before they were recorded the checkout's (and False)."""
    recorded = doc["parameters"].get("tuning_presets")
    return (recorded, True) if recorded else (benchlib.tuning_presets(), False)


def client_limit(doc):
    """The bound that kube-scheduler's client rate limit puts on binding, from the collection's tuning presets."""
    pods = doc["parameters"]["pods"]
    by_name, recorded = presets(doc)
    lines = []
    for name, preset in by_name.items():
        qps, burst = preset["client_qps"], preset["client_burst"]
        limit = pods / ((pods - burst) / qps) if pods > burst else None
        reached = [f"{item['label']} {item['pods_per_second']['median']:.1f}" for item in doc["summary"].values() if preset_of(item["label"]) == name]
        text = f"at most {pods} / (({pods} − {burst}) / {qps}) = {limit:.1f} pods/s" if limit else f"no bound below {pods} pods at once"
        lines.append(f"  - qps {qps}, burst {burst} (`kube_scheduler_tuning: {name}`): {text}; measured (median): {'; '.join(reached) or 'n/a'}.")
    return [
        "- The client's rate limit: kube-scheduler sends one binding request per pod through a client that allows "
        "`clientConnection.qps` requests a second after a first burst of `burst` (the cluster's own scheduler runs with "
        "kube-scheduler's defaults, those of `tuning: default`). The bound this puts on pods bound a second, from the presets "
        + (
            "of roles/deploy/vars/main.yml that the run installed:"
            if recorded
            else "of roles/deploy/vars/main.yml now: the run recorded none (results written before 2026-12-03 did not), so they may "
            "not be the ones it installed:"
        ),
        *lines,
    ]


def placement(doc):
    lines = [
        "## pod_placement at scale",
        "",
        f"`{doc['command']}`",
        "",
        f"Machine: {machine_line(doc['machine'])}.",
        "",
        f"Pods placed for real by {' and '.join(doc.get('parameters', {}).get('schedulers', ['two schedulers']))} (half each) on kwok "
        "nodes: two second schedulers, because the cluster's own scheduler writes fewer Scheduled events than it binds pods "
        "under load (see the throughput section), and every answer here is checked against the events. Then, alternated, "
        "each approach run in full: the module "
        "through Ansible (`ansible localhost -m kubesched.scheduler.pod_placement`, its own process start included), the two "
        "`kubectl get -o json` lists a person would run joined by UID with `jq`, and a per-pod `kubectl get events` loop. LIST "
        "requests counted by the API server (`apiserver_request_total`, pods/events/leases/deployments) and the peak resident "
        "memory of the module's process (of the largest kubectl process for the others). Every run's answer checked.",
        "",
        "| pods | approach | wall time | LIST requests | peak memory |",
        "| ---: | --- | ---: | ---: | ---: |",
    ]
    goals = []
    parameters = doc.get("parameters", {})
    loop_max = parameters.get("loop_max_size", 5000)
    for size, data in sorted(doc["sizes"].items(), key=lambda kv: int(kv[0])):
        summary = data["summary"]
        for approach, label in (("module", "pod_placement module"), ("kubectl", "kubectl, two lists + jq"), ("loop", "kubectl, one call per pod")):
            item = summary[approach]
            if not item["seconds"]["n"]:
                lines.append(f"| {size} | {label} | not run: one `kubectl` call per pod, sizes above {loop_max} skip it | | |")
                continue
            row = f"| {size} | {label} | {spread(item['seconds'])} | {spread(item['list_requests'], '', 0)}"
            lines.append(f"{row} | {spread(item['peak_mib'], 'MiB', 1)} |")
        module = summary["module"]["seconds"]["median"]
        versus = summary["module_vs_kubectl"]["median"]
        loop = summary["loop_vs_module"]["median"]
        goals.append(
            f"- {size} pods: module {module:.2f} s; module / kubectl two lists {versus:.2f}x (median of {summary['module_vs_kubectl']['n']} alternated pairs)"
            + (f"; per-pod loop / module {loop:.0f}x" if loop else "; per-pod loop not run at this size")
        )
        if size == "5000":
            goals.append(
                f"  - goals at 5,000 pods: <= 3 s {goal(module <= 3)}; within 1.5x of kubectl {goal(versus <= 1.5)}; "
                + (f">= 50x faster than the loop {goal(loop >= 50)}" if loop else "loop not run")
            )
    for size in parameters.get("sizes", []):
        if str(size) not in doc["sizes"]:
            lines.append(f"| {size} | every approach | not measured: this run stopped before this size | | |")
    memory = [(int(k), v["summary"]["module"]["peak_mib"]["median"]) for k, v in doc["sizes"].items() if v["summary"]["module"]["peak_mib"]["n"]]
    if len(memory) >= 2:
        memory.sort()
        (n0, m0), (n1, m1) = memory[0], memory[-1]
        goals.append(f"- Module memory from {n0} to {n1} pods ({n1 / n0:.0f}x the pods): {m0:.0f} → {m1:.0f} MiB ({m1 / m0:.1f}x).")
        times = sorted((int(k), v["summary"]["module"]["seconds"]["median"]) for k, v in doc["sizes"].items() if v["summary"]["module"]["seconds"]["n"])
        (n0, t0), (n1, t1) = times[0], times[-1]
        goals.append(
            f"- Module time from {n0} to {n1} pods: {t0:.2f} → {t1:.2f} s. What does not grow with the pods (ansible's start, the "
            f"module's start, the Kubernetes client's import) is at most the {n0}-pod time, {t0:.2f} s: a bound from these figures, "
            "not measured by itself."
        )
    return lines + [""] + goals


def converge(doc):
    summary = doc["summary"]
    ratio = summary["ratio"]["median"]
    return [
        "## Converge: the collection against kubectl",
        "",
        f"`{doc['command']}`",
        "",
        f"Machine: {machine_line(doc['machine'])}.",
        "",
        "From a clean slate each time (playbooks/uninstall.yml between runs, not timed), alternated: `site.yml --tags deploy` "
        "(preflight, ClusterRole lock, apply, rollout wait; image already pushed; a first install runs no trial Pod: its own "
        "pods are the trial, and what it created is removed when they fail) against `kubectl "
        "patch` of the rendered ClusterRole patch + `kubectl apply -f` of the same rendered manifests and image digest + "
        "`kubectl rollout status` + polling until a pod of the new Deployment holds the Lease. Then, in the collection's leg, "
        "the re-runs with nothing changed (asserted changed=0). Both legs wait for the same probes: the Deployment's startup "
        "probe every second, after which the kubelet probes readiness at once.",
        "",
        "| what | time |",
        "| --- | ---: |",
        f"| collection, `site.yml --tags deploy` ({summary['tasks']} tasks) | {spread(summary['collection_seconds'])} |",
        f"| kubectl | {spread(summary['kubectl_seconds'])} |",
        f"| collection / kubectl (per repetition) | {spread(summary['ratio'], 'x')} |",
        f"| re-run `--tags deploy`, changed=0 | {spread(summary['rerun_deploy_seconds'])} |",
        f"| re-run of the whole `site.yml`, changed=0 | {spread(summary['rerun_site_seconds'])} |",
        "",
        f"- Goal <= 3x kubectl: {ratio:.1f}x, {goal(ratio <= 3)}.",
        f"- Goal re-run of the deploy step <= 5 s: {summary['rerun_deploy_seconds']['median']:.1f} s, {goal(summary['rerun_deploy_seconds']['median'] <= 5)}.",
        f"- Goal re-run of site.yml <= 8 s: {summary['rerun_site_seconds']['median']:.1f} s, {goal(summary['rerun_site_seconds']['median'] <= 8)}.",
    ] + converge_baseline(summary) + converge_profile(summary)


def converge_baseline(summary):
    """The same collection leg at another commit, alternated with this one in the same run (converge.py --baseline)."""
    base = summary.get("baseline")
    if not base:
        return []
    return [
        "",
        f"Side by side in the same run, alternated: the collection at commit {base['commit']} (the baseline) and at this run's checkout.",
        "",
        f"| what | this checkout | {base['commit']} |",
        "| --- | ---: | ---: |",
        f"| `site.yml --tags deploy` from a clean slate | {spread(summary['collection_seconds'])} | {spread(base['seconds'])} |",
        f"| re-run `--tags deploy`, changed=0 | {spread(summary['rerun_deploy_seconds'])} | {spread(base['rerun_deploy_seconds'])} |",
        f"| re-run of the whole `site.yml`, changed=0 | {spread(summary['rerun_site_seconds'])} | {spread(base['rerun_site_seconds'])} |",
        f"| runs of the modules `scheduler_preflight` and `scheduler` | {spread(summary['module_runs'], '', 0)} | {spread(base['module_runs'], '', 0)} |",
    ]


# The collection's modules that make no API request (action plugins run on the controller).
CONTROLLER_ONLY = ("kubesched.scheduler.check_inputs", "kubesched.scheduler.write_files")


def talks_to_api(module):
    return module.startswith(("kubernetes.core.", "kubesched.scheduler.")) and module not in CONTROLLER_ONLY


def converge_profile(summary):
    """Where the collection's time goes, from the json callback's record of the same runs."""
    profile = summary.get("profile")
    if not profile:
        return []
    med = lambda item: item["median"] or 0  # noqa: E731
    lines = [
        "",
        "Where the collection's time goes (the same runs, recorded by the `ansible.posix.json` callback: each task's start, "
        'end and module; medians). "outside tasks" is the rest of the wall time: ansible-playbook\'s start-up, loading '
        "the roles and variables, includes. An empty playbook (one play, no task) took "
        f"{spread(summary['empty_playbook_seconds'])}.",
        "",
        "| run | tasks | inside tasks | outside tasks |",
        "| --- | ---: | ---: | ---: |",
    ]
    labels = (("install", "`--tags deploy`, from a clean slate"), ("rerun_deploy", "re-run `--tags deploy`"), ("rerun_site", "re-run of `site.yml`"))
    for what, label in labels:
        item = profile[what]
        lines.append(f"| {label} | {med(item['tasks']):.0f} | {s(med(item['in_tasks_seconds']))} | {s(med(item['outside_tasks_seconds']))} |")
    for what, label in labels[:2]:
        modules = sorted(profile[what]["by_module"].items(), key=lambda kv: -med(kv[1]["seconds"]))
        lines += ["", f"By module, {label} (the 8 that took longest):", "", "| module | calls | time | per call |", "| --- | ---: | ---: | ---: |"]
        for module, item in modules[:8]:
            calls = med(item["calls"])
            per_call = s(med(item["seconds"]) / calls) if calls else "n/a"
            lines.append(f"| `{module}` | {calls:.0f} | {s(med(item['seconds']))} | {per_call} |")
        api = [item for module, item in modules if talks_to_api(module)]
        calls = sum(med(i["calls"]) for i in api)
        lines += [
            "",
            f"Modules that talk to the API server (kubernetes.core's and this collection's): {calls:.0f} runs, "
            f"{s(sum(med(i['seconds']) for i in api))} of the run's {s(med(profile[what]['in_tasks_seconds']))} inside tasks. "
            f"Goal <= 5 module runs per converge: {goal(calls <= 5)}.",
        ]
    return lines


def build_image(doc):
    summary = doc["summary"]
    sizes = summary["sizes"]
    ratio = summary["ratio"]["median"]
    mib = 2**20
    return [
        "## Build and image: cold run against re-runs",
        "",
        f"`{doc['command']}`",
        "",
        f"Machine: {machine_line(doc['machine'])}.",
        "",
        "`site.yml --tags build,image`: a cold run (new working directory, empty Go build cache, new tag: clone, full compile, "
        "image build, push), then re-runs with nothing changed, each asserted changed=0 with the binary, the image ID and the "
        "registry's digest unchanged.",
        "",
        "| what | value |",
        "| --- | ---: |",
        f"| cold run | {spread(summary['cold_seconds'], 's', 1)} |",
        f"| re-run | {spread(summary['rerun_seconds'], 's', 1)} |",
        f"| re-run / cold run | {spread({k: (v * 100 if isinstance(v, float) else v) for k, v in summary['ratio'].items()}, '%', 1)} |",
        f"| kube-scheduler binary | {sizes['binary_bytes'] / mib:.1f} MiB |",
        f"| image on busybox | {sizes['busybox_image_bytes'] / mib:.1f} MiB |",
        f"| image on the minimal base (scratch, numeric user) | {sizes['minimal_image_bytes'] / mib:.1f} MiB |",
        "",
        f"- Goal re-run <= 5 % of the cold run: {ratio * 100:.1f} %, {goal(ratio <= 0.05)} "
        f"(cold runs: {summary['cold_seconds']['n']}, each a full compile; re-runs: {summary['rerun_seconds']['n']}).",
        f"- Goal minimal image <= binary + 1 MiB: binary + {sizes['minimal_over_binary_bytes'] / 1024:.0f} KiB, "
        f"{goal(sizes['minimal_over_binary_bytes'] <= mib)}.",
    ]


def ha_rollout(doc):
    runs, params = doc["runs"], doc["parameters"]
    leaderless = spread_of([max(r["leaderless_seconds"] or [0]) for r in runs])
    pending = spread_of([r["pending_max"] for r in runs if r["pending_max"] is not None])
    seconds = spread_of([r["playbook_seconds"] for r in runs])
    created = spread_of([r["pods_created"] for r in runs])
    rows = [
        f"| {r['repetition']} | {r['strategy']} | {r['playbook_seconds']:.1f} s | {len(r['handovers'])} | "
        f"{', '.join(f'{x:.3f}' for x in r['leaderless_seconds']) or '-'} s | {r['pods_created']} at {r['create_rate']}/s | "
        f"{r['pods_bound']} | {r['pending_max']} s | {r['pods_failed']} |"
        for r in runs
    ]
    worst = leaderless.get("max") or 0
    return [
        "## The main scheduler on three control-plane nodes",
        "",
        machine_line(doc["machine"]),
        "",
        f"`benchmarks/ha_rollout.py --repetitions {params['repetitions']}` on `make cluster-ha`: each repetition runs "
        "`playbooks/main_scheduler.yml` with another scoring strategy while a watch of the Lease `kube-system/kube-scheduler` "
        f"records its versions and pods for `default-scheduler` are created at {params['rate']:g}/s on kwok's nodes. Leaderless: from "
        "the old leader's release (or last renewal) to the new holder's `acquireTime`, both the API server's times.",
        "",
        "| rep | strategy | playbook | handovers | leaderless | pods created | bound | longest Pending | Failed |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        *rows,
        "",
        f"- Handovers per change: {sorted({len(r['handovers']) for r in runs})} (goal exactly 1: {goal(all(len(r['handovers']) == 1 for r in runs))}).",
        f"- Leaderless: {spread(leaderless)} (goal <= {params['max_leaderless']:g} s: {goal(worst <= params['max_leaderless'])}).",
        f"- Longest Pending: {spread(pending)} (goal <= leaderless + 5 s: "
        f"{goal(all(r['pending_max'] is not None and r['pending_max'] <= max(r['leaderless_seconds'] or [0]) + 5 for r in runs))}); "
        f"every pod bound: {goal(all(r['pods_bound'] == r['pods_created'] for r in runs))}; none Failed: "
        f"{goal(all(r['pods_failed'] == 0 for r in runs))}.",
        f"- Playbook: {spread(seconds, 's', 1)}; pods per repetition: {spread(created, '', 0)}.",
    ]


def gang(doc):
    params, runs = doc["parameters"], doc["runs"]
    under_test, baseline = params["scheduler"], params["baseline"]
    summary = doc["summary"]["schedulers"]
    fit, rate = params["groups_fit"], params["rate"]
    mine = [r for r in runs if r["scheduler"] == under_test]
    longest = params.get("max_partly_seconds", 5)

    def row(label, field, goal_text, met, unit="s", digits=2):
        return (
            f"| {label} | {goal_text}{': ' + goal(met) if met is not None else ''} | "
            + " | ".join(spread(summary[name][field], unit, digits) for name in (under_test, baseline))
            + " |"
        )

    creation_met = all(r["create_rate"] >= 0.9 * rate and not r["creation_errors"] for r in runs)
    at_capacity = [r["podgroups_at_capacity"] for r in mine]
    reasons = sorted({reason for item in at_capacity for reason in item["not_scheduled_reasons"]})
    message = next((item["message"] for item in at_capacity if item["message"]), None)
    shown = gang_shown(doc)
    base = summary[baseline]
    problems = [f"rep {r['repetition']} `{r['scheduler']}`: {p}" for r in runs for p in r["problems"]]
    repetitions = f"{params['repetitions']} repetition{'s' if params['repetitions'] != 1 else ''}"
    lines = [
        "## Gang scheduling: all of a group or none",
        "",
        f"`{doc['command']}`",
        "",
        f"Machine: {machine_line(doc['machine'])}.",
        "",
        f"{params['groups']} groups of {params['group_size']} pods, each pod requesting 1 CPU, each group a PodGroup "
        f"(`scheduling.k8s.io/v1beta1`, `schedulingPolicy.gang.minCount: {params['group_size']}`) and its pods naming it in "
        f"`spec.schedulingGroup`; the pods created interleaved across the groups (pod 0 of every group, then pod 1, ...) at "
        f"{rate:g}/s. Fake Nodes of kwok of {params['node_pods']} one-CPU pods each hold {fit} of the groups; {params['settle']:g} s "
        "after the last pod was created the capacity for the others arrives: more fake Nodes, created at once from 8 threads in "
        f"{spread(spread_of([r['capacity_create_seconds'] for r in runs]))}; the capacity's arrival is the start of the first "
        "one's creation. The same stream goes to "
        f"`{under_test}` (a second scheduler with the gate GenericWorkload, whose profile then has the plugin GangScheduling) and to "
        f"`{baseline}` (the cluster's own scheduler, without the gate: it ignores the pod groups), each run in a namespace and on "
        f"Nodes of its own, the order alternating every repetition; {repetitions}. Counts from a list of "
        f"the namespace's pods every {params['interval']:g} s; times from those samples and, finer, from a watch of the pods (when "
        "each binding reached the benchmark's client: later than the bind by the watch's delivery). Partly bound: some but not all "
        "pods of a group bound. Median (min–max, n).",
        "",
        f"| figure | goal for `{under_test}` | `{under_test}` | `{baseline}` |",
        "| --- | --- | ---: | ---: |",
        row(
            "groups fully bound before the capacity came",
            "full_before_capacity",
            f"{fit}, every group that fits",
            all(r["full_before_capacity"] == r["groups_fit"] for r in mine),
            "",
            0,
        ),
        row("groups partly bound when the capacity came", "partly_at_capacity", "0", all(r["partly_at_capacity"] == 0 for r in mine), "", 0),
        row("CPU held by their bound pods then", "partly_cpu_at_capacity", "", None, "CPU", 0),
        row("peak CPU held by the bound pods of partly bound groups, whole run", "partly_cpu_peak", "", None, "CPU", 0),
        row(
            f"longest time a group stayed partly bound (samples, every {params['interval']:g} s)",
            "partly_longest",
            f"<= {longest:g} s",
            all(r["partly_longest"] <= longest for r in mine),
        ),
        row("the same, seen by the watch", "partly_longest_watch", "", None, "s", 3),
        row("capacity's arrival → first pod bound after it (watch)", "capacity_to_first_bound_watch", "", None, "s", 3),
        row("capacity's arrival → last pod of the waiting groups bound (samples)", "capacity_to_last_bound", "", None),
        row("the same, seen by the watch", "capacity_to_last_bound_watch", "", None, "s", 3),
        row("groups partly bound at the end", "partly_end", "0", all(r["partly_end"] == 0 for r in mine), "", 0),
        row("groups fully bound at the end", "full_end", f"{params['groups']}, all", all(r["pods_bound"] == r["pods"] for r in mine), "", 0),
        row("pods created / s", "create_rate", f">= {0.9 * rate:g}/s (every run of both)", creation_met, "", 1),
        "",
        f"- Runs with every goal met: {doc['summary']['passed']} of {doc['summary']['runs']}"
        + (" (the baseline's runs are judged on the creation rate only)." if not problems else "; problems:"),
        *[f"  - {p}" for p in problems],
        f"- `{under_test}`'s PodGroups when the capacity came: {spread(spread_of([item['scheduled'] for item in at_capacity]), '', 0)} "
        f"with `PodGroupInitiallyScheduled` True, the others {', '.join(f'`{x}`' for x in reasons) or 'none'}"
        + (f' (for example "{message}").' if message else "."),
    ]
    spans = spread_of(
        [g["full_watch"] - g["first_watch"] for r in mine for g in r["groups"].values() if g["full_watch"] is not None and g["first_watch"] is not None]
    )
    if spans["n"]:
        lines.append(
            f"- A group's pods are bound by one request each: the watch saw each of `{under_test}`'s groups go from its first pod "
            f"bound to its last in {s(spans['median'], 's', 3)} (median over its {spans['n']} groups of every run), at most "
            f"{s(spans['max'], 's', 3)}. Its groups partly bound in the samples, and the CPU they held, are such groups caught on the "
            f"way: none stayed partly bound longer than {s(summary[under_test]['partly_longest']['max'])} in the samples."
        )
    lines.append(
        f"- `{baseline}` binds each pod that fits as it comes: when the capacity came, {s(base['partly_at_capacity']['median'], '', 0)} "
        f"groups (median) were partly bound, their pods holding {s(base['partly_cpu_at_capacity']['median'], 'CPU', 0)}, and "
        f"{s(base['full_before_capacity']['median'], '', 0)} fully bound."
    )
    if shown:
        lines += [
            "",
            f"![Bound pods and partly bound groups over time, repetition {shown['repetition']}](img/gang.svg)",
            "",
            f"Repetition {shown['repetition']} (the one whose `{under_test}` time from the capacity's arrival to the last bind is "
            "the median): the pods bound (top) and the groups partly bound (bottom) in each sample, over the seconds since the "
            "run's first pod was created; dashed, the capacity's arrival in each run. Drawn by `benchmarks/report.py` from the "
            "samples in `benchmarks/results/gang.json`.",
        ]
    return lines


def gang_shown(doc):
    """The repetition the picture shows: the one whose scheduler-under-test run has the median time from the capacity's
    arrival to the last bind (the lower middle one of an even count), with both schedulers' runs of it."""
    params = doc["parameters"]
    mine = sorted(
        (r for r in doc["runs"] if r["scheduler"] == params["scheduler"] and r["samples"]),
        key=lambda r: (r["capacity_to_last_bound"] is None, r["capacity_to_last_bound"] or 0, r["repetition"]),
    )
    if not mine:
        return None
    rep = mine[(len(mine) - 1) // 2]["repetition"]
    pair = {r["scheduler"]: r for r in doc["runs"] if r["repetition"] == rep and r["samples"]}
    if params["baseline"] not in pair:
        return None
    return {"repetition": rep, "runs": [pair[params["scheduler"]], pair[params["baseline"]]]}


def nice_ticks(top, count=5):
    """Tick values from 0 to at least ``top``: steps of 1, 2 or 5 times a power of ten, about ``count`` of them."""
    top = max(top, 1)
    magnitude = 10 ** (len(str(int(top / count))) - 1) if top / count >= 1 else 1
    step = next(m * magnitude for m in (1, 2, 5, 10) if top / (m * magnitude) <= count)
    last = -(-top // step) * step
    return [i * step for i in range(int(last / step) + 1)]


def gang_svg(doc):
    """An SVG (text) of the picture of the gang section: for the shown repetition, both schedulers' pods bound and groups
    partly bound over time, each run's capacity arrival dashed."""
    shown = gang_shown(doc)
    if not shown:
        return None
    params = doc["parameters"]
    colors = ("#1f5fa8", "#d9601a")
    width, left, right, top, panel, gap = 760, 70, 20, 100, 170, 75
    height = top + 2 * panel + gap + 60
    plot_w = width - left - right
    end = max(r["samples"][-1]["t"] for r in shown["runs"])
    xticks = nice_ticks(end, 8)
    xmax = xticks[-1]
    panels = (
        ("pods bound", "bound", params["groups"] * params["group_size"]),
        ("groups partly bound", "partly", params["groups"]),
    )
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{left}" y="22" font-size="15" font-weight="bold">Gang scheduling side by side, repetition {shown["repetition"]}</text>',
        f'<text x="{left}" y="42">{params["groups"]} groups of {params["group_size"]} one-CPU pods created at {params["rate"]:g}/s; '
        f"room for {params['groups_fit']} groups until the capacity for the others arrives</text>",
    ]
    # The legend: one line per scheduler, and the capacity's mark.
    x = left
    for run, color in zip(shown["runs"], colors, strict=True):
        out.append(f'<line x1="{x}" y1="62" x2="{x + 24}" y2="62" stroke="{color}" stroke-width="2.5"/>')
        out.append(f'<text x="{x + 30}" y="66">{html.escape(run["scheduler"])}</text>')
        x += 40 + 8 * len(run["scheduler"])
    out.append(f'<line x1="{x}" y1="62" x2="{x + 24}" y2="62" stroke="#555" stroke-width="1.5" stroke-dasharray="5,4"/>')
    out.append(f'<text x="{x + 30}" y="66">the capacity arrives (each run, in its colour)</text>')
    for index, (label, field, ymax_hint) in enumerate(panels):
        y0 = top + index * (panel + gap)
        highest = max(sample[field] for run in shown["runs"] for sample in run["samples"])
        yticks = nice_ticks(max(ymax_hint, highest * 1.05), 4)
        ymax = yticks[-1]

        def px(t):
            return left + plot_w * t / xmax

        def py(v, y0=y0, ymax=ymax):
            return y0 + panel - panel * v / ymax

        out.append(f'<text x="{left}" y="{y0 - 8}" font-weight="bold">{label}</text>')
        for value in yticks:
            out.append(f'<line x1="{left}" y1="{py(value):.1f}" x2="{left + plot_w}" y2="{py(value):.1f}" stroke="#e4e4e4"/>')
            out.append(f'<text x="{left - 6}" y="{py(value) + 4:.1f}" text-anchor="end">{value:g}</text>')
        for value in xticks:
            out.append(f'<line x1="{px(value):.1f}" y1="{y0 + panel}" x2="{px(value):.1f}" y2="{y0 + panel + 4}" stroke="#333"/>')
            out.append(f'<text x="{px(value):.1f}" y="{y0 + panel + 17}" text-anchor="middle">{value:g}</text>')
        out.append(f'<rect x="{left}" y="{y0}" width="{plot_w}" height="{panel}" fill="none" stroke="#333"/>')
        out.append(f'<text transform="translate({left - 42},{y0 + panel / 2}) rotate(-90)" text-anchor="middle">{label}</text>')
        for run, color in zip(shown["runs"], colors, strict=True):
            cx = px(run["capacity_at"])
            out.append(f'<line x1="{cx:.1f}" y1="{y0}" x2="{cx:.1f}" y2="{y0 + panel}" stroke="{color}" stroke-width="1.5" stroke-dasharray="5,4"/>')
            points = " ".join(f"{px(sample['t']):.1f},{py(sample[field]):.1f}" for sample in run["samples"])
            out.append(f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="2" stroke-linejoin="round"/>')
    out.append(
        f'<text x="{left + plot_w / 2}" y="{height - 12}" text-anchor="middle">seconds since the run\'s first pod was created '
        f"({params['rate']:g} pods/s; samples every {params['interval']:g} s)</text>"
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


SECTIONS = (
    ("throughput", throughput),
    ("backlog", backlog),
    ("placement", placement),
    ("converge", converge),
    ("build_image", build_image),
    ("ha_rollout", ha_rollout),
    ("gang", gang),
)

# Pictures drawn from a section's result, written next to the page (img/NAME.svg, linked from the section).
PICTURES = {"gang": gang_svg}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", default=str(ROOT / "benchmarks" / "results"))
    parser.add_argument("--out", default=str(ROOT / "docs" / "benchmarks.md"))
    args = parser.parse_args()
    results = Path(args.results)
    lines = [
        "# Benchmarks",
        "",
        "Generated by `benchmarks/report.py` from the raw results in `benchmarks/results/*.json`, which `make bench` writes",
        "(`make bench-smoke`, and in `make test` `make bench-smoke-oldest` on the oldest minor, run the same code at a small",
        "size and write nothing here). Each section names the command that produced it and the machine it ran on; nothing",
        "here is extrapolated.",
        "",
    ]
    missing = []
    for name, render in SECTIONS:
        path = results / f"{name}.json"
        if not path.exists():
            missing.append(name)
            continue
        doc = json.loads(path.read_text())
        lines += render(doc) + [""]
        if name in PICTURES and (svg := PICTURES[name](doc)):
            picture = Path(args.out).parent / "img" / f"{name}.svg"
            picture.parent.mkdir(parents=True, exist_ok=True)
            picture.write_text(svg)
            print(f"report: wrote {picture}")
    if missing:
        lines += ["## Not run", "", f"No result file for: {', '.join(missing)}.", ""]
    Path(args.out).write_text("\n".join(lines).rstrip() + "\n")
    print(f"report: wrote {args.out}")


if __name__ == "__main__":
    main()
