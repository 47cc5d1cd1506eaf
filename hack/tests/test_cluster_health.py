# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""cluster.sh's system_pods_ready, with kubectl stood in by a function that answers what a cluster would: a kube-system
pod on one of kwok's fake nodes (left by a scenario stopped before its cleanup) does not make the cluster unhealthy; a
pod on one of its own nodes that is not Ready does."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

CLUSTER_SH = Path(__file__).resolve().parents[1] / "kind" / "cluster.sh"


def function(name: str) -> str:
    match = re.search(rf"^{name}\(\) {{\n.*?^}}\n", CLUSTER_SH.read_text(), re.S | re.M)
    assert match, f"{name} not in cluster.sh"
    return match.group(0)


def pod(node: str, ready: str | None) -> dict:
    conditions = [] if ready is None else [{"type": "Ready", "status": ready}]
    return {"spec": {"nodeName": node}, "status": {"conditions": conditions}}


def ready(pods: list[dict], fake: list[str]) -> int:
    nodes = {"items": [{"metadata": {"name": n}} for n in fake]}
    script = (
        function("system_pods_ready")
        + f"kubectl_() {{ if [ \"$1\" = get ] && [ \"$2\" = nodes ]; then echo '{json.dumps(nodes)}'; else echo '{json.dumps({'items': pods})}'; fi; }}\n"
        + "system_pods_ready 0\n"
    )
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30, check=False).returncode


@pytest.mark.parametrize(
    ("pods", "fake", "want"),
    [
        ([pod("kubesched-control-plane", "True"), pod("kwok-node-0", "False")], ["kwok-node-0"], 0),
        ([pod("kubesched-control-plane", "True"), pod("kwok-node-0", None)], ["kwok-node-0"], 0),
        ([pod("kubesched-control-plane", "False"), pod("kwok-node-0", "True")], ["kwok-node-0"], 1),
        ([pod("kubesched-worker", "True"), pod("kubesched-control-plane", None)], [], 1),
        ([pod("kubesched-worker", "True")], [], 0),
    ],
)
def test_only_the_clusters_own_nodes_pods_count(pods, fake, want):
    assert ready(pods, fake) == want
