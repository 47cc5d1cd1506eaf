#!/usr/bin/env python3
"""The Ansible tasks of a log of `make test` or `.ci/run` whose lines start with the time of day (HH:MM:SS), as
`hack/timestamps.py` writes it: how many ran and, grouped by name (digits made N), the seconds until the next task,
play or molecule step line, the largest first. A Markdown table.

usage: hack/task-times.py ci.log [TOP]
"""

import re
import sys
from collections import Counter

EVENT = re.compile(r"^(\d\d):(\d\d):(\d\d) (?:(TASK|PLAY|RUNNING HANDLER) \[(.*?)\]|INFO |CRITICAL |ERROR |PLAY RECAP)")


def events(lines):
    for line in lines:
        match = EVENT.match(line)
        if match:
            hours, minutes, seconds, kind, name = match.groups()
            yield int(hours) * 3600 + int(minutes) * 60 + int(seconds), kind, name


def task_times(lines):
    """(number of tasks, {name: seconds}, {name: count})."""
    seconds, count = Counter(), Counter()
    previous = None
    for moment, kind, name in events(lines):
        if previous and previous[1] == "TASK":
            key = re.sub(r"\d+", "N", previous[2])
            seconds[key] += (moment - previous[0]) % 86400
            count[key] += 1
        previous = moment, kind, name
    return sum(count.values()), seconds, count


def main(path, top=25):
    with open(path, encoding="utf-8", errors="replace") as log:
        tasks, seconds, count = task_times(log)
    print(f"{tasks} tasks, {sum(seconds.values())} s until the next line of each\n")
    print("| seconds | runs | task |\n| ---: | ---: | --- |")
    for name, took in seconds.most_common(top):
        print(f"| {took} | {count[name]} | {name[:100]} |")


if __name__ == "__main__":
    main(sys.argv[1], *(int(arg) for arg in sys.argv[2:3]))
