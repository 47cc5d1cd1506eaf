#!/usr/bin/env python3
"""Copies standard input to standard output, each line preceded by the time of day (HH:MM:SS), as it arrives."""

import sys
import time

for line in sys.stdin:
    sys.stdout.write(time.strftime("%H:%M:%S ") + line)
    sys.stdout.flush()
