// SPDX-License-Identifier: GPL-2.0-only
/*
 * Table-driven test of parse_line() (bpf/make/parse.c) against the control
 * language of bpflinkfs(8), CONTROL LANGUAGE. Expected columns are counted by
 * hand from the input; event configs come from <linux/perf_event.h>, default
 * periods from bpflinkfs(8), CONTROL LANGUAGE. One TAP point per row
 * (tests/check.h).
 */
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "parse.h"

/* A string literal and its length, so rows may hold NUL bytes. */
#define L(s) s, sizeof(s) - 1

#define SW PERF_TYPE_SOFTWARE
#define HW PERF_TYPE_HARDWARE

struct row {
	const char *line;
	size_t len;
	int ret;
	size_t col;	  /* errors */
	const char *msg;  /* errors: a substring the message must hold */
	enum cmd_kind ck; /* accepted lines from here on */
	uint32_t link_id;
	enum probe_kind pk;
	const char *path;   /* NULL: expect "" */
	const char *symbol; /* NULL: expect "" */
	uint64_t offset;
	bool by_offset;
	unsigned int opts;
	uint64_t cookie;
	int pid;	 /* checked only with OPT_PID, else -1 expected */
	int cpu;	 /* checked only with OPT_CPU, else -1 expected */
	uint32_t ptype;	 /* events */
	uint64_t config; /* events */
	uint64_t period;
	uint64_t freq;
	const char *prog;
	const char *provider; /* usdt; NULL: expect "" */
	unsigned int stacks;
	enum hits_by by;
};

/* clang-format off: one row per line reads better */
#define NONE(s)                                                                \
	{                                                                      \
		L(s), 0, .ck = CMD_NONE                                        \
	}
#define BAD(s, c, m)                                                           \
	{                                                                      \
		L(s), -EINVAL, c, m, .ck = CMD_NONE                            \
	}
#define NOENT(s, c, m)                                                         \
	{                                                                      \
		L(s), -ENOENT, c, m, .ck = CMD_NONE                            \
	}
#define PROBE .ck = CMD_PROBE

static const struct row rows[] = {
	/* no-ops */
	NONE(""),
	NONE("   \t "),
	NONE("# comment"),
	NONE("   #k:foo bar=1"),
	NONE("\r"),
	NONE(" \t\r"),
	/* removal */
	{L("-5"), 0, .ck = CMD_REMOVE, .link_id = 5},
	{L("  -4294967295  \r"), 0, .ck = CMD_REMOVE, .link_id = 4294967295u},
	{L("-007"), 0, .ck = CMD_REMOVE, .link_id = 7},
	{L("-*"), 0, .ck = CMD_REMOVE_ALL},
	{L("\t-* \t"), 0, .ck = CMD_REMOVE_ALL},
	BAD("-", 1, "link id"),
	BAD("- 5", 1, "link id"),
	BAD("-0", 1, "> 0"),
	BAD("-4294967296", 1, "'4294967296' out of range"),
	BAD("-0x10", 2, "'0x10'"),
	BAD("-5x", 2, "'5x'"),
	BAD("-+5", 1, "'+5'"),
	BAD("-5 6", 3, "'6'"),
	BAD("-*x", 2, "'x'"),
	BAD("-* foo", 3, "'foo'"),
	/* kind word */
	BAD("bogus:x", 0, "unknown probe type 'bogus'"),
	BAD("  Kprobe:foo", 2, "'Kprobe'"),
	BAD("kprobe", 6, "expected ':'"),
	BAD("kprobe foo", 6, "expected ':'"),
	BAD(":foo", 0, "unknown probe type"),
	BAD("hello world", 0, "'hello'"),
	/* kprobes */
	{L("kprobe:do_sys_open"), 0, PROBE, .pk = PROBE_KPROBE,
	 .symbol = "do_sys_open"},
	{L("k:vfs_read+0x10"), 0, PROBE, .pk = PROBE_KPROBE,
	 .symbol = "vfs_read", .offset = 16},
	{L("kprobe:ext4:ext4_sync_file+8"), 0, PROBE, .pk = PROBE_KPROBE,
	 .path = "ext4", .symbol = "ext4_sync_file", .offset = 8},
	{L("k:nf-conntrack:foo.isra.0"), 0, PROBE, .pk = PROBE_KPROBE,
	 .path = "nf-conntrack", .symbol = "foo.isra.0"},
	{L("k:foo+4294967295"), 0, PROBE, .pk = PROBE_KPROBE, .symbol = "foo",
	 .offset = 4294967295u},
	{L("kretprobe:do_exit"), 0, PROBE, .pk = PROBE_KRETPROBE,
	 .symbol = "do_exit"},
	{L("kr:mod_x:func$1"), 0, PROBE, .pk = PROBE_KRETPROBE, .path = "mod_x",
	 .symbol = "func$1"},
	/* 10 bytes given of a longer buffer: parse_line must stop at len */
	{"k:foo+0x10zz", 10, 0, PROBE, .pk = PROBE_KPROBE, .symbol = "foo",
	 .offset = 16},
	BAD("kprobe:", 7, "expected a function name"),
	BAD("kprobe:foo+", 11, "offset"),
	BAD("kprobe:foo+0x", 13, "hex digits"),
	BAD("kprobe:foo+0xg", 13, "'0xg'"),
	BAD("kprobe:foo+4294967296", 11, "out of range"),
	BAD("kprobe:foo-bar", 10, "'foo-bar'"),
	BAD("kprobe:foo bar", 11, "'bar'"),
	BAD("kretprobe:foo+8", 13, "no offset"),
	BAD("kretprobe:foo+0", 13, "no offset"),
	BAD("kprobe:a:b:c", 10, "'b:c'"),
	BAD("kprobe::foo", 7, "expected a module name"),
	BAD("kprobe:mod.x:foo", 10, "'mod.x:foo'"),
	BAD("kprobe:foo pid=1", 11, "'pid'"),
	BAD("kprobe:foo cpu=0", 11, "'cpu'"),
	/* wildcards (bpflinkfs(8), CONTROL LANGUAGE): one multi link; no
	   +OFFSET */
	{L("k:vfs_*"), 0, PROBE, .pk = PROBE_KPROBE, .symbol = "vfs_*"},
	{L("kr:vfs_[rw]?ad"), 0, PROBE, .pk = PROBE_KRETPROBE,
	 .symbol = "vfs_[rw]?ad"},
	BAD("k:vfs_[ab", 6, "unclosed '['"),
	BAD("k:vfs_*+4", 7, "no +OFFSET"),
	BAD("k:vfs_]", 6, "'vfs_]'"),
	/* uprobes */
	{L("uprobe:/bin/bash:readline"), 0, PROBE, .pk = PROBE_UPROBE,
	 .path = "/bin/bash", .symbol = "readline"},
	{L("u:/usr/lib/x86_64-linux-gnu/libc.so.6:malloc@@GLIBC_2.2.5"), 0,
	 PROBE, .pk = PROBE_UPROBE,
	 .path = "/usr/lib/x86_64-linux-gnu/libc.so.6",
	 .symbol = "malloc@@GLIBC_2.2.5"},
	{L("uprobe:/bin/bash:0x1234"), 0, PROBE, .pk = PROBE_UPROBE,
	 .path = "/bin/bash", .by_offset = true, .offset = 0x1234},
	{L("uprobe:/bin/bash:4660"), 0, PROBE, .pk = PROBE_UPROBE,
	 .path = "/bin/bash", .by_offset = true, .offset = 0x1234},
	{L("uprobe:/a:0X1f"), 0, PROBE, .pk = PROBE_UPROBE, .path = "/a",
	 .by_offset = true, .offset = 31},
	{L("uprobe:/bin/bash:readline+0x8"), 0, PROBE, .pk = PROBE_UPROBE,
	 .path = "/bin/bash", .symbol = "readline", .offset = 8},
	{L("uprobe:/bin/bash:readline+18446744073709551615"), 0, PROBE,
	 .pk = PROBE_UPROBE, .path = "/bin/bash", .symbol = "readline",
	 .offset = UINT64_MAX},
	{L("uretprobe:/bin/bash:readline"), 0, PROBE, .pk = PROBE_URETPROBE,
	 .path = "/bin/bash", .symbol = "readline"},
	{L("ur:/bin/bash:readline+0"), 0, PROBE, .pk = PROBE_URETPROBE,
	 .path = "/bin/bash", .symbol = "readline"},
	{L("ur:/bin/bash:0x10"), 0, PROBE, .pk = PROBE_URETPROBE,
	 .path = "/bin/bash", .by_offset = true, .offset = 16},
	{L("uprobe:\"/tmp/a b:c\":main"), 0, PROBE, .pk = PROBE_UPROBE,
	 .path = "/tmp/a b:c", .symbol = "main"},
	{L("uprobe:\"/tmp/q\\\"x\\\\y\":f"), 0, PROBE, .pk = PROBE_UPROBE,
	 .path = "/tmp/q\"x\\y", .symbol = "f"},
	{L("uprobe:libc:puts pid=1234"), 0, PROBE, .pk = PROBE_UPROBE,
	 .path = "libc", .symbol = "puts", .opts = OPT_PID, .pid = 1234},
	{L("uprobe:./rel/bin:main.(*T).M"), 0, PROBE, .pk = PROBE_UPROBE,
	 .path = "./rel/bin", .symbol = "main.(*T).M"},
	{L("uprobe:/bin/bash:readline prog=/sys/fs/bpf/p cookie=0xffffffffffffffff"),
	 0, PROBE, .pk = PROBE_UPROBE, .path = "/bin/bash",
	 .symbol = "readline", .opts = OPT_PROG | OPT_COOKIE,
	 .cookie = UINT64_MAX, .prog = "/sys/fs/bpf/p"},
	BAD("uprobe:/bin/bash:readline cookie=1", 26, "prog="),
	BAD("uprobe:/bin/bash", 16, "expected ':'"),
	{L("u:/bin/sh:fn_*"), 0, PROBE, .pk = PROBE_UPROBE, .path = "/bin/sh",
	 .symbol = "fn_*"},
	BAD("u:/bin/sh:fn_[", 13, "unclosed '['"),
	/* a uprobe SYMBOL may be a name holding `*` (Go): +OFFSET is refused
	 * later, if the file has no symbol of that name */
	{L("u:/bin/sh:fn_*+1"), 0, PROBE, .pk = PROBE_UPROBE, .path = "/bin/sh",
	 .symbol = "fn_*", .offset = 1},
	/* a quoted SYMBOL: any byte but a newline, never a pattern */
	{L("u:/bin/sh:\"a:b c*\"+0x4"), 0, PROBE, .pk = PROBE_UPROBE,
	 .path = "/bin/sh", .symbol = "a:b c*", .offset = 4},
	{L("u:/bin/sh:\"pkg.(*T).M\""), 0, PROBE, .pk = PROBE_UPROBE,
	 .path = "/bin/sh", .symbol = "pkg.(*T).M"},
	BAD("u:/bin/sh:\"f\"x", 13, "expected +OFFSET"),
	BAD("u:/bin/sh:\"f", 10, "unterminated"),
	/* nothing after the last colon: the end, not a byte past it */
	BAD("u:/bin/sh:", 10, "symbol"),
	BAD("uprobe:/bin/bash:", 17, "expected a symbol"),
	BAD("uprobe:/bin/bash readline", 16, "expected ':'"),
	BAD("uprobe::main", 7, "expected a path"),
	BAD("uprobe:\"/tmp/a b\"main", 17, "expected ':'"),
	BAD("uprobe:\"/tmp/a b:main", 7, "unterminated"),
	BAD("uprobe:\"\":main", 7, "empty path"),
	BAD("uprobe:\"/tmp/a\\n\":main", 14, "escape"),
	BAD("uprobe:/tmp/a\"b:main", 13, "'/tmp/a\"b:main'"),
	BAD("uprobe:/bin/bash:0x12zz", 21, "'0x12zz'"),
	BAD("uprobe:/bin/bash:12abc", 19, "'12abc'"),
	BAD("uprobe:/bin/bash:readline:5", 25, "'readline:5'"),
	BAD("uprobe:/bin/bash:readline+", 26, "offset"),
	BAD("uprobe:/bin/bash:readline+18446744073709551616", 26,
	    "out of range"),
	BAD("uretprobe:/bin/bash:readline+4", 28, "'readline+4'"),
	BAD("uprobe:/bin/bash:f period=10", 19, "'period'"),
	BAD("uprobe:/bin/bash:f cpu=1", 19, "'cpu'"),
	BAD("uprobe:/bin/bash:f pid=0", 23, "> 0"),
	BAD("uprobe:/bin/bash:f pid=-1", 23, "'-1'"),
	BAD("uprobe:/bin/bash:f pid=2147483648", 23, "out of range"),
	BAD("uprobe:/bin/bash:f pid=1 pid=2", 25, "twice"),
	BAD("uprobe:/bin/bash:f pid=", 23, "expected a number"),
	BAD("uprobe:/bin/bash:f =5", 19, "unknown option"),
	BAD("uprobe:/bin/bash:f foo=1", 19, "unknown option 'foo'"),
	BAD("uprobe:/bin/bash:f pid", 19, "KEY=VALUE"),
	BAD("uprobe:/bin/bash:f prog=relative/p", 24, "absolute"),
	BAD("uprobe:/bin/bash:f prog=", 24, "expected a program path"),
	BAD("uprobe:/bin/bash:f prog=\"/a\"x", 28, "'x'"),
	/* latency, stacks=, by= */
	{L("u:/bin/sh:main latency"), 0, PROBE, .pk = PROBE_UPROBE,
	 .path = "/bin/sh", .symbol = "main", .opts = OPT_LATENCY},
	{L("u:/bin/sh:fn_* latency stacks=both by=cgroup pid=7"), 0, PROBE,
	 .pk = PROBE_UPROBE, .path = "/bin/sh", .symbol = "fn_*",
	 .opts = OPT_LATENCY | OPT_STACKS | OPT_BY | OPT_PID, .pid = 7,
	 .stacks = STACKS_USER | STACKS_KERNEL, .by = BY_CGROUP},
	{L("t:syscalls:sys_enter_getpid stacks=kernel by=comm"), 0, PROBE,
	 .pk = PROBE_TRACEPOINT, .path = "syscalls",
	 .symbol = "sys_enter_getpid", .opts = OPT_STACKS | OPT_BY,
	 .stacks = STACKS_KERNEL, .by = BY_COMM},
	{L("k:vfs_read latency stacks=user by=pid"), 0, PROBE,
	 .pk = PROBE_KPROBE, .symbol = "vfs_read",
	 .opts = OPT_LATENCY | OPT_STACKS | OPT_BY, .stacks = STACKS_USER,
	 .by = BY_PID},
	{L("f:vfs_read latency"), 0, PROBE, .pk = PROBE_FENTRY,
	 .symbol = "vfs_read", .opts = OPT_LATENCY},
	/* a return probe anywhere but a function's entry corrupts the
	 * traced program: a USDT location, SYMBOL+OFFSET */
	BAD("U:/x:p:n latency", 9, "applies to"),
	BAD("u:/bin/sh:main+4 latency", 17, "function's entry"),
	{L("u:/bin/sh:0x1159 latency"), 0, PROBE, .pk = PROBE_UPROBE,
	 .path = "/bin/sh", .by_offset = true, .offset = 0x1159,
	 .opts = OPT_LATENCY},
	BAD("t:sched:sched_switch latency", 21, "applies to"),
	BAD("s:cpu-clock latency", 12, "applies to"),
	BAD("rt:sched_switch latency", 16, "applies to"),
	BAD("ur:/bin/sh:main latency", 16, "applies to"),
	BAD("kr:vfs_read latency", 12, "applies to"),
	BAD("fr:vfs_read latency", 12, "applies to"),
	BAD("u:/bin/sh:main latency=1", 22, "no value"),
	BAD("u:/bin/sh:main latency latency", 23, "twice"),
	BAD("u:/bin/sh:main by=tid", 18, "'tid'"),
	BAD("u:/bin/sh:main by=", 18, "pid|comm|cgroup"),
	BAD("u:/bin/sh:main by", 15, "KEY=VALUE"),
	BAD("u:/bin/sh:main stacks=all", 22, "user|kernel|both"),
	BAD("u:/bin/sh:main by=pid by=comm", 22, "twice"),
	BAD("u:/bin/sh:main prog=/sys/fs/bpf/p latency", 34, "built-in"),
	BAD("u:/bin/sh:main by=pid prog=/sys/fs/bpf/p", 15, "built-in"),
	BAD("t:a:b prog=/sys/fs/bpf/p stacks=user by=pid", 25, "built-in"),
	BAD("u:/bin/sh:main latenc", 15, "KEY=VALUE"),
	/* tracepoints */
	{L("tracepoint:sched:sched_switch"), 0, PROBE, .pk = PROBE_TRACEPOINT,
	 .path = "sched", .symbol = "sched_switch"},
	{L("t:xhci-hcd:xhci_dbg_init"), 0, PROBE, .pk = PROBE_TRACEPOINT,
	 .path = "xhci-hcd", .symbol = "xhci_dbg_init"},
	{L("t:sched:sched_switch prog=\"/sys/fs/bpf/my prog\" cookie=7"), 0,
	 PROBE, .pk = PROBE_TRACEPOINT, .path = "sched",
	 .symbol = "sched_switch", .opts = OPT_PROG | OPT_COOKIE, .cookie = 7,
	 .prog = "/sys/fs/bpf/my prog"},
	{L("  t:a:b  \t prog=/sys/fs/bpf/x  \r"), 0, PROBE,
	 .pk = PROBE_TRACEPOINT, .path = "a", .symbol = "b", .opts = OPT_PROG,
	 .prog = "/sys/fs/bpf/x"},
	BAD("tracepoint:sched", 16, "expected ':'"),
	BAD("tracepoint:sched:", 17, "expected a tracepoint name"),
	BAD("tracepoint::x", 11, "expected a tracepoint category"),
	BAD("tracepoint:sched:sched*", 22, "'sched*'"),
	BAD("tracepoint:sched:a:b", 18, "'a:b'"),
	BAD("t:sched:sched_switch freq=1", 21, "'freq'"),
	BAD("t:sched:sched_switch pid=1", 21, "'pid'"),
	/* software and hardware events */
	{L("software:cpu-clock"), 0, PROBE, .pk = PROBE_SOFTWARE,
	 .symbol = "cpu-clock", .ptype = SW, .config = PERF_COUNT_SW_CPU_CLOCK,
	 .period = 1000000},
	{L("s:page-faults"), 0, PROBE, .pk = PROBE_SOFTWARE,
	 .symbol = "page-faults", .ptype = SW,
	 .config = PERF_COUNT_SW_PAGE_FAULTS, .period = 100},
	{L("s:cs"), 0, PROBE, .pk = PROBE_SOFTWARE, .symbol = "cs", .ptype = SW,
	 .config = PERF_COUNT_SW_CONTEXT_SWITCHES, .period = 1000},
	{L("s:cpu-clock:10000"), 0, PROBE, .pk = PROBE_SOFTWARE,
	 .symbol = "cpu-clock", .ptype = SW, .config = 0, .opts = OPT_PERIOD,
	 .period = 10000},
	{L("s:cpu-clock:0xFFFFFFFFFFFFFFFF"), 0, PROBE, .pk = PROBE_SOFTWARE,
	 .symbol = "cpu-clock", .ptype = SW, .opts = OPT_PERIOD,
	 .period = UINT64_MAX},
	{L("software:task-clock cpu=0"), 0, PROBE, .pk = PROBE_SOFTWARE,
	 .symbol = "task-clock", .ptype = SW,
	 .config = PERF_COUNT_SW_TASK_CLOCK, .period = 1000000, .opts = OPT_CPU,
	 .cpu = 0},
	{L("s:cpu-clock freq=99"), 0, PROBE, .pk = PROBE_SOFTWARE,
	 .symbol = "cpu-clock", .ptype = SW, .opts = OPT_FREQ, .period = 0,
	 .freq = 99},
	{L("s:cpu-clock period=0x100 pid=1 cpu=1"), 0, PROBE,
	 .pk = PROBE_SOFTWARE, .symbol = "cpu-clock", .ptype = SW,
	 .opts = OPT_PERIOD | OPT_PID | OPT_CPU, .period = 256, .pid = 1,
	 .cpu = 1},
	{L("s:cpu-clock pid=2147483647"), 0, PROBE, .pk = PROBE_SOFTWARE,
	 .symbol = "cpu-clock", .ptype = SW, .opts = OPT_PID, .pid = 2147483647,
	 .period = 1000000},
	{L("hardware:cycles"), 0, PROBE, .pk = PROBE_HARDWARE,
	 .symbol = "cycles", .ptype = HW, .config = PERF_COUNT_HW_CPU_CYCLES,
	 .period = 1000000},
	{L("h:instructions:5000"), 0, PROBE, .pk = PROBE_HARDWARE,
	 .symbol = "instructions", .ptype = HW,
	 .config = PERF_COUNT_HW_INSTRUCTIONS, .opts = OPT_PERIOD,
	 .period = 5000},
	NOENT("software:cpu-clok", 9, "'cpu-clok'"),
	NOENT("hardware:cpu-clock", 9, "unknown hardware event"),
	NOENT("s:task-clock-x pid=1", 2, "'task-clock-x'"),
	BAD("software:", 9, "expected a software event"),
	BAD("s:cpu@clock", 5, "'cpu@clock'"),
	BAD("s:cpu-clock:", 12, "expected a number"),
	BAD("s:cpu-clock:0", 12, "> 0"),
	BAD("s:cpu-clock:10x", 14, "'10x'"),
	BAD("s:cpu-clock:100 period=5", 16, "twice"),
	BAD("s:cpu-clock:100 freq=5", 16, "freq"),
	BAD("s:cpu-clock period=5 freq=9", 21, "exclude"),
	BAD("s:cpu-clock freq=9 period=5", 19, "exclude"),
	BAD("s:cpu-clock period=0", 19, "> 0"),
	BAD("s:cpu-clock freq=0", 17, "> 0"),
	BAD("s:cpu-clock cpu=2147483648", 16, "out of range"),
	BAD("s:cpu-clock cpu=1 cpu=1", 18, "'cpu' given twice"),
	BAD("s:cpu-clock cookie=5", 12, "built-in program"),
	BAD("s:cpu-clock cookie=18446744073709551616 prog=/x", 19,
	    "out of range"),
	BAD("s:cpu-clock pid=1x", 17, "'1x'"),
	BAD("s:cpu-clock pid=+1", 16, "'+1'"),
	BAD("kprobe:foo cookie=1 prog=/sys/fs/bpf/p cookie=2", 39, "twice"),
	/* fentry, fexit, rawtracepoint, usdt */
	{L("fentry:vfs_read"), 0, PROBE, .pk = PROBE_FENTRY,
	 .symbol = "vfs_read"},
	{L("f:vfs_read"), 0, PROBE, .pk = PROBE_FENTRY, .symbol = "vfs_read"},
	{L("kfunc:ext4:ext4_file_open"), 0, PROBE, .pk = PROBE_FENTRY,
	 .path = "ext4", .symbol = "ext4_file_open"},
	{L("fexit:do_sys_openat2"), 0, PROBE, .pk = PROBE_FEXIT,
	 .symbol = "do_sys_openat2"},
	{L("fr:x"), 0, PROBE, .pk = PROBE_FEXIT, .symbol = "x"},
	{L("kretfunc:nf_tables:nft_do_chain"), 0, PROBE, .pk = PROBE_FEXIT,
	 .path = "nf_tables", .symbol = "nft_do_chain"},
	{L("rawtracepoint:sched_switch"), 0, PROBE, .pk = PROBE_RAWTP,
	 .symbol = "sched_switch"},
	{L("rt:sched_process_exec"), 0, PROBE, .pk = PROBE_RAWTP,
	 .symbol = "sched_process_exec"},
	{L("raw_tracepoint:xhci-hcd:xhci_urb_giveback"), 0, PROBE,
	 .pk = PROBE_RAWTP, .path = "xhci-hcd", .symbol = "xhci_urb_giveback"},
	{L("usdt:/bin/x:prov:name"), 0, PROBE, .pk = PROBE_USDT,
	 .path = "/bin/x", .symbol = "name", .provider = "prov"},
	{L("U:libc:setjmp pid=7"), 0, PROBE, .pk = PROBE_USDT, .path = "libc",
	 .symbol = "setjmp", .opts = OPT_PID, .pid = 7},
	{L("U:\"/a b:c\":p:n"), 0, PROBE, .pk = PROBE_USDT, .path = "/a b:c",
	 .symbol = "n", .provider = "p"},
	{L("U:/x:p:n prog=/sys/fs/bpf/p cookie=3"), 0, PROBE, .pk = PROBE_USDT,
	 .path = "/x", .symbol = "n", .provider = "p",
	 .opts = OPT_PROG | OPT_COOKIE, .cookie = 3, .prog = "/sys/fs/bpf/p"},
	/* patterns: USDT provider and name, fentry/fexit FUNC; not rt */
	{L("U:/x:kt:*"), 0, PROBE, .pk = PROBE_USDT, .path = "/x",
	 .symbol = "*", .provider = "kt"},
	{L("usdt:/x:*"), 0, PROBE, .pk = PROBE_USDT, .path = "/x",
	 .symbol = "*"},
	{L("U:/x:*:d[u]p"), 0, PROBE, .pk = PROBE_USDT, .path = "/x",
	 .symbol = "d[u]p", .provider = "*"},
	{L("f:vfs_rea?"), 0, PROBE, .pk = PROBE_FENTRY, .symbol = "vfs_rea?"},
	{L("fr:mod:x_*"), 0, PROBE, .pk = PROBE_FEXIT, .path = "mod",
	 .symbol = "x_*"},
	BAD("U:/x:kt:a[b", 9, "unclosed '['"),
	BAD("U:/x:k[t:a", 6, "unclosed '['"),
	BAD("U:/x:kt:a]", 9, "bad USDT probe name"),
	BAD("U:/x:k^t:a", 6, "bad USDT provider"),
	BAD("f:vfs_[a", 6, "unclosed '['"),
	BAD("f:vfs]", 5, "'vfs]'"),
	BAD("rt:sched_*", 9, "'sched_*'"),
	BAD("t:syscalls:sys_enter_get*", 24,
	    "no wildcards in a tracepoint name"),
	BAD("s:cpu-*", 6, "no wildcards"),
	BAD("fentry:", 7, "expected a function name"),
	BAD("fentry:vfs_read+4", 15, "'vfs_read+4'"),
	BAD("fexit:a:b:c", 9, "'b:c'"),
	BAD("f:ext4:", 7, "expected a function name"),
	BAD("rt:sched_switch pid=1", 16, "applies to"),
	BAD("rt:sched_switch prog=/sys/fs/bpf/p", 16, "applies to"),
	BAD("f:vfs_read cookie=1 prog=/p", 11, "applies to"),
	BAD("fr:vfs_read cpu=0", 12, "applies to"),
	BAD("usdt:/x", 7, "expected ':'"),
	BAD("usdt:/x:", 8, "expected a USDT probe name"),
	BAD("usdt:/x:p:", 10, "expected a USDT probe name"),
	BAD("usdt:/x:p:n:m", 11, "'n:m'"),
	BAD("usdt:/x:p-q:n", 9, "'p-q:n'"),
	BAD("usdt:/x:n cpu=1", 10, "applies to"),
	BAD("Usdt:/x:n", 0, "unknown probe type"),
	BAD("fentry:vfs_read cookie=1", 16, "applies to"),
	/* control bytes */
	BAD("k:foo\0bar", 5, "0x00"),
	BAD("\0", 0, "0x00"),
	BAD("k:foo\x01", 5, "0x01"),
	BAD("# comment\x7f", 9, "0x7f"),
	BAD("k:foo\r\r", 5, "0x0d"),
	BAD("-5\r x", 2, "0x0d"),
	BAD("\n", 0, "0x0a"),
};
/* clang-format on */

static bool streq0(const char *got, const char *want)
{
	return strcmp(got, want ? want : "") == 0;
}

/* The fields an accepted probe line must have; says what differs. */
static void probe_matches(const struct row *r, const struct probe_spec *p)
{
	bool events = r->pk == PROBE_SOFTWARE || r->pk == PROBE_HARDWARE;
	int pid = (r->opts & OPT_PID) ? r->pid : -1;
	int cpu = (r->opts & OPT_CPU) ? r->cpu : -1;

	EXPECT(p->kind == r->pk, "kind %d", p->kind);
	EXPECT(streq0(p->path, r->path), "path '%s'", p->path);
	EXPECT(streq0(p->symbol, r->symbol), "symbol '%s'", p->symbol);
	EXPECT(p->offset == r->offset, "offset %llu",
	       (unsigned long long)p->offset);
	EXPECT(p->by_offset == r->by_offset, "by_offset %d", p->by_offset);
	EXPECT(p->opts == r->opts, "opts 0x%x", p->opts);
	EXPECT(p->cookie == r->cookie, "cookie %llu",
	       (unsigned long long)p->cookie);
	EXPECT(p->pid == pid, "pid %d", p->pid);
	EXPECT(p->cpu == cpu, "cpu %d", p->cpu);
	EXPECT(!events || p->perf_type == r->ptype, "perf_type %u",
	       p->perf_type);
	EXPECT(!events || p->perf_config == r->config, "config %llu",
	       (unsigned long long)p->perf_config);
	EXPECT(p->period == r->period, "period %llu",
	       (unsigned long long)p->period);
	EXPECT(p->freq == r->freq, "freq %llu", (unsigned long long)p->freq);
	EXPECT(streq0(p->prog, r->prog), "prog '%s'", p->prog);
	EXPECT(streq0(p->provider, r->provider), "provider '%s'", p->provider);
	EXPECT(p->stacks == r->stacks, "stacks %u", p->stacks);
	EXPECT(p->by == r->by, "by %d", p->by);
}

static void row_matches(const struct row *r, int ret,
			const struct parsed_cmd *cmd,
			const struct bl_error *perr)
{
	if (!EXPECT(ret == r->ret, "returned %d, want %d (col %zu: %s)", ret,
		    r->ret, perr->column, perr->msg))
		return;
	if (ret) {
		EXPECT(perr->err == ret && perr->column == r->col &&
			       strstr(perr->msg, r->msg),
		       "err %d col %zu msg \"%s\"; want col %zu, msg with \"%s\"",
		       perr->err, perr->column, perr->msg, r->col, r->msg);
		return;
	}
	if (!EXPECT(cmd->kind == r->ck, "command kind %d, want %d", cmd->kind,
		    r->ck))
		return;
	if (cmd->kind == CMD_REMOVE)
		EXPECT(cmd->link_id == r->link_id, "link id %u, want %u",
		       cmd->link_id, r->link_id);
	if (cmd->kind == CMD_PROBE)
		probe_matches(r, &cmd->probe);
}

static void show(char *buf, size_t bufsz, const char *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len && n + 5 < bufsz; i++) {
		unsigned char c = s[i];

		if (c < ' ' || c == 0x7f)
			n += snprintf(buf + n, bufsz - n, "\\x%02x", c);
		else
			buf[n++] = c;
	}
	buf[n] = '\0';
}

static void test_rows(void)
{
	static struct parsed_cmd cmd;
	struct bl_error perr;
	char name[200];
	size_t i;
	int ret;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ret = parse_line(rows[i].line, rows[i].len, &cmd, &perr);
		show(name, sizeof(name), rows[i].line, rows[i].len);
		row_matches(&rows[i], ret, &cmd, &perr);
		group_end("\"%s\"", name);
	}
}

/* Parse PREFIX + n copies of 'a' + SUFFIX; the error column, or 0. */
static int parse_long(const char *prefix, size_t n, const char *suffix,
		      struct parsed_cmd *cmd, struct bl_error *perr)
{
	size_t lp = strlen(prefix), ls = strlen(suffix);
	char *buf = malloc(lp + n + ls);
	int ret;

	if (!buf)
		bail_out("malloc: out of memory");
	memcpy(buf, prefix, lp);
	memset(buf + lp, 'a', n);
	memcpy(buf + lp + n, suffix, ls);
	ret = parse_line(buf, lp + n + ls, cmd, perr);
	free(buf);
	return ret;
}

static void test_lengths(void)
{
	static struct parsed_cmd cmd;
	struct bl_error perr;
	int ret;

	ret = parse_long("uprobe:/", PATH_MAX - 2, ":main", &cmd, &perr);
	CHECK(ret == 0 && strlen(cmd.probe.path) == PATH_MAX - 1,
	      "path of PATH_MAX - 1 bytes accepted");
	ret = parse_long("uprobe:/", PATH_MAX - 1, ":main", &cmd, &perr);
	CHECK(ret == -EINVAL && perr.column == 7,
	      "path of PATH_MAX bytes refused");
	ret = parse_long("uprobe:\"/", PATH_MAX - 1, "\":main", &cmd, &perr);
	CHECK(ret == -EINVAL && perr.column == 7,
	      "quoted path of PATH_MAX bytes refused");
	ret = parse_long("kprobe:", PROBE_NAME_MAX - 1, "", &cmd, &perr);
	CHECK(ret == 0 && strlen(cmd.probe.symbol) == PROBE_NAME_MAX - 1,
	      "function name of PROBE_NAME_MAX - 1 bytes accepted");
	ret = parse_long("kprobe:", PROBE_NAME_MAX, "+1", &cmd, &perr);
	CHECK(ret == -EINVAL && perr.column == 7,
	      "function name of PROBE_NAME_MAX bytes refused");
	ret = parse_long("uprobe:/bin/sh:", PROBE_NAME_MAX, "", &cmd, &perr);
	CHECK(ret == -EINVAL && perr.column == 15,
	      "uprobe symbol of PROBE_NAME_MAX bytes refused");
	ret = parse_long("t:", PROBE_NAME_MAX, ":x", &cmd, &perr);
	CHECK(ret == -EINVAL && perr.column == 2,
	      "tracepoint category of PROBE_NAME_MAX bytes refused");
	ret = parse_long("t:x:", PROBE_NAME_MAX - 1, "", &cmd, &perr);
	CHECK(ret == 0, "tracepoint name of PROBE_NAME_MAX - 1 bytes accepted");
	ret = parse_long("k:foo prog=/", PATH_MAX - 1, "", &cmd, &perr);
	CHECK(ret == -EINVAL && perr.column == 11 && strlen(perr.msg) < 160,
	      "prog path of PATH_MAX bytes refused");
	ret = parse_long("k:", 100, "!", &cmd, &perr);
	CHECK(ret == -EINVAL && perr.column == 102 && strstr(perr.msg, "...'"),
	      "long token cut short in the message: %s", perr.msg);
}

static void test_kind_names(void)
{
	static const char *const names[] = {
		"kprobe",     "kretprobe",     "uprobe",   "uretprobe",
		"tracepoint", "software",      "hardware", "fentry",
		"fexit",      "rawtracepoint", "usdt"};
	enum probe_kind k;

	for (k = PROBE_KPROBE; k <= PROBE_USDT; k++)
		EXPECT(!strcmp(probe_kind_name(k), names[k]), "kind %d: '%s'",
		       k, probe_kind_name(k));
	group_end("probe_kind_name() of every kind");
}

/* path_col and symbol_col point where PATH and SYMBOL start in the line */
static void test_columns(void)
{
	static const struct {
		const char *line, *path, *symbol;
	} cols[] = {
		{"u:/bin/bash:readline", "/bin/bash", "readline"},
		{"  uprobe:\"/a b:c\":f+4 pid=1", "\"/a b:c\"", "f+4"},
		{"ur:/x:0x10", "/x", "0x10"},
		{"t:sched:sched_switch", "sched", "sched_switch"},
		{"\ttracepoint:syscalls:sys_enter_getpid", "syscalls",
		 "sys_enter_getpid"},
		{"f:ext4:ext4_file_open", "ext4", "ext4_file_open"},
		{"usdt:/bin/x:prov:name", "/bin/x", "name"},
	};
	struct parsed_cmd cmd;
	struct bl_error perr;
	size_t i;

	for (i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		const char *l = cols[i].line;
		size_t want_p = strstr(l, cols[i].path) - l;
		size_t want_s = strstr(l + want_p + strlen(cols[i].path),
				       cols[i].symbol) -
				l;
		int ret = parse_line(l, strlen(l), &cmd, &perr);

		CHECK(ret == 0 && cmd.probe.path_col == want_p &&
			      cmd.probe.symbol_col == want_s,
		      "columns of '%s': path %zu (want %zu), symbol %zu (want %zu)",
		      l, cmd.probe.path_col, want_p, cmd.probe.symbol_col,
		      want_s);
	}
}

int main(void)
{
	test_rows();
	test_lengths();
	test_kind_names();
	test_columns();
	return done_testing();
}
