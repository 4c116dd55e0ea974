# Sourced by the local suites that run a real containerd: its configuration in the scratch
# directory $work, and the test images. Expects: work, cache.
# write_containerd_config [EXTRA_TOML]: $work/containerd.toml — root and state under $work,
#   sockets $work/containerd.sock(.ttrpc), CRI with the local pause image, oom_score_adj kept
#   in range (runc on this kind of VM needs it), no CNI (pods use the host network), and
#   EXTRA_TOML appended (e.g. the NRI plugin section).
# import_test_images: pause and busybox (e2e/local/build-images.sh) into the k8s.io namespace.
write_containerd_config() {
  cat >"$work/containerd.toml" <<TOML
version = 2
root = "$work/root"
state = "$work/state"
[grpc]
  address = "$work/containerd.sock"
[ttrpc]
  address = "$work/containerd.sock.ttrpc"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "docker.io/library/pause:local"
  restrict_oom_score_adj = true
  enable_cdi = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$work/cni-bin"
    conf_dir = "$work/cni-conf"
${1:-}
TOML
}

import_test_images() {
  ctr --address "$work/containerd.sock" -n k8s.io images import "$cache/images/pause.tar" >/dev/null &&
    ctr --address "$work/containerd.sock" -n k8s.io images import "$cache/images/busybox.tar" >/dev/null
}

# remove_cgroup_dirs PATH: the cgroup directory PATH and everything below it, in every
# hierarchy (runc creates a container's cgroup in the named systemd and unified ones too).
remove_cgroup_dirs() {
  local controller
  for controller in /sys/fs/cgroup/*/; do
    [[ -d $controller$1 ]] && find "$controller$1" -depth -type d -exec rmdir {} + 2>/dev/null
  done
  return 0
}

# deploy/containerd/nri-1.7.toml (the NRI section users add to containerd 1.7) with its socket
# and plugin directories under $work: $work/nri.sock, $work/nri-plugins, $work/nri-conf.
nri_containerd_section() {
  mkdir -p "$work/nri-plugins" "$work/nri-conf"
  sed -e "s|/var/run/nri/nri.sock|$work/nri.sock|" -e "s|/etc/nri/conf.d|$work/nri-conf|" \
    -e "s|/opt/nri/plugins|$work/nri-plugins|" -e '/^#/d' "$(dirname "${BASH_SOURCE[0]}")/../../deploy/containerd/nri-1.7.toml"
}
