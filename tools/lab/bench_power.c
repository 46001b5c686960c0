/*
 * bench_power.c - `surfer-bench power`: the tile model's power cap
 * (tile_sustained_fraction, power_node_energy) against pure FP32 FMA runs
 * measured with their board power and clock.
 *
 * Data: gpu-reference/gpu-benches/gpu-roofline/<machine>_<gpu>.txt under
 * --data DIR, lines of
 *
 *   DEV BLOCKS blocks ITS its INTENSITY Fl/B BW GB/s RATE GF/s CLOCK Mhz POWER W TEMP
 *
 * one per device and arithmetic intensity.  Each device's fastest line is
 * its FMA limit: the energy per FLOP pair it drew there is 2 W / rate (the
 * model's E, board power included), and its clock over the boost clock is
 * the fraction of the peak its power limit let it hold.  The model's E is
 * the weights' energy at 16 nm times power_node_energy(), fitted on the
 * power-limited training GPUs' GEMMs (16 and 12 nm) and never on these
 * runs.
 */
#include "tools/lab/bench_power.h"
#include "trace/surfer_err.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_specs/gpu.h"
#include "predictor/power.h"
#include "predictor/tile.h"

#define PROG "surfer-bench"
#define BP_MAXDEV 16

/* The machines of the gpu-benches outputs and their GPUs. */
static const struct {
	const char *file, *gpu;
} bp_files[] = {
	{"alex_a100_40.txt", "a100-sxm4-40"},  /* NHR@FAU Alex: HGX A100 SXM4 */
	{"alex_a40.txt", "a40"},
	{"genoa_l40.txt", "l40"},
	{"h200.txt", "h200"},
};

struct bp_dev {
	double gflops, mhz, watts;
};

/* Reads one output file: the fastest line of each device into dev[].
 * Returns the number of devices seen, or -errno. */
static int bp_read(const char *path, struct bp_dev dev[BP_MAXDEV])
{
	char line[512];
	int ndev = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	memset(dev, 0, sizeof(*dev) * BP_MAXDEV);
	while (fgets(line, sizeof line, f)) {
		int d;
		double fl, bw, gf, mhz, w;
		unsigned blocks, its;
		if (sscanf(line, "%d %u blocks %u its %lf Fl/B %lf GB/s %lf GF/s %lf Mhz %lf W", &d,
			   &blocks, &its, &fl, &bw, &gf, &mhz, &w) != 8 ||
		    d < 0 || d >= BP_MAXDEV || !(gf > 0) || !(mhz > 0) || !(w > 0))
			continue;
		if (gf > dev[d].gflops) {
			dev[d].gflops = gf, dev[d].mhz = mhz, dev[d].watts = w;
			if (d + 1 > ndev)
				ndev = d + 1;
		}
	}
	fclose(f);
	return ndev;
}

static void bp_usage(FILE *f)
{
	fprintf(f, "usage: " PROG " power --data DIR [--weights FILE]\n"
		   "  the tile model's FP32 power cap against gpu-benches' FMA runs under\n"
		   "  DIR/gpu-reference/gpu-benches/gpu-roofline (energy per FLOP pair and\n"
		   "  the fraction of the boost clock each board held)\n");
}

int bench_power_main(const struct bench_args *a)
{
	const char *data = a->data, *weights = a->weights;

	if (a->help) {
		bp_usage(stdout);
		return 0;
	}
	if (!data) {
		bp_usage(stderr);
		return surfer_exit_code(SURFER_EINVAL);
	}
	struct tile_model *tm;
	if (weights ? tile_model_load_file(weights, &tm) != 0 : tile_model_load_builtin(&tm) != 0) {
		fprintf(stderr, PROG ": cannot load weights '%s'\n", weights ? weights : "compiled-in");
		return surfer_exit_code(SURFER_EINVAL);
	}
	double pj16 = tile_model_sustain_pj(tm);
	if (!(pj16 > 0)) {
		fprintf(stderr, PROG ": the weights carry no power cap\n");
		tile_model_free(tm);
		return surfer_exit_code(SURFER_EINVAL);
	}
	printf("FP32 power cap (%.1f pJ per core-cycle at 16 nm) against gpu-benches FMA runs\n",
	       pj16);
	printf("%-14s %-20s %3s %4s %6s %5s %9s %9s %6s %9s %9s\n", "gpu", "file", "dev", "cc",
	       "W", "MHz", "E meas", "E model", "ratio", "clk meas", "clk model");
	double lsum = 0;
	int n = 0, files = 0;
	for (size_t i = 0; i < sizeof bp_files / sizeof bp_files[0]; i++) {
		char path[4096];
		struct bp_dev dev[BP_MAXDEV];
		const struct gpu_spec *g = gpu_find(bp_files[i].gpu);
		snprintf(path, sizeof path, "%s/gpu-reference/gpu-benches/gpu-roofline/%s", data,
			 bp_files[i].file);
		int nd = g ? bp_read(path, dev) : -ENOENT;
		if (nd < 0)
			continue;
		files++;
		double em = pj16 * power_node_energy(g->cc, POWER_NODE_SQUARE12);
		for (int d = 0; d < nd; d++) {
			if (!(dev[d].gflops > 0))
				continue;
			double e = 2.0 * dev[d].watts / (dev[d].gflops * 1e9) * 1e12;
			char cc[16];
			printf("%-14s %-20s %3d %4s %6.0f %5.0f %6.1f pJ %6.1f pJ %6.2f %9.2f %9.2f\n",
			       g->id, bp_files[i].file, d, gpu_cc_string(g->cc, cc, sizeof cc),
			       dev[d].watts, dev[d].mhz, e, em, em / e,
			       g->boost_clock_mhz ? dev[d].mhz / g->boost_clock_mhz : 0,
			       tile_sustained_fraction(tm, g));
			lsum += log(em / e);
			n++;
		}
	}
	tile_model_free(tm);
	if (!files) {
		fprintf(stderr, PROG ": no gpu-roofline output under '%s'\n", data);
		return surfer_exit_code(SURFER_EINVAL);
	}
	printf("%d boards: model / measured energy, geometric mean %.2f\n", n, exp(lsum / n));
	return 0;
}
