#!/usr/bin/env bash
# Records the demo continuation kept here (demo-laptop.jsonl, demo-phone.jsonl): two headless
# devices of a fresh account on a random discovery port, each with --record; the laptop's Reader
# turns to page 3, the phone continues it, both quit. Run from the repository after a build:
#   Tests/Fixtures/timeline/record.sh [path/to/handoff]
set -euo pipefail
handoff="${1:-.build/debug/handoff}"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
port=$((20000 + RANDOM % 20000))
common=(--headless --account "timeline-demo" --port "$port" --config-dir "$work" --strict)
mkfifo "$work/laptop.in" "$work/phone.in"
"$handoff" device "${common[@]}" --name Laptop --kind laptop --record "$work/laptop.jsonl" \
  <"$work/laptop.in" >"$work/laptop.out" 2>&1 &
laptop=$!
"$handoff" device "${common[@]}" --name Phone --kind phone --apps reader --record "$work/phone.jsonl" \
  <"$work/phone.in" >"$work/phone.out" 2>&1 &
phone=$!
exec 3>"$work/laptop.in" 4>"$work/phone.in"
wait_for() { # FILE TEXT
  for _ in $(seq 1 200); do grep -q "$2" "$1" && return 0; sleep 0.1; done
  echo "record.sh: no $2 in $1" >&2; cat "$1" >&2; exit 1
}
wait_for "$work/laptop.out" '"event":"ready"'
wait_for "$work/phone.out" '"event":"ready"'
echo '{"cmd":"become-current","type":"com.handoffsim.reader.reading","title":"A Short Guide to Handoff","userInfo":{"documentName":"handoff-guide.txt","page":3,"line":12}}' >&3
wait_for "$work/phone.out" '"kind":"offerReceived"'
echo '{"cmd":"continue","peer":"Laptop"}' >&4
wait_for "$work/phone.out" '"event":"restored"'
wait_for "$work/laptop.out" '"kind":"wasContinued"'
echo '{"cmd":"quit"}' >&3
echo '{"cmd":"quit"}' >&4
exec 3>&- 4>&-
wait "$laptop" "$phone"
cp "$work/laptop.jsonl" "$here/demo-laptop.jsonl"
cp "$work/phone.jsonl" "$here/demo-phone.jsonl"
wc -c "$here"/demo-*.jsonl
