/*
 * bench_serving.c - `surfer-bench serving --data DIR`: surfer's serving
 * predictions against PipeWeave's measured SGLang runs (bench_one_batch,
 * BF16, CUDA graphs in decode), beside the predictions of PipeWeave,
 * NeuSight, Habitat and the roofline that the data's comparison CSVs hold.
 *
 * Data (DIR: the pipeweave/e2e folder, or a folder holding pipeweave/e2e):
 *  - real/e2e_[tpN_]GPU.jsonl: one line per repetition of a run
 *    (run_name "MODEL-WORKLOAD", prefill_latency, median_decode_latency,
 *    total_latency in seconds).  The real value of a run is the median of
 *    its repetitions (5, the L20's 1-2).
 *  - workload/WORKLOAD.csv: each request's prompt tokens and the tokens
 *    generated (output_tokens, the same for all);
 *  - config/MODEL.json: the Hugging Face config;
 *  - hardware/GPU.json: the GPU's driver name (mapped to gpu_specs);
 *  - {pipeweave,neusight,habitat,roofline}_comparison.csv: each method's
 *    pred_prefill_ms, pred_decode_ms, pred_total_ms per (Hardware, TP,
 *    Model, Workload).  Their errors here are against the same median; the
 *    roofline's decode column there is 0 and is shown as "-".
 *
 * surfer predicts each run as a user would: `--engine sglang --mode prefill
 * --prompt-lens ...` for the prefill, `--mode decode --context-lens ...`
 * at the median step for the decode step (bench_one_batch reports the
 * median over output_len - 1 steps; step k reads prompt + k tokens, the
 * median k is (output_len - 2) / 2), and prefill + (output_len - 1) steps
 * for the whole batch.  Beside it, today's Hugging Face eager path
 * (`--engine hf --attention sdpa`: inference over batch x the mean
 * prompt, as many tokens as the prompts hold; decode at the mean context).
 *
 * vLLM (real/vllm_WORKLOAD_GPU_MODEL.json, `vllm bench latency`: the
 * latencies of whole generate() calls, and vllm_comparison.csv): each
 * whole batch predicted with `--engine vllm --mode serve`, its prefill
 * chunked at vLLM's token budget, beside the others' whole-batch figures.
 *
 * Everything fitted is fitted without the architecture it predicts
 * (Ampere, Ada, Hopper, Blackwell: every compute capability of it, as
 * arch_of() groups them).  The tensor-core GEMM constants (tcgemm.h),
 * which also set fused attention's main-loop rate, are refitted per
 * held-out architecture as `surfer-bench tensorcore --emit` fits them, on
 * the measured GEMMs of the shared data folder (the grandparent of the
 * e2e folder) less that architecture's GPUs and MAMF figures, and each
 * run is predicted with a predictor carrying them (the compiled-in
 * constants saw the H20's and H800's GEMMs, the A40's and the A100's).
 * The vector-op constants (vecop.h) likewise (bench_vec_fit_heldout):
 * the compiled-in ones were fitted on Vidur's A100 and A40 operators, so
 * Ampere's runs take a fit on NeuSight's FP32 vector operators of the
 * P4, P100, T4 and V100 by their bytes, with the floor of a kernel no
 * data is left to fit (tools/lab/bench_vec.c); the other architectures
 * keep the compiled-in ones, which never saw them.
 * The engine's per-step CPU time (model.h's MODEL_SERVE_STEP_CPU_NS) is the
 * one constant fitted on these runs: a decode step's predicted time grows
 * by exactly that constant (it runs before the step's kernels, between two
 * synchronizations), so the bench refits it with each GPU architecture
 * held out (the median of measured minus predicted-without-it over the
 * other architectures' runs) and reports the held-out decode error too;
 * the prefill, one pass, takes the held-out value as well.  Without GEMM
 * data the compiled-in tensor-core constants stand, and the header says
 * so.
 *
 * Each prediction's interval is the one surfer-analyze gives it (the
 * committed interval table), and the bench says how often it held the
 * measured prefill, step and whole batch.  The table's tensor-core
 * iterations are these runs' own held-out errors (--dump writes each
 * prefill and decode step as an e2e dump's row, `make bench-serving` to
 * build/accuracy/serving.csv, which `make calibrate` reads), so that
 * figure is in-sample; `make calibrate` gives the held-out one, each
 * architecture against the others.
 */
#include "tools/lab/bench_serving.h"
#include "tools/lab/bench_e2e.h"
#include "tools/lab/bench_tc.h"
#include "tools/lab/bench_vec.h"
#include "tools/lab/stats.h"
#include "trace/csv.h"
#include "trace/surfer_err.h"

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyzer/model/model.h"
#include "analyzer/model/run.h"
#include "gpu_specs/gpu.h"
#include "predictor/attention.h"
#include "predictor/comm.h"
#include "predictor/interval.h"
#include "predictor/tcgemm.h"
#include "predictor/vecop.h"

#define PROG "surfer-bench"
#define SV_MAX_RUNS 64
#define SV_MAX_LENS 256
#define SV_NARCH 5

enum { SV_P = 0, SV_D, SV_T, SV_N };            /* prefill, decode, whole batch */
enum { SV_PW = 0, SV_NS, SV_HAB, SV_ROOF, SV_NOTHER };
static const char *const sv_other[SV_NOTHER] = { "pipeweave", "neusight", "habitat", "roofline" };
static const char *const sv_arch[] = { "ampere", "ada", "hopper", "blackwell", "other" };

struct sv_run {
	char gpu_tok[48];                 /* as the file names it: RTX_6000_Ada */
	const struct gpu_spec *gpu;
	uint32_t tp;
	char model[64], workload[48];
	int arch;
	uint32_t reps;
	double real[SV_N];                /* medians, ms                       */
	double p_first, p_last;           /* the prefill's first and last
					   * repetitions, in the file's order, ms */
	uint32_t lens[SV_MAX_LENS], n, out;
	double sg[SV_N], hf[SV_N];        /* surfer sglang, surfer hf, ms      */
	double sg_lo[SV_N], sg_hi[SV_N];  /* surfer's interval (run.h's
					   * iteration_low_ns, _high_ns), ms  */
	int sg_key[SV_N];                 /* its method key, P and D
					   * (interval_iteration_method())    */
	double dec_by[SV_NARCH + 1];      /* the decode step with architecture
					   * a's held-out tensor-core constants
					   * (SV_NARCH: the compiled-in), ms:
					   * what the step constant of a held
					   * out is fitted on                  */
	double held_d, held_t;            /* decode and whole batch with the
					   * step constant fitted held out    */
	double other[SV_NOTHER][SV_N];    /* <= 0: none                        */
	/* the prefill's predicted kernel time by op class (ms) and its GEMMs'
	 * FLOPs on one GPU (--rows) */
	double p_op_ms[PRED_OP_COUNT], p_gemm_flop;
	double d_op_ms[PRED_OP_COUNT];    /* the decode step's, ms (--rows)    */
};

static int arch_of(const struct gpu_spec *g)
{
	return g->cc >= 100 ? 3 : g->cc >= 90 ? 2 : g->cc == 89 ? 1 : g->cc >= 80 ? 0 : 4;
}

static double ape(double pred, double real)
{
	return pred > 0 && real > 0 ? fabs(pred / real - 1.0) * 100.0 : NAN;
}

/* The GPU a hardware/NAME.json names ("name": the driver's). */
static const struct gpu_spec *gpu_of(const char *dir, const char *tok)
{
	char path[2048], name[64];
	snprintf(name, sizeof(name), "%.60s", tok);
	for (char *p = name; *p; p++)
		if (*p == '_')
			*p = ' ';
	snprintf(path, sizeof(path), "%s/hardware/%s.json", dir, name);
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);
	const struct gpu_spec *g = NULL;
	if (j && json_is_string(json_object_get(j, "name")))
		g = gpu_find(json_string_value(json_object_get(j, "name")));
	json_decref(j);
	return g ? g : gpu_find(name);
}

/* The prompt lengths and output tokens of workload w. */
static int load_workload(const char *dir, struct sv_run *r)
{
	char path[2048];
	struct csv_reader c;
	snprintf(path, sizeof(path), "%s/workload/%s.csv", dir, r->workload);
	if (csv_open(&c, path, CSV_COMMENTS))
		return -1;
	int cp = -1, co = -1, rc = 0;
	r->n = 0;
	while (csv_next(&c) == 1) {
		if (cp < 0) {
			cp = csv_col(&c, "num_prefill_tokens");
			co = csv_col(&c, "output_tokens");
			if (cp < 0 || co < 0) {
				rc = -1;
				break;
			}
			continue;
		}
		if (r->n == SV_MAX_LENS) {
			rc = -1;
			break;
		}
		r->lens[r->n++] = (uint32_t)strtoul(csv_field(&c, (size_t)cp), NULL, 10);
		r->out = (uint32_t)strtoul(csv_field(&c, (size_t)co), NULL, 10);
	}
	csv_release(&c);
	return rc || !r->n || r->out < 2 ? -1 : 0;
}

/* Reads one real/e2e_*.jsonl: a run per run_name, medians of its lines. */
static int load_real(const char *dir, const char *file, struct sv_run *runs, size_t *nruns)
{
	char path[2048];
	snprintf(path, sizeof(path), "%s/real/%.255s", dir, file);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	const char *tok = file + strlen("e2e_");
	uint32_t tp = 1;
	if (!strncmp(tok, "tp", 2)) {
		tp = (uint32_t)strtoul(tok + 2, NULL, 10);
		tok = strchr(tok, '_') ? strchr(tok, '_') + 1 : tok;
	}
	char gtok[48];
	snprintf(gtok, sizeof(gtok), "%.47s", tok);
	char *dot = strstr(gtok, ".jsonl");
	if (dot)
		*dot = 0;
	size_t first = *nruns;
	uint32_t cnt[SV_MAX_RUNS] = { 0 };
	static double vals[SV_MAX_RUNS][SV_N][16];
	char line[4096];
	while (fgets(line, sizeof(line), f)) {
		json_error_t je;
		json_t *j = json_loads(line, 0, &je);
		if (!j)
			continue;
		const char *rn = json_string_value(json_object_get(j, "run_name"));
		const char *dash = rn ? strrchr(rn, '-') : NULL;
		if (!dash) {
			json_decref(j);
			continue;
		}
		size_t i;
		for (i = first; i < *nruns; i++)
			if (!strncmp(runs[i].model, rn, (size_t)(dash - rn)) &&
			    runs[i].model[dash - rn] == 0 && !strcmp(runs[i].workload, dash + 1))
				break;
		if (i == *nruns) {
			if (*nruns == SV_MAX_RUNS) {
				json_decref(j);
				break;
			}
			struct sv_run *r = &runs[(*nruns)++];
			memset(r, 0, sizeof(*r));
			snprintf(r->model, sizeof(r->model), "%.*s", (int)(dash - rn), rn);
			snprintf(r->workload, sizeof(r->workload), "%s", dash + 1);
			snprintf(r->gpu_tok, sizeof(r->gpu_tok), "%s", gtok);
			r->tp = tp;
		}
		if (cnt[i] < 16) {
			vals[i][SV_P][cnt[i]] = json_number_value(json_object_get(j, "prefill_latency")) * 1e3;
			vals[i][SV_D][cnt[i]] = json_number_value(json_object_get(j, "median_decode_latency")) * 1e3;
			vals[i][SV_T][cnt[i]] = json_number_value(json_object_get(j, "total_latency")) * 1e3;
			cnt[i]++;
		}
		json_decref(j);
	}
	fclose(f);
	for (size_t i = first; i < *nruns; i++) {
		runs[i].reps = cnt[i];
		runs[i].p_first = cnt[i] ? vals[i][SV_P][0] : 0;
		runs[i].p_last = cnt[i] ? vals[i][SV_P][cnt[i] - 1] : 0;
		for (int k = 0; k < SV_N; k++)
			runs[i].real[k] = lab_median(vals[i][k], cnt[i]);
	}
	return 0;
}

/* The runs whose prefill moved by SV_DRIFT or more from their first
 * repetition to their last, in the order the file holds them.  The real
 * value is their median all the same; the drift says how far apart the
 * repetitions of one run are, which no prediction of one number follows.
 * The RTX 6000 Ada's, L40's and A6000's repetitions climb, each slower
 * than the one before (RTX 6000 Ada +14.4 and +7.6 %, at TP 2 +9.6; L40
 * +4.4 and +5.1; A6000 +3.1 on arxiv_8): the boards heat up from one
 * repetition to the next.  Two of the H800's runs fall instead (-11.0 and
 * -5.0 %): their first repetition is the slow one, a warm-up.  The A40,
 * H20, L20 and RTX PRO 6000 stay within 3 %. */
#define SV_DRIFT 0.03
static void print_drift(const struct sv_run *runs, size_t n)
{
	int any = 0;
	for (size_t i = 0; i < n; i++) {
		const struct sv_run *r = &runs[i];
		if (r->reps < 2 || !(r->p_first > 0) || fabs(r->p_last / r->p_first - 1) < SV_DRIFT)
			continue;
		if (!any)
			printf("prefill from the first repetition to the last, where it moved %.0f %% or more:",
			       SV_DRIFT * 100);
		printf(" %s tp %u %s %s %+.1f %%;", r->gpu_tok, r->tp, r->model, r->workload,
		       (r->p_last / r->p_first - 1) * 100);
		any = 1;
	}
	if (any)
		printf("\n");
}

/* The comparison CSV of method m: its predictions onto the runs. */
static void load_other(const char *dir, int m, struct sv_run *runs, size_t n)
{
	char path[2048];
	struct csv_reader c;
	snprintf(path, sizeof(path), "%s/%s_comparison.csv", dir, sv_other[m]);
	if (csv_open(&c, path, CSV_COMMENTS))
		return;
	int ch = -1, ct = -1, cm = -1, cw = -1, cp = -1, cd = -1, cT = -1;
	while (csv_next(&c) == 1) {
		if (ch < 0) {
			ch = csv_col(&c, "Hardware");
			ct = csv_col(&c, "TP");
			cm = csv_col(&c, "Model");
			cw = csv_col(&c, "Workload");
			cp = csv_col(&c, "pred_prefill_ms");
			cd = csv_col(&c, "pred_decode_ms");
			cT = csv_col(&c, "pred_total_ms");
			if (ch < 0 || ct < 0 || cm < 0 || cw < 0 || cp < 0 || cd < 0 || cT < 0)
				break;
			continue;
		}
		for (size_t i = 0; i < n; i++) {
			struct sv_run *r = &runs[i];
			if (strcmp(csv_field(&c, (size_t)ch), r->gpu_tok) ||
			    strtoul(csv_field(&c, (size_t)ct), NULL, 10) != r->tp ||
			    strcmp(csv_field(&c, (size_t)cm), r->model) ||
			    strcmp(csv_field(&c, (size_t)cw), r->workload))
				continue;
			r->other[m][SV_P] = strtod(csv_field(&c, (size_t)cp), NULL);
			r->other[m][SV_D] = strtod(csv_field(&c, (size_t)cd), NULL);
			r->other[m][SV_T] = strtod(csv_field(&c, (size_t)cT), NULL);
		}
	}
	csv_release(&c);
}

/* One prediction through the model path: ms, or -1 with a reason.  op_ms
 * (NULL: not wanted) takes the kernel time by op class, ms, gemm_flop
 * the GEMMs' FLOPs and lohi its interval's two ends, ms. */
static double predict_parts(const struct model_config *c, struct model_opts *o, const struct gpu_spec *g,
			    double *op_ms, double *gemm_flop, double lohi[2], int *key, char *err,
			    size_t errlen)
{
	struct model_seq s;
	struct model_timing t;
	if (model_build(c, o, &s, err, errlen))
		return -1;
	if (gemm_flop) {
		*gemm_flop = 0;
		for (size_t i = 0; i < s.n; i++)
			if (s.v[i].k.op == PRED_OP_GEMM)
				*gemm_flop += s.v[i].k.flops;
	}
	int rc = model_time(&s, o, g, MODEL_LAUNCH_AUTO, &t);
	model_seq_release(&s);
	if (rc) {
		snprintf(err, errlen, "cannot time the build");
		return -1;
	}
	for (int i = 0; op_ms && i < PRED_OP_COUNT; i++)
		op_ms[i] = t.op_ns[i] / 1e6;
	if (lohi) {
		lohi[0] = t.iteration_low_ns / 1e6;
		lohi[1] = t.iteration_high_ns / 1e6;
	}
	if (key)
		*key = (int)interval_iteration_method(t.method_ns);
	return t.iteration_ns / 1e6;
}

static double predict(const struct model_config *c, struct model_opts *o, const struct gpu_spec *g,
		      char *err, size_t errlen)
{
	return predict_parts(c, o, g, NULL, NULL, NULL, NULL, err, errlen);
}

/* ---- the fitted constants, each architecture held out -------------------- */

/* The constant sets a run's predictor carries, each fitted without the
 * run's architecture unless --compiled keeps it compiled-in. */
enum { SV_K_GEMM = 1, SV_K_COMM = 2, SV_K_ATTN = 4, SV_K_VEC = 8 };
#define SV_K_ALL (SV_K_GEMM | SV_K_COMM | SV_K_ATTN | SV_K_VEC)

/* The custom all-reduce's stage cost where the H100 figures it was taken
 * from (comm.c) are held out: the one other published figure of a
 * graph-captured one-shot kernel, 4 us at 4 KiB over PCIe on four V100s
 * (sglang-V100 PR #2, serving-engines.md 3.3), us. */
#define SV_CUSTOM_AR_NO_HOPPER_US 4.0

/* The held-out constants of each architecture (arch_of()), fitted when
 * first asked for. */
struct sv_tc {
	char root[1100];                  /* the shared data folder             */
	int tried[SV_NARCH];
	struct tcgemm_params p[SV_NARCH];
	struct comm_params comm[SV_NARCH];
	struct attn_params attn[SV_NARCH];
	struct vecop_params vec[SV_NARCH];
	double comm_err[SV_NARCH][5];     /* the comm fit's errors (bench_e2e.h) */
	int tc_fitted[SV_NARCH], comm_fitted[SV_NARCH];
	int vec_fitted[SV_NARCH];         /* 1: refitted; 2: compiled-in, the
					   * data holding no GPU of it; 0:
					   * compiled-in (--compiled vec, a
					   * failure)                          */
	struct predictor *pred[SV_NARCH]; /* NULL: everything compiled-in       */
	char err[256];                    /* why the last fit failed            */
	int compiled;                     /* SV_K_* bits kept compiled-in       */
};

/* The predictor for runs of architecture ar: the constants fitted without
 * every compute capability ar groups (gpu_specs' NVIDIA GPUs): the
 * tensor-core GEMM constants (bench_tc_fit_heldout), the collective ones
 * (bench_comm_fit, on vidur's and PipeWeave's NCCL files), the
 * attention main loop's efficiency (attention_fit_mma_eff, on the held-out
 * GEMM constants) and the vector-op constants (bench_vec_fit_heldout:
 * Vidur's FP16 operators, NeuSight's FP32 ones where the architecture
 * takes Vidur's GPUs away; compiled-in where the data has no GPU of it);
 * a set that cannot be fitted, or that --compiled names, stays
 * compiled-in (NULL: all of them). */
static const struct predictor *sv_pred(struct sv_tc *t, int ar)
{
	if (t->tried[ar])
		return t->pred[ar];
	t->tried[ar] = 1;
	uint32_t cc[32];
	size_t ncc = 0, ng;
	const struct gpu_spec *all = gpu_all(&ng);
	for (size_t i = 0; i < ng; i++) {
		if (!gpu_cc_in(all[i].cc, cc, ncc) && ncc < 32 && !gpu_cc_is_amd(all[i].cc) &&
		    arch_of(&all[i]) == ar)
			cc[ncc++] = all[i].cc;
	}
	t->p[ar] = tcgemm_default_params;
	t->comm[ar] = comm_default_params;
	t->attn[ar] = attention_default_params;
	t->vec[ar] = vecop_default_params;
	if (!(t->compiled & SV_K_GEMM)) {
		if (bench_tc_fit_heldout(t->root, cc, ncc, &t->p[ar], t->err, sizeof(t->err)) < 0) {
			fprintf(stderr, PROG ": serving: %s held out: %s; its runs take the compiled-in "
				"tensor-core constants\n", sv_arch[ar], t->err);
			t->p[ar] = tcgemm_default_params;
		} else {
			t->tc_fitted[ar] = 1;
		}
	}
	if (!(t->compiled & SV_K_COMM)) {
		char d1[1200], d2[1200];
		snprintf(d1, sizeof(d1), "%s/vidur/network", t->root);
		snprintf(d2, sizeof(d2), "%s/pipeweave/collective", t->root);
		const char *dirs[2] = { d1, d2 };
		if (bench_comm_fit(dirs, 2, cc, ncc, &t->comm[ar], t->comm_err[ar], t->err,
				   sizeof(t->err)) < 0) {
			fprintf(stderr, PROG ": serving: %s held out: %s; its runs take the compiled-in "
				"collective constants\n", sv_arch[ar], t->err);
			t->comm[ar] = comm_default_params;
		} else {
			t->comm_fitted[ar] = 1;
			if (ar == 2)
				t->comm[ar].custom_ar_stage_us = SV_CUSTOM_AR_NO_HOPPER_US;
		}
	}
	if (!(t->compiled & SV_K_ATTN)) {
		double eff = attention_fit_mma_eff(&t->p[ar], cc, ncc);
		if (eff > 0)
			t->attn[ar].mma_eff = eff;
	}
	if (!(t->compiled & SV_K_VEC)) {
		int rc = bench_vec_fit_heldout(t->root, cc, ncc, &t->vec[ar], t->err, sizeof(t->err));
		if (rc < 0) {
			fprintf(stderr, PROG ": serving: %s held out: %s; its runs take the compiled-in "
				"vector-op constants\n", sv_arch[ar], t->err);
			t->vec[ar] = vecop_default_params;
		}
		t->vec_fitted[ar] = rc == 0 ? 1 : rc == 1 ? 2 : 0;
	}
	if ((t->compiled & SV_K_ALL) == SV_K_ALL)
		return t->pred[ar] = NULL;
	char perr[128];
	struct pred_config pc = { .tcgemm = &t->p[ar], .comm = &t->comm[ar], .attn = &t->attn[ar],
				  .vecop = &t->vec[ar] };
	if (predictor_new(&pc, &t->pred[ar], perr, sizeof(perr)) < 0) {
		fprintf(stderr, PROG ": serving: %s held out: %s; its runs take the compiled-in "
			"constants\n", sv_arch[ar], perr);
		t->pred[ar] = NULL;
	}
	return t->pred[ar];
}

/* Whether the runs of architecture ar were predicted with every constant
 * set fitted without it (a set refitted, or compiled-in from data that
 * hold no GPU of it): what a dump calls held-out. */
static int sv_held_out(const struct sv_tc *t, int ar)
{
	return !t->compiled && t->pred[ar] && t->tc_fitted[ar] && t->comm_fitted[ar] && t->vec_fitted[ar];
}

/* --dump: the prefill and the decode step of each run as rows of an e2e
 * dump (surfer-bench e2e --dump's columns), which surfer-bench calibrate
 * reads as whole iterations of their interval key.  0, or -1 after a
 * message. */
static int write_dump(const char *path, const struct sv_run *runs, size_t n, const struct sv_tc *t)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, PROG ": cannot write '%s'\n", path);
		return -1;
	}
	fprintf(f, "gpu,config,weights,measured_ms,predicted_ms,method\n");
	for (size_t i = 0; i < n; i++) {
		const struct sv_run *r = &runs[i];
		double pred[2] = { r->sg[SV_P], r->held_d };
		for (int k = SV_P; k <= SV_D; k++)
			fprintf(f, "%s,%s-%s-tp%u-%s,%s,%.4f,%.4f,%s\n", r->gpu->id, r->model, r->workload,
				r->tp, k == SV_P ? "prefill" : "decode",
				sv_held_out(t, r->arch) ? "held-out" : "in-sample", r->real[k], pred[k],
				pred_method_name((enum pred_method)r->sg_key[k]));
	}
	if (fclose(f) != 0) {
		fprintf(stderr, PROG ": cannot write '%s'\n", path);
		return -1;
	}
	return 0;
}

static void sv_tc_release(struct sv_tc *t)
{
	for (int ar = 0; ar < SV_NARCH; ar++)
		predictor_free(t->pred[ar]);
}

/* One line per architecture: the held-out constants' main terms and the
 * share of the dense peak (the MAMF figure or the rule) of each GPU the
 * runs name, as they take it. */
static void sv_tc_print(const struct sv_tc *t, const struct sv_run *runs, size_t n)
{
	printf("\nconstants fitted without each architecture (the compiled-in collectives: NVLink %.3f, "
	       "%.1f us, NVLS %.3f, PCIe %.3f (peer-to-peer %.3f), custom AR %.1f us; tensor-core: eff %.3f, "
	       "mamf_1024 %.3f, rate_pow %+.3f, W/TF %.2f^%.2f):\n",
	       comm_default_params.nvlink_eff, comm_default_params.nvlink_latency_us,
	       comm_default_params.nvls_eff, comm_default_params.pcie_eff,
	       comm_default_params.pcie_p2p_eff, comm_default_params.custom_ar_stage_us, tcgemm_default_params.eff[GPU_DT_FP16], tcgemm_default_params.mamf_1024,
	       tcgemm_default_params.rate_pow, tcgemm_default_params.power_w_ref,
	       tcgemm_default_params.power_pow);
	for (int ar = 0; ar < SV_NARCH; ar++) {
		size_t i = 0;
		while (i < n && runs[i].arch != ar)
			i++;
		if (i == n)
			continue;
		const struct comm_params *c = &t->comm[ar];
		printf("  %-9s attention eff %.3f (compiled-in %.4f); collectives: NVLink %.3f, %.1f us, "
		       "NVLS %.3f, PCIe %.3f (peer-to-peer %.3f), custom AR %.1f us%s\n", sv_arch[ar],
		       t->attn[ar].mma_eff, attention_default_params.mma_eff, c->nvlink_eff,
		       c->nvlink_latency_us, c->nvls_eff, c->pcie_eff, c->pcie_p2p_eff, c->custom_ar_stage_us,
		       t->comm_fitted[ar] ? "" : " (compiled-in)");
		const struct vecop_params *v = &t->vec[ar];
		printf("  %-9s vector ops: bw_exp %.1f, elementwise eff %.3f floor %.0f ns, norm %.3f %.0f ns, "
		       "softmax %.3f %.0f ns%s\n", sv_arch[ar], v->bw_exp, v->eff[VECOP_ELEMENTWISE],
		       v->floor_ns[VECOP_ELEMENTWISE], v->eff[VECOP_NORM], v->floor_ns[VECOP_NORM],
		       v->eff[VECOP_SOFTMAX], v->floor_ns[VECOP_SOFTMAX],
		       t->vec_fitted[ar] == 1 ? "" : t->vec_fitted[ar] == 2
		       ? " (compiled-in: fitted on no GPU of it)" : " (compiled-in)");
		if (!t->tc_fitted[ar]) {
			printf("  %-9s the compiled-in tensor-core constants\n", sv_arch[ar]);
			continue;
		}
		const struct tcgemm_params *p = &t->p[ar];
		printf("  %-9s eff %.3f, mamf_1024 %.3f, rate_pow %+.3f, W/TF %.2f^%.2f; share:", sv_arch[ar],
		       p->eff[GPU_DT_FP16], p->mamf_1024, p->rate_pow, p->power_w_ref, p->power_pow);
		const struct gpu_spec *done[16];
		size_t nd = 0;
		for (size_t i = 0; i < n; i++) {
			size_t x = 0;
			while (x < nd && done[x] != runs[i].gpu)
				x++;
			if (runs[i].arch != ar || x < nd || nd == 16)
				continue;
			done[nd++] = runs[i].gpu;
			printf(" %s %.3f (compiled-in %.3f)", runs[i].gpu->id,
			       tcgemm_mamf_share(runs[i].gpu, p, NULL),
			       tcgemm_mamf_share(runs[i].gpu, NULL, NULL));
		}
		printf("\n");
	}
}

/* Predicts run r with predictor pred (an architecture's held-out
 * constants; NULL: the compiled-in ones): everything, or with decode_only
 * the SGLang decode step alone (r->sg[SV_D]). */
static int predict_run(const char *dir, struct sv_run *r, const struct predictor *pred,
		       int decode_only)
{
	char path[2048], err[256];
	struct model_config c;
	snprintf(path, sizeof(path), "%s/config/%s.json", dir, r->model);
	if (model_config_load(path, &c, err, sizeof(err))) {
		fprintf(stderr, PROG ": serving: %s: %s\n", path, err);
		return -1;
	}
	uint32_t ctx[SV_MAX_LENS], maxp = 0;
	double meanctx = 0, meanp = 0;
	uint32_t k = (r->out - 2) / 2;
	for (uint32_t i = 0; i < r->n; i++) {
		ctx[i] = r->lens[i] + k;
		meanctx += ctx[i];
		meanp += r->lens[i];
		maxp = r->lens[i] > maxp ? r->lens[i] : maxp;
	}
	meanctx /= r->n;
	meanp /= r->n;
	(void)maxp;
	struct model_opts o;
	model_opts_init(&o);
	o.dtype = GPU_DT_BF16;
	o.tp = r->tp;
	o.engine = MODEL_ENGINE_SGLANG;
	o.pred = pred;
	o.nlens = o.batch = r->n;
	o.mode = MODEL_DECODE;
	o.lens = ctx;
	double lohi[2];
	r->sg[SV_D] = predict_parts(&c, &o, r->gpu, r->d_op_ms, NULL, lohi, &r->sg_key[SV_D], err,
				    sizeof(err));
	r->sg_lo[SV_D] = lohi[0];
	r->sg_hi[SV_D] = lohi[1];
	if (decode_only) {
		if (r->sg[SV_D] < 0)
			fprintf(stderr, PROG ": serving: %s on %s: %s\n", r->model, r->gpu_tok, err);
		return r->sg[SV_D] < 0 ? -1 : 0;
	}
	o.mode = MODEL_PREFILL;
	o.lens = r->lens;
	r->sg[SV_P] = predict_parts(&c, &o, r->gpu, r->p_op_ms, &r->p_gemm_flop, lohi, &r->sg_key[SV_P], err,
				    sizeof(err));
	r->sg_lo[SV_P] = lohi[0];
	r->sg_hi[SV_P] = lohi[1];
	r->sg[SV_T] = r->sg[SV_P] + (r->out - 1) * r->sg[SV_D];
	model_opts_init(&o);
	o.pred = pred;
	o.dtype = GPU_DT_BF16;
	o.tp = r->tp;
	o.attention = MODEL_ATTN_SDPA;
	o.batch = r->n;
	o.seq = (uint32_t)(meanp + 0.5);
	r->hf[SV_P] = predict(&c, &o, r->gpu, err, sizeof(err));
	o.mode = MODEL_DECODE;
	o.seq = (uint32_t)(meanctx + 0.5);
	r->hf[SV_D] = predict(&c, &o, r->gpu, err, sizeof(err));
	r->hf[SV_T] = r->hf[SV_P] + (r->out - 1) * r->hf[SV_D];
	if (r->sg[SV_P] < 0 || r->sg[SV_D] < 0) {
		fprintf(stderr, PROG ": serving: %s on %s: %s\n", r->model, r->gpu_tok, err);
		return -1;
	}
	return 0;
}

/* The step constant refitted without architecture arch (-1: none): the
 * median of measured minus predicted-without-the-constant over the other
 * runs, their steps predicted with the tensor-core constants of slot
 * (struct sv_run's dec_by: arch's held-out ones, or the compiled-in). */
static double fit_step(const struct sv_run *runs, size_t n, int arch, int slot)
{
	double v[SV_MAX_RUNS];
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (runs[i].arch != arch)
			v[m++] = runs[i].real[SV_D] - (runs[i].dec_by[slot] - MODEL_SERVE_STEP_CPU_NS / 1e6);
	/* a CPU time: never below 0 */
	double c = lab_median(v, m);
	return c > 0 ? c : 0;
}

static void cell(double pred, double real)
{
	double e = ape(pred, real);
	if (isnan(e))
		printf(" %6s", "-");
	else
		printf(" %6.1f", e);
}

/* Per-GPU and overall means of one column (k: SV_P/D/T). */
struct sv_acc {
	double sum[8][SV_N];
	int cnt[8][SV_N];
};

static void acc_add(struct sv_acc *a, int col, int k, double pred, double real)
{
	double e = ape(pred, real);
	if (!isnan(e)) {
		a->sum[col][k] += e;
		a->cnt[col][k]++;
	}
}

static void acc_print(const struct sv_acc *a, int ncol)
{
	for (int col = 0; col < ncol; col++)
		for (int k = 0; k < SV_N; k++) {
			if (a->cnt[col][k])
				printf(" %6.1f", a->sum[col][k] / a->cnt[col][k]);
			else
				printf(" %6s", "-");
		}
	printf("\n");
}

/* the columns: surfer sglang (held out), surfer hf, then the others */
static void add_run(struct sv_acc *a, const struct sv_run *r)
{
	double sg[SV_N] = { r->sg[SV_P], r->held_d, r->held_t };
	for (int k = 0; k < SV_N; k++) {
		acc_add(a, 0, k, sg[k], r->real[k]);
		acc_add(a, 1, k, r->hf[k], r->real[k]);
		for (int m = 0; m < SV_NOTHER; m++)
			acc_add(a, 2 + m, k, m == SV_ROOF && k == SV_D ? 0 : r->other[m][k], r->real[k]);
	}
}

/* How often surfer's interval (the committed table's, at its default
 * probability) held the measured time, per part: inside, below its low
 * end (the run faster than the interval), above its high end. */
static void print_coverage(const struct sv_run *runs, size_t n)
{
	static const char *const part[SV_N] = { "prefill", "decode", "whole batch" };
	printf("%.0f %% intervals (the committed interval table), the measured time inside / below / above:",
	       IV_DEFAULT_P * 100);
	for (int k = 0; k < SV_N; k++) {
		struct lab_cover c = {0};
		for (size_t i = 0; i < n; i++)
			lab_cover_add(&c, runs[i].real[k], runs[i].sg_lo[k], runs[i].sg_hi[k]);
		printf(" %s %zu / %zu / %zu of %zu (%.0f %%)%s", part[k], c.in, c.below, c.above, n,
		       n ? 100.0 * (double)c.in / (double)n : 0.0, k + 1 < SV_N ? ";" : "\n");
	}
}

/* ---- vLLM: whole batches of `vllm bench latency` ------------------------ */

/* A measured vLLM run: real/vllm_WORKLOAD_GPU_MODEL.json (latencies of
 * whole generate() calls, s). */
struct sv_vllm {
	char workload[32], gpu_tok[32], model[64];
	const struct gpu_spec *gpu;
	uint32_t tp, pp, lens[SV_MAX_LENS], n, out;
	double real_ms, pred_ms, other[SV_NOTHER];
	double lo_ms, hi_ms;              /* pred_ms's interval: the prefill's
					   * and the mean step's ends, summed */
};

/* The model, TP and PP of workload w from workload/MODEL_vllm_W_*_tpT_ppP.json. */
static int vllm_layout(const char *dir, struct sv_vllm *v)
{
	char path[2048], key[64];
	snprintf(path, sizeof(path), "%s/workload", dir);
	snprintf(key, sizeof(key), "_vllm_%.40s_", v->workload);
	DIR *d = opendir(path);
	struct dirent *e;
	int found = -1;
	while (d && (e = readdir(d))) {
		const char *k = strstr(e->d_name, key), *t = strstr(e->d_name, "_tp"), *q = strstr(e->d_name, "_pp");
		if (!k || !t || !q)
			continue;
		snprintf(v->model, sizeof(v->model), "%.*s", (int)(k - e->d_name), e->d_name);
		v->tp = (uint32_t)strtoul(t + 3, NULL, 10);
		v->pp = (uint32_t)strtoul(q + 3, NULL, 10);
		found = v->tp && v->pp ? 0 : -1;
		break;
	}
	if (d)
		closedir(d);
	return found;
}

/* Predicts a whole vLLM batch: the prefill in chunks of its token budget
 * (max_num_batched_tokens: 16384 on GPUs of 70 GiB or more but the A100,
 * 8192 elsewhere; serving-engines.md 5.1), then out - 1 decode steps,
 * their mean taken over 9 evenly spread steps. */
static double vllm_predict(const char *dir, struct sv_vllm *v, const struct predictor *pred,
			   char *err, size_t errlen)
{
	char path[2048];
	struct model_config c;
	snprintf(path, sizeof(path), "%s/config/%s.json", dir, v->model);
	if (model_config_load(path, &c, err, errlen))
		return -1;
	struct model_opts o;
	model_opts_init(&o);
	o.engine = MODEL_ENGINE_VLLM;
	o.pred = pred;
	o.dtype = GPU_DT_BF16;
	o.tp = v->tp;
	o.pp = v->pp;
	o.mode = MODEL_PREFILL;
	o.lens = v->lens;
	o.nlens = o.batch = v->n;
	int big = gpu_mem_bytes(v->gpu) >= 70.0 * 1024 * 1024 * 1024 && v->gpu->cc != 80;
	o.chunk = big ? 16384 : 8192;
	double lohi[2];
	double t = predict_parts(&c, &o, v->gpu, NULL, NULL, lohi, NULL, err, errlen);
	if (t < 0)
		return -1;
	uint32_t ctx[SV_MAX_LENS], steps = v->out - 1, ns = 9;
	double sum = 0, lo = 0, hi = 0;
	o.mode = MODEL_DECODE;
	o.chunk = 0;
	o.lens = ctx;
	for (uint32_t j = 0; j < ns; j++) {
		uint32_t k = (uint32_t)((uint64_t)j * (steps - 1) / (ns - 1));
		for (uint32_t i = 0; i < v->n; i++)
			ctx[i] = v->lens[i] + k;
		double dlohi[2];
		double d = predict_parts(&c, &o, v->gpu, NULL, NULL, dlohi, NULL, err, errlen);
		if (d < 0)
			return -1;
		sum += d;
		lo += dlohi[0];
		hi += dlohi[1];
	}
	v->lo_ms = lohi[0] + steps * lo / ns;
	v->hi_ms = lohi[1] + steps * hi / ns;
	return t + steps * sum / ns;
}

/* Each run predicted with its architecture's held-out constants (tc). */
static void vllm_runs(const char *dir, struct sv_tc *tc)
{
	char path[2048];
	snprintf(path, sizeof(path), "%s/real", dir);
	DIR *d = opendir(path);
	struct dirent *e;
	struct sv_vllm runs[16];
	size_t n = 0;
	while (d && (e = readdir(d)) && n < 16) {
		if (strncmp(e->d_name, "vllm_", 5) || !strstr(e->d_name, ".json"))
			continue;
		struct sv_vllm *v = &runs[n];
		memset(v, 0, sizeof(*v));
		char name[256];
		snprintf(name, sizeof(name), "%.200s", e->d_name + 5);
		char *u1 = strchr(name, '_'), *u2 = u1 ? strchr(u1 + 1, '_') : NULL;
		if (!u1 || !u2)
			continue;
		*u1 = *u2 = 0;
		snprintf(v->workload, sizeof(v->workload), "%.31s", name);
		snprintf(v->gpu_tok, sizeof(v->gpu_tok), "%.31s", u1 + 1);
		v->gpu = gpu_of(dir, v->gpu_tok);
		snprintf(path, sizeof(path), "%s/real/%.255s", dir, e->d_name);
		json_error_t je;
		json_t *j = json_load_file(path, 0, &je), *l = j ? json_object_get(j, "latencies") : NULL, *x;
		double lat[32];
		size_t nl = 0, i;
		json_array_foreach(l, i, x)
			if (nl < 32 && json_is_number(x))
				lat[nl++] = json_number_value(x) * 1e3;
		json_decref(j);
		struct sv_run w;      /* the workload's lengths, as the SGLang runs read them */
		memset(&w, 0, sizeof(w));
		snprintf(w.workload, sizeof(w.workload), "vllm_%.40s", v->workload);
		if (!v->gpu || !nl || vllm_layout(dir, v) || load_workload(dir, &w))
			continue;
		memcpy(v->lens, w.lens, sizeof(v->lens));
		v->n = w.n;
		v->out = w.out;
		v->real_ms = lab_median(lat, nl);
		n++;
	}
	if (d)
		closedir(d);
	if (!n)
		return;
	/* the other methods' whole-batch predictions */
	struct csv_reader c;
	snprintf(path, sizeof(path), "%s/vllm_comparison.csv", dir);
	if (!csv_open(&c, path, CSV_COMMENTS)) {
		int cm = -1, ch = -1, cw = -1, cp = -1;
		while (csv_next(&c) == 1) {
			if (cm < 0) {
				cm = csv_col(&c, "Method");
				ch = csv_col(&c, "Hardware");
				cw = csv_col(&c, "Workload");
				cp = csv_col(&c, "pred_e2e_ms");
				if (cm < 0 || ch < 0 || cw < 0 || cp < 0)
					break;
				continue;
			}
			for (size_t i = 0; i < n; i++)
				for (int m = 0; m < SV_NOTHER; m++)
					if (!strcmp(csv_field(&c, (size_t)cm), sv_other[m]) &&
					    !strcmp(csv_field(&c, (size_t)ch), runs[i].gpu_tok) &&
					    !strcmp(csv_field(&c, (size_t)cw), runs[i].workload))
						runs[i].other[m] = strtod(csv_field(&c, (size_t)cp), NULL);
		}
		csv_release(&c);
	}
	printf("\n# vLLM (`vllm bench latency`, whole generate() calls; real = the median of the\n"
	       "# latencies): surfer = --engine vllm --mode serve with its chunked prefill; whole-batch error %%\n");
	printf("%-6s %-12s %-14s %5s %4s %9s | %7s %9s %8s %8s %8s\n", "gpu", "workload", "model", "tp/pp",
	       "seqs", "real ms", "surfer", "pipeweave", "neusight", "habitat", "roofline");
	double sum[1 + SV_NOTHER] = { 0 };
	int cnt[1 + SV_NOTHER] = { 0 };
	struct lab_cover cov = {0};
	for (size_t i = 0; i < n; i++) {
		struct sv_vllm *v = &runs[i];
		char err[256] = "";
		v->pred_ms = vllm_predict(dir, v, sv_pred(tc, arch_of(v->gpu)), err, sizeof(err));
		if (v->pred_ms > 0)
			lab_cover_add(&cov, v->real_ms, v->lo_ms, v->hi_ms);
		printf("%-6s %-12s %-14s %3u/%u %4u %9.1f |", v->gpu_tok, v->workload, v->model, v->tp, v->pp,
		       v->n, v->real_ms);
		double e = ape(v->pred_ms, v->real_ms);
		if (isnan(e)) {
			printf(" %7s", "-");
		} else {
			printf(" %7.1f", e);
			sum[0] += e;
			cnt[0]++;
		}
		for (int m = 0; m < SV_NOTHER; m++) {
			double x = ape(v->other[m], v->real_ms);
			if (isnan(x)) {
				printf(" %8s", "-");
			} else {
				printf(" %8.1f", x);
				sum[1 + m] += x;
				cnt[1 + m]++;
			}
		}
		printf("%s%s\n", err[0] ? "  " : "", err);
	}
	printf("%-6s %-12s %-14s %5s %4s %9s |", "mean", "", "", "", "", "");
	for (int m = 0; m <= SV_NOTHER; m++) {
		if (cnt[m])
			printf(" %*.1f", m ? 8 : 7, sum[m] / cnt[m]);
		else
			printf(" %*s", m ? 8 : 7, "-");
	}
	printf("\n%.0f %% intervals (the prefill's and the mean step's ends, summed), the measured batch "
	       "inside / below / above: %zu / %zu / %zu of %zu\n", IV_DEFAULT_P * 100, cov.in, cov.below,
	       cov.above, cov.in + cov.below + cov.above);
}

/* --rows: each run's prefill by part.  The GEMMs are most of a prefill;
 * the share of the GPU's dense BF16 peak they run at as predicted, and
 * the share the measurement leaves them (the measured prefill less the
 * predicted time of everything else, the held-out step constant
 * included), say whether a prefill's error is the GEMM rate or the rest. */
static void print_parts(const struct sv_run *runs, size_t n)
{
	printf("\n# prefill by part (--rows): signed error %%; predicted ms of the GEMMs, attention,\n"
	       "# norms and element-wise ops, collectives; the GEMMs' rate over the dense BF16 peak\n"
	       "# as predicted and as the measurement implies (its prefill less the rest predicted)\n");
	printf("%-14s %2s %-13s %-13s %9s %8s | %9s %8s %8s %8s | %6s %7s %7s\n", "gpu", "tp", "model",
	       "workload", "real P ms", "err %", "gemm", "attn", "vector", "comm", "peak", "pred", "implied");
	for (size_t i = 0; i < n; i++) {
		const struct sv_run *r = &runs[i];
		const double *op = r->p_op_ms;
		double vecs = op[PRED_OP_ELEMENTWISE] + op[PRED_OP_REDUCTION] + op[PRED_OP_SOFTMAX] +
			      op[PRED_OP_NORM];
		double rest = r->sg[SV_P] - op[PRED_OP_GEMM];
		double peak = r->gpu->peak_tflops[GPU_DT_BF16] * 1e12, left = r->real[SV_P] - rest;
		printf("%-14s %2u %-12s %-13s %9.1f %+8.1f | %9.1f %8.1f %8.1f %8.1f | %6.1f", r->gpu_tok, r->tp,
		       r->model, r->workload, r->real[SV_P], (r->sg[SV_P] / r->real[SV_P] - 1) * 100,
		       op[PRED_OP_GEMM], op[PRED_OP_ATTENTION], vecs, op[PRED_OP_COMM], peak / 1e12);
		if (peak > 0 && op[PRED_OP_GEMM] > 0)
			printf(" %7.3f", r->p_gemm_flop / (op[PRED_OP_GEMM] / 1e3) / peak);
		else
			printf(" %7s", "-");
		if (peak > 0 && left > 0)
			printf(" %7.3f\n", r->p_gemm_flop / (left / 1e3) / peak);
		else
			printf(" %7s\n", "-");
	}
}

/* --rows: each run's decode step by part, signed error with the held-out
 * step constant; the share of the step each class of kernels takes as
 * predicted (kernel time, not overlap-aware: the classes' sum is the
 * GPU's busy time, the step adds the CPU and launch gaps). */
static void print_decode_parts(const struct sv_run *runs, size_t n)
{
	printf("\n# decode step by part (--rows): signed error %%; predicted kernel ms of the\n"
	       "# GEMMs, attention, norms and element-wise ops, collectives, and the rest of the step\n");
	printf("%-14s %2s %-13s %-13s %9s %8s | %8s %8s %8s %8s %8s\n", "gpu", "tp", "model", "workload",
	       "real D ms", "err %", "gemm", "attn", "vector", "comm", "rest");
	for (size_t i = 0; i < n; i++) {
		const struct sv_run *r = &runs[i];
		const double *op = r->d_op_ms;
		double vecs = op[PRED_OP_ELEMENTWISE] + op[PRED_OP_REDUCTION] + op[PRED_OP_SOFTMAX] +
			      op[PRED_OP_NORM];
		double rest = r->held_d - op[PRED_OP_GEMM] - op[PRED_OP_ATTENTION] - vecs - op[PRED_OP_COMM];
		printf("%-14s %2u %-12s %-13s %9.2f %+8.1f | %8.2f %8.2f %8.2f %8.2f %8.2f\n", r->gpu_tok,
		       r->tp, r->model, r->workload, r->real[SV_D], (r->held_d / r->real[SV_D] - 1) * 100,
		       op[PRED_OP_GEMM], op[PRED_OP_ATTENTION], vecs, op[PRED_OP_COMM], rest);
	}
}

int bench_serving_main(const struct bench_args *a)
{
	if (a->help) {
		printf("usage: " PROG " serving --data DIR [--gpu GPU] [--rows] [--gemm-data DIR|none]\n"
		       "       [--compiled gemm,comm,attn,vec]\n"
		       "  DIR: PipeWeave's e2e folder (real/, workload/, config/, hardware/,\n"
		       "  *_comparison.csv), or a folder holding pipeweave/e2e\n"
		       "  --gemm-data: the shared data folder the constants are refitted on without\n"
		       "  each architecture (measured GEMMs, NCCL files; default: the folder above\n"
		       "  the e2e folder's parent); none: the compiled-in tensor-core constants\n"
		       "  --compiled: the constant sets kept compiled-in for every run (gemm: the\n"
		       "  tensor-core GEMMs, comm: the collectives, attn: fused attention's\n"
		       "  main-loop efficiency, vec: the vector-op model's); the rest are refitted\n"
		       "  per held-out architecture\n"
		       "  --rows: each run's prefill by part, and its GEMMs' rate predicted and\n"
		       "  implied by the measurement\n");
		return 0;
	}
	if (!a->data) {
		fprintf(stderr, PROG ": serving: --data DIR is needed\n");
		return surfer_exit_code(SURFER_EINVAL);
	}
	char dir[1024], probe[1100];
	if (strlen(a->data) > 1000) {
		fprintf(stderr, PROG ": serving: --data path too long\n");
		return surfer_exit_code(SURFER_EINVAL);
	}
	struct stat st;
	if (a->gemm_data && strcmp(a->gemm_data, "none") &&
	    (stat(a->gemm_data, &st) != 0 || !S_ISDIR(st.st_mode))) {
		fprintf(stderr, PROG ": serving: --gemm-data '%s' is no folder\n", a->gemm_data);
		return surfer_exit_code(SURFER_EINVAL);
	}
	snprintf(dir, sizeof(dir), "%s", a->data);
	snprintf(probe, sizeof(probe), "%s/real", dir);
	if (stat(probe, &st) != 0)
		snprintf(dir, sizeof(dir), "%s/pipeweave/e2e", a->data);
	snprintf(probe, sizeof(probe), "%s/real", dir);
	DIR *d = opendir(probe);
	if (!d) {
		fprintf(stderr, PROG ": serving: no measured runs in '%s' (real/ missing)\n", a->data);
		return surfer_exit_code(SURFER_EINVAL);
	}
	static struct sv_run runs[SV_MAX_RUNS];
	size_t n = 0;
	/* the measured GEMMs: --gemm-data, else the shared data folder
	 * (--data itself, or the e2e folder's grandparent); none: the
	 * compiled-in constants */
	static struct sv_tc tc;
	memset(&tc, 0, sizeof(tc));
	for (const char *c = a->compiled; c && *c;) {
		size_t len = strcspn(c, ",");
		if (len == 4 && !strncmp(c, "gemm", 4))
			tc.compiled |= SV_K_GEMM;
		else if (len == 4 && !strncmp(c, "comm", 4))
			tc.compiled |= SV_K_COMM;
		else if (len == 4 && !strncmp(c, "attn", 4))
			tc.compiled |= SV_K_ATTN;
		else if (len == 3 && !strncmp(c, "vec", 3))
			tc.compiled |= SV_K_VEC;
		else {
			fprintf(stderr, PROG ": serving: --compiled '%.*s': gemm, comm, attn or vec\n",
				(int)len, c);
			closedir(d);
			return surfer_exit_code(SURFER_EINVAL);
		}
		c += len + (c[len] == ',');
	}
	if (a->gemm_data && !strcmp(a->gemm_data, "none"))
		tc.compiled |= SV_K_GEMM;
	if (a->gemm_data && strcmp(a->gemm_data, "none"))
		snprintf(tc.root, sizeof(tc.root), "%.1000s", a->gemm_data);
	else if (!strcmp(dir, a->data))
		snprintf(tc.root, sizeof(tc.root), "%s/../..", dir);
	else
		snprintf(tc.root, sizeof(tc.root), "%s", a->data);
	struct dirent *e;
	char *names[64];
	size_t nn = 0;
	while ((e = readdir(d)) && nn < 64)
		if (!strncmp(e->d_name, "e2e_", 4) && strstr(e->d_name, ".jsonl"))
			names[nn++] = strdup(e->d_name);
	closedir(d);
	for (size_t i = 1; i < nn; i++)        /* a stable order */
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (size_t i = 0; i < nn; i++) {
		load_real(dir, names[i], runs, &n);
		free(names[i]);
	}
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		struct sv_run *r = &runs[i];
		r->gpu = gpu_of(dir, r->gpu_tok);
		if (!r->gpu || load_workload(dir, r) ||
		    (a->gpu && gpu_find(a->gpu) != r->gpu)) {
			if (!r->gpu)
				fprintf(stderr, PROG ": serving: unknown GPU '%s', skipped\n", r->gpu_tok);
			continue;
		}
		r->arch = arch_of(r->gpu);
		if (predict_run(dir, r, sv_pred(&tc, r->arch), 0))
			continue;
		runs[kept++] = *r;
	}
	n = kept;
	if (!n) {
		fprintf(stderr, PROG ": serving: no run could be predicted\n");
		sv_tc_release(&tc);
		return surfer_exit_code(SURFER_EINVAL);
	}
	for (int m = 0; m < SV_NOTHER; m++)
		load_other(dir, m, runs, n);
	/* the step constant, each architecture held out: fitted on the other
	 * architectures' steps as the held-out architecture's tensor-core
	 * constants predict them, so that nothing it was fitted with saw it */
	double fitted[SV_NARCH] = { 0 };
	int seen[SV_NARCH] = { 0 };
	for (size_t i = 0; i < n; i++)
		seen[runs[i].arch] = 1;
	for (size_t i = 0; i < n; i++)
		for (int sl = 0; sl <= SV_NARCH; sl++) {
			struct sv_run x = runs[i];
			if (sl == runs[i].arch)
				runs[i].dec_by[sl] = runs[i].sg[SV_D];
			else if (sl == SV_NARCH || seen[sl])
				runs[i].dec_by[sl] = predict_run(dir, &x, sl < SV_NARCH ? sv_pred(&tc, sl) : NULL, 1)
						     ? NAN : x.sg[SV_D];
		}
	for (int ar = 0; ar < SV_NARCH; ar++)
		if (seen[ar])
			fitted[ar] = fit_step(runs, n, ar, ar);
	for (size_t i = 0; i < n; i++) {
		struct sv_run *r = &runs[i];
		/* the prefill is one pass: it starts with the constant too; the
		 * intervals move with their predictions (the constant is CPU
		 * time, which they leave as it is) */
		double shift = fitted[r->arch] - MODEL_SERVE_STEP_CPU_NS / 1e6;
		r->sg[SV_P] += shift;
		r->held_d = r->sg[SV_D] + shift;
		r->held_t = r->sg[SV_P] + (r->out - 1) * r->held_d;
		for (int k = SV_P; k <= SV_D; k++) {
			r->sg_lo[k] += shift;
			r->sg_hi[k] += shift;
		}
		r->sg_lo[SV_T] = r->sg_lo[SV_P] + (r->out - 1) * r->sg_lo[SV_D];
		r->sg_hi[SV_T] = r->sg_hi[SV_P] + (r->out - 1) * r->sg_hi[SV_D];
	}

	if (a->dump && write_dump(a->dump, runs, n, &tc)) {
		sv_tc_release(&tc);
		return surfer_exit_code(SURFER_EINVAL);
	}
	printf("# surfer-bench serving: PipeWeave's measured SGLang bench_one_batch runs (BF16);\n"
	       "# real = the median of each run's repetitions; errors |pred/real - 1| in %%, for\n"
	       "# prefill (P), the median decode step (D) and the whole batch (T).\n"
	       "# surfer = --engine sglang, %s\n"
	       "# the GPU's architecture held out; hf = --engine hf --attention sdpa (transformers\n"
	       "# eager, the same constants); roofline D: none ('-').\n",
	       tc.compiled == SV_K_ALL
	       ? "the compiled-in GEMM, collective, attention and vector-op constants, its\n# step CPU constant fitted with"
	       : tc.compiled ? "its step CPU constant and the constants --compiled does not name fitted with"
	       : "its tensor-core, collective, attention and vector-op constants and step\n# CPU constant fitted with");
	printf("%-14s %2s %-12s %-13s %4s %9s %8s %9s |%-20s|%-13s|%-20s|%-20s|%-20s|%-13s\n", "gpu", "tp",
	       "model", "workload", "reps", "real P ms", "D ms", "T ms", " surfer P D T", " hf P D",
	       " pipeweave P D T", " neusight P D T", " habitat P D T", " roofline P T");
	struct sv_acc all, per[16];
	memset(&all, 0, sizeof(all));
	memset(per, 0, sizeof(per));
	const struct gpu_spec *gpus[16];
	size_t ng = 0;
	for (size_t i = 0; i < n; i++) {
		struct sv_run *r = &runs[i];
		printf("%-14s %2u %-12s %-13s %4u %9.1f %8.2f %9.1f |", r->gpu_tok, r->tp, r->model,
		       r->workload, r->reps, r->real[SV_P], r->real[SV_D], r->real[SV_T]);
		cell(r->sg[SV_P], r->real[SV_P]);
		cell(r->held_d, r->real[SV_D]);
		cell(r->held_t, r->real[SV_T]);
		printf(" |");
		cell(r->hf[SV_P], r->real[SV_P]);
		cell(r->hf[SV_D], r->real[SV_D]);
		printf(" |");
		for (int m = 0; m < SV_NOTHER; m++) {
			cell(r->other[m][SV_P], r->real[SV_P]);
			if (m != SV_ROOF)
				cell(r->other[m][SV_D], r->real[SV_D]);
			cell(r->other[m][SV_T], r->real[SV_T]);
			printf(" |");
		}
		printf("\n");
		size_t g;
		for (g = 0; g < ng && gpus[g] != r->gpu; g++)
			;
		if (g == ng && ng < 16)
			gpus[ng++] = r->gpu;
		if (g < 16)
			add_run(&per[g], r);
		add_run(&all, r);
	}
	printf("\nmean error %% per GPU (P D T): surfer | hf | pipeweave | neusight | habitat | roofline\n");
	for (size_t g = 0; g < ng; g++) {
		printf("%-24s", gpus[g]->id);
		acc_print(&per[g], 6);
	}
	printf("%-24s", "all");
	acc_print(&all, 6);
	printf("\nstep CPU constant (ms) fitted without each architecture: compiled-in %.2f (all runs %.2f);",
	       MODEL_SERVE_STEP_CPU_NS / 1e6, fit_step(runs, n, -1, SV_NARCH));
	for (int ar = 0; ar < 5; ar++)
		if (seen[ar])
			printf(" %s held out %.2f;", sv_arch[ar], fitted[ar]);
	printf("\n");
	printf("mean error %% per held-out architecture (surfer, everything fitted without it):");
	for (int ar = 0; ar < 5; ar++) {
		if (!seen[ar])
			continue;
		double sp = 0, sd = 0, st = 0;
		int c = 0;
		for (size_t i = 0; i < n; i++)
			if (runs[i].arch == ar) {
				sp += ape(runs[i].sg[SV_P], runs[i].real[SV_P]);
				sd += ape(runs[i].held_d, runs[i].real[SV_D]);
				st += ape(runs[i].held_t, runs[i].real[SV_T]);
				c++;
			}
		printf(" %s P %.1f D %.1f T %.1f (%d runs);", sv_arch[ar], sp / c, sd / c, st / c, c);
	}
	printf("\n");
	print_drift(runs, n);
	print_coverage(runs, n);
	sv_tc_print(&tc, runs, n);
	if (a->rows) {
		print_parts(runs, n);
		print_decode_parts(runs, n);
	}
	if (!a->gpu)
		vllm_runs(dir, &tc);
	sv_tc_release(&tc);
	return 0;
}
