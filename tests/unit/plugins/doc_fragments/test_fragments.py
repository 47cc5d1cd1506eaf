# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests of the doc fragments as ansible-doc reads them: every section of every fragment is one YAML mapping that
yamllint passes with ansible-test's rules for plugins (key-duplicates on), including the sections composed from
_attributes' text, which ansible-test's own yamllint does not read; and _k8s carries _attributes' attributes."""

from __future__ import annotations

import importlib
import pkgutil

import pytest
import yaml
from yamllint import linter
from yamllint.config import YamlLintConfig

from ansible_collections.kubesched.scheduler.plugins import doc_fragments

# ansible-test's yamllint configuration for plugins (ansible_test/_util/controller/sanity/yamllint/config/plugins.yml),
# with key-duplicates on: a composed section must not repeat a key.
RULES = YamlLintConfig(
    """
extends: default
rules:
  braces: disable
  brackets: disable
  colons: disable
  commas: disable
  comments: disable
  comments-indentation: disable
  document-start: disable
  empty-lines: disable
  hyphens: disable
  indentation: disable
  key-duplicates: enable
  line-length: disable
  new-line-at-end-of-file: disable
  new-lines: {type: unix}
  trailing-spaces: disable
  truthy: disable
"""
)


def sections():
    for info in pkgutil.iter_modules(doc_fragments.__path__):
        fragment = importlib.import_module(f"{doc_fragments.__name__}.{info.name}").ModuleDocFragment
        for name, text in vars(fragment).items():
            if name.isupper() and isinstance(text, str):
                yield pytest.param(text, id=f"{info.name}.{name}")


def fragment(name):
    return importlib.import_module(f"{doc_fragments.__name__}.{name}").ModuleDocFragment


def test_every_fragment_has_sections():
    names = {param.id for param in list(sections())}
    assert {"_attributes.DOCUMENTATION", "_attributes.INFO_MODULE", "_k8s.DOCUMENTATION", "_k8s.INFO_MODULE"} <= names


@pytest.mark.parametrize("text", list(sections()))
def test_section_is_one_mapping_that_yamllint_passes(text):
    assert isinstance(yaml.safe_load(text), dict)
    assert [str(problem) for problem in linter.run(text, RULES)] == []


@pytest.mark.parametrize("section", ["DOCUMENTATION", "INFO_MODULE"])
def test_k8s_has_the_attributes_of_attributes(section):
    k8s = yaml.safe_load(getattr(fragment("_k8s"), section))
    assert k8s["attributes"] == yaml.safe_load(getattr(fragment("_attributes"), section))["attributes"]
    assert k8s["notes"]


def test_info_module_says_it_only_reads():
    attributes = yaml.safe_load(fragment("_attributes").INFO_MODULE)["attributes"]
    assert attributes["check_mode"]["support"] == "full"
    assert attributes["diff_mode"]["support"] == "N/A"
    assert attributes["idempotent"]["support"] == "full"
