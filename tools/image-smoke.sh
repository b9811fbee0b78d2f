#!/usr/bin/env bash
# The container image's install and start steps, outside Docker (no engine here): the
# production dependencies alone, the compiled JavaScript alone, and the entrypoints start.
set -euo pipefail
cd "$(dirname "$0")/.."
node=$(pwd)/node_modules/.bin/node
app=$(mktemp -d)
trap 'rm -rf "$app"' EXIT

[[ -f dist/cli.js && -f dist/catalog/default-catalog.yaml ]] || { echo "image-smoke: run npm run build first" >&2; exit 1; }
cp package.json package-lock.json "$app/"
(cd "$app" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
cp -r dist bin crds "$app/"

"$node" "$app/bin/genjobs.js" --help | grep -q 'controller' || { echo "image-smoke: genjobs --help failed" >&2; exit 1; }
"$node" "$app/bin/genjobs.js" keys --help >/dev/null
# The worker with a job it cannot read must report INVALID_JOB in its termination message.
log="$app/termination-log"
if GENJOBS_JOB='{"jobId":""}' GENJOBS_TERMINATION_LOG="$log" "$node" "$app/bin/genjobs.js" worker 2>/dev/null; then
  echo "image-smoke: the worker accepted an invalid job" >&2; exit 1
fi
grep -q '"INVALID_JOB"' "$log" || { echo "image-smoke: no INVALID_JOB result: $(cat "$log")" >&2; exit 1; }
# The default catalog loads from dist/ (it is read at run time, beside the compiled code).
(cd "$app" && "$node" --input-type=module -e "const m = await import('./dist/catalog/load.js'); const c = await m.loadDefaultCatalog(); if (c.variants.length < 3) process.exit(1);")
# A checkout installed into an app (src/ and dist/ both present) on the machine's own, older
# Node runs the built command rather than refusing the sources.
system_node=$(PATH=/usr/local/bin:/usr/bin:/bin command -v node || true)
if [[ -n $system_node ]] && (( $("$system_node" -p 'process.versions.node.split(".")[0]') < 24 )); then
  "$system_node" bin/genjobs.js --help | grep -q 'controller' || { echo "image-smoke: genjobs on $("$system_node" --version) did not run dist/" >&2; exit 1; }
fi
echo "image-smoke: the compiled service starts from production dependencies only"
