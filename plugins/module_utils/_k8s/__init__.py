# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The collection's one Kubernetes layer under every module.

This package is private to the collection: its names can change in any release without notice, and
nothing outside kubesched.scheduler may import it. ``client`` pages lists and keeps the API server's
clock, ``predicates`` says what an API object means (a ready pod, a live Lease, the scheduler's
container, ...), ``waiter`` is the one poll loop, and ``serving`` tells what serves a schedulerName.
"""
