# Copyright: kubesched.scheduler contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The image_digest module against the fake registry of tests/unit/plugins/conftest.py (a real HTTP server)."""

from __future__ import annotations

import json
import socket

import pytest
from ansible.module_utils.testing import patch_module_args

from ansible_collections.kubesched.scheduler.plugins.modules import image_digest


def run_module(capsys, **args):
    with patch_module_args(args), pytest.raises(SystemExit) as exit_info:
        image_digest.main()
    out = capsys.readouterr().out
    return exit_info.value.code, json.loads(out), out


def test_digest_and_reference(fake_registry, capsys):
    fake = fake_registry()
    code, result, out = run_module(capsys, image=fake.image(), tag="v1")
    assert code == 0
    assert result["changed"] is False
    assert (result["exists"], result["digest"], result["status"]) == (True, fake.MANIFEST_DIGEST, 200)
    assert result["reference"] == f"{fake.image()}:v1@{fake.MANIFEST_DIGEST}"
    assert result["url"] == f"{fake.url}/v2/team/app/manifests/v1"


def test_check_mode_reads_too(fake_registry, capsys):
    fake = fake_registry()
    code, result, out = run_module(capsys, image=fake.image(), tag="v1", _ansible_check_mode=True)
    assert (code, result["changed"], result["digest"]) == (0, False, fake.MANIFEST_DIGEST)
    assert len(fake.requests) == 1


def test_missing_fails_by_default(fake_registry, capsys):
    fake = fake_registry()
    code, result, out = run_module(capsys, image=fake.image(), tag="v2")
    assert code == 1
    assert result["msg"] == f"The registry {fake.url} has no tag 'v2' of image '{fake.image()}' (HTTP 404)."
    assert (result["error"], result["status"], result["exists"]) == ("missing", 404, False)


def test_missing_with_must_exist_false(fake_registry, capsys):
    fake = fake_registry()
    code, result, out = run_module(capsys, image=fake.image(), tag="v2", must_exist=False)
    assert code == 0
    assert (result["exists"], result["digest"], result["reference"], result["status"]) == (False, "", "", 404)
    assert "error" not in result


def test_token_flow_and_no_secret_in_the_result(fake_registry, capsys):
    fake = fake_registry()
    fake.auth = "bearer"
    code, result, out = run_module(capsys, image=fake.image(), tag="v1", username=fake.USERNAME, password=fake.PASSWORD)
    assert (code, result["digest"]) == (0, fake.MANIFEST_DIGEST)
    assert fake.PASSWORD not in out
    assert fake.TOKEN not in out


def test_refused_even_with_must_exist_false(fake_registry, capsys):
    fake = fake_registry()
    fake.auth = "basic"
    code, result, out = run_module(capsys, image=fake.image(), tag="v1", username=fake.USERNAME, password="wrong-" + fake.PASSWORD, must_exist=False)
    assert code == 1
    assert result["msg"].startswith(f"The registry {fake.url} refused to show {fake.image()}:v1 (HTTP 401)")
    assert (result["error"], result["status"]) == ("denied", 401)
    assert fake.PASSWORD not in out


def test_unreachable(no_proxies, capsys):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code, result, out = run_module(capsys, image=f"127.0.0.1:{port}/team/app", tag="v1", timeout=2, must_exist=False)
    assert code == 1
    assert result["msg"].startswith(f"The registry http://127.0.0.1:{port} did not answer (")
    assert (result["error"], result["status"]) == ("unreachable", None)


@pytest.mark.parametrize(
    "args, message",
    [
        ({"image": "localhost:5001/x:v1", "tag": "v1"}, "The image 'localhost:5001/x:v1' carries a tag ('v1')"),
        ({"image": "localhost:5001/x", "tag": "v1/2"}, "The tag 'v1/2' is not a valid image tag"),
        ({"image": "localhost:5001/x", "tag": "v1", "registry_url": "localhost:5001"}, "The registry URL 'localhost:5001' must start with http:// or https://"),
        ({"image": "localhost:5001/x", "tag": "v1", "timeout": 0}, "The timeout must be a number of seconds above 0"),
    ],
)
def test_invalid_arguments(capsys, args, message):
    code, result, out = run_module(capsys, **args)
    assert code == 1
    assert result["msg"].startswith(message)
    assert result["error"] == "argument"
