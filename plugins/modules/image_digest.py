#!/usr/bin/python
# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: image_digest
short_description: Read the digest a container registry holds for an image tag
version_added: 0.1.0
author:
  - kubesched maintainers (@kubesched)
description:
  - Asks the registry of O(image) for the manifest of O(tag) with a C(HEAD) request of the registry API
    (C(/v2/<path>/manifests/<tag>), accepting OCI and Docker manifests and indexes) and returns the
    C(Docker-Content-Digest) the registry answers with, and the reference C(image:tag@digest).
  - A registry that answers C(HEAD) without C(Docker-Content-Digest) is asked again with C(GET), and the
    digest is the C(sha256) of the manifest it returns.
  - Authenticates as the registry's C(WWW-Authenticate) challenge asks. With C(Basic) it sends O(username)
    and O(password). With C(Bearer) (the distribution token flow of Docker Hub, GHCR, GitLab, Harbor and
    others) it asks the challenge's C(realm) for a token for its C(service) and C(scope) (by default
    C(repository:<path>:pull)), with O(username) and O(password) when they are set and anonymously
    otherwise, and asks again with that token.
  - Nothing is changed anywhere; the module only reads. It needs no container engine and no Kubernetes
    connection.
options:
  image:
    description:
      - The image repository, without tag or digest, for example C(localhost:5001/my-scheduler),
        C(ghcr.io/org/my-scheduler) or C(busybox).
      - Docker's rules name the registry. The first component is the registry host when the image has a C(/)
        and that component holds a C(.) or a C(:) or is C(localhost); otherwise the registry is Docker Hub,
        where a name without C(/) is in C(library/).
    type: str
    required: true
  tag:
    description: The tag to look up.
    type: str
    required: true
  registry_url:
    description:
      - Base URL of the registry's API. Empty derives it from O(image) (C(http://) for hosts that start with
        C(localhost) or C(127.), C(https://) for the others, C(https://registry-1.docker.io) for Docker Hub).
    type: str
    default: ""
  username:
    description: The user to authenticate as, when the registry asks. Empty asks anonymously.
    type: str
    default: ""
  password:
    description: The password or access token of O(username). It is never returned or shown.
    type: str
    default: ""
  timeout:
    description: Seconds to wait for each answer (of the registry and of its token service).
    type: int
    default: 10
  validate_certs:
    description: Whether the TLS certificates of the registry and of its token service are verified.
    type: bool
    default: true
  must_exist:
    description:
      - V(true) fails when the registry has no such tag (HTTP 404).
      - V(false) returns RV(exists=false) instead, for example to decide whether to push. The other failures
        (no answer, a refusal, an answer that is not the registry API's) fail the module either way.
    type: bool
    default: true
extends_documentation_fragment:
  - kubesched.scheduler._attributes.info_module
notes:
  - The module fails with a message that names the cause, the registry and the image; RV(error) tells the
    kind of failure. Neither the password nor a token is ever in a message or a result.
  - Redirects are followed; the credentials are sent only to the scheme and host they were meant for.
  - Proxies are taken from the environment (E(https_proxy), E(http_proxy), E(no_proxy)).
seealso:
  - name: OCI distribution specification
    description: The registry API, and its manifest requests.
    link: https://github.com/opencontainers/distribution-spec/blob/main/spec.md
  - name: Token authentication specification
    description: The token flow of the Bearer challenge.
    link: https://distribution.github.io/distribution/spec/auth/token/
"""

EXAMPLES = r"""
- name: Read the digest of my-scheduler:v1.37.2 from the local registry
  kubesched.scheduler.image_digest:
    image: localhost:5001/my-scheduler
    tag: v1.37.2
  register: scheduler_image

- name: Deploy exactly that image
  ansible.builtin.debug:
    msg: "{{ scheduler_image.reference }}"

- name: Is the tag in a private registry already?
  kubesched.scheduler.image_digest:
    image: registry.example.com/platform/my-scheduler
    tag: "{{ kube_scheduler_version }}"
    username: "{{ registry_user }}"
    password: "{{ registry_token }}"
    must_exist: false
  register: pushed
  no_log: true

- name: A public image of Docker Hub, with an anonymous token
  kubesched.scheduler.image_digest:
    image: busybox
    tag: "1.36"
"""

RETURN = r"""
digest:
  description: The digest the registry holds for the tag; empty when RV(exists=false).
  returned: success
  type: str
  sample: sha256:9ae97d36d26566ff84e8893c64a6dc4fe8ca6d1144bf5b87b2b85a32def253c7
reference:
  description: The image at the tag and the digest, C(image:tag@digest); empty when RV(exists=false).
  returned: success
  type: str
  sample: localhost:5001/my-scheduler:v1.37.2@sha256:9ae97d36d26566ff84e8893c64a6dc4fe8ca6d1144bf5b87b2b85a32def253c7
exists:
  description: Whether the registry has the tag (always V(true) when O(must_exist=true) and the module succeeds).
  returned: always
  type: bool
  sample: true
status:
  description: The HTTP status of the registry's last answer; null when it did not answer.
  returned: always
  type: int
  sample: 200
url:
  description: The manifest URL that was asked (or, when the module failed, the URL of the request that failed).
  returned: when the image and the tag are valid
  type: str
  sample: http://localhost:5001/v2/my-scheduler/manifests/v1.37.2
error:
  description:
    - Why the module failed. V(unreachable) (no answer, a timeout, a TLS error, HTTP 429 or 5xx), V(denied)
      (HTTP 401 or 403 after authenticating), V(missing) (HTTP 404), V(invalid) (an answer that is not the
      registry API's, for example no valid digest) or V(argument) (O(image) or O(tag) is not valid).
  returned: failure
  type: str
  sample: denied
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kubesched.scheduler.plugins.module_utils.registry import RegistryError, manifest_digest, manifest_url

OPTIONS = {
    "image": {"type": "str", "required": True},
    "tag": {"type": "str", "required": True},
    "registry_url": {"type": "str", "default": ""},
    "username": {"type": "str", "default": ""},
    "password": {"type": "str", "default": "", "no_log": True},
    "timeout": {"type": "int", "default": 10},
    "validate_certs": {"type": "bool", "default": True},
    "must_exist": {"type": "bool", "default": True},
}


def main():
    module = AnsibleModule(argument_spec=OPTIONS, supports_check_mode=True)
    params = module.params
    image, tag = params["image"], params["tag"]
    result = {"changed": False, "exists": False, "digest": "", "reference": "", "status": None}
    try:
        result["url"] = manifest_url(image, tag, params["registry_url"])
        digest = manifest_digest(
            image,
            tag,
            registry_url=params["registry_url"],
            username=params["username"],
            password=params["password"],
            timeout=params["timeout"],
            validate_certs=params["validate_certs"],
        )
    except ValueError as exc:
        module.fail_json(msg=str(exc), error="argument", **result)
    except RegistryError as exc:
        result.update(status=exc.status, url=exc.url)
        if exc.kind == "missing" and not params["must_exist"]:
            module.exit_json(**result)
        module.fail_json(msg=exc.message, error=exc.kind, **result)
    result.update(exists=True, digest=digest, reference=f"{image}:{tag}@{digest}", status=200)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
