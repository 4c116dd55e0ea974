#!/bin/sh
# PID 1 of the cgroup v2 test VM (installed as /sbin/headroom-init by e2e/vm/image.sh).
# Mounts what a node has (proc, sys, a pure cgroup v2 hierarchy with the controllers the
# kubelet enables, PSI), mounts the host's folders shared over 9p, runs the suite the host
# put in /mnt/out/entry.sh, writes its exit code to /mnt/out/rc and powers off.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t cgroup2 cgroup2 /sys/fs/cgroup
echo "+cpu +cpuset +memory +io +pids" >/sys/fs/cgroup/cgroup.subtree_control
mount -o remount,rw /
hostname headroom-v2
ip link set lo up
for module in 9p 9pnet_virtio overlay; do modprobe "$module" 2>/dev/null; done
for tag in repo build cache out; do
  mkdir -p "/mnt/$tag"
  mount -t 9p -o trans=virtio,version=9p2000.L,msize=1048576 "$tag" "/mnt/$tag" || echo "headroom-init: cannot mount $tag"
done
rc=1
if [ -x /mnt/out/entry.sh ]; then
  /mnt/out/entry.sh >/mnt/out/guest.log 2>&1
  rc=$?
else
  echo "headroom-init: no /mnt/out/entry.sh"
fi
echo "$rc" >/mnt/out/rc
sync
echo "headroom-init: suite exited $rc, powering off"
echo 1 >/proc/sys/kernel/sysrq
echo o >/proc/sysrq-trigger
sleep 30
