#!/usr/bin/env python3
# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A token server of the distribution token flow, for hack/registry-token.sh: just enough of what Harbor, GitLab
and GHCR run beside their registries for a real distribution registry with ``auth: token`` to accept its tokens.

``GET /token?service=S&scope=repository:NAME:ACTIONS...`` with HTTP Basic credentials answers
``{"token": JWT, "access_token": JWT, "expires_in": ..., "issued_at": ...}``; the JWT is signed RS256 with the
key whose self-signed certificate the registry trusts (its ``auth.token.rootcertbundle``) and carries that
certificate in its ``x5c`` header, which is how distribution 2.8 (Debian bookworm's docker-registry) finds the
signing key: ``x5c[0]`` must chain to a certificate of the bundle, and ``iss`` and ``aud`` must be the registry's
``issuer`` and ``service``. The one account (``user:password`` in the --credentials file) is granted the
``pull`` and ``push`` it asks for on any repository; a request without credentials gets an anonymous token
that grants nothing (as Docker Hub and Harbor do for a private repository); wrong credentials get HTTP 401.

Every token it issues is appended to the --tokens file, so that the caller can check that none leaks.
Nothing secret is logged.

usage: registry_token_server.py serve --listen 127.0.0.1:5005 --key KEY --cert CERT --issuer ISS --service SVC
                                      --credentials FILE [--tokens FILE]
       registry_token_server.py mint --key KEY --cert CERT --issuer ISS --service SVC [--subject SUB] [SCOPE...]
           prints one token for the scopes (repository:NAME:ACTIONS), with no credentials asked
"""

from __future__ import annotations

import argparse
import base64
import binascii
import hmac
import json
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

TOKEN_SECONDS = 300
ACTIONS = ("pull", "push")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class Signer:
    """Signs JWTs with an RSA key, its certificate in the ``x5c`` header."""

    def __init__(self, key_path, cert_path, issuer, service):
        with open(key_path, "rb") as handle:
            self.key = serialization.load_pem_private_key(handle.read(), password=None)
        with open(cert_path, "rb") as handle:
            cert = x509.load_pem_x509_certificate(handle.read())
        self.x5c = [base64.b64encode(cert.public_bytes(serialization.Encoding.DER)).decode("ascii")]
        self.issuer = issuer
        self.service = service

    def token(self, subject, access):
        now = int(time.time())
        header = {"typ": "JWT", "alg": "RS256", "x5c": self.x5c}
        claims = {
            "iss": self.issuer,
            "sub": subject,
            "aud": self.service,  # a string: distribution 2.8's ClaimSet has no list of audiences
            "exp": now + TOKEN_SECONDS,
            "nbf": now - 5,
            "iat": now,
            "jti": secrets.token_hex(16),
            "access": access,
        }
        signing_input = b64url(json.dumps(header, separators=(",", ":")).encode()) + "." + b64url(json.dumps(claims, separators=(",", ":")).encode())
        signature = self.key.sign(signing_input.encode("ascii"), padding.PKCS1v15(), hashes.SHA256())
        return signing_input + "." + b64url(signature)


def parse_scope(scope):
    """``repository:NAME:a,b`` as {type, name, actions}; None for what is not one."""
    kind, _, rest = scope.partition(":")
    name, _, actions = rest.rpartition(":")
    if not kind or not name:
        return None
    return {"type": kind, "name": name, "actions": [action for action in actions.split(",") if action]}


def grant(scopes, authenticated):
    """The access entries of a token: the pull and push asked for on repositories, for the account only."""
    access = []
    for scope in scopes:
        wanted = parse_scope(scope)
        if not authenticated or wanted is None or wanted["type"] != "repository":
            continue
        actions = [action for action in wanted["actions"] if action in ACTIONS]
        if actions:
            access.append({"type": "repository", "name": wanted["name"], "actions": actions})
    return access


class Handler(BaseHTTPRequestHandler):
    server_version = "kubesched-token-server"
    signer = None
    username = ""
    password = ""
    tokens_path = None
    lock = threading.Lock()

    def do_GET(self):  # noqa: N802 - the name http.server calls
        url = urlsplit(self.path)
        if url.path == "/healthz":
            return self.answer(200, {"status": "ok"})
        if url.path != "/token":
            return self.answer(404, {"errors": [{"code": "NOT_FOUND", "message": "only /token and /healthz are served"}]})
        query = parse_qs(url.query)
        service = (query.get("service") or [""])[0]
        if service != self.signer.service:
            return self.answer(400, {"errors": [{"code": "DENIED", "message": f"unknown service '{service[:100]}'"}]})
        credentials = self.credentials()
        if credentials is False:
            return self.answer(401, {"errors": [{"code": "UNAUTHORIZED", "message": "invalid username or password"}]}, challenge=True)
        subject = credentials or ""
        scopes = [scope for value in query.get("scope", []) for scope in value.split(" ") if scope]
        access = grant(scopes, authenticated=bool(subject))
        token = self.signer.token(subject, access)
        if self.tokens_path:
            with self.lock, open(self.tokens_path, "a", encoding="ascii") as handle:
                handle.write(token + "\n")
        granted = " ".join(f"{entry['name']}:{','.join(entry['actions'])}" for entry in access) or "nothing"
        self.log_message("token for %s, scopes %s: granted %s", subject or "(anonymous)", " ".join(scopes) or "(none)", granted)
        issued = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        return self.answer(200, {"token": token, "access_token": token, "expires_in": TOKEN_SECONDS, "issued_at": issued})

    def credentials(self):
        """The username of valid Basic credentials; None without any; False for wrong or malformed ones."""
        value = self.headers.get("Authorization") or ""
        if not value:
            return None
        scheme, _, encoded = value.partition(" ")
        if scheme.lower() != "basic":
            return False
        try:
            username, sep, password = base64.b64decode(encoded.strip(), validate=True).decode("utf-8").partition(":")
        except (binascii.Error, UnicodeDecodeError):
            return False
        good_user = hmac.compare_digest(username.encode(), self.username.encode())
        good_password = hmac.compare_digest(password.encode(), self.password.encode())
        return username if sep and good_user and good_password else False

    def answer(self, status, body, challenge=False):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if challenge:
            self.send_header("WWW-Authenticate", 'Basic realm="kubesched token server"')
        self.end_headers()
        self.wfile.write(data)

    def log_request(self, code="-", size="-"):
        # The request line without its query (the account name is all it holds of note, but keep it short).
        self.log_message("%s %s %s", self.command, urlsplit(self.path).path, code)

    def log_message(self, format, *args):  # noqa: A002 - http.server's signature
        sys.stderr.write("token-server: " + (format % args) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("serve", "mint"):
        command = sub.add_parser(name)
        command.add_argument("--key", required=True)
        command.add_argument("--cert", required=True)
        command.add_argument("--issuer", required=True)
        command.add_argument("--service", required=True)
    serve = sub.choices["serve"]
    serve.add_argument("--listen", default="127.0.0.1:5005")
    serve.add_argument("--credentials", required=True, help="a file holding user:password")
    serve.add_argument("--tokens", help="a file every issued token is appended to")
    mint = sub.choices["mint"]
    mint.add_argument("--subject", default="kubesched-e2e")
    mint.add_argument("scopes", nargs="*")
    args = parser.parse_args(argv)

    signer = Signer(args.key, args.cert, args.issuer, args.service)
    if args.command == "mint":
        print(signer.token(args.subject, grant(args.scopes, authenticated=True)))
        return 0

    with open(args.credentials, encoding="utf-8") as handle:
        username, sep, password = handle.read().strip("\n").partition(":")
    if not sep or not username or not password:
        parser.error(f"{args.credentials} must hold user:password")
    Handler.signer, Handler.username, Handler.password, Handler.tokens_path = signer, username, password, args.tokens
    host, _, port = args.listen.rpartition(":")
    server = ThreadingHTTPServer((host, int(port)), Handler)
    sys.stderr.write(f"token-server: listening on http://{args.listen}/token (service {args.service}, issuer {args.issuer})\n")
    sys.stderr.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
