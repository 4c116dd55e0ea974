#!/usr/bin/env bash
# The cgroup v2 end-to-end suite: boots a Debian trixie VM (kernel 6.12, pure cgroup v2, PSI)
# under QEMU's software emulation and runs e2e/vm/guest-suite.sh inside it: headroom-nri from
# BUILD_DIR against a real containerd 1.7 and 2.x with NRI and runc. The host's folders reach
# the guest over 9p (the repository, BUILD_DIR and the cache read-only; a scratch folder for
# results). Nothing on the host is touched but that scratch folder; the image is booted with
# its writes thrown away (snapshot=on). The guest's cgroup files it recorded are copied to
# $HEADROOM_VM_RECORD when that is set (tests/testdata/cgroup-v2 came from there).
# Usage: e2e/vm/run.sh BUILD_DIR    (scripts/vm-deps.sh first). Exit 0 when every check passes.
# HEADROOM_VM_VARIANTS ("1.7 2") picks the containerds; HEADROOM_VM_PLUGIN_ARGS adds flags to every headroom-nri start in the guest (--dry-run shows
# the checks failing); HEADROOM_E2E_KEEP=1 keeps the logs; HEADROOM_VM_TIMEOUT (1500 s) bounds
# the whole VM.
set -euo pipefail
source "$(dirname "$0")/../local/suite-lib.sh"
suite_paths vm-suite "${1:?usage: e2e/vm/run.sh BUILD_DIR}"
failures=0
containerd2_version=${HEADROOM_CONTAINERD2_VERSION:-v2.4.2}
timeout_seconds=${HEADROOM_VM_TIMEOUT:-1500}
require_tools qemu-system-x86_64 "$nri_bin" "$cache/bin/crictl"
[[ -x $cache/containerd-$containerd2_version/bin/containerd ]] ||
  { echo "$suite: no containerd $containerd2_version in $cache (run scripts/vm-deps.sh)" >&2; exit 2; }
image=$(bash "$repo/e2e/vm/image.sh")
work=$(mktemp -d /tmp/headroom-vm-e2e.XXXXXX)
qemu_pid=""
cleanup() {
  set +e
  stop_pid "$qemu_pid"
  [[ -n ${HEADROOM_VM_RECORD:-} && -d $work/out/recorded ]] && mkdir -p "$HEADROOM_VM_RECORD" &&
    cp -r "$work/out/recorded/." "$HEADROOM_VM_RECORD/"
  finish_work
}
trap cleanup EXIT
mkdir -p "$work/out/lib"

# headroom-nri is built against this host's libraries (gRPC, Protobuf, Abseil of Debian
# bookworm), which trixie's are not: they travel with it, for it alone (curl in the guest needs
# the guest's own). glibc is the guest's own (newer).
ldd "$nri_bin" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' |
  grep -Ev '/(libc|libm|libpthread|libdl|librt|libresolv)\.so|/ld-linux' |
  xargs -r cp -L -t "$work/out/lib"
cat >"$work/out/entry.sh" <<EOF
#!/bin/sh
export HEADROOM_VM_CONTAINERD2=containerd-$containerd2_version/bin
export HEADROOM_VM_LIBS=/mnt/out/lib
export HEADROOM_VM_PLUGIN_ARGS="${HEADROOM_VM_PLUGIN_ARGS:-}"
export HEADROOM_VM_VARIANTS="${HEADROOM_VM_VARIANTS:-1.7 2}"
exec bash /mnt/repo/e2e/vm/guest-suite.sh
EOF
chmod +x "$work/out/entry.sh"

share() { echo "-virtfs local,path=$1,mount_tag=$2,security_model=none,id=$2${3:+,readonly=on}"; }
started=$SECONDS
echo "$suite: booting $image (QEMU $(qemu-system-x86_64 --version | awk 'NR == 1 {print $4}'), software emulation, 2 CPUs, 2 GiB)"
# shellcheck disable=SC2046
timeout "$timeout_seconds" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -smp 2 -m 2048 \
  -display none -monitor none -serial "file:$work/console.log" -no-reboot -nic none \
  -kernel "$image/vmlinuz" -initrd "$image/initrd.img" \
  -append "console=ttyS0 root=/dev/vda rw init=/sbin/headroom-init panic=-1 quiet" \
  -drive "file=$image/rootfs.img,format=raw,if=virtio,snapshot=on" \
  $(share "$repo" repo ro) $(share "$build_dir" build ro) $(share "$cache" cache ro) $(share "$work/out" out) &
qemu_pid=$!
# The guest's log as it grows, then QEMU's exit (the guest powers off after the suite).
tail -n +1 -F "$work/out/guest.log" 2>/dev/null --pid "$qemu_pid" | sed -u "s/^/  guest: /" &
qemu_rc=0
wait "$qemu_pid" || qemu_rc=$?
qemu_pid=""
sleep 1
guest_rc=$(cat "$work/out/rc" 2>/dev/null || echo none)
if [[ $guest_rc == 0 ]]; then
  pass "cgroup v2 VM suite: every check passed in the guest; VM up $((SECONDS - started)) s"
else
  failures=1
  echo "$suite: guest exit '$guest_rc', QEMU exit $qemu_rc after $((SECONDS - started)) s$( ((qemu_rc == 124)) && echo " (timed out after $timeout_seconds s)"); the console's end:"
  tail -30 "$work/console.log" | sed 's/^/  console: /'
fi
echo "$suite: $failures failure(s)"
exit $((failures > 0))
