# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The modules' ApiClient: kubernetes.core's connection options, without its dynamic client's discovery."""

from __future__ import annotations

import pytest
from ansible_collections.kubernetes.core.plugins.module_utils.k8s import client as core

from ansible_collections.kubesched.scheduler.plugins.module_utils import k8s_module
from ansible_collections.kubesched.scheduler.plugins.module_utils.k8s_module import describe_api_error
from ansible_collections.kubesched.scheduler.tests.unit.utils.placement_records import FORBIDDEN_LEASES

KUBECONFIG = """
apiVersion: v1
kind: Config
clusters:
  - name: one
    cluster: {server: "https://127.0.0.1:16443", insecure-skip-tls-verify: true}
  - name: two
    cluster: {server: "https://127.0.0.2:16443/", insecure-skip-tls-verify: true}
users:
  - name: u
    user: {token: secret-token}
contexts:
  - name: kind-one
    context: {cluster: one, user: u}
  - name: kind-two
    context: {cluster: two, user: u}
current-context: kind-one
"""


class Module:
    def __init__(self, **params):
        self.params = {name: None for name in k8s_module.argument_spec()}
        self.params.update(params)


@pytest.fixture
def kubeconfig(tmp_path, monkeypatch):
    for name in ("K8S_AUTH_KUBECONFIG", "K8S_AUTH_CONTEXT", "K8S_AUTH_HOST", "K8S_AUTH_API_KEY", "KUBECONFIG"):
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "config"
    path.write_text(KUBECONFIG)

    def no_discovery(*args, **kwargs):
        raise AssertionError("get_api_client (and its API discovery) was called")

    monkeypatch.setattr(core, "get_api_client", no_discovery)
    return str(path)


def test_the_context_and_the_credentials_of_the_kubeconfig(kubeconfig):
    api = k8s_module.api_client(Module(kubeconfig=kubeconfig, context="kind-two"))
    assert api.configuration.host == "https://127.0.0.2:16443"
    assert "Bearer secret-token" in api.configuration.api_key.values()
    assert api.configuration.verify_ssl is False


def test_impersonation_headers_and_the_environment(kubeconfig, monkeypatch):
    monkeypatch.setenv("K8S_AUTH_KUBECONFIG", kubeconfig)
    api = k8s_module.api_client(Module(impersonate_user="alice", impersonate_groups=["ops"]))
    assert api.configuration.host == "https://127.0.0.1:16443"
    assert api.default_headers["Impersonate-User"] == "alice"
    assert "ops" in api.default_headers.values()


def test_an_unknown_context_is_kubernetes_cores_error(kubeconfig):
    with pytest.raises(core.CoreException, match="Could not create API client: .*nope"):
        k8s_module.api_client(Module(kubeconfig=kubeconfig, context="nope"))


def test_other_helpers_fall_back_to_get_api_client(monkeypatch):
    sentinel = object()

    class Built:
        class client:  # noqa: N801 - the shape of kubernetes.core's K8SClient
            client = sentinel

    monkeypatch.delattr(core, "_create_headers")
    monkeypatch.setattr(core, "get_api_client", lambda module: Built)
    assert k8s_module.api_client(Module()) is sentinel


def test_describe_api_error(api_error):
    assert describe_api_error(api_error(403, "Forbidden", FORBIDDEN_LEASES)) == f"API request failed (403): {FORBIDDEN_LEASES}"
    assert describe_api_error(ValueError("bad")) == "bad"
