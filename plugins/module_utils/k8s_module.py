# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The shape every module of the collection shares: a thin module over a ``run()`` in module_utils.

The connection is kubernetes.core's: its options (``AUTH_ARG_SPEC``, documented by the
``kubernetes.core.k8s_auth_options`` doc fragment, with the same ``K8S_AUTH_*`` environment
fallbacks, impersonation, proxy and in-memory kubeconfig) and its client (``get_api_client``). The
modules use the typed ``kubernetes.client`` APIs on the ``ApiClient`` underneath.

``run(connect, params, check_mode, diff)`` checks ``params``, calls ``connect()`` for the
``ApiClient`` when it needs the cluster, and returns the module's result; a result with a ``msg``
fails the module with that message and the rest of the result, and the ``warnings`` of a result are the
module's warnings.
"""

from __future__ import annotations

import copy
import json
import traceback

from ansible.module_utils.basic import AnsibleModule

# kubernetes.core is imported where it is used, so that the pure functions of the collection's
# module_utils (and the tools that import them) do not need it.


def argument_spec(**options):
    """kubernetes.core's connection options, plus the module's own."""
    from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC

    spec = copy.deepcopy(AUTH_ARG_SPEC)
    spec.update(options)
    return spec


def api_client(module):
    """The authenticated ``kubernetes.client.ApiClient`` of the module's connection options, built as kubernetes.core's
    ``get_api_client`` builds it (the options and their ``K8S_AUTH_*`` fallbacks, kubeconfig or in-cluster
    configuration, proxy, impersonation headers), without the dynamic client ``get_api_client`` wraps it in: that
    client's API discovery (``/version``, ``/api``, ``/apis`` and a cache file in the temporary directory, on every
    module run) serves lookups by kind, which the collection's REST calls by path do not make. Where kubernetes.core's
    helpers are not those this was written against, ``get_api_client`` itself builds it."""
    from ansible_collections.kubernetes.core.plugins.module_utils.k8s import client as core

    helpers = ("_create_auth_spec", "_create_configuration", "_create_headers", "_set_header")
    if not all(callable(getattr(core, helper, None)) for helper in helpers):
        return core.get_api_client(module=module).client.client
    try:
        configuration = core._create_configuration(core._create_auth_spec(module))
    except core.kubernetes.config.ConfigException as exc:  # get_api_client's own words for it
        raise core.CoreException(f"Could not create API client: {exc}") from exc
    api = core.kubernetes.client.ApiClient(configuration)
    for header, value in core._create_headers(module).items():
        core._set_header(api, header, value)
    return api


def api_error_status(exc: BaseException) -> int | None:
    """The HTTP status of a kubernetes client ApiException (duck-typed), or None."""
    status = getattr(exc, "status", None)
    return status if isinstance(status, int) else None


def describe_api_error(exc):
    """A one-line description of an API error, with the server's message when it sent a Status."""
    status = api_error_status(exc)
    if status is None:
        return str(exc)
    detail = getattr(exc, "reason", "") or ""
    body = getattr(exc, "body", None)
    if body:
        try:
            detail = json.loads(body).get("message") or detail
        except (TypeError, ValueError, AttributeError):
            detail = detail or str(body)[:200]
    return f"API request failed ({status}): {detail}".rstrip(": ")


def execute(options, run, failure):
    """Run a module: parse ``options`` (plus the connection options), call ``run`` and exit.

    :arg failure: what the module was doing, the start of the message of an unexpected error.
    """
    from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule

    module = AnsibleK8SModule(module_class=AnsibleModule, argument_spec=argument_spec(**options), supports_check_mode=True)
    try:
        result = run(lambda: api_client(module), module.params, check_mode=module.check_mode, diff=module._diff)
    except Exception as exc:  # the client raises ApiException, kubernetes.core's CoreException, urllib3 and socket errors
        module.fail_json(msg=f"{failure}: {describe_api_error(exc)}", exception=traceback.format_exc())
    for warning in result.pop("warnings", None) or []:
        module.warn(warning)
    msg = result.pop("msg", None)
    if msg:
        module.fail_json(msg=msg, **result)
    module.exit_json(**result)
