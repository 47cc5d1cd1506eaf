"""Unit tests for the shared connection options and API client (plugins/module_utils/k8s_connection.py)."""

import pytest

from ansible_collections.kubesched.scheduler.plugins.module_utils import k8s_connection


class FakeModule:
    def __init__(self, **params):
        self.params = dict.fromkeys(k8s_connection.CONNECTION_ARG_SPEC)
        self.params.update(params)

    def fail_json(self, **kwargs):
        raise AssertionError(kwargs["msg"])


def test_arg_spec_is_a_fresh_copy():
    spec = k8s_connection.connection_arg_spec()
    spec["kubeconfig"]["type"] = "str"
    assert k8s_connection.CONNECTION_ARG_SPEC["kubeconfig"]["type"] == "path"


@pytest.mark.parametrize(
    ("option", "variable"),
    [("kubeconfig", "K8S_AUTH_KUBECONFIG"), ("context", "K8S_AUTH_CONTEXT"), ("host", "K8S_AUTH_HOST"), ("api_key", "K8S_AUTH_API_KEY")],
)
def test_options_fall_back_to_the_kubernetes_core_environment(option, variable):
    assert k8s_connection.CONNECTION_ARG_SPEC[option]["fallback"][1] == [variable]


def test_secrets_are_not_logged():
    assert k8s_connection.CONNECTION_ARG_SPEC["api_key"]["no_log"] is True


def test_host_and_token_without_kubeconfig():
    client = k8s_connection.api_client(FakeModule(host="https://api.example:6443", api_key="t0ken", validate_certs=False, ca_cert="/ca.pem"))
    conf = client.configuration
    assert conf.host == "https://api.example:6443"
    assert conf.api_key == {"authorization": "Bearer t0ken"}
    assert conf.verify_ssl is False
    assert conf.ssl_ca_cert == "/ca.pem"


def test_kubeconfig_and_context(tmp_path):
    kubeconfig = tmp_path / "config"
    kubeconfig.write_text(
        """
apiVersion: v1
kind: Config
clusters:
  - name: a
    cluster: {server: "https://a.example:6443"}
  - name: b
    cluster: {server: "https://b.example:6443"}
users:
  - name: u
    user: {token: secret}
contexts:
  - name: ctx-a
    context: {cluster: a, user: u}
  - name: ctx-b
    context: {cluster: b, user: u}
current-context: ctx-a
""",
        encoding="utf-8",
    )
    assert k8s_connection.api_client(FakeModule(kubeconfig=str(kubeconfig))).configuration.host == "https://a.example:6443"
    assert k8s_connection.api_client(FakeModule(kubeconfig=str(kubeconfig), context="ctx-b")).configuration.host == "https://b.example:6443"


def test_unreadable_kubeconfig_fails_with_a_clear_message(tmp_path):
    with pytest.raises(AssertionError, match="Cannot load the Kubernetes connection settings"):
        k8s_connection.api_client(FakeModule(kubeconfig=str(tmp_path / "missing")))
