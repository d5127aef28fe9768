#!/usr/bin/env bash
# Builds the container image of cosid, cosid:dev (IMAGE=name:tag overrides), with
# podman, or docker when podman is missing (CONTAINER_CLI=docker chooses it).
#
# cosid is built here as a static binary (CGO_ENABLED=0, the time zones embedded, so
# that a periodic segment's zone needs no /usr/share/zoneinfo) and copied into an
# image FROM scratch (deploy/Containerfile): no base image is pulled. The version is
# VERSION, else `git describe` of the checkout; it is stamped into the binary
# (`cosid version`) and into the image's OCI labels.
set -euo pipefail
cd "$(dirname "$0")/.."

image=${IMAGE:-cosid:dev}
cli=${CONTAINER_CLI:-}
if [ -z "$cli" ]; then
	if command -v podman >/dev/null 2>&1; then
		cli=podman
	elif command -v docker >/dev/null 2>&1; then
		cli=docker
	else
		echo "deploy/image.sh: neither podman nor docker is installed (apt-get install podman runc); CONTAINER_CLI names another" >&2
		exit 1
	fi
fi
version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo unknown)}
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
case $version in
*[!A-Za-z0-9._+-]*)
	echo "deploy/image.sh: VERSION=$version: use letters, digits and . _ + - only" >&2
	exit 1
	;;
esac

ctx=$(mktemp -d "${TMPDIR:-/tmp}/cosid-image.XXXXXX")
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/rootfs/usr/local/bin" "$ctx/rootfs/etc/ssl/certs" "$ctx/rootfs/tmp" "$ctx/data"
chmod 1777 "$ctx/rootfs/tmp"

echo "deploy/image.sh: building cosid $version (CGO_ENABLED=0)" >&2
CGO_ENABLED=0 GOOS=linux go build -trimpath -tags timetzdata -ldflags "-s -w -X main.version=$version" \
	-o "$ctx/rootfs/usr/local/bin/cosid" ./cmd/cosid

# A user by number for runAsNonRoot, with names for the tools that print them.
printf '%s\n' 'root:x:0:0:root:/:/nonexistent' 'cosid:x:65532:65532:cosid:/data:/nonexistent' >"$ctx/rootfs/etc/passwd"
printf '%s\n' 'root:x:0:' 'cosid:x:65532:' >"$ctx/rootfs/etc/group"
roots=/etc/ssl/certs/ca-certificates.crt
if [ ! -f "$roots" ]; then
	echo "deploy/image.sh: no $roots for the stores' TLS: apt-get install ca-certificates" >&2
	exit 1
fi
cp "$roots" "$ctx/rootfs/etc/ssl/certs/ca-certificates.crt"

# podman keeps an image of every step for its cache unless told not to; nothing here
# is worth caching (the binary differs with every version), and those images would
# outlive the image they built.
flags=()
[ "$(basename "$cli")" = podman ] && flags+=(--layers=false)
echo "deploy/image.sh: $cli build -t $image" >&2
"$cli" build "${flags[@]}" --build-arg VERSION="$version" --build-arg REVISION="$revision" \
	-f deploy/Containerfile -t "$image" "$ctx"
