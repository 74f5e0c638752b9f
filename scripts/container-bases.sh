#!/usr/bin/env bash
# Local stand-ins for the registry images that the Dockerfile and compose.yaml start from, for a machine that
# reaches Debian's mirror but no image registry (podman; CONTAINERS_CONF as scripts/container-check.sh sets it):
#   localhost/detectd-offline/debian-node:trixie  Debian 13 (debootstrap minbase) with Node.js: NODE_IMAGE
#   localhost/detectd-offline/node-build:trixie   that with npm: BUILD_IMAGE     (deploy/podman/node-build.Containerfile)
#   localhost/detectd-offline/postgres:trixie     POSTGRES_IMAGE                 (deploy/podman/postgres.Containerfile)
#   localhost/detectd-offline/nginx:trixie        NGINX_IMAGE                    (deploy/podman/nginx.Containerfile)
#   localhost/detectd-offline/systemd:trixie      a machine with systemd: SYSTEMD_IMAGE (deploy/podman/systemd.Containerfile)
# An image that exists is kept (podman rmi it to make it again). Prints them as NAME=image lines.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=localhost/detectd-offline
node_image=$prefix/debian-node:trixie
exists() { podman image exists "$1"; }

if ! exists "$node_image"; then
  # The Debian mirror apt uses here (deb822 or one-line sources), else Debian's CDN.
  mirror=${DEBIAN_MIRROR:-$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null \
    | sed -n -E 's#^URIs: *(https?://[^ ]*/debian)/?$#\1#p; s#^deb (\[[^]]*\] )?(https?://[^ ]*/debian)/? .*#\2#p' | head -n 1 || true)}
  mirror=${mirror:-http://deb.debian.org/debian}
  root=$(mktemp -d /var/tmp/detectd-debian-root.XXXXXX)
  trap 'rm -rf "$root"' EXIT
  debootstrap --variant=minbase --include=nodejs,ca-certificates trixie "$root" "$mirror" >"$root.log" 2>&1 \
    || { tail -n 20 "$root.log" >&2; exit 1; }
  rm -f "$root.log"
  # Certificate authorities this host added (a TLS-inspecting proxy's, say): trusted inside as here, so that
  # npm reaches its registry from a build. Debian's Node.js reads the system's store.
  if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
    chroot "$root" update-ca-certificates >/dev/null
  fi
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar -C "$root" -c . | podman import --change 'CMD ["/bin/bash"]' - "$node_image" >/dev/null
  rm -rf "$root"
  trap - EXIT
fi

build_on_debian() { # image containerfile
  exists "$1" || podman build --quiet --build-arg "NODE_IMAGE=$node_image" --build-arg "DEBIAN_IMAGE=$node_image" \
    -t "$1" -f "deploy/podman/$2" deploy/podman >/dev/null
}
build_on_debian "$prefix/node-build:trixie" node-build.Containerfile
build_on_debian "$prefix/postgres:trixie" postgres.Containerfile
build_on_debian "$prefix/nginx:trixie" nginx.Containerfile
build_on_debian "$prefix/systemd:trixie" systemd.Containerfile

echo "NODE_IMAGE=$node_image"
echo "BUILD_IMAGE=$prefix/node-build:trixie"
echo "POSTGRES_IMAGE=$prefix/postgres:trixie"
echo "NGINX_IMAGE=$prefix/nginx:trixie"
echo "SYSTEMD_IMAGE=$prefix/systemd:trixie"
