# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the collection's Kubernetes modules share in their documentation (private fragment): the note on their
connection options (kubernetes.core's, from the fragment kubernetes.core.k8s_auth_options) with the attributes of
kubesched.scheduler._attributes (``info_module`` for a module that only reads), the paged lists' page_size, and the
api_requests they return."""

from __future__ import annotations

from ansible_collections.kubesched.scheduler.plugins.doc_fragments._attributes import ATTRIBUTES, INFO_ATTRIBUTES

NOTES = r"""options: {}
notes:
  - The connection options are those of kubernetes.core, with the same E(K8S_AUTH_*) environment variables;
    set them once for both collections' modules with C(module_defaults) (the action groups
    C(group/kubesched.scheduler.k8s) and C(group/kubernetes.core.k8s)).
"""


# The composed sections annotated, as in _attributes (ansible-test's yamllint reads plain assignments as literals;
# tests/unit/plugins/doc_fragments/test_fragments.py lints them).
class ModuleDocFragment:
    DOCUMENTATION: str = NOTES + ATTRIBUTES

    INFO_MODULE: str = NOTES + INFO_ATTRIBUTES

    LIST_PAGES = r"""
options:
  page_size:
    description:
      - How many objects each list request asks for (its C(limit)); the rest of a list is read page by
        page with the C(continue) token the API server returns. Must be 1 or more.
      - Smaller pages keep the memory of the module and the load of each request on the API server low
        on large clusters, at the cost of more requests.
      - When a list takes so long that its C(continue) token expires (the API server answers 410 Gone,
        typically after about five minutes), the list is read again from its first page, once; a second
        expiry fails the module.
    type: int
    default: 500
"""

    RETURN = r"""
api_requests:
  description: Requests made to the API server.
  returned: always
  type: int
"""
