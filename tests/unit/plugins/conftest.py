# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A real HTTP server on 127.0.0.1 that plays a container registry (the manifest endpoint of the
distribution API, with no authentication, HTTP Basic or the token flow, and a token service), for the
tests of module_utils/registry.py and of the image_digest module."""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

USERNAME = "alice"
PASSWORD = "pa55-w0rd-never-shown"  # noqa: S105 - the fake registry's password
TOKEN = "tok-3f9a1c-never-shown"  # noqa: S105 - the token the fake token service issues
MANIFEST = json.dumps(
    {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": "sha256:" + "1" * 64, "size": 2},
        "layers": [],
    },
    indent=3,
).encode()
MANIFEST_DIGEST = "sha256:" + hashlib.sha256(MANIFEST).hexdigest()


class FakeRegistry:
    """What the registry does, set by each test, and what it was asked.

    ``auth``: None (anonymous), ``"basic"`` or ``"bearer"``. With ``"bearer"`` the manifest endpoint takes
    only ``Bearer <token>``; the token service (``/token``) checks ``service`` and ``scope`` and, unless
    ``anonymous_tokens``, the Basic credentials, and answers ``{answer_field: token}``.
    ``requests`` records ``(method, path, query, authorization)``.
    """

    USERNAME = USERNAME
    PASSWORD = PASSWORD
    TOKEN = TOKEN
    MANIFEST = MANIFEST
    MANIFEST_DIGEST = MANIFEST_DIGEST

    def __init__(self, server):
        self.server = server
        self.port = server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.host = f"127.0.0.1:{self.port}"
        self.manifests = {("team/app", "v1"): MANIFEST}
        self.auth = None
        self.service = "fake registry, with a comma"
        self.challenge_scope = True
        self.anonymous_tokens = False
        self.token = TOKEN  # the token the registry takes
        self.token_issued = TOKEN  # the token the token service gives
        self.realm_url = None  # a token service elsewhere
        self.answer_field = "token"
        self.digest_header = True  # send Docker-Content-Digest
        self.digest_value = None  # a digest to send instead of the manifest's
        self.head_allowed = True
        self.status = None  # answer every manifest request with this status
        self.error_message = "boom"  # the message of that answer
        self.unauthorized = "authentication required"  # the message of a 401 of the manifest endpoint
        self.refusal = "bad credentials"  # the message of the token service's refusal
        self.redirect_to = None  # a base URL the manifest requests are redirected to (307)
        self.requests = []

    def image(self, path="team/app"):
        return f"{self.host}/{path}"

    def realm(self):
        return self.realm_url or f"{self.url}/token"

    def expected_scope(self, path):
        return f"repository:{path}:pull"

    def basic_ok(self, authorization):
        return authorization == "Basic " + base64.b64encode(f"{USERNAME}:{PASSWORD}".encode()).decode()

    # The server's side.

    def answer(self, method, raw_path, headers):
        parts = urlsplit(raw_path)
        query = parse_qs(parts.query)
        authorization = headers.get("Authorization")
        self.requests.append((method, parts.path, query, authorization))
        if parts.path == "/token":
            return self.answer_token(query, authorization)
        if not parts.path.startswith("/v2/") or "/manifests/" not in parts.path:
            return 404, {}, b""
        path, tag = parts.path[len("/v2/") :].split("/manifests/", 1)
        if self.redirect_to:
            return 307, {"Location": f"{self.redirect_to}{parts.path}"}, b""
        if method == "HEAD" and not self.head_allowed:
            return 405, {}, b""
        if self.status:
            return self.status, {"Content-Type": "application/json"}, self.error("UNKNOWN", self.error_message)
        if self.auth == "basic" and not self.basic_ok(authorization):
            return 401, {"WWW-Authenticate": 'Basic realm="fake registry, basic"'}, self.error("UNAUTHORIZED", self.unauthorized)
        if self.auth == "bearer" and authorization != f"Bearer {self.token}":
            params = f'realm="{self.realm()}",service="{self.service}"'
            if self.challenge_scope:
                params += f',scope="{self.expected_scope(path)}"'
            return 401, {"WWW-Authenticate": "Bearer " + params}, self.error("UNAUTHORIZED", self.unauthorized)
        body = self.manifests.get((path, tag))
        if body is None:
            return 404, {"Content-Type": "application/json"}, self.error("MANIFEST_UNKNOWN", "manifest unknown")
        answer = {"Content-Type": "application/vnd.oci.image.manifest.v1+json", "Content-Length": str(len(body))}
        if self.digest_header:
            answer["Docker-Content-Digest"] = self.digest_value or "sha256:" + hashlib.sha256(body).hexdigest()
        return 200, answer, body

    def answer_token(self, query, authorization):
        path = "team/app"
        if query.get("service") != [self.service] or query.get("scope") != [self.expected_scope(path)]:
            return 400, {}, self.error("DENIED", "wrong service or scope")
        if not self.anonymous_tokens and not self.basic_ok(authorization):
            return 401, {"WWW-Authenticate": 'Basic realm="token"'}, self.error("UNAUTHORIZED", self.refusal)
        return 200, {"Content-Type": "application/json"}, json.dumps({self.answer_field: self.token_issued, "expires_in": 300}).encode()

    @staticmethod
    def error(code, message):
        return json.dumps({"errors": [{"code": code, "message": message}]}).encode()


def _handler(registry):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self, method):
            status, headers, body = registry.answer(method, self.path, self.headers)
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            if "Content-Length" not in headers:
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if method != "HEAD":
                self.wfile.write(body)

        def do_HEAD(self):  # noqa: N802 - http.server's name
            self._serve("HEAD")

        def do_GET(self):  # noqa: N802 - http.server's name
            self._serve("GET")

        def log_message(self, *args):
            pass

    return Handler


@pytest.fixture
def no_proxies(monkeypatch):
    """Requests to 127.0.0.1 go there, whatever proxies the environment names."""
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def fake_registry(no_proxies):
    """Starts FakeRegistry servers on 127.0.0.1 (a free port each); ``fake_registry()`` returns a new one."""
    servers = []

    def start():
        server = ThreadingHTTPServer(("127.0.0.1", 0), None)
        registry = FakeRegistry(server)
        server.RequestHandlerClass = _handler(registry)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        servers.append(server)
        return registry

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()
