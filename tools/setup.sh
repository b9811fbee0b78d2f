#!/usr/bin/env bash
# Installs what the service and its tests need beyond npm packages, each only when missing:
# Debian packages (ffmpeg for the worker, fonts for rendered text, shellcheck, python3-venv,
# chromium, wrk), a local S3-compatible server for the blob store tests (moto), schemathesis for API
# fuzzing (a virtualenv in ~/.cache/genjobs/venv), and the local Kubernetes control
# plane and helm, built from pinned Go modules into ~/.cache/genjobs.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(ffmpeg fonts-dejavu-core shellcheck python3-venv)
# Debian's chromium: the docs page's browser test drives it with playwright-core.
packages+=(chromium)
# wrk: the bench's load generator for reads whose latency is the figure (bench/harness/wrk.ts).
packages+=(wrk)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_cmd=""
  [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Job history (archive) tests and the bench start throwaway PostgreSQL servers (initdb,
# postgres) from Debian's postgresql package; the dev mode embeds PGlite instead.
if ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
  echo "setup: installing Debian package postgresql"
  sudo_cmd=""
  [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends postgresql >/dev/null
fi

if ! command -v moto_server >/dev/null 2>&1; then
  echo "setup: installing moto (a local S3-compatible server for tests)"
  python3 -m pip install --quiet 'moto[server]==5.*'
fi

# Schemathesis (API fuzzing against the OpenAPI document, tools/schemathesis.sh), pinned,
# in its own virtualenv so its dependencies never meet the system's Python packages.
st_version=4.32.5
st_venv=$HOME/.cache/genjobs/venv
if [[ "$("$st_venv/bin/st" --version 2>/dev/null)" != *"$st_version"* ]]; then
  echo "setup: installing schemathesis $st_version into $st_venv"
  python3 -m venv "$st_venv"
  "$st_venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$st_version"
fi

echo "setup: control plane binaries in $(bash tools/controlplane/build.sh)"
if [[ -f tools/helm/build.sh ]]; then
  echo "setup: helm at $(bash tools/helm/build.sh)"
fi
