#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
#
# /init of the VM lane's initramfs: set up the guest, load the modules listed
# in /opt/bl/modules, run /opt/bl/guest_tests.sh (or the script bl.guest=
# names) under a timeout (bl.timeout= on the kernel command line, seconds)
# and power off. The host reads the serial console: guest_tests.sh prints
# the BPFLINKFS-RESULT line, this script the BPFLINKFS-EXIT line after it.

/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin:/opt/bl

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t bpf bpf /sys/fs/bpf
# the kernel's log would interleave with the test output on the console
echo 1 >/proc/sys/kernel/printk

timeout=240
guest=guest_tests.sh
for arg in $(cat /proc/cmdline); do
	case $arg in
	bl.timeout=*) timeout=${arg#bl.timeout=} ;;
	bl.guest=*) guest=${arg#bl.guest=} ;;
	esac
done

for m in $(cat /opt/bl/modules); do
	modprobe "$m" || echo "BPFLINKFS-NOTE modprobe $m failed"
done

echo "BPFLINKFS-GUEST-START kernel=$(uname -r)"
cd /opt/bl
timeout "$timeout" /bin/bash "/opt/bl/$guest"
echo "BPFLINKFS-EXIT rc=$?"
sync
poweroff -f
