// SPDX-License-Identifier: GPL-2.0-only
/*
 * floor - the lower bounds of the listing benchmark.
 *
 *   floor links [REPS]
 *	The per-link syscall floor: for every link, BPF_LINK_GET_NEXT_ID +
 *	BPF_LINK_GET_FD_BY_ID + one BPF_OBJ_GET_INFO_BY_FD (with a name
 *	buffer, so a perf link's path or tracepoint name comes back in the
 *	same call) + close. Prints one line per repetition:
 *	"links L perf P ns T" (all links, perf-event links, wall time).
 *
 *   floor read REPS FILE...
 *	open + read to EOF + close of every FILE, REPS times; prints
 *	"files F ns_per_file MEDIAN min MIN max MAX missing M" over the
 *	repetitions, the per-file cost of a reader such as cat without its
 *	exec; M counts opens that found the file gone (ENOENT) in all passes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>

/*
 * The name pointer and length sit at the same place in every perf-event
 * flavour of bpf_link_info; other link types may read the length as a
 * count of u64s (kprobe_multi addrs), so the buffer holds that many.
 */
#define NAME_LEN 4096
static uint64_t name_buf[NAME_LEN];

/*
 * The head of struct bpf_link_info as of Linux 6.6 (perf_event member):
 * the system <linux/bpf.h> may be older. The kernel takes a shorter
 * struct and fills what fits.
 */
struct floor_link_info {
	uint32_t type, id, prog_id, pad;
	uint32_t pe_type, pad2;	   /* perf_event.type */
	uint64_t name;		   /* perf_event.uprobe.file_name */
	uint32_t name_len, offset; /* perf_event.uprobe.name_len ... */
	uint64_t cookie, ref_ctr_offset, spare[4];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* One pass over all links; *perf gets the perf-event link count. */
static long links_pass(long *perf)
{
	struct floor_link_info info;
	uint32_t id = 0, len;
	long n = 0;
	int fd;

	*perf = 0;
	while (!bpf_link_get_next_id(id, &id)) {
		fd = bpf_link_get_fd_by_id(id);
		if (fd < 0)
			continue; /* went away since GET_NEXT_ID */
		memset(&info, 0, sizeof(info));
		info.name = (uint64_t)(uintptr_t)name_buf;
		info.name_len = NAME_LEN;
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len)) {
			n++;
			if (info.type == BPF_LINK_TYPE_PERF_EVENT)
				(*perf)++;
		}
		close(fd);
	}
	return n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int read_one(const char *path)
{
	char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	do {
		n = read(fd, buf, sizeof(buf));
	} while (n > 0);
	close(fd);
	return n < 0 ? -errno : 0;
}

static int do_read(long reps, int nfiles, char **files)
{
	uint64_t *t = calloc((size_t)reps, sizeof(*t)), t0;
	long r, missing = 0;
	int i, err;

	if (!t || reps < 1 || nfiles < 1)
		return 2;
	for (r = 0; r < reps; r++) {
		t0 = now_ns();
		for (i = 0; i < nfiles; i++) {
			err = read_one(files[i]);
			if (err == -ENOENT) {
				missing++; /* a link went away: churn */
			} else if (err) {
				fprintf(stderr, "floor: %s: %s\n", files[i],
					strerror(-err));
				return 1;
			}
		}
		t[r] = (now_ns() - t0) / (uint64_t)nfiles;
	}
	qsort(t, (size_t)reps, sizeof(*t), cmp_u64);
	printf("files %d ns_per_file %llu min %llu max %llu missing %ld\n",
	       nfiles, (unsigned long long)t[reps / 2],
	       (unsigned long long)t[0], (unsigned long long)t[reps - 1],
	       missing);
	free(t);
	return 0;
}

int main(int argc, char **argv)
{
	long reps = 1, r, n, perf;
	uint64_t t0;

	if (argc >= 2 && !strcmp(argv[1], "links")) {
		if (argc > 2)
			reps = strtol(argv[2], NULL, 10);
		for (r = 0; r < reps; r++) {
			t0 = now_ns();
			n = links_pass(&perf);
			printf("links %ld perf %ld ns %llu\n", n, perf,
			       (unsigned long long)(now_ns() - t0));
		}
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "read"))
		return do_read(strtol(argv[2], NULL, 10), argc - 3, argv + 3);
	fprintf(stderr,
		"usage: floor links [REPS] | floor read REPS FILE...\n");
	return 2;
}
