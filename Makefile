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
VENV_SITE = $(firstword $(wildcard $(abspath $(VENV))/lib/python3.*/site-packages))
export ANSIBLE_COLLECTIONS_PATH = $(COLLECTIONS):$(VENV_SITE)
export MOLECULE_GLOB := molecule/*/molecule.yml
export PATH := $(abspath $(VENV))/bin:/usr/local/bin:$(PATH)
export ANSIBLE_FORCE_COLOR ?= 0
MOLECULE_SCENARIOS ?= default leader_election
KIND := hack/kind

# More targets, one file per subject (packaging and docs, benchmarks, ...).
-include mk/*.mk

.PHONY: help deps build install cluster cluster-down cluster-smoke lint sanity units molecule test demo clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | column -t -s $$'\t'

$(VENV)/.done: requirements-dev.txt requirements.txt constraints.txt hack/find-python.sh
	rm -rf $(VENV)
	"$$(hack/find-python.sh)" -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -r requirements-dev.txt -r requirements.txt -c constraints.txt
	touch $@

deps: $(VENV)/.done install ## .venv with the pinned tools, and the collection installed from its tarball

build: $(VENV)/.done ## build the collection tarball
	@mkdir -p $(BUILD)
	$(VENV)/bin/ansible-galaxy collection build --force --output-path $(BUILD) . >/dev/null
	@echo "built $(TARBALL)"

install: build ## install the tarball into build/collections (offline: dependencies come from the ansible package)
	$(VENV)/bin/ansible-galaxy collection install --force --no-deps -p $(COLLECTIONS) $(TARBALL) >/dev/null
	@echo "installed kubesched.scheduler $(COLLECTION_VERSION) in $(COLLECTIONS)"

cluster: ## the offline kind cluster `kubesched` and the registry localhost:5001 (cached builds)
	$(KIND)/cluster.sh up

cluster-down: ## delete the cluster and the registry (cached images stay)
	$(KIND)/cluster.sh down

cluster-smoke: ## assert the platform's promises on the running cluster
	$(KIND)/smoke-test.sh

lint: install ## ansible-lint (production), yamllint, ruff
	$(VENV)/bin/yamllint -s .
	$(VENV)/bin/ansible-lint --offline
	$(VENV)/bin/ruff check plugins tests benchmarks hack molecule examples
	hack/check-docs.py

ANSIBLE_TEST_PIP := $(HOME)/.ansible/test/cache/get_pip_24_2.py

$(ANSIBLE_TEST_PIP): hack/get-pip-offline.py
	install -D -m 0644 $< $@

sanity: install $(ANSIBLE_TEST_PIP) ## ansible-test sanity on the installed collection (ansible-test lists files with git)
	cd $(INSTALLED) && git init -q && git add -A && \
	  $(abspath $(VENV))/bin/ansible-test sanity --local --python 3.11 --color no

units: install ## unit tests (pytest) on the installed collection
	cd $(INSTALLED) && PYTHONPATH=$(COLLECTIONS) $(abspath $(PY)) -m pytest -q tests/unit

molecule: install cluster ## every molecule scenario on the kind cluster (stale state of an interrupted run is reset first)
	for s in $(MOLECULE_SCENARIOS); do \
	  $(VENV)/bin/molecule reset -s $$s >/dev/null 2>&1; \
	  $(VENV)/bin/molecule test -s $$s || exit 1; \
	done

test: deps lint sanity units cluster cluster-smoke molecule ## everything: lint, sanity, units, the cluster smoke test and molecule

demo: deps cluster ## build, push, deploy the second scheduler on the kind cluster and show pod placement
	hack/demo.sh

clean: ## remove build output (not the cluster, not the caches)
	rm -rf $(BUILD)
