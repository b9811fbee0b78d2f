#!/usr/bin/env bash
# Builds the local control plane (etcd, kube-apiserver, kube-controller-manager) from the
# pinned Go modules beside this script, into a cache outside the work tree, and prints the
# directory that holds the binaries. A second call with the binaries present does nothing.
# KUBEBUILDER_ASSETS, when set, names a directory that already has them: it is used as is.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
k8s_version=$(sed -n 's/^require k8s.io\/kubernetes v//p' "$here/k8s/go.mod")
etcd_version=$(sed -n 's/^require go.etcd.io\/etcd\/server\/v3 v//p' "$here/etcd/go.mod")
binaries=(etcd kube-apiserver kube-controller-manager)

if [[ -n ${KUBEBUILDER_ASSETS:-} ]]; then
  for b in etcd kube-apiserver; do
    [[ -x $KUBEBUILDER_ASSETS/$b ]] || { echo "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS has no $b" >&2; exit 1; }
  done
  echo "$KUBEBUILDER_ASSETS"
  exit 0
fi

cache=${GENJOBS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/genjobs}
out="$cache/k8s-v$k8s_version-etcd-v$etcd_version"
missing=()
for b in "${binaries[@]}"; do [[ -x $out/$b ]] || missing+=("$b"); done
if ((${#missing[@]} == 0)); then echo "$out"; exit 0; fi

if ! command -v go >/dev/null; then
  cat >&2 <<MSG
The local control plane needs etcd, kube-apiserver and kube-controller-manager v$k8s_version.
Either install Go (1.26 or newer) so this script can build them into $out,
or point KUBEBUILDER_ASSETS at a directory that already holds them.
MSG
  exit 1
fi

mkdir -p "$out"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0
minor=${k8s_version#*.}; minor=${minor%%.*}
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=v$k8s_version \
 -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor \
 -X k8s.io/component-base/version.gitTreeState=clean \
 -X k8s.io/client-go/pkg/version.gitVersion=v$k8s_version \
 -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$minor"

for b in "${missing[@]}"; do
  echo "building $b into $out (first time only; takes several minutes)" >&2
  # Build to a temporary name and rename, so an interrupted build never leaves a
  # half-written binary that a later run would take for a finished one.
  if [[ $b == etcd ]]; then
    (cd "$here/etcd" && go build -trimpath -ldflags "-s -w" -o "$out/.$b.tmp" go.etcd.io/etcd/server/v3)
  else
    (cd "$here/k8s" && go build -trimpath -ldflags "$ldflags" -o "$out/.$b.tmp" "k8s.io/kubernetes/cmd/$b")
  fi
  mv "$out/.$b.tmp" "$out/$b"
done
echo "$out"
