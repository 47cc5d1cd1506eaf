#!/usr/bin/env bash
# lb-freeze-check.sh [NODE]: the API of the HA cluster (make cluster-ha) through kind's load balancer while one
# control-plane node is frozen (docker pause at 5 s, unpause at 35 s): GET /readyz every 0.5 s with a 2 s timeout for
# 50 s; prints each failed request's time and the counts, and fails when more than 4 requests failed (the load balancer
# takes about 6 s to see a frozen API server, in which about one request in three lands on it) or any failed after
# the unpause.
. "$(dirname "$0")/lib.sh"
CLUSTER_NAME=kubesched-ha
node=${1:-$CLUSTER_NAME-control-plane}
ctx=kind-$CLUSTER_NAME
ok=0 failed=0 late=0 paused= unpaused=
start=$SECONDS
trap 'docker unpause "$node" >/dev/null 2>&1 || true' EXIT
while [ $((SECONDS - start)) -lt 50 ]; do
  t=$((SECONDS - start))
  if [ -z "$paused" ] && [ "$t" -ge 5 ]; then docker pause "$node" >/dev/null; paused=$t; log "paused $node"; fi
  if [ -z "$unpaused" ] && [ "$t" -ge 35 ]; then docker unpause "$node" >/dev/null; unpaused=$t; log "unpaused $node"; fi
  if "$KUBESCHED_BIN/kubectl" --context "$ctx" --request-timeout=2s get --raw /readyz >/dev/null 2>&1; then
    ok=$((ok + 1))
  else
    failed=$((failed + 1)); log "request failed at ${t}s"
    [ -n "$unpaused" ] && late=$((late + 1))
  fi
  sleep 0.5
done
echo "lb-freeze-check: $node frozen from ${paused}s to ${unpaused}s: $ok requests answered, $failed failed ($late after the unpause)"
[ "$failed" -le 4 ] && [ "$late" -eq 0 ]
