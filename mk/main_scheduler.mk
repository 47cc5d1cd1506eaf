# The cluster's main scheduler changed and put back (molecule/main_scheduler), in `make test` on the CI cluster
# (kind-kubesched and its node kubesched-control-plane, Kubernetes $(KUBE_VERSION)). Another version's cluster:
#   make main-scheduler KUBE_VERSION=v1.35.4   (its cluster kind-kubesched-1-35, brought up when it is not)
.PHONY: main-scheduler
MAIN_SCHEDULER_CLUSTER = $(if $(filter $(KUBE_VERSION),$(shell . $(KIND)/versions.env && echo $$DEFAULT_KUBE_VERSION)),kubesched,kubesched-$(subst .,-,$(patsubst v%,%,$(basename $(KUBE_VERSION)))))
MAIN_SCHEDULER_WORK_DIR = $(if $(filter kubesched,$(MAIN_SCHEDULER_CLUSTER)),/var/tmp/kubesched,/var/tmp/kubesched/compact-$(KUBE_VERSION))

main-scheduler: install ## molecule test -s main_scheduler: the main scheduler's configuration and image changed, refused, rolled back, kept by kubeadm, restored byte for byte
	$(VENV)/bin/molecule reset -s main_scheduler >/dev/null 2>&1 || true
	KUBESCHED_CONTEXT=kind-$(MAIN_SCHEDULER_CLUSTER) KUBESCHED_NODE=$(MAIN_SCHEDULER_CLUSTER)-control-plane \
	  KUBESCHED_KUBE_VERSION=$(KUBE_VERSION) KUBESCHED_WORK_DIR=$(MAIN_SCHEDULER_WORK_DIR) \
	  $(VENV)/bin/molecule test -s main_scheduler
