"""Whether a scheduler runs and leads, for the molecule scenario `reliability` (tasks/holder.yml), in one process.

The scheduler's Deployment has rolled out (every replica updated, ready and available, no pod of an older
ReplicaSet left), a ready pod of the ReplicaSet of the Deployment's revision holds its Lease, and renews it.
Written apart from the collection's engine (module_utils/engine.py), so that the test does not grade the engine with
its own rule.

Prints one JSON object: ok (bool), why (when not ok) and what was seen: name, identity, pod, ready, replicaset_hash,
revision, renew, image, generation. Exit status 0 whenever it printed; the play asserts `ok`.
Run it with the controller's Python, the one with the kubernetes client (the play uses ansible_playbook_python).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from kubernetes import client, config


def ready(pod):
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def rolled_out(deployment):
    spec, status = deployment.get("spec") or {}, deployment.get("status") or {}
    want = spec.get("replicas", 1)
    return (
        status.get("observedGeneration", 0) >= deployment["metadata"].get("generation", 0)
        and status.get("replicas", 0) == want
        and status.get("updatedReplicas", 0) == want
        and status.get("readyReplicas", 0) == want
        and status.get("availableReplicas", 0) == want
    )


class Cluster:
    def __init__(self, context):
        api = config.new_client_from_config(context=context)
        self.core, self.apps, self.coordination = client.CoreV1Api(api), client.AppsV1Api(api), client.CoordinationV1Api(api)

    @staticmethod
    def raw(call, *args, **kwargs):
        return json.loads(call(*args, _preload_content=False, **kwargs).data)

    def deployment(self, namespace, name):
        return self.raw(self.apps.read_namespaced_deployment, name, namespace)

    def owned(self, namespace, name):
        selector = f"app.kubernetes.io/name={name},kubesched.io/scheduler-name={name}"
        sets = self.raw(self.apps.list_namespaced_replica_set, namespace, label_selector=selector)["items"]
        pods = self.raw(self.core.list_namespaced_pod, namespace, label_selector=selector)["items"]
        return sets, pods

    def lease(self, namespace, name):
        try:
            return self.raw(self.coordination.read_namespaced_lease, name, namespace)["spec"]
        except client.ApiException as error:
            if error.status == 404:
                return {}
            raise


def current(deployment, sets, pods):
    """(revision, pod-template-hash of that revision's ReplicaSet, names of its ready pods that are not deleting)."""
    revision = str(deployment["metadata"].get("annotations", {}).get("deployment.kubernetes.io/revision", ""))
    hashes = [
        s["metadata"].get("labels", {}).get("pod-template-hash", "")
        for s in sets
        if str(s["metadata"].get("annotations", {}).get("deployment.kubernetes.io/revision", "")) == revision
    ]
    template_hash = hashes[0] if hashes else ""
    names = [
        p["metadata"]["name"]
        for p in pods
        if template_hash
        and p["metadata"].get("labels", {}).get("pod-template-hash") == template_hash
        and not p["metadata"].get("deletionTimestamp")
        and ready(p)
    ]
    return revision, template_hash, sorted(names)


def check(cluster, args):
    seen = {"name": args.name}
    deadline = time.monotonic() + args.timeout
    while True:  # the Deployment has rolled out
        deployment = cluster.deployment(args.namespace, args.name)
        if rolled_out(deployment):
            break
        if time.monotonic() > deadline:
            return dict(seen, ok=False, why=f"Deployment {args.namespace}/{args.name} did not roll out in {args.timeout} s: status {deployment.get('status')}")
        time.sleep(2)
    seen.update(
        image=deployment["spec"]["template"]["spec"]["containers"][0]["image"],
        generation=deployment["metadata"].get("generation"),
    )
    lock_namespace, lock_name = args.lock.split("/", 1)
    lease_deadline = time.monotonic() + args.lease_timeout
    while True:  # a ready pod of the current ReplicaSet holds the Lease
        revision, template_hash, names = current(deployment, *cluster.owned(args.namespace, args.name))
        lease = cluster.lease(lock_namespace, lock_name)
        identity = lease.get("holderIdentity") or ""
        seen.update(revision=revision, replicaset_hash=template_hash, ready=names, identity=identity, pod=identity.split("_")[0])
        if identity and seen["pod"] in names:
            break
        if time.monotonic() > lease_deadline:
            why = f"Lease {args.lock} held by {identity or 'nobody'}, not by a ready pod of ReplicaSet hash '{template_hash}' (revision {revision})"
            return dict(seen, ok=False, why=f"{why}: {names}")
        time.sleep(2)
        deployment = cluster.deployment(args.namespace, args.name)
    renew, renew_deadline = lease.get("renewTime"), time.monotonic() + args.renew_timeout
    while True:  # and renews it
        again = cluster.lease(lock_namespace, lock_name)
        if again.get("renewTime") != renew:
            break
        if time.monotonic() > renew_deadline:
            return dict(seen, ok=False, why=f"{identity} did not renew Lease {args.lock} in {args.renew_timeout} s (renewTime {renew})")
        time.sleep(1)
    if again.get("holderIdentity") != identity:
        return dict(seen, ok=False, why=f"Lease {args.lock} moved from {identity} to {again.get('holderIdentity')} while it was watched")
    seen["renew"] = again.get("renewTime")
    if len(names) != args.replicas:
        return dict(seen, ok=False, why=f"{len(names)} ready pods of ReplicaSet hash '{template_hash}' ({names}), want {args.replicas}")
    return dict(seen, ok=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--context", required=True)
    parser.add_argument("--name", required=True, help="the scheduler's Deployment, and its pods' label values")
    parser.add_argument("--namespace", required=True)
    parser.add_argument("--lock", required=True, help="namespace/name of its Lease")
    parser.add_argument("--replicas", type=int, required=True)
    parser.add_argument("--timeout", type=float, default=300, help="for the rollout, seconds")
    parser.add_argument("--lease-timeout", type=float, default=90, help="for the Lease to be held by a ready pod of the current ReplicaSet")
    parser.add_argument("--renew-timeout", type=float, default=15)
    args = parser.parse_args(argv)
    try:
        seen = check(Cluster(args.context), args)
    except client.ApiException as error:  # the play's assertion names what went wrong
        seen = {"name": args.name, "ok": False, "why": f"{error.status} {error.reason}: {(error.body or '')[:300]}"}
    print(json.dumps(seen, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
