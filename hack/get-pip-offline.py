"""Bootstrap pip in an empty virtual environment without the get-pip download.

ansible-test bootstraps pip in each of its virtual environments with a get-pip script it
downloads from its own CI file server, which this project's machines cannot reach. `make sanity`
puts this file where ansible-test caches that script: it installs pip from the interpreter's
ensurepip, then the requested packages (pip==X, setuptools, wheel) from the package index.
ansible-test runs pip with a clean environment; where the machine's CA bundle is needed to reach
the index (a TLS proxy), the virtual environment's pip.conf names it.
"""

import ensurepip
import os
import subprocess
import sys

BUNDLE = os.environ.get("SSL_CERT_FILE") or "/etc/ssl/certs/ca-certificates.crt"

if os.path.exists(BUNDLE):
    with open(os.path.join(sys.prefix, "pip.conf"), "w", encoding="utf-8") as conf:
        conf.write(f"[global]\ncert = {BUNDLE}\n")
ensurepip.bootstrap(upgrade=True)
packages = [arg for arg in sys.argv[1:] if arg not in ("--no-setuptools", "--no-wheel")]
cert = ["--cert", BUNDLE] if os.path.exists(BUNDLE) else []
sys.exit(subprocess.call([sys.executable, "-m", "pip", "install", "--disable-pip-version-check", *cert, *packages]))
