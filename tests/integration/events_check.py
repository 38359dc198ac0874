# SPDX-License-Identifier: GPL-2.0-only
"""Helpers of test_events.sh that read an events stream with exact control.

check LINES FIXTURE_OUT N NCPU [retval]
    the lines of one reader against what the fixture printed: exactly N
    lines, PID TID COMM as the fixture said, CPU < NCPU, TIME within the
    fixture's own CLOCK_BOOTTIME readings and non-decreasing per CPU;
    with `retval`, RETVAL of line i is i * 3 + 7 (what the function returns).
slow PATH OUT
    a slow reader: creates STOP.opened once open, then 4 KiB reads with
    20 ms sleeps until STOP exists,
    then drain with O_NONBLOCK until 1 s without data; writes
    "LINES LOST" to OUT.
small PATH FIXTURE
    reads of 50 and 5 bytes: whole lines when one fits, else parts.
poll PATH FIXTURE
    poll() is quiet before a hit, a non-blocking read is EAGAIN, and poll
    is readable after the fixture makes one hit.
"""
import errno, os, select, subprocess, sys, time


def check(lines_file, fixture_out, n, ncpu, want_retval):
    bad = []
    first = open(fixture_out).read().split("\n")
    pid, tid, t0 = first[0].split()
    t1 = [l for l in first if l.startswith("done ")][0].split()[1]
    t0, t1 = float(t0), float(t1)
    lines = open(lines_file).read().splitlines()
    if len(lines) != n:
        bad.append("%d lines, not %d" % (len(lines), n))
    last = {}
    for i, line in enumerate(lines):
        f = line.split("\t")
        want = 6 if want_retval else 5
        if len(f) != want:
            bad.append("line %d: %d columns: %r" % (i, len(f), line))
            continue
        ts, cpu = f[0], int(f[1])
        if not (len(ts.split(".")[1]) == 9):
            bad.append("line %d: TIME %s has not 9 decimals" % (i, ts))
        ts = float(ts)
        if f[2] != pid or f[3] != tid or f[4] != "evtest":
            bad.append("line %d: pid/tid/comm %s" % (i, f[2:5]))
        if cpu >= ncpu:
            bad.append("line %d: cpu %d >= %d" % (i, cpu, ncpu))
        # float rounding of the fixture's own print: 1 us of slack
        if not (t0 - 1e-6 <= ts <= t1 + 1e-6):
            bad.append("line %d: TIME %f not in [%f, %f]" % (i, ts, t0, t1))
        if ts < last.get(cpu, 0):
            bad.append("line %d: TIME goes back on cpu %d" % (i, cpu))
        last[cpu] = ts
        if want_retval and int(f[5], 16) != i * 3 + 7:
            bad.append("line %d: RETVAL %s, not %#x" % (i, f[5], i * 3 + 7))
    for b in bad[:10]:
        print(b)
    return 1 if bad else 0


def slow(path, out, stop):
    fd = os.open(path, os.O_RDONLY)
    open(stop + ".opened", "w").close()
    buf = b""
    # slow: until the hits are done
    while not os.path.exists(stop):
        buf += os.read(fd, 4096)
        time.sleep(0.02)
    os.set_blocking(fd, False)
    quiet = time.time()
    while time.time() - quiet < 1.5:
        try:
            b = os.read(fd, 65536)
        except BlockingIOError:
            time.sleep(0.02)
            continue
        buf += b
        quiet = time.time()
    os.close(fd)
    lines = lost = 0
    for l in buf.decode().splitlines():
        if l.startswith("# lost "):
            lost += int(l.split()[2])
        else:
            lines += 1
    open(out, "w").write("%d %d\n" % (lines, lost))
    return 0


def poll(path, fixture):
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    p = select.poll()
    p.register(fd, select.POLLIN)
    rc = 0
    if p.poll(300):
        print("poll: readable before any hit")
        rc = 1
    try:
        os.read(fd, 4096)
        print("read: data before any hit")
        rc = 1
    except OSError as e:
        if e.errno != errno.EAGAIN:
            print("read: %s, not EAGAIN" % errno.errorcode[e.errno])
            rc = 1
    subprocess.run([fixture, "evtest", "1"], check=True,
                   stdout=subprocess.DEVNULL)
    ev = p.poll(5000)
    if not ev or not ev[0][1] & select.POLLIN:
        print("poll: not readable after a hit: %r" % ev)
        rc = 1
    elif len(os.read(fd, 4096).decode().splitlines()) != 1:
        print("read after poll: not one line")
        rc = 1
    os.close(fd)
    return rc


def small(path, fixture):
    """Reads smaller than the queue: whole lines when one fits, else a
    part of one; nothing is lost or doubled."""
    fd = os.open(path, os.O_RDONLY)
    subprocess.run([fixture, "evtest", "3"], check=True,
                   stdout=subprocess.DEVNULL)
    time.sleep(0.5)
    rc = 0
    first = os.read(fd, 50)  # one line is ~40 bytes, two do not fit
    if not first.endswith(b"\n") or first.count(b"\n") != 1:
        print("read(50): %r is not one whole line" % first)
        rc = 1
    rest = b""
    while rest.count(b"\n") < 2:
        rest += os.read(fd, 5)  # parts of lines
    os.close(fd)
    lines = (first + rest).decode().splitlines()
    if len(lines) != 3 or any(len(l.split("\t")) != 5 for l in lines):
        print("small reads gave %r" % lines)
        rc = 1
    return rc


if __name__ == "__main__":
    a = sys.argv[1:]
    if a[0] == "check":
        sys.exit(check(a[1], a[2], int(a[3]), int(a[4]),
                       len(a) > 5 and a[5] == "retval"))
    if a[0] == "slow":
        sys.exit(slow(a[1], a[2], a[3]))
    if a[0] == "small":
        sys.exit(small(a[1], a[2]))
    if a[0] == "poll":
        sys.exit(poll(a[1], a[2]))
    sys.exit("unknown command")
