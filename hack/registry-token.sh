#!/usr/bin/env bash
# make registry-token: the collection's registry client (plugins/module_utils/registry.py, through the module
# kubesched.scheduler.image_digest) against a REAL registry with token authentication, the way Harbor, GitLab
# and GHCR run it, rather than against the unit tests' fake server. It proves that:
#   - Debian's docker-registry (distribution 2.8) with `auth: token` refuses anonymous requests with a Bearer
#     challenge naming our token server, refuses a token signed by a key it does not trust, and accepts the
#     tokens of hack/registry_token_server.py (RS256, the certificate in x5c, iss/aud/exp/nbf/access);
#   - `docker login` and `docker push` work against it (the image that is then looked up);
#   - image_digest with the credentials returns the digest docker pushed; without credentials (an anonymous
#     token that grants nothing) and with a wrong password (the token server's 401) it fails as `denied`
#     with the "refused" message; a missing tag with must_exist=false is exists=false;
#   - neither the password, nor its Basic header, nor any token the server issued is in the output (-v).
# What it starts, all on 127.0.0.1 and all removed on exit: the registry (container kubesched-registry-token
# from kubesched.local/registry:latest, on port 5004, or REGISTRY_MODE=host: the docker-registry binary on
# the host), the token server (port 5005), a temp dir with a self-signed certificate and key made by openssl,
# the generated credentials, the registry's storage and a DOCKER_CONFIG for the login, and the tag
# 127.0.0.1:5004/token-test:v1 of busybox:latest. Its ports are not the reliability scenario's password registry's
# (5002): make test runs this check in its background chain, beside the scenarios.
# usage: hack/registry-token.sh   (ANSIBLE_COLLECTIONS_PATH from the environment, else build/collections)
# env:   REGISTRY_MODE=auto|container|host  REGISTRY_IMAGE  SOURCE_IMAGE (busybox:latest)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

REGISTRY_PORT=5004
TOKEN_PORT=5005
REGISTRY=127.0.0.1:$REGISTRY_PORT
REALM=http://127.0.0.1:$TOKEN_PORT/token
SERVICE=kubesched-registry-token
ISSUER=kubesched-token-server
CONTAINER=kubesched-registry-token
REGISTRY_IMAGE=${REGISTRY_IMAGE:-kubesched.local/registry:latest}
SOURCE_IMAGE=${SOURCE_IMAGE:-busybox:latest}
REGISTRY_MODE=${REGISTRY_MODE:-auto}
IMAGE=$REGISTRY/token-test
TAG=v1
PIDFILE=/tmp/kubesched-registry-token.pids  # what a run that was killed left running, ended by the next

if [ -d "$repo/.venv/bin" ]; then PATH=$repo/.venv/bin:$PATH; fi
PY=${PYTHON:-$(command -v python || command -v python3)}
if [ -z "${ANSIBLE_COLLECTIONS_PATH:-}" ]; then
  site=$(compgen -G "$repo/.venv/lib/python3.*/site-packages" | head -1 || true)
  export ANSIBLE_COLLECTIONS_PATH=$repo/build/collections${site:+:$site}
fi
export ANSIBLE_LOCALHOST_WARNING=False ANSIBLE_INVENTORY_UNPARSED_WARNING=False ANSIBLE_FORCE_COLOR=0 ANSIBLE_NOCOLOR=1

log() { printf 'registry-token: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
for tool in docker openssl curl ansible; do command -v "$tool" >/dev/null || die "$tool is not on PATH"; done
"$PY" -c 'import cryptography' 2>/dev/null || die "$PY lacks the cryptography package (make deps)"

tmp=$(mktemp -d /tmp/kubesched-registry-token.XXXXXX)
export DOCKER_CONFIG=$tmp/docker  # docker login writes here, not to ~/.docker
mkdir -p "$DOCKER_CONFIG" "$tmp/config" "$tmp/storage" "$tmp/out"
token_pid='' registry_pid='' tagged=''

cleanup() {
  local rc=$?
  set +e
  docker logout "$REGISTRY" >/dev/null 2>&1
  [ -z "$tagged" ] || docker rmi "$IMAGE:$TAG" >/dev/null 2>&1
  docker rm -f "$CONTAINER" >/dev/null 2>&1
  for pid in $token_pid $registry_pid; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
  rm -f "$PIDFILE"
  rm -rf "$tmp"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# What a run that was killed (no trap) may have left: our container, our processes (by the ids it wrote).
docker rm -f "$CONTAINER" >/dev/null 2>&1 || true
if [ -s "$PIDFILE" ]; then
  while read -r pid; do
    if grep -qa -e registry_token_server.py -e docker-registry "/proc/$pid/cmdline" 2>/dev/null; then kill "$pid" 2>/dev/null || true; fi
  done < "$PIDFILE"
  rm -f "$PIDFILE"; sleep 1
fi
for port in $REGISTRY_PORT $TOKEN_PORT; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then die "127.0.0.1:$port is taken by something else"; fi
done

# Credentials and the signing certificate, made for this run only.
username=e2e-$(openssl rand -hex 3)
password=$(openssl rand -base64 18 | tr -d '/+=')
wrong_password=$(openssl rand -base64 18 | tr -d '/+=')
(umask 077
 printf '%s:%s\n' "$username" "$password" > "$tmp/credentials"
 printf 'registry_user: %s\nregistry_password: %s\nwrong_password: %s\n' "$username" "$password" "$wrong_password" > "$tmp/vars.yml")
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=$ISSUER" \
  -keyout "$tmp/token.key" -out "$tmp/config/token.crt" 2>/dev/null || die "openssl could not make the certificate"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=$ISSUER" \
  -keyout "$tmp/untrusted.key" -out "$tmp/untrusted.crt" 2>/dev/null || die "openssl could not make the certificate"
: > "$tmp/tokens"

# The registry: Debian's docker-registry, auth: token.
registry_config() {  # ADDR STORAGE CERT
  cat <<EOF
version: 0.1
log:
  level: info
storage:
  filesystem:
    rootdirectory: $2
  delete:
    enabled: true
http:
  addr: $1
auth:
  token:
    realm: $REALM
    service: $SERVICE
    issuer: $ISSUER
    rootcertbundle: $3
EOF
}
if [ "$REGISTRY_MODE" = auto ]; then
  if docker image inspect "$REGISTRY_IMAGE" >/dev/null 2>&1; then REGISTRY_MODE=container
  elif command -v docker-registry >/dev/null; then REGISTRY_MODE=host
  else die "neither the image $REGISTRY_IMAGE (hack/kind/images.sh registry) nor docker-registry (apt-get install docker-registry)"; fi
fi
case "$REGISTRY_MODE" in
  container)
    registry_config :5000 /var/lib/registry /etc/kubesched-registry-token/token.crt > "$tmp/config/config.yml"
    docker run -d --name "$CONTAINER" --label io.kubesched.e2e=registry-token -p "$REGISTRY:5000" \
      -v "$tmp/config:/etc/kubesched-registry-token:ro" -v "$tmp/storage:/var/lib/registry" \
      "$REGISTRY_IMAGE" /usr/bin/docker-registry serve /etc/kubesched-registry-token/config.yml >/dev/null ;;
  host)
    registry_config "$REGISTRY" "$tmp/storage" "$tmp/config/token.crt" > "$tmp/config/config.yml"
    "${REGISTRY_BIN:-docker-registry}" serve "$tmp/config/config.yml" > "$tmp/registry.log" 2>&1 &
    registry_pid=$!; echo "$registry_pid" >> "$PIDFILE" ;;
  *) die "REGISTRY_MODE is auto, container or host (got $REGISTRY_MODE)" ;;
esac
registry_logs() {
  if [ "$REGISTRY_MODE" = container ]; then docker logs "$CONTAINER" 2>&1; else cat "$tmp/registry.log"; fi
}

# The token server.
token_args=(--key "$tmp/token.key" --cert "$tmp/config/token.crt" --issuer "$ISSUER" --service "$SERVICE")
"$PY" hack/registry_token_server.py serve "${token_args[@]}" --listen "127.0.0.1:$TOKEN_PORT" \
  --credentials "$tmp/credentials" --tokens "$tmp/tokens" 2> "$tmp/token-server.log" &
token_pid=$!; echo "$token_pid" >> "$PIDFILE"

wait_for() {  # URL WHAT: until it answers at all (any HTTP status)
  local _
  for _ in $(seq 1 50); do
    curl -s -o /dev/null "$1" && return 0
    sleep 0.2
  done
  die "$2 did not answer at $1"
}
wait_for "http://127.0.0.1:$TOKEN_PORT/healthz" "the token server ($(tail -3 "$tmp/token-server.log"))"
wait_for "http://$REGISTRY/v2/" "the registry ($(registry_logs | tail -3))"
log "registry $REGISTRY ($REGISTRY_MODE, $(registry_logs | grep -o ' version=[^ ]*' | head -1 | sed "s/^ //")), token server $REALM"

passed=0 failed=0 failures=()
check() {  # NAME CONDITION...: count the check
  local name=$1; shift
  if "$@"; then passed=$((passed + 1)); log "ok   $name"
  else failed=$((failed + 1)); failures+=("$name"); log "FAIL $name"; fi
}
contains() { [[ $1 == *"$2"* ]]; }

# 1. The registry asks for a token from our realm, and trusts only the certificate it was given.
challenge_ok() {
  local headers status
  headers=$(curl -s -o /dev/null -D - -I "http://$REGISTRY/v2/token-test/manifests/$TAG")
  status=$(head -1 <<< "$headers" | awk '{print $2}')
  if ! { [ "$status" = 401 ] && grep -qi "^www-authenticate: Bearer realm=\"$REALM\",service=\"$SERVICE\",scope=\"repository:token-test:pull\"" <<< "$headers"; }; then
    log "anonymous HEAD: HTTP $status"; log "$headers"; return 1
  fi
}
check "the registry answers an anonymous request with a Bearer challenge of the token server" challenge_ok

tokens_are_verified() {
  local untrusted trusted s1 s2
  untrusted=$("$PY" hack/registry_token_server.py mint --key "$tmp/untrusted.key" --cert "$tmp/untrusted.crt" \
    --issuer "$ISSUER" --service "$SERVICE" "registry:catalog:*" "repository:token-test:pull")
  trusted=$("$PY" hack/registry_token_server.py mint "${token_args[@]}" "repository:token-test:pull")
  printf '%s\n%s\n' "$untrusted" "$trusted" >> "$tmp/tokens"
  s1=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $untrusted" "http://$REGISTRY/v2/")
  s2=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $trusted" "http://$REGISTRY/v2/")
  if ! { [ "$s1" = 401 ] && [ "$s2" = 200 ]; }; then
    log "untrusted token: HTTP $s1 (want 401), trusted token: HTTP $s2 (want 200)"; return 1
  fi
}
check "the registry refuses a token signed by an untrusted key and accepts the token server's" tokens_are_verified

# 2. docker login and push, through the token server.
pushed_digest='' repo_digest=''
push() {
  docker tag "$SOURCE_IMAGE" "$IMAGE:$TAG" && tagged=yes || return 1
  printf '%s' "$password" | docker login --username "$username" --password-stdin "$REGISTRY" > "$tmp/out/login" 2>&1 \
    || { cat "$tmp/out/login" >&2; return 1; }
  docker push "$IMAGE:$TAG" > "$tmp/out/push" 2>&1 || { tail -5 "$tmp/out/push" >&2; return 1; }
  pushed_digest=$(sed -n "s/^$TAG: digest: \(sha256:[0-9a-f]\{64\}\) size: .*/\1/p" "$tmp/out/push")
  repo_digest=$(docker image inspect --format '{{range .RepoDigests}}{{println .}}{{end}}' "$IMAGE:$TAG" | sed -n "s|^$IMAGE@||p" | head -1)
  if ! { [ -n "$pushed_digest" ] && [ "$pushed_digest" = "$repo_digest" ]; }; then
    log "push digest '$pushed_digest', RepoDigests '$repo_digest'"; return 1
  fi
}
check "docker login and docker push $IMAGE:$TAG" push

# 3. The module. ARGS is JSON for -a; the credentials come from a vars file (-e @), not the command line.
module() {  # NAME ARGS: runs image_digest -v, output in $tmp/out/NAME, its result as JSON in $tmp/out/NAME.json
  # (with "failed": whether ansible said FAILED!, which the result it prints does not carry)
  local name=$1 args=$2
  ansible localhost -v -e "@$tmp/vars.yml" -m kubesched.scheduler.image_digest -a "$args" > "$tmp/out/$name" 2>&1 || true
  "$PY" - "$tmp/out/$name" > "$tmp/out/$name.json" <<'EOF' || { log "no result in the output of $name:"; cat "$tmp/out/$name" >&2; }
import json, sys
text = open(sys.argv[1]).read()
start = text.index("localhost | ")  # localhost | SUCCESS => {...} or localhost | FAILED! => {...}
result = json.loads(text[text.index("=> ", start) + 3:text.rindex("}") + 1])
result["failed"] = text[start:].split(" ", 3)[2] == "FAILED!"
print(json.dumps(result))
EOF
}
field() { "$PY" -c 'import json, sys; value = json.load(open(sys.argv[1])).get(sys.argv[2]); print(json.dumps(value) if not isinstance(value, str) else value)' "$tmp/out/$1.json" "$2" 2>/dev/null; }
show() { log "output of $1:"; sed 's/^/    /' "$tmp/out/$1" >&2; }

module with_credentials "{\"image\": \"$IMAGE\", \"tag\": \"$TAG\", \"username\": \"{{ registry_user }}\", \"password\": \"{{ registry_password }}\"}"
digest_ok() {
  if ! { [ -n "$pushed_digest" ] && [ "$(field with_credentials digest)" = "$pushed_digest" ] && [ "$(field with_credentials status)" = 200 ] \
    && [ "$(field with_credentials reference)" = "$IMAGE:$TAG@$pushed_digest" ]; }; then show with_credentials; return 1; fi
}
check "image_digest with the credentials returns the pushed digest ($pushed_digest)" digest_ok

refused() {  # NAME: failed, denied, with the "refused" message
  if ! { [ "$(field "$1" failed)" = true ] && [ "$(field "$1" error)" = denied ] && contains "$(field "$1" msg)" refused; }; then show "$1"; return 1; fi
}
module anonymous "{\"image\": \"$IMAGE\", \"tag\": \"$TAG\"}"
check "image_digest without credentials is refused (the anonymous token grants nothing)" refused anonymous
module wrong_password "{\"image\": \"$IMAGE\", \"tag\": \"$TAG\", \"username\": \"{{ registry_user }}\", \"password\": \"{{ wrong_password }}\"}"
wrong_ok() { refused wrong_password && { contains "$(field wrong_password msg)" "token service" || { show wrong_password; false; }; }; }
check "image_digest with a wrong password is refused (by the token server)" wrong_ok
module missing_tag "{\"image\": \"$IMAGE\", \"tag\": \"v0-missing\", \"must_exist\": false, \"username\": \"{{ registry_user }}\", \"password\": \"{{ registry_password }}\"}"
missing_ok() {
  if ! { [ "$(field missing_tag failed)" != true ] && [ "$(field missing_tag exists)" = false ] && [ "$(field missing_tag status)" = 404 ]; }; then
    show missing_tag; return 1
  fi
}
check "image_digest of a missing tag with must_exist=false is exists=false (HTTP 404 with a token)" missing_ok

# 4. No secret in any output.
no_secrets() {
  local secret basic leaked=0 out
  basic=$(printf '%s:%s' "$username" "$password" | base64 -w0)
  for out in "$tmp"/out/with_credentials "$tmp"/out/anonymous "$tmp"/out/wrong_password "$tmp"/out/missing_tag; do
    while read -r secret; do
      [ -n "$secret" ] || continue
      if grep -qF -- "$secret" "$out"; then leaked=1; log "a secret (${#secret} characters) is in the output of $(basename "$out")"; fi
    done < <(printf '%s\n%s\n%s\n' "$password" "$wrong_password" "$basic"; cat "$tmp/tokens")
  done
  [ "$(wc -l < "$tmp/tokens")" -ge 3 ] || { log "the token server issued fewer tokens than the runs asked for"; leaked=1; }
  return "$leaked"
}
check "neither password, Basic header nor any of the $(wc -l < "$tmp/tokens") issued tokens is in the output (-v)" no_secrets

if [ "$failed" -gt 0 ]; then
  log "token server log:"; sed 's/^/    /' "$tmp/token-server.log" >&2
  log "registry log (last 20 lines):"; registry_logs | tail -20 | sed 's/^/    /' >&2
  printf '  failed: %s\n' "${failures[@]}" >&2
fi
echo "registry-token: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
