# kubesched.scheduler — run it: `make demo`; test it: `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV ?= .venv
PY := $(VENV)/bin/python
BUILD := build
COLLECTION_VERSION := $(shell sed -n 's/^version: *//p' galaxy.yml)
TARBALL := $(BUILD)/kubesched-scheduler-$(COLLECTION_VERSION).tar.gz
COLLECTIONS := $(abspath $(BUILD)/collections)
INSTALLED := $(COLLECTIONS)/ansible_collections/kubesched/scheduler
# The Python of .venv (>= 3.12, for ansible-core 2.21): hack/find-python.sh picks it, PYTHON=... overrides.
# Found by the shell each time it is used: make's own wildcard would not see a .venv made by this run.
VENV_SITE = $(shell ls -d $(abspath $(VENV))/lib/python3.*/site-packages 2>/dev/null | head -1)
export ANSIBLE_COLLECTIONS_PATH = $(COLLECTIONS):$(VENV_SITE)
export MOLECULE_GLOB := molecule/*/molecule.yml
export PATH := $(abspath $(VENV))/bin:/usr/local/bin:$(PATH)
export ANSIBLE_FORCE_COLOR ?= 0
MOLECULE_SCENARIOS ?= default leader_election include reliability main_scheduler main_scheduler_ha
KIND := hack/kind
comma := ,
space := $(empty) $(empty)
KUBE_VERSION ?= $(shell . $(KIND)/versions.env && echo $$DEFAULT_KUBE_VERSION)
MATRIX_KUBE_VERSIONS ?= $(shell . $(KIND)/versions.env && echo $$MATRIX_KUBE_VERSIONS)
OLDEST_KUBE_VERSION := $(firstword $(MATRIX_KUBE_VERSIONS))

# More targets, one file per subject (packaging and docs, benchmarks, ...).
-include mk/*.mk

.PHONY: help deps build install cluster cluster-down cluster-ha cluster-ha-down cluster-smoke lint sanity units molecule check test oldest-images oldest-pause compact compact-oldest test-matrix multi-cluster k8s-source demo clean

help: ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | column -t -s $$'\t'

# $(call new_venv,DIR[,PIP]): a venv of the Python hack/find-python.sh finds, with pip (the newest, or the PIP spec)
# and uv. The packages go in with
# $(call uv_install,DIR): `uv pip install`, the same requirements and constraints from the same index as pip, resolved
# and installed in seconds where pip takes more than a minute (uv's cache, ~/.cache/uv, serves the next venv). Unlike
# pip, uv writes no bytecode unless told (--compile-bytecode): without it, under PYTHONDONTWRITEBYTECODE (set on CI
# machines and in many containers) every ansible-playbook and every module process compiles ansible and the
# kubernetes client from source again (an empty playbook 0.99 s against 0.73 s, 3 runs each, 2026-12-02).
UV_PIN := uv==0.13.9
define new_venv
	rm -rf $(1)
	"$$(hack/find-python.sh)" -m venv $(1)
	$(1)/bin/pip install -q --upgrade $(or $(2),pip) $(UV_PIN)
endef
uv_install = $(1)/bin/uv pip install -q --compile-bytecode --python $(1)/bin/python
# The .venv's packages are installed without bytecode, then compiled with every core, less the collections of the
# ansible package that nothing here imports (all but DEP_COLLECTIONS): 14,000 of its 19,000 sources, which uv's
# --compile-bytecode compiled one after another (make install on a clean clone took 162 s, 34 s this way).
compile_venv = $(1)/bin/python -m compileall -q -j 0 \
	-x '/ansible_collections/(?!($(subst $(space),|,$(DEP_COLLECTIONS)))/)' "$$(ls -d $(1)/lib/python3.*/site-packages)" >/dev/null

$(VENV)/.done: requirements-dev.txt requirements.txt constraints.txt hack/find-python.sh
	$(call new_venv,$(VENV))
	$(filter-out --compile-bytecode,$(call uv_install,$(VENV))) -r requirements-dev.txt -r requirements.txt -c constraints.txt
	$(call compile_venv,$(VENV))
	touch $@

deps: $(VENV)/.done install ## .venv with the pinned tools, and the collection installed from its tarball

build: $(VENV)/.done ## build the collection tarball
	@mkdir -p $(BUILD)
	$(VENV)/bin/ansible-galaxy collection build --force --output-path $(BUILD) . >/dev/null
	@echo "built $(TARBALL)"

# The collections it depends on come from the ansible package in .venv (no Galaxy server here),
# linked beside it, so that every ansible-core line's venv finds them in build/collections alone.
DEP_COLLECTIONS := kubernetes/core community/docker containers/podman
install: build ## install the tarball into build/collections, with its dependencies from the ansible package
	$(VENV)/bin/ansible-galaxy collection install --force --no-deps -p $(COLLECTIONS) $(TARBALL) >/dev/null
	for c in $(DEP_COLLECTIONS); do d=$(COLLECTIONS)/ansible_collections/$$c; \
	  if [ -L "$$(dirname $$d)" ]; then rm "$$(dirname $$d)"; fi; mkdir -p "$$(dirname $$d)" && rm -rf "$$d" && \
	  ln -s $(VENV_SITE)/ansible_collections/$$c "$$d" || exit 1; done
	@echo "installed kubesched.scheduler $(COLLECTION_VERSION) in $(COLLECTIONS)"

cluster: ## the offline kind cluster `kubesched` and the registry localhost:5001 (cached builds)
	KUBE_VERSION=$(KUBE_VERSION) $(KIND)/cluster.sh up

cluster-down: ## delete the cluster and the registry (cached images stay)
	$(KIND)/cluster.sh down

# A highly available control plane: three control-plane nodes (etcd, API server, controller manager and scheduler on
# each) behind kind's load balancer, whose image is built here (hack/kind/lb), and a worker.
HA := KUBE_VERSION=$(KUBE_VERSION) CLUSTER_NAME=kubesched-ha CLUSTER_CONTROL_PLANES=3 CLUSTER_WORKERS=1 CLUSTER_SSH=1 \
  CLUSTER_API_FEATURE_GATES=GenericWorkload=true CLUSTER_RUNTIME_CONFIG=scheduling.k8s.io/v1beta1=true
cluster-ha: ## the kind cluster kubesched-ha: three control-plane nodes behind kind's load balancer, and a worker
	$(HA) $(KIND)/cluster.sh up

cluster-ha-down: ## delete the cluster kubesched-ha
	$(HA) $(KIND)/cluster.sh down

cluster-smoke: ## assert the platform's promises on the running cluster
	$(KIND)/smoke-test.sh

# mypy on the installed collection (its package path is ansible_collections.kubesched.scheduler), at the controller's
# oldest Python; kubernetes and ansible ship no type information of their own, so only the layer's own types are checked.
MYPY_FLAGS := --python-version 3.11 --strict --ignore-missing-imports --follow-imports=silent --explicit-package-bases \
	--namespace-packages --cache-dir $(abspath $(BUILD))/.mypy_cache
lint: install ## ansible-lint (production), yamllint, ruff, mypy on the private Kubernetes layer
	$(VENV)/bin/yamllint -s .
	$(VENV)/bin/ansible-lint --offline
	$(VENV)/bin/ruff check plugins tests benchmarks hack molecule examples
	cd $(COLLECTIONS) && $(abspath $(VENV))/bin/mypy $(MYPY_FLAGS) -p ansible_collections.kubesched.scheduler.plugins.module_utils._k8s
	hack/check-docs.py

# ansible-test and pytest of one venv on the installed collection: $(call sanity_in,VENV) / $(call units_in,VENV)
sanity_in = hack/ansible-test-pip.sh $(1)/bin/python && cd $(INSTALLED) && git init -q && git add -A && \
	  $(abspath $(1))/bin/ansible-test sanity --local --color no \
	    --python $$($(abspath $(1))/bin/python -c 'import sys; print("%d.%d" % sys.version_info[:2])')
units_in = cd $(INSTALLED) && PYTHONPATH=$(COLLECTIONS) $(abspath $(1))/bin/python -m pytest -q -p no:cacheprovider tests/unit

# ansible-test skips its shellcheck test, with a mere warning, where shellcheck is missing: installed first.
sanity: install ## ansible-test sanity on the installed collection (ansible-test lists files with git)
	hack/need-pkg.sh shellcheck shellcheck
	$(call sanity_in,$(VENV))

units: install ## unit tests (pytest) on the installed collection, and of the scripts and programs in hack/ (molecule/leader_election runs the out-of-tree example's)
	$(call units_in,$(VENV))
	$(VENV)/bin/python -m pytest -q -p no:cacheprovider hack/tests
	cd hack/kind/lb && go test .

# Each maintained ansible-core line in a venv of its own (.venv-core-2.19, ...), for sanity and units.
CORE_PINS := 2.19.14 2.20.10 2.21.5
CORE_VENVS := $(foreach v,$(CORE_PINS),.venv-core-$(basename $(v)))
.venv-core-%/.done: requirements.txt constraints.txt hack/find-python.sh
	$(call new_venv,$(@D))
	$(call uv_install,$(@D)) "ansible-core==$(filter $*.%,$(CORE_PINS))" -r requirements.txt pytest pyyaml kubernetes-validate yamllint \
	  -c <(grep -vE "^ansible(-core)?==" constraints.txt)
	touch $@

units-core-lines: install $(addsuffix /.done,$(CORE_VENVS)) ## unit tests on every maintained ansible-core line
	for v in $(CORE_VENVS); do echo "== units on ansible-core $$($$v/bin/python -c "import ansible.release as r; print(r.__version__)")"; ( $(call units_in,$$v) ) || exit 1; done

sanity-core-lines: install $(addsuffix /.done,$(CORE_VENVS)) ## ansible-test sanity on every maintained ansible-core line
	hack/need-pkg.sh shellcheck shellcheck
	for v in $(CORE_VENVS); do echo "== sanity on ansible-core $$($$v/bin/python -c "import ansible.release as r; print(r.__version__)")"; ( $(call sanity_in,$$v) ) || exit 1; done

k8s-source: ## the Kubernetes source repository at KUBE_VERSION that the build role clones (hack/k8s-source.sh)
	hack/k8s-source.sh $(KUBE_VERSION)

# hack/molecule.sh: each scenario in turn, the cluster it does not use paused (main_scheduler_ha runs on kubesched-ha,
# the others on kubesched). MOLECULE_LANES=2 runs main_scheduler_ha beside the scenarios after it in the list (put it
# earlier to use it): for a machine with cores to spare; on 2 cores both lanes are CPU-bound and no faster (docs/ci.md).
MOLECULE_LANES ?= 1
molecule: install cluster k8s-source ## every molecule scenario on the kind clusters (stale state of an interrupted run is reset first)
	KUBE_VERSION=$(KUBE_VERSION) MOLECULE=$(VENV)/bin/molecule MOLECULE_LANES=$(MOLECULE_LANES) HA_ENV="$(HA)" hack/molecule.sh $(MOLECULE_SCENARIOS)

# Two tiers: `make check` needs neither Docker nor a cluster; `make test` runs both and prints each stage's time
# (hack/stages.sh): the .venv and the installed collection first, then the check tier's stages in the background at
# the lowest CPU priority while the end-to-end tier runs on kind, one stage at a time.
CHECK_STAGES := lint sanity units docs publish-check
check: deps $(CHECK_STAGES) ## the tier without Docker or a cluster: lint, sanity, units, the docs site, the Galaxy import check

test: ## everything: `make check`, the compact scenario and the benchmarks at a small size on the oldest minor, the token-auth registry check (in the background); the cluster, its smoke test, every molecule scenario
	@hack/stages.sh install bg:$(subst $(space),$(comma),oldest-pause $(CHECK_STAGES) oldest-images compact-oldest registry-token bench-smoke-oldest oldest-pause) cluster cluster-smoke k8s-source molecule

# The oldest minor's cluster frozen once make test's background is done with it, leaving the CPU to the scenarios
# (cluster.sh up, as make compact runs it, wakes it).
oldest-pause:
	KUBE_VERSION=$(OLDEST_KUBE_VERSION) $(KIND)/cluster.sh pause

# What `make compact` on the oldest maintained minor needs before its cluster exists (the Kubernetes binaries, the node
# image, the Kubernetes source repository), built without creating the cluster: last in make test's background chain,
# so that a machine without these caches compiles them in the cycles the end-to-end stages leave idle, not after them
# (.ci/run runs make compact on that minor next). With the caches in place it only checks them.
oldest-images: ## the oldest maintained minor's cluster images and Kubernetes source, without its cluster
	KUBE_VERSION=$(OLDEST_KUBE_VERSION) $(KIND)/cluster.sh images
	hack/k8s-source.sh $(OLDEST_KUBE_VERSION) >/dev/null

# The compact end-to-end scenario (molecule/compact) on one Kubernetes version, on that version's
# own kind cluster: make compact KUBE_VERSION=v1.35.4
# $(call compact_on,VERSION): the recipe, written once for both targets.
define compact_on
	KUBE_VERSION=$(1) $(KIND)/cluster.sh up
	$(VENV)/bin/molecule reset -s compact >/dev/null 2>&1 || true
	KUBESCHED_KUBE_VERSION=$(1) KUBESCHED_CONTEXT=$$(KUBE_VERSION=$(1) $(KIND)/cluster.sh context) \
	  $(VENV)/bin/molecule test -s compact
endef
compact: install ## the compact scenario (source → image → deploy → placement → uninstall) on KUBE_VERSION's cluster
	$(call compact_on,$(KUBE_VERSION))

# make test runs it last in its background chain, after oldest-images, beside the scenarios on the newest minor's
# cluster: its cluster, work directory (/var/tmp/kubesched/compact-<version>), scheduler and image names are its own.
compact-oldest: install ## the compact scenario on the oldest maintained minor's cluster
	$(call compact_on,$(OLDEST_KUBE_VERSION))

test-matrix: install ## the compact scenario on every maintained minor (MATRIX_KUBE_VERSIONS in hack/kind/versions.env), then multi-cluster
	for v in $(MATRIX_KUBE_VERSIONS); do $(MAKE) --no-print-directory compact KUBE_VERSION=$$v || exit 1; done
	$(MAKE) --no-print-directory multi-cluster

# Two clusters of different minors deployed from one inventory in one run, verified, uninstalled.
MULTI_INVENTORY := examples/inventory/kind.yml
multi-cluster: install ## site.yml, verify.yml and uninstall.yml on the oldest and newest minors' clusters from one inventory
	for v in $(OLDEST_KUBE_VERSION) $(KUBE_VERSION); do KUBE_VERSION=$$v $(KIND)/cluster.sh up >/dev/null && hack/k8s-source.sh $$v >/dev/null || exit 1; done
	$(VENV)/bin/ansible-playbook -i $(MULTI_INVENTORY) playbooks/site.yml -e kube_scheduler_build_host=builders -e kube_scheduler_hosts=clusters
	$(VENV)/bin/ansible-playbook -i $(MULTI_INVENTORY) playbooks/verify.yml -e kube_scheduler_hosts=clusters \
	  -e kube_scheduler_verify_namespace=kubesched-verify-multi
	$(VENV)/bin/ansible-playbook -i $(MULTI_INVENTORY) playbooks/uninstall.yml -e kube_scheduler_hosts=clusters

demo: deps cluster k8s-source ## build, push, deploy the second scheduler on the kind cluster and show pod placement (KUBE_VERSION=v1.36.3: on that version's cluster)
	KUBE_VERSION=$(KUBE_VERSION) hack/demo.sh

clean: ## remove build output (not the cluster, not the caches)
	rm -rf $(BUILD)
