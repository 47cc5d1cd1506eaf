#!/usr/bin/python
# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: build_status
short_description: Tell whether a kube-scheduler build is current, in one read of the build host
version_added: 0.1.0
author:
  - kubesched maintainers (@kubesched)
description:
  - Reads on the build host what the role P(kubesched.scheduler.build#role) needs before it clones and compiles, in
    one process. The tools C(git), C(make) and C(go) on the E(PATH) of O(build_env); the build host's platform
    (C(go env GOHOSTOS GOHOSTARCH)) unless O(build_platform) is given; the commit O(source_ref) names in
    O(source_repo) (C(git ls-remote)); the commit checked out in O(source_dir) and whether it has local changes;
    the toolchain (C(go version)); the build record O(record) and the checksum of the build output; and the
    binary's C(--version).
  - The build is current when the checkout is at the commit the ref names without local changes, and the record
    holds the key of these inputs (RV(inputs)) and the output's checksum, as the role wrote it after the last
    build. The role then skips the clone and the build.
  - Whatever it cannot be sure of (a ref that names several refs, a checkout elsewhere or changed, no record) reads
    as not current, and RV(reasons) says why; the role then takes its full path. Nothing is changed.
options:
  source_repo:
    description: Git URL of the source.
    type: str
    required: true
  source_ref:
    description: Branch, tag or commit of O(source_repo) to build.
    type: str
    required: true
  source_dir:
    description: The checkout of the source on the build host.
    type: path
    required: true
  build_command:
    description: The build command, part of the build's key.
    type: str
    required: true
  build_output:
    description:
      - The built binary, relative to O(source_dir). Empty for C(_output/local/bin/<platform>/kube-scheduler), where
        C(make WHAT=cmd/kube-scheduler) leaves it.
    type: str
    default: ""
  build_env:
    description: Environment of the build (and of every command this module runs), part of the build's key.
    type: dict
    default: {}
  build_platform:
    description: C(GOOS/GOARCH) to build for; empty for the build host's own.
    type: str
    default: ""
  record:
    description: The build record the role writes after a build, C(<inputs> <sha1 of the output>).
    type: path
    required: true
  version_check:
    description: Whether to read the binary's C(--version) (RV(version)) when the build is current.
    type: bool
    default: true
extends_documentation_fragment:
  - kubesched.scheduler._attributes.info_module
notes:
  - RV(inputs) is the key the role records after a build, so that a build is skipped only when the same commit, command,
    output path, environment and toolchain built the binary that is there.
seealso:
  - module: kubesched.scheduler.image_status
"""

EXAMPLES = r"""
- name: Is kube-scheduler v1.37.2 built already?
  kubesched.scheduler.build_status:
    source_repo: https://github.com/kubernetes/kubernetes.git
    source_ref: v1.37.2
    source_dir: /var/tmp/kubesched/src/my-scheduler
    build_command: make WHAT=cmd/kube-scheduler
    record: /var/tmp/kubesched/state/build-my-scheduler
  register: build

- name: Say why it is not
  ansible.builtin.debug:
    msg: "{{ build.reasons | join('; ') }}"
  when: not build.current
"""

RETURN = r"""
current:
  description: Whether the binary in O(source_dir) was built from these inputs, so nothing is left to do.
  returned: always
  type: bool
  sample: true
built:
  description:
    - Whether the build output in O(source_dir) is the one the record says these inputs built, whatever commit the
      checkout is at (the test of the role's compile step, after its clone).
  returned: always
  type: bool
  sample: true
reasons:
  description: Why the build is not current; empty when it is.
  returned: always
  type: list
  elements: str
  sample: ["the checkout /var/tmp/kubesched/src/my-scheduler is not at v1.37.2 (6c1f8a5e2b0d)"]
missing_tools:
  description: Which of C(git), C(make) and C(go) the build host lacks.
  returned: always
  type: list
  elements: str
  sample: []
host_platform:
  description: The build host's C(GOOS/GOARCH); empty when O(build_platform) is given.
  returned: always
  type: str
  sample: linux/amd64
go_cache:
  description: The build host's Go build cache (C(go env GOCACHE) in the build's environment), which the build uses.
  returned: when the tools were found
  type: str
  sample: /root/.cache/go-build
output:
  description: The build output's path relative to O(source_dir).
  returned: when the tools were found
  type: str
  sample: _output/local/bin/linux/amd64/kube-scheduler
ls_remote:
  description: C(rc), C(stdout) and C(stderr) of C(git ls-remote -- <source_repo> <source_ref> <source_ref>^{}).
  returned: when the tools were found
  type: dict
commit:
  description: The commit checked out in O(source_dir); empty when there is no checkout.
  returned: always
  type: str
  sample: 6c1f8a5e2b0d41f2c4f5b0e8f6a1d2e3c4b5a697
inputs:
  description: The build's key (sha256 of the commit, command, output path, environment and C(go version)).
  returned: always
  type: str
go_version:
  description: What C(go version) printed in the build's environment.
  returned: when the tools were found
  type: str
  sample: go version go1.26.8 linux/amd64
binary:
  description: The binary's path, when the build is current.
  returned: when RV(current) is true
  type: str
  sample: /var/tmp/kubesched/src/my-scheduler/_output/local/bin/linux/amd64/kube-scheduler
version:
  description: What the binary's C(--version) printed, when the build is current and O(version_check) is true.
  returned: always
  type: str
  sample: Kubernetes v1.37.2
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kubesched.scheduler.plugins.module_utils.artifacts import build_state

OPTIONS = {
    "source_repo": {"type": "str", "required": True},
    "source_ref": {"type": "str", "required": True},
    "source_dir": {"type": "path", "required": True},
    "build_command": {"type": "str", "required": True},
    "build_output": {"type": "str", "default": ""},
    "build_env": {"type": "dict", "default": {}},
    "build_platform": {"type": "str", "default": ""},
    "record": {"type": "path", "required": True},
    "version_check": {"type": "bool", "default": True},
}


def runner(module):
    """``run(argv, env)`` on the build host: (rc, stdout, stderr); a command that cannot start is rc 127."""

    def run(argv, env):
        try:
            return module.run_command(argv, environ_update=env, expand_user_and_vars=False, handle_exceptions=False)
        except OSError as exc:
            return 127, "", str(exc)

    return run


def read(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return None


def main():
    module = AnsibleModule(argument_spec=OPTIONS, supports_check_mode=True)
    state = build_state(runner(module), read, module.sha1, module.params)
    error = state.pop("error", None)
    if error:
        module.fail_json(msg=error, changed=False, **state)
    module.exit_json(changed=False, **state)


if __name__ == "__main__":
    main()
