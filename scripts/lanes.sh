#!/usr/bin/env bash
# Runs two commands at once, for `npm test` on CI's 2 cores: each of the checks it pairs (type check and lint; the
# consumer test beside the model server's Python tests and the docs checks) keeps about one core busy or waits on
# real servers, and one after the other they took 5 of CI's 10 minutes. The second command's output is held back and
# printed after the first's, so each reads whole; the exit status is 0 only when both pass.
#
# Usage: bash scripts/lanes.sh 'first command' 'second command'
set -uo pipefail
if [ "$#" -ne 2 ]; then
  echo "usage: bash scripts/lanes.sh 'first command' 'second command'" >&2
  exit 2
fi
cd "$(dirname "$0")/.." || exit 1

second_log=$(mktemp)
trap 'rm -f "$second_log"' EXIT
bash -c "$2" >"$second_log" 2>&1 &
second=$!

bash -c "$1"
first_status=$?
wait "$second"
second_status=$?
cat "$second_log"
[ "$first_status" -eq 0 ] || echo "lanes: '$1' failed (exit $first_status)" >&2
[ "$second_status" -eq 0 ] || echo "lanes: '$2' failed (exit $second_status)" >&2
[ "$first_status" -eq 0 ] && [ "$second_status" -eq 0 ]
