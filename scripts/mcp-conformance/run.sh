#!/usr/bin/env bash
# Runs the MCP conformance suite (npm @modelcontextprotocol/conformance, on
# Node 22 fetched by npx) against `studio-bridge mcp --http`, with an
# emulated Studio window (test/emulator) behind it, and writes the results
# to an output directory. See docs/mcp.md, "Conformance".
#
#   scripts/mcp-conformance/run.sh [output-dir]     (default: dist/mcp-conformance)
#
# Needs bash, curl, Go, Node.js 20+ with npm (npx fetches Node 22 and the suite), and
# test/emulator's packages (`npm ci --prefix test/emulator`). Everything
# runs on loopback, in a temporary config directory, on free ports; nothing
# of the user's own studio-bridge setup is read or changed. Not part of the
# regular test command: it needs Node 22 and the network for npx's first run.
set -euo pipefail

SUITE_VERSION="${MCP_CONFORMANCE_VERSION:-0.1.16}"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$repo/dist/mcp-conformance}"
mkdir -p "$out"
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

freeport() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
waitfor() { # waitfor <what> <seconds> <command…>
  local what="$1" secs="$2"; shift 2
  for ((i = 0; i < secs * 10; i++)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "mcp-conformance: timed out waiting for $what" >&2; return 1
}

if [ ! -d "$repo/test/emulator/node_modules/luau-web" ]; then
  echo "mcp-conformance: run npm ci --prefix test/emulator first" >&2; exit 2
fi
echo "mcp-conformance: building studio-bridge" >&2
(cd "$repo" && go build -o "$work/studio-bridge" ./cmd/studio-bridge)

export STUDIO_BRIDGE_CONFIG_DIR="$work/config"
export STUDIO_BRIDGE_MCP_TOKEN="$(node -e 'console.log(require("crypto").randomBytes(32).toString("base64url"))')"
unset STUDIO_BRIDGE_TOKEN STUDIO_BRIDGE_REMOTE
bridge_port="$(freeport)"; mcp_port="$(freeport)"; proxy_port="$(freeport)"
export STUDIO_BRIDGE_PORT="$bridge_port"

"$work/studio-bridge" serve >"$out/serve.log" 2>&1 & pids+=($!)
waitfor "the bridge host" 20 curl -fsS "http://127.0.0.1:$bridge_port/health"
node "$repo/test/emulator/bin/studio.mjs" --port "$bridge_port" --quiet </dev/null >"$out/studio.log" 2>&1 & pids+=($!)
waitfor "the emulated Studio window" 60 sh -c "'$work/studio-bridge' sessions --json | grep -q sessionId"
"$work/studio-bridge" mcp --http "127.0.0.1:$mcp_port" >"$out/mcp.log" 2>&1 & pids+=($!)
node "$repo/scripts/mcp-conformance/proxy.mjs" "$proxy_port" "127.0.0.1:$mcp_port" 2>"$out/proxy.log" & pids+=($!)
answers() { # the MCP server answers through the proxy (any status but 502)
  local c; c="$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'content-type: application/json' \
    -H 'accept: application/json, text/event-stream' --data '{}' "http://127.0.0.1:$proxy_port/mcp")"
  [ "$c" != 000 ] && [ "$c" != 502 ]
}
waitfor "the MCP server" 20 answers

echo "mcp-conformance: running @modelcontextprotocol/conformance@$SUITE_VERSION against http://127.0.0.1:$proxy_port/mcp" >&2
set +e
npx -y -p node@22 -p "@modelcontextprotocol/conformance@$SUITE_VERSION" -- \
  conformance server --url "http://127.0.0.1:$proxy_port/mcp" --suite all -o "$out/results" 2>&1 | tee "$out/summary.txt"
code="${PIPESTATUS[0]}"
set -e
echo "mcp-conformance: results in $out (exit $code)" >&2
exit "$code"
