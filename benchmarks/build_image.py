#!/usr/bin/env python3
"""The build and image roles: a cold run against re-runs with unchanged inputs, and the images' sizes.

  cold    playbooks/site.yml --tags build,image into a new working directory with an empty Go build cache
          and a new image tag: clone, full compile of kube-scheduler, image build, push
  re-run  the same command again, nothing changed: asserted changed=0, no compile (the binary's mtime
          is unchanged), no image build (the image's ID is unchanged), no push (the registry's digest is
          unchanged)
COLD_REPETITIONS cold runs (each a full compile), each followed by RERUN_REPETITIONS re-runs; the ratio
is each re-run against the cold run it follows. Then the image on the busybox base and on the minimal
base (scratch, numeric user) against the size of the binary. Output: benchmarks/results/build_image.json.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import benchlib

ROOT = benchlib.ROOT


def playbook(variables):
    seconds, changed, dummy = benchlib.playbook("site.yml", variables, "--tags", "build,image")
    return seconds, changed


def registry_digest(image, tag):
    repository = image.split("/", 1)[1]
    request = urllib.request.Request(
        f"http://127.0.0.1:5001/v2/{repository}/manifests/{tag}", method="HEAD", headers={"Accept": "application/vnd.docker.distribution.manifest.v2+json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 - the local registry
        return response.headers["Docker-Content-Digest"]


def docker(*args):
    return subprocess.run(["docker", *args], capture_output=True, text=True, check=True).stdout.strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", required=True, help="the git URL to build (file://)")
    parser.add_argument("--ref", default="main")
    parser.add_argument("--cold-repetitions", type=int, default=1)
    parser.add_argument("--rerun-repetitions", type=int, default=5)
    parser.add_argument("--result", default="build_image")
    args = parser.parse_args()
    facts = benchlib.machine()  # before the runs, as the other benchmarks record theirs
    run_id = time.strftime("%Y%m%d%H%M%S")
    name = "bench-build"
    image = f"localhost:5001/{name}"
    runs, sizes = [], {}
    base_work = Path(tempfile.mkdtemp(prefix="kubesched-bench-build.", dir="/var/tmp"))
    try:
        for cold in range(args.cold_repetitions):
            work = base_work / f"cold-{cold}"
            tag = f"bench-{run_id}-{cold}"
            variables = {
                "kube_scheduler_name": name,
                "kube_scheduler_image": image,
                "kube_scheduler_source_repo": args.repo,
                "kube_scheduler_source_ref": args.ref,
                "kube_scheduler_work_dir": str(work),
                "kube_scheduler_image_tag": tag,
                "kube_scheduler_build_env": {"GOCACHE": str(work / "gocache")},
                "ansible_python_interpreter": str(ROOT / ".venv" / "bin" / "python"),
            }
            seconds, changed = playbook(variables)
            binary = next(work.glob("src/*/_output/local/bin/linux/amd64/kube-scheduler"))
            state = (binary.stat().st_mtime_ns, docker("image", "inspect", "-f", "{{.Id}}", f"{image}:{tag}"), registry_digest(image, tag))
            run = {"cold_seconds": seconds, "cold_changed": changed, "reruns": []}
            for _ in range(args.rerun_repetitions):
                again, changed_again = playbook(variables)
                after = (binary.stat().st_mtime_ns, docker("image", "inspect", "-f", "{{.Id}}", f"{image}:{tag}"), registry_digest(image, tag))
                if changed_again or after != state:
                    raise benchlib.BenchError(f"re-run changed={changed_again}; binary, image or digest changed: {state} -> {after}")
                run["reruns"].append({"seconds": again, "ratio": again / seconds})
            runs.append(run)
            print(f"build_image: cold {seconds:.1f}s (changed={changed}); re-runs {[round(r['seconds'], 1) for r in run['reruns']]}", flush=True)
            # The same binary on the minimal base.
            minimal = {**variables, "kube_scheduler_image_base": "scratch", "kube_scheduler_image_user": "65532", "kube_scheduler_image_tag": f"{tag}-minimal"}
            playbook(minimal)
            sizes = {
                "binary_bytes": binary.stat().st_size,
                "busybox_image_bytes": int(docker("image", "inspect", "-f", "{{.Size}}", f"{image}:{tag}")),
                "minimal_image_bytes": int(docker("image", "inspect", "-f", "{{.Size}}", f"{image}:{tag}-minimal")),
            }
            sizes["minimal_over_binary_bytes"] = sizes["minimal_image_bytes"] - sizes["binary_bytes"]
            shutil.rmtree(work, ignore_errors=True)
    finally:
        shutil.rmtree(base_work, ignore_errors=True)
    ratios = [r["ratio"] for run in runs for r in run["reruns"]]
    summary = {
        "cold_seconds": benchlib.spread([run["cold_seconds"] for run in runs]),
        "rerun_seconds": benchlib.spread([r["seconds"] for run in runs for r in run["reruns"]]),
        "ratio": benchlib.spread(ratios),
        "sizes": sizes,
    }
    benchlib.write_result(
        args.result,
        {
            "benchmark": "build_image",
            "command": " ".join(sys.argv),
            "machine": facts,
            "parameters": {"repo": args.repo, "ref": args.ref, "cold_repetitions": args.cold_repetitions, "rerun_repetitions": args.rerun_repetitions},
            "runs": runs,
            "summary": summary,
        },
    )


if __name__ == "__main__":
    os.environ.setdefault("ANSIBLE_NOCOLOR", "1")
    main()
