#!/usr/bin/env bash
# Run an app's tests against a throw-away Stratus, the way a CI job does: a fresh server, the container made from
# the app's declared schema (deployed, as Production has it) and a seed, a snapshot each test run starts from, and
# a schema check that fails the job when the app did something Production would refuse.
#
#   SCHEMA=app.ckdb SEED=seed.ndjson APP_TESTS="swift test" Examples/ci/test-against-stratus.sh
#
# Variables: STRATUS (the stratus executable; default: stratus on PATH), STRATUS_CONTAINER (default
# iCloud.com.example.App), SCHEMA (a .ckdb file, required), SEED (an NDJSON file of public records, optional),
# APP_TESTS (the command that runs the app's tests; it finds the server through the STRATUS_* variables StratusKit's
# CKContainer.default() reads), RUNS (how many times to run APP_TESTS, each from the snapshot; default 1).
# Needs curl and python3 (for JSON). Exit status: the tests' own, or 3 when the schema check finds problems.
set -euo pipefail

STRATUS="${STRATUS:-stratus}"
CONTAINER="${STRATUS_CONTAINER:-iCloud.com.example.App}"
: "${SCHEMA:?set SCHEMA to the app's .ckdb file}"
APP_TESTS="${APP_TESTS:?set APP_TESTS to the command that runs the app's tests}"
RUNS="${RUNS:-1}"

work="$(mktemp -d)"
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# 1. A fresh server: its data lives in a temporary directory removed when it stops.
python3 -c 'import secrets; print(secrets.token_hex(24))' > "$work/admin-token"
"$STRATUS" serve --ephemeral --port 0 --admin-token-file "$work/admin-token" > "$work/serve.log" 2>&1 &
server=$!
url=""
for _ in $(seq 1 100); do
  url="$(sed -n 's/^Stratus is serving //p' "$work/serve.log" | head -n 1)"
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "stratus serve did not start:"; cat "$work/serve.log"; exit 1; }
admin=(-fsS -H "Authorization: Bearer $(cat "$work/admin-token")")

# 2. The container from the declared schema (deployed) and the seed, in one call; it answers an API token.
python3 - "$CONTAINER" "$SCHEMA" "${SEED:-}" > "$work/create.json" <<'PY'
import json, sys
container, schema, seed = sys.argv[1], sys.argv[2], sys.argv[3]
body = {"container": container, "schema": open(schema).read(), "deploy": True}
if seed:
    body["records"] = open(seed).read()
print(json.dumps(body))
PY
created="$(curl "${admin[@]}" -H 'Content-Type: application/json' --data-binary @"$work/create.json" "${url}-/admin/containers")"
api_token="$(python3 -c 'import json, sys; print(json.load(sys.stdin)["apiToken"])' <<< "$created")"

# 3. A signed-in user for the app: Development's test user, signed in as a program signs in.
signin="$(curl -fsS -X POST -H 'Accept: application/json' --data 'testUser=1' \
  "${url}auth/1/${CONTAINER}/development/signin?ckAPIToken=${api_token}")"
web_token="$(python3 -c 'import json, sys; print(json.load(sys.stdin)["ckWebAuthToken"])' <<< "$signin")"

# 4. A snapshot every run of the tests starts from.
snapshot="$(curl "${admin[@]}" -X POST "${url}-/admin/containers/${CONTAINER}/development/snapshot" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["snapshot"])')"

export STRATUS_URL="$url" STRATUS_CONTAINER="$CONTAINER" STRATUS_ENVIRONMENT=development
export STRATUS_API_TOKEN="$api_token" STRATUS_WEB_AUTH_TOKEN="$web_token"
status=0
for run in $(seq 1 "$RUNS"); do
  curl "${admin[@]}" -X POST -H 'Content-Type: application/json' --data "{\"snapshot\":\"$snapshot\"}" \
    "${url}-/admin/containers/${CONTAINER}/development/restore" > /dev/null
  echo "== app tests, run $run of $RUNS"
  bash -c "$APP_TESTS" || status=$?
done

# 5. What Production would refuse of what the tests did in Development.
check="$(curl "${admin[@]}" "${url}-/admin/containers/${CONTAINER}/schema-check")"
if ! python3 -c 'import json, sys; r = json.load(sys.stdin); [print("schema check:", p) for p in r["problems"]]; sys.exit(0 if r["ok"] else 1)' <<< "$check"; then
  echo "schema check failed: deploy these to Production, or stop doing them"
  [ "$status" -eq 0 ] && status=3
fi
exit "$status"
