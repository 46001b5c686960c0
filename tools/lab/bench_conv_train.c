/*
 * bench_conv_train.c - `surfer-bench conv-train`: the convolution model on
 * the three passes of training, DeepBench's FP32 convolutions (forward,
 * gradient of the inputs, gradient of the filters; one cuDNN call each,
 * the algorithm cuDNN's heuristics chose) on eight boards of five
 * architectures.  A trace's backward convolutions (the recorder's
 * cudnnConvolutionBackwardData/Filter records, a profiler trace's
 * aten::convolution_backward) reach the model as implicit GEMMs of their
 * direction (analyzer/ktable.c); NeuSight's sweep, which the model is
 * fitted on, has forward passes only, so this is the model's only check
 * on the backward ones.  Per held-out architecture the model's constants
 * are fitted on NeuSight's sweep without it (bench_conv_fit_heldout(), as
 * `surfer-bench conv` does), its measured figures held out, and every
 * shape of each target predicted from each GPU of another architecture,
 * against the FLOP/s and roofline ratios.  A second table does the same for
 * the FP16 convolutions of tensor-core math (V100 and T4) with the
 * tensor-core GEMM model on each pass's implicit GEMM (choose.c, rule 1d).
 */
#include "tools/lab/bench_conv_train.h"
#include "tools/lab/bench_conv.h"
#include "tools/lab/neusight.h"
#include "trace/surfer_err.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpu_specs/figures.h"
#include "predictor/conv.h"
#include "predictor/roofline.h"
#include "predictor/tcgemm.h"
#include "tools/lab/bench_tc.h"

#define PROG "surfer-bench"
#define CT_MAXGPU 16

/* The passes, in the row ops' names (neusight.h). */
static const char *const ct_dir_op[3] = {"conv2d_fwd", "conv2d_dgrad", "conv2d_wgrad"};
static const char *const ct_dir_name[3] = {"forward", "grad inputs", "grad filters"};

enum { CT_FLOPS, CT_ROOF, CT_CONV, CT_AUTO, CT_NCOL };
static const char *const ct_col[CT_NCOL] = {"flops-ratio", "roofline", "conv", "auto"};
/* FP16 (tensor-core) rows: the third column is the tensor-core GEMM
 * model's ratio on the pass's implicit GEMM */
static const char *const ct_col16[CT_NCOL] = {"flops-ratio", "roofline", "tcgemm", "auto"};

static void ct_usage(FILE *f)
{
	fprintf(f, "usage: " PROG " conv-train --data DIR [--target GPU] [--dump FILE.csv]\n"
		   "  DIR: the shared data folder (deepbench/csv/results/train and\n"
		   "  neusight/kernels/conv under it)\n"
		   "  held-out MAPE of the convolution model on DeepBench's FP32 training\n"
		   "  convolutions (forward, gradient of the inputs, of the filters): per\n"
		   "  held-out architecture the model fitted on NeuSight's sweep without it,\n"
		   "  each shape of the target predicted from every GPU of another\n"
		   "  architecture, against the FLOP/s and roofline ratios; auto as\n"
		   "  surfer-analyze applies it to a trace's cuDNN call; --target holds out\n"
		   "  that GPU's architecture only; --dump writes every prediction as CSV\n");
}

/* path joined to sub into buf when that is a directory: 0, else -1. */
static int ct_dir(char *buf, size_t len, const char *path, const char *sub)
{
	struct stat sb;
	if ((size_t)snprintf(buf, len, "%s/%s", path, sub) >= len)
		return -1;
	return stat(buf, &sb) == 0 && S_ISDIR(sb.st_mode) ? 0 : -1;
}

/* Sums of one column's absolute errors per pass. */
struct ct_sum {
	double err[3][CT_NCOL];
	size_t n[3];
};

static void ct_add(struct ct_sum *s, int dir, const double *ape, size_t n)
{
	for (int c = 0; c < CT_NCOL; c++)
		s->err[dir][c] += ape[c];
	s->n[dir] += n;
}

static void ct_print(const char *a, const char *b, const struct ct_sum *s, int dir)
{
	printf("%-22s %-16s %-12s %6zu", a, b, ct_dir_name[dir], s->n[dir]);
	for (int c = 0; c < CT_NCOL; c++)
		printf(" %11.1f%%", s->n[dir] ? 100 * s->err[dir][c] / (double)s->n[dir] : 0.0);
	printf("\n");
}

/* The model's ratio model(target) / model(origin) for k: FP32, the
 * convolution model's (conv_predict()); FP16, the tensor-core GEMM
 * model's on the pass's implicit GEMM (predict_conv_as_gemm(), as auto
 * takes it: cuDNN's xmma/hmma implicit-GEMM kernels).  <= 0: no ratio. */
static double ct_model_ratio(const struct pred_kernel *k, const struct gpu_spec *o,
			     const struct gpu_spec *h, const struct conv_params *p,
			     const struct tcgemm_params *tc)
{
	if (k->dtype == GPU_DT_FP32) {
		struct pred_result r;
		return conv_predict(k, o, h, p, 0, &r) == 0 ? r.ns / k->origin_ns : -1;
	}
	struct pred_kernel g;
	predict_conv_as_gemm(k, &g);
	double to = tcgemm_model_ns(&g, o, tc), th = tcgemm_model_ns(&g, h, tc);
	return to > 0 && th > 0 ? th / to : -1;
}

/* Every shape of target h predicted from each GPU of another architecture
 * with the constants p fitted without h's; the sums per pass into *arch.
 * 0 or a negative errno. */
static int ct_target(const struct ns_set *set, const struct gpu_spec *h,
		     const struct gpu_spec *const *gpus, size_t ng, const struct conv_params *p,
		     const struct tcgemm_params *tc, enum gpu_dtype dt, struct ct_sum *arch,
		     FILE *dump)
{
	struct pred_config pc = {.conv = p, .tcgemm = tc};
	struct predictor *ap;
	char perr[256];
	if (predictor_new(&pc, &ap, perr, sizeof perr) != 0)
		return -ENOMEM;
	int rc = 0;
	for (size_t g = 0; g < ng && rc == 0; g++) {
		const struct gpu_spec *o = gpus[g];
		if (o->cc == h->cc)
			continue;
		for (int dir = 0; dir < 3 && rc == 0; dir++) {
			struct ns_pair *pairs;
			size_t np, cnt = 0;
			double ape[CT_NCOL] = {0};
			if (ns_pairs(set, o, h, ct_dir_op[dir], &pairs, &np) != 0) {
				rc = -ENOMEM;
				break;
			}
			for (size_t i = 0; i < np; i++) {
				struct pred_kernel k;
				struct pred_result ra;
				double model;
				if (pairs[i].origin->dtype != dt || ns_kernel(pairs[i].origin, 1, &k) != 0 ||
				    !((model = ct_model_ratio(&k, o, h, p, tc)) > 0) ||
				    predict_kernel(ap, &k, o, h, PRED_AUTO, &ra) != 0)
					continue;
				double on = k.origin_ns, tn = pairs[i].target->latency_ms * 1e6;
				double pred[CT_NCOL];
				pred[CT_FLOPS] = on * o->peak_tflops[dt] / h->peak_tflops[dt];
				pred[CT_ROOF] = on * roofline_ns(&k, h, NULL) / roofline_ns(&k, o, NULL);
				pred[CT_CONV] = on * model;
				pred[CT_AUTO] = ra.ns;
				for (int c = 0; c < CT_NCOL; c++)
					ape[c] += fabs(pred[c] - tn) / tn;
				cnt++;
				if (dump) {
					const uint64_t *d = pairs[i].origin->dims;
					fprintf(dump, "%s,%s,%s,%s,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,"
						"%llu,%llu,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%s\n", h->id, o->id,
						ct_dir_op[dir], gpu_dtype_name(dt), (unsigned long long)d[0],
						(unsigned long long)d[1], (unsigned long long)d[2],
						(unsigned long long)d[3], (unsigned long long)d[4],
						(unsigned long long)d[5], (unsigned long long)d[6],
						(unsigned long long)d[7], (unsigned long long)d[8],
						(unsigned long long)d[9], (unsigned long long)d[10], on, tn,
						pred[CT_FLOPS], pred[CT_ROOF], pred[CT_CONV], pred[CT_AUTO],
						pred_method_name(ra.method));
				}
			}
			free(pairs);
			if (!cnt)
				continue;
			struct ct_sum one;
			memset(&one, 0, sizeof one);
			ct_add(&one, dir, ape, cnt);
			ct_print(o->id, h->id, &one, dir);
			/* each pair's MAPE counts once in the architecture's mean */
			for (int c = 0; c < CT_NCOL; c++)
				ape[c] /= (double)cnt;
			ct_add(arch, dir, ape, 1);
		}
	}
	predictor_free(ap);
	return rc;
}

/* One table: the rows of dtype dt (FP32: the convolution model, fitted on
 * NeuSight's sweep under ns without each target's architecture; FP16:
 * the tensor-core GEMM model, fitted on the GEMMs under root likewise),
 * each target (only, or every GPU with such rows) from each GPU of another
 * architecture, then the means per held-out architecture and over the
 * pairs.  0 or a negative errno (-EINVAL after its message). */
static int ct_section(const struct ns_set *set, const struct gpu_spec *const *gpus, size_t ng,
		      const struct gpu_spec *only, const char *ns, const char *root,
		      enum gpu_dtype dt, FILE *dump)
{
	const char *const *col = dt == GPU_DT_FP32 ? ct_col : ct_col16;
	char err[512];
	if (dt == GPU_DT_FP32)
		printf("# DeepBench's FP32 training convolutions, each target's architecture out of the\n"
		       "# convolution model's fit (NeuSight's sweep) and its figures held out; origins of\n"
		       "# other architectures only; MAPE per pair and pass\n");
	else
		printf("\n# DeepBench's FP16 convolutions of tensor-core math: the tensor-core GEMM\n"
		       "# model (tcgemm) on each pass's implicit GEMM, its constants fitted without the\n"
		       "# target's architecture; auto is what surfer-analyze does with such a call\n");
	printf("%-22s %-16s %-12s %6s", "origin", "held-out target", "pass", "n");
	for (int c = 0; c < CT_NCOL; c++)
		printf(" %12s", col[c]);
	printf("\n");
	struct ct_sum all, arch[CT_MAXGPU];
	memset(&all, 0, sizeof all);
	memset(arch, 0, sizeof arch);
	int rc = 0;
	/* the architectures held out so far, each fitted once for its boards */
	uint32_t done[CT_MAXGPU];
	struct conv_params fit[CT_MAXGPU];
	struct tcgemm_params fit_tc[CT_MAXGPU];
	size_t ndone = 0;
	for (size_t g = 0; g < ng && rc == 0; g++) {
		const struct gpu_spec *h = gpus[g];
		size_t rows = 0;
		for (size_t i = 0; i < set->n; i++)
			rows += set->rows[i].gpu == h && set->rows[i].dtype == dt;
		if ((only && h != only) || !rows)
			continue;
		size_t d = 0;
		while (d < ndone && done[d] != h->cc)
			d++;
		gpu_figures_hold_out(h->cc);
		if (d == ndone) {
			fit[d] = conv_default_params;
			fit_tc[d] = tcgemm_default_params;
			if (dt == GPU_DT_FP32 ? bench_conv_fit_heldout(ns, h->cc, &fit[d], err, sizeof err) < 0
					      : bench_tc_fit_heldout(root, &h->cc, 1, &fit_tc[d], err,
								     sizeof err) != 0) {
				gpu_figures_hold_out(0);
				fprintf(stderr, PROG ": conv-train: %s\n", err);
				return -EINVAL;
			}
			done[ndone++] = h->cc;
		}
		rc = ct_target(set, h, gpus, ng, &fit[d], &fit_tc[d], dt, &arch[g], dump);
		gpu_figures_hold_out(0);
	}
	if (rc != 0)
		return rc;
	printf("\nper held-out architecture (mean over its pairs):\n");
	for (size_t d = 0; d < ndone; d++) {
		struct ct_sum s;
		char lab[32];
		memset(&s, 0, sizeof s);
		for (size_t g = 0; g < ng; g++)
			if (gpus[g]->cc == done[d] && (!only || gpus[g] == only))
				for (int dir = 0; dir < 3; dir++)
					ct_add(&s, dir, arch[g].err[dir], arch[g].n[dir]);
		snprintf(lab, sizeof lab, "sm_%u", (unsigned)done[d]);
		for (int dir = 0; dir < 3; dir++) {
			ct_print(lab, "", &s, dir);
			ct_add(&all, dir, s.err[dir], s.n[dir]);
		}
	}
	printf("\nmean over the pairs:\n");
	for (int dir = 0; dir < 3; dir++)
		ct_print("all", "", &all, dir);
	return 0;
}

int bench_conv_train_main(const struct bench_args *a)
{
	if (a->help) {
		ct_usage(stdout);
		return 0;
	}
	if (!a->data) {
		ct_usage(stderr);
		return surfer_exit_code(SURFER_EINVAL);
	}
	char db[4096], ns[4096], err[512];
	if (ct_dir(db, sizeof db, a->data, "deepbench/csv/results/train") != 0 ||
	    ct_dir(ns, sizeof ns, a->data, "neusight/kernels/conv") != 0) {
		fprintf(stderr, PROG ": conv-train: '%s' holds no deepbench/csv/results/train and "
			"neusight/kernels/conv\n", a->data);
		return surfer_exit_code(SURFER_EINVAL);
	}
	struct ns_set set;
	memset(&set, 0, sizeof set);
	if (ns_load_deepbench_conv(&set, db, err, sizeof err) != 0) {
		fprintf(stderr, PROG ": conv-train: cannot load '%s': %s\n", db, err);
		ns_release(&set);
		return surfer_exit_code(SURFER_EINVAL);
	}
	const struct gpu_spec *gpus[CT_MAXGPU], *only = a->target ? gpu_find(a->target) : NULL;
	size_t ng = 0;
	for (size_t i = 0; i < set.n; i++) {
		size_t g = 0;
		while (set.rows[i].gpu && g < ng && gpus[g] != set.rows[i].gpu)
			g++;
		if (set.rows[i].gpu && g == ng && ng < CT_MAXGPU)
			gpus[ng++] = set.rows[i].gpu;
	}
	size_t held = 0;
	for (size_t g = 0; g < ng; g++)
		held += !only || gpus[g] == only;
	if (!held || ng < 2) {
		if (a->target && ng >= 2)
			fprintf(stderr, PROG ": conv-train: --target '%s' is not a GPU with convolution "
				"rows under '%s'\n", a->target, db);
		else
			fprintf(stderr, PROG ": conv-train: convolution rows of %zu known GPU%s under "
				"'%s': pairs need two\n", ng, ng == 1 ? "" : "s", db);
		ns_release(&set);
		return surfer_exit_code(SURFER_EINVAL);
	}
	FILE *dump = NULL;
	if (a->dump && !(dump = fopen(a->dump, "w"))) {
		fprintf(stderr, PROG ": conv-train: cannot write '%s': %s\n", a->dump, strerror(errno));
		ns_release(&set);
		return surfer_exit_code(SURFER_EINVAL);
	}
	if (dump)
		fprintf(dump, "target,origin,pass,dtype,N,C,H,W,K,R,S,pad_h,pad_w,stride_h,stride_w,"
			      "origin_ns,target_ns,flops_ratio_ns,roofline_ns,model_ns,auto_ns,"
			      "auto_method\n");
	int rc = ct_section(&set, gpus, ng, only, ns, a->data, GPU_DT_FP32, dump);
	if (rc == 0)
		rc = ct_section(&set, gpus, ng, only, ns, a->data, GPU_DT_FP16, dump);
	if (dump && fclose(dump) != 0 && rc == 0)
		rc = -EIO;
	ns_release(&set);
	if (rc < 0) {
		if (rc != -EINVAL)
			fprintf(stderr, PROG ": conv-train: %s\n", strerror(-rc));
		return surfer_exit_code(SURFER_EINVAL);
	}
	return 0;
}
