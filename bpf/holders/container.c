// SPDX-License-Identifier: GPL-2.0-only
/* Which container a cgroup path names (container.h). */
#include "container.h"
#include "array_size.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#define ID_MIN 12 /* docker's short ids; the runtimes write 64 digits */

/* Runtimes that name a container's cgroup PREFIX-ID[.scope] */
static const char *const id_prefixes[] = {
	"docker-",
	"cri-containerd-",
	"crio-",
	"libpod-",
};

struct comp {
	const char *p;
	size_t n;
};

static bool has_suffix(struct comp c, const char *suf)
{
	size_t k = strlen(suf);

	return c.n >= k && !memcmp(c.p + c.n - k, suf, k);
}

static bool has_prefix(struct comp c, const char *pre)
{
	size_t k = strlen(pre);

	return c.n >= k && !memcmp(c.p, pre, k);
}

static bool is_hex_id(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((p[i] >= '0' && p[i] <= '9') ||
		      (p[i] >= 'a' && p[i] <= 'f')))
			return false;
	return n >= ID_MIN;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* @n bytes of @p into @out, systemd's \xHH escapes decoded when @unescape */
static int put_name(const char *p, size_t n, bool unescape, char *out,
		    size_t len)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++, k++) {
		char c = p[i];

		/* \x00 would end the name: kept as written */
		if (unescape && c == '\\' && i + 3 < n && p[i + 1] == 'x' &&
		    hexval(p[i + 2]) >= 0 && hexval(p[i + 3]) >= 0 &&
		    (hexval(p[i + 2]) | hexval(p[i + 3]))) {
			c = (char)(hexval(p[i + 2]) << 4 | hexval(p[i + 3]));
			i += 3;
		}
		if (k + 1 >= len)
			return -ENAMETOOLONG;
		out[k] = c;
	}
	if (!len)
		return -ENAMETOOLONG;
	out[k] = '\0';
	return k ? (int)k : -ENOENT;
}

/* Component @c (under @parent, {NULL, 0} at the top) as a container */
static int comp_container(struct comp c, struct comp parent, char *out,
			  size_t len)
{
	struct comp body = c;
	size_t i;

	if (has_suffix(body, ".scope"))
		body.n -= strlen(".scope");
	for (i = 0; i < ARRAY_SIZE(id_prefixes); i++) {
		size_t k = strlen(id_prefixes[i]);

		if (has_prefix(body, id_prefixes[i]) &&
		    is_hex_id(body.p + k, body.n - k))
			return put_name(body.p + k, body.n - k, false, out,
					len);
	}
	if (has_prefix(c, "machine-") && has_suffix(c, ".scope"))
		return put_name(c.p + 8, c.n - 8 - 6, true, out, len);
	/* nspawn run as its template service: the instance is the machine */
	if (has_prefix(c, "systemd-nspawn@") && has_suffix(c, ".service"))
		return put_name(c.p + 15, c.n - 15 - 8, true, out, len);
	if (has_prefix(c, "lxc.payload."))
		return put_name(c.p + 12, c.n - 12, false, out, len);
	if (parent.n == 3 && !memcmp(parent.p, "lxc", 3))
		return put_name(c.p, c.n, false, out, len);
	/* cgroupfs drivers: /docker/ID, kubelet's .../pod<UID>/ID */
	if (is_hex_id(c.p, c.n) &&
	    ((parent.n == 6 && !memcmp(parent.p, "docker", 6)) ||
	     has_prefix(parent, "pod")))
		return put_name(c.p, c.n, false, out, len);
	return -ENOENT;
}

/* The component that ends at @end (slashes before it skipped) */
static struct comp comp_before(const char *path, const char *end)
{
	const char *p;

	while (end > path && end[-1] == '/')
		end--;
	for (p = end; p > path && p[-1] != '/'; p--)
		;
	return (struct comp){p, (size_t)(end - p)};
}

int cgroup_container(const char *path, char *out, size_t len)
{
	struct comp c = comp_before(path, path + strlen(path));

	/* innermost first: from the last component back */
	while (c.n) {
		struct comp parent = comp_before(path, c.p);
		int r = comp_container(c, parent, out, len);

		if (r != -ENOENT)
			return r;
		c = parent;
	}
	return -ENOENT;
}
