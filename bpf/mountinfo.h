/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one reader of /proc/self/mountinfo (proc(5)): a line's fields with
 * the kernel's escapes undone, and a walk over every line.
 */
#ifndef BPFLINKFS_MOUNTINFO_H
#define BPFLINKFS_MOUNTINFO_H

/**
 * struct mountinfo_entry - one line of mountinfo, its strings inside it
 * @id: the mount id (first field)
 * @parent: the parent's mount id
 * @major: the device's major number (st_dev of files on it)
 * @minor: the device's minor number
 * @root: the root of the mount within its file system, unescaped
 * @mount_point: where it is mounted, unescaped
 * @fstype: the file system type after " - " ("bpf", "fuse.bpflinkfs")
 * @source: the mount source, unescaped
 */
struct mountinfo_entry {
	int id, parent;
	unsigned int major, minor;
	char *root;
	char *mount_point;
	char *fstype;
	char *source;
};

/**
 * mountinfo_unescape() - undo mountinfo's escapes in place: a blank, tab,
 * newline or backslash in a path is written \ooo (three octal digits)
 */
void mountinfo_unescape(char *s);

/**
 * mountinfo_parse() - split one mountinfo line (its newline may be there)
 * @line: the line; changed in place: the entry's strings point into it
 * @m: out, the fields
 *
 * Fields: ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - FSTYPE
 * SOURCE SUPER_OPTIONS. The kernel writes a blank, tab, newline or
 * backslash in ROOT, MOUNT_POINT and SOURCE as \ooo, so blanks only
 * separate fields and " - " only ends the optional ones.
 *
 * Return: 0, or -EINVAL for a line without those fields.
 */
int mountinfo_parse(char *line, struct mountinfo_entry *m);

/**
 * mountinfo_each() - call @fn on every line of mountinfo, in its order
 * @fd: an open /proc/PID/mountinfo, read from its start and left open (the
 *      caller may poll it, POLLPRI, for mount changes); -1: this process's
 *      /proc/self/mountinfo, opened and closed here
 * @fn: the callback; a non-zero return stops the walk and is returned
 * @arg: passed to @fn
 *
 * Lines that do not parse are skipped. A line has no length limit.
 *
 * Return: 0 after the last line, @fn's non-zero return, or -errno of
 * opening or reading mountinfo (-ENOMEM).
 */
int mountinfo_each(int fd,
		   int (*fn)(const struct mountinfo_entry *m, void *arg),
		   void *arg);

#endif
