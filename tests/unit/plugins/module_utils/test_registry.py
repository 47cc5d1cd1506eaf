# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""module_utils/registry.py: the parser of image references, the API URL, the challenge parser, and
manifest_digest against a real HTTP server on 127.0.0.1 (tests/unit/plugins/conftest.py) that plays a
registry: anonymous, HTTP Basic, the distribution token flow, redirects, and the ways it fails."""

from __future__ import annotations

import base64
import hashlib
import socket

import pytest

from ansible_collections.kubesched.scheduler.plugins.module_utils import registry
from ansible_collections.kubesched.scheduler.plugins.module_utils.registry import (
    MANIFEST_TYPES,
    RegistryError,
    api_url,
    manifest_digest,
    manifest_url,
    parse_challenges,
    parse_image,
)


@pytest.mark.parametrize(
    "image, host, path, api",
    [
        ("busybox", "docker.io", "library/busybox", "https://registry-1.docker.io"),
        ("library/busybox", "docker.io", "library/busybox", "https://registry-1.docker.io"),
        ("team/my-scheduler", "docker.io", "team/my-scheduler", "https://registry-1.docker.io"),
        ("docker.io/busybox", "docker.io", "library/busybox", "https://registry-1.docker.io"),
        ("docker.io/team/app", "docker.io", "team/app", "https://registry-1.docker.io"),
        ("index.docker.io/team/app", "docker.io", "team/app", "https://registry-1.docker.io"),
        ("localhost/my-scheduler", "localhost", "my-scheduler", "http://localhost"),
        ("localhost:5001/my-scheduler", "localhost:5001", "my-scheduler", "http://localhost:5001"),
        ("127.0.0.1:5000/a/b", "127.0.0.1:5000", "a/b", "http://127.0.0.1:5000"),
        ("ghcr.io/org/x", "ghcr.io", "org/x", "https://ghcr.io"),
        ("registry.example.com/team/sub/my-scheduler", "registry.example.com", "team/sub/my-scheduler", "https://registry.example.com"),
        ("registry:5000/my.scheduler_v2", "registry:5000", "my.scheduler_v2", "https://registry:5000"),
        ("harbor.example.com:8443/proj/a__b-c", "harbor.example.com:8443", "proj/a__b-c", "https://harbor.example.com:8443"),
        ("[::1]:5000/x", "[::1]:5000", "x", "https://[::1]:5000"),
    ],
)
def test_parse_image_and_api_url(image, host, path, api):
    assert parse_image(image) == {"host": host, "path": path}
    assert api_url(image) == api


@pytest.mark.parametrize(
    "image, message",
    [
        ("", "The image is empty"),
        (None, "The image is empty"),
        (" busybox", "contains white space"),
        ("busybox:1.36", "carries a tag ('1.36')"),
        ("localhost:5001/my-scheduler:v1.37.2", "carries a tag ('v1.37.2'): give the repository without tag or digest (localhost:5001/my-scheduler)"),
        ("localhost:5001", "carries a tag ('5001')"),
        ("ghcr.io/org/x@sha256:" + "a" * 64, "carries a digest: give the repository without tag or digest (ghcr.io/org/x)"),
        ("x@latest", "carries a digest"),
        ("Team/app", "its path component 'Team' must be lowercase"),
        ("ghcr.io/org//x", "its path component '' must be lowercase"),
        ("ghcr.io/org/x/", "its path component '' must be lowercase"),
        ("ghcr.io/-x", "its path component '-x' must be lowercase"),
        ("bad_host.io:/x", "does not name a valid registry host ('bad_host.io:')"),
    ],
)
def test_parse_image_refuses(image, message):
    with pytest.raises(ValueError, match=None) as info:
        parse_image(image)
    assert message in str(info.value)


@pytest.mark.parametrize(
    "registry_url, api",
    [
        ("", "http://localhost:5001"),
        ("https://mirror.example.com/", "https://mirror.example.com"),
        ("http://10.0.0.5:5000//", "http://10.0.0.5:5000"),
        ("https://proxy.example.com/registry", "https://proxy.example.com/registry"),
    ],
)
def test_api_url_takes_the_registry_url(registry_url, api):
    assert api_url("localhost:5001/my-scheduler", registry_url) == api


def test_api_url_refuses_a_url_without_scheme():
    with pytest.raises(ValueError, match="must start with http:// or https://"):
        api_url("localhost:5001/x", "localhost:5001")


def test_manifest_url():
    assert manifest_url("busybox", "1.36") == "https://registry-1.docker.io/v2/library/busybox/manifests/1.36"
    assert manifest_url("localhost:5001/team/x", "v1", "http://r:1/") == "http://r:1/v2/team/x/manifests/v1"
    for tag in ("", "-x", ".x", "a" * 129, "v1/2", "sha256:" + "a" * 64):
        with pytest.raises(ValueError, match="is not a valid image tag"):
            manifest_url("busybox", tag)


def test_manifest_types():
    assert MANIFEST_TYPES == (
        "application/vnd.oci.image.index.v1+json",
        "application/vnd.oci.image.manifest.v1+json",
        "application/vnd.docker.distribution.manifest.list.v2+json",
        "application/vnd.docker.distribution.manifest.v2+json",
    )


@pytest.mark.parametrize(
    "value, challenges",
    [
        (
            'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/busybox:pull"',
            [("bearer", {"realm": "https://auth.docker.io/token", "service": "registry.docker.io", "scope": "repository:library/busybox:pull"})],
        ),
        (
            'Basic realm="Harbor, the registry", Bearer realm="https://h/service/token?x=1", service="harbor-registry",'
            ' scope="repository:a/b:pull,push", error="insufficient_scope"',
            [
                ("basic", {"realm": "Harbor, the registry"}),
                (
                    "bearer",
                    {"realm": "https://h/service/token?x=1", "service": "harbor-registry", "scope": "repository:a/b:pull,push", "error": "insufficient_scope"},
                ),
            ],
        ),
        ('BEARER Realm="a\\"b\\\\c"', [("bearer", {"realm": 'a"b\\c'})]),
        ("Basic", [("basic", {})]),
        ("Negotiate YIIB==, Basic realm=plain", [("negotiate", {"token68": "YIIB=="}), ("basic", {"realm": "plain"})]),
        (
            "Bearer realm=https://gitlab.example.com/jwt/auth,service=container_registry",
            [("bearer", {"realm": "https://gitlab.example.com/jwt/auth", "service": "container_registry"})],
        ),
        ("", []),
    ],
)
def test_parse_challenges(value, challenges):
    assert parse_challenges(value) == challenges


def failure(secrets=(), **kwargs):
    """The RegistryError of manifest_digest(**kwargs); none of ``secrets``, the password or its Basic form is in it."""
    with pytest.raises(RegistryError) as info:
        manifest_digest(**kwargs)
    error = info.value
    password = kwargs.get("password")
    secrets = [*secrets, *([password, base64.b64encode(f"{kwargs.get('username')}:{password}".encode()).decode()] if password else [])]
    for secret in secrets:
        assert secret not in str(error)
        assert secret not in error.message
        assert secret not in error.url
    assert error.kind in registry.KINDS
    return error


def test_anonymous(fake_registry):
    fake = fake_registry()
    assert manifest_digest(fake.image(), "v1") == fake.MANIFEST_DIGEST
    assert [(method, path, auth) for method, path, query, auth in fake.requests] == [("HEAD", "/v2/team/app/manifests/v1", None)]


def test_accept_header_names_every_manifest_type(fake_registry, monkeypatch):
    fake = fake_registry()
    seen = []
    answer = fake.answer

    def record(method, path, headers):
        seen.append(headers.get("Accept"))
        return answer(method, path, headers)

    monkeypatch.setattr(fake, "answer", record)
    manifest_digest(fake.image(), "v1")
    assert seen == [", ".join(MANIFEST_TYPES)]


def test_missing_tag(fake_registry):
    fake = fake_registry()
    error = failure(image=fake.image(), tag="v2")
    assert (error.kind, error.status, error.url) == ("missing", 404, f"{fake.url}/v2/team/app/manifests/v2")
    assert str(error) == f"The registry {fake.url} has no tag 'v2' of image '{fake.image()}' (HTTP 404)."


def test_registry_url_overrides_the_host(fake_registry):
    fake = fake_registry()
    assert manifest_digest("registry.example.com/team/app", "v1", registry_url=fake.url + "/") == fake.MANIFEST_DIGEST


def test_basic_auth(fake_registry):
    fake = fake_registry()
    fake.auth = "basic"
    assert manifest_digest(fake.image(), "v1", username=fake.USERNAME, password=fake.PASSWORD) == fake.MANIFEST_DIGEST
    # The credentials go only where the challenge asks for them.
    assert [auth is not None for method, path, query, auth in fake.requests] == [False, True]
    assert fake.basic_ok(fake.requests[1][3])


def test_basic_auth_wrong_password(fake_registry):
    fake = fake_registry()
    fake.auth = "basic"
    error = failure(image=fake.image(), tag="v1", username=fake.USERNAME, password="wrong-" + fake.PASSWORD)
    assert (error.kind, error.status) == ("denied", 401)
    assert str(error) == (
        f"The registry {fake.url} refused to show {fake.image()}:v1 (HTTP 401): check the username '{fake.USERNAME}' and its password,"
        " and that the account may pull team/app."
    )
    assert len(fake.requests) == 2


def test_basic_auth_without_credentials(fake_registry):
    fake = fake_registry()
    fake.auth = "basic"
    error = failure(image=fake.image(), tag="v1")
    assert (error.kind, error.status) == ("denied", 401)
    assert "(HTTP 401, Basic): set the username and password of an account that may pull team/app" in str(error)
    assert len(fake.requests) == 1


def test_bearer_token_flow(fake_registry):
    fake = fake_registry()
    fake.auth = "bearer"
    assert manifest_digest(fake.image(), "v1", username=fake.USERNAME, password=fake.PASSWORD) == fake.MANIFEST_DIGEST
    head, token, retry = fake.requests
    assert head[0::3] == ("HEAD", None)
    assert token[:2] == ("GET", "/token")
    # The service carries a comma inside its quotes; it arrives whole.
    assert token[2] == {"service": ["fake registry, with a comma"], "scope": ["repository:team/app:pull"], "account": [fake.USERNAME]}
    assert fake.basic_ok(token[3])
    assert retry[0::3] == ("HEAD", f"Bearer {fake.TOKEN}")


def test_bearer_access_token(fake_registry):
    fake = fake_registry()
    fake.auth = "bearer"
    fake.answer_field = "access_token"
    assert manifest_digest(fake.image(), "v1", username=fake.USERNAME, password=fake.PASSWORD) == fake.MANIFEST_DIGEST


def test_bearer_anonymous_token(fake_registry):
    fake = fake_registry()
    fake.auth = "bearer"
    fake.anonymous_tokens = True
    assert manifest_digest(fake.image(), "v1") == fake.MANIFEST_DIGEST
    token = fake.requests[1]
    assert token[1:] == ("/token", {"service": [fake.service], "scope": ["repository:team/app:pull"]}, None)


def test_bearer_scope_defaults_to_pull_of_the_repository(fake_registry):
    fake = fake_registry()
    fake.auth = "bearer"
    fake.challenge_scope = False
    assert manifest_digest(fake.image(), "v1", username=fake.USERNAME, password=fake.PASSWORD) == fake.MANIFEST_DIGEST
    assert fake.requests[1][2]["scope"] == ["repository:team/app:pull"]


def test_bearer_token_service_elsewhere(fake_registry):
    fake, auth = fake_registry(), fake_registry()
    fake.auth = "bearer"
    fake.realm_url = f"{auth.url}/token?client=kubesched"
    auth.service = fake.service
    assert manifest_digest(fake.image(), "v1", username=fake.USERNAME, password=fake.PASSWORD) == fake.MANIFEST_DIGEST
    assert [(path, query.get("client")) for method, path, query, authorization in auth.requests] == [("/token", ["kubesched"])]


def test_bearer_wrong_password(fake_registry):
    fake = fake_registry()
    fake.auth = "bearer"
    error = failure(image=fake.image(), tag="v1", username=fake.USERNAME, password="wrong-" + fake.PASSWORD)
    assert (error.kind, error.status) == ("denied", 401)
    assert f"its token service {fake.realm()} refused a token to the username '{fake.USERNAME}' (HTTP 401: UNAUTHORIZED bad credentials)" in str(error)
    assert [path for method, path, query, auth in fake.requests] == ["/v2/team/app/manifests/v1", "/token"]


def test_bearer_token_without_access(fake_registry):
    """The token service gives a token, the registry refuses it: denied, and the token is not shown."""
    fake = fake_registry()
    fake.auth = "bearer"
    fake.anonymous_tokens = True
    fake.token_issued = fake.TOKEN + "-other"
    fake.unauthorized = f"token {fake.token_issued} has no access"
    error = failure([fake.token_issued], image=fake.image(), tag="v1")
    assert (error.kind, error.status) == ("denied", 401)
    assert str(error).startswith(f"The registry {fake.url} refused to show {fake.image()}:v1 (HTTP 401): set the username and password")


def test_bearer_token_service_without_token(fake_registry):
    fake = fake_registry()
    fake.auth = "bearer"
    fake.anonymous_tokens = True
    fake.answer_field = "jwt"
    error = failure(image=fake.image(), tag="v1")
    assert (error.kind, error.status) == ("invalid", 200)
    assert "answered without a token" in str(error)


def closed_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_unreachable(no_proxies):
    port = closed_port()
    error = failure(image=f"127.0.0.1:{port}/team/app", tag="v1", timeout=2)
    assert (error.kind, error.status, error.url) == ("unreachable", None, f"http://127.0.0.1:{port}/v2/team/app/manifests/v1")
    assert str(error).startswith(f"The registry http://127.0.0.1:{port} did not answer (")


def test_token_service_unreachable(fake_registry):
    fake = fake_registry()
    fake.auth = "bearer"
    port = closed_port()
    fake.realm_url = f"http://127.0.0.1:{port}/token"
    error = failure(image=fake.image(), tag="v1", username=fake.USERNAME, password=fake.PASSWORD)
    assert (error.kind, error.status) == ("unreachable", None)
    assert str(error).startswith(f"The registry {fake.url} (through http://127.0.0.1:{port}/token) did not answer (")


def test_timeout(no_proxies):
    """A registry that accepts the connection and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        port = sock.getsockname()[1]
        error = failure(image=f"127.0.0.1:{port}/team/app", tag="v1", timeout=1)
    assert (error.kind, error.status) == ("unreachable", None)
    assert str(error) == f"The registry http://127.0.0.1:{port} did not answer (timed out after 1 s)."


def test_head_without_digest_falls_back_to_get(fake_registry):
    fake = fake_registry()
    fake.digest_header = False
    fake.manifests[("team/app", "v1")] = body = b'{"schemaVersion": 2,\n "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": []}'
    assert manifest_digest(fake.image(), "v1") == "sha256:" + hashlib.sha256(body).hexdigest()
    assert [method for method, path, query, auth in fake.requests] == ["HEAD", "GET"]


def test_get_fallback_keeps_the_token(fake_registry):
    fake = fake_registry()
    fake.auth = "bearer"
    fake.digest_header = False
    assert manifest_digest(fake.image(), "v1", username=fake.USERNAME, password=fake.PASSWORD) == fake.MANIFEST_DIGEST
    assert [(method, auth) for method, path, query, auth in fake.requests][-1] == ("GET", f"Bearer {fake.TOKEN}")


def test_head_not_allowed_asks_with_get(fake_registry):
    fake = fake_registry()
    fake.head_allowed = False
    assert manifest_digest(fake.image(), "v1") == fake.MANIFEST_DIGEST
    assert [method for method, path, query, auth in fake.requests] == ["HEAD", "GET"]


def test_get_fallback_refuses_what_is_not_a_manifest(fake_registry):
    fake = fake_registry()
    fake.digest_header = False
    fake.manifests[("team/app", "v1")] = b"<html>login</html>"
    error = failure(image=fake.image(), tag="v1")
    assert (error.kind, error.status) == ("invalid", 200)
    assert "without a Docker-Content-Digest and with a body that is not a manifest" in str(error)


def test_invalid_digest_header(fake_registry):
    fake = fake_registry()
    fake.digest_value = "sha512:abc"
    error = failure(image=fake.image(), tag="v1")
    assert (error.kind, error.status) == ("invalid", 200)
    assert "with a Docker-Content-Digest that is not sha256:<64 hex digits> ('sha512:abc')" in str(error)


@pytest.mark.parametrize("status, kind", [(500, "unreachable"), (503, "unreachable"), (429, "unreachable"), (403, "denied"), (400, "invalid")])
def test_other_statuses(fake_registry, status, kind):
    fake = fake_registry()
    fake.status = status
    error = failure(image=fake.image(), tag="v1", username=fake.USERNAME, password=fake.PASSWORD)
    assert (error.kind, error.status) == (kind, status)
    assert f"HTTP {status}" in str(error)


def test_the_registrys_words_from_a_get(fake_registry):
    """A HEAD answer has no body; a GET's error carries the registry's own code and message."""
    fake = fake_registry()
    fake.head_allowed = False
    fake.status = 500
    error = failure(image=fake.image(), tag="v1")
    assert str(error) == f"The registry {fake.url} did not answer for {fake.image()}:v1 (HTTP 500: UNKNOWN boom)."


def test_redirect_to_the_same_host_keeps_the_credentials(fake_registry):
    fake = fake_registry()
    fake.auth = "basic"
    original = fake.answer

    def redirect(method, path, headers):
        if path.startswith("/v2/team/app/"):
            fake.requests.append((method, path, {}, headers.get("Authorization")))
            return 307, {"Location": path.replace("/team/app/", "/team/moved/")}, b""
        return original(method, path, headers)

    fake.manifests[("team/moved", "v1")] = fake.MANIFEST
    fake.answer = redirect
    assert manifest_digest(fake.image(), "v1", username=fake.USERNAME, password=fake.PASSWORD) == fake.MANIFEST_DIGEST
    assert [(path, auth is not None) for method, path, query, auth in fake.requests] == [
        ("/v2/team/app/manifests/v1", False),
        ("/v2/team/moved/manifests/v1", False),
        ("/v2/team/app/manifests/v1", True),
        ("/v2/team/moved/manifests/v1", True),
    ]


def test_redirect_to_another_host_drops_the_credentials(fake_registry):
    fake, other = fake_registry(), fake_registry()
    fake.auth = "basic"
    original = fake.answer

    def redirect_once_authenticated(method, path, headers):
        if not fake.basic_ok(headers.get("Authorization")):
            return original(method, path, headers)
        fake.requests.append((method, path, {}, headers.get("Authorization")))
        return 307, {"Location": f"{other.url}{path}"}, b""

    fake.answer = redirect_once_authenticated
    assert manifest_digest(fake.image(), "v1", username=fake.USERNAME, password=fake.PASSWORD) == fake.MANIFEST_DIGEST
    assert [auth for method, path, query, auth in other.requests] == [None]


def test_too_many_redirects(fake_registry):
    fake = fake_registry()
    fake.redirect_to = fake.url
    error = failure(image=fake.image(), tag="v1")
    assert error.kind == "invalid"
    assert f"redirected the request for {fake.image()}:v1 more than {registry.MAX_REDIRECTS} times" in str(error)


def echo_password_in_the_error(fake):
    fake.head_allowed = False
    fake.status = 500
    fake.error_message = f"could not check password {fake.PASSWORD}"


def echo_password_in_the_digest(fake):
    fake.digest_value = "sha256:" + fake.PASSWORD


def echo_password_from_the_token_service(fake):
    fake.auth = "bearer"
    fake.refusal = f"wrong password {fake.PASSWORD}"
    fake.anonymous_tokens = False
    fake.basic_ok = lambda authorization: False


def refuse_the_issued_token(fake):
    fake.auth = "bearer"
    fake.token_issued = fake.TOKEN + "-issued"
    fake.unauthorized = f"token {fake.token_issued} refused"


def bearer_to_a_missing_tag(fake):
    fake.auth = "bearer"
    fake.manifests.clear()


@pytest.mark.parametrize(
    "setup",
    [echo_password_in_the_error, echo_password_in_the_digest, echo_password_from_the_token_service, refuse_the_issued_token, bearer_to_a_missing_tag],
)
def test_no_message_carries_a_secret(fake_registry, setup):
    """Whatever fails and whatever the registry echoes, neither the password, its Basic form nor a token is in the error."""
    fake = fake_registry()
    setup(fake)
    error = failure([fake.TOKEN, fake.token_issued], image=fake.image(), tag="v1", username=fake.USERNAME, password=fake.PASSWORD)
    echoed = setup in (echo_password_in_the_error, echo_password_in_the_digest, echo_password_from_the_token_service)
    assert ("********" in str(error)) is echoed


def test_bad_arguments():
    with pytest.raises(ValueError, match="The timeout must be a number of seconds above 0"):
        manifest_digest("busybox", "1.36", timeout=0)
    with pytest.raises(ValueError, match="is not a valid image tag"):
        manifest_digest("busybox", "latest@sha256")
    with pytest.raises(ValueError, match="carries a tag"):
        manifest_digest("busybox:1.36", "1.36")
