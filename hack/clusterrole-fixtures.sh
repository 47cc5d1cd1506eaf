#!/usr/bin/env bash
# clusterrole-fixtures.sh CONTEXT...: reads system:kube-scheduler from each running cluster and
# writes it as the unit tests' fixture of that minor,
# tests/unit/plugins/fixtures/clusterrole/system-kube-scheduler-1.NN.yaml (managedFields left out).
# The unit tests run the ClusterRole logic on every fixture present. FIXTURE_GATES=GenericWorkload: a cluster whose API
# servers run with those gates (make cluster-ha), written as system-kube-scheduler-1.NN-GenericWorkload.yaml.
set -euo pipefail
out=$(cd "$(dirname "$0")/.." && pwd)/tests/unit/plugins/fixtures/clusterrole
kubectl=${KUBECTL:-kubectl}
for ctx in "$@"; do
  version=$("$kubectl" --context "$ctx" version -o json | jq -r .serverVersion.gitVersion)
  minor=$(sed -E 's/^v([0-9]+\.[0-9]+)\..*/\1/' <<< "$version")
  file=$out/system-kube-scheduler-$minor${FIXTURE_GATES:+-${FIXTURE_GATES//,/-}}.yaml
  {
    echo "# ClusterRole system:kube-scheduler read from a Kubernetes $version cluster by"
    echo "# hack/clusterrole-fixtures.sh (kubectl get clusterrole system:kube-scheduler -o json, managedFields"
    echo "# left out): the bootstrap policy's rules of that release${FIXTURE_GATES:+, its API servers started with the gates $FIXTURE_GATES}."
    "$kubectl" --context "$ctx" get clusterrole system:kube-scheduler -o json \
      | jq 'del(.metadata.managedFields)' \
      | python3 -c '
import json, sys, yaml
class Dumper(yaml.SafeDumper):  # lists indented under their key, as yamllint wants
    def increase_indent(self, flow=False, indentless=False):
        return super().increase_indent(flow, False)
yaml.dump(json.load(sys.stdin), sys.stdout, Dumper=Dumper, sort_keys=False, default_flow_style=False)'
  } > "$file.new"
  mv "$file.new" "$file"
  echo "$ctx: $version -> ${file#"$out/"}"
done
