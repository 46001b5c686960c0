/*
 * bench_conv.c - `surfer-bench conv`: the convolution model (predictor/
 * conv.c) on NeuSight's FP32 convolution sweep, each GPU's whole
 * architecture held out in turn: the constants fitted on the GPUs of the
 * other architectures, then every shape measured on the held-out GPU
 * predicted from each other GPU's time, against the FLOP/s ratio and the
 * roofline ratio, per pair, per held-out architecture and per (origin's,
 * target's) algorithm; --emit fits on every GPU and prints conv_params.c.
 */
#include "tools/lab/bench_conv.h"
#include "tools/lab/neusight.h"
#include "trace/surfer_err.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_specs/figures.h"
#include "predictor/conv.h"
#include "predictor/power.h"
#include "predictor/roofline.h"

#define PROG "surfer-bench"
#define CB_MAXGPU 16

static void cb_usage(FILE *f)
{
	fprintf(f, "usage: " PROG " conv --data PATH [--target GPU] [--origin GPU] [--emit [--gpu GPU]]\n"
		   "       [--dump FILE.csv]\n"
		   "  held-out MAPE of the convolution model on NeuSight-layout convolution\n"
		   "  rows under PATH (each GPU's architecture left out of the fit, the GPU\n"
		   "  predicted from every other one's time through conv_predict()) vs the\n"
		   "  FLOP/s and roofline ratios, the pull toward the shape and auto through\n"
		   "  predict_kernel(), the model from the shape alone, the mean per held-out\n"
		   "  architecture and the error by (origin's, target's) algorithm; --emit\n"
		   "  fits on every GPU and prints predictor/conv_params.c; --dump writes\n"
		   "  every held-out prediction as CSV; --target holds out that GPU's\n"
		   "  architecture only; --origin GPU: that GPU's rows are an origin only\n"
		   "  (in no fit, never a target), every target predicted from it alone;\n"
		   "  --emit --gpu GPU fits the shape constants on that GPU's rows alone and\n"
		   "  prints them (conv_params.c's conv_sm90_shape); --emit-picks --gpu GPU\n"
		   "  prints that GPU's table of cuDNN's picks and each kind's constants\n"
		   "  fitted on its rows (predictor/conv_sm90_picks.c)\n");
}

/* The training samples: every conv shape measured on two GPUs whose
 * compute capability is not cc_out (0: all), neither of them skip, each
 * way round; with
 * target_algo, each side with the algorithm and tile its own kernel
 * shows.  *out is malloc'd; returns the count, or -1 (memory). */
static long cb_samples(const struct ns_set *set, const struct gpu_spec *const *gpus, size_t ng,
		       uint32_t cc_out, const struct gpu_spec *skip, int target_algo,
		       struct conv_sample **out)
{
	size_t n = 0, cap = 0;
	*out = NULL;
	for (size_t a = 0; a < ng; a++)
		for (size_t b = 0; b < ng; b++) {
			struct ns_pair *pairs;
			size_t np;
			if (a == b || gpus[a]->cc == cc_out || gpus[b]->cc == cc_out ||
			    gpus[a] == skip || gpus[b] == skip)
				continue;
			if (ns_pairs(set, gpus[a], gpus[b], "conv", &pairs, &np) != 0)
				return -1;
			if (n + np > cap) {
				cap = (n + np) * 2;
				struct conv_sample *ns = realloc(*out, cap * sizeof(*ns));
				if (!ns) {
					free(pairs);
					return -1;
				}
				*out = ns;
			}
			for (size_t i = 0; i < np; i++) {
				struct conv_sample *x = &(*out)[n];
				struct pred_kernel kt;
				if (ns_kernel(pairs[i].origin, 1, &x->k) != 0)
					continue;
				x->target_name = NULL;
				if (target_algo && ns_kernel(pairs[i].target, 1, &kt) == 0)
					x->target_name = kt.name;
				x->origin = gpus[a];
				x->target = gpus[b];
				x->ns = pairs[i].target->latency_ms * 1e6;
				n++;
			}
			free(pairs);
		}
	return (long)n;
}

/* The samples of the shape efficiency: every conv row of a GPU whose
 * compute capability is not cc_out (0: all), skip's none (or, with only,
 * only's alone), as a config gives it (no name, no grid).  *out is
 * malloc'd; returns the count, or -1 (memory). */
static long cb_shape_samples(const struct ns_set *set, uint32_t cc_out, const struct gpu_spec *skip,
			     const struct gpu_spec *only, struct conv_sample **out)
{
	size_t n = 0;
	*out = calloc(set->n ? set->n : 1, sizeof(**out));
	if (!*out)
		return -1;
	for (size_t i = 0; i < set->n; i++) {
		const struct ns_row *r = &set->rows[i];
		struct conv_sample *x = &(*out)[n];
		if (!r->gpu || r->gpu->cc == cc_out || r->gpu == skip || (only && r->gpu != only) ||
		    ns_op_class(r->op) != PRED_OP_CONV || ns_kernel(r, 0, &x->k) != 0 ||
		    !(r->latency_ms > 0))
			continue;
		x->target = r->gpu;
		x->ns = r->latency_ms * 1e6;
		n++;
	}
	return (long)n;
}

/* Fits every constant on the GPUs whose compute capability is not cc_out
 * (0: all), skip left out, starting from *p: the ratio's (conv_fit()), then the shape's
 * on absolute times (conv_fit_shape()), then the pull between them
 * (conv_fit_pull()).  The pairs fitted into *npairs, the shape samples into
 * *nshape, the RMS log errors into rms[3] (any may be NULL).  0 or a
 * negative errno. */
static int cb_fit(const struct ns_set *set, const struct gpu_spec *const *gpus, size_t ng,
		  uint32_t cc_out, const struct gpu_spec *skip, struct conv_params *p, long *npairs,
		  long *nshape, double *rms)
{
	struct conv_sample *buf, *sb;
	double r[3] = {0, 0, 0};
	long n = cb_samples(set, gpus, ng, cc_out, skip, 0, &buf), ns = 0;
	int rc = n < 0 ? -ENOMEM : conv_fit(buf, (size_t)n, p, &r[0]);
	if (rc == 0) {
		ns = cb_shape_samples(set, cc_out, skip, NULL, &sb);
		rc = ns < 0 ? -ENOMEM : conv_fit_shape(sb, (size_t)ns, p, &r[1]);
		free(sb);
	}
	if (rc == 0)
		rc = conv_fit_pull(buf, (size_t)n, p, &r[2]);
	free(buf);
	if (npairs)
		*npairs = n;
	if (nshape)
		*nshape = ns;
	if (rms)
		memcpy(rms, r, sizeof r);
	return rc;
}

static void cb_print_params(const struct conv_params *p)
{
	printf("const struct conv_params conv_default_params = {\n\t.eff = {");
	for (int a = 0; a < CONV_ALGO_COUNT; a++)
		printf("%s[CONV_ALGO_%s] = %.4f", a ? ", " : "",
		       (const char *[]){"IGEMM", "GEMM", "WINOGRAD", "WINOGRAD_NF", "FFT"}[a],
		       p->eff[a]);
	printf("},\n\t.shape_eff = %.4f,\n\t.shape_ramp_flop = %.1f,\n\t.shape_pad_pow = %.4f,\n"
	       "\t.shape_bw_eff = %.4f,\n\t.shape_red_steps = %.1f,\n\t.shape_floor_ns = %.1f,\n"
	       "\t.shape_wino_eff = %.4f,\n\t.shape_wino_steps = %.1f,\n\t.shape_softmin = %.3f,\n"
	       "\t.shape_pull = %.2f,\n\t.shape_cap_pow = %.0f,\n\t.shape_cap = %.2f,\n"
	       "\t.wave_pow = %.4f,\n\t.bw_eff = %.4f,\n\t.overlap_pow = %.4f,\n"
	       "\t.smem_pow = %.4f,\n", p->shape_eff,
	       p->shape_ramp_flop, p->shape_pad_pow, p->shape_bw_eff, p->shape_red_steps,
	       p->shape_floor_ns, p->shape_wino_eff, p->shape_wino_steps, p->shape_softmin,
	       p->shape_pull, p->shape_cap_pow, p->shape_cap, p->wave_pow, p->bw_eff, p->overlap_pow,
	       p->smem_pow);
	if (p->power_pj16 == POWER_FMA_PJ16)
		printf("\t.power_pj16 = POWER_FMA_PJ16,\n");
	else
		printf("\t.power_pj16 = %.3f,\n", p->power_pj16);
	printf("\t.boost_ns = %.1f,\n\t.floor_ns = %.1f,\n};\n", p->boost_ns, p->floor_ns);
}

/* The shape constants of p, as conv_params.c's conv_sm90_shape. */
static void cb_print_shape(const struct conv_params *p)
{
	printf("const struct conv_shape conv_sm90_shape = {\n\t.eff = %.4f,\n\t.ramp_flop = %.1f,\n"
	       "\t.pad_pow = %.4f,\n\t.bw_eff = %.4f,\n\t.red_steps = %.1f,\n\t.floor_ns = %.1f,\n"
	       "\t.wino_eff = %.4f,\n\t.wino_steps = %.1f,\n\t.softmin = %.3f,\n};\n",
	       p->shape_eff, p->shape_ramp_flop, p->shape_pad_pow, p->shape_bw_eff, p->shape_red_steps,
	       p->shape_floor_ns, p->shape_wino_eff, p->shape_wino_steps, p->shape_softmin);
}

/* --emit --gpu: the shape constants fitted on g's rows alone, from the
 * compiled-in ones (conv_fit_shape()).  0 or a negative errno. */
static int cb_emit_shape(const struct ns_set *set, const struct gpu_spec *g)
{
	struct conv_sample *sb;
	struct conv_params p = conv_default_params;
	double rms = 0;
	long n = cb_shape_samples(set, 0, NULL, g, &sb);
	if (n < 0)
		return -ENOMEM;
	/* no Winograd term where g's cuDNN runs none */
	if (!conv_has_winograd(g)) {
		for (long i = 0; i < n; i++)
			memset(&sb[i].k.conv, 0, sizeof(sb[i].k.conv));
		p.shape_wino_eff = p.shape_wino_steps = p.shape_softmin = 0;
	}
	int rc = conv_fit_shape(sb, (size_t)n, &p, &rms);
	free(sb);
	if (rc == 0) {
		printf("/* %ld convolutions of %s, weighted RMS of log error %.3f */\n", n, g->id, rms);
		cb_print_shape(&p);
	}
	return rc;
}

/* The pick table and the kinds' constants of the n rows sb[i] (kind[i]
 * the kernel cuDNN ran) whose index has the parity part (-1: every row):
 * rows[] filled, out pointing at it, per[] and rms[] each kind's count and
 * fit.  0 or a negative errno. */
static int cb_picks_fit(const struct conv_sample *sb, const int *kind, size_t n, int part,
			struct conv_pick_row *rows, struct conv_picks *out, size_t *per, double *rms)
{
	struct conv_sample *byk = calloc(n ? n : 1, sizeof(*byk));
	size_t nr = 0;
	int rc = byk ? 0 : -ENOMEM;
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < n; i++)
		if (part < 0 || (int)(i % 2) == part)
			rows[nr++] = (struct conv_pick_row){(uint32_t)sb[i].k.m, (uint32_t)sb[i].k.n,
							    (uint32_t)sb[i].k.k, sb[i].k.conv.q,
							    (uint8_t)kind[i]};
	/* each kind's samples together, in the order read */
	for (int c = 0; c < CONV_KIND_COUNT && rc == 0; c++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (kind[i] == c && (part < 0 || (int)(i % 2) == part))
				byk[m++] = sb[i];
		per[c] = m;
		/* a kind the GPU never ran: no rows vote for it, no constants */
		rms[c] = NAN;
		if (m)
			rc = conv_kind_fit(byk, m, (enum conv_kind)c, &out->kind[c], &rms[c]);
	}
	out->rows = rows;
	out->n = nr;
	free(byk);
	return rc;
}

/* The mean absolute error in % of the rows of parity part predicted from
 * t: the kind it votes for, timed with that kind's constants and the
 * floor. */
static double cb_picks_mape(const struct conv_sample *sb, size_t n, int part,
			    const struct conv_picks *t)
{
	double sum = 0;
	size_t m = 0;
	for (size_t i = (size_t)part; i < n; i += 2) {
		int c = conv_pick_kind(t, &sb[i].k);
		double p = c < 0 ? -1 : conv_kind_ns(&sb[i].k, sb[i].target, (enum conv_kind)c,
						     &t->kind[c], 1, NULL);
		if (p > 0) {
			sum += fabs(p / sb[i].ns - 1) * 100;
			m++;
		}
	}
	return m ? sum / (double)m : NAN;
}

/* --emit-picks --gpu: g's pick table (each forward 3 x 3 unit-stride row
 * with the kind cuDNN ran, conv_kind_of()) and each kind's constants
 * fitted on its rows (conv_kind_fit()), printed as conv_sm90_picks.c,
 * with the two-fold check of both (the even rows' table and constants
 * predicting the odd rows, and the reverse) in its comment.  0, 1 when g
 * ran fewer than two such convolutions (said on stderr), or a negative
 * errno. */
static int cb_emit_picks(const struct ns_set *set, const struct gpu_spec *g)
{
	struct conv_sample *sb = calloc(set->n ? set->n : 1, sizeof(*sb));
	int *kind = calloc(set->n ? set->n : 1, sizeof(*kind));
	struct conv_pick_row *rows = calloc(set->n ? set->n : 1, sizeof(*rows));
	struct conv_pick_row *half = calloc(set->n ? set->n : 1, sizeof(*half));
	struct conv_picks all, t;
	double rms[CONV_KIND_COUNT], hrms[CONV_KIND_COUNT], fold[2] = {NAN, NAN};
	size_t n = 0, per[CONV_KIND_COUNT] = {0}, hper[CONV_KIND_COUNT], skipped = 0;
	int rc = sb && kind && rows && half ? 0 : -ENOMEM;
	for (size_t i = 0; i < set->n && rc == 0; i++) {
		const struct ns_row *r = &set->rows[i];
		if (r->gpu != g || ns_op_class(r->op) != PRED_OP_CONV || ns_kernel(r, 0, &sb[n].k) != 0 ||
		    !(r->latency_ms > 0))
			continue;
		int c = conv_kind_of(r->kname, r->kernels);
		if (c < 0 || sb[n].k.conv.r != 3 || !sb[n].k.conv.unit) {
			skipped++;
			continue;
		}
		sb[n].target = g;
		sb[n].ns = r->latency_ms * 1e6;
		kind[n++] = c;
	}
	if (rc == 0 && n < 2) {
		fprintf(stderr, PROG ": conv: %s ran %s of the kernels --emit-picks knows (cuDNN 9's "
				"FP32 implicit GEMMs and FFTs, conv_kind_of())\n",
			g->id, n ? "only one convolution with one" : "no convolution with any");
		rc = 1;
	}
	if (rc == 0)
		rc = cb_picks_fit(sb, kind, n, -1, rows, &all, per, rms);
	for (int part = 0; part < 2 && rc == 0; part++) {
		rc = cb_picks_fit(sb, kind, n, part, half, &t, hper, hrms);
		if (rc == 0)
			fold[part] = cb_picks_mape(sb, n, 1 - part, &t);
	}
	if (rc == 0) {
		printf("/*\n * conv_sm90_picks.c - generated: cuDNN's picks on %s (%s), %zu forward\n"
		       " * 3 x 3 convolutions (%zu others of no kind left out), and each kind's\n"
		       " * constants fitted on its rows (predictor/conv_pick.c).  Reproduce: a\n"
		       " * folder DIR holding only our measured conv.csv of that GPU\n"
		       " * (data/<GPU>/kernels/conv.csv), then\n *\n"
		       " *   build/surfer-bench conv --data DIR --emit-picks --gpu %s\n *\n"
		       " * The kinds' fits, RMS of log error:\n",
		       g->id, g->name, n, skipped, g->id);
		for (int c = 0; c < CONV_KIND_COUNT; c++)
			printf(" *   %-27s %4zu rows  %.3f\n", conv_kind_name((enum conv_kind)c), per[c],
			       rms[c]);
		printf(" * Two-fold, table and constants of the even rows predicting the odd\n"
		       " * rows and the reverse (the vote, then the kind's time): %.1f / %.1f %%\n",
		       fold[0], fold[1]);
		printf(" */\n#include \"predictor/conv.h\"\n\n"
		       "static const struct conv_pick_row rows[] = {\n");
		for (size_t i = 0; i < n; i++)
			printf("\t{%u, %u, %u, %u, %u},\n", rows[i].m, rows[i].n, rows[i].k, rows[i].q,
			       rows[i].kind);
		printf("};\n\nconst struct conv_picks conv_sm90_picks = {\n\t.rows = rows,\n"
		       "\t.n = sizeof rows / sizeof rows[0],\n\t.kind = {\n");
		static const char *const cname[CONV_KIND_COUNT] = {
			"IG_32X32", "IG_32X32_INDEXED", "IG_128X32", "IG_256X64", "FFT_16", "FFT_32",
			"FFT_64", "FFT_64_PER_FREQ"};
		for (int c = 0; c < CONV_KIND_COUNT; c++) {
			const struct conv_kind_params *kp = &all.kind[c];
			printf("\t\t[CONV_KIND_%s] = {.eff = %.4f, .steps = %.1f, .blocks = %.0f, "
			       ".overlap_pow = %.3f, .mem_x = %.4f, .launch_ns = %.1f, .floor_ns = %.1f},\n",
			       cname[c], kp->eff, kp->steps, kp->blocks, kp->overlap_pow, kp->mem_x,
			       kp->launch_ns, kp->floor_ns);
		}
		printf("\t},\n};\n");
	}
	free(half);
	free(rows);
	free(sb);
	free(kind);
	return rc;
}

/* The columns: the two ratios, the model with the origin's algorithm on
 * both sides (conv_predict(), what --method conv and a trace's kernels
 * get), and the model told the algorithm and tile cuDNN ran on the
 * target (its measured kernel: the most a learnt pick of the target's
 * algorithm could bring). */
enum { CB_FLOPS, CB_ROOF, CB_CONV, CB_CONV_TALGO, CB_PULL, CB_AUTO, CB_SHAPE_ROOF, CB_SHAPE,
       CB_NCOL };

/* Where the error is: the conv column's absolute error summed per
 * (origin's algorithm, target's measured algorithm), over every pair. */
struct cb_class {
	double err[CONV_ALGO_COUNT][CONV_ALGO_COUNT][2]; /* conv, flops-ratio  */
	size_t n[CONV_ALGO_COUNT][CONV_ALGO_COUNT];
};

/* Held out h: fit without its architecture (nor the origin-only GPU
 * only, when given), then each origin's pairs (only's alone when given);
 * the mean over h's pairs of each column's MAPE into arch[]. */
static int cb_heldout(const struct ns_set *set, const struct gpu_spec *h,
		      const struct gpu_spec *const *gpus, size_t ng, const struct gpu_spec *only,
		      double *sum, int *npairs, double *arch, struct cb_class *cls, FILE *dump)
{
	struct conv_params p = conv_default_params, pt = conv_default_params;
	struct conv_sample *buf;
	double rms3[3], rms;
	/* nothing measured on h's architecture (its shape constants) */
	gpu_figures_hold_out(h->cc);
	int rc = cb_fit(set, gpus, ng, h->cc, only, &p, NULL, NULL, rms3), nh = 0;
	rms = rms3[0];
	if (rc == 0) {
		long nt = cb_samples(set, gpus, ng, h->cc, only, 1, &buf);
		rc = nt < 0 ? -ENOMEM : conv_fit(buf, (size_t)nt, &pt, NULL);
		free(buf);
	}
	if (rc < 0)
		return rc;
	/* auto as a user gets it, with these constants and NeuSight's host
	 * floor (surfer-bench accuracy's predictor) */
	struct pred_config pc = {.conv = &p, .tile_floor = 1};
	struct predictor *ap;
	char perr[256];
	if (predictor_new(&pc, &ap, perr, sizeof perr) != 0)
		return -ENOMEM;
	for (size_t g = 0; g < ng && rc == 0; g++) {
		const struct gpu_spec *o = gpus[g];
		struct ns_pair *pairs;
		size_t np, cnt = 0;
		double err[CB_NCOL] = {0};
		if (o == h || (only && o != only))
			continue;
		if (ns_pairs(set, o, h, "conv", &pairs, &np) != 0) {
			rc = -ENOMEM;
			break;
		}
		for (size_t i = 0; i < np; i++) {
			struct pred_kernel k, kt, ks;
			struct pred_result r, rs;
			if (ns_kernel(pairs[i].origin, 1, &k) != 0 ||
			    ns_kernel(pairs[i].target, 1, &kt) != 0 ||
			    ns_kernel(pairs[i].target, 0, &ks) != 0 ||
			    conv_predict(&ks, NULL, h, &p, 1, &rs) != 0)
				continue;
			double on = k.origin_ns, tn = pairs[i].target->latency_ms * 1e6, pred[CB_NCOL];
			double mo2 = conv_model_ns(&k, o, &pt, 1), mt2 = conv_model_ns(&kt, h, &pt, 1);
			if (conv_predict(&k, o, h, &p, 1, &r) != 0 || !(mo2 > 0) || !(mt2 > 0))
				continue;
			pred[CB_FLOPS] = on * o->peak_tflops[GPU_DT_FP32] / h->peak_tflops[GPU_DT_FP32];
			pred[CB_ROOF] = on * roofline_ns(&k, h, NULL) / roofline_ns(&k, o, NULL);
			pred[CB_CONV] = r.ns;
			pred[CB_CONV_TALGO] = on * mt2 / mo2;
			struct pred_result rp = r;
			(void)conv_pull(&k, o, h, &p, 1, &rp);
			pred[CB_PULL] = rp.ns;
			if (predict_kernel(ap, &k, o, h, PRED_AUTO, &rp) != 0)
				continue;
			pred[CB_AUTO] = rp.ns;
			pred[CB_SHAPE_ROOF] = roofline_ns(&ks, h, NULL);
			pred[CB_SHAPE] = rs.ns;
			for (int c = 0; c < CB_NCOL; c++)
				err[c] += fabs(pred[c] - tn) / tn;
			enum conv_algo ao = conv_algo_of(k.name), at = conv_algo_of(kt.name);
			cls->err[ao][at][0] += fabs(pred[CB_CONV] - tn) / tn;
			cls->err[ao][at][1] += fabs(pred[CB_FLOPS] - tn) / tn;
			cls->n[ao][at]++;
			cnt++;
			if (dump) {
				const struct ns_row *ro = pairs[i].origin, *rt = pairs[i].target;
				fprintf(dump, "%s,%s,%llu,%llu,%llu,%llu,%s,%s,\"%s\",\"%s\",%u,%u,%.1f,%.1f",
					h->id, o->id, (unsigned long long)ro->dims[0],
					(unsigned long long)ro->dims[1],
					(unsigned long long)ro->dims[2],
					(unsigned long long)ro->dims[4], conv_algo_name(ao),
					conv_algo_name(at), ro->kname, rt->kname,
					ro->grid[0] * ro->grid[1] * ro->grid[2],
					rt->grid[0] * rt->grid[1] * rt->grid[2], on, tn);
				for (int c = 0; c < CB_NCOL; c++)
					fprintf(dump, ",%.1f", pred[c]);
				struct pred_result rso;
				struct pred_kernel kso = ks;
				double so = conv_predict(&kso, NULL, o, &p, 1, &rso) == 0 ? rso.ns : 0;
				fprintf(dump, ",%.1f,%.1f,%.1f\n", so, conv_model_ns(&k, o, &p, 1),
					conv_model_ns(&k, h, &p, 1));
			}
		}
		free(pairs);
		if (!cnt)
			continue;
		printf("%-22s %-22s %6zu", o->id, h->id, cnt);
		for (int c = 0; c < CB_NCOL; c++) {
			printf(" %11.1f%%", 100 * err[c] / (double)cnt);
			sum[c] += 100 * err[c] / (double)cnt;
			arch[c] += 100 * err[c] / (double)cnt;
		}
		printf("   (fit: rms log %.3f, floor %.1f us, %.1f pJ, boost %.0f us, wave^%.2f, "
		       "bw %.2f, smem^%.2f; shape: eff %.2f, ramp %.2g FLOP, pad^%.2f, bw %.2f, "
		       "floor %.1f us, pull %.2f, cap e^%.2f ^%.0f, steps %.0f; Winograd eff %.2f, steps %.0f, "
		       "softmin %.2f, overlap %.2f)\n", rms,
		       p.floor_ns / 1e3, p.power_pj16, p.boost_ns / 1e3, p.wave_pow, p.bw_eff,
		       p.smem_pow, p.shape_eff, p.shape_ramp_flop, p.shape_pad_pow, p.shape_bw_eff,
		       p.shape_floor_ns / 1e3, p.shape_pull, p.shape_cap, p.shape_cap_pow,
		       p.shape_red_steps, p.shape_wino_eff,
		       p.shape_wino_steps, p.shape_softmin, p.overlap_pow);
		(*npairs)++;
		nh++;
	}
	predictor_free(ap);
	for (int c = 0; c < CB_NCOL; c++)
		arch[c] = nh ? arch[c] / nh : 0;
	return rc;
}

/* The GPUs with convolution rows in set, at most CB_MAXGPU; the number of
 * convolution rows of a known GPU in *nconv. */
static size_t cb_gpus(const struct ns_set *set, const struct gpu_spec **gpus, size_t *nconv)
{
	size_t ng = 0;
	*nconv = 0;
	for (size_t i = 0; i < set->n; i++) {
		const struct ns_row *r = &set->rows[i];
		if (!r->gpu || ns_op_class(r->op) != PRED_OP_CONV)
			continue;
		(*nconv)++;
		size_t g = 0;
		while (g < ng && gpus[g] != r->gpu)
			g++;
		if (g == ng && ng < CB_MAXGPU)
			gpus[ng++] = r->gpu;
	}
	return ng;
}

long bench_conv_fit_heldout(const char *path, uint32_t cc_out, struct conv_params *p, char *err,
			    size_t errlen)
{
	struct ns_set set;
	const struct gpu_spec *gpus[CB_MAXGPU];
	size_t nconv;
	memset(&set, 0, sizeof set);
	if (ns_load_format(&set, path, NS_FMT_NEUSIGHT, NULL, NULL, err, errlen) != 0) {
		ns_release(&set);
		return -1;
	}
	size_t ng = cb_gpus(&set, gpus, &nconv);
	struct conv_params q = conv_default_params;
	long n = 0;
	int rc = cb_fit(&set, gpus, ng, cc_out, NULL, &q, &n, NULL, NULL);
	if (rc == -ENOMEM) {
		snprintf(err, errlen, "out of memory");
		n = -1;
	} else if (rc == 0 && n > 0) {
		*p = q;
	} else {
		n = 0;
	}
	ns_release(&set);
	return n;
}

int bench_conv_main(const struct bench_args *a)
{
	if (a->help) {
		cb_usage(stdout);
		return 0;
	}
	if (!a->data) {
		cb_usage(stderr);
		return surfer_exit_code(SURFER_EINVAL);
	}
	struct ns_set set;
	char err[512];
	memset(&set, 0, sizeof set);
	if (ns_load_format(&set, a->data, NS_FMT_NEUSIGHT, NULL, NULL, err, sizeof err) != 0) {
		fprintf(stderr, PROG ": conv: cannot load '%s': %s\n", a->data, err);
		ns_release(&set);
		return surfer_exit_code(SURFER_EINVAL);
	}
	const struct gpu_spec *gpus[CB_MAXGPU], *only = a->target ? gpu_find(a->target) : NULL;
	const struct gpu_spec *from = a->origin ? gpu_find(a->origin) : NULL;
	size_t nconv, ng = cb_gpus(&set, gpus, &nconv);
	int rc = 0, held = 0, has_from = 0;
	for (size_t g = 0; g < ng; g++) {
		held |= only && gpus[g] == only;
		has_from |= from && gpus[g] == from;
	}
	if (a->target && !held) {
		fprintf(stderr, PROG ": conv: --target '%s' is not a GPU with convolution rows under '%s'\n",
			a->target, a->data);
		ns_release(&set);
		return surfer_exit_code(SURFER_EINVAL);
	}
	if (a->emit_picks && !a->gpu) {
		fprintf(stderr, PROG ": conv: --emit-picks needs --gpu GPU\n");
		ns_release(&set);
		return surfer_exit_code(SURFER_EINVAL);
	}
	if (a->gpu) {
		const struct gpu_spec *g = gpu_find(a->gpu);
		size_t k = 0;
		while (g && k < ng && gpus[k] != g)
			k++;
		if (!(a->emit || a->emit_picks) || !g || k == ng) {
			fprintf(stderr, PROG ": conv: --gpu '%s' %s\n", a->gpu,
				!(a->emit || a->emit_picks) ? "goes with --emit or --emit-picks only"
							    : "is not a GPU with convolution rows under the data");
			ns_release(&set);
			return surfer_exit_code(SURFER_EINVAL);
		}
		rc = a->emit_picks ? cb_emit_picks(&set, g) : cb_emit_shape(&set, g);
		ns_release(&set);
		if (rc > 0)
			return surfer_exit_code(SURFER_EINVAL);
		if (rc < 0) {
			fprintf(stderr, PROG ": conv: %s\n", strerror(-rc));
			return surfer_exit_code(SURFER_EINVAL);
		}
		return 0;
	}
	if (a->origin && (!has_from || from == only || a->emit)) {
		fprintf(stderr, PROG ": conv: --origin '%s' %s\n", a->origin,
			a->emit ? "does not go with --emit" : from && from == only ? "is the --target"
			: "is not a GPU with convolution rows under the data");
		ns_release(&set);
		return surfer_exit_code(SURFER_EINVAL);
	}
	/* a fit needs pairs: two GPUs outside the held-out architecture, the
	 * origin-only GPU not counted */
	for (size_t g = 0; g < ng && nconv; g++) {
		size_t others = 0;
		if (gpus[g] == from)
			continue;
		for (size_t o = 0; o < ng; o++)
			others += gpus[o] != from && (a->emit || gpus[o]->cc != gpus[g]->cc);
		if (others < 2 && (a->emit || !only || gpus[g] == only)) {
			fprintf(stderr, PROG ": conv: convolution rows of %zu GPU%s outside %s's architecture "
				"under '%s': a fit needs two\n", others, others == 1 ? "" : "s", gpus[g]->id, a->data);
			ns_release(&set);
			return surfer_exit_code(SURFER_EINVAL);
		}
	}
	if (nconv == 0) {
		fprintf(stderr, PROG ": conv: no convolution rows of a known GPU under '%s'\n", a->data);
		ns_release(&set);
		return surfer_exit_code(SURFER_EINVAL);
	} else if (a->emit) {
		struct conv_params p = conv_default_params;
		double rms[3];
		long n = 0, ns = 0;
		rc = cb_fit(&set, gpus, ng, 0, NULL, &p, &n, &ns, rms);
		if (rc == 0) {
			printf("/* %ld pairs of a convolution on two of %zu GPUs, weighted RMS of log "
			       "error %.3f; shape constants: %ld convolutions, %.3f; with the pull "
			       "across architectures %.3f */\n", n, ng, rms[0], ns, rms[1], rms[2]);
			cb_print_params(&p);
		}
	} else {
		double sum[CB_NCOL] = {0}, arch[CB_MAXGPU][CB_NCOL];
		struct cb_class *cls = calloc(1, sizeof(*cls));
		int npairs = 0;
		FILE *dump = NULL;
		memset(arch, 0, sizeof arch);
		if (a->dump && !(dump = fopen(a->dump, "w"))) {
			fprintf(stderr, PROG ": conv: cannot write '%s': %s\n", a->dump, strerror(errno));
			free(cls);
			ns_release(&set);
			return surfer_exit_code(SURFER_EINVAL);
		}
		if (dump)
			fprintf(dump, "target,origin,B,C,K,H,origin_algo,target_algo,origin_kernel,"
				      "target_kernel,origin_blocks,target_blocks,origin_ns,target_ns,"
				      "flops_ratio_ns,roofline_ns,conv_ns,conv_talgo_ns,conv_pull_ns,auto_ns,"
				      "shape_roofline_ns,"
				      "shape_conv_ns,shape_origin_ns,model_origin_ns,model_target_ns\n");
		if (!cls)
			rc = -ENOMEM;
		else
			printf("%-22s %-22s %6s %12s %12s %12s %12s %12s %12s %12s %12s   (MAPE)\n",
			       "origin", "held-out target", "n", "flops-ratio", "roofline", "conv",
			       "conv+t.algo", "conv+pull", "auto", "shape:roof", "shape:conv");
		for (size_t g = 0; g < ng && rc == 0; g++)
			if ((!only || gpus[g] == only) && gpus[g] != from)
				rc = cb_heldout(&set, gpus[g], gpus, ng, from, sum, &npairs, arch[g], cls,
						dump);
		if (rc == 0 && npairs) {
			printf("%-22s %-22s %6s", "mean", "", "");
			for (int c = 0; c < CB_NCOL; c++)
				printf(" %11.1f%%", sum[c] / npairs);
			printf("\n(each fit leaves out every GPU of the target's architecture%s)\n\n"
			       "per held-out architecture (mean over its origins):\n",
			       from ? ", and the origin-only GPU" : "");
			for (size_t g = 0; g < ng; g++) {
				if ((only && gpus[g] != only) || gpus[g] == from)
					continue;
				printf("%-22s sm_%-18u %6s", gpus[g]->id, (unsigned)gpus[g]->cc, "");
				for (int c = 0; c < CB_NCOL; c++)
					printf(" %11.1f%%", arch[g][c]);
				printf("\n");
			}
			printf("\nby algorithm (origin's kernel -> target's measured kernel; MAPE over "
			       "rows of every pair):\n%-36s %6s %12s %12s\n", "algorithms", "n",
			       "flops-ratio", "conv");
			for (int a = 0; a < CONV_ALGO_COUNT; a++)
				for (int b = 0; b < CONV_ALGO_COUNT; b++) {
					char lab[64];
					size_t n = cls->n[a][b];
					if (!n)
						continue;
					snprintf(lab, sizeof lab, "%s -> %s", conv_algo_name(a),
						 conv_algo_name(b));
					printf("%-36s %6zu %11.1f%% %11.1f%%\n", lab, n,
					       100 * cls->err[a][b][1] / (double)n,
					       100 * cls->err[a][b][0] / (double)n);
				}
		}
		free(cls);
		if (dump && fclose(dump) != 0 && rc == 0)
			rc = -EIO;
	}
	ns_release(&set);
	if (rc < 0) {
		fprintf(stderr, PROG ": conv: %s\n", strerror(-rc));
		return surfer_exit_code(SURFER_EINVAL);
	}
	return 0;
}
