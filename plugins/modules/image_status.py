#!/usr/bin/python
# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: image_status
short_description: Tell whether a kube-scheduler image is built and pushed, in one read of the build host
version_added: 0.1.0
author:
  - kubesched maintainers (@kubesched)
description:
  - Reads on the build host what the role P(kubesched.scheduler.image#role) needs before it prepares a build context,
    builds and pushes, in one process.
  - The sha256 of O(binary), and the key of the image's inputs (RV(inputs)), from the binary's sha256, O(base), O(user),
    O(version), O(name) and the Dockerfile template O(dockerfile).
  - The label C(io.kubesched.inputs) of the image O(image) at O(tag) in the store of O(builder) (C(docker image inspect)
    or C(podman image inspect)).
  - With O(target=registry), whether the registry holds the tag (the registry API, asked as
    M(kubesched.scheduler.image_digest) asks it).
  - The image is current when its label holds RV(inputs) and, for a registry, the registry holds the tag. The role
    then skips the context, the build and the push.
  - Whatever it cannot be sure of (no engine command, an image it cannot read, a registry that refuses or does not
    answer, O(target=kind), where C(kind load) decides per node) reads as not current, and RV(reasons) says why; the
    role then takes its full path. Nothing is changed.
options:
  binary:
    description: The kube-scheduler binary the image packages.
    type: path
    required: true
  base:
    description: The base image of the Dockerfile.
    type: str
    required: true
  user:
    description: The image's numeric user, or empty.
    type: str
    default: ""
  version:
    description: The Kubernetes version of the binary.
    type: str
    required: true
  name:
    description: The scheduler's name.
    type: str
    required: true
  dockerfile:
    description: The text of the Dockerfile template, part of the image's key.
    type: str
    required: true
  image:
    description: The image repository, without tag or digest.
    type: str
    required: true
  tag:
    description: The image tag.
    type: str
    required: true
  builder:
    description: The container engine whose image store is read.
    type: str
    choices: [docker, podman]
    default: docker
  target:
    description: Where the image goes. V(registry) also asks the registry for the tag; V(kind) is never current here.
    type: str
    choices: [registry, kind, local]
    default: registry
  registry_url:
    description: Base URL of the registry's API; empty derives it from O(image).
    type: str
    default: ""
  username:
    description: The registry user, when it asks. Empty asks anonymously.
    type: str
    default: ""
  password:
    description: The password or token of O(username). Never returned or shown.
    type: str
    default: ""
  validate_certs:
    description: Whether the registry's TLS certificates are verified.
    type: bool
    default: true
extends_documentation_fragment:
  - kubesched.scheduler._attributes.info_module
seealso:
  - module: kubesched.scheduler.build_status
  - module: kubesched.scheduler.image_digest
"""

EXAMPLES = r"""
- name: Is the image of this binary built and pushed already?
  kubesched.scheduler.image_status:
    binary: /var/tmp/kubesched/src/my-scheduler/_output/local/bin/linux/amd64/kube-scheduler
    base: busybox
    version: v1.37.2
    name: my-scheduler
    dockerfile: "{{ lookup('ansible.builtin.file', 'Dockerfile.j2') }}"
    image: localhost:5001/my-scheduler
    tag: v1.37.2
  register: image
"""

RETURN = r"""
current:
  description: Whether the engine holds the image of these inputs and, with O(target=registry), the registry holds the tag.
  returned: always
  type: bool
  sample: true
reasons:
  description: Why the image is not current; empty when it is.
  returned: always
  type: list
  elements: str
  sample: ["the image localhost:5001/my-scheduler:v1.37.2 was built from other inputs"]
binary_exists:
  description: Whether O(binary) exists.
  returned: always
  type: bool
  sample: true
binary_sha256:
  description: The sha256 of O(binary); empty when it does not exist.
  returned: always
  type: str
inputs:
  description: The image's key, which its label C(io.kubesched.inputs) holds when it was built from these inputs.
  returned: always
  type: str
registry_tag_exists:
  description: Whether the registry holds the tag; null when it could not tell.
  returned: when O(target=registry) and the image is built from these inputs
  type: bool
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kubesched.scheduler.plugins.module_utils.artifacts import image_state
from ansible_collections.kubesched.scheduler.plugins.module_utils.registry import RegistryError, manifest_digest

OPTIONS = {
    "binary": {"type": "path", "required": True},
    "base": {"type": "str", "required": True},
    "user": {"type": "str", "default": ""},
    "version": {"type": "str", "required": True},
    "name": {"type": "str", "required": True},
    "dockerfile": {"type": "str", "required": True},
    "image": {"type": "str", "required": True},
    "tag": {"type": "str", "required": True},
    "builder": {"type": "str", "choices": ["docker", "podman"], "default": "docker"},
    "target": {"type": "str", "choices": ["registry", "kind", "local"], "default": "registry"},
    "registry_url": {"type": "str", "default": ""},
    "username": {"type": "str", "default": ""},
    "password": {"type": "str", "default": "", "no_log": True},
    "validate_certs": {"type": "bool", "default": True},
}


def main():
    module = AnsibleModule(argument_spec=OPTIONS, supports_check_mode=True)
    params = module.params

    def run(argv, env):
        executable = module.get_bin_path(argv[0])
        if not executable:
            return 127, "", f"{argv[0]} not found"
        try:
            return module.run_command([executable] + argv[1:], environ_update=env, expand_user_and_vars=False, handle_exceptions=False)
        except OSError as exc:
            return 127, "", str(exc)

    def tag_exists():
        try:
            manifest_digest(
                params["image"],
                params["tag"],
                registry_url=params["registry_url"],
                username=params["username"],
                password=params["password"],
                validate_certs=params["validate_certs"],
            )
        except RegistryError as exc:
            return False if exc.kind == "missing" else None
        except ValueError:
            return None
        return True

    state = image_state(
        run,
        module.sha256,
        tag_exists,
        dict(params, reference=f"{params['image']}:{params['tag']}"),
    )
    module.exit_json(changed=False, **state)


if __name__ == "__main__":
    main()
