#!/usr/bin/env bash
# Runs commands at once, for `npm test` on CI's 2 cores: the checks it runs side by side (type check and lint; the
# consumer test, the model server's Python tests and the docs checks) each keep about one core busy or wait on real
# servers, and one after the other they took 5 of CI's 10 minutes. The first command prints as it runs; the others'
# output is held back and printed after it, in order, so each reads whole. The exit status is 0 only when all pass.
#
# Usage: bash scripts/lanes.sh 'first command' 'second command' ['third command' ...]
set -uo pipefail
if [ "$#" -lt 2 ]; then
  echo "usage: bash scripts/lanes.sh 'first command' 'second command' ['third command' ...]" >&2
  exit 2
fi
cd "$(dirname "$0")/.." || exit 1

logs=()
pids=()
trap 'rm -f "${logs[@]}"' EXIT
for command in "${@:2}"; do
  log=$(mktemp)
  logs+=("$log")
  bash -c "$command" >"$log" 2>&1 &
  pids+=($!)
done

bash -c "$1"
statuses=($?)
for i in "${!pids[@]}"; do
  wait "${pids[$i]}"
  statuses+=($?)
done
for log in "${logs[@]}"; do
  cat "$log"
done
commands=("$@")
failed=0
for i in "${!statuses[@]}"; do
  if [ "${statuses[$i]}" -ne 0 ]; then
    echo "lanes: '${commands[$i]}' failed (exit ${statuses[$i]})" >&2
    failed=1
  fi
done
exit "$failed"
