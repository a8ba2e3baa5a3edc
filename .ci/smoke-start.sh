#!/usr/bin/env bash
# Starts the built server exactly as `npm start` does, with no settings but a throwaway data
# dir and a free port, and checks that it answers /healthz, /readyz, /docs and /console.
set -euo pipefail
cd "$(dirname "$0")/.."
# Node's flags as `npm start` passes them (the heap limit), so the server runs as a user's does.
START_FLAGS="$(node -p "require('./package.json').scripts.start.match(/^node (.*?) ?dist\\/apps\\/api\\/src\\/main\\.js$/)[1]")"

data_dir="$(mktemp -d)"
port=3917
log="$data_dir/server.log"
env -u DATABASE_URL -u REDIS_URL LOCI_DATA_DIR="$data_dir" PORT="$port" HOST=127.0.0.1 \
  node $START_FLAGS dist/apps/api/src/main.js >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$data_dir"' EXIT

for _ in $(seq 1 60); do
  if curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$pid" 2>/dev/null; then cat "$log"; echo "server exited during start"; exit 1; fi
  sleep 0.5
done
curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null || { cat "$log"; echo "/healthz did not answer"; exit 1; }
curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null || { cat "$log"; echo "/readyz is not ready"; exit 1; }
curl -fsS "http://127.0.0.1:$port/docs" | grep -q swagger-ui || { echo "/docs does not serve Swagger UI"; exit 1; }
page="$(curl -fsS "http://127.0.0.1:$port/console")" || { echo "/console does not answer"; exit 1; }
asset="$(grep -o '/console/assets/[^"]*\.js' <<<"$page" | head -1)"
[[ -n "$asset" ]] || { echo "/console does not serve the console's page"; exit 1; }
curl -fsS -o /dev/null "http://127.0.0.1:$port$asset" || { echo "/console does not serve its script $asset"; exit 1; }
echo "smoke: /healthz, /readyz, /docs and /console answer on the embedded default"
