# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What an API object means, each rule written once; private to the collection.

Pure functions over API objects as plain dicts, shaped like the JSON the API server returns (camelCase
keys): pods (ready, deleted, containers that cannot start), Deployments (rolled out), Leases (holder, its
pod, whether it is live), the scheduler's container and its flags, and image references.
"""

from __future__ import annotations

import posixpath
import re
from datetime import datetime, timedelta, timezone
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

Obj = Dict[str, Any]

KUBE_SCHEDULER = "kube-scheduler"
DOCKER_HUB = "docker.io"
# Why a container that has not started never will.
CANNOT_START = (
    "ErrImagePull",
    "ImagePullBackOff",
    "ErrImageNeverPull",
    "InvalidImageName",
    "CreateContainerConfigError",
    "CreateContainerError",
    "RunContainerError",
    "CrashLoopBackOff",
)

_TIME_RE = re.compile(r"^(?P<base>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(?P<frac>\d+))?(?P<tz>Z|[+-]\d{2}:?\d{2})?$")
_COMPONENT = re.compile(r"^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$")
_HOST = re.compile(r"^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::[0-9]{1,5})?$")


# --- times -----------------------------------------------------------------------------------


def parse_time(value: Any) -> Optional[datetime]:
    """An RFC 3339 API timestamp (Time or MicroTime) as an aware datetime; None when absent or unreadable."""
    if not value or not isinstance(value, str):
        return None
    match = _TIME_RE.match(value.strip())
    if not match:
        return None
    moment = datetime.strptime(match.group("base"), "%Y-%m-%dT%H:%M:%S")
    frac = match.group("frac")
    if frac:
        moment = moment.replace(microsecond=int(frac[:6].ljust(6, "0")))
    tz = match.group("tz")
    if tz in (None, "Z"):
        return moment.replace(tzinfo=timezone.utc)
    sign = 1 if tz[0] == "+" else -1
    digits = tz[1:].replace(":", "")
    offset = timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    return moment.replace(tzinfo=timezone(sign * offset))


def duration_text(seconds: float) -> str:
    """A number of seconds in words: ``95s``, ``12m5s``, ``3h2m``, ``4d7h``."""
    seconds = max(0, int(seconds))
    if seconds < 120:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds}s" if seconds else f"{minutes}m"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours}h{minutes}m" if minutes else f"{hours}h"
    days, hours = divmod(hours, 24)
    return f"{days}d{hours}h" if hours else f"{days}d"


# --- pods and Deployments --------------------------------------------------------------------


def pod_condition(pod: Obj, condition_type: str) -> Optional[Obj]:
    """The pod's first condition of ``condition_type``, or None."""
    conditions: List[Obj] = (pod.get("status") or {}).get("conditions") or []
    for condition in conditions:
        if condition.get("type") == condition_type:
            return condition
    return None


def pod_ready(pod: Obj) -> bool:
    condition = pod_condition(pod, "Ready")
    return bool(condition and condition.get("status") == "True")


def not_deleted(pods: Iterable[Obj]) -> List[Obj]:
    """The pods without a deletionTimestamp: those a rollout still counts."""
    return [pod for pod in pods if not (pod.get("metadata") or {}).get("deletionTimestamp")]


def restarts(pods: Iterable[Obj]) -> int:
    """The restarts of the containers of the pods not being deleted."""
    return sum(status.get("restartCount") or 0 for pod in not_deleted(pods) for status in (pod.get("status") or {}).get("containerStatuses") or [])


def cannot_start(pods: Sequence[Obj], restarts_before: int = 0) -> List[str]:
    """Why the pods' containers will not start: their waiting reasons, and restarts beyond those before."""
    reasons = [
        ((status.get("state") or {}).get("waiting") or {}).get("reason")
        for pod in not_deleted(pods)
        for status in (pod.get("status") or {}).get("containerStatuses") or []
    ]
    found = [str(reason) for reason in reasons if reason in CANNOT_START]
    more = restarts(pods) - restarts_before
    if more > 0:
        found.append(f"restarts: {more}")
    return list(dict.fromkeys(found))


def same_image(one: Optional[str], other: Optional[str]) -> bool:
    """Whether two image references may name the same image: their repositories equal once ``docker.io/`` and
    ``library/`` are left out, and their tags (or digests) equal when both give one. An image ID (``sha256:…``) or an
    empty reference may be any image."""
    if not one or not other or one.startswith("sha256:") or other.startswith("sha256:"):
        return True

    def key(image: str) -> Tuple[str, Optional[str], Optional[str]]:
        repository, tag, digest = split_image(image)
        repository = repository or ""
        for prefix in ("docker.io/", "index.docker.io/", "library/"):
            repository = repository[len(prefix) :] if repository.startswith(prefix) else repository
        return repository, tag, digest

    (repo_a, tag_a, digest_a), (repo_b, tag_b, digest_b) = key(one), key(other)
    if repo_a != repo_b:
        return False
    if digest_a and digest_b:
        return digest_a == digest_b
    if tag_a and tag_b and not (digest_a or digest_b):
        return tag_a == tag_b
    return True


def own_statuses(pod: Obj) -> Obj:
    """The pod with only the container statuses of its own spec: a status whose container the spec does not have, or
    whose image is not the spec's, was left by another spec of the same pod (a static pod's mirror pod briefly shows
    the statuses of the manifest it replaced)."""
    images = {container.get("name"): container.get("image") for container in (pod.get("spec") or {}).get("containers") or []}
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    own = [status for status in statuses if status.get("name") in images and same_image(images[status.get("name")], status.get("image"))]
    if len(own) == len(statuses):
        return pod
    return dict(pod, status=dict(pod.get("status") or {}, containerStatuses=own))


def rolled_out(deployment: Obj) -> bool:
    """kubectl rollout status's test: the controller saw the spec, and every replica is updated and available."""
    spec, status = deployment.get("spec") or {}, deployment.get("status") or {}
    wanted = spec.get("replicas", 1)
    return (
        (status.get("observedGeneration") or 0) >= ((deployment.get("metadata") or {}).get("generation") or 0)
        and (status.get("updatedReplicas") or 0) == wanted
        and (status.get("replicas") or 0) == wanted
        and (status.get("availableReplicas") or 0) == wanted
        and not status.get("unavailableReplicas")
    )


# --- Leases ----------------------------------------------------------------------------------


def lease_holder(lease: Optional[Obj]) -> str:
    """The Lease's holderIdentity, '' when nobody holds it (or there is no Lease)."""
    return ((lease or {}).get("spec") or {}).get("holderIdentity") or ""


def holder_pod(holder: Optional[str]) -> Optional[str]:
    """The hostname part of a leader election identity (``<hostname>_<uuid>``): a pod's name (a pod's hostname is its
    name), or a node's for a static pod on the host network; None without a holder."""
    if not holder:
        return None
    return holder.split("_", 1)[0] if "_" in holder else holder


def held_by(holder: Optional[str], name: str) -> bool:
    """Whether a Lease holder identity is a pod of the Deployment ``name`` (``<name>-<hash>-<id>_<uuid>``)."""
    return bool(re.match("^" + re.escape(name) + r"-[a-z0-9]{1,10}-[a-z0-9]{5}_", holder or ""))


def lease_finding(lease: Obj, now: datetime, tolerance: timedelta) -> Dict[str, Any]:
    """A Lease's finding ``{"kind": "Lease", "running": bool, "text": str}``: live when it has a holder and
    renewTime + leaseDurationSeconds is not past ``now`` (the API server's time; ``tolerance`` is the slack given
    when it is this host's)."""
    metadata = lease.get("metadata") or {}
    spec = lease.get("spec") or {}
    where = f"Lease {metadata.get('namespace')}/{metadata.get('name')}"
    holder, renewed = spec.get("holderIdentity"), spec.get("renewTime")
    renew_time = parse_time(renewed)
    if not holder:
        text = f"{where} has no holder" + (f" (last renewed {renewed})" if renewed else "")
        return {"kind": "Lease", "running": False, "text": text}
    if renew_time is None:
        return {"kind": "Lease", "running": False, "text": f"{where} held by {holder} was never renewed"}
    expiry = renew_time + timedelta(seconds=spec.get("leaseDurationSeconds") or 0)
    if now - expiry <= tolerance:
        return {"kind": "Lease", "running": True, "text": f"{where} held by {holder} (renewed {renewed})"}
    late = duration_text((now - expiry).total_seconds())
    return {"kind": "Lease", "running": False, "text": f"{where} held by {holder} last renewed {renewed}, expired {late} ago"}


# --- the scheduler's container and its flags -------------------------------------------------


def command_line(container: Obj) -> List[str]:
    """The container's ``command`` and ``args`` as one list."""
    return [str(part) for part in (container.get("command") or []) + (container.get("args") or [])]


def parse_flags(argv: Optional[Iterable[Any]], separate_values: bool = True) -> Dict[str, str]:
    """``{flag: value}`` of a command line: ``--flag=value``, a bare ``--flag`` (``"true"``) and, with
    ``separate_values``, ``--flag value``.

    The last occurrence of a flag wins, as with kube-scheduler's own flag parsing. Arguments that are not
    flags are left out.
    """
    flags = {}
    index = 0
    argv = list(argv or [])
    while index < len(argv):
        arg = str(argv[index])
        index += 1
        if not arg.startswith("-") or arg in ("-", "--"):
            continue
        name, equals, value = arg.lstrip("-").partition("=")
        if not equals:
            if separate_values and index < len(argv) and not str(argv[index]).startswith("-"):
                value = str(argv[index])
                index += 1
            else:
                value = "true"
        flags[name] = value
    return flags


def runs_scheduler(container: Obj, exact: bool = False) -> bool:
    """Whether the container runs a scheduler: its executable or image is a scheduler's; with ``exact``, it is
    named kube-scheduler or its executable is kube-scheduler."""
    argv = command_line(container)
    executable = posixpath.basename(argv[0]) if argv else ""
    if exact:
        return container.get("name") == KUBE_SCHEDULER or executable == KUBE_SCHEDULER
    repository = posixpath.basename(split_image(container.get("image"))[0] or "")
    return "scheduler" in executable or "scheduler" in repository


def scheduler_container(pod_spec: Optional[Obj], exact: bool = False) -> Optional[Obj]:
    """The container of a pod spec that runs the scheduler: the first one whose executable or image is a
    scheduler's, else the one named kube-scheduler, else the first one; None without containers. With ``exact``
    (a manifest the collection patches), only one named kube-scheduler or running the kube-scheduler executable."""
    containers: List[Obj] = (pod_spec or {}).get("containers") or []
    for container in containers:
        if runs_scheduler(container, exact):
            return container
    if exact:
        return None
    for container in containers:
        if container.get("name") == KUBE_SCHEDULER:
            return container
    return containers[0] if containers else None


# --- image references ------------------------------------------------------------------------


def split_image(image: Optional[str]) -> Tuple[Optional[str], Optional[str], Optional[str]]:
    """``(repository, tag, digest)`` of an image reference; tag and digest are None when absent."""
    if not image:
        return None, None, None
    name, at, digest = image.partition("@")
    slash = name.rfind("/")
    colon = name.rfind(":")
    tag = None
    if colon > slash:
        name, tag = name[:colon], name[colon + 1 :]
    return name, tag or None, (digest if at else None) or None


def parse_image(image: Any) -> Dict[str, str]:
    """The registry host and the repository path of an image repository, by Docker's rules.

    The first component is the host when the image has a ``/`` and that component holds a ``.`` or a
    ``:`` or is ``localhost``; otherwise the host is ``docker.io``, where a bare name is in ``library/``.
    Raises ValueError for an empty image, one with a tag or digest, or one that is not a repository.
    """
    if not isinstance(image, str) or not image.strip():
        raise ValueError("The image is empty: give a repository such as localhost:5001/my-scheduler or registry.example.com/team/my-scheduler.")
    if image != image.strip() or any(char.isspace() for char in image):
        raise ValueError(f"The image '{image}' contains white space: give a repository such as localhost:5001/my-scheduler.")
    if "@" in image:
        raise ValueError(f"The image '{image}' carries a digest: give the repository without tag or digest ({image.split('@', 1)[0]}).")
    first, slash, rest = image.partition("/")
    if slash and ("." in first or ":" in first or first == "localhost"):
        host, path = first, rest
    else:
        host, path = DOCKER_HUB, image
    last = path.rsplit("/", 1)[-1]
    if ":" in last:
        repository, tag = image.rsplit(":", 1)
        raise ValueError(f"The image '{image}' carries a tag ('{tag}'): give the repository without tag or digest ({repository}) and the tag on its own.")
    if not _HOST.match(host):
        raise ValueError(f"The image '{image}' does not name a valid registry host ('{host}').")
    if host in (DOCKER_HUB, "index.docker.io"):
        host = DOCKER_HUB
        if "/" not in path:
            path = "library/" + path
    for component in path.split("/"):
        if not _COMPONENT.match(component):
            raise ValueError(
                f"The image '{image}' is not a valid repository: its path component '{component}' must be lowercase letters and digits,"
                " separated by '.', '_', '__' or '-'."
            )
    return {"host": host, "path": path}
