#!/usr/bin/env python3
"""Converge with the collection against the same objects applied with kubectl, from a clean slate each time.

  collection  ansible-playbook playbooks/site.yml --tags deploy   (preflight, trial, ClusterRole lock,
              apply, rollout wait; the image is already in the registry)
  kubectl     kubectl patch clusterrole (the JSON patch render mode writes) + kubectl apply -f of the
              manifests render mode writes for the same variables and image digest + kubectl rollout
              status + polling the Lease until a pod of the new Deployment holds it
Alternated, REPETITIONS times each; every run is checked (rc 0, failed=0, the Deployment ready, the Lease
held by one of its pods, the lock name in system:kube-scheduler) and followed by playbooks/uninstall.yml
(not timed). The collection's leg also times two re-runs with nothing changed: `--tags deploy` and the
whole site.yml (build and image checks included), each asserted changed=0, and an empty playbook (the start-up
of ansible-playbook). With --baseline DIR (a checkout of another commit whose collection is installed in
DIR/build/collections, as `make install` there leaves it), the same collection leg of that commit is a third
approach in the alternation: the two commits side by side in one run. Its playbooks run with the ansible.posix.json callback, which records each task's start,
end and module: the time inside tasks and outside them, and by module, are kept as the profile of each run.
Output: benchmarks/results/converge.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchlib

ROOT = benchlib.ROOT
SITE = ROOT / "playbooks" / "site.yml"


def sh(command, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)


def kubectl(context, *args):
    result = sh(["kubectl", "--context", context, *args])
    if result.returncode != 0:
        raise benchlib.BenchError(f"kubectl {' '.join(args)}: {result.stderr[-500:]}")
    return result.stdout


def lease_held_by_new_pod(context, name, namespace):
    pods = kubectl(context, "-n", namespace, "get", "pods", "-l", f"kubesched.io/scheduler-name={name}", "-o", "jsonpath={.items[*].metadata.name}").split()
    try:
        holder = kubectl(context, "-n", "kube-system", "get", "lease", name, "-o", "jsonpath={.spec.holderIdentity}")
    except benchlib.BenchError:
        return False
    return any(holder.startswith(pod + "_") for pod in pods)


def check_installed(context, name, namespace):
    ready = kubectl(context, "-n", namespace, "get", "deployment", name, "-o", "jsonpath={.status.readyReplicas}")
    if ready.strip() in ("", "0"):
        raise benchlib.BenchError(f"deployment {name} has no ready replica")
    rules = json.loads(kubectl(context, "get", "clusterrole", "system:kube-scheduler", "-o", "json"))["rules"]
    if not any(name in (rule.get("resourceNames") or []) for rule in rules):
        raise benchlib.BenchError(f"{name} is not a lock name of system:kube-scheduler")
    for _ in range(100):
        if lease_held_by_new_pod(context, name, namespace):
            return
        time.sleep(0.3)
    raise benchlib.BenchError(f"the Lease {name} is not held by a pod of the new Deployment")


# The files render mode writes of the Prometheus Operator's monitoring.coreos.com/v1.
MONITORING_FILES = ("45-servicemonitor.yaml", "46-prometheusrule.yaml")


def monitoring_served(context):
    served = kubectl(context, "api-resources", "--api-group=monitoring.coreos.com", "-o", "name").split()
    return {"servicemonitors.monitoring.coreos.com", "prometheusrules.monitoring.coreos.com"} <= set(served)


def kubectl_converge(context, name, namespace, rendered):
    start = time.monotonic()
    kubectl(context, "patch", "clusterrole", "system:kube-scheduler", "--type=json", f"--patch-file={rendered}/patches/clusterrole-system-kube-scheduler.yaml")
    kubectl(context, "apply", "-f", str(rendered))
    kubectl(context, "-n", namespace, "rollout", "status", f"deployment/{name}", "--timeout=180s")
    deadline = time.monotonic() + 120
    while not lease_held_by_new_pod(context, name, namespace):
        if time.monotonic() > deadline:
            raise benchlib.BenchError(f"kubectl: no pod of {name} took the Lease within 120s")
        time.sleep(0.2)
    return time.monotonic() - start


def module_runs(run):
    """How many runs of the modules that talk to the cluster (scheduler_preflight, scheduler) a converge made."""
    modules = run["profile"]["install"]["by_module"]
    return sum(entry["calls"] for name, entry in modules.items() if name.startswith("kubesched.scheduler.scheduler"))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--context", required=True)
    parser.add_argument("--name", default="bench-converge")
    parser.add_argument("--vars", default="{}", help="JSON: the variables of the build and image roles (source, version, build env)")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--result", default="converge")
    parser.add_argument("--baseline", type=Path, help="a checkout of another commit, its collection installed in build/collections")
    args = parser.parse_args()
    legs = {"collection": (SITE, None)}
    if args.baseline:
        installed = args.baseline / "build" / "collections"
        if not (installed / "ansible_collections" / "kubesched" / "scheduler").is_dir():
            raise SystemExit(f"--baseline {args.baseline}: no collection installed in {installed} (run make install there)")
        paths = [str(installed)] + [p for p in os.environ.get("ANSIBLE_COLLECTIONS_PATH", "").split(":") if p and "build/collections" not in p]
        legs["baseline"] = (args.baseline / "playbooks" / "site.yml", {"ANSIBLE_COLLECTIONS_PATH": ":".join(paths)})
    namespace = "kube-system"
    variables = {
        "kube_scheduler_context": args.context,
        "kube_scheduler_name": args.name,
        "kube_scheduler_image": f"localhost:5001/{args.name}",
        "ansible_python_interpreter": str(ROOT / ".venv" / "bin" / "python"),
        **json.loads(args.vars),
    }
    api = benchlib.api_client(args.context)
    facts = benchlib.machine(api)
    # The image once (not timed), a deploy to learn its digest, then a clean slate.
    benchlib.playbook("site.yml", variables, "--tags", "build,image")
    benchlib.playbook("site.yml", variables, "--tags", "deploy")
    image = kubectl(args.context, "-n", namespace, "get", "deployment", args.name, "-o", "jsonpath={.spec.template.spec.containers[0].image}")
    digest = image.split("@", 1)[1] if "@" in image else ""
    benchlib.playbook("uninstall.yml", variables)
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        rendered = Path(tmp) / "rendered"
        # ansible-playbook's own start-up: one play, no task.
        empty_playbook = Path(tmp) / "empty.yml"
        empty_playbook.write_text("- name: Nothing\n  hosts: localhost\n  gather_facts: false\n  tasks: []\n")
        benchlib.playbook("site.yml", {**variables, "kube_scheduler_render_dir": str(rendered), "kube_scheduler_image_digest": digest}, "--tags", "deploy")
        # Render mode writes the Prometheus Operator's objects whatever the cluster serves; the role applies them
        # only where it serves monitoring.coreos.com/v1, and so does the kubectl leg.
        if not monitoring_served(args.context):
            for kind in MONITORING_FILES:
                (rendered / kind).unlink(missing_ok=True)
        approaches = [*legs, "kubectl"]
        for rep in range(args.repetitions):
            # Each approach first in turn, and otherwise in the same order.
            order = approaches[rep % len(approaches) :] + approaches[: rep % len(approaches)]
            for approach in order:
                run = {"approach": approach, "repetition": rep}
                if approach in legs:
                    site_yml, env = legs[approach]
                    # Each playbook with the json callback: its time by task and module is kept (run["profile"]).
                    install = benchlib.playbook_profile(site_yml, variables, "--tags", "deploy", env_extra=env)
                    check_installed(args.context, args.name, namespace)
                    rerun = benchlib.playbook_profile(site_yml, variables, "--tags", "deploy", env_extra=env)
                    site = benchlib.playbook_profile(site_yml, variables, env_extra=env)
                    if rerun["changed"] or site["changed"]:
                        raise benchlib.BenchError(f"re-run with nothing changed reported changed={rerun['changed']} (deploy) and {site['changed']} (site.yml)")
                    empty = benchlib.playbook_profile(empty_playbook, variables, env_extra=env)
                    run.update(seconds=install["seconds"], changed=install["changed"], tasks=install["tasks"])
                    run.update(rerun_deploy_seconds=rerun["seconds"], rerun_site_seconds=site["seconds"], empty_playbook_seconds=empty["seconds"])
                    run["profile"] = {"install": install, "rerun_deploy": rerun, "rerun_site": site}
                else:
                    run["seconds"] = kubectl_converge(args.context, args.name, namespace, rendered)
                    check_installed(args.context, args.name, namespace)
                benchlib.playbook("uninstall.yml", variables)
                runs.append(run)
                extra = f", re-run deploy {run['rerun_deploy_seconds']:.1f}s, site.yml {run['rerun_site_seconds']:.1f}s" if approach in legs else ""
                print(f"converge: rep {rep} {approach}: {run['seconds']:.1f}s{extra}", flush=True)
    by_rep = {}
    for run in runs:
        by_rep.setdefault(run["repetition"], {})[run["approach"]] = run["seconds"]
    collection = [r for r in runs if r["approach"] == "collection"]
    summary = {
        "collection_seconds": benchlib.spread([r["seconds"] for r in collection]),
        "kubectl_seconds": benchlib.spread([r["seconds"] for r in runs if r["approach"] == "kubectl"]),
        "ratio": benchlib.spread([v["collection"] / v["kubectl"] for v in by_rep.values()]),
        "rerun_deploy_seconds": benchlib.spread([r["rerun_deploy_seconds"] for r in collection]),
        "rerun_site_seconds": benchlib.spread([r["rerun_site_seconds"] for r in collection]),
        "tasks": collection[0]["tasks"] if collection else None,
        "empty_playbook_seconds": benchlib.spread([r["empty_playbook_seconds"] for r in collection]),
        "profile": {what: benchlib.profile_summary([r["profile"][what] for r in collection]) for what in ("install", "rerun_deploy", "rerun_site")},
    }
    baseline = [r for r in runs if r["approach"] == "baseline"]
    if baseline:
        commit = subprocess.run(["git", "-C", str(args.baseline), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False).stdout.strip()
        summary["baseline"] = {
            "commit": commit,
            "seconds": benchlib.spread([r["seconds"] for r in baseline]),
            "rerun_deploy_seconds": benchlib.spread([r["rerun_deploy_seconds"] for r in baseline]),
            "rerun_site_seconds": benchlib.spread([r["rerun_site_seconds"] for r in baseline]),
            "module_runs": benchlib.spread([module_runs(r) for r in baseline]),
        }
        summary["module_runs"] = benchlib.spread([module_runs(r) for r in collection])
    document = {"benchmark": "converge", "command": " ".join(sys.argv), "machine": facts, "runs": runs, "summary": summary}
    document["parameters"] = {"repetitions": args.repetitions, "name": args.name}
    benchlib.write_result(args.result, document)


if __name__ == "__main__":
    os.environ.setdefault("ANSIBLE_NOCOLOR", "1")
    main()
