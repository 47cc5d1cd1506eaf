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
	$(call new_venv,$(DOCS_VENV),pip==26.3)
	$(call uv_install,$(DOCS_VENV)) -r docs/requirements.txt
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
# in ~/.ansible/collections would otherwise shadow the one it imports. Its ansible-lint step is off: it runs the
# production profile minus six rules on the tarball's files, which `make lint` covers (the whole profile, the whole
# tree), and it gives ansible-lint a fixed 180 s, which a loaded machine exceeds (make test runs this check at nice 19
# beside the end-to-end tier), turning a lint that passes into an import that "fails".
publish-check: build $(DOCS_VENV)/.done changelog-check ## galaxy-importer on the tarball (offline, ansible-test and ansible-lint off: make lint runs the stricter lint); fails on any warning or error
	@set -e; d=$(abspath $(BUILD))/publish-check; rm -rf $$d; mkdir -p $$d; \
	  if tar -tzf $(TARBALL) | grep -E '^(\./)?(\.venv[^/]*|build|\.git)/' | head -5 | grep .; then \
	    echo "publish-check: the tarball holds files of the development tree (above)"; exit 1; fi; \
	  printf '[galaxy-importer]\nRUN_ANSIBLE_TEST = False\nRUN_ANSIBLE_LINT = False\n' > $$d/galaxy-importer.cfg; \
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
	cd $(DOCSITE) && $(DOCS_RUN) sphinx-build -M html rst build -c . -W --keep-going --no-color > sphinx.log 2>&1 \
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

ee: build $(DOCS_VENV)/.done ## the Execution Environment image kubesched.local/kubesched-scheduler-ee (offline build; log in build/ee/build.log)
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

# ee-test: the collection's own site.yml, verify.yml and uninstall.yml (taken from the image), run in
# the Execution Environment with ansible-navigator against the kind cluster: the whole flow inside
# it, with the build role given a prebuilt kube-scheduler and the image role on the host's Docker
# socket; a scheduler name, image and verify namespace of its own, and uninstall.yml at the end.
# (The Makefile's ANSIBLE_COLLECTIONS_PATH is not passed: the collections are those of the image.)
EE_TEST_CONTEXT ?= kind-kubesched
EE_TEST_NAME ?= ee-scheduler
EE_TEST_VERSION ?= v1.37.2
EE_TEST_BINARY ?= /var/cache/kubesched/k8s/$(EE_TEST_VERSION)/bin/kube-scheduler
EE_TEST_VARS = -e kube_scheduler_name=$(EE_TEST_NAME) -e kube_scheduler_context=$(EE_TEST_CONTEXT) \
  -e kube_scheduler_kubeconfig=/kubesched/kubeconfig -e kube_scheduler_version=$(EE_TEST_VERSION) \
  -e kube_scheduler_binary=/kubesched/kube-scheduler -e kube_scheduler_image=localhost:5001/$(EE_TEST_NAME) \
  -e kube_scheduler_verify_namespace=$(EE_TEST_NAME)-verify

ee-test: $(DOCS_VENV)/.done ## run site.yml, verify.yml and uninstall.yml in the Execution Environment (ansible-navigator) on the kind cluster
	@docker image inspect $(EE_IMAGE) >/dev/null 2>&1 || { echo "ee-test: no image $(EE_IMAGE): make ee"; exit 1; }
	@test -x $(EE_TEST_BINARY) || { echo "ee-test: no $(EE_TEST_BINARY) (make cluster builds it; or set EE_TEST_BINARY)"; exit 1; }
	@# ansible-runner's event markers (invisible on a terminal) are taken out of the logs.
	@set -e -o pipefail; start=$$(date +%s); d=$(abspath $(EE_DIR))/test; rm -rf $$d; mkdir -p $$d/playbooks; \
	  kubectl config view --minify --flatten --context $(EE_TEST_CONTEXT) > $$d/kubeconfig; chmod 600 $$d/kubeconfig; \
	  docker run --rm --entrypoint tar $(EE_IMAGE) -C /usr/share/ansible/collections/ansible_collections/kubesched/scheduler \
	    -cf - playbooks | tar -C $$d -xf -; \
	  nav() { env -u ANSIBLE_COLLECTIONS_PATH $(DOCS_RUN) ansible-navigator run "$$d/playbooks/$$1" --mode stdout \
	    --dc false --ee true --eei $(EE_IMAGE) \
	    --pull-policy never --ce docker --pae false --lf $$d/navigator.log --co=--network=host \
	    --eev $$d/kubeconfig:/kubesched/kubeconfig --eev $(EE_TEST_BINARY):/kubesched/kube-scheduler \
	    --eev /var/run/docker.sock:/var/run/docker.sock $(EE_TEST_VARS) 2>&1 \
	    | sed -E 's#\x1b\[K[A-Za-z0-9+/=]*\x1b\[[0-9]+D##g; s#\x1b\[K##g' > $$d/$${1%.yml}.log; }; \
	  rc=0; for p in site.yml verify.yml; do \
	    echo "ee-test: $$p in $(EE_IMAGE) (log: $(EE_DIR)/test/$${p%.yml}.log)"; \
	    nav $$p || { rc=$$?; tail -30 $$d/$${p%.yml}.log; break; }; \
	    grep -A4 '^PLAY RECAP' $$d/$${p%.yml}.log | grep -E 'ok=|failed=' || true; done; \
	  echo "ee-test: uninstall.yml"; nav uninstall.yml || { tail -30 $$d/uninstall.log; rc=1; }; \
	  [ $$rc -eq 0 ] || { echo "ee-test: failed"; exit 1; }; \
	  grep -E '"msg": "pod[123] ' $$d/verify.log; \
	  grep -qE '"msg": "pod3 +-> $(EE_TEST_NAME) ' $$d/verify.log || { echo "ee-test: pod3 was not placed by $(EE_TEST_NAME)"; exit 1; }; \
	  echo "ee-test: pod3 placed by $(EE_TEST_NAME), run in $(EE_IMAGE), in $$(( $$(date +%s) - start )) s"
