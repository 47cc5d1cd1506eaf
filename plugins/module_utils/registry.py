# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The collection's one client of the container registry API (the OCI distribution specification).

* ``parse_image`` splits an image repository into its registry host and its path, by Docker's rules
  (``busybox`` is ``docker.io`` ``library/busybox``; ``localhost:5001/my-scheduler`` is on
  ``localhost:5001``).
* ``api_url`` is the base URL of the registry's API (``http://`` for localhost and 127.x, Docker Hub's
  API host for ``docker.io``).
* ``manifest_digest`` asks the registry for the digest of a tag with a ``HEAD`` of its manifest, and
  authenticates as the registry asks in its ``WWW-Authenticate`` challenge: HTTP Basic, or the
  distribution token flow (``Bearer realm=...,service=...,scope=...``: a token from the realm, with
  the credentials or anonymously, then the request again with it) that Docker Hub, GHCR, GitLab and
  Harbor use. A registry that answers ``HEAD`` without ``Docker-Content-Digest`` is asked with
  ``GET`` and the digest is computed from the manifest's bytes.

What goes wrong is a ``RegistryError`` whose ``kind`` says what: ``unreachable`` (no answer, a timeout,
a TLS error, a 5xx), ``denied`` (401 or 403 after authenticating), ``missing`` (404) or ``invalid``
(an answer that is not what the API promises). Its message never carries the password or a token.

Only the standard library and ``ansible.module_utils.urls`` are used, so that this runs in a module.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import re
import urllib.error
from collections import namedtuple
from urllib.parse import quote, urlencode, urljoin, urlsplit, urlunsplit

from ansible.module_utils.common.text.converters import to_text
from ansible.module_utils.urls import ConnectionError as UrlsConnectionError
from ansible.module_utils.urls import Request, basic_auth_header

from ansible_collections.kubesched.scheduler.plugins.module_utils._k8s.predicates import DOCKER_HUB, parse_image

# Asked for by every manifest request: single-platform images and indexes, OCI and Docker.
MANIFEST_TYPES = (
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
    "application/vnd.docker.distribution.manifest.v2+json",
)

DOCKER_HUB_API = "registry-1.docker.io"
DIGEST_PATTERN = re.compile(r"^sha256:[0-9a-f]{64}$")
TAG_PATTERN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
# RFC 7235: a token (an auth-scheme, a parameter's name or an unquoted value), and a token68.
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_TOKEN68 = re.compile(r"[A-Za-z0-9._~+/-]+=*")
_UNQUOTED = re.compile(r"[^,\s]*")  # a token, leniently: some servers leave URLs unquoted
_PARAM = re.compile(r"[ \t]*([!#$%&'*+.^_`|~0-9A-Za-z-]+)[ \t]*=(?!=)[ \t]*")

MAX_MANIFEST_BYTES = 4 * 1024 * 1024  # the limit the distribution specification lets registries set
MAX_REDIRECTS = 5
USER_AGENT = "kubesched.scheduler-registry"
KINDS = ("unreachable", "denied", "missing", "invalid")
_REDIRECTS = (301, 302, 303, 307, 308)

_Answer = namedtuple("_Answer", "status headers body url")


class RegistryError(Exception):
    """What went wrong when the registry was asked: ``kind`` (one of ``KINDS``), the HTTP ``status`` of the
    answer (None without one), the ``url`` that was asked, and ``message``, a sentence that names the cause."""

    def __init__(self, kind, message, status=None, url=""):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
        self.url = url


def api_url(image, registry_url=""):
    """The base URL of the registry API of ``image``: ``registry_url`` (without a trailing ``/``) when given;
    else ``http://`` for hosts that start with ``localhost`` or ``127.``, ``https://`` for the others, and
    Docker Hub's API host for ``docker.io``."""
    host = parse_image(image)["host"]
    if registry_url:
        if not re.match(r"^https?://[^/]", registry_url):
            raise ValueError(f"The registry URL '{_safe_url(registry_url)}' must start with http:// or https:// and name a host.")
        return registry_url.rstrip("/")
    scheme = "http://" if host.startswith(("localhost", "127.")) else "https://"
    return scheme + (DOCKER_HUB_API if host == DOCKER_HUB else host)


def manifest_url(image, tag, registry_url=""):
    """The URL of the manifest of ``image:tag``: ``<api>/v2/<path>/manifests/<tag>``."""
    _check_tag(tag)
    return f"{api_url(image, registry_url)}/v2/{quote(parse_image(image)['path'])}/manifests/{quote(tag)}"


def parse_challenges(value):
    """The challenges of a ``WWW-Authenticate`` value (RFC 7235), as ``[(scheme, params)]``: the scheme in
    lowercase, the parameters by lowercase name (quoted values unquoted; a token68 under ``token68``)."""
    challenges = []
    pos, end = 0, len(value or "")
    while pos < end:
        while pos < end and value[pos] in " \t,":
            pos += 1
        match = _TOKEN.match(value, pos)
        if not match:
            break
        scheme, params = match.group().lower(), {}
        challenges.append((scheme, params))
        pos = match.end()
        while pos < end and value[pos] in " \t":
            pos += 1
        param = _PARAM.match(value, pos)
        if not param:
            token68 = _TOKEN68.match(value, pos)
            if token68 and (token68.end() == end or value[token68.end()] in " \t,"):
                params["token68"] = token68.group()
                pos = token68.end()
            continue
        while param:
            pos = param.end()
            if pos < end and value[pos] == '"':
                text, pos = _quoted(value, pos)
            else:
                unquoted = _UNQUOTED.match(value, pos)
                text, pos = unquoted.group(), unquoted.end()
            params.setdefault(param.group(1).lower(), text)
            while pos < end and value[pos] in " \t":
                pos += 1
            if pos < end and value[pos] != ",":
                pos = value.find(",", pos)  # skip what does not parse, up to the next list element
                pos = end if pos < 0 else pos
            # After a comma: another parameter of this challenge, or (token SP token) the next challenge.
            while pos < end and value[pos] in " \t,":
                pos += 1
            param = _PARAM.match(value, pos)
    return challenges


def _quoted(value, pos):
    """The text of the quoted-string at ``value[pos]`` (backslash escapes resolved), and the position after it."""
    chars, pos = [], pos + 1
    while pos < len(value):
        char = value[pos]
        if char == "\\" and pos + 1 < len(value):
            chars.append(value[pos + 1])
            pos += 2
        elif char == '"':
            return "".join(chars), pos + 1
        else:
            chars.append(char)
            pos += 1
    return "".join(chars), pos


def manifest_digest(image, tag, registry_url="", username="", password="", timeout=10, validate_certs=True):
    """The digest (``sha256:<64 hex>``) the registry of ``image`` holds for ``tag``.

    Raises ValueError for an image or tag that is not valid, and RegistryError when the registry does not
    answer, refuses, lacks the tag, or answers what the API does not promise.
    """
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        raise ValueError(f"The timeout must be a number of seconds above 0 (got {timeout!r}).")
    return _Client(image, tag, registry_url, username or "", password or "", timeout, validate_certs).digest()


def _check_tag(tag):
    if not isinstance(tag, str) or not TAG_PATTERN.match(tag):
        raise ValueError(f"The tag '{tag}' is not a valid image tag: use letters, digits, '_', '.' and '-' (at most 128, not starting with '.' or '-').")


def _safe_url(url):
    """``url`` without the user and password it may carry."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def _header(headers, name):
    return (headers.get(name) if headers is not None else None) or ""


def _all_headers(headers, name):
    if headers is None:
        return []
    get_all = getattr(headers, "get_all", None)
    values = get_all(name) if get_all else [headers.get(name)]
    return [value for value in values or [] if value]


def _error_detail(body):
    """The registry's own words from an error body (``{"errors": [{"code", "message"}]}``), or ''."""
    try:
        errors = json.loads(body.decode("utf-8")).get("errors") or []
        words = [" ".join(str(error.get(key) or "") for key in ("code", "message")).strip() for error in errors if isinstance(error, dict)]
    except (ValueError, AttributeError, UnicodeDecodeError):
        return ""
    return "; ".join(word for word in words if word)[:300]


class _Client:
    """One question to the registry: the manifest of ``image:tag``, with the credentials and the token
    the question needs. Every message goes through ``_error``, which takes the secrets out."""

    def __init__(self, image, tag, registry_url, username, password, timeout, validate_certs):
        self.image = image
        self.tag = tag
        self.path = parse_image(image)["path"]
        self.base = api_url(image, registry_url)
        self.url = manifest_url(image, tag, registry_url)
        self.username = username
        self.password = password
        self.timeout = timeout
        self.validate_certs = validate_certs
        self.secrets = [secret for secret in (password, to_text(basic_auth_header(username, password)).split(" ", 1)[1]) if username and secret]

    # The question and its answers.

    def digest(self):
        headers = {"Accept": ", ".join(MANIFEST_TYPES)}
        answer = self._send("HEAD", self.url, headers)
        if answer.status == 401:
            headers["Authorization"] = self._authorization(answer)
            answer = self._send("HEAD", self.url, headers)
        if answer.status == 405:  # a registry (or proxy) that does not serve HEAD
            answer = self._send("GET", self.url, headers)
        self._check(answer)
        digest = _header(answer.headers, "Docker-Content-Digest").strip()
        if digest:
            return self._valid(digest, answer)
        if answer.body is None:  # HEAD without the digest: the manifest itself
            answer = self._send("GET", self.url, headers)
            self._check(answer)
            digest = _header(answer.headers, "Docker-Content-Digest").strip()
            if digest:
                return self._valid(digest, answer)
        return self._computed(answer)

    def _check(self, answer):
        """Raise the RegistryError of an answer other than 200."""
        status = answer.status
        if status == 200:
            return
        subject = f"{self.image}:{self.tag}"
        if status in (401, 403):
            raise self._error(
                "denied",
                f"The registry {self.base} refused to show {subject} (HTTP {status}{self._detail(answer)}): {self._credentials_hint()}",
                answer,
            )
        if status == 404:
            raise self._error("missing", f"The registry {self.base} has no tag '{self.tag}' of image '{self.image}' (HTTP 404{self._detail(answer)}).", answer)
        if status == 429 or status >= 500:
            raise self._error("unreachable", f"The registry {self.base} did not answer for {subject} (HTTP {status}{self._detail(answer)}).", answer)
        raise self._error("invalid", f"The registry {self.base} answered the request for {subject} with HTTP {status}{self._detail(answer)}.", answer)

    def _valid(self, digest, answer):
        if not DIGEST_PATTERN.match(digest):
            raise self._error(
                "invalid",
                f"The registry {self.base} answered for {self.image}:{self.tag} with a Docker-Content-Digest that is not sha256:<64 hex digits>"
                f" ('{digest[:100]}').",
                answer,
            )
        return digest

    def _computed(self, answer):
        body = answer.body or b""
        if len(body) > MAX_MANIFEST_BYTES:
            raise self._error("invalid", f"The registry {self.base} answered for {self.image}:{self.tag} with more than {MAX_MANIFEST_BYTES} bytes.", answer)
        try:
            manifest = json.loads(body.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            manifest = None
        if not isinstance(manifest, dict):
            raise self._error(
                "invalid",
                f"The registry {self.base} answered for {self.image}:{self.tag} without a Docker-Content-Digest and with a body that is not a manifest.",
                answer,
            )
        return "sha256:" + hashlib.sha256(body).hexdigest()

    # Authentication.

    def _authorization(self, answer):
        """The Authorization header the registry's challenge asks for."""
        challenges = []
        for value in _all_headers(answer.headers, "WWW-Authenticate"):
            challenges.extend(parse_challenges(value))
        bearer = next((params for scheme, params in challenges if scheme == "bearer" and params.get("realm")), None)
        if bearer is not None:
            token = self._token(bearer)
            return "Bearer " + token
        if self.username:  # Basic, or a challenge this client does not know: the credentials as Basic
            return to_text(basic_auth_header(self.username, self.password))
        schemes = ", ".join(sorted({scheme.capitalize() for scheme, params in challenges})) or "no challenge"
        raise self._error(
            "denied",
            f"The registry {self.base} refused to show {self.image}:{self.tag} (HTTP 401, {schemes}): {self._credentials_hint()}",
            answer,
        )

    def _token(self, challenge):
        """A token from the realm of a Bearer challenge (the distribution token flow)."""
        realm = challenge["realm"]
        if not re.match(r"^https?://[^/]", realm):
            raise self._error("invalid", f"The registry {self.base} named a token service that is not an http(s) URL ('{realm[:200]}').", None, url=realm)
        query = []
        if challenge.get("service"):
            query.append(("service", challenge["service"]))
        for scope in (challenge.get("scope") or f"repository:{self.path}:pull").split():
            query.append(("scope", scope))
        headers = {"Accept": "application/json"}
        if self.username:
            query.append(("account", self.username))
            headers["Authorization"] = to_text(basic_auth_header(self.username, self.password))
        url = realm + ("&" if "?" in realm else "?") + urlencode(query)
        answer = self._send("GET", url, headers)
        who = f"the username '{self.username}'" if self.username else "no credentials"
        if answer.status in (401, 403):
            raise self._error(
                "denied",
                f"The registry {self.base} refused to show {self.image}:{self.tag}: its token service {_safe_url(realm)} refused a token to {who}"
                f" (HTTP {answer.status}{self._detail(answer)}): {self._credentials_hint()}",
                answer,
            )
        if answer.status != 200:
            kind = "unreachable" if answer.status == 429 or answer.status >= 500 else "invalid"
            service = _safe_url(realm)
            raise self._error(kind, f"The token service {service} of the registry {self.base} answered HTTP {answer.status}{self._detail(answer)}.", answer)
        try:
            data = json.loads((answer.body or b"").decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            data = None
        token = (data.get("token") or data.get("access_token")) if isinstance(data, dict) else None
        if not isinstance(token, str) or not token:
            raise self._error("invalid", f"The token service {_safe_url(realm)} of the registry {self.base} answered without a token.", answer)
        self.secrets.append(token)
        return token

    def _credentials_hint(self):
        if self.username:
            return f"check the username '{self.username}' and its password, and that the account may pull {self.path}."
        return f"set the username and password of an account that may pull {self.path} (or the registry does not have {self.image})."

    # HTTP.

    def _send(self, method, url, headers):
        """The answer to one request, redirects followed (the credentials only to the same scheme and host).
        The body is read for GET and for errors; it is None for a successful HEAD."""
        request = Request(timeout=self.timeout, validate_certs=self.validate_certs, follow_redirects="none", use_netrc=False, http_agent=USER_AGENT)
        headers = dict(headers)
        for _hop in range(MAX_REDIRECTS + 1):
            try:
                response = request.open(method, url, headers=headers)
            except urllib.error.HTTPError as exc:
                location = _header(exc.headers, "Location")
                if exc.code in _REDIRECTS and location:
                    target = urljoin(url, location)
                    if urlsplit(target)[:2] != urlsplit(url)[:2]:
                        headers.pop("Authorization", None)
                    url = target
                    continue
                try:
                    return _Answer(exc.code, exc.headers, self._read(exc, url, quiet=True), url)
                finally:
                    exc.close()
            except (urllib.error.URLError, UrlsConnectionError, OSError, http.client.HTTPException, ValueError) as exc:
                raise self._unreachable(exc, url) from None
            with response:
                body = self._read(response, url) if method != "HEAD" else None
                return _Answer(response.getcode(), response.headers, body, url)
        subject = f"{self.image}:{self.tag}"
        raise self._error("invalid", f"The registry {self.base} redirected the request for {subject} more than {MAX_REDIRECTS} times.", None, url=url)

    def _read(self, response, url, quiet=False):
        try:
            return response.read(MAX_MANIFEST_BYTES + 1) or b""
        except (OSError, http.client.HTTPException, ValueError) as exc:
            if quiet:
                return b""
            raise self._unreachable(exc, url) from None

    def _unreachable(self, exc, url):
        reason = getattr(exc, "reason", None) or exc
        text = to_text(reason, errors="replace") or type(reason).__name__
        if "timed out" in text.lower():
            text = f"timed out after {self.timeout} s"
        host = urlsplit(url).netloc
        where = self.base if host == urlsplit(self.base).netloc else f"{self.base} (through {_safe_url(url).split('?', 1)[0]})"
        return self._error("unreachable", f"The registry {where} did not answer ({text}).", None, url=url)

    def _detail(self, answer):
        detail = _error_detail(answer.body) if answer.body else ""
        return f": {detail}" if detail else ""

    def _error(self, kind, message, answer, url=None):
        for secret in self.secrets:
            message = message.replace(secret, "********")
        where = _safe_url(url if url is not None else (answer.url if answer is not None else self.url))
        for secret in self.secrets:
            where = where.replace(secret, "********")
        return RegistryError(kind, message, status=answer.status if answer is not None else None, url=where)
