# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Connection options and API client shared by the collection's modules.

The options and their K8S_AUTH_* environment fallbacks follow kubernetes.core, so a play can set
them once for every module through the ``kubesched.scheduler.k8s`` action group (module_defaults).
Documented by the ``kubesched.scheduler.k8s_auth`` doc fragment, which mirrors this spec.
"""

from __future__ import annotations

import copy
import traceback

from ansible.module_utils.basic import env_fallback, missing_required_lib

try:
    from kubernetes import client as k8s_client
    from kubernetes import config as k8s_config

    HAS_KUBERNETES = True
    KUBERNETES_IMPORT_ERROR = None
except ImportError:
    HAS_KUBERNETES = False
    KUBERNETES_IMPORT_ERROR = traceback.format_exc()

CONNECTION_ARG_SPEC = {
    "kubeconfig": {"type": "path", "fallback": (env_fallback, ["K8S_AUTH_KUBECONFIG"])},
    "context": {"type": "str", "fallback": (env_fallback, ["K8S_AUTH_CONTEXT"])},
    "host": {"type": "str", "fallback": (env_fallback, ["K8S_AUTH_HOST"])},
    "api_key": {"type": "str", "no_log": True, "fallback": (env_fallback, ["K8S_AUTH_API_KEY"])},
    "validate_certs": {"type": "bool", "aliases": ["verify_ssl"], "fallback": (env_fallback, ["K8S_AUTH_VERIFY_SSL"])},
    "ca_cert": {"type": "path", "aliases": ["ssl_ca_cert"], "fallback": (env_fallback, ["K8S_AUTH_SSL_CA_CERT"])},
    "client_cert": {"type": "path", "aliases": ["cert_file"], "fallback": (env_fallback, ["K8S_AUTH_CERT_FILE"])},
    "client_key": {"type": "path", "aliases": ["key_file"], "no_log": False, "fallback": (env_fallback, ["K8S_AUTH_KEY_FILE"])},
    "proxy": {"type": "str", "fallback": (env_fallback, ["K8S_AUTH_PROXY"])},
}


def connection_arg_spec():
    """A fresh copy of the connection options, for a module to extend."""
    return copy.deepcopy(CONNECTION_ARG_SPEC)


def require_kubernetes(module):
    if not HAS_KUBERNETES:
        module.fail_json(msg=missing_required_lib("kubernetes"), exception=KUBERNETES_IMPORT_ERROR)


def api_client(module):
    """An authenticated kubernetes.client.ApiClient built from the module's connection options."""
    require_kubernetes(module)
    params = module.params
    configuration = k8s_client.Configuration()
    try:
        if params.get("host") and not params.get("kubeconfig"):
            configuration.host = params["host"]
        elif params.get("kubeconfig") or not _in_cluster():
            k8s_config.load_kube_config(
                config_file=params.get("kubeconfig"),
                context=params.get("context"),
                client_configuration=configuration,
            )
        else:
            k8s_config.load_incluster_config(client_configuration=configuration)
    except Exception as exc:  # the kubernetes client raises several unrelated types here
        module.fail_json(msg=f"Cannot load the Kubernetes connection settings: {exc}", exception=traceback.format_exc())
    if params.get("host"):
        configuration.host = params["host"]
    if params.get("api_key"):
        configuration.api_key = {"authorization": f"Bearer {params['api_key']}"}
    if params.get("validate_certs") is not None:
        configuration.verify_ssl = params["validate_certs"]
    for option, attribute in (("ca_cert", "ssl_ca_cert"), ("client_cert", "cert_file"), ("client_key", "key_file"), ("proxy", "proxy")):
        if params.get(option):
            setattr(configuration, attribute, params[option])
    return k8s_client.ApiClient(configuration)


def _in_cluster():
    import os

    return bool(os.environ.get("KUBERNETES_SERVICE_HOST")) and os.path.exists("/var/run/secrets/kubernetes.io/serviceaccount/token")
