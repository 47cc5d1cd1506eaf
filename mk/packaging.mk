# Publishing the collection: the Galaxy import check, the changelog, the docs site and the
# Execution Environment. Included by the Makefile (VENV, BUILD, TARBALL, COLLECTIONS come from it).
# The tools live in their own venv, $(DOCS_VENV), pinned in docs/requirements.txt.

DOCS_VENV ?= .venv-docs
DOCS_BIN = $(abspath $(DOCS_VENV))/bin
# The tools call ansible-doc, ansible-galaxy and ansible-lint from PATH: those of $(DOCS_VENV).
DOCS_RUN = env PATH=$(DOCS_BIN):$$PATH
DOCSITE := $(BUILD)/docsite
DOCS_PAGE := $(DOCSITE)/build/html/collections/kubesched/scheduler/pod_placement_module.html
# lint-collection-docs copies the collection's dependencies with `git ls-files` when they sit in a
# git work tree, as those of the venvs and build/collections do, and so copies nothing of them:
# GIT_CEILING_DIRECTORIES keeps git from finding this work tree from there.
DOCS_LINT = GIT_CEILING_DIRECTORIES=$(abspath $(VENV)):$(abspath $(DOCS_VENV)):$(abspath $(BUILD)) \
  $(DOCS_RUN) antsibull-docs lint-collection-docs --plugin-docs --check-extra-docs-refs --validate-collection-refs dependent .
# The version a trial release of the changelog is cut for (a copy; changelogs/ is not touched).
RELEASE_VERSION ?= $(COLLECTION_VERSION)
CHROMIUM ?= chromium

.PHONY: docs-deps changelog-check publish-check docs docs-screenshot

$(DOCS_VENV)/.done: docs/requirements.txt hack/find-python.sh
	rm -rf $(DOCS_VENV)
	"$$(hack/find-python.sh)" -m venv $(DOCS_VENV)
	$(DOCS_VENV)/bin/pip install -q pip==26.3
	$(DOCS_VENV)/bin/pip install -q -r docs/requirements.txt
	touch $@

docs-deps: $(DOCS_VENV)/.done ## .venv-docs: galaxy-importer, antsibull-docs/-changelog, Sphinx, ansible-builder/-navigator

changelog-check: $(DOCS_VENV)/.done ## lint the changelog and its fragments; cut a trial release in a copy (build/changelog-release)
	$(DOCS_RUN) antsibull-changelog lint
	$(DOCS_RUN) antsibull-changelog lint-changelog-yaml changelogs/changelog.yaml
	rm -rf $(BUILD)/changelog-release && mkdir -p $(BUILD)/changelog-release
	cp -r galaxy.yml meta plugins roles changelogs $(BUILD)/changelog-release/
	rm -f $(BUILD)/changelog-release/changelogs/.plugin-cache.yaml
	cd $(BUILD)/changelog-release && env -u ANSIBLE_COLLECTIONS_PATH ANSIBLE_HOME=$(abspath $(BUILD))/changelog-release/.ansible-home \
	  $(DOCS_RUN) antsibull-changelog release --version $(RELEASE_VERSION)
	@set -e; d=$(BUILD)/changelog-release; \
	  grep -qx 'v$(RELEASE_VERSION)' $$d/CHANGELOG.rst || { echo "changelog-check: no v$(RELEASE_VERSION) in $$d/CHANGELOG.rst"; exit 1; }; \
	  left=$$(find $$d/changelogs/fragments -name '*.y*ml' | wc -l); \
	  [ "$$left" -eq 0 ] || { echo "changelog-check: $$left fragments left after the release"; exit 1; }; \
	  echo "changelog-check: release notes of $(RELEASE_VERSION) cut in $$d/CHANGELOG.rst ($$(wc -l < $$d/CHANGELOG.rst) lines)"

# galaxy-importer runs with an empty ANSIBLE_HOME, as on a Galaxy server: a copy of the collection
# in ~/.ansible/collections would otherwise shadow the one it imports.
publish-check: build $(DOCS_VENV)/.done changelog-check ## galaxy-importer on the tarball (offline, ansible-test off); fails on any warning or error
	@set -e; d=$(abspath $(BUILD))/publish-check; rm -rf $$d; mkdir -p $$d; \
	  if tar -tzf $(TARBALL) | grep -E '^(\./)?(\.venv[^/]*|build|\.git)/' | head -5 | grep .; then \
	    echo "publish-check: the tarball holds files of the development tree (above)"; exit 1; fi; \
	  printf '[galaxy-importer]\nRUN_ANSIBLE_TEST = False\n' > $$d/galaxy-importer.cfg; \
	  rc=0; (cd $$d && GALAXY_IMPORTER_CONFIG=$$d/galaxy-importer.cfg ANSIBLE_HOME=$$d/ansible-home $(DOCS_RUN) \
	    python -m galaxy_importer.main $(abspath $(TARBALL))) > $$d/importer.log 2>&1 || rc=$$?; \
	  grep -v '^Loading ' $$d/importer.log | grep -v '^$$'; \
	  if [ $$rc -ne 0 ] || grep -qE '^(WARNING|ERROR)' $$d/importer.log \
	     || ! grep -q 'Importer processing completed successfully' $$d/importer.log; then \
	    echo "publish-check: galaxy-importer failed or warned (exit $$rc; log $$d/importer.log)"; exit 1; fi; \
	  echo "publish-check: $(TARBALL) imports with no warning ($$(grep -c '^Loading ' $$d/importer.log) contents loaded)"

docs: install $(DOCS_VENV)/.done ## the HTML docs site (antsibull-docs lint, then Sphinx with warnings as errors): build/docsite/build/html
	$(DOCS_LINT)
	rm -rf $(DOCSITE) && mkdir -p $(DOCSITE)
	$(DOCS_RUN) ANSIBLE_COLLECTIONS_PATH=$(COLLECTIONS) antsibull-docs sphinx-init --use-current --fail-on-error \
	  --dest-dir $(DOCSITE) --project kubesched.scheduler --copyright "kubesched.scheduler contributors" \
	  --title kubesched.scheduler --html-short-title kubesched.scheduler \
	  --index-rst-source docs/docsite/site/index.rst kubesched.scheduler >/dev/null
	cat docs/docsite/site/conf_extra.py >> $(DOCSITE)/conf.py
	@# The two steps of the generated build.sh, with the offline intersphinx inventory made between them.
	cd $(DOCSITE) && mkdir -p rst && chmod og-w rst && $(DOCS_RUN) ANSIBLE_COLLECTIONS_PATH=$(COLLECTIONS) \
	  antsibull-docs --config-file antsibull-docs.cfg collection --cleanup everything --fail-on-error \
	  --use-current --dest-dir rst kubesched.scheduler > antsibull-docs.log 2>&1 || { tail -40 antsibull-docs.log; exit 1; }
	$(DOCS_BIN)/python docs/docsite/site/intersphinx.py $(DOCSITE)/ansible_devel.inv $(DOCSITE)/rst kubesched.scheduler
	cd $(DOCSITE) && $(DOCS_RUN) sphinx-build -M html rst build -c . -W --keep-going > sphinx.log 2>&1 \
	  || { tail -40 sphinx.log; exit 1; }
	@grep -E '^build (succeeded|finished)' $(DOCSITE)/sphinx.log
	@echo "docs: file://$(abspath $(DOCSITE))/build/html/index.html ($$(find $(DOCSITE)/build/html -name '*.html' | wc -l) pages)"

docs-screenshot: ## a headless Chromium screenshot of the pod_placement page: build/docs-pod_placement.png (after make docs)
	@command -v $(CHROMIUM) >/dev/null || { echo "docs-screenshot: no $(CHROMIUM) (Debian: apt-get install chromium)"; exit 1; }
	@test -f $(DOCS_PAGE) || { echo "docs-screenshot: $(DOCS_PAGE) is missing: make docs"; exit 1; }
	profile=$$(mktemp -d); $(CHROMIUM) --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	  --disable-background-networking --disable-component-update --disable-sync --user-data-dir=$$profile \
	  --screenshot=$(abspath $(BUILD))/docs-pod_placement.png --window-size=1280,2000 \
	  file://$(abspath $(DOCS_PAGE)) 2>/dev/null; rc=$$?; rm -rf $$profile; exit $$rc
	@echo "docs-screenshot: $(BUILD)/docs-pod_placement.png"

# The Execution Environment (execution-environment.yml), built with no network inside the build:
# the base from Debian's packages (ee/base-image.sh), the collections and a wheelhouse laid out by
# the host (ee/prepare.sh), `ansible-builder create` for the context, Docker's legacy builder.
EE_IMAGE ?= kubesched.local/kubesched-scheduler-ee:latest
EE_DIR := $(BUILD)/ee

.PHONY: ee ee-test

ee: build $(DOCS_VENV)/.done ## the Execution Environment image $(EE_IMAGE) (offline build; log in build/ee/build.log)
	@set -e; start=$$(date +%s); mkdir -p $(EE_DIR); \
	  base=$$(ee/base-image.sh); \
	  $(DOCS_RUN) ee/prepare.sh $(TARBALL) $(EE_DIR)/src; \
	  rm -rf $(EE_DIR)/context; \
	  $(DOCS_RUN) ansible-builder create -f execution-environment.yml -c $(EE_DIR)/context \
	    --output-filename Dockerfile >/dev/null; \
	  echo "ee: docker build $(EE_IMAGE) on $$base (log: $(EE_DIR)/build.log)"; \
	  DOCKER_BUILDKIT=0 docker build --build-arg EE_BASE_IMAGE=$$base -t $(EE_IMAGE) \
	    -f $(EE_DIR)/context/Dockerfile $(EE_DIR)/context > $(EE_DIR)/build.log 2>&1 \
	    || { tail -40 $(EE_DIR)/build.log; echo "ee: docker build failed (log: $(EE_DIR)/build.log)"; exit 1; }; \
	  docker run --rm $(EE_IMAGE) ansible-galaxy collection list kubesched.scheduler 2>/dev/null | grep kubesched.scheduler; \
	  echo "ee: $(EE_IMAGE) $$(docker image inspect -f '{{.Size}}' $(EE_IMAGE) | awk '{printf "%.0f MB", $$1/1e6}') built in $$(( $$(date +%s) - start )) s"
