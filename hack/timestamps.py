#!/usr/bin/env python3
"""Copies standard input to standard output, each line preceded by the time of day (HH:MM:SS), as it arrives. A line
that starts with one already (the log of a scenario run beside the others, printed once it has ended) keeps it."""

import re
import sys
import time

STAMPED = re.compile(r"\d\d:\d\d:\d\d ")

for line in sys.stdin:
    sys.stdout.write(line if STAMPED.match(line) else time.strftime("%H:%M:%S ") + line)
    sys.stdout.flush()
