#!/usr/bin/env bash
# Installs the Debian 12 packages that building, running and testing cub need: only those that
# are missing, so a machine that has them all is checked in a second and touches no network.
# Runs as root, or through sudo when available. Non-interactive (fine for CI: no stdin).
#
# Note: installing postgresql-15 on Debian also creates and starts a `main` cluster on port
# 5432. That is harmless: the tests start their own server (tests/harness/pg.sh) on another port,
# and cubd's embedded database listens on no TCP port at all.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev libpqxx-dev libpq-dev libcli11-dev catch2 libssl-dev libfyaml-dev libre2-dev libjq-dev libgit2-dev libboost-dev
  nlohmann-json3-dev libcurl4-openssl-dev zlib1g-dev
  libgoogle-perftools-dev  # tcmalloc, cubd's allocator (CMakeLists.txt, CUB_TCMALLOC)
  nodejs npm  # the tests' OpenID provider (tests/oidc, oidc-provider from npm)
  postgresql-15 clang-format universal-ctags curl git ca-certificates iproute2
  tzdata  # time zones for recurring freeze windows (absl::LoadTimeZone)
  openssh-client openssh-server  # Git over SSH: ssh-keygen, and the tests' sshd (tests/harness/sshd.sh)
  docker-registry skopeo apache2-utils  # the tests' OCI registry (tests/harness/registry.sh), skopeo, htpasswd
  python3-jsonschema python3-yaml  # Argo CD Applications checked against the CRD (tests/harness/argocd_schema_check.py)
  prometheus  # scrapes cubd's /metrics in tests/e2e/ops_metrics_test.sh (and promtool)
  kubernetes-client  # kubectl kustomize renders deploy/kubernetes (tests/harness/kube_manifests_test.sh)
  chromium  # the dashboard's browser test (tests/e2e/ui_dashboard_test.sh, driven by tests/ui)
)

# Node.js from elsewhere (NodeSource's nodejs bundles npm and conflicts with Debian's npm
# package) satisfies the tests' OpenID provider: tests/oidc needs node >= 18 and npm.
if command -v node >/dev/null && command -v npm >/dev/null &&
    (($(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0) >= 18)); then
  kept=()
  for pkg in "${PACKAGES[@]}"; do [[ $pkg == nodejs || $pkg == npm ]] || kept+=("$pkg"); done
  PACKAGES=("${kept[@]}")
fi

# A kubectl from elsewhere (Google's or Kubernetes' own packages ship /usr/bin/kubectl and
# conflict with Debian's kubernetes-client) renders the manifests as well, if it has kustomize.
if command -v kubectl >/dev/null && kubectl kustomize --help >/dev/null 2>&1; then
  kept=()
  for pkg in "${PACKAGES[@]}"; do [[ $pkg == kubernetes-client ]] || kept+=("$pkg"); done
  PACKAGES=("${kept[@]}")
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  # `dpkg -s` also succeeds for a removed package whose config files remain: read its status.
  if ! dpkg -s "$pkg" 2>/dev/null | grep -q '^Status: install ok installed$'; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#PACKAGES[@]} packages are installed"
  exit 0
fi

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "install-deps: missing packages (${missing[*]}), and neither root nor sudo is available" >&2
    exit 1
  fi
fi

echo "install-deps: installing ${missing[*]}"
APT=("${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -y -o DPkg::Lock::Timeout=300
  -o Dpkg::Use-Pty=0)
"${APT[@]}" update
"${APT[@]}" install --no-install-recommends "${missing[@]}"
