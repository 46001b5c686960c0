/*
 * tiles.c - tile shapes from kernel names, from launch geometry, and the
 * guess of which tile a target GPU's library picks.
 *
 * NeuSight (Lee et al., ASPLOS 2025, section 4) reads tile sizes from
 * library kernel names; the patterns below cover the cuBLAS/cuDNN
 * generations (maxwell_, volta_, turing_, ampere_, sm90_xmma), CUTLASS,
 * Triton and PyTorch's at::native kernels.
 */
#include "predictor/tile.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>
#include <stdlib.h>

/* Case-insensitive strstr. */
static const char *find_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return hay;
	return NULL;
}

/* Parses "AxB" or "AxBxC" at p; returns the count of numbers read (0, 2, 3). */
static int parse_dims(const char *p, uint32_t *a, uint32_t *b, uint32_t *c)
{
	char *end;
	if (!isdigit((unsigned char)*p))
		return 0;
	unsigned long x = strtoul(p, &end, 10);
	if (*end != 'x' || !isdigit((unsigned char)end[1]))
		return 0;
	unsigned long y = strtoul(end + 1, &end, 10);
	*a = (uint32_t)x;
	*b = (uint32_t)y;
	if (*end == 'x' && isdigit((unsigned char)end[1])) {
		*c = (uint32_t)strtoul(end + 1, &end, 10);
		return 3;
	}
	return 2;
}

static int plausible(uint32_t v) { return v >= 8 && v <= 512; }

/* The architecture a cuBLAS/CUTLASS name was built for. */
static uint32_t name_arch(const char *name)
{
	static const struct { const char *prefix; uint32_t cc; } tab[] = {
		{"maxwell_", 50}, {"volta_", 70}, {"turing_", 75}, {"ampere_", 80},
		{"ada_", 89}, {"hopper_", 90}, {"sm90_", 90}, {"sm80_", 80},
		{"sm100_", 100}, {"sm75_", 75}, {"sm70_", 70},
	};
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
		const char *p = find_ci(name, tab[i].prefix);
		if (p && (p == name || !isalnum((unsigned char)p[-1])))
			return tab[i].cc;
	}
	const char *c = find_ci(name, "cutlass_");
	if (c && isdigit((unsigned char)c[8]))
		return (uint32_t)strtoul(c + 8, NULL, 10);
	return 0;
}

/* GEMM tiles: "tilesize128x128x32" first, then the dims after "gemm_" or
 * "cudnn_" (cuDNN's implicit-GEMM kernels, scudnn_128x32), then CUTLASS's
 * k-step and stages ("_32x3") and cuBLAS's "sliced1x4".
 *
 * t0 is the tile's side along the output's columns (n, the launch's grid
 * x), t1 along its rows (m, grid y), as the SGEMM names put them: a T4's
 * volta_sgemm_32x128_tn over 58 x 141 outputs launched 5 x 1 blocks.
 * cuBLASLt's GEMM kernels name theirs the other way round: on our H200
 * (data/NVIDIA_H200/kernels/gemm.csv) every one of its 108 FP32 GEMMs
 * with an sm80_xmma_gemm name, where the grid tells the two apart (79),
 * launched ceil(m / first) x ceil(n / second) blocks (bmm of 64 x 3072
 * outputs per batch with tilesize64x128x8: a 1 x 24 grid), none the
 * SGEMM way.  Their implicit-GEMM convolutions (xmma_fprop) name the
 * output pixels first, as cuDNN's scudnn_128x32 does (conv.c reads
 * those). */
static int gemm_tile(const char *name, struct tile_shape *t)
{
	uint32_t a = 0, b = 0, c = 0;
	const char *p = find_ci(name, "tilesize");
	if (p && parse_dims(p + 8, &a, &b, &c) >= 2 && plausible(a) && plausible(b)) {
		int rows_first = find_ci(name, "xmma_gemm") != NULL;
		t->t0 = rows_first ? b : a;
		t->t1 = rows_first ? a : b;
		t->tk = c;
		return 0;
	}
	static const char *const keys[] = {"gemm_", "cudnn_"};
	for (size_t i = 0; i < 2; i++) {
		for (p = find_ci(name, keys[i]); p; p = find_ci(p + 1, keys[i])) {
			/* The dims follow "gemm_" directly or after type tokens
			 * (turing_fp16_s1688gemm_fp16_256x128_ldg8_f2f_tn). */
			const char *q = p + strlen(keys[i]);
			int n = parse_dims(q, &a, &b, &c);
			while (n < 2 || !plausible(a) || !plausible(b)) {
				q = strchr(q, '_');
				if (!q)
					break;
				q++;
				n = parse_dims(q, &a, &b, &c);
			}
			if (!q)
				continue;
			t->t0 = a; t->t1 = b;
			if (n == 3) {
				t->tk = c;   /* sgemm_32x32x32 */
			} else {
				/* CUTLASS: gemm_256x128_32x3 -> k-step 32 */
				const char *r = strchr(q, '_');
				uint32_t kk, st, dummy;
				if (r && parse_dims(r + 1, &kk, &st, &dummy) == 2 && kk >= 8 && st <= 16)
					t->tk = kk;
			}
			const char *s = find_ci(q, "sliced");
			if (s && parse_dims(s + 6, &a, &b, &c) == 2)
				t->split = a * b;
			return 0;
		}
	}
	return -1;
}

int tile_from_name(const char *name, struct tile_shape *out)
{
	memset(out, 0, sizeof *out);
	out->split = 1;
	if (!name || !*name)
		return -1;
	out->arch = name_arch(name);
	if (find_ci(name, "triton_")) {
		if (find_ci(name, "triton_poi"))
			out->kind = TILE_ELEMENTWISE;
		else if (find_ci(name, "triton_red") || find_ci(name, "triton_per"))
			out->kind = TILE_ROW;
		else if (find_ci(name, "_mm") || find_ci(name, "bmm"))
			out->kind = TILE_GEMM;   /* Triton GEMMs carry no tile in the name */
		return out->kind ? 0 : -1;
	}
	if (find_ci(name, "gemm") || find_ci(name, "scudnn") || find_ci(name, "xmma")) {
		out->kind = TILE_GEMM;
		gemm_tile(name, out);
		return 0;
	}
	if (find_ci(name, "elementwise_kernel")) {
		out->kind = TILE_ELEMENTWISE;
		/* vectorized_elementwise_kernel<4, ...>: 4 elements per access;
		 * the unrolled and legacy kernels also handle 4 per thread. */
		const char *v = find_ci(name, "elementwise_kernel<");
		out->vec = 4;
		if (v && isdigit((unsigned char)v[19]))
			out->vec = (uint32_t)strtoul(v + 19, NULL, 10);
		return 0;
	}
	if (find_ci(name, "softmax") || find_ci(name, "layer_norm") ||
	    find_ci(name, "layernorm") || find_ci(name, "rms_norm") ||
	    find_ci(name, "reduce_kernel") || find_ci(name, "batch_norm")) {
		out->kind = TILE_ROW;
		return 0;
	}
	return -1;
}

static uint32_t pow2_at_least(double v)
{
	uint32_t p = 8;
	while (p < 256 && p < v)
		p <<= 1;
	return p;
}

int tile_from_launch(const struct pred_kernel *k, struct tile_shape *out)
{
	memset(out, 0, sizeof *out);
	out->split = 1;
	if (k->op != PRED_OP_GEMM || !k->grid[0] || !k->m || !k->n)
		return -1;
	/* cuBLAS's SGEMMs lay grid.x over the column-major output's first
	 * dimension (PyTorch's n) and grid.y over m; grid.z is the batch (or
	 * split-k).  cuBLASLt's xmma kernels lay grid.x over m (gemm_tile()
	 * says how that was seen), which is why no prediction infers a tile
	 * from a grid alone. */
	out->kind = TILE_GEMM;
	out->t0 = pow2_at_least((double)k->n / k->grid[0]);
	out->t1 = pow2_at_least((double)k->m / (k->grid[1] ? k->grid[1] : 1));
	return 0;
}

void tile_gemm_pick(const struct pred_kernel *k, const struct gpu_spec *target,
		    struct tile_shape *out)
{
	/* The rule cuBLAS's SGEMM heuristics follow in the data: the largest
	 * tile that still fills every SM once; small problems fall to small
	 * tiles. */
	static const uint32_t cand[][2] = {
		{128, 128}, {128, 64}, {64, 64}, {128, 32}, {32, 128}, {32, 32},
	};
	memset(out, 0, sizeof *out);
	out->kind = TILE_GEMM;
	out->split = 1;
	out->arch = target->cc;
	uint64_t b = k->batch ? k->batch : 1;
	size_t i, nc = sizeof cand / sizeof cand[0];
	for (i = 0; i < nc; i++) {
		uint64_t blocks = b * ((k->n + cand[i][0] - 1) / cand[i][0]) *
				  ((k->m + cand[i][1] - 1) / cand[i][1]);
		if (blocks >= target->sms)
			break;
	}
	if (i == nc)
		i = nc - 1;
	out->t0 = cand[i][0];
	out->t1 = cand[i][1];
}
