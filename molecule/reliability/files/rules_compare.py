"""What a subject may do, compared with what the default scheduler (user system:kube-scheduler) may do.

For each namespace given, a SelfSubjectRulesReview is created as each subject (kubectl create --as, the API behind
`kubectl auth can-i --list`), and its rules expanded into (apiGroup, resource, resourceName, verb) and
(nonResourceURL, verb) grants. Prints JSON: for each subject, how many grants it holds and those the default
scheduler does not hold ("beyond") or holds and it does not ("fewer"), per namespace. What every ServiceAccount
holds (the grants of the namespace's `default` ServiceAccount, for example the service account issuer discovery)
is not counted as beyond.

  rules_compare.py --context kind-kubesched --namespace kube-system --namespace default \
      --subject system:serviceaccount:ns:name [--subject ...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

REFERENCE = "system:kube-scheduler"


def review(context, subject, namespace):
    body = json.dumps({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview", "spec": {"namespace": namespace}})
    result = subprocess.run(
        ["kubectl", "--context", context, "create", "--validate=false", "--as", subject, "-f", "-", "-o", "json"],
        input=body,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    if result.returncode != 0:
        sys.exit(f"rules_compare: SelfSubjectRulesReview as {subject} in {namespace} failed: {result.stderr.strip()}")
    status = json.loads(result.stdout)["status"]
    if status.get("incomplete"):
        sys.exit(f"rules_compare: the rules of {subject} in {namespace} are incomplete: {status.get('evaluationError')}")
    grants = set()
    for rule in status.get("resourceRules", []):
        for group in rule.get("apiGroups", [""]):
            for resource in rule.get("resources", []):
                for name in rule.get("resourceNames") or ["*"]:
                    for verb in rule["verbs"]:
                        grants.add(f"{group or 'core'}/{resource}/{name}:{verb}")
    for rule in status.get("nonResourceRules", []):
        for url in rule.get("nonResourceURLs", []):
            for verb in rule["verbs"]:
                grants.add(f"url {url}:{verb}")
    return grants


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--context", required=True)
    parser.add_argument("--namespace", action="append", required=True)
    parser.add_argument("--subject", action="append", required=True)
    args = parser.parse_args()
    out = {"reference": REFERENCE, "namespaces": args.namespace, "subjects": {}}
    reference = {ns: review(args.context, REFERENCE, ns) for ns in args.namespace}
    out["reference_grants"] = sum(len(g) for g in reference.values())
    for subject in args.subject:
        mine = {ns: review(args.context, subject, ns) for ns in args.namespace}
        if subject.startswith("system:serviceaccount:"):
            every = f"system:serviceaccount:{subject.split(':')[2]}:default"
            mine = {ns: grants - review(args.context, every, ns) | (grants & reference[ns]) for ns, grants in mine.items()}
        out["subjects"][subject] = {
            "grants": sum(len(g) for g in mine.values()),
            "beyond": sorted({g for ns in args.namespace for g in mine[ns] - reference[ns]}),
            "fewer": sorted({g for ns in args.namespace for g in reference[ns] - mine[ns]}),
        }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
