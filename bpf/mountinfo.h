/* SPDX-License-Identifier: GPL-2.0-only */
/* Fields of /proc/PID/mountinfo (proc(5)). */
#ifndef BPFLINKFS_MOUNTINFO_H
#define BPFLINKFS_MOUNTINFO_H

/**
 * mountinfo_unescape() - undo mountinfo's escapes in place: a blank, tab,
 * newline or backslash in a path is written \ooo (three octal digits)
 */
void mountinfo_unescape(char *s);

#endif
