#!/usr/bin/env bash
# The end-to-end suite against a real cluster: a kind cluster, the image built from this
# checkout, the Helm chart, and test/e2e run through a port-forward to the api Service.
# Needs docker, kind, kubectl, curl and Node 24 with `npm ci` done; helm comes from
# tools/helm/build.sh (Go) unless HELM names one. Not runnable where there is no Docker engine.
#   scripts/kind-e2e.sh            KEEP_CLUSTER=1 keeps the cluster for a look afterwards
set -euo pipefail
cd "$(dirname "$0")/.."

cluster=${KIND_CLUSTER:-genjobs-e2e}
namespace=genjobs
port=${E2E_PORT:-18080}
image=genjobs:e2e
helm=$(tools/helm/build.sh)
export KUBECONFIG="${TMPDIR:-/tmp}/$cluster.kubeconfig"

pf=
cleanup() {
  if [[ -n $pf ]]; then kill "$pf" 2>/dev/null || true; fi
  if [[ -z ${KEEP_CLUSTER:-} ]]; then kind delete cluster --name "$cluster"; fi
}
trap cleanup EXIT

kind get clusters | grep -qx "$cluster" || kind create cluster --name "$cluster" --wait 120s
kind get kubeconfig --name "$cluster" >"$KUBECONFIG"
docker build -t "$image" .
kind load docker-image "$image" --name "$cluster"

# One node: the blob volume can be ReadWriteOnce (kind's local-path StorageClass has no
# ReadWriteMany). File URLs point at the port-forward, and webhooks may target private
# addresses, as the suite's receivers are.
"$helm" upgrade --install genjobs charts/genjobs --namespace "$namespace" --create-namespace \
  --wait --timeout 5m \
  --set image.repository=genjobs,image.tag=e2e,image.pullPolicy=Never \
  --set "publicUrl=http://127.0.0.1:$port" \
  --set 'blob.filesystem.persistence.accessModes={ReadWriteOnce}' \
  --set webhooks.allowPrivate=true

kubectl -n "$namespace" port-forward svc/genjobs-api "$port:8080" >/dev/null &
pf=$!
for _ in $(seq 60); do
  curl -fsS "http://127.0.0.1:$port/v1/catalog/models" >/dev/null 2>&1 && break
  sleep 1
done

GENJOBS_E2E_BASE_URL="http://127.0.0.1:$port" GENJOBS_E2E_NAMESPACE=$namespace \
  npx vitest run --project integration test/e2e
