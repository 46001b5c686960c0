/*
 * die.c - the die of every GPU of the table (die.h).  Sources: NVIDIA's
 * architecture whitepapers and product briefs (Maxwell GM200, Pascal
 * GP100/GP102/GP104, Volta GV100, Turing TU102/TU104, Ampere GA100/GA102,
 * Ada AD102/AD103/AD104, Hopper GH100 (the H20 and H800 are GH100 parts with
 * SMs, NVLink or FP64 cut), Blackwell GB100/GB202); AMD's CDNA
 * whitepapers (MI100 "Arcturus", MI200 "Aldebaran", MI300 "Aqua
 * Vanjaram").  A GPU added to gpus.csv needs a line here (check_gpu.c
 * fails otherwise).
 */
#include <string.h>

#include "gpu_specs/die.h"

static const struct {
	const char *die;
	const char *ids[10];  /* canonical ids, NULL-terminated */
} dies[] = {
	{"gm200", {"m40", "titan-x-maxwell"}},
	{"gp100", {"p100-pcie", "p100-sxm2"}},
	{"gp102", {"titan-x-pascal", "titan-xp", "gtx-1080-ti"}},
	{"gp104", {"p4"}},
	{"gv100", {"v100-pcie-16", "v100-pcie-32", "v100-sxm2-16", "v100-sxm2-32"}},
	{"tu102", {"rtx-2080ti", "quadro-rtx-8000"}},
	{"tu104", {"t4"}},
	{"ga100", {"a100-pcie-40", "a100-pcie-80", "a100-sxm4-40", "a100-sxm4-80", "a800-sxm4-80", "a800-pcie-80",
		   "a30"}},
	{"ga102", {"a10", "a10g", "a40", "rtx-3090", "rtx-a6000", "rtx-a5000"}},
	{"ad102", {"l40", "l20", "l40s", "rtx-4090", "rtx-6000-ada"}},
	{"ad103", {"rtx-4080"}},
	{"ad104", {"l4"}},
	{"gh100", {"h100-pcie", "h100-sxm", "h100-nvl", "h100-sxm-96", "h200-nvl", "h800", "h20", "h200", "gh200"}},
	{"gb100", {"b200", "gb200"}},
	{"gb202", {"rtx-5090", "rtx-pro-6000-blackwell"}},
	{"arcturus", {"mi100"}},
	{"aldebaran", {"mi210", "mi250", "mi250x"}},
	{"aqua-vanjaram", {"mi300x", "mi325x"}},
};

const char *gpu_die(const struct gpu_spec *g)
{
	if (!g || !g->id)
		return NULL;
	for (size_t d = 0; d < sizeof dies / sizeof dies[0]; d++)
		for (size_t i = 0; dies[d].ids[i]; i++)
			if (strcmp(dies[d].ids[i], g->id) == 0)
				return dies[d].die;
	return NULL;
}

int gpu_same_die(const struct gpu_spec *a, const struct gpu_spec *b)
{
	if (gpu_same(a, b))
		return 1;
	const char *da = gpu_die(a), *db = gpu_die(b);
	return da && db && strcmp(da, db) == 0;
}
