/*
 * mlp.c - the small fully connected network of mlp.h.
 *
 * Layout: layer l maps n[l] inputs to n[l+1] outputs with W[l] (row-major,
 * n[l+1] x n[l]) and b[l]; ReLU after every layer but the last.  All weights
 * live in one array so that Adam and the blob format walk them linearly.
 * Blob: "SMLP" magic, u32 version 1, u32 nlayers, u32 sizes[nlayers+1],
 * float32 mean[in], sd[in], then every W[l] and b[l], all little-endian.
 */
#include "predictor/mlp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct mlp {
	unsigned nl;                         /* weight layers                 */
	unsigned n[MLP_MAX_LAYERS + 1];      /* sizes                         */
	size_t woff[MLP_MAX_LAYERS];         /* offset of W[l] in w           */
	size_t boff[MLP_MAX_LAYERS];         /* offset of b[l] in w           */
	size_t nw;                           /* parameters                    */
	double *w, *g, *am, *av;             /* weights, gradient, Adam moments */
	double mean[MLP_MAX_WIDTH], sd[MLP_MAX_WIDTH];
	double act[MLP_MAX_LAYERS + 1][MLP_MAX_WIDTH]; /* kept by train_forward */
	unsigned long steps;                 /* Adam steps taken              */
};

/* splitmix64: a small, well-mixed generator; the seed fixes the network. */
static uint64_t mix_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double mix_uniform(uint64_t *s)
{
	return (double)(mix_next(s) >> 11) / 9007199254740992.0; /* [0,1) */
}

static struct mlp *alloc_net(const unsigned *sizes, unsigned nlayers)
{
	if (nlayers < 1 || nlayers > MLP_MAX_LAYERS)
		return NULL;
	for (unsigned l = 0; l <= nlayers; l++)
		if (sizes[l] < 1 || sizes[l] > MLP_MAX_WIDTH)
			return NULL;
	struct mlp *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->nl = nlayers;
	memcpy(m->n, sizes, (nlayers + 1) * sizeof *sizes);
	for (unsigned l = 0; l < nlayers; l++) {
		m->woff[l] = m->nw;
		m->nw += (size_t)sizes[l] * sizes[l + 1];
		m->boff[l] = m->nw;
		m->nw += sizes[l + 1];
	}
	m->w = calloc(m->nw, sizeof *m->w);
	m->g = calloc(m->nw, sizeof *m->g);
	m->am = calloc(m->nw, sizeof *m->am);
	m->av = calloc(m->nw, sizeof *m->av);
	if (!m->w || !m->g || !m->am || !m->av) {
		mlp_free(m);
		return NULL;
	}
	for (unsigned i = 0; i < sizes[0]; i++)
		m->sd[i] = 1.0;
	return m;
}

struct mlp *mlp_new(const unsigned *sizes, unsigned nlayers, uint64_t seed)
{
	struct mlp *m = alloc_net(sizes, nlayers);
	if (!m)
		return NULL;
	uint64_t s = seed;
	for (unsigned l = 0; l < nlayers; l++) {
		/* He initialisation (He et al. 2015) for ReLU layers: variance
		 * 2/fan_in, drawn uniform in +-sqrt(6/fan_in). */
		double lim = sqrt(6.0 / m->n[l]);
		size_t cnt = (size_t)m->n[l] * m->n[l + 1];
		for (size_t i = 0; i < cnt; i++)
			m->w[m->woff[l] + i] = (2.0 * mix_uniform(&s) - 1.0) * lim;
	}
	return m;
}

void mlp_free(struct mlp *m)
{
	if (!m)
		return;
	free(m->w);
	free(m->g);
	free(m->am);
	free(m->av);
	free(m);
}

unsigned mlp_inputs(const struct mlp *m) { return m->n[0]; }
unsigned mlp_outputs(const struct mlp *m) { return m->n[m->nl]; }

void mlp_set_norm(struct mlp *m, const double *mean, const double *sd)
{
	for (unsigned i = 0; i < m->n[0]; i++) {
		m->mean[i] = mean[i];
		m->sd[i] = sd[i] > 0 ? sd[i] : 1.0;
	}
}

/* Runs the network, writing every layer's activations into act[0..nl]. */
static void run(const struct mlp *m, const double *x,
		double act[][MLP_MAX_WIDTH])
{
	for (unsigned i = 0; i < m->n[0]; i++)
		act[0][i] = (x[i] - m->mean[i]) / m->sd[i];
	for (unsigned l = 0; l < m->nl; l++) {
		const double *W = m->w + m->woff[l], *b = m->w + m->boff[l];
		unsigned ni = m->n[l], no = m->n[l + 1];
		for (unsigned o = 0; o < no; o++) {
			double s = b[o];
			const double *row = W + (size_t)o * ni;
			for (unsigned i = 0; i < ni; i++)
				s += row[i] * act[l][i];
			act[l + 1][o] = (l + 1 < m->nl && s < 0) ? 0 : s;
		}
	}
}

void mlp_forward(const struct mlp *m, const double *x, double *y)
{
	double a[2][MLP_MAX_WIDTH];
	const double *in = NULL;
	/* Two alternating buffers: inference needs no stored activations. */
	for (unsigned i = 0; i < m->n[0]; i++)
		a[0][i] = (x[i] - m->mean[i]) / m->sd[i];
	in = a[0];
	for (unsigned l = 0; l < m->nl; l++) {
		double *out = a[(l + 1) & 1];
		const double *W = m->w + m->woff[l], *b = m->w + m->boff[l];
		unsigned ni = m->n[l], no = m->n[l + 1];
		for (unsigned o = 0; o < no; o++) {
			double s = b[o];
			const double *row = W + (size_t)o * ni;
			for (unsigned i = 0; i < ni; i++)
				s += row[i] * in[i];
			out[o] = (l + 1 < m->nl && s < 0) ? 0 : s;
		}
		in = out;
	}
	memcpy(y, in, m->n[m->nl] * sizeof *y);
}

void mlp_train_forward(struct mlp *m, const double *x, double *y)
{
	run(m, x, m->act);
	memcpy(y, m->act[m->nl], m->n[m->nl] * sizeof *y);
}

void mlp_backward(struct mlp *m, const double *dy)
{
	double d[2][MLP_MAX_WIDTH];
	double *cur = d[0], *prev = d[1];
	memcpy(cur, dy, m->n[m->nl] * sizeof *dy);
	for (unsigned l = m->nl; l-- > 0;) {
		unsigned ni = m->n[l], no = m->n[l + 1];
		const double *W = m->w + m->woff[l];
		double *gW = m->g + m->woff[l], *gb = m->g + m->boff[l];
		const double *in = m->act[l];
		for (unsigned i = 0; i < ni; i++)
			prev[i] = 0;
		for (unsigned o = 0; o < no; o++) {
			double go = cur[o];
			if (go == 0)
				continue;
			gb[o] += go;
			double *grow = gW + (size_t)o * ni;
			const double *row = W + (size_t)o * ni;
			for (unsigned i = 0; i < ni; i++) {
				grow[i] += go * in[i];
				prev[i] += go * row[i];
			}
		}
		/* ReLU of the layer below: gradient passes where it was > 0. */
		if (l > 0)
			for (unsigned i = 0; i < ni; i++)
				if (in[i] <= 0)
					prev[i] = 0;
		double *t = cur; cur = prev; prev = t;
	}
}

void mlp_adam_step(struct mlp *m, double lr, unsigned count)
{
	const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
	if (count == 0)
		return;
	m->steps++;
	double c1 = 1.0 - pow(b1, (double)m->steps);
	double c2 = 1.0 - pow(b2, (double)m->steps);
	for (size_t i = 0; i < m->nw; i++) {
		double g = m->g[i] / count;
		m->am[i] = b1 * m->am[i] + (1 - b1) * g;
		m->av[i] = b2 * m->av[i] + (1 - b2) * g * g;
		m->w[i] -= lr * (m->am[i] / c1) / (sqrt(m->av[i] / c2) + eps);
		m->g[i] = 0;
	}
}

/* ---- blob format --------------------------------------------------- */

static void put_u32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff; p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff; p[3] = (v >> 24) & 0xff;
}

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void put_f32(unsigned char *p, double v)
{
	float f = (float)v;
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	put_u32(p, u);
}

static double get_f32(const unsigned char *p)
{
	uint32_t u = get_u32(p);
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

int mlp_save(const struct mlp *m, unsigned char **out, size_t *len)
{
	size_t n = 12 + 4 * (size_t)(m->nl + 1) + 8 * (size_t)m->n[0] + 4 * m->nw;
	unsigned char *p = malloc(n), *q = p;
	if (!p)
		return -1;
	memcpy(q, "SMLP", 4); q += 4;
	put_u32(q, 1); q += 4;
	put_u32(q, m->nl); q += 4;
	for (unsigned l = 0; l <= m->nl; l++, q += 4)
		put_u32(q, m->n[l]);
	for (unsigned i = 0; i < m->n[0]; i++, q += 4)
		put_f32(q, m->mean[i]);
	for (unsigned i = 0; i < m->n[0]; i++, q += 4)
		put_f32(q, m->sd[i]);
	for (size_t i = 0; i < m->nw; i++, q += 4)
		put_f32(q, m->w[i]);
	*out = p;
	*len = n;
	return 0;
}

int mlp_load(const unsigned char *blob, size_t len, struct mlp **out, size_t *used)
{
	unsigned sizes[MLP_MAX_LAYERS + 1];
	if (len < 12 || memcmp(blob, "SMLP", 4) != 0 || get_u32(blob + 4) != 1)
		return -1;
	uint32_t nl = get_u32(blob + 8);
	if (nl < 1 || nl > MLP_MAX_LAYERS || len < 12 + 4 * (size_t)(nl + 1))
		return -1;
	for (unsigned l = 0; l <= nl; l++)
		sizes[l] = get_u32(blob + 12 + 4 * l);
	struct mlp *m = alloc_net(sizes, nl);
	if (!m)
		return -1;
	size_t need = 12 + 4 * (size_t)(nl + 1) + 8 * (size_t)m->n[0] + 4 * m->nw;
	if (len < need) {
		mlp_free(m);
		return -1;
	}
	const unsigned char *q = blob + 12 + 4 * (nl + 1);
	for (unsigned i = 0; i < m->n[0]; i++, q += 4)
		m->mean[i] = get_f32(q);
	for (unsigned i = 0; i < m->n[0]; i++, q += 4) {
		m->sd[i] = get_f32(q);
		if (!(m->sd[i] > 0) || !isfinite(m->sd[i]))
			m->sd[i] = 1.0;
	}
	for (size_t i = 0; i < m->nw; i++, q += 4) {
		m->w[i] = get_f32(q);
		if (!isfinite(m->w[i])) {
			mlp_free(m);
			return -1;
		}
	}
	*out = m;
	*used = need;
	return 0;
}
