# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The dedicated ClusterRole (kube_scheduler_rbac_mode: dedicated) grants, for each supported minor, exactly what the
cluster's own system:kube-scheduler grants (the fixtures read from kind clusters), with the lease named after the
second scheduler's lock instead of kube-scheduler's, and without leasecandidates and the extensions API group."""

from __future__ import annotations

import copy
from pathlib import Path

import jinja2
import pytest
import yaml

from ansible_collections.kubesched.scheduler.plugins.filter.versions import kubernetes_minor

ROOT = Path(__file__).resolve().parents[3]
TEMPLATE = ROOT / "roles" / "clusterrole" / "templates" / "clusterrole-dedicated.yaml.j2"
FIXTURES = ROOT / "tests" / "unit" / "plugins" / "fixtures" / "clusterrole"


def render(**variables):
    environment = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False)  # noqa: S701 - YAML, not HTML
    environment.filters["kubesched.scheduler.kubernetes_minor"] = kubernetes_minor
    environment.filters["to_nice_yaml"] = lambda value, indent=2: yaml.safe_dump(value, indent=indent, default_flow_style=False)
    environment.filters["bool"] = lambda value: str(value).lower() in ("true", "yes", "on", "1")
    base = {
        "__kube_scheduler_dedicated_name": "team-a-scheduler",
        "__kube_scheduler_labels": {"app.kubernetes.io/managed-by": "kubesched.scheduler"},
        "kube_scheduler_lock_name": "team-a",
        "kube_scheduler_cluster_version": "1.37",
    }
    return yaml.safe_load(environment.from_string(TEMPLATE.read_text()).render(**{**base, **variables}))


def grants(rules, lock=None):
    """(group, resource, resourceName or '*', verb) for every rule; the kube-scheduler lease renamed to ``lock``."""
    out = set()
    for rule in rules:
        for group in rule.get("apiGroups", []):
            for resource in rule.get("resources", []):
                for name in rule.get("resourceNames", ["*"]):
                    for verb in rule["verbs"]:
                        if lock and resource == "leases" and name == "kube-scheduler":
                            name = lock  # noqa: PLW2901 - the one rename
                        out.add((group, resource, name, verb))
    return out


@pytest.mark.parametrize("minor", [35, 36, 37])
def test_dedicated_role_mirrors_system_kube_scheduler(minor):
    fixture = yaml.safe_load((FIXTURES / f"system-kube-scheduler-1.{minor}.yaml").read_text())
    expected = {g for g in grants(fixture["rules"], lock="team-a") if g[1] != "leasecandidates" and g[0] != "extensions"}
    role = render(__kube_scheduler_server_version=f"v1.{minor}.4")
    assert grants(role["rules"]) == expected


def test_render_mode_uses_kube_scheduler_cluster_version():
    fixture = yaml.safe_load((FIXTURES / "system-kube-scheduler-1.35.yaml").read_text())
    expected = {g for g in grants(fixture["rules"], lock="team-a") if g[1] != "leasecandidates" and g[0] != "extensions"}
    assert grants(render(kube_scheduler_cluster_version="1.35")["rules"]) == expected
    assert ("resource.k8s.io", "devicetaintrules", "*", "list") in grants(render()["rules"])


def test_with_gang_scheduling_the_role_grants_what_the_gate_adds():
    # system:kube-scheduler of kubesched-ha, whose API servers run with the gate GenericWorkload: the 1.37 rules and the
    # PodGroups' (read, and patch and update of their status).
    fixture = yaml.safe_load((FIXTURES / "system-kube-scheduler-1.37-GenericWorkload.yaml").read_text())
    expected = {g for g in grants(fixture["rules"], lock="team-a") if g[1] != "leasecandidates" and g[0] != "extensions"}
    assert ("scheduling.k8s.io", "podgroups/status", "*", "patch") in expected
    assert grants(render(__kube_scheduler_server_version="v1.37.2", kube_scheduler_gang_scheduling="true")["rules"]) == expected
    assert grants(render(__kube_scheduler_server_version="v1.37.2", kube_scheduler_gang_scheduling=False)["rules"]) < expected


@pytest.mark.parametrize("fixture", ["1.35", "1.36", "1.37", "1.37-GenericWorkload"])
def test_the_role_that_follows_the_cluster_grants_what_the_template_of_its_release_does(fixture):
    # lock.follow_cluster_role on the system:kube-scheduler read from each kind cluster gives the rules the template
    # renders for that release (and gate), with the scheduler's own lock name.
    from ansible_collections.kubesched.scheduler.plugins.module_utils.lock import follow_cluster_role

    system = yaml.safe_load((FIXTURES / f"system-kube-scheduler-{fixture}.yaml").read_text())
    minor = fixture.split("-")[0].split(".")[1]
    rendered = render(__kube_scheduler_server_version=f"v1.{minor}.4", kube_scheduler_gang_scheduling="GenericWorkload" in fixture)
    assert grants(follow_cluster_role(system["rules"], "team-a")) == grants(rendered["rules"])


def test_the_role_that_follows_the_cluster_leaves_other_schedulers_lock_names_out():
    system = yaml.safe_load((FIXTURES / "system-kube-scheduler-1.37.yaml").read_text())
    for rule in system["rules"]:
        if rule.get("resourceNames") == ["kube-scheduler"]:
            rule["resourceNames"] = ["kube-scheduler", "my-scheduler", "batch-scheduler"]  # as patch mode leaves them
    from ansible_collections.kubesched.scheduler.plugins.module_utils.lock import follow_cluster_role

    named = {g[2] for g in grants(follow_cluster_role(system["rules"], "team-a")) if g[1] == "leases" and g[2] != "*"}
    assert named == {"team-a"}


def test_a_run_after_a_gate_came_on_adds_its_rules_and_says_which(monkeypatch):
    # The dedicated role made on 1.37 with the default gates; then the API servers get GenericWorkload: the next run gives
    # it the PodGroups' rules that system:kube-scheduler got, and names them.
    from ansible_collections.kubesched.scheduler.plugins.module_utils import clusterrole
    from ansible_collections.kubesched.scheduler.plugins.module_utils.lock import lock_converge
    from ansible_collections.kubesched.scheduler.tests.unit.utils.engine_fakes import NAME, FakeKube, lock

    monkeypatch.setattr(clusterrole, "run", lambda connect, params, check_mode=False: {"changed": False})  # patch mode's own tests

    class Cluster(FakeKube):  # FakeKube hides system:kube-scheduler from the engine's tests; this one serves it
        def get(self, kind, name, namespace=None, api_version=None):
            if (kind, name) == ("ClusterRole", "system:kube-scheduler"):
                return copy.deepcopy(self.store.get((kind, None, name)))
            return super().get(kind, name, namespace, api_version)

    kube = Cluster()
    params = lock(mode="dedicated")
    system = yaml.safe_load((FIXTURES / "system-kube-scheduler-1.37.yaml").read_text())
    kube.put({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "system:kube-scheduler"}, "rules": system["rules"]})
    lock_converge(kube, params, "present", False)
    assert lock_converge(kube, params, "present", False) == []
    gated = yaml.safe_load((FIXTURES / "system-kube-scheduler-1.37-GenericWorkload.yaml").read_text())
    kube.put({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "system:kube-scheduler"}, "rules": gated["rules"]})
    changes = lock_converge(kube, params, "present", False)
    assert changes == [
        f"ClusterRole {NAME}-scheduler (rules of system:kube-scheduler added: podgroups.scheduling.k8s.io get,list,watch; "
        "podgroups/status.scheduling.k8s.io patch,update)"
    ]
    assert lock_converge(kube, params, "present", False) == []
