#!/usr/bin/env bash
# Provisions a control plane for tests, as controller-runtime's setup-envtest
# does: etcd, kube-apiserver and kubectl at pinned versions, built from the Go
# module proxy into a cache folder outside the repository, and prints that
# folder (usable as KUBEBUILDER_ASSETS). A no-op when the binaries are there.
#
#   bash tools/control_plane.sh            # or: deno task control-plane
#   K8S_WATCHER_TOOLS_DIR=/somewhere bash tools/control_plane.sh
#
# k8s.io/kubernetes cannot be built with `go install pkg@version`: its go.mod
# replaces the k8s.io staging modules with folders of its own tree. A small
# wrapper module requires it and replaces each staging module with the
# published v0.<minor>.<patch> of the same release instead.
set -euo pipefail
KUBERNETES_VERSION=1.37.2
ETCD_VERSION=3.7.3
# Every published staging module of a Kubernetes 1.x.y release is v0.x.y.
STAGING_VERSION="v0.${KUBERNETES_VERSION#1.}"
# Kubernetes 1.37 and etcd 3.7 build with the machine's Go 1.26; a module that
# asks for Go 1.27 gets it from the module proxy through this.
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
export GOFLAGS="${GOFLAGS:--buildvcs=false}"
export CGO_ENABLED=0

tools="${K8S_WATCHER_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/k8s-watcher-tools}"
out="$tools/control-plane/kubernetes-${KUBERNETES_VERSION}-etcd-${ETCD_VERSION}"
work="$tools/control-plane/build"

# A binary is there when it runs and names its version (a build without the
# version stamp below says v0.0.0-master, and is built again).
# (The output is read whole first: with pipefail, `| grep -q` would fail
# the check whenever grep exits before the program has written everything.)
have() {
  [ -x "$out/$1" ] || return 1
  local version expected
  case $1 in
  etcd) version=$("$out/etcd" --version 2>/dev/null) expected="etcd Version: ${ETCD_VERSION}" ;;
  kube-apiserver) version=$("$out/kube-apiserver" --version 2>/dev/null) expected="Kubernetes v${KUBERNETES_VERSION}" ;;
  kubectl) version=$("$out/kubectl" version --client 2>/dev/null) expected="Client Version: v${KUBERNETES_VERSION}" ;;
  esac
  grep -qx "$expected" <<<"$version"
}
if have etcd && have kube-apiserver && have kubectl; then
  echo "$out"
  exit 0
fi
log() { echo "control-plane: $*" >&2; }
# Binaries the tests would take instead (setup-envtest's, for instance):
# nothing to build.
assets=${KUBEBUILDER_ASSETS:-}
if [ -n "$assets" ] && [ -x "$assets/etcd" ] && [ -x "$assets/kube-apiserver" ] &&
  [ -x "$assets/kubectl" ]; then
  log "using KUBEBUILDER_ASSETS=$assets"
  echo "$assets"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  log "Go is needed to build etcd ${ETCD_VERSION}, kube-apiserver and kubectl ${KUBERNETES_VERSION} (from the Go module proxy); or set KUBEBUILDER_ASSETS to a folder holding all three, e.g. setup-envtest's"
  exit 1
fi
mkdir -p "$out" "$work"
started=$SECONDS

# etcd: the server module's go.mod replaces its sibling modules with folders
# too, so it also builds from a wrapper that requires it.
if ! have etcd; then
  log "building etcd ${ETCD_VERSION} (a few minutes)"
  dir="$work/etcd-${ETCD_VERSION}"
  rm -rf "$dir" && mkdir -p "$dir"
  cat >"$dir/go.mod" <<MOD
module k8swatcher.local/etcd

go 1.26.0

require go.etcd.io/etcd/server/v3 v${ETCD_VERSION}
MOD
  cat >"$dir/tools.go" <<'SRC'
//go:build tools

package tools

import _ "go.etcd.io/etcd/server/v3"
SRC
  (cd "$dir" && go mod tidy >&2 && go build -trimpath -ldflags "-s -w" -o "$out/etcd.tmp" go.etcd.io/etcd/server/v3 >&2)
  mv "$out/etcd.tmp" "$out/etcd"
fi

if ! have kube-apiserver || ! have kubectl; then
  log "building kube-apiserver and kubectl ${KUBERNETES_VERSION} (many minutes on 2 cores)"
  dir="$work/kubernetes-${KUBERNETES_VERSION}"
  rm -rf "$dir" && mkdir -p "$dir"
  (cd "$dir" && go mod download -json "k8s.io/kubernetes@v${KUBERNETES_VERSION}" >/dev/null)
  upstream="$(go env GOMODCACHE)/cache/download/k8s.io/kubernetes/@v/v${KUBERNETES_VERSION}.mod"
  {
    echo "module k8swatcher.local/kubernetes"
    echo
    echo "go 1.26.0"
    echo
    echo "require k8s.io/kubernetes v${KUBERNETES_VERSION}"
    echo
    echo "replace ("
    sed -nE 's#^[[:space:]]*(k8s\.io/[a-z0-9-]+) => \./staging/.*#\t\1 => \1 '"$STAGING_VERSION"'#p' "$upstream"
    echo ")"
  } >"$dir/go.mod"
  cat >"$dir/tools.go" <<'SRC'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
SRC
  (cd "$dir" && go mod tidy >&2)
  # The version a release build stamps in (hack/lib/version.sh): /version,
  # `kubectl version` and the User-Agent say v1.x.y, not v0.0.0-master.
  minor=${KUBERNETES_VERSION#1.}
  minor=${minor%%.*}
  ldflags="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=v${KUBERNETES_VERSION} -X $pkg.gitMajor=1"
    ldflags+=" -X $pkg.gitMinor=${minor} -X $pkg.gitTreeState=clean"
  done
  for cmd in kube-apiserver kubectl; do
    if ! have "$cmd"; then
      (cd "$dir" && go build -trimpath -ldflags "$ldflags" -o "$out/$cmd.tmp" "k8s.io/kubernetes/cmd/$cmd" >&2)
      mv "$out/$cmd.tmp" "$out/$cmd"
    fi
  done
fi
log "built in $((SECONDS - started)) s"
echo "$out"
