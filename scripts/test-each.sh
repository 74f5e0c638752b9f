#!/usr/bin/env bash
# Runs test files one at a time, each alone in its own mocha process, and prints for each its CPU seconds
# (user + system, its child processes included), wall seconds and result. It runs the compiled files
# (dist/test/, as `npm test` does), so build first: `npm run build`.
#   scripts/test-each.sh                      every test/*.test.ts, in name order
#   scripts/test-each.sh test/a.test.ts …     those files (dist/test/a.test.js works too)
#   TEST_EACH_SEED=7 scripts/test-each.sh     the same files in an order shuffled by that seed
# Exits non-zero when any file fails; the failing files' output is kept under test-artifacts/test-each/.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ $# -gt 0 ]; then files=("$@"); else files=(test/*.test.ts); fi
if [ -n "${TEST_EACH_SEED:-}" ]; then
  mapfile -t files < <(printf '%s\n' "${files[@]}" | shuf --random-source=<(yes "$TEST_EACH_SEED"))
fi

logs=test-artifacts/test-each
mkdir -p "$logs"
failed=0
printf '%-45s %8s %8s %6s\n' file cpu_s wall_s result
for file in "${files[@]}"; do
  name=$(basename "$file"); name=${name%.test.ts}; name=${name%.test.js}
  times=$(mktemp)
  /usr/bin/time -o "$times" -f '%U %S %e' npx mocha --reporter dot "dist/test/$name.test.js" >"$logs/$name.log" 2>&1
  status=$?
  # The last line: GNU time puts "Command exited with non-zero status N" before it when the file fails.
  read -r user system wall < <(tail -n 1 "$times")
  rm -f "$times"
  if [ "$status" = 0 ]; then result=pass; rm -f "$logs/$name.log"; else result=FAIL; failed=1; fi
  printf '%-45s %8.1f %8.1f %6s\n' "$name" "$(awk "BEGIN { print $user + $system }")" "$wall" "$result"
done
exit "$failed"
