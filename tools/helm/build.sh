#!/usr/bin/env bash
# Builds helm from its pinned Go module into a cache outside the work tree (beside the
# local control plane's binaries) and prints the path of the binary. A second call with the
# binary present does nothing. HELM, when set, names a helm binary to use as is.
set -euo pipefail

version=v3.22.0
# The Kubernetes version of the client-go this helm release is built against (its go.mod):
# a release build stamps it as the default .Capabilities.KubeVersion and the version lint
# checks deprecations against; a bare `go install` would leave both at v1.20.
kube_major=1
kube_minor=37

if [[ -n ${HELM:-} ]]; then
  [[ -x $HELM ]] || { echo "HELM=$HELM is not an executable" >&2; exit 1; }
  echo "$HELM"
  exit 0
fi

cache=${GENJOBS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/genjobs}
out="$cache/helm-$version"
if [[ -x $out/helm ]]; then echo "$out/helm"; exit 0; fi

if ! command -v go >/dev/null; then
  echo "building helm $version needs Go 1.26 or newer; or set HELM to an existing helm 3 binary" >&2
  exit 1
fi

echo "building helm $version into $out (first time only; takes a few minutes)" >&2
mkdir -p "$out"
tmp=$(mktemp -d "$out/.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$version \
 -X helm.sh/helm/v3/internal/version.gitTreeState=clean \
 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=$kube_major \
 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$kube_minor \
 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=$kube_major \
 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$kube_minor"
# Into a temporary GOBIN and renamed, so an interrupted build never leaves a half-written
# binary that a later run would take for a finished one.
GOTOOLCHAIN=local CGO_ENABLED=0 GOBIN="$tmp" go install -trimpath -ldflags "$ldflags" "helm.sh/helm/v3/cmd/helm@$version"
mv "$tmp/helm" "$out/helm"
echo "$out/helm"
