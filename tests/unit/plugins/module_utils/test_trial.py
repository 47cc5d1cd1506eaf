# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The trial of a configuration (module_utils/trial.py): the trial Pod and its ConfigMap, and the priority class the
trial Pod keeps, in an update the deploy engine runs against FakeKube."""

from __future__ import annotations

from ansible_collections.kubesched.scheduler.plugins.module_utils import engine
from ansible_collections.kubesched.scheduler.plugins.module_utils import trial as config_trial
from ansible_collections.kubesched.scheduler.tests.unit.utils.engine_fakes import NAME, FakeKube, deployment, objects, params


def test_trial_pod_never_connects_and_mounts_its_own_configmap():
    cm = objects()[1]
    trial_cm, pod = config_trial.trial_objects(deployment(), cm)
    container = pod["spec"]["containers"][0]
    assert "--master=https://127.0.0.1:9" in container["command"]
    assert not {"readinessProbe", "startupProbe", "livenessProbe"} & container.keys()
    assert pod["spec"]["restartPolicy"] == "Never" and pod["spec"]["automountServiceAccountToken"] is False
    assert "serviceAccountName" not in pod["spec"]
    assert pod["spec"]["volumes"] == [{"name": "config-volume", "configMap": {"name": f"{NAME}-trial"}}]
    assert trial_cm["data"] == cm["data"] and "kubesched.io/pod-template" not in pod["metadata"]["labels"]


class TrialKube(FakeKube):
    """FakeKube that records the Pods applied."""

    def __init__(self):
        super().__init__()
        self.pods_applied = []

    def apply(self, obj, dry_run=False):
        if obj["kind"] == "Pod":
            self.pods_applied.append(obj)
        return super().apply(obj, dry_run)


def trial_pod(kube, class_name):
    """The trial Pod of an update whose pods name the PriorityClass ``class_name``."""
    engine.converge(kube, params())
    run = params(template="bbbb")
    run["objects"][-1]["spec"]["template"]["spec"]["priorityClassName"] = class_name
    engine.converge(kube, run)
    return next(pod for pod in kube.pods_applied if pod["metadata"]["name"] == f"{NAME}-trial")


def test_the_trial_leaves_out_a_priority_class_the_run_creates_after_it(fast):
    assert "priorityClassName" not in trial_pod(TrialKube(), f"{NAME}-critical")["spec"]


def test_the_trial_keeps_a_priority_class_that_exists(fast):
    """So that an API server refusing the class in this namespace (a ResourceQuota's limitedResources) refuses the trial."""
    kube = TrialKube()
    kube.put({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "system-cluster-critical"}, "value": 2000000000})
    assert trial_pod(kube, "system-cluster-critical")["spec"]["priorityClassName"] == "system-cluster-critical"
