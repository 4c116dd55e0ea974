#!/usr/bin/env bash
# Builds the cgroup v2 test VM's disk image from Debian trixie with mmdebstrap (no loop mount,
# no root filesystem of the host touched): the trixie kernel (6.12) and its initramfs, containerd
# 1.7 with NRI and runc from trixie, and e2e/vm/init.sh as the VM's PID 1. The image is cached
# under $HEADROOM_CACHE/vm/KEY, KEY a hash of this recipe, so it is built once (about a minute
# and 1 GB of disk) and again only when the recipe changes. Every message goes to stderr.
# Usage: e2e/vm/image.sh    (prints the image's directory: vmlinuz, initrd.img, rootfs.img)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${HEADROOM_CACHE:-$HOME/.cache/headroom}
mirror=${HEADROOM_VM_MIRROR:-http://deb.debian.org/debian}
packages=linux-image-amd64,containerd,runc,curl,iproute2,kmod,procps,mount
# Bump when the image's contents change in a way the package list and init.sh do not show.
recipe=2
key=$( (echo "$recipe $packages"; cat "$here/init.sh") | sha256sum | cut -c1-12)
dir=$cache/vm/$key
if [[ -s $dir/rootfs.img && -s $dir/vmlinuz && -s $dir/initrd.img ]]; then
  echo "$dir"
  exit 0
fi
for tool in mmdebstrap mkfs.ext4; do
  command -v "$tool" >/dev/null || { echo "vm image: missing $tool (scripts/vm-deps.sh installs it)" >&2; exit 2; }
done
[[ $(id -u) == 0 ]] || { echo "vm image: needs root (mmdebstrap's root mode)" >&2; exit 2; }

started=$SECONDS
build=$(mktemp -d /tmp/headroom-vm-image.XXXXXX)
trap 'rm -rf "$build"' EXIT
echo "vm image: building $dir from Debian trixie ($packages)" >&2
mmdebstrap --mode=root --variant=minbase --include="$packages" \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --aptopt='Acquire::Retries "3"' \
  --customize-hook='install -m 0755 "'"$here"'/init.sh" "$1/sbin/headroom-init"' \
  --customize-hook='mkdir -p "$1/mnt/repo" "$1/mnt/build" "$1/mnt/cache" "$1/mnt/out"' \
  --customize-hook='echo "/dev/vda / ext4 rw 0 1" >"$1/etc/fstab"' \
  --customize-hook='printf "127.0.0.1 localhost\n::1 localhost\n" >"$1/etc/hosts"' \
  --customize-hook='echo headroom-v2 >"$1/etc/hostname"; : >"$1/etc/resolv.conf"' \
  trixie "$build/rootfs" "$mirror" >"$build/mmdebstrap.log" 2>&1 ||
  { tail -20 "$build/mmdebstrap.log" >&2; echo "vm image: mmdebstrap failed" >&2; exit 1; }
mkdir -p "$dir.tmp"
cp -L "$build/rootfs/vmlinuz" "$dir.tmp/vmlinuz"
cp -L "$build/rootfs/initrd.img" "$dir.tmp/initrd.img"
mkfs.ext4 -q -F -L headroom-vm -d "$build/rootfs" "$dir.tmp/rootfs.img" 2G >&2
rm -rf "$dir"
mv "$dir.tmp" "$dir"
echo "vm image: built in $((SECONDS - started)) s ($(du -sh --apparent-size "$dir" | cut -f1), $(du -sh "$dir" | cut -f1) on disk)" >&2
echo "$dir"
