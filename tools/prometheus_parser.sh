#!/usr/bin/env bash
# Provisions the parser the metrics tests check the rendered text with: the
# Prometheus project's Python client (prometheus_client, its text parser) at
# a pinned version from PyPI, in a virtual environment in the cache folder
# outside the repository, and prints that environment's python. A no-op when
# it is there.
#
#   bash tools/prometheus_parser.sh        # or: deno task prometheus-parser
#   K8S_WATCHER_TOOLS_DIR=/somewhere bash tools/prometheus_parser.sh
set -euo pipefail
PROMETHEUS_CLIENT_VERSION=0.21.1

tools="${K8S_WATCHER_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/k8s-watcher-tools}"
venv="$tools/prometheus-client-${PROMETHEUS_CLIENT_VERSION}"
python="$venv/bin/python"

have() {
  [ -x "$python" ] &&
    [ "$("$python" -c 'import importlib.metadata as m; print(m.version("prometheus_client"))' 2>/dev/null)" = "$PROMETHEUS_CLIENT_VERSION" ]
}

if ! have; then
  command -v python3 >/dev/null 2>&1 || {
    echo "python3 is needed to provision prometheus_client (e.g. apt-get install python3 python3-venv)" >&2
    exit 1
  }
  rm -rf "$venv"
  mkdir -p "$tools"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    "prometheus_client==${PROMETHEUS_CLIENT_VERSION}" >&2
  have || {
    echo "prometheus_client ${PROMETHEUS_CLIENT_VERSION} did not install into $venv" >&2
    exit 1
  }
fi
echo "$python"
