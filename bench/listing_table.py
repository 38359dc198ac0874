#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Print the table of bench/listing.sh from its results.tsv.

Usage: listing_table.py TSV "SIZES" BPFTOOL_VERSION NOTE KERNEL NCPU RUNS

TSV lines are KEY<TAB>MEDIAN<TAB>P25<TAB>P75 (times in s, memory in bytes,
counts as numbers); see listing.sh for the keys.
"""
import datetime
import sys


def load(path):
    r = {}
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        r[f[0]] = [x for x in f[1:]]
    return r


def t(v):
    """Seconds as a short human figure."""
    v = float(v)
    if v >= 1:
        return f"{v:.2f} s"
    if v >= 1e-3:
        return f"{v * 1e3:.2f} ms"
    return f"{v * 1e6:.1f} us"


def main():
    r = load(sys.argv[1])
    sizes, ver, note, kernel, ncpu, runs = sys.argv[2:8]
    out = []
    p = out.append
    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    p(f"bpflinkfs listing benchmark, {now}, kernel {kernel}, {ncpu} CPUs, "
      f"hyperfine {runs} runs (median, p25..p75)")
    p(f"bpftool: {ver}" + (f"  NOTE: {note}" if note else ""))

    def val(k, i=0):
        return float(r[k][i])

    def spread(k):
        if len(r[k]) < 3 or not r[k][1]:
            return ""
        return f"{t(r[k][1])}..{t(r[k][2])}"

    def row(label, k, ref=None, reflabel="", goal="", per=None):
        m = val(k)
        s = f"  {label:<34} {t(m):>10}  {spread(k):<20}"
        s += f" {t(m / per):>9}" if per else " " * 10
        if ref:
            s += f"  {m / val(ref):5.2f}x {reflabel}"
        if goal:
            s += f"  (goal {goal})"
        p(s.rstrip())

    for n in sizes.split():
        links, perf = int(val(f"{n}.links")), int(val(f"{n}.perf"))
        la, pa = int(val(f"{n}.after.links")), int(val(f"{n}.after.perf"))
        dirs = int(val(f"{n}.dirs"))
        p("")
        made = r[f"{n}.set_secs"][0]
        made = (f"made in {float(made):.1f} s" if made != "reused"
                else "reused from a --keep run")
        p(f"N = {n} uprobes + 8 tracepoints + 8 software events, pinned "
          f"outside bpflinkfs ({made})")
        p(f"  links on the host: {links} ({perf} perf) before, {la} ({pa} "
          f"perf) after; link dirs in the mount: {dirs}")
        p(f"  {'':<34} {'median':>10}  {'p25..p75':<20} {'per link':>9}"
          f"  ratio")
        row("C floor (in process)", f"{n}.floor", per=links)
        row("bpftool -j link show (7.5)", f"{n}.bpftool75", per=links)
        row("bpftool -j link show (7.1)", f"{n}.bpftool71", per=links)
        row("cat MNT/links.json", f"{n}.d.cat_json", f"{n}.bpftool75",
            "bpftool 7.5", "<= 1.0x, beyond 0.5x", per=links)
        row("cat MNT/links.json", f"{n}.d.cat_json", f"{n}.floor", "C floor")
        row("cat MNT/links", f"{n}.d.cat_links", f"{n}.bpftool75",
            "bpftool 7.5", per=links)
        row("ls MNT", f"{n}.d.ls", f"{n}.f.ls", "FUSE floor", "<= 2x",
            per=dirs)
        row("ls -l MNT", f"{n}.d.ls_l", f"{n}.f.ls_l", "FUSE floor",
            per=dirs)
        row("cat MNT/*/name", f"{n}.d.cat_names", f"{n}.f.cat_names",
            "FUSE floor", "<= 1.5x", per=dirs)
        row(f"grep -r . MNT/ID (one link)", f"{n}.d.grep_one",
            f"{n}.f.grep_one", "FUSE floor", "<= 1.5x")
        p("  FUSE floor (same tree, in memory):")
        row("cat FLOOR/links.json", f"{n}.f.cat_json", per=dirs)
        row("ls FLOOR", f"{n}.f.ls", per=dirs)
        row("ls -l FLOOR", f"{n}.f.ls_l", per=dirs)
        row("cat FLOOR/*/name", f"{n}.f.cat_names", per=dirs)
        row("grep -r . FLOOR/1", f"{n}.f.grep_one")
        p("  open+read+close of one */name file (server on CPU 0; median "
          "of 11 passes over all):")
        row("bpflinkfs, reader on CPU 0", f"{n}.d.file_same",
            f"{n}.f.file_same", "FUSE floor", "<= 1.5x")
        row("FUSE floor, reader on CPU 0", f"{n}.f.file_same")
        row("bpflinkfs, reader on CPU 1", f"{n}.d.file_cross",
            f"{n}.f.file_cross", "FUSE floor", "<= 1.5x")
        row("FUSE floor, reader on CPU 1", f"{n}.f.file_cross")
        kb = 1024
        start, js = val(f"{n}.rss_start"), val(f"{n}.rss_json")
        p("  daemon memory (VmRSS; peak = VmHWM since a reset via "
          "clear_refs just before the first cat):")
        p(f"   VmRSS {start / kb:.0f} KiB at start, "
          f"{js / kb:.0f} KiB after cat links.json (peak "
          f"{val(f'{n}.hwm_json') / kb:.0f} KiB), {val(f'{n}.rss_end') / kb:.0f}"
          f" KiB after all (peak {val(f'{n}.hwm_end') / kb:.0f} KiB)")
        p(f"  RSS per foreign link after links.json: "
          f"{(js - start) / links:.0f} B (goal: nothing held beyond a "
          f"request, cache <= 256 B + name); peak per link during the "
          f"request: {(val(f'{n}.hwm_json') - start) / links:.0f} B")
    if "owned.rss" in r:
        cnt = int(val("owned.count"))
        d = val("owned.rss") - val("owned.rss_start")
        p("")
        p(f"Owned links: {cnt} software:cpu-clock events through control "
          f"(made in {float(r['owned.create_secs'][0]):.2f} s)")
        p(f"  daemon VmRSS {val('owned.rss_start') / 1024:.0f} KiB empty, "
          f"{val('owned.rss') / 1024:.0f} KiB with them (peak "
          f"{val('owned.hwm') / 1024:.0f} KiB): {d / max(cnt, 1):.0f} B per "
          f"owned link (goal <= 1 KiB)")
    print("\n".join(out))


if __name__ == "__main__":
    main()
