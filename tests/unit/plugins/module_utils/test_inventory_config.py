# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests of module_utils/inventory_config.py: the version an image tells, where a scheduler's configuration file comes
from, the profiles read from a ConfigMap, and the lock of a configuration or of the flags."""

from __future__ import annotations

import pytest

from ansible_collections.kubesched.scheduler.plugins.module_utils import inventory_config
from ansible_collections.kubesched.scheduler.tests.unit.utils.inventory_fakes import DIGEST


@pytest.mark.parametrize(
    "image, status_image, expected",
    [
        ("registry.k8s.io/kube-scheduler:v1.37.2", None, "v1.37.2"),
        ("localhost:5001/my-scheduler:v1.36.3@" + DIGEST, None, "v1.36.3"),
        ("registry.k8s.io/kube-scheduler@" + DIGEST, "registry.k8s.io/kube-scheduler:v1.35.4", "v1.35.4"),
        ("localhost:5001/my-scheduler", None, None),
        ("localhost:5001/my-scheduler@" + DIGEST, "localhost:5001/my-scheduler@" + DIGEST, None),
        # containerd reports the image ID as the image of a container started by digest (recorded)
        ("localhost:5001/my-scheduler@" + DIGEST, DIGEST, None),
        ("localhost:5001/my-scheduler@" + DIGEST, "localhost:5001/my-scheduler:v1.37.2", "v1.37.2"),
    ],
)
def test_the_version_is_the_tag_of_the_image(image, status_image, expected):
    assert inventory_config.image_version(image, status_image) == expected


@pytest.mark.parametrize(
    "mounts, volumes, expected",
    [
        ([{"name": "c", "mountPath": "/etc/kubernetes"}], [{"name": "c", "hostPath": {"path": "/srv/k8s"}}], {"node": "/srv/k8s/scheduler.yaml"}),
        ([{"name": "c", "mountPath": "/etc/kubernetes/"}], [{"name": "c", "configMap": {"name": "cfg"}}], {"configmap": "cfg", "key": "scheduler.yaml"}),
        (
            [{"name": "c", "mountPath": "/etc/kubernetes"}],
            [{"name": "c", "configMap": {"name": "cfg", "items": [{"key": "config", "path": "scheduler.yaml"}]}}],
            {"configmap": "cfg", "key": "config"},
        ),
        (
            [{"name": "c", "mountPath": "/etc/kubernetes/scheduler.yaml", "subPath": "sched"}, {"name": "d", "mountPath": "/etc"}],
            [{"name": "c", "configMap": {"name": "cfg"}}, {"name": "d", "hostPath": {"path": "/etc"}}],
            {"configmap": "cfg", "key": "sched"},
        ),
        ([{"name": "d", "mountPath": "/etc"}], [{"name": "d", "emptyDir": {}}], {"volume": "d"}),
        ([], [], {"image": "/etc/kubernetes/scheduler.yaml"}),
    ],
)
def test_where_the_config_file_comes_from(mounts, volumes, expected):
    container = {"name": "s", "volumeMounts": mounts}
    assert inventory_config.config_volume({"containers": [container], "volumes": volumes}, container, "/etc/kubernetes/scheduler.yaml") == expected


@pytest.mark.parametrize(
    "text, profiles, source_end",
    [
        ("profiles:\n  - schedulerName: a\n  - schedulerName: b\n", ["a", "b"], ", key k"),
        ("profiles:\n  - plugins: {}\n", ["default-scheduler"], ", key k"),
        ("kind: KubeSchedulerConfiguration\n", ["default-scheduler"], ", key k"),
        ("profiles: [\n", None, " key k is not valid YAML: while parsing a flow"),
        ("- a\n", None, " key k is not a KubeSchedulerConfiguration"),
    ],
)
def test_profiles_are_read_from_the_configmap(text, profiles, source_end):
    container = {"volumeMounts": [{"name": "c", "mountPath": "/cfg"}]}
    spec = {"containers": [container], "volumes": [{"name": "c", "configMap": {"name": "cm"}}]}
    found = inventory_config.read_configuration(spec, container, "ns", {"config": "/cfg/k"}, lambda ns, name: {"data": {"k": text}})
    assert found["profiles"] == profiles
    assert found["profiles_source"].startswith("ConfigMap ns/cm" + source_end)


def test_the_lock_comes_from_the_configuration_or_the_flags():
    assert inventory_config.config_lock({"leaderElection": {"resourceName": "s", "resourceNamespace": "n"}}) == ("n", "s")
    assert inventory_config.config_lock({"leaderElection": {"leaderElect": False}}) is None
    assert inventory_config.config_lock({}) == ("kube-system", "kube-scheduler")
    assert inventory_config.flags_lock({"leader-elect": "false"}) is None
    assert inventory_config.flags_lock({"leader-elect-resource-name": "x"}) == ("kube-system", "x")
