# Sourced by benchmarks/run.sh and benchmarks/backlog-drift.sh, from the project's root: the venv's tools on PATH,
# the Kubernetes version (KUBE_VERSION, default: the default version of hack/kind/versions.env), its kind cluster's
# context and its source repository (hack/k8s-source.sh), the venv's Python, and source_vars: the variables every
# benchmark's install of a second scheduler starts from (JSON).
# shellcheck shell=bash disable=SC2034
export PATH=$PWD/.venv/bin:$PATH ANSIBLE_NOCOLOR=1
version=$(. hack/kind/versions.env && echo "$KUBE_VERSION")
context=$(KUBE_VERSION=$version hack/kind/cluster.sh context)
repo=$(hack/k8s-source.sh "$version")
py=$PWD/.venv/bin/python
source_vars=$(jq -cn --arg repo "$repo" --arg v "$version" --arg gocache "$(go env GOCACHE)" --arg ctx "$context" --arg py "$py" \
  '{kube_scheduler_source_repo: $repo, kube_scheduler_version: $v, kube_scheduler_build_env: {FORCE_HOST_GO: "y", GOCACHE: $gocache},
    kube_scheduler_context: $ctx, ansible_python_interpreter: $py}')
