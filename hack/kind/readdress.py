#!/usr/bin/env python3
# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""readdress.py [--start CLUSTER]...: every kind node on the Docker network $KIND_NETWORK (kind) gets back the IPv4
address its kubelet was set up with (`--node-ip` in /var/lib/kubelet/kubeadm-flags.env).

Docker gives a container without an address of its own the next free one each time it starts: after a restart of
Docker the clusters' nodes come back in any order, with each other's addresses, and a cluster whose API server
certificate, etcd members and kubelets name the old ones does not work. Here:
- the stopped nodes of each cluster named by --start are started;
- a running node whose address differs, paused or not, is disconnected from the network and connected again with its
  own address (`docker network connect --ip`, which Docker keeps as the container's address for its next start), its
  aliases kept; its kubelet is restarted, so that etcd and the API server leave their crash-loop back-off;
- a container holding such an address (the registry, a load balancer, a node of a cluster given up) is moved first to
  the next free address; a stopped node whose own address is taken is started once it is free;
- when two nodes claim one address (a cluster made while another's nodes were away from theirs), the newer container
  keeps it and the other's cluster is left to cluster.sh's health check, which makes it again;
- lines of a running node's /etc/hosts, and of the copies kubelet gives host-network pods, that name the node at an
  address it no longer has are removed (Docker leaves the start-up address there, and kube-proxy would resolve the
  node's own name to it).
One run at a time (a lock beside the caches); prints each change; exits 3 when a cluster named by --start was given
up. Docker gives a container an address of its choice
only on a network whose IPv4 subnet was given at its creation (lib.sh's kind_network makes `kind` so): on another,
the first move fails, every container is put back on the network and the run fails with Docker's message.
"""

from __future__ import annotations

import argparse
import fcntl
import io
import ipaddress
import json
import os
import re
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass, field

NETWORK = os.environ.get("KIND_NETWORK", "kind")
LOCK = os.path.join(os.environ.get("KUBESCHED_CACHE", "/var/cache/kubesched"), ".kind-network.lock")
CLUSTER = "io.x-k8s.kind.cluster"
ROLE = "io.x-k8s.kind.role"
FLAGS = "/var/lib/kubelet/kubeadm-flags.env"
NODE_IP = re.compile(r"--node-ip=([0-9.]+)")

# Drops the lines of /etc/hosts and of kubelet's copies of it that name the node ($2) at an address not among its
# current ones ($1); prints the files it changed. Written back in place: /etc/hosts is a bind mount.
SWEEP = r"""keep=" $1 "; name=$2
for f in /etc/hosts /var/lib/kubelet/pods/*/etc-hosts; do
  [ -f "$f" ] || continue
  awk -v keep="$keep" -v name="$name" '
    { drop = 0
      if ($1 !~ /^#/ && index(keep, " " $1 " ") == 0) for (i = 2; i <= NF; i++) if ($i == name) drop = 1 }
    !drop' "$f" > /tmp/.readdress-hosts
  cmp -s /tmp/.readdress-hosts "$f" || { cat /tmp/.readdress-hosts > "$f"; echo "$f"; }
done
rm -f /tmp/.readdress-hosts"""


class Failed(Exception):
    pass


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] readdress: {msg}", file=sys.stderr, flush=True)


def docker(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    run = subprocess.run(["docker", *args], capture_output=True, text=True, check=False)
    if check and run.returncode:
        raise Failed(f"docker {' '.join(args)}: {run.stderr.strip()}")
    return run


@dataclass
class Box:
    """A container on the network (a stopped one keeps its place in it)."""

    name: str
    id: str
    created: str
    running: bool
    paused: bool
    cluster: str
    node: bool  # a kind node with a kubelet (not a load balancer)
    ip: str  # IPv4 address on the network now ("" when stopped)
    ip6: str
    static: str  # the IPv4 address Docker gives it at each start ("" for the next free one)
    aliases: list[str] = field(default_factory=list)
    want: str = ""  # the address its kubelet was set up with


def boxes() -> list[Box]:
    ids = docker("ps", "-aq", "--no-trunc").stdout.split()
    # A container removed between the two calls (a `docker run --rm` of a build beside this) is not an error: inspect
    # prints the others and names it on stderr.
    run = docker("inspect", *ids, check=False) if ids else None
    if run and run.returncode and any(not line.startswith("Error: No such object") for line in run.stderr.strip().splitlines()):
        raise Failed(f"docker inspect: {run.stderr.strip()}")
    found = []
    for c in json.loads(run.stdout or "[]") if run else []:
        net = (c["NetworkSettings"].get("Networks") or {}).get(NETWORK)
        if net is None:
            continue
        labels = c["Config"].get("Labels") or {}
        found.append(
            Box(
                name=c["Name"].lstrip("/"),
                id=c["Id"],
                created=c["Created"],
                running=c["State"]["Running"],
                paused=c["State"]["Paused"],
                cluster=labels.get(CLUSTER, ""),
                node=bool(labels.get(CLUSTER)) and labels.get(ROLE) != "external-load-balancer",
                ip=net.get("IPAddress") or "",
                ip6=net.get("GlobalIPv6Address") or "",
                static=(net.get("IPAMConfig") or {}).get("IPv4Address") or "",
                # Docker adds the short id itself on every connect.
                aliases=[a for a in net.get("Aliases") or [] if not c["Id"].startswith(a)],
            )
        )
    return found


def kubelet_address(box: Box) -> str:
    """The --node-ip of the node's kubelet ("" when it has none yet), read from a stopped container too."""
    run = subprocess.run(["docker", "cp", f"{box.name}:{FLAGS}", "-"], capture_output=True, check=False)
    if run.returncode:
        return ""
    with tarfile.open(fileobj=io.BytesIO(run.stdout)) as tar:
        member = tar.next()
        text = tar.extractfile(member).read().decode() if member and member.isfile() else ""
    found = NODE_IP.search(text)
    return found.group(1) if found else ""


def subnets() -> list[ipaddress.IPv4Network]:
    config = json.loads(docker("network", "inspect", NETWORK, "-f", "{{json .IPAM.Config}}").stdout) or []
    nets = [ipaddress.ip_network(c["Subnet"]) for c in config if c.get("Subnet")]
    return [n for n in nets if n.version == 4]


def connect(box: Box, ip: str = "") -> None:
    args = ["network", "connect"]
    if ip:
        args += ["--ip", ip]
    for alias in box.aliases:
        args += ["--alias", alias]
    docker(*args, NETWORK, box.name)


def claims(found: list[Box], nets: list[ipaddress.IPv4Network]) -> dict[str, Box]:
    """Each node's address, by the node that keeps it: of two that claim one, the newer container."""
    kept: dict[str, Box] = {}
    for box in sorted((b for b in found if b.want), key=lambda b: b.created):
        if not any(ipaddress.ip_address(box.want) in n for n in nets):
            log(f"{box.name} was set up with {box.want}, outside the network {NETWORK}; left as it is")
            continue
        if box.want in kept:
            old = kept[box.want]
            log(
                f"{old.name} and {box.name} were both set up with {box.want}: {box.name}, the newer, keeps it; "
                f"cluster {old.cluster} is given up (cluster.sh makes it again)"
            )
        kept[box.want] = box
    return kept


def start(found: list[Box], clusters: set[str]) -> list[Box]:
    """Starts the stopped nodes of these clusters; returns those that could not start because their address is taken."""
    waiting = []
    for box in found:
        if box.cluster in clusters and not box.running:
            run = docker("start", box.name, check=False)
            if run.returncode == 0:
                log(f"started {box.name}")
            elif box.static:
                waiting.append(box)
            else:
                raise Failed(f"docker start {box.name}: {run.stderr.strip()}")
    return waiting


def restart_kubelet(box: Box) -> None:
    """A paused node (make test pauses a cluster it is not using, Docker lets a paused container change networks) is
    thawed for it and paused again."""
    if box.paused:
        docker("unpause", box.name)
    try:
        docker("exec", box.name, "systemctl", "restart", "kubelet")
    finally:
        if box.paused:
            docker("pause", box.name)


def readdress(clusters: set[str]) -> set[str]:
    """Gives the nodes back their addresses; returns the clusters given up."""
    nets = subnets()
    found = boxes()
    waiting = {b.name for b in start(found, clusters)}
    if any(b.cluster in clusters and not b.running for b in found):
        found = boxes()
    for box in found:
        if box.node:
            box.want = kubelet_address(box)
    kept = claims(found, nets)
    given_up = {b.cluster for b in found if b.want and b.want in kept and kept[b.want] is not b}
    movers = [b for b in kept.values() if b.running and b.ip != b.want]
    waiting = [b for b in found if b.name in waiting and kept.get(b.static) is b]
    holders = {b.ip: b for b in found if b.running and b.ip}
    needed = [b.want for b in movers] + [b.static for b in waiting]
    in_the_way = [holders[ip] for ip in needed if ip in holders and holders[ip] not in movers]
    moved = []
    try:
        for box in movers + in_the_way:
            docker("network", "disconnect", NETWORK, box.name)
            moved.append(box)
        for box in waiting:
            docker("start", box.name)
            log(f"started {box.name} at {box.static}, once its address was free")
        for box in movers:
            connect(box, box.want)
            moved.remove(box)
            log(f"{box.name}: {box.ip} -> {box.want}, the address its kubelet was set up with")
        for box in in_the_way:
            connect(box)
            moved.remove(box)
            log(f"{box.name} moved off {box.ip}, which is {kept[box.ip].name}'s")
    finally:
        for box in moved:  # a failure half way leaves no container off the network
            connect(box)
    for box in movers + waiting:
        restart_kubelet(box)
    for box in boxes():
        if box.node and box.running and not box.paused:
            keep = " ".join(a for a in (box.ip, box.ip6) if a)
            run = docker("exec", box.name, "sh", "-c", SWEEP, "sh", keep, box.name, check=False)
            for path in run.stdout.split():
                log(f"{box.name}: {path} named {box.name} at an address it no longer has; line removed")
    return given_up


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--start", action="append", default=[], metavar="CLUSTER", help="start this cluster's stopped nodes")
    args = parser.parse_args()
    os.makedirs(os.path.dirname(LOCK), exist_ok=True)
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            given_up = readdress(set(args.start))
        except Failed as e:
            log(str(e))
            return 1
    # 3: a cluster named by --start was given up (cluster.sh makes it again rather than wait for it to settle).
    return 3 if given_up & set(args.start) else 0


if __name__ == "__main__":
    sys.exit(main())
