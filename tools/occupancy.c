/*
 * occupancy.c - surfer-occupancy: resident blocks per SM of one kernel
 * launch on a named GPU (or compute capability), as the driver computes it.
 *
 *   surfer-occupancy --gpu NAME --threads N [--regs N] [--smem BYTES]
 *                    [--dyn-smem BYTES] [--carveout PCT]
 *
 * prints `blocks_per_sm=K limited_by=WHAT active_warps=W occupancy=0.xx`.
 * The arithmetic lives in gpu_specs/occupancy.c; this file parses options.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/optfail.h"
#include "gpu_specs/gpu.h"
#include "trace/surfer_err.h"

static const char *prog = "surfer-occupancy";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s (--gpu NAME | --cc X.Y) --threads N [--regs N] [--smem BYTES]\n"
		"       [--dyn-smem BYTES] [--carveout PCT]\n"
		"Resident thread blocks per SM of a launch, as the CUDA driver computes it\n"
		"with default settings (dynamic shared memory above 48 KB counts as opted in).\n"
		"  --gpu NAME        GPU id, name or alias (surfer-analyze --list-gpus)\n"
		"  --cc X.Y          a compute capability instead of a GPU\n"
		"  --threads N       threads per block\n"
		"  --regs N          registers per thread (default 0)\n"
		"  --smem BYTES      static shared memory per block (default 0; K suffix = KiB)\n"
		"  --dyn-smem BYTES  dynamic shared memory per block (default 0)\n"
		"  --carveout PCT    preferred shared-memory carveout, 0..100 (default: none)\n"
		"Output: blocks_per_sm=K limited_by=WHAT active_warps=W occupancy=F\n"
		"(K = 0 when the launch cannot run).  Exit 0, or 2 on bad input.\n",
		prog);
}

/* Parses a non-negative integer with an optional K/KB/KiB suffix (x1024). */
static int parse_u32(const char *opt, const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (*s < '0' || *s > '9')
		goto bad;
	v = strtoull(s, &end, 10);
	if (errno)
		goto bad;
	if (*end == 'k' || *end == 'K') {
		end++;
		if (strcmp(end, "B") == 0 || strcmp(end, "iB") == 0 || strcmp(end, "b") == 0)
			end += strlen(end);
		if (v > 0xffffffffULL / 1024)
			goto bad;
		v *= 1024;
	}
	if (*end != '\0' || v > 0xffffffffULL)
		goto bad;
	*out = (uint32_t)v;
	return 0;
bad:
	fprintf(stderr, "%s: bad %s '%s': expected a non-negative integer\n", prog, opt, s);
	return -1;
}

static const struct gpu_cc_limits *parse_cc(const char *s)
{
	unsigned major, minor;
	int used = 0;

	if (sscanf(s, "%u.%u%n", &major, &minor, &used) != 2 || s[used] != '\0' ||
	    major > 99 || minor > 9)
		return NULL;
	return gpu_cc_find(major * 10 + minor);
}

static void unknown_gpu(const char *name)
{
	const char *near[3];
	size_t n = gpu_suggest(name, near, 3);

	fprintf(stderr, "%s: unknown GPU '%s'", prog, name);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s%s", i ? ", " : "; closest: ", near[i]);
	fputc('\n', stderr);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "gpu", required_argument, NULL, 'g' },
		{ "cc", required_argument, NULL, 'c' },
		{ "threads", required_argument, NULL, 't' },
		{ "regs", required_argument, NULL, 'r' },
		{ "smem", required_argument, NULL, 's' },
		{ "dyn-smem", required_argument, NULL, 'd' },
		{ "carveout", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *gpu = NULL, *cc = NULL;
	uint32_t threads = 0, regs = 0, smem = 0, dyn = 0, carveout = 0;
	int have_threads = 0, have_carveout = 0, c;
	const struct gpu_cc_limits *lim;
	struct gpu_occupancy occ;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'g': gpu = optarg; break;
		case 'c': cc = optarg; break;
		case 't':
			if (parse_u32("--threads", optarg, &threads))
				return surfer_exit_code(SURFER_EINVAL);
			have_threads = 1;
			break;
		case 'r':
			if (parse_u32("--regs", optarg, &regs))
				return surfer_exit_code(SURFER_EINVAL);
			break;
		case 's':
			if (parse_u32("--smem", optarg, &smem))
				return surfer_exit_code(SURFER_EINVAL);
			break;
		case 'd':
			if (parse_u32("--dyn-smem", optarg, &dyn))
				return surfer_exit_code(SURFER_EINVAL);
			break;
		case 'o':
			if (parse_u32("--carveout", optarg, &carveout))
				return surfer_exit_code(SURFER_EINVAL);
			if (carveout > 100) {
				fprintf(stderr, "%s: bad --carveout '%s': expected 0..100\n",
					prog, optarg);
				return surfer_exit_code(SURFER_EINVAL);
			}
			have_carveout = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("%s %s\n", prog, SURFER_VERSION);
			return 0;
		default: {
			char why[256];
			optfail_describe(argv[optind - 1], opts, why, sizeof why);
			fprintf(stderr, "%s: %s\n", prog, why);
			usage(stderr);
			return surfer_exit_code(SURFER_EINVAL);
		}
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[optind]);
		return surfer_exit_code(SURFER_EINVAL);
	}
	if ((gpu == NULL) == (cc == NULL) || !have_threads) {
		fprintf(stderr, "%s: need --threads and one of --gpu or --cc (see --help)\n", prog);
		return surfer_exit_code(SURFER_EINVAL);
	}
	if (gpu) {
		const struct gpu_spec *g = gpu_find(gpu);

		if (!g) {
			unknown_gpu(gpu);
			return surfer_exit_code(SURFER_EINVAL);
		}
		lim = g->limits;
	} else {
		lim = parse_cc(cc);
		if (!lim) {
			fprintf(stderr, "%s: unknown compute capability '%s'\n", prog, cc);
			return surfer_exit_code(SURFER_EINVAL);
		}
	}
	if (gpu_occupancy_carveout(lim, threads, regs, smem, dyn,
				   have_carveout ? (int)carveout : -1, &occ) != 0) {
		fprintf(stderr, "%s: cannot compute occupancy: invalid input\n", prog);
		return surfer_exit_code(SURFER_EINVAL);
	}
	printf("blocks_per_sm=%u limited_by=%s active_warps=%u occupancy=%.2f\n",
	       occ.blocks_per_sm, gpu_occ_limit_name(occ.limited_by), occ.active_warps,
	       occ.occupancy);
	return 0;
}
