# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Connection options shared by the collection's modules (mirrors module_utils/k8s_connection.py)."""

from __future__ import annotations


class ModuleDocFragment:
    DOCUMENTATION = r"""
options:
  kubeconfig:
    description:
      - Path to a kubeconfig file. Defaults to C(~/.kube/config) when neither O(host) nor an in-cluster
        service account is available.
      - Can also be set with the E(K8S_AUTH_KUBECONFIG) environment variable.
    type: path
  context:
    description:
      - The kubeconfig context to use. Can also be set with E(K8S_AUTH_CONTEXT).
    type: str
  host:
    description:
      - The URL of the Kubernetes API server. Can also be set with E(K8S_AUTH_HOST).
    type: str
  api_key:
    description:
      - A bearer token for the API server. Can also be set with E(K8S_AUTH_API_KEY).
    type: str
  validate_certs:
    description:
      - Whether to verify the API server's certificate. Can also be set with E(K8S_AUTH_VERIFY_SSL).
    type: bool
    aliases: [verify_ssl]
  ca_cert:
    description:
      - Path to a CA certificate for the API server. Can also be set with E(K8S_AUTH_SSL_CA_CERT).
    type: path
    aliases: [ssl_ca_cert]
  client_cert:
    description:
      - Path to a client certificate. Can also be set with E(K8S_AUTH_CERT_FILE).
    type: path
    aliases: [cert_file]
  client_key:
    description:
      - Path to the client certificate's key. Can also be set with E(K8S_AUTH_KEY_FILE).
    type: path
    aliases: [key_file]
  proxy:
    description:
      - An HTTP proxy URL for the API connection. Can also be set with E(K8S_AUTH_PROXY).
    type: str
requirements:
  - python >= 3.9
  - kubernetes >= 24.2.0
"""
