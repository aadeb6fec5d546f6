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

have() { [ -x "$out/$1" ]; }
if have etcd && have kube-apiserver && have kubectl; then
  echo "$out"
  exit 0
fi
mkdir -p "$out" "$work"
log() { echo "control-plane: $*" >&2; }
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
  for cmd in kube-apiserver kubectl; do
    if ! have "$cmd"; then
      (cd "$dir" && go build -trimpath -ldflags "-s -w" -o "$out/$cmd.tmp" "k8s.io/kubernetes/cmd/$cmd" >&2)
      mv "$out/$cmd.tmp" "$out/$cmd"
    fi
  done
fi
log "built in $((SECONDS - started)) s"
echo "$out"
