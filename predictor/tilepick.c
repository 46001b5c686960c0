/*
 * tilepick.c - which SGEMM tile a GPU's library picks for a GEMM shape,
 * learnt from what cuBLAS did on the GPUs of the training data.
 *
 * cuBLAS's heuristics differ by architecture far more than by shape: in
 * NeuSight's data the A100 runs 99.6% of its batched GEMMs with
 * ampere_sgemm_128x128, the P100 and P4 all of theirs with 128x64, the V100
 * and T4 mix 64x64, 32x128 and 128x32.  No rule of the shape alone follows
 * all of them, and the tile decides the waves and the wasted work the model
 * sees.  So surfer-train records, per training GPU, the tile the library
 * picked in each shape cell (octaves of the output's rows and columns,
 * of the reduction and of the batch; the most frequent tile of the cell), and a prediction for a GPU uses that GPU's table, or the
 * table of a training GPU of its architecture (an A100 80GB uses the A100
 * 40GB's picks), or of one of our own GPUs (the tables marked own: an
 * H800 uses our H100's); a GPU of a new architecture (an L4) gets the
 * canonical rule of tiles.c (table_for() says why).
 */
#include "predictor/tile.h"

#include "gpu_specs/figures.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A cell further than this (octaves of m, n, k and batch, summed) from
 * every recorded one falls back to tile_gemm_pick(). */
#define PICK_MAX_DIST 4

static uint32_t clampu(long v, uint32_t max)
{
	return v < 0 ? 0 : v > (long)max ? max : (uint32_t)v;
}

uint32_t tile_pick_key(const struct pred_kernel *k)
{
	uint64_t b = k->batch ? k->batch : 1;
	uint32_t batched = b > 1;
	uint32_t lm = clampu(lround(log2((double)(k->m ? k->m : 1))), 63);
	uint32_t ln = clampu(lround(log2((double)(k->n ? k->n : 1))), 63);
	uint32_t lk = clampu(lround(log2((double)(k->k ? k->k : 1))), 31);
	uint32_t lb = batched ? clampu(lround(log2((double)b)), 31) : 0;
	return batched << 22 | lm << 16 | ln << 10 | lk << 5 | lb;
}

static unsigned ilog2u(uint32_t v)
{
	unsigned r = 0;
	while (v > 1) {
		v >>= 1;
		r++;
	}
	return r;
}

uint32_t tile_pick_code(const struct tile_shape *t)
{
	/* log2 of each side (8..512 -> 3..9) and the split (1..8). */
	uint32_t s = t->split ? t->split : 1;
	return (ilog2u(t->t0) & 7) | (ilog2u(t->t1) & 7) << 3 | (ilog2u(s) & 7) << 6;
}

static void code_tile(uint32_t code, const struct gpu_spec *g, struct tile_shape *t)
{
	memset(t, 0, sizeof *t);
	t->kind = TILE_GEMM;
	t->t0 = 1u << (code & 7);
	t->t1 = 1u << (code >> 3 & 7);
	t->split = 1u << (code >> 6 & 7);
	t->arch = g->cc;
}

static unsigned absd(uint32_t a, uint32_t b) { return a > b ? a - b : b - a; }

static unsigned key_dist(uint32_t a, uint32_t b)
{
	if ((a >> 22) != (b >> 22))
		return ~0u;
	return absd(a >> 16 & 63, b >> 16 & 63) + absd(a >> 10 & 63, b >> 10 & 63) +
	       absd(a >> 5 & 31, b >> 5 & 31) + absd(a & 31, b & 31);
}

/* The table whose GPU's library picks as g's does: g's own, else that of
 * a board of g's architecture (the same compute capability: an A100 80GB
 * uses the A100 PCIe 40GB's).  None for a new architecture, which takes
 * the canonical rule (tile_gemm_pick()): cuBLAS's heuristics change from
 * one architecture to the next (sm_61's P4 runs its models' aligned
 * GEMMs with sgemm_128x128x8 where sm_60's P100 uses maxwell_sgemm_32x128
 * for the same shapes), and another architecture's table is no better a
 * guess than the rule.  Held out (each architecture predicted by a model
 * trained without it; NeuSight's test shapes, linear and bmm, MAPE over
 * the other GPUs as origins / from the shape), the nearest architecture's
 * table against the rule: P4 110.2 / 106.9% -> 45.9 / 44.0% (median
 * predicted / measured from the shape x2.16 -> x1.49: the P100's narrow
 * tiles made it slow; what is left is its power cap), P100 28.6 / 15.2
 * -> 29.4 / 16.2%, T4 24.1 / 18.5 -> 22.7 / 17.9%, V100 21.9 / 10.7 -> 21.2 / 9.6%,
 * A100 20.9 / 11.2 -> 19.8 / 7.6%; NeuSight's 40 iterations 5.4 -> 5.6%
 * (the P100, fast already, 1-6 points faster on every configuration: 4.1
 * -> 7.1%; T4 8.6 -> 7.5, A100 4.3 -> 4.5, V100 3.6 -> 3.5, P4 14.9 ->
 * 14.7%).  None for an AMD GPU either: rocBLAS's tiles have nothing to do
 * with cuBLAS's. */
static const struct tile_pick_table *table_for(const struct tile_picks *p,
					       const struct gpu_spec *g)
{
	const struct tile_pick_table *same_arch = NULL;
	if (!p || gpu_cc_is_amd(g->cc))
		return NULL;
	/* The picks of our own GPUs (own: recorded from their kernel names,
	 * not trained on) are figures measured by us: not there for the
	 * architecture a bench holds out (gpu_figures_held_out()). */
	uint32_t held = gpu_figures_held_out();
	for (int i = 0; i < p->n; i++) {
		const struct gpu_spec *h = p->t[i].gpu;
		if (p->t[i].own && held && h->cc == held)
			continue;
		if (h == g)
			return &p->t[i];
		if (!same_arch && h->cc == g->cc)
			same_arch = &p->t[i];
	}
	return same_arch;
}

const struct gpu_spec *tile_pick_source(const struct tile_model *m, const struct gpu_spec *g)
{
	const struct tile_pick_table *t = g ? table_for(tile_model_picks(m), g) : NULL;
	return t ? t->gpu : NULL;
}

int tile_pick_lookup(const struct tile_model *m, const struct pred_kernel *k,
		     const struct gpu_spec *g, struct tile_shape *out)
{
	const struct tile_pick_table *t = g ? table_for(tile_model_picks(m), g) : NULL;
	if (!t || !t->n)
		return -1;
	uint32_t key = tile_pick_key(k);
	/* exact cell: binary search */
	uint32_t lo = 0, hi = t->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if ((t->e[mid] >> 9) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->n && (t->e[lo] >> 9) == key) {
		code_tile(t->e[lo] & 511, g, out);
		return 0;
	}
	/* nearest recorded cell */
	unsigned bd = ~0u;
	uint32_t bcode = 0;
	for (uint32_t i = 0; i < t->n; i++) {
		unsigned d = key_dist(key, t->e[i] >> 9);
		if (d < bd) {
			bd = d;
			bcode = t->e[i] & 511;
		}
	}
	if (bd > PICK_MAX_DIST)
		return -1;
	code_tile(bcode, g, out);
	return 0;
}

void tile_picks_release(struct tile_picks *p)
{
	for (int i = 0; i < p->n; i++)
		free(p->t[i].e);
	memset(p, 0, sizeof *p);
}

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

int tile_picks_parse(struct tile_picks *out, const unsigned char *p, size_t len, int own,
		     size_t *used)
{
	struct tile_pick_table fresh[TILE_PICK_MAXGPU];
	int nf = 0;
	size_t off = 4;
	memset(fresh, 0, sizeof fresh);
	if (len < 4)
		return -1;
	uint32_t count = rd32(p);
	if (count > TILE_PICK_MAXGPU)
		return -1;
	for (uint32_t i = 0; i < count; i++) {
		char id[64];
		if (len - off < 4)
			goto bad;
		uint32_t nl = rd32(p + off);
		off += 4;
		if (nl == 0 || nl >= sizeof id || len - off < nl + 4)
			goto bad;
		memcpy(id, p + off, nl);
		id[nl] = 0;
		off += nl;
		uint32_t n = rd32(p + off);
		off += 4;
		if (n > (len - off) / 4)
			goto bad;
		const struct gpu_spec *g = gpu_find(id);
		uint32_t *e = n ? malloc(n * sizeof *e) : NULL;
		if (n && !e)
			goto bad;
		for (uint32_t j = 0; j < n; j++) {
			e[j] = rd32(p + off + 4 * j);
			if (j && (e[j] >> 9) <= (e[j - 1] >> 9)) {
				free(e);
				goto bad;     /* keys must be sorted and distinct */
			}
		}
		off += 4 * (size_t)n;
		if (!g) {             /* a GPU this build does not know */
			free(e);
			continue;
		}
		if (out->n + nf == TILE_PICK_MAXGPU) {
			free(e);
			goto bad;
		}
		fresh[nf].gpu = g;
		fresh[nf].n = n;
		fresh[nf].e = e;
		fresh[nf].own = own != 0;
		nf++;
	}
	memcpy(out->t + out->n, fresh, (size_t)nf * sizeof fresh[0]);
	out->n += nf;
	*used = off;
	return 0;
bad:
	for (int i = 0; i < nf; i++)
		free(fresh[i].e);
	return -1;
}
