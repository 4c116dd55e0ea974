#!/usr/bin/env bash
# Builds the two images the local NRI suite runs, as OCI image-layout tarballs that
# `ctr images import` accepts, without Docker: docker.io/library/busybox:local (Debian's
# busybox-static) and docker.io/library/pause:local (a static C pause compiled here).
# Usage: build-images.sh OUTPUT_DIR   (writes busybox.tar and pause.tar; skips existing files)
set -euo pipefail
out=${1:?usage: build-images.sh OUTPUT_DIR}
mkdir -p "$out"

# make_image NAME ROOTFS_DIR ENTRYPOINT_JSON
make_image() {
  local name=$1 rootfs=$2 entrypoint=$3 work
  [[ -s "$out/$name.tar" ]] && return 0
  work=$(mktemp -d)
  mkdir -p "$work/blobs/sha256"
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$rootfs" -cf "$work/layer.tar" .
  local layer_digest layer_size config_digest config_size manifest_digest manifest_size
  layer_digest=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
  layer_size=$(stat -c %s "$work/layer.tar")
  mv "$work/layer.tar" "$work/blobs/sha256/$layer_digest"
  printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":%s,"Env":["PATH=/bin"]},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
    "$entrypoint" "$layer_digest" >"$work/config.json"
  config_digest=$(sha256sum "$work/config.json" | cut -d' ' -f1)
  config_size=$(stat -c %s "$work/config.json")
  mv "$work/config.json" "$work/blobs/sha256/$config_digest"
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%s}]}' \
    "$config_digest" "$config_size" "$layer_digest" "$layer_size" >"$work/manifest.json"
  manifest_digest=$(sha256sum "$work/manifest.json" | cut -d' ' -f1)
  manifest_size=$(stat -c %s "$work/manifest.json")
  mv "$work/manifest.json" "$work/blobs/sha256/$manifest_digest"
  printf '{"imageLayoutVersion":"1.0.0"}' >"$work/oci-layout"
  printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"io.containerd.image.name":"docker.io/library/%s:local","org.opencontainers.image.ref.name":"local"}}]}' \
    "$manifest_digest" "$manifest_size" "$name" >"$work/index.json"
  tar --owner=0 --group=0 -C "$work" -cf "$out/$name.tar.tmp" oci-layout index.json blobs
  mv "$out/$name.tar.tmp" "$out/$name.tar"
  rm -rf "$work"
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# busybox: the static binary and its applet links.
mkdir -p "$scratch/busybox/bin" "$scratch/busybox/tmp" "$scratch/busybox/dev" "$scratch/busybox/proc"
cp /bin/busybox "$scratch/busybox/bin/busybox"
for applet in sh sleep head tail cat dd ls echo; do ln -s busybox "$scratch/busybox/bin/$applet"; done
make_image busybox "$scratch/busybox" '["/bin/sh"]'

# pause: sleeps until signalled.
mkdir -p "$scratch/pause"
cat >"$scratch/pause.c" <<'C'
#include <signal.h>
#include <unistd.h>
static void stop(int s) { (void)s; _exit(0); }
int main(void) { signal(SIGTERM, stop); signal(SIGINT, stop); for (;;) pause(); }
C
cc -static -O2 -o "$scratch/pause/pause" "$scratch/pause.c"
make_image pause "$scratch/pause" '["/pause"]'
echo "images in $out"
