// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mountinfo.h"

void mountinfo_unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
					(s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

/* The next blank-separated field of *@s, NUL-ended; NULL when none is left */
static char *next_field(char **s)
{
	return *s ? strsep(s, " ") : NULL;
}

int mountinfo_parse(char *line, struct mountinfo_entry *m)
{
	char *sep, *rest, *end;

	line[strcspn(line, "\n")] = '\0';
	sep = strstr(line, " - ");
	if (!sep)
		return -EINVAL;
	*sep = '\0';
	rest = sep + 3;
	if (sscanf(line, "%d %d %u:%u ", &m->id, &m->parent, &m->major,
		   &m->minor) != 4)
		return -EINVAL;
	/* past ID PARENT MAJ:MIN */
	end = line;
	for (int i = 0; i < 3; i++)
		next_field(&end);
	m->root = next_field(&end);
	m->mount_point = next_field(&end);
	m->fstype = next_field(&rest);
	m->source = next_field(&rest);
	if (!m->root || !m->mount_point || !m->fstype || !m->source)
		return -EINVAL;
	mountinfo_unescape(m->root);
	mountinfo_unescape(m->mount_point);
	mountinfo_unescape(m->source);
	return 0;
}

int mountinfo_each(int fd,
		   int (*fn)(const struct mountinfo_entry *m, void *arg),
		   void *arg)
{
	struct mountinfo_entry m;
	char *line = NULL;
	size_t cap = 0;
	int dfd, ret = 0;
	FILE *f;

	if (fd < 0)
		dfd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	else if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	else
		dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dfd < 0)
		return -errno;
	f = fdopen(dfd, "re");
	if (!f) {
		ret = -errno;
		close(dfd);
		return ret;
	}
	while (!ret) {
		errno = 0;
		if (getline(&line, &cap, f) < 0) {
			if (!feof(f))
				ret = errno ? -errno : -EIO;
			break;
		}
		if (!mountinfo_parse(line, &m))
			ret = fn(&m, arg);
	}
	free(line);
	fclose(f);
	return ret;
}
