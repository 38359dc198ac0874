// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dis-asm.h>

#include "uprobe_err.h"
#include "uprobe_insn.h"

#define INSN_CHECK_MAX (1u << 20)

/* The instructions' text is not wanted, only their lengths. */
static int no_text(void *stream, const char *fmt, ...)
{
	return 0;
}

static int no_styled_text(void *stream, enum disassembler_style style,
			  const char *fmt, ...)
{
	return 0;
}

/*
 * Walk the instructions of @code (@len bytes, a function from its entry):
 * the offset of the first instruction start at or past @want.
 */
static uint64_t insn_walk(const unsigned char *code, size_t len, uint64_t want,
			  uint64_t *prev)
{
	disassembler_ftype dis =
		disassembler(bfd_arch_i386, false, bfd_mach_x86_64, NULL);
	struct disassemble_info info;
	uint64_t pc = 0;
	int n;

	init_disassemble_info(&info, NULL, no_text, no_styled_text);
	info.arch = bfd_arch_i386;
	info.mach = bfd_mach_x86_64;
	info.buffer = (bfd_byte *)code;
	info.buffer_length = len;
	info.buffer_vma = 0;
	disassemble_init_for_target(&info);
	*prev = 0;
	while (dis && pc < want) {
		n = dis(pc, &info);
		if (n <= 0)
			return want; /* undecodable: leave it to the kernel */
		*prev = pc;
		pc += n;
	}
	return pc;
}

/* The distance of @offset from the entry of the function holding it. */
static bool func_distance(const char *path, uint64_t offset, uint64_t *d,
			  char *func, size_t flen)
{
	char *plus;

	if (uprobe_symbolize(path, offset, func, flen))
		return false;
	plus = strrchr(func, '+');
	if (!plus)
		return false;
	*plus = '\0';
	*d = strtoull(plus + 1, NULL, 16);
	return true;
}

/* Read the @d bytes before @offset and up to 16 from it: -EIO if short. */
static int read_code(const char *path, uint64_t offset, uint64_t d,
		     unsigned char **code, size_t *len)
{
	unsigned char *buf = malloc(d + 16);
	int fd = buf ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	ssize_t n = fd >= 0 ? pread(fd, buf, d + 16, offset - d) : -1;
	int err = !buf ? -ENOMEM : fd < 0 ? -errno : n <= (ssize_t)d ? -EIO : 0;

	if (fd >= 0)
		close(fd);
	if (err) {
		free(buf);
		return err;
	}
	*code = buf;
	*len = n;
	return 0;
}

int uprobe_insn_check(const char *path, uint64_t offset, bool retprobe,
		      struct uprobe_err *terr)
{
	char func[1024];
	unsigned char *code = NULL;
	uint64_t d, at, prev;
	size_t len = 0;
	int err;

	if (!func_distance(path, offset, &d, func, sizeof(func)) || !d)
		return 0;
	if (retprobe) {
		uprobe_set_err(
			terr, true,
			"a uretprobe must be at a function's entry; file "
			"offset 0x%" PRIx64 " is %s+0x%" PRIx64,
			offset, func, d);
		return -EINVAL;
	}
#if defined(__x86_64__)
	if (d > INSN_CHECK_MAX)
		return 0;
	err = read_code(path, offset, d, &code, &len);
	if (err)
		return err == -EIO ? 0 : err;
	at = insn_walk(code, len, d, &prev);
	free(code);
	if (at == d)
		return 0;
	uprobe_set_err(terr, true,
		       "file offset 0x%" PRIx64 " (%s+0x%" PRIx64
		       ") is inside an instruction, which would corrupt the "
		       "code; instructions start at %s+0x%" PRIx64
		       " and %s+0x%" PRIx64,
		       offset, func, d, func, prev, func, at);
	return -EINVAL;
#else
	/* fixed-size instructions */
	if (d % 4 == 0)
		return 0;
	uprobe_set_err(terr, true,
		       "file offset 0x%" PRIx64 " (%s+0x%" PRIx64
		       ") is not on an instruction (every 4 bytes)",
		       offset, func, d);
	return -EINVAL;
#endif
}
