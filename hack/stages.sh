#!/usr/bin/env bash
# stages.sh TARGET...: `make TARGET` for each target in turn, stopping at the first that fails; prints each
# stage's time as it ends and, at the end (or at the failure), a table of them all. A stage that ran is not
# made again as another stage's prerequisite (make -o): `cluster` once, however many stages need it.
set -uo pipefail
cd "$(dirname "$0")/.."
rows=()
table() {
  printf '\nstage times:\n| stage | seconds | result |\n| --- | ---: | --- |\n'
  printf '%s\n' "${rows[@]}"
}
total=$(date +%s)
made=()
for target in "$@"; do
  t=$(date +%s)
  if make --no-print-directory "${made[@]}" "$target"; then
    rows+=("| make $target | $(( $(date +%s) - t )) | passed |")
    echo "stage: make $target passed in $(( $(date +%s) - t ))s"
    made+=(-o "$target")
  else
    rc=$?
    rows+=("| make $target | $(( $(date +%s) - t )) | FAILED (exit $rc) |")
    table
    exit "$rc"
  fi
done
rows+=("| all | $(( $(date +%s) - total )) | passed |")
table
