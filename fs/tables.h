/* SPDX-License-Identifier: GPL-2.0-only */
/* The root tables: links, links.json and features (tables.c). */
#ifndef BPFLINKFS_TABLES_H
#define BPFLINKFS_TABLES_H

#include <stddef.h>

#include "render.h"

struct stats_switch;

/**
 * render_links_table() / render_links_json() / render_features()
 * Return: malloc'd text (caller frees), length in *len; NULL with errno.
 */
char *render_links_table(struct owned *reg, const struct reader *r,
			 size_t *len);
char *render_links_json(struct owned *reg, const struct reader *r, size_t *len);
char *render_features(struct stats_switch *sw, size_t *len);

#endif
