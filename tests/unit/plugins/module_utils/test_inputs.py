# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The roles' input checks without a cluster: each row of fixtures/bad_inputs.yml, merged over the role defaults,
goes through the roles' argument specs (as a role's validation does) and, when they accept it, through
check_common and check_deploy of module_utils/inputs.py; the row's message must be among what they say."""

from __future__ import annotations


import pytest
import yaml
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.kubesched.scheduler.plugins.module_utils import inputs
from ansible_collections.kubesched.scheduler.tests.unit.utils.engine_fakes import NAME
from ansible_collections.kubesched.scheduler.tests.unit.utils.preflight_fakes import POOL
from ansible_collections.kubesched.scheduler.tests.unit.utils.role_inputs import DEFAULTS, ROOT, SPEC, TEMPLATED, role_options, role_values

ROWS = yaml.safe_load((ROOT / "tests" / "unit" / "plugins" / "fixtures" / "bad_inputs.yml").read_text())["rows"]


def messages(given):
    """What the roles say about ``given``: the argument specs' errors, or else the checks' messages."""
    result = ArgumentSpecValidator(SPEC).validate(role_values(given), validate_role_argument_spec=True)
    if result.error_messages:
        return result.error_messages
    return inputs.check(list(inputs.CHECKS), result.validated_parameters)


def test_every_templated_default_is_resolved():
    templated = {name for name, value in DEFAULTS.items() if isinstance(value, str) and "{{" in value}
    assert templated == set(TEMPLATED)


def test_the_specs_and_the_defaults_name_the_same_variables():
    assert set(SPEC) == set(DEFAULTS)


def test_the_checks_read_only_variables_of_the_specs():
    assert set(inputs.COMMON_VARIABLES) <= set(role_options("common"))
    assert set(inputs.DEPLOY_VARIABLES) <= set(SPEC)
    assert set(inputs.SHARING_VARIABLES) <= set(SPEC)


def test_the_defaults_pass():
    assert messages({}) == []
    assert inputs.check_common(role_values({})) == []
    assert inputs.check_deploy(role_values({})) == []


@pytest.mark.parametrize("row", ROWS, ids=[" ".join(f"{name}={value}" for name, value in row["vars"].items()) for row in ROWS])
def test_bad_input_is_refused(row):
    said = messages(row["vars"])
    assert row["message"] in " ".join(said), said


@pytest.mark.parametrize(
    "given",
    [
        {"kube_scheduler_state": "absent", "kube_scheduler_replicas": "0", "kube_scheduler_lease_duration": "bad"},
        {"kube_scheduler_leader_elect": "false", "kube_scheduler_lease_duration": "10s", "kube_scheduler_renew_deadline": "10s"},
        {"kube_scheduler_replicas": "3"},
        {"kube_scheduler_cluster_version": "1.21"},
        {"kube_scheduler_render_dir": "/srv/kubesched-render", "kube_scheduler_cluster_version": "v1.22.17"},
        {"kube_scheduler_lock_name": "kube-scheduler", "kube_scheduler_lock_namespace": "locks"},
        {"kube_scheduler_lock_name": "my.scheduler.example.com"},
        {"kube_scheduler_lease_duration": "1m", "kube_scheduler_renew_deadline": "30s", "kube_scheduler_retry_period": "500ms"},
        {"kube_scheduler_client_qps": "0.5", "kube_scheduler_percentage_of_nodes_to_score": "100", "kube_scheduler_verbosity": "0"},
        {"kube_scheduler_tuning": "throughput"},
        {"kube_scheduler_profiles_extra": [{"schedulerName": "batch"}, {"schedulerName": "spread"}]},
        {"kube_scheduler_extra_args": ["--v=4", "--configz"], "kube_scheduler_image_digest": "sha256:" + "0a" * 32},
    ],
)
def test_good_input_passes(given):
    assert messages(given) == []


def test_every_message_is_given_at_once():
    said = messages({"kube_scheduler_name": "MyScheduler", "kube_scheduler_client_qps": "0", "kube_scheduler_verbosity": "-1"})
    assert [message.split(" ", 2)[:2] for message in said] == [
        ["kube_scheduler_name", "is"],
        ["kube_scheduler_lock_name", "is"],
        ["Check", "kube_scheduler_client_qps"],
        ["Check", "kube_scheduler_extra_args"],
    ]


def test_values_as_the_role_has_them():
    """In a role the values stay as given (-e gives strings, the argument spec converts nothing back)."""
    raw = role_values({"kube_scheduler_client_qps": "-5", "kube_scheduler_replicas": "2", "kube_scheduler_leader_elect": "no"})
    assert inputs.check_deploy(raw)[0].startswith("kube_scheduler_replicas is 2 and kube_scheduler_leader_elect is False:")
    assert "Check kube_scheduler_client_qps (-5), kube_scheduler_client_burst (100)" in inputs.check_deploy(raw)[1]
    assert inputs.check_deploy(role_values({"kube_scheduler_retry_period": 2}))[0].startswith("kube_scheduler_retry_period ('2') is not")


def test_missing_names_what_the_checks_read():
    assert inputs.missing(["common"], {"kube_scheduler_name": "x"}) == sorted(set(inputs.COMMON_VARIABLES) - {"kube_scheduler_name"})
    assert inputs.missing(["common", "deploy"], role_values({})) == []


# --- the node pool and routing inputs that pass --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "given",
    [
        {"kube_scheduler_node_pool": POOL},
        {"kube_scheduler_node_pool": {"labels": {"pool": "batch", "example.com/tier": 2}, "taint": {"key": "pool", "effect": "NoExecute"}}},
        {"kube_scheduler_node_pool": {"labels": {"pool": "batch"}}, "kube_scheduler_plugin_config": [{"name": "NodeResourcesFit", "args": {}}]},
        {"kube_scheduler_route_namespace_selector": {"matchLabels": {"kubesched.io/scheduler": NAME}}},
        {
            "kube_scheduler_route_namespace_selector": {
                "matchExpressions": [{"key": "team", "operator": "In", "values": ["a", "b"]}, {"key": "x", "operator": "Exists"}]
            }
        },
        {
            "kube_scheduler_route_namespace_selector": {"matchLabels": {"team": "a"}},
            "kube_scheduler_render_dir": "/srv/out",
            "kube_scheduler_cluster_version": "1.34",
        },
        {"kube_scheduler_route_namespace_selector": {"matchLabels": {}}, "kube_scheduler_node_pool": {"labels": {}}},
        {"kube_scheduler_state": "absent", "kube_scheduler_node_pool": {"labels": {"bad key!": "x"}}},
    ],
)
def test_good_sharing_input_passes(given):
    validated = ArgumentSpecValidator(SPEC).validate(role_values(given), validate_role_argument_spec=True)
    assert validated.error_messages == []
    assert inputs.check_sharing(validated.validated_parameters) == []
    assert inputs.check_sharing(role_values(given)) == []


@pytest.mark.parametrize(
    "given",
    [
        {"kube_scheduler_feature_gates": "GenericWorkload=true", "kube_scheduler_env": "HTTP2_READ_IDLE_TIMEOUT_SECONDS=5"},
        {"kube_scheduler_gang_scheduling": "true", "kube_scheduler_feature_gates": {"GenericWorkload": "yes"}},
        {"kube_scheduler_env": {"HTTP2_PING_TIMEOUT_SECONDS": 3, "GODEBUG": "x509sha1=1"}},
    ],
)
def test_gates_environment_and_gang_scheduling_given_well_pass(given):
    assert messages(given) == []
