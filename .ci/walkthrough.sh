#!/usr/bin/env bash
# Runs the README's curl walk-through, as written, against a freshly started server on the
# embedded default, and checks what it printed.
set -euo pipefail
cd "$(dirname "$0")/.."
# Node's flags as `npm start` passes them (the heap limit), so the server runs as a user's does.
START_FLAGS="$(node -p "require('./package.json').scripts.start.match(/^node (.*?) ?dist\\/apps\\/api\\/src\\/main\\.js$/)[1]")"

command -v jq >/dev/null || { apt-get -o DPkg::Lock::Timeout=600 update -qq && apt-get -o DPkg::Lock::Timeout=600 install -y -qq jq >/dev/null; }

data_dir="$(mktemp -d)"
log="$data_dir/server.log"
env -u DATABASE_URL -u REDIS_URL LOCI_DATA_DIR="$data_dir" PORT=3000 HOST=127.0.0.1 \
  LOCI_BOOTSTRAP_OPERATOR_EMAIL=op@example.com LOCI_BOOTSTRAP_OPERATOR_PASSWORD=change-me-please \
  node $START_FLAGS dist/apps/api/src/main.js >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$data_dir"' EXIT
for _ in $(seq 1 60); do
  curl -fsS http://127.0.0.1:3000/readyz >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || { cat "$log"; echo "server exited during start"; exit 1; }
  sleep 0.5
done

# Every ```sh block that follows a walkthrough marker, in order, run as one script.
script="$(awk '/<!-- walkthrough/{found=1; next} found && /^```sh/{inside=1; next} inside && /^```/{inside=0; found=0; next} inside{print}' README.md)"
[ -n "$script" ] || { echo "walk-through blocks not found in README.md"; exit 1; }
output="$(bash -euo pipefail -c "$script" 2>&1)"
echo "$output"

echo "$output" | grep -q '"kind":"api_key"' || { echo "walk-through: /v1/me with the API key failed"; exit 1; }
echo "$output" | grep -q '"items":\[{' || { echo "walk-through: the tenant admin could not list API keys"; exit 1; }
echo "$output" | grep -q 'processed' || { echo "walk-through: the sample documents were not processed"; exit 1; }
echo "$output" | grep -q '"superseded"' || { echo "walk-through: remember did not supersede the old fact"; exit 1; }
echo "walk-through: works as written"
