/*
 * list.c - prints the GPU table for `surfer-analyze --list-gpus`: a text
 * table that fits 100 columns, or a JSON array (jansson) for scripts.
 * Kept apart from gpus.c so that only programs that list GPUs link jansson.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gpu_specs/gpu.h"

static int print_text(FILE *f)
{
	size_t n;
	const struct gpu_spec *g = gpu_all(&n);

	/* At most 99 columns. */
	if (fprintf(f, "%-22s %6s %3s %4s %3s %5s %4s %4s %5s %5s %5s %s\n",
		    "id", "cc", "SMs", "MHz", "GB", "GB/s", "meas", "L2",
		    "fp32", "fp16", "fp8", "name") < 0)
		return -EIO;
	for (size_t i = 0; i < n; i++, g++) {
		char cc[16], meas[16];
		const char *name = g->name;

		gpu_cc_string(g->cc, cc, sizeof cc);
		if (g->mem_bw_measured_gbps > 0)
			snprintf(meas, sizeof meas, "%.0f", g->mem_bw_measured_gbps);
		else
			snprintf(meas, sizeof meas, "-");
		/* the name without "NVIDIA " or "AMD Instinct " fits what is left */
		if (strncmp(name, "NVIDIA ", 7) == 0)
			name += 7;
		else if (strncmp(name, "AMD Instinct ", 13) == 0)
			name += 13;
		if (fprintf(f, "%-22.22s %6s %3u %4u %3.0f %5.0f %4s %4g %5.1f %5.0f %5.0f %.22s\n",
			    g->id, cc, g->sms, g->boost_clock_mhz, g->mem_gb,
			    g->mem_bw_gbps, meas, g->l2_mb, g->peak_tflops[GPU_DT_FP32],
			    g->peak_tflops[GPU_DT_FP16], g->peak_tflops[GPU_DT_FP8],
			    name) < 0)
			return -EIO;
	}
	if (fprintf(f, "%zu GPUs; TFLOP/s dense at boost clock, fp16 tensor with FP32 "
		    "accumulate; meas = measured GB/s\n", n) < 0)
		return -EIO;
	return 0;
}

/* json_object_set_new that reports failure. */
static int put(json_t *o, const char *k, json_t *v)
{
	return v ? json_object_set_new(o, k, v) : -1;
}

static json_t *gpu_json(const struct gpu_spec *g)
{
	json_t *o = json_object(), *aliases = json_array(), *tensor = json_object();
	char cc[16];
	int bad = 0;

	if (!o || !aliases || !tensor) {
		json_decref(o);
		json_decref(aliases);
		json_decref(tensor);
		return NULL;
	}
	for (const char *const *a = g->aliases; *a; a++)
		bad |= json_array_append_new(aliases, json_string(*a));
	for (int d = GPU_DT_TF32; d < GPU_DT_COUNT; d++)
		if (g->peak_tflops[d] > 0)
			bad |= put(tensor, gpu_dtype_name((enum gpu_dtype)d),
				   json_real(g->peak_tflops[d]));
	gpu_cc_string(g->cc, cc, sizeof cc);
	bad |= put(o, "id", json_string(g->id));
	bad |= put(o, "name", json_string(g->name));
	bad |= put(o, "aliases", aliases);
	bad |= put(o, "cc", json_string(cc));
	bad |= put(o, "sms", json_integer(g->sms));
	bad |= put(o, "base_clock_mhz", json_integer(g->base_clock_mhz));
	bad |= put(o, "boost_clock_mhz", json_integer(g->boost_clock_mhz));
	bad |= put(o, "mem_gb", json_real(g->mem_gb));
	bad |= put(o, "mem_mib", g->mem_mib > 0 ? json_real(g->mem_mib) : json_null());
	bad |= put(o, "mem_usable_gib", json_real(gpu_mem_usable_bytes(g) / 1073741824.0));
	bad |= put(o, "mem_bw_gbps", json_real(g->mem_bw_gbps));
	bad |= put(o, "mem_bw_measured_gbps", g->mem_bw_measured_gbps > 0
		   ? json_real(g->mem_bw_measured_gbps) : json_null());
	bad |= put(o, "l2_mb", json_real(g->l2_mb));
	bad |= put(o, "fp32_tflops", json_real(g->peak_tflops[GPU_DT_FP32]));
	bad |= put(o, "fp64_tflops", json_real(g->peak_tflops[GPU_DT_FP64]));
	bad |= put(o, "tensor_tflops", tensor);
	bad |= put(o, "pcie_gen", json_integer(g->pcie_gen));
	bad |= put(o, "pcie_lanes", json_integer(g->pcie_lanes));
	bad |= put(o, "nvlink_gbps", json_real(g->nvlink_gbps));
	bad |= put(o, "nvlink_peers", json_integer(g->nvlink_peers));
	bad |= put(o, "tdp_w", json_integer(g->tdp_w));
	bad |= put(o, "source", json_string(g->source));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int print_json(FILE *f)
{
	size_t n;
	const struct gpu_spec *g = gpu_all(&n);
	json_t *arr = json_array();
	int rc = 0;

	if (!arr)
		return -ENOMEM;
	for (size_t i = 0; i < n && rc == 0; i++) {
		json_t *o = gpu_json(&g[i]);

		if (!o || json_array_append_new(arr, o) != 0)
			rc = -ENOMEM;
	}
	if (rc == 0 && (json_dumpf(arr, f, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) != 0 ||
			fputc('\n', f) == EOF))
		rc = -EIO;
	json_decref(arr);
	return rc;
}

int gpu_list_print(FILE *f, int json)
{
	int rc;

	if (!f)
		return -EINVAL;
	rc = json ? print_json(f) : print_text(f);
	if (rc == 0 && fflush(f) != 0)
		rc = -EIO;
	return rc;
}
