#!/usr/bin/env bash
# make demo: on the kind cluster, the steps of the Kubernetes task "Configure Multiple Schedulers": clone Kubernetes
# at kube_scheduler_version (the local source repository hack/k8s-source.sh makes from the Go module proxy, since
# kubernetes.git is out of reach here), `make WHAT=cmd/kube-scheduler`, push the image to localhost:5001, deploy it as
# my-scheduler, then run the Kubernetes task's pod1/pod2/pod3 check and print the placement table.
# KUBE_VERSION (default: the default version of hack/kind/versions.env) picks the version and its kind cluster:
#   make demo KUBE_VERSION=v1.36.3   (the cluster kind-kubesched-1-36, brought up by make's cluster target)
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(. hack/kind/versions.env && echo "$KUBE_VERSION")
context=$(KUBE_VERSION=$version hack/kind/cluster.sh context)
repo=$(hack/k8s-source.sh "$version")
vars=(-e "kube_scheduler_source_repo=$repo" -e "kube_scheduler_version=$version"
      -e '{"kube_scheduler_build_env": {"FORCE_HOST_GO": "y"}}'
      -e "kube_scheduler_context=$context" -e "ansible_python_interpreter=$PWD/.venv/bin/python")
ansible-playbook playbooks/site.yml "${vars[@]}"
ansible-playbook playbooks/verify.yml "${vars[@]}"
