#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""usdt_notes.py FILE: every USDT location of FILE, one a line:
PROVIDER NAME OFFSET REF_CTR_OFFSET SEMAPHORE_ADDRESS, from readelf (the
tests' independent reference): readelf -n's locations and semaphores as
file offsets through readelf -lW's PT_LOAD segments, with -SW's
.stapsdt.base adjustment for prelinked files; hex, 0x0 for no semaphore."""
import re
import subprocess
import sys


def readelf(*args):
    return subprocess.run(["readelf", *args, sys.argv[1]], check=True,
                          capture_output=True, text=True).stdout


notes, sects, phdrs = readelf("-nW"), readelf("-SW"), readelf("-lW")
m = re.search(r'\]\s+\.stapsdt\.base\s+\S+\s+([0-9a-f]+)', sects)
base = int(m.group(1), 16) if m else 0
loads = [tuple(int(x, 16) for x in m.groups()) for m in re.finditer(
    r'LOAD\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+\S+\s+(0x[0-9a-f]+)', phdrs)]


def off(v):
    for o, va, sz in loads:
        if va <= v < va + sz:
            return v - va + o
    sys.exit("address %#x in no PT_LOAD" % v)


for m in re.finditer(r'Provider: (\S+)\s+Name: (\S+)\s+Location: '
                     r'(0x[0-9a-f]+), Base: (0x[0-9a-f]+), Semaphore: '
                     r'(0x[0-9a-f]+)', notes):
    prov, name, loc, nbase, sema = m.groups()
    pc = int(loc, 16) + (base - int(nbase, 16) if base else 0)
    s = int(sema, 16)
    print(prov, name, hex(off(pc)), hex(off(s)) if s else "0x0", hex(s))
