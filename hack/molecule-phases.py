#!/usr/bin/env python3
"""The seconds of each molecule scenario's steps (create, prepare, ... destroy) from a log of `make test` or `.ci/run`
whose lines start with the time of day (HH:MM:SS), as `hack/timestamps.py` writes it; a Markdown table.

usage: CI=true bash .ci/run 2>&1 | hack/timestamps.py > ci.log; hack/molecule-phases.py ci.log
"""

import re
import sys
from datetime import datetime, timedelta

STEPS = ("create", "prepare", "converge", "idempotence", "side_effect", "verify", "cleanup", "destroy")
STEP = re.compile(r"\[(\w+) > (\w+)\] (Executing|Executed)")


def phases(lines):
    started, seconds = {}, {}
    for line in lines:
        match = STEP.search(line)
        if not match:
            continue
        moment = datetime.strptime(line[:8], "%H:%M:%S")
        key = match.group(1), match.group(2)
        if match.group(3) == "Executing":
            started.setdefault(key, moment)
        elif key in started:
            seconds[key] = (moment - started[key]) % timedelta(days=1)
    table = {}
    for (scenario, step), took in seconds.items():
        table.setdefault(scenario, {})[step] = int(took.total_seconds())
    return table


def main(path):
    with open(path, encoding="utf-8", errors="replace") as log:
        table = phases(log)
    print("| scenario | " + " | ".join(STEPS) + " | sum |")
    print("| --- |" + " ---: |" * (len(STEPS) + 1))
    for scenario, steps in table.items():
        print(f"| {scenario} | " + " | ".join(str(steps.get(step, "")) for step in STEPS) + f" | {sum(steps.values())} |")


if __name__ == "__main__":
    main(sys.argv[1])
