# The cluster's main scheduler changed and put back (molecule/main_scheduler) on the kind cluster of Kubernetes 1.35:
# KUBESCHED_CONTEXT (default kind-kubesched-1-35) and its control-plane node container KUBESCHED_NODE (default
# kubesched-1-35-control-plane); bring it up first with KUBE_VERSION=v1.35.4 make cluster.
.PHONY: main-scheduler
KUBESCHED_CONTEXT ?= kind-kubesched-1-35
KUBESCHED_NODE ?= kubesched-1-35-control-plane

main-scheduler: install ## molecule test -s main_scheduler: the main scheduler's configuration tried, rolled out, refused, restored byte for byte
	KUBESCHED_CONTEXT=$(KUBESCHED_CONTEXT) KUBESCHED_NODE=$(KUBESCHED_NODE) $(VENV)/bin/molecule test -s main_scheduler
