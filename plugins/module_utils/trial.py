# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The trial of a configuration: the image's kube-scheduler run once in a Pod that never connects, so that it loads,
defaults and validates the configuration before the running scheduler is touched; and the deletes that wait."""

from __future__ import annotations

import copy
import time

from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.predicates import CANNOT_START
from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.waiter import wait_for
from ansible_collections.kubesched.scheduler.plugins.module_utils.errors import EngineError
from ansible_collections.kubesched.scheduler.plugins.module_utils.kube import MANAGER

monotonic = time.monotonic
TRIAL_LABEL = "kubesched.io/trial"


def last_lines(text, lines, limit=600):
    said = " ".join(line.strip() for line in (text or "").strip().splitlines()[-lines:])
    return said if len(said) <= limit else said[: limit - 3] + "..."


def trial_objects(deployment, configmap, manager=MANAGER):
    """The trial's ConfigMap and Pod: the Deployment's pod, run once with ``--master`` at a closed port and
    ``--write-config-to``, so that kube-scheduler loads, defaults and validates the configuration and exits
    before it connects. Its labels are not the Deployment's, and it needs neither the ServiceAccount nor a token."""
    name = deployment["metadata"]["name"]
    namespace = deployment["metadata"]["namespace"]
    trial = f"{name}-trial"
    labels = {"app.kubernetes.io/managed-by": manager, TRIAL_LABEL: name}
    spec = copy.deepcopy(deployment["spec"]["template"]["spec"])
    container = {key: value for key, value in spec["containers"][0].items() if key not in ("livenessProbe", "readinessProbe", "startupProbe")}
    container["command"] = list(container.get("command") or []) + ["--master=https://127.0.0.1:9", "--write-config-to=/dev/null"]
    spec = {key: value for key, value in spec.items() if key not in ("serviceAccountName", "affinity")}
    spec.update(
        containers=[container],
        restartPolicy="Never",
        automountServiceAccountToken=False,
        volumes=[{"name": "config-volume", "configMap": {"name": trial}}],
    )
    meta = {"name": trial, "namespace": namespace, "labels": labels}
    return (
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": dict(meta), "data": copy.deepcopy(configmap.get("data") or {})},
        {"apiVersion": "v1", "kind": "Pod", "metadata": dict(meta), "spec": spec},
    )


def trial_reasons(pod):
    """``reason: message`` of the trial container's waiting and terminated states, waiting first."""
    states = [status.get("state") or {} for status in ((pod or {}).get("status") or {}).get("containerStatuses") or []]
    said = [state["waiting"] for state in states if state.get("waiting")] + [state["terminated"] for state in states if state.get("terminated")]
    return "; ".join(": ".join(part for part in (s.get("reason") or "", s.get("message") or "") if part) for s in said if s.get("reason") or s.get("message"))


def trial_finished(pod):
    status = (pod or {}).get("status") or {}
    if status.get("phase") in ("Succeeded", "Failed"):
        return True
    waiting = [((s.get("state") or {}).get("waiting") or {}).get("reason") for s in status.get("containerStatuses") or []]
    return any(reason in CANNOT_START for reason in waiting)


def wait_gone(kube, kind, name, namespace, timeout, api_version=None):
    wait_for(lambda: kube.get(kind, name, namespace, api_version=api_version), lambda obj: obj is None, timeout)


def delete_and_wait(kube, obj, timeout):
    """Delete the object ``obj`` names and wait until it is gone; False when it did not exist. A Deployment goes in the
    foreground: once it is gone, so are its pods, and nothing renews the Lease."""
    kind, metadata, api_version = obj["kind"], obj["metadata"], obj.get("apiVersion")
    propagation = "Foreground" if kind == "Deployment" else None
    if not kube.delete(kind, metadata["name"], metadata.get("namespace"), propagation=propagation, api_version=api_version):
        return False
    wait_gone(kube, kind, metadata["name"], metadata.get("namespace"), timeout, api_version=api_version)
    return True


def run_trial(kube, deployment, configmap, timeout, image, fix):
    """Try the configuration; raise EngineError when kube-scheduler refuses it or does not start. Returns seconds taken."""
    start = monotonic()
    trial_cm, trial_pod = trial_objects(deployment, configmap, kube.manager)
    name, namespace = trial_pod["metadata"]["name"], trial_pod["metadata"]["namespace"]
    priority = trial_pod["spec"].get("priorityClassName")
    if priority and kube.get("PriorityClass", priority) is None:  # one this run creates, after the trial
        del trial_pod["spec"]["priorityClassName"]
    for kind in ("Pod", "ConfigMap"):  # an interrupted run's leftovers
        if kube.delete(kind, name, namespace, grace_period=0):
            wait_gone(kube, kind, name, namespace, timeout)
    log = ""
    try:
        kube.apply(trial_cm)
        kube.apply(trial_pod)
        pod, dummy = wait_for(lambda: kube.get("Pod", name, namespace), trial_finished, timeout)
        phase = ((pod or {}).get("status") or {}).get("phase")
        if phase == "Failed":
            log = kube.log(name, namespace, tail_lines=10)
    finally:
        kube.delete("Pod", name, namespace, grace_period=0)
        kube.delete("ConfigMap", name, namespace)
        wait_gone(kube, "Pod", name, namespace, timeout)
    if phase != "Succeeded":
        said = trial_reasons(pod) or "no Pod ran within kube_scheduler_wait_timeout"
        msg = f"kube-scheduler of {image} did not accept the configuration, or did not start ({said})."
        if log.strip():
            msg += f" It said: {last_lines(log, 2)}."
        raise EngineError(msg + " Nothing was changed. " + fix, trial={"result": "refused", "said": said})
    return round(monotonic() - start, 1)
