# The registry client against a real registry with token authentication (hack/registry-token.sh): Debian's
# docker-registry with `auth: token` on 127.0.0.1:5004 (the image kubesched.local/registry:latest, else the
# docker-registry binary on the host), the token server hack/registry_token_server.py on 127.0.0.1:5005, an
# image pushed through `docker login`, then kubesched.scheduler.image_digest from build/collections with the
# credentials, without them and with a wrong password. Everything it starts is removed when it ends.
.PHONY: registry-token

registry-token: install ## image_digest against a real registry with token auth (127.0.0.1:5004, token server :5005; needs docker)
	hack/registry-token.sh
