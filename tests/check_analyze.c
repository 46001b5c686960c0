/*
 * check_analyze.c - the whole analysis on synthetic traces written with the
 * trace writer (tests/synth.c): identity on every GPU in the table, a
 * launch-bound program on a faster GPU, records out of CPU order, truncated
 * and corrupt traces, an unknown origin, the JSON document and the
 * baseline comparison.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "analyzer/analyze.h"
#include "analyzer/baseline.h"
#include "analyzer/ktable.h"
#include "analyzer/optfail.h"
#include "trace/editdist.h"
#include "predictor/comm.h"
#include "analyzer/report.h"
#include "tests/synth.h"
#include "trace/trace.h"
#include "tests/check_run.h"

static char path[256], path2[256];

static void tmpname(char *buf, size_t len)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(buf, len, "%s/check_analyze-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(buf);
	ck_assert_int_ge(fd, 0);
	close(fd);
}

static void setup(void)
{
	tmpname(path, sizeof(path));
	tmpname(path2, sizeof(path2));
}

static void teardown(void)
{
	unlink(path);
	unlink(path2);
}

static uint32_t window;   /* reorder window of the next run(), 0 default */

static struct analysis *run(const char *p, const struct gpu_spec *origin,
			    const struct gpu_spec *const *targets, size_t n, enum pred_method m)
{
	struct analysis_options o = {.origin = origin, .targets = targets, .ntargets = n, .method = m,
				     .reorder_window = window};
	struct analysis *a = NULL;
	char err[256];
	int rc = analysis_run(p, &o, &a, err, sizeof(err));

	ck_assert_msg(rc == 0, "analysis_run: %d %s", rc, err);
	return a;
}

static const struct gpu_spec *gpu(const char *id)
{
	const struct gpu_spec *g = gpu_find(id);
	ck_assert_msg(g != NULL, "no GPU %s", id);
	return g;
}

/* A writer of a trace at path recorded on an A10 (its header written). */
static struct trace_writer *a10_writer(void)
{
	struct trace_header h;
	int err;
	struct trace_writer *w = trace_writer_open(path, 0, &err);

	ck_assert_ptr_nonnull(w);
	memset(&h, 0, sizeof(h));
	snprintf(h.device.name, sizeof(h.device.name), "NVIDIA A10");
	ck_assert_int_eq(trace_writer_header(w, &h), 0);
	return w;
}

/* Appends kernel "k" (one 32-thread block on stream 7) with these times. */
static void put_kernel(struct trace_writer *w, uint64_t seq, uint64_t cpu, uint64_t start,
		       uint64_t end)
{
	struct trace_record r;

	memset(&r, 0, sizeof(r));
	r.type = TRACE_KERNEL;
	r.u.kernel = (struct trace_kernel){ .seq = seq, .name = trace_writer_intern(w, "k", 1),
		.grid = {1, 1, 1}, .block = {32, 1, 1}, .stream = 7, .cpu_ns = cpu,
		.start_ns = start, .end_ns = end, .iteration = -1 };
	ck_assert_int_eq(trace_writer_record(w, &r), 0);
}

/* The interval's two ends to four significant digits each, trailing
 * zeros kept, whole numbers from 1000, rounded outward (hand-written
 * strings). */
START_TEST(interval_text_digits)
{
	static const struct {
		double lo, hi;
		const char *want;
	} cases[] = {
		{ 20.2149, 26.8, "20.21-26.80" },
		{ 0.5, 999.96, "0.5000-1000" },
		{ 1515.4, 11290, "1515-11290" },
		/* outward: the low end rounded down, the high end up, so
		 * that the text holds what the interval holds (to the
		 * nearest, 12961.2 and 12967.441 both read 12970, a
		 * prediction of 12964 outside) */
		{ 12961.2, 12967.441, "12960-12970" },
		{ 4.85262, 6.25309, "4.852-6.254" },
		{ 0.123456, 0.123456, "0.1234-0.1235" },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		report_interval(cases[i].lo, cases[i].hi, buf, sizeof buf);
		ck_assert_str_eq(buf, cases[i].want);
	}
}
END_TEST

/* A recorded collective (an OP of kind comm before its NCCL kernel, as the
 * recorder's NCCL hooks and the Kineto importer write it): measured 10 ms
 * on the A10 it ran on, predicted on other GPUs by the collective model of
 * their default system (an 8-rank all-reduce of 100 MB), not by scaling the
 * measured time; on the A10 itself it keeps its measured time, unless
 * another system of the A10 is named. */
START_TEST(recorded_collective)
{
	struct trace_writer *w = a10_writer();
	struct trace_record r;
	memset(&r, 0, sizeof(r));
	r.type = TRACE_OP;
	r.u.op = (struct trace_op){ .seq = 1, .kind = TRACE_OPK_COMM, .dtype = TRACE_DT_F32,
		.bytes = 1e8, .collective = TRACE_COLL_ALL_REDUCE, .ranks = 8, .rank = 3,
		.stream = 7, .cpu_ns = 1000 };
	ck_assert_int_eq(trace_writer_record(w, &r), 0);
	memset(&r, 0, sizeof(r));
	r.type = TRACE_KERNEL;
	r.u.kernel = (struct trace_kernel){ .seq = 2, .name = trace_writer_intern(w, "nccl", 4),
		.grid = {8, 1, 1}, .block = {512, 1, 1}, .stream = 7, .cpu_ns = 2000,
		.start_ns = 3000, .end_ns = 3000 + 10000000, .lib_call = 1, .iteration = -1 };
	ck_assert_int_eq(trace_writer_record(w, &r), 0);
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);

	const struct gpu_spec *targets[3] = { gpu("a10"), gpu("h100-sxm"), gpu("l4") };
	struct analysis *a = run(path, NULL, targets, 3, PRED_AUTO);
	ck_assert_double_eq_tol(a->targets[0].op_ns[PRED_OP_COMM], 10e6, 1);
	for (int t = 1; t < 3; t++) {
		struct comm_link l, wide;
		comm_link_init_system(targets[t], NULL, &l, &wide);
		double want = comm_group_ns(COMM_ALL_REDUCE, 1e8, 8, 0, &l);
		ck_assert_double_eq_tol(a->targets[t].op_ns[PRED_OP_COMM], want, 1);
	}
	/* NVLS on the H100 board: well under the A10's measured 10 ms; the L4
	 * box's PCIe much slower */
	ck_assert(a->targets[1].op_ns[PRED_OP_COMM] < 1e6);
	ck_assert(a->targets[2].op_ns[PRED_OP_COMM] > a->targets[1].op_ns[PRED_OP_COMM]);
	/* its row names the collective model, not a kernel model; on the A10
	 * it ran on, the measurement */
	for (int t = 0; t < 3; t++) {
		ck_assert_uint_eq(a->targets[t].ngroups, 1);
		ck_assert_str_eq(a->targets[t].groups[0].name, "nccl");
		ck_assert_str_eq(pred_method_name(a->targets[t].groups[0].method),
				 t ? "comm" : "identity");
	}
	analysis_free(a);

	/* the A10 in a named system: predicted there too */
	struct analysis_options o = { .targets = targets, .ntargets = 1,
				      .system = gpu_system_find("pcie-a10-4") };
	char err[256];
	ck_assert_int_eq(analysis_run(path, &o, &a, err, sizeof(err)), 0);
	struct comm_link l, wide;
	comm_link_init_system(NULL, o.system, &l, &wide);
	ck_assert_double_eq_tol(a->targets[0].op_ns[PRED_OP_COMM],
				comm_group_ns(COMM_ALL_REDUCE, 1e8, 8, 0, &l), 1);
	analysis_free(a);

	/* a group of unknown size (an import without the world size) is
	 * scaled as any measured kernel: not 0 */
	w = a10_writer();
	memset(&r, 0, sizeof(r));
	r.type = TRACE_OP;
	r.u.op = (struct trace_op){ .seq = 1, .kind = TRACE_OPK_COMM, .dtype = TRACE_DT_F32,
		.bytes = 1e8, .collective = TRACE_COLL_ALL_REDUCE, .rank = -1, .stream = 7,
		.cpu_ns = 1000 };
	ck_assert_int_eq(trace_writer_record(w, &r), 0);
	memset(&r, 0, sizeof(r));
	r.type = TRACE_KERNEL;
	r.u.kernel = (struct trace_kernel){ .seq = 2, .name = trace_writer_intern(w, "nccl", 4),
		.grid = {8, 1, 1}, .block = {512, 1, 1}, .stream = 7, .cpu_ns = 2000,
		.start_ns = 3000, .end_ns = 3000 + 10000000, .lib_call = 1, .iteration = -1 };
	ck_assert_int_eq(trace_writer_record(w, &r), 0);
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);
	a = run(path, NULL, targets, 3, PRED_AUTO);
	ck_assert(a->targets[1].op_ns[PRED_OP_COMM] > 1e6);
	analysis_free(a);
}
END_TEST

START_TEST(identity_every_gpu)
{
	size_t n;
	const struct gpu_spec *all = gpu_all(&n);
	const struct gpu_spec *g = &all[_i];
	const struct gpu_spec *targets[2] = {g, gpu("t4")};
	enum pred_method methods[] = {PRED_AUTO, PRED_WAVE, PRED_ROOFLINE, PRED_MLP};
	struct synth_opts o;

	ck_assert_uint_lt((size_t)_i, n);
	synth_defaults(&o, g->name);
	o.iterations = 3;
	o.untimed_every = (_i % 2) ? 7 : 0;   /* half the GPUs: some launches untimed */
	ck_assert_int_eq(synth_write(path, &o), 0);
	for (size_t m = 0; m < sizeof(methods) / sizeof(methods[0]); m++) {
		struct analysis *a = run(path, NULL, targets, 2, methods[m]);

		ck_assert_ptr_eq(a->origin, g);   /* found by the name in the trace */
		ck_assert_uint_eq(a->iterations, 3);
		ck_assert(a->measured_ns > 1e6);
		ck_assert_msg(fabs(a->targets[0].iteration_ns - a->measured_ns) <= 0.01 * a->measured_ns,
			      "%s: predicted %.0f ns, measured %.0f ns", g->id,
			      a->targets[0].iteration_ns, a->measured_ns);
		/* the replay is exact, not just within 1% */
		ck_assert(fabs(a->targets[0].iteration_ns - a->measured_ns) < 1e-6 * a->measured_ns);
		ck_assert(a->targets[0].method_ns[PRED_IDENTITY] > 0);
		analysis_free(a);
	}
}
END_TEST

/* The same with DDP's event pattern (the all-reduce stream waits for the
 * layers' work, the optimizer for the all-reduce): the replay of the
 * origin stays exact on every GPU (the waits' semantics are
 * check_timeline's). */
START_TEST(identity_with_events)
{
	size_t n;
	const struct gpu_spec *all = gpu_all(&n);
	const struct gpu_spec *g = &all[_i];
	const struct gpu_spec *targets[1] = {g};
	struct synth_opts o;

	synth_defaults(&o, g->name);
	o.iterations = 3;
	o.events = 1;
	o.untimed_every = (_i % 2) ? 7 : 0;
	ck_assert_int_eq(synth_write(path, &o), 0);
	struct analysis *a = run(path, NULL, targets, 1, PRED_AUTO);
	ck_assert_ptr_eq(a->origin, g);
	ck_assert_uint_eq(a->iterations, 3);
	ck_assert_msg(fabs(a->targets[0].iteration_ns - a->measured_ns) < 1e-6 * a->measured_ns,
		      "%s: predicted %.0f ns, measured %.0f ns", g->id, a->targets[0].iteration_ns,
		      a->measured_ns);
	analysis_free(a);
}
END_TEST

/* The trailer's peak of device memory held, against each target's memory:
 * 30 GiB fits an H100 (80) and an A100 80GB, not an L4 (24) or a T4 (16). */
START_TEST(memory_warning)
{
	const struct gpu_spec *targets[4] = {gpu("h100-sxm"), gpu("l4"), gpu("a100-sxm4-80"), gpu("t4")};
	struct synth_opts o;

	synth_defaults(&o, "NVIDIA A100-SXM4-80GB");
	o.peak_device_bytes = 30ull << 30;
	ck_assert_int_eq(synth_write(path, &o), 0);
	struct analysis *a = run(path, NULL, targets, 4, PRED_AUTO);
	ck_assert_uint_eq(a->peak_device_bytes, 30ull << 30);
	ck_assert_str_eq(a->warning, "the program's allocations (peak on the origin) need 30.0 GiB: "
				     "more than l4, t4 have");
	analysis_free(a);
	/* a trace without the figure (format 1.0, or nothing allocated): no warning */
	o.peak_device_bytes = 0;
	ck_assert_int_eq(synth_write(path, &o), 0);
	a = run(path, NULL, targets, 4, PRED_AUTO);
	ck_assert_str_eq(a->warning, "");
	analysis_free(a);
}
END_TEST

START_TEST(launch_bound_does_not_shrink)
{
	/* Tiny kernels between long CPU gaps on a T4: an H100 finishes each
	 * kernel sooner but the program still waits for its CPU. */
	const struct gpu_spec *targets[2] = {gpu("h100-sxm"), gpu("b200")};
	struct synth_opts o;
	struct analysis *a;

	synth_defaults(&o, "Tesla T4");
	o.launch_bound = 1;
	o.layers = 20;
	o.iterations = 2;
	ck_assert_int_eq(synth_write(path, &o), 0);
	a = run(path, gpu("t4"), targets, 2, PRED_AUTO);
	for (int t = 0; t < 2; t++) {
		ck_assert_msg(a->targets[t].iteration_ns >= 0.98 * a->measured_ns,
			      "%s: %.0f vs measured %.0f", a->targets[t].gpu->id,
			      a->targets[t].iteration_ns, a->measured_ns);
		ck_assert(a->targets[t].kernel_ns < a->measured_kernel_ns);
		ck_assert(a->targets[t].gpu_wait_cpu_ns >= a->measured_gpu_wait_cpu_ns);
	}
	analysis_free(a);
}
END_TEST

START_TEST(gpu_bound_scales)
{
	/* The same step with every kernel 4x longer is GPU-bound: a faster GPU
	 * shortens the iteration, a slower one lengthens it. */
	const struct gpu_spec *targets[2] = {gpu("h100-sxm"), gpu("t4")};
	struct synth_opts o;
	struct analysis *a;

	synth_defaults(&o, "NVIDIA A100-SXM4-80GB");
	o.gpu_scale = 4;
	ck_assert_int_eq(synth_write(path, &o), 0);
	a = run(path, NULL, targets, 2, PRED_WAVE);
	ck_assert(a->targets[0].iteration_ns < 0.8 * a->measured_ns);
	ck_assert(a->targets[1].iteration_ns > 1.5 * a->measured_ns);
	ck_assert_str_eq(pred_op_name(a->targets[1].groups[0].op), "comm");
	analysis_free(a);
}
END_TEST

START_TEST(blocking_copy_scales)
{
	/* The kernels run about 2x faster on an H100 than on the A100 they
	 * were recorded on, and so must the step: its time per iteration
	 * follows the kernels' within 5% (the launch latency and the CPU's
	 * 30 us after the copy are all that does not scale).  Replayed as an
	 * asynchronous copy, the CPU's measured wait would stay and the step
	 * would not speed up at all. */
	const struct gpu_spec *targets[2] = {gpu("h100-sxm"), gpu("t4")};
	struct analysis *a;

	ck_assert_int_eq(synth_write_blocking(path, "NVIDIA A100-SXM4-40GB", (enum synth_blocking)_i), 0);
	a = run(path, NULL, targets, 2, PRED_WAVE);
	ck_assert_uint_eq(a->iterations, 4);
	for (int t = 0; t < 2; t++) {
		const struct analysis_target *at = &a->targets[t];

		/* GPU-bound everywhere: the step is its kernels and a little */
		ck_assert_msg(at->iteration_ns >= at->kernel_ns && at->iteration_ns < 1.05 * at->kernel_ns,
			      "case %d on %s: step %.0f ns, kernels %.0f ns", _i, at->gpu->id,
			      at->iteration_ns, at->kernel_ns);
		if (_i != SYNTH_BLOCK_ITEM) {   /* measured kernel times to compare with */
			double kr = at->kernel_ns / a->measured_kernel_ns;
			double ir = at->iteration_ns / a->measured_ns;

			ck_assert_msg(fabs(ir / kr - 1) < 0.05, "case %d on %s: kernels x%.3f, step x%.3f",
				      _i, at->gpu->id, kr, ir);
		}
	}
	/* about 2x faster on the H100, slower on the T4 */
	ck_assert(a->targets[0].kernel_ns < 0.6 * a->targets[1].kernel_ns / 1.5);
	if (_i != SYNTH_BLOCK_ITEM) {
		ck_assert(a->targets[0].kernel_ns < 0.6 * a->measured_kernel_ns);
		ck_assert(a->targets[1].kernel_ns > 1.5 * a->measured_kernel_ns);
	}
	analysis_free(a);
}
END_TEST

START_TEST(out_of_order_records)
{
	/* Kernel records written after the synchronization that follows them
	 * (as when GPU times arrive late) replay to the same times: within the
	 * reorder window, and beyond it (a 1-event window) from a sorted copy. */
	const struct gpu_spec *targets[2] = {gpu("a100-sxm4-80"), gpu("l4")};
	struct synth_opts o;
	struct analysis *a, *b, *w;

	synth_defaults(&o, "NVIDIA A100-SXM4-80GB");
	o.iterations = 2;
	ck_assert_int_eq(synth_write(path, &o), 0);
	o.shuffle = 1;
	ck_assert_int_eq(synth_write(path2, &o), 0);
	a = run(path, NULL, targets, 2, PRED_AUTO);
	b = run(path2, NULL, targets, 2, PRED_AUTO);
	window = 1;
	w = run(path2, NULL, targets, 2, PRED_AUTO);
	window = 0;
	ck_assert_int_eq(a->sorted_in_memory, 0);
	ck_assert_int_eq(b->sorted_in_memory, 0);
	ck_assert_int_eq(w->sorted_in_memory, 1);
	ck_assert_double_eq_tol(a->measured_ns, b->measured_ns, 1e-6);
	ck_assert_double_eq_tol(a->measured_ns, w->measured_ns, 1e-6);
	ck_assert_double_eq_tol(a->targets[1].iteration_ns, b->targets[1].iteration_ns, 1e-6);
	ck_assert_double_eq_tol(a->targets[1].iteration_ns, w->targets[1].iteration_ns, 1e-6);
	ck_assert_double_eq_tol(b->targets[0].iteration_ns, b->measured_ns, 1e-6);
	ck_assert_double_eq_tol(w->targets[0].iteration_ns, w->measured_ns, 1e-6);
	ck_assert_uint_eq(a->configs, b->configs);
	ck_assert_uint_eq(a->configs, w->configs);
	analysis_free(a);
	analysis_free(b);
	analysis_free(w);
}
END_TEST

START_TEST(interleaved_threads)
{
	/* Four launching threads whose records the file holds in runs of 4096
	 * (per-thread buffers drained when full), past a 1024-event reorder
	 * window, analyze to the numbers of the same launches written in CPU
	 * order: read a second time thread by thread, not sorted in memory. */
	const struct gpu_spec *targets[2] = {gpu("h100-sxm"), gpu("t4")};
	struct analysis *a, *b;

	ck_assert_int_eq(synth_write_bench(path, "NVIDIA A100-SXM4-80GB", 60000, 4, 1), 0);
	ck_assert_int_eq(synth_write_bench(path2, "NVIDIA A100-SXM4-80GB", 60000, 4, 4096), 0);
	window = 1024;
	a = run(path, NULL, targets, 2, PRED_AUTO);
	b = run(path2, NULL, targets, 2, PRED_AUTO);
	window = 0;
	ck_assert_int_eq(a->reread_in_order, 0);
	ck_assert_int_eq(a->sorted_in_memory, 0);
	ck_assert_int_eq(b->reread_in_order, 1);
	ck_assert_int_eq(b->sorted_in_memory, 0);
	ck_assert_uint_eq(a->kernels, 60000);
	ck_assert_uint_eq(b->kernels, a->kernels);
	ck_assert_uint_eq(b->configs, a->configs);
	ck_assert_uint_eq(b->iterations, a->iterations);
	ck_assert_double_eq(b->measured_ns, a->measured_ns);
	ck_assert_double_eq(b->measured_kernel_ns, a->measured_kernel_ns);
	for (size_t t = 0; t < 2; t++) {
		ck_assert_double_eq(b->targets[t].iteration_ns, a->targets[t].iteration_ns);
		ck_assert_double_eq(b->targets[t].kernel_ns, a->targets[t].kernel_ns);
		ck_assert_uint_eq(b->targets[t].ngroups, a->targets[t].ngroups);
		for (size_t g = 0; g < a->targets[t].ngroups; g++) {
			ck_assert_str_eq(b->targets[t].groups[g].name, a->targets[t].groups[g].name);
			ck_assert_double_eq(b->targets[t].groups[g].pred_ns, a->targets[t].groups[g].pred_ns);
		}
	}
	analysis_free(a);
	analysis_free(b);
}
END_TEST

/* A writer of a synthetic-timed trace at p recorded on an A100 SXM4 80GB
 * (its header written). */
static struct trace_writer *a100_writer(const char *p)
{
	struct trace_header h;
	int err;
	struct trace_writer *w = trace_writer_open(p, 0, &err);

	ck_assert_ptr_nonnull(w);
	memset(&h, 0, sizeof(h));
	snprintf(h.device.name, sizeof(h.device.name), "NVIDIA A100-SXM4-80GB");
	h.timing = TRACE_TIMING_SYNTHETIC;
	ck_assert_int_eq(trace_writer_header(w, &h), 0);
	return w;
}

/* Two threads' launches, a GEMM call before every fourth, written to p in
 * runs of block records per thread (1: in CPU order).  With late_gemm, one
 * GEMM record carries a CPU time after its launch's. */
static void write_two_threads(const char *p, uint32_t block, int late_gemm)
{
	static struct trace_record q[2][2 * 3000];
	uint32_t nq[2] = { 0, 0 }, done[2] = { 0, 0 };
	uint64_t seq = 0, end[2] = { 0, 0 };
	struct trace_writer *w = a100_writer(p);

	uint32_t name = trace_writer_intern(w, "ampere_sgemm_128x64_nn", 22);
	for (uint32_t i = 0; i < 6000; i++) {
		int t = (int)(i % 2);
		uint64_t cpu = 1000000 + (uint64_t)i * 2000, lib = 0;
		struct trace_record r;

		if (i % 4 < 2) {
			memset(&r, 0, sizeof(r));
			r.type = TRACE_GEMM;
			r.u.gemm = (struct trace_gemm){ .seq = ++seq, .api = TRACE_GEMM_SGEMM,
				.m = 256u << (i % 3), .n = 512, .k = 128, .batch = 1,
				.a_type = TRACE_DT_F32, .b_type = TRACE_DT_F32, .c_type = TRACE_DT_F32,
				.compute_type = TRACE_DT_F32, .epilogue = 1, .stream = 7 + (uint64_t)t,
				.thread = 10 + (uint32_t)t, .cpu_ns = cpu };
			if (late_gemm && i == 2001)
				r.u.gemm.cpu_ns = cpu + 5;
			lib = seq;
			q[t][nq[t]++] = r;
		}
		memset(&r, 0, sizeof(r));
		uint64_t start = cpu + 4000 > end[t] ? cpu + 4000 : end[t];
		end[t] = start + 3000 + (i % 5) * 100;
		r.type = TRACE_KERNEL;
		r.u.kernel = (struct trace_kernel){ .seq = ++seq, .name = name, .grid = { 64, 1, 1 },
			.block = { 256, 1, 1 }, .regs = 64, .stream = 7 + (uint64_t)t,
			.thread = 10 + (uint32_t)t, .cpu_ns = cpu + 1, .start_ns = start,
			.end_ns = end[t], .lib_call = lib, .iteration = -1 };
		q[t][nq[t]++] = r;
	}
	while (done[0] < nq[0] || done[1] < nq[1])
		for (int t = 0; t < 2; t++)
			for (uint32_t b = 0; b < block && done[t] < nq[t]; b++)
				ck_assert_int_eq(trace_writer_record(w, &q[t][done[t]++]), 0);
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);
}

START_TEST(second_reading_disagrees)
{
	/* Threads in runs past the window, one GEMM record timed after its
	 * launch: in CPU order the launch comes before the call that describes
	 * it, so the second reading would give it another configuration; the
	 * analysis notices (the sum over launch and configuration differs) and
	 * replays from the sorted copy, to the numbers a window holding the
	 * whole trace gives.  Without the late call the second reading is
	 * used, to the same numbers.  (The file order, not the replay, decides
	 * which launch makes a configuration known and so its prediction on a
	 * target: the comparison is on one file.) */
	const struct gpu_spec *targets[2] = {gpu("h100-sxm"), gpu("l4")};

	for (int late = 1; late >= 0; late--) {
		struct analysis *a, *b;

		write_two_threads(path, 700, late);
		window = 1u << 20;
		a = run(path, NULL, targets, 2, PRED_AUTO);
		window = 256;
		b = run(path, NULL, targets, 2, PRED_AUTO);
		window = 0;
		ck_assert_int_eq(a->reread_in_order + a->sorted_in_memory, 0);
		ck_assert_int_eq(b->reread_in_order, !late);
		ck_assert_int_eq(b->sorted_in_memory, late);
		ck_assert_uint_eq(b->kernels, 6000);
		ck_assert_uint_eq(b->configs, a->configs);
		ck_assert_double_eq(b->measured_ns, a->measured_ns);
		for (size_t t = 0; t < 2; t++)
			ck_assert_double_eq(b->targets[t].iteration_ns, a->targets[t].iteration_ns);
		analysis_free(a);
		analysis_free(b);
	}
}
END_TEST

/* One FP32 GEMM configuration (an SGEMM call before each launch) launched
 * ten times on one stream of an A100 SXM4, the launch durations in us as
 * given, in that order. */
static void write_gemm_launches(const char *p, const double *us, int n)
{
	uint64_t seq = 0, end = 0;
	struct trace_writer *w = a100_writer(p);

	uint32_t name = trace_writer_intern(w, "ampere_sgemm_128x64_nn", 22);
	for (int i = 0; i < n; i++) {
		uint64_t cpu = 1000000 + (uint64_t)i * 1000;
		struct trace_record r;

		memset(&r, 0, sizeof(r));
		r.type = TRACE_GEMM;
		r.u.gemm = (struct trace_gemm){ .seq = ++seq, .api = TRACE_GEMM_SGEMM, .m = 2048,
			.n = 2048, .k = 2048, .batch = 1, .a_type = TRACE_DT_F32,
			.b_type = TRACE_DT_F32, .c_type = TRACE_DT_F32, .compute_type = TRACE_DT_F32,
			.epilogue = 1, .stream = 7, .thread = 10, .cpu_ns = cpu };
		ck_assert_int_eq(trace_writer_record(w, &r), 0);
		uint64_t lib = seq, start = cpu + 5000 > end ? cpu + 5000 : end;
		end = start + (uint64_t)(us[i] * 1000);
		memset(&r, 0, sizeof(r));
		r.type = TRACE_KERNEL;
		r.u.kernel = (struct trace_kernel){ .seq = ++seq, .name = name, .grid = { 256, 1, 1 },
			.block = { 256, 1, 1 }, .regs = 64, .stream = 7, .thread = 10,
			.cpu_ns = cpu + 1, .start_ns = start, .end_ns = end, .lib_call = lib,
			.iteration = -1 };
		ck_assert_int_eq(trace_writer_record(w, &r), 0);
	}
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);
}

/* `auto` pulls an FP32 GEMM predicted across architectures toward the tile
 * model's own time (predict.h: ns grows as origin_ns^a, a =
 * pred_shrink_default.gemm); each launch follows its own measured time so,
 * whichever launch made the configuration known.  Ten launches of 1 ms,
 * one of them 3 ms (a cold first launch, or a late slow one): on the T4
 * (another architecture) the kernel time is (9 + 3^a) / 10 of ten equal
 * launches' whether the slow launch comes first or last (anchored at the
 * first launch's ratio it would be 12/10 x 3^(a-1) against 12/10); on
 * the A100 PCIe (the origin's architecture) the ratio form, 12/10. */
START_TEST(pull_follows_each_launch)
{
	const struct gpu_spec *targets[2] = {gpu("t4"), gpu("a100-pcie-40")};
	double even[10], first[10], last[10];
	double a = pred_shrink_default.gemm;
	struct analysis *r[3];

	ck_assert(a > 0 && a < 1);
	for (int i = 0; i < 10; i++)
		even[i] = first[i] = last[i] = 1000;
	first[0] = last[9] = 3000;
	write_gemm_launches(path, even, 10);
	r[0] = run(path, NULL, targets, 2, PRED_AUTO);
	write_gemm_launches(path, first, 10);
	r[1] = run(path, NULL, targets, 2, PRED_AUTO);
	write_gemm_launches(path, last, 10);
	r[2] = run(path, NULL, targets, 2, PRED_AUTO);
	for (int v = 0; v < 3; v++) {
		ck_assert_uint_eq(r[v]->configs, 1);
		ck_assert(r[v]->targets[0].method_ns[PRED_MLP] > 0);
	}
	double want_t4 = (9 + pow(3, a)) / 10, want_same = 12.0 / 10;
	for (int v = 1; v < 3; v++) {
		double t4 = r[v]->targets[0].kernel_ns / r[0]->targets[0].kernel_ns;
		double same = r[v]->targets[1].kernel_ns / r[0]->targets[1].kernel_ns;
		ck_assert_msg(fabs(t4 / want_t4 - 1) < 1e-9, "t4, slow launch %s: %.6f, want %.6f",
			      v == 1 ? "first" : "last", t4, want_t4);
		ck_assert_msg(fabs(same / want_same - 1) < 1e-9, "a100-pcie: %.6f, want %.6f", same,
			      want_same);
	}
	for (int v = 0; v < 3; v++)
		analysis_free(r[v]);
}
END_TEST

/* Rewrites the trace at from into to as if its records came from three
 * threads: runs of about 37 consecutive records (a GEMM call stays with
 * the launch after it) go to threads 100, 101, 102 in turn, each thread's
 * records in the order they were, and the file holds each thread's
 * records in runs of 200. */
static void rethread(const char *from, const char *to)
{
	struct trace_reader *r;
	struct trace_record rec, *q[3];
	uint32_t nq[3] = { 0, 0, 0 }, done[3] = { 0, 0, 0 }, n = 0;
	int t = 0;
	char err[256];
	int werr;

	ck_assert_int_eq(trace_reader_open(&r, from, err, sizeof(err)), 0);
	struct trace_writer *w = trace_writer_open(to, 0, &werr);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(trace_writer_header(w, trace_reader_header(r)), 0);
	for (int t = 0; t < 3; t++)
		ck_assert_ptr_nonnull(q[t] = calloc(20000, sizeof(*q[t])));
	while (trace_reader_next(r, &rec, err, sizeof(err)) == 1) {
		if (++n >= 37 && (nq[t] == 0 || q[t][nq[t] - 1].type != TRACE_GEMM)) {
			t = (t + 1) % 3;
			n = 1;
		}
		uint32_t thread = 100 + (uint32_t)t, *name = NULL;

		switch (rec.type) {
		case TRACE_KERNEL: rec.u.kernel.thread = thread; name = &rec.u.kernel.name; break;
		case TRACE_GEMM: rec.u.gemm.thread = thread; break;
		case TRACE_CONV: rec.u.conv.thread = thread; break;
		case TRACE_MEMCPY: case TRACE_MEMSET: rec.u.copy.thread = thread; break;
		case TRACE_SYNC: rec.u.sync.thread = thread; break;
		case TRACE_MARKER: rec.u.marker.thread = thread; name = &rec.u.marker.name; break;
		default: ck_abort_msg("record type %d", (int)rec.type);
		}
		if (name && *name) {
			size_t len;
			const char *s = trace_reader_string(r, *name, &len);
			*name = trace_writer_intern(w, s, len);
		}
		ck_assert_uint_lt(nq[t], 20000);
		q[t][nq[t]++] = rec;
	}
	while (done[0] < nq[0] || done[1] < nq[1] || done[2] < nq[2])
		for (int t = 0; t < 3; t++)
			for (int b = 0; b < 200 && done[t] < nq[t]; b++)
				ck_assert_int_eq(trace_writer_record(w, &q[t][done[t]++]), 0);
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);
	trace_reader_free(r);
	for (int t = 0; t < 3; t++)
		free(q[t]);
}

START_TEST(second_reading_is_the_sorted_copy)
{
	/* Training steps (copies, synchronizations, DDP's events, iteration
	 * or capture markers, untimed launches) from three threads in runs past
	 * a 16-event window replay from the second reading in order exactly as
	 * from the sorted copy: every number of the analysis. */
	const struct gpu_spec *targets[2] = {gpu("h100-sxm"), gpu("t4")};

	for (int v = 0; v < 5; v++) {
		struct synth_opts so;
		struct analysis_options o = {.targets = targets, .ntargets = 2, .method = PRED_AUTO,
					     .reorder_window = 16};
		struct analysis *a = NULL, *b = NULL;
		char err[256];

		synth_defaults(&so, "NVIDIA A100-SXM4-80GB");
		so.iterations = 6;
		so.layers = 12;
		so.events = v == 1;
		so.untimed_every = v == 2 ? 3 : 0;
		so.no_gpu_times = v == 3;
		so.capture = v == 4;
		ck_assert_int_eq(synth_write(path, &so), 0);
		rethread(path, path2);
		ck_assert_int_eq(analysis_run(path2, &o, &a, err, sizeof(err)), 0);
		o.sorted_copy = 1;
		ck_assert_int_eq(analysis_run(path2, &o, &b, err, sizeof(err)), 0);
		ck_assert_msg(a->reread_in_order == 1, "variant %d not read again in order", v);
		ck_assert_int_eq(b->sorted_in_memory, 1);
		ck_assert_uint_eq(a->kernels, b->kernels);
		ck_assert_uint_eq(a->configs, b->configs);
		ck_assert_uint_eq(a->iterations, b->iterations);
		ck_assert_double_eq(a->measured_ns, b->measured_ns);
		ck_assert_double_eq(a->measured_kernel_ns, b->measured_kernel_ns);
		ck_assert_double_eq(a->measured_copy_ns, b->measured_copy_ns);
		ck_assert_double_eq(a->measured_gpu_wait_cpu_ns, b->measured_gpu_wait_cpu_ns);
		for (size_t t = 0; t < 2; t++) {
			ck_assert_double_eq(a->targets[t].iteration_ns, b->targets[t].iteration_ns);
			ck_assert_double_eq(a->targets[t].kernel_ns, b->targets[t].kernel_ns);
			ck_assert_double_eq(a->targets[t].copy_ns, b->targets[t].copy_ns);
			ck_assert_double_eq(a->targets[t].gpu_wait_cpu_ns, b->targets[t].gpu_wait_cpu_ns);
		}
		analysis_free(a);
		analysis_free(b);
	}
}
END_TEST

START_TEST(capture_windows)
{
	/* The recorder's capture windows (start/stop markers, kernels numbered
	 * by window) delimit iterations; the 50 ms between windows is not
	 * recorded and not counted. */
	const struct gpu_spec *targets[2] = {gpu("a100-sxm4-40"), gpu("h100-sxm")};
	struct synth_opts o;
	struct analysis *a, *b;

	synth_defaults(&o, "NVIDIA A100-SXM4-40GB");
	o.iterations = 3;
	ck_assert_int_eq(synth_write(path, &o), 0);
	o.capture = 1;
	ck_assert_int_eq(synth_write(path2, &o), 0);
	a = run(path, NULL, targets, 2, PRED_WAVE);
	b = run(path2, NULL, targets, 2, PRED_WAVE);
	ck_assert_uint_eq(b->iterations, 3);
	ck_assert(b->measured_ns < 10e6);
	ck_assert_double_eq_tol(b->measured_ns, a->measured_ns, 0.01 * a->measured_ns);
	ck_assert_double_eq_tol(b->targets[0].iteration_ns, b->measured_ns, 1e-6);
	ck_assert_double_eq_tol(b->targets[1].iteration_ns, a->targets[1].iteration_ns,
				0.01 * a->targets[1].iteration_ns);
	analysis_free(a);
	analysis_free(b);
}
END_TEST

START_TEST(sync_written_first)
{
	/* A synchronization written before the kernels it waited for (their
	 * GPU times arrived later) still counts as a timed wait: identity holds.
	 * Kernel 1000 -> 2000..15000, sync 10000 -> 20000, kernel 21000 ->
	 * 22000..23000: measured 23000 - 1000. */
	const struct gpu_spec *targets[1] = {gpu("a10")};
	struct trace_record r;
	struct trace_writer *w;
	struct analysis *a;

	w = a10_writer();
	memset(&r, 0, sizeof(r));
	r.type = TRACE_SYNC;
	r.u.sync = (struct trace_sync){ .seq = 2, .kind = TRACE_SYNC_STREAM, .stream = 7,
		.cpu_ns = 10000, .cpu_end_ns = 20000 };
	ck_assert_int_eq(trace_writer_record(w, &r), 0);
	put_kernel(w, 1, 1000, 2000, 15000);
	put_kernel(w, 3, 21000, 22000, 23000);
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);
	a = run(path, NULL, targets, 1, PRED_AUTO);
	ck_assert_double_eq_tol(a->measured_ns, 22000, 1e-9);
	ck_assert_double_eq_tol(a->targets[0].iteration_ns, 22000, 1e-9);
	analysis_free(a);
}
END_TEST

START_TEST(times_past_int64)
{
	/* A kernel timed at 2^63 ns and after (a corrupt or hostile trace):
	 * times relative to the first CPU time must not overflow a signed
	 * 64-bit difference (UBSan aborts on it), and the iteration of
	 * 106752 days it makes is refused with a reason, not printed. */
	const struct gpu_spec *targets[1] = {gpu("a10")};
	struct analysis_options opt = {.targets = targets, .ntargets = 1, .method = PRED_AUTO};
	struct trace_writer *w;
	struct analysis *a = NULL;
	char err[256];

	w = a10_writer();
	put_kernel(w, 1, 1000, 2000, 3000);
	put_kernel(w, 2, 1ULL << 63, (1ULL << 63) + 1000, (1ULL << 63) + 2000);
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);
	ck_assert_int_eq(analysis_run(path, &opt, &a, err, sizeof(err)), -2);
	ck_assert_ptr_null(a);
	ck_assert_msg(strstr(err, "an iteration of 106752.0 days") != NULL, "%s", err);
}
END_TEST

START_TEST(truncated_trace)
{
	const struct gpu_spec *targets[1] = {gpu("v100-sxm2-16")};
	struct synth_opts o;
	struct analysis *a;

	synth_defaults(&o, "NVIDIA A100-SXM4-40GB");
	o.iterations = 2;
	o.truncate = 1;
	ck_assert_int_eq(synth_write(path, &o), 0);
	a = run(path, NULL, targets, 1, PRED_AUTO);
	ck_assert_int_eq(a->truncated, 1);
	ck_assert(strstr(a->warning, "truncated") != NULL);
	ck_assert(a->kernels > 0);
	ck_assert(a->targets[0].iteration_ns > 0);
	analysis_free(a);
}
END_TEST

START_TEST(bad_input)
{
	const struct gpu_spec *targets[1] = {gpu("t4")};
	struct analysis_options opt = {.targets = targets, .ntargets = 1, .method = PRED_AUTO};
	struct analysis *a = NULL;
	struct synth_opts o;
	char err[256];
	FILE *f;

	/* unknown origin device: bad input, and the message names --origin */
	synth_defaults(&o, "Mystery Accelerator 7");
	ck_assert_int_eq(synth_write(path, &o), 0);
	ck_assert_int_eq(analysis_run(path, &opt, &a, err, sizeof(err)), -2);
	ck_assert_ptr_null(a);
	ck_assert(strstr(err, "--origin") != NULL);
	/* ... which --origin fixes */
	opt.origin = gpu("a10");
	ck_assert_int_eq(analysis_run(path, &opt, &a, err, sizeof(err)), 0);
	analysis_free(a);
	/* not a trace */
	f = fopen(path2, "wb");
	ck_assert_ptr_nonnull(f);
	fputs("this is not a surfer trace at all\n", f);
	fclose(f);
	ck_assert_int_eq(analysis_run(path2, &opt, &a, err, sizeof(err)), -2);
	ck_assert_ptr_null(a);
	/* missing file */
	ck_assert_int_eq(analysis_run("/nonexistent/trace.mp", &opt, &a, err, sizeof(err)), -2);
	ck_assert(strstr(err, "/nonexistent/trace.mp") != NULL);
}
END_TEST

START_TEST(no_gpu_times)
{
	/* A trace with CPU times only is predicted from scratch. */
	const struct gpu_spec *targets[1] = {gpu("h100-sxm")};
	struct synth_opts o;
	struct analysis *a;

	synth_defaults(&o, "NVIDIA A100-SXM4-40GB");
	o.no_gpu_times = 1;
	ck_assert_int_eq(synth_write(path, &o), 0);
	a = run(path, NULL, targets, 1, PRED_AUTO);
	ck_assert(a->targets[0].kernel_ns > 0);
	ck_assert(a->targets[0].iteration_ns > 0);
	ck_assert(a->targets[0].method_ns[PRED_WAVE] == 0);
	analysis_free(a);
}
END_TEST

START_TEST(json_document)
{
	const struct gpu_spec *targets[2] = {gpu("h100-sxm"), gpu("a10")};
	struct synth_opts o;
	struct analysis *a;
	json_t *doc, *origin, *preds, *p0, *bd;

	synth_defaults(&o, "NVIDIA A100-SXM4-40GB");
	o.iterations = 2;
	ck_assert_int_eq(synth_write(path, &o), 0);
	a = run(path, NULL, targets, 2, PRED_AUTO);
	doc = report_json(a, NULL, 3);
	ck_assert_ptr_nonnull(doc);
	origin = json_object_get(doc, "origin");
	ck_assert_str_eq(json_string_value(json_object_get(origin, "device")), "NVIDIA A100-SXM4-40GB");
	/* 2 iterations x (4 layers x 3 + 2 all-reduces + softmax + optimizer) */
	ck_assert_int_eq(json_integer_value(json_object_get(origin, "kernels")), 2 * 16);
	ck_assert_double_eq_tol(json_real_value(json_object_get(origin, "measured_ms")),
				a->measured_ns / 1e6, 1e-12);
	preds = json_object_get(doc, "predictions");
	ck_assert_uint_eq(json_array_size(preds), 2);
	p0 = json_array_get(preds, 0);
	ck_assert_str_eq(json_string_value(json_object_get(p0, "target")), "h100-sxm");
	ck_assert_str_eq(json_string_value(json_object_get(p0, "method")), "auto");
	ck_assert(json_real_value(json_object_get(p0, "iteration_ms")) > 0);
	bd = json_object_get(p0, "breakdown");
	ck_assert_uint_eq(json_array_size(bd), 3);
	ck_assert(json_real_value(json_object_get(json_array_get(bd, 0), "predicted_ms")) >=
		  json_real_value(json_object_get(json_array_get(bd, 1), "predicted_ms")));
	json_decref(doc);
	analysis_free(a);
}
END_TEST

START_TEST(baseline_gate)
{
	/* Baseline from a step; the same step compares clean; a step whose
	 * GEMMs are 3x slower regresses and the GEMM kernel grew most. */
	const struct gpu_spec *targets[1] = {gpu("h100-sxm")};
	struct baseline_verdict v[4];
	struct synth_opts o;
	struct analysis *a, *b;
	char err[256], bl[256];
	size_t n;

	tmpname(bl, sizeof(bl));
	synth_defaults(&o, "NVIDIA A100-SXM4-40GB");
	ck_assert_int_eq(synth_write(path, &o), 0);
	o.slow_gemm = 3;
	ck_assert_int_eq(synth_write(path2, &o), 0);
	a = run(path, NULL, targets, 1, PRED_AUTO);
	b = run(path2, NULL, targets, 1, PRED_AUTO);
	ck_assert_int_eq(baseline_save(a, NULL, bl, err, sizeof(err)), 0);
	ck_assert_int_eq(baseline_compare(a, bl, 0.0, v, 4, &n, err, sizeof(err)), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_double_eq_tol(v[0].growth_pct, 0, 1e-9);
	ck_assert_int_eq(baseline_compare(b, bl, 5.0, v, 4, &n, err, sizeof(err)), 1);
	ck_assert(v[0].regressed);
	ck_assert(v[0].growth_pct > 5.0);
	ck_assert_uint_ge(v[0].ngrowers, 1);
	ck_assert(strstr(v[0].growers[0].name, "gemm") != NULL);
	/* a generous limit passes */
	ck_assert_int_eq(baseline_compare(b, bl, 1000.0, v, 4, &n, err, sizeof(err)), 0);
	/* not a baseline */
	ck_assert_int_eq(baseline_compare(b, path, 5.0, v, 4, &n, err, sizeof(err)), -2);
	analysis_free(a);
	analysis_free(b);
	unlink(bl);
}
END_TEST

START_TEST(short_names)
{
	char out[64];

	report_short_name("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEEEEviT0_",
			  out, 60);
	ck_assert_str_eq(out, "vectorized_elementwise_kernel<FillFunctor>");
	report_short_name("_Z10add_kernelPfS_", out, 60);
	ck_assert_str_eq(out, "add_kernel");
	report_short_name("void at::native::reduce_kernel<512, 1>(int)", out, 60);
	ck_assert_str_eq(out, "reduce_kernel<...>");
	report_short_name("ampere_sgemm_128x64_nn", out, 10);
	ck_assert_str_eq(out, "ampere_...");
	report_short_name("_Z99broken", out, 60);
	ck_assert_str_eq(out, "_Z99broken");
	/* An unnamed namespace, mangled (g++ and nvcc write _GLOBAL__N_...)
	 * and as Kineto writes it; the hand-written reader printed the first
	 * as at::native::_GLOBAL__N_1::... and cut the second to at::native::.
	 * A row shows the kernel's own name, without its namespaces. */
	report_short_name("_ZN2at6native12_GLOBAL__N_120softmax_warp_forwardIfEEvPT_PKS3_i", out, 60);
	ck_assert_str_eq(out, "softmax_warp_forward<...>");
	report_short_name("void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned "
			  "int, 1, 128, 1>(float*, at::native::(anonymous namespace)::CatArrInputTensor"
			  "Metadata<float, unsigned int, 128, 1>)", out, 60);
	ck_assert_str_eq(out, "CatArrayBatchedCopy<...>");
	report_short_name("void (anonymous namespace)::softmax_warp_backward<float, float, float, 10, "
			  "true, false>(float*, float const*, float const*, int, int, int, bool const*)",
			  out, 60);
	ck_assert_str_eq(out, "softmax_warp_backward<...>");
	/* A name the demangler rejects (cut short here, like cuDNN's CUTLASS
	 * kernels that c++filt rejects whole) keeps its leading name. */
	report_short_name("_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemm", out, 60);
	ck_assert_str_eq(out, "cutlass_cudnn_train::Kernel<...>");
}
END_TEST

/* Kernel rows keep what tells a template's instances apart, from the names
 * torch.profiler writes (PyTorch 2 on an A100): the functor, the function a
 * lambda was written in, or nothing when every argument is a type or a
 * number; the kernel's name is cut before the functor is. */
START_TEST(short_names_functor)
{
	static const struct { const char *name; size_t width; const char *want; } cases[] = {
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, "
		  "float, float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<"
		  "char*, 3> >(int, at::native::BinaryFunctor<float, float, float, at::native::"
		  "binary_internal::MulFunctor<float> >, at::detail::Array<char*, 3>)",
		  46, "vectorized_elementwise_kernel<MulFunctor>" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
		  "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::"
		  "Array<char*, 1>)", 46, "vectorized_elementwise_kernel<FillFunctor>" },
		{ "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::"
		  "TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() "
		  "const::{lambda(float)#1}, at::detail::Array<char*, 2>, TrivialOffsetCalculator<1, "
		  "unsigned int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::"
		  "LoadWithCast<1>, at::native::memory::StoreWithCast<1> >(int)",
		  60, "unrolled_elementwise_kernel<direct_copy_kernel_cuda>" },
		{ "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::"
		  "func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::"
		  "TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4> >(at::native::"
		  "ReduceOp<float, float>)", 46, "reduce_kernel<sum_functor>" },
		{ "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 3, "
		  "128, 1>(float*, int)", 46, "CatArrayBatchedCopy<...>" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, "
		  "float, float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<"
		  "char*, 2> >(int)", 30, "vectorized_elem...<MulFunctor>" },
		{ "vectorized_elementwise_kernel<4, pow_tensor_scalar_kernel>", 60,
		  "vectorized_elementwise_kernel<pow_tensor_scalar_kernel>" },
	};
	char out[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		report_short_name(cases[i].name, out, cases[i].width);
		ck_assert_str_eq(out, cases[i].want);
		ck_assert_uint_le(strlen(out), cases[i].width);
	}
}
END_TEST

/* PyTorch's mm of a 4096 x 512 by a 512 x 1024 matrix reaches cuBLAS
 * (column-major) as m = 1024, n = 4096, k = 512: the predictor gets the
 * row-major shape back, 4096 rows by 1024 columns. */
START_TEST(kernels_long_after_their_calls)
{
	/* With CUPTI timing a kernel record is written when its GPU times
	 * arrive, often thousands of records after its GEMM call's record:
	 * 1000 sgemm calls, then their 1000 kernels.  Each kernel must still
	 * carry its call's shape, so the tile model (not wave scaling, the
	 * fallback of shapeless kernels) predicts every one. */
	const struct gpu_spec *targets[1] = {gpu("t4")};
	struct trace_record r;
	struct trace_writer *w;
	struct analysis *a;
	const int n = 1000;

	w = a10_writer();
	uint32_t name = trace_writer_intern(w, "volta_sgemm_128x64_nn", 21);
	for (int i = 0; i < n; i++) {
		memset(&r, 0, sizeof(r));
		r.type = TRACE_GEMM;
		r.u.gemm.seq = 1 + 2 * (uint64_t)i;
		r.u.gemm.api = TRACE_GEMM_SGEMM;
		r.u.gemm.m = 1024;
		r.u.gemm.n = 512;
		r.u.gemm.k = 256 + 64 * (uint64_t)(i % 4);
		r.u.gemm.batch = 1;
		r.u.gemm.a_type = r.u.gemm.b_type = r.u.gemm.c_type = TRACE_DT_F32;
		r.u.gemm.compute_type = TRACE_DT_F32;
		r.u.gemm.stream = 7;
		r.u.gemm.cpu_ns = 1000 + 10000 * (uint64_t)i;
		ck_assert_int_eq(trace_writer_record(w, &r), 0);
	}
	for (int i = 0; i < n; i++) {
		memset(&r, 0, sizeof(r));
		r.type = TRACE_KERNEL;
		r.u.kernel = (struct trace_kernel){ .seq = 2 + 2 * (uint64_t)i, .name = name,
			.grid = {4, 16, 1}, .block = {256, 1, 1}, .stream = 7,
			.cpu_ns = 1000 + 10000 * (uint64_t)i + 10,
			.start_ns = 2000 + 10000 * (uint64_t)i, .end_ns = 9000 + 10000 * (uint64_t)i,
			.lib_call = 1 + 2 * (uint64_t)i, .iteration = -1 };
		ck_assert_int_eq(trace_writer_record(w, &r), 0);
	}
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);
	a = run(path, NULL, targets, 1, PRED_AUTO);
	ck_assert_uint_eq(a->kernels, (uint64_t)n);
	ck_assert_uint_eq(a->configs, 4);
	ck_assert_msg(a->targets[0].method_ns[PRED_WAVE] == 0,
		      "%g ns by wave scaling: kernels lost their shapes", a->targets[0].method_ns[PRED_WAVE]);
	ck_assert(a->targets[0].method_ns[PRED_MLP] > 0);
	analysis_free(a);
}
END_TEST

START_TEST(cublas_shape_to_row_major)
{
	struct trace_gemm g;
	memset(&g, 0, sizeof(g));
	g.api = TRACE_GEMM_SGEMM;
	g.m = 1024;
	g.n = 4096;
	g.k = 512;
	g.batch = 1;
	g.a_type = g.b_type = g.c_type = g.compute_type = TRACE_DT_F32;
	struct ktable_lib lib;
	ktable_lib_from_gemm(&lib, &g);
	ck_assert_uint_eq(lib.m, 4096);
	ck_assert_uint_eq(lib.n, 1024);
	ck_assert_uint_eq(lib.k, 512);
	ck_assert_double_eq_tol(lib.flops, 2.0 * 4096 * 1024 * 512, 1);
	ck_assert_double_eq_tol(lib.bytes, 4.0 * (4096 * 512 + 512 * 1024 + 4096 * 1024), 1);
}
END_TEST

/* A convolution record's implicit GEMM: N 8, C 64 (56 x 56), K 128 filters
 * of 3 x 3, output 8 x 128 x 28 x 28. */
START_TEST(conv_shape_to_implicit_gemm)
{
	struct trace_conv c;
	memset(&c, 0, sizeof(c));
	c.nbdims = 4;
	int64_t in[4] = {8, 64, 56, 56}, filt[4] = {128, 64, 3, 3}, out[4] = {8, 128, 28, 28};
	memcpy(c.in, in, sizeof in);
	memcpy(c.filt, filt, sizeof filt);
	memcpy(c.out, out, sizeof out);
	c.dtype = c.compute_type = TRACE_DT_F32;
	struct ktable_lib lib;
	c.dir = TRACE_CONV_FWD;
	ktable_lib_from_conv(&lib, &c);
	ck_assert_uint_eq(lib.m, 8 * 28 * 28);
	ck_assert_uint_eq(lib.n, 128);
	ck_assert_uint_eq(lib.k, 64 * 9);
	ck_assert_double_eq_tol(lib.flops, 2.0 * 8 * 28 * 28 * 128 * 64 * 9, 1);
	/* its geometry (where Winograd applies, predictor/conv.c): 3 x 3
	 * into 28 x 28, unit only when every stride and dilation is 1 and
	 * there is one group (here the strides are not set: unknown) */
	ck_assert_uint_eq(lib.conv.r, 3);
	ck_assert_uint_eq(lib.conv.s, 3);
	ck_assert_uint_eq(lib.conv.p, 28);
	ck_assert_uint_eq(lib.conv.q, 28);
	ck_assert_uint_eq(lib.conv.unit, 0);
	c.stride[0] = c.stride[1] = 1;
	c.dilation[0] = c.dilation[1] = 1;
	c.groups = 1;
	ktable_lib_from_conv(&lib, &c);
	ck_assert_uint_eq(lib.conv.unit, 1);
	c.stride[1] = 2;
	ktable_lib_from_conv(&lib, &c);
	ck_assert_uint_eq(lib.conv.unit, 0);
	c.stride[1] = 1;
	c.groups = 64;
	ktable_lib_from_conv(&lib, &c);
	ck_assert_uint_eq(lib.conv.unit, 0);
	c.dir = TRACE_CONV_BWD_DATA;
	ktable_lib_from_conv(&lib, &c);
	ck_assert_uint_eq(lib.conv.r, 0);     /* backward: not described */
	ck_assert_uint_eq(lib.m, 8 * 56 * 56);
	ck_assert_uint_eq(lib.n, 64);
	ck_assert_uint_eq(lib.k, 128 * 9);
	c.dir = TRACE_CONV_BWD_FILTER;
	ktable_lib_from_conv(&lib, &c);
	ck_assert_uint_eq(lib.m, 128);
	ck_assert_uint_eq(lib.n, 64 * 9);
	ck_assert_uint_eq(lib.k, 8 * 28 * 28);
	/* no dimensions: no shape */
	memset(c.in, 0, sizeof c.in);
	ktable_lib_from_conv(&lib, &c);
	ck_assert_uint_eq(lib.m, 0);
}
END_TEST

/* A copy to page-locked memory issued on an idle GPU runs at once, and
 * its call may return after it: that is no wait.  The same copy to
 * pageable memory is one.  A 100 us kernel (5..105 us), then at 200 us a
 * 2 us DtoH copy on its stream (205..207, the call returning at 215), then
 * a kernel launched at 220 (225..325).  On a T4 the first kernel runs long
 * past 200 us: the pageable copy makes the CPU wait for it before the
 * second launch, the pinned one does not, and the second kernel queues
 * behind the copy instead: the pinned step is shorter. */
static double t4_step(enum trace_host_mem host)
{
	const struct gpu_spec *targets[1] = {gpu("t4")};
	struct trace_record r;
	struct trace_writer *w = a10_writer();
	struct analysis *a;
	double ns;

	put_kernel(w, 1, 0, 5000, 105000);
	memset(&r, 0, sizeof(r));
	r.type = TRACE_MEMCPY;
	r.u.copy = (struct trace_copy){ .seq = 2, .bytes = 4096, .kind = TRACE_COPY_DTOH, .async = 1,
		.stream = 7, .cpu_ns = 200000, .cpu_end_ns = 215000, .start_ns = 205000,
		.end_ns = 207000, .host_mem = host };
	ck_assert_int_eq(trace_writer_record(w, &r), 0);
	put_kernel(w, 3, 220000, 225000, 325000);
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);
	a = run(path, NULL, targets, 1, PRED_WAVE);
	ns = a->targets[0].iteration_ns;
	analysis_free(a);
	return ns;
}

START_TEST(pinned_copy_does_not_wait)
{
	double pinned = t4_step(TRACE_HOST_PINNED), pageable = t4_step(TRACE_HOST_PAGEABLE);

	ck_assert_msg(pinned < pageable - 1000, "pinned %.0f ns, pageable %.0f ns", pinned, pageable);
}
END_TEST

/* Iterations that exist.  A trace without step markers is one iteration
 * from its first call to its last work and says so, with how idle the GPU
 * was; a launch whose CPU time is unknown (0, an importer found no call)
 * launches where it started on the GPU instead of at time 0 (which made
 * a 38-day iteration of a real trace); a trace with no work is an error,
 * and so is an iteration of a day or more. */
START_TEST(iterations_that_exist)
{
	const struct gpu_spec *targets[1] = {gpu("h100-sxm")};
	struct analysis_options opt = {.targets = targets, .ntargets = 1, .method = PRED_WAVE};
	struct analysis *a = NULL;
	char err[256];
	struct trace_record r;
	struct trace_writer *w = a10_writer();
	const uint64_t t0 = 1700000000000000000ull;   /* an epoch-based clock */

	/* a 1 ms kernel launched at t0, one of unknown launch 90 ms later:
	 * 2 ms of work in 91 ms, the GPU waiting 89.01 ms (98%) */
	put_kernel(w, 1, t0, t0 + 10000, t0 + 1010000);
	put_kernel(w, 2, 0, t0 + 90000000, t0 + 91000000);
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);
	ck_assert_int_eq(analysis_run(path, &opt, &a, err, sizeof(err)), 0);
	ck_assert_msg(fabs(a->measured_ns - 91000000) < 1, "measured %.0f ns", a->measured_ns);
	ck_assert_msg(strstr(a->warning, "no step markers: one iteration = the whole trace (91.000 ms)") &&
		      strstr(a->warning, "the GPU idle 98% of it"), "%s", a->warning);
	analysis_free(a);

	/* copies only: predicted, with a warning; nothing at all: an error */
	w = a10_writer();
	memset(&r, 0, sizeof(r));
	r.type = TRACE_MEMCPY;
	r.u.copy = (struct trace_copy){ .seq = 1, .bytes = 1 << 20, .kind = TRACE_COPY_HTOD,
		.stream = 7, .cpu_ns = 1000, .cpu_end_ns = 200000, .start_ns = 2000,
		.end_ns = 190000 };
	ck_assert_int_eq(trace_writer_record(w, &r), 0);
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);
	ck_assert_int_eq(analysis_run(path, &opt, &a, err, sizeof(err)), 0);
	ck_assert_msg(strstr(a->warning, "no kernels") != NULL, "%s", a->warning);
	analysis_free(a);
	w = a10_writer();
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);
	ck_assert_int_eq(analysis_run(path, &opt, &a, err, sizeof(err)), -2);
	ck_assert_ptr_null(a);
	ck_assert_msg(strstr(err, "nothing to predict") != NULL, "%s", err);

	/* two kernels 2 days apart: no iteration is that long */
	w = a10_writer();
	put_kernel(w, 1, 1000, 2000, 3000);
	put_kernel(w, 2, 172800000000000ull, 172800000001000ull, 172800000002000ull);
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);
	ck_assert_int_eq(analysis_run(path, &opt, &a, err, sizeof(err)), -2);
	ck_assert_ptr_null(a);
	ck_assert_msg(strstr(err, "an iteration of 2.0 days") != NULL, "%s", err);
}
END_TEST

/* Writes to path a trace recorded on device by one process of a job of
 * world GPUs: one GPU's call g (its shape and types) and the kernel k it
 * launched, named kname (its launch shape, and its measured time in
 * end_ns), at 1 us; the sequence, stream and times are filled in. */
static void write_gemm_trace_capped(const char *device, uint32_t world, double cap_w,
				    const struct trace_gemm *g, const char *kname,
				    const struct trace_kernel *k);

static void write_gemm_trace(const char *device, uint32_t world, const struct trace_gemm *g,
			     const char *kname, const struct trace_kernel *k)
{
	write_gemm_trace_capped(device, world, 0, g, kname, k);
}

/* write_gemm_trace() with the header's power_limit_w at cap_w (0 none). */
static void write_gemm_trace_capped(const char *device, uint32_t world, double cap_w,
				    const struct trace_gemm *g, const char *kname,
				    const struct trace_kernel *k)
{
	struct trace_header h;
	struct trace_record r;
	int err;
	struct trace_writer *w = trace_writer_open(path, 0, &err);

	ck_assert_ptr_nonnull(w);
	memset(&h, 0, sizeof(h));
	snprintf(h.device.name, sizeof(h.device.name), "%s", device);
	h.world_size = world;
	h.power_limit_w = cap_w;
	ck_assert_int_eq(trace_writer_header(w, &h), 0);
	memset(&r, 0, sizeof(r));
	r.type = TRACE_GEMM;
	r.u.gemm = *g;
	r.u.gemm.seq = 1;
	r.u.gemm.api = TRACE_GEMM_IMPORTED;
	r.u.gemm.batch = 1;
	r.u.gemm.stream = 7;
	r.u.gemm.cpu_ns = 1000;
	ck_assert_int_eq(trace_writer_record(w, &r), 0);
	memset(&r, 0, sizeof(r));
	r.type = TRACE_KERNEL;
	r.u.kernel = *k;
	r.u.kernel.seq = 2;
	r.u.kernel.name = trace_writer_intern(w, kname, strlen(kname));
	r.u.kernel.stream = 7;
	r.u.kernel.cpu_ns = 1000;
	r.u.kernel.start_ns = 6000;
	r.u.kernel.end_ns = 6000 + k->end_ns;
	r.u.kernel.lib_call = 1;
	r.u.kernel.iteration = -1;
	ck_assert_int_eq(trace_writer_record(w, &r), 0);
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);
}

/* A TF32 CUTLASS GEMM as the public A100 traces have it: the profiler's
 * input type says "float" (an FP32 GEMM record), the kernel's name says
 * tensor cores.  Predicted from an A100 40GB on an A100 80GB (the same
 * chip, 14% more bandwidth) it must not come out slower: the FP32 SIMT
 * model made this 0.411 ms kernel 1.673 ms; as a tensor-core TF32 GEMM it
 * is the tensor-core model's, at most the measured time. */
START_TEST(tf32_gemm_named_by_kernel)
{
	static const char kname[] = "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x128_32x3_"
				    "tn_align4>(cutlass_80_tensorop_s1688gemm_256x128_32x3_tn_align4::Params)";
	const struct gpu_spec *targets[1] = {gpu("a100-sxm4-80")};
	write_gemm_trace("NVIDIA A100-SXM4-40GB", 0,
			 &(struct trace_gemm){ .m = 4096, .n = 2048, .k = 1024, .a_type = TRACE_DT_F32,
				 .b_type = TRACE_DT_F32, .c_type = TRACE_DT_F32,
				 .compute_type = TRACE_DT_F32, .epilogue = 1 },
			 kname, &(struct trace_kernel){ .grid = {16, 32, 1}, .block = {256, 1, 1},
				 .regs = 230, .dyn_smem = 73728, .end_ns = 411000 });

	struct analysis *a = run(path, NULL, targets, 1, PRED_AUTO);
	ck_assert_uint_eq(a->targets[0].ngroups, 1);
	ck_assert_int_eq(a->targets[0].groups[0].method, PRED_TCGEMM);
	ck_assert_msg(a->targets[0].kernel_ns <= 411000 * 1.001, "predicted %.0f ns",
		      a->targets[0].kernel_ns);
	analysis_free(a);
}
END_TEST

/* A BF16 GEMM recorded on an A100 by one process of a job of world GPUs
 * (the header's world_size, 0 none). */
static void write_world_gemm(uint32_t world)
{
	write_gemm_trace("NVIDIA A100-SXM4-80GB", world,
			 &(struct trace_gemm){ .m = 8192, .n = 8192, .k = 8192, .a_type = TRACE_DT_BF16,
				 .b_type = TRACE_DT_BF16, .c_type = TRACE_DT_BF16,
				 .compute_type = TRACE_DT_F32 },
			 "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128x32_stage3",
			 &(struct trace_kernel){ .grid = {32, 64, 1}, .block = {256, 1, 1}, .regs = 232,
				 .dyn_smem = 98304, .end_ns = 4400000 });
}

/* A step of several GPUs in lockstep runs at the slowest board's pace: a
 * trace whose header says 8 GPUs is predicted as on targets whose compute
 * peaks are derated by the middle of a 5 % spread less the slowest of 8
 * spread evenly over it (2.5 % x 7 / 9), memory untouched; the report
 * names the targets themselves.  0 or 1 GPU: no derating. */
START_TEST(world_size_paces_targets)
{
	const struct gpu_spec *h100 = gpu("h100-sxm");
	const struct gpu_spec *targets[1] = { h100 };
	struct gpu_spec slow;
	const struct gpu_spec *slow_t[1] = { gpu_derate_compute(h100, 1 - 0.025 * 7 / 9, &slow) };

	write_world_gemm(0);
	struct analysis *a0 = run(path, NULL, targets, 1, PRED_AUTO);
	struct analysis *ad = run(path, NULL, slow_t, 1, PRED_AUTO);
	write_world_gemm(1);
	struct analysis *a1 = run(path, NULL, targets, 1, PRED_AUTO);
	write_world_gemm(8);
	struct analysis *a8 = run(path, NULL, targets, 1, PRED_AUTO);

	ck_assert_double_eq(a0->pace, 1);
	ck_assert_double_eq(a1->targets[0].kernel_ns, a0->targets[0].kernel_ns);
	ck_assert_uint_eq(a8->world_size, 8);
	ck_assert_double_eq_tol(a8->pace, 1 - 0.025 * 7 / 9, 1e-12);
	ck_assert_ptr_eq(a8->targets[0].gpu, h100);
	ck_assert(ad->targets[0].kernel_ns > a0->targets[0].kernel_ns * 1.005);
	ck_assert_double_eq_tol(a8->targets[0].kernel_ns, ad->targets[0].kernel_ns, 1e-6);
	ck_assert_double_eq_tol(a8->targets[0].iteration_ns, ad->targets[0].iteration_ns, 1e-6);
	analysis_free(a0);
	analysis_free(ad);
	analysis_free(a1);
	analysis_free(a8);
}
END_TEST

/* A board capped below its TDP takes the cap once: an L40S (350 W, no
 * MAMF figure: tcgemm's rule with its watts per TFLOP/s) at 300 W keeps
 * (300 / 350) / 0.90^(2/3) = 0.857143 / 0.932170 = 0.919514 of its clock
 * (below the voltage floor, power.c), so a compute-bound BF16 GEMM
 * (16384^2 x 8192: DRAM time 1.4 % of the main loop's) takes
 * 1 / 0.919514 = 1.08753x as long, its DRAM part unchanged pulling the
 * ratio under that by less than 0.2 %.  The rule reading the capped
 * copy's TDP and derated peaks on top of that share made it 1.157x. */
START_TEST(power_limit_applied_once)
{
	const struct gpu_spec *l40s = gpu("l40s");
	const struct gpu_spec *targets[1] = { l40s };
	const struct trace_gemm gm = { .m = 16384, .n = 16384, .k = 8192, .a_type = TRACE_DT_BF16,
		.b_type = TRACE_DT_BF16, .c_type = TRACE_DT_BF16, .compute_type = TRACE_DT_F32 };
	const struct trace_kernel kn = { .grid = {64, 128, 1}, .block = {256, 1, 1}, .regs = 232,
		.dyn_smem = 98304, .end_ns = 4400000 };
	const char *kname = "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128x32_stage3";

	write_gemm_trace_capped("NVIDIA A100-SXM4-80GB", 0, 0, &gm, kname, &kn);
	struct analysis *a0 = run(path, NULL, targets, 1, PRED_AUTO);
	write_gemm_trace_capped("NVIDIA A100-SXM4-80GB", 0, 300, &gm, kname, &kn);
	struct analysis *ac = run(path, NULL, targets, 1, PRED_AUTO);
	write_gemm_trace_capped("NVIDIA A100-SXM4-80GB", 0, 350, &gm, kname, &kn);
	struct analysis *at = run(path, NULL, targets, 1, PRED_AUTO);

	ck_assert_int_eq(ac->targets[0].groups[0].method, PRED_TCGEMM);
	double r = ac->targets[0].kernel_ns / a0->targets[0].kernel_ns;
	ck_assert_msg(r > 1.08753 * 0.998 && r <= 1.08753 * 1.0001, "capped / uncapped %.5f", r);
	ck_assert_double_eq_tol(at->targets[0].kernel_ns, a0->targets[0].kernel_ns,
				1e-9 * a0->targets[0].kernel_ns);
	analysis_free(a0);
	analysis_free(ac);
	analysis_free(at);
}
END_TEST

/* cuBLAS's trans_a is PyTorch's second operand transposed: on a batched
 * product that is attention's Q K^T (the AMD scale's class of its own); on
 * a plain GEMM it is nn.Linear's W^T, which is not. */
START_TEST(gemm_transposed_operand)
{
	struct trace_gemm g;
	struct ktable_lib lib;

	memset(&g, 0, sizeof(g));
	g.api = TRACE_GEMM_SGEMM_STRIDED_BATCHED;
	g.m = g.n = 512;
	g.k = 64;
	g.batch = 64;
	g.a_type = g.b_type = g.c_type = g.compute_type = TRACE_DT_F32;
	g.trans_a = 1;
	ktable_lib_from_gemm(&lib, &g);
	ck_assert_uint_eq(lib.b_transposed, 1);
	g.trans_a = 0;
	g.trans_b = 1;
	ktable_lib_from_gemm(&lib, &g);
	ck_assert_uint_eq(lib.b_transposed, 0);
	g.trans_a = 1;
	g.trans_b = 0;
	g.batch = 1;
	g.api = TRACE_GEMM_SGEMM;
	ktable_lib_from_gemm(&lib, &g);
	ck_assert_uint_eq(lib.b_transposed, 0);
}
END_TEST

/* Attention shapes of operator records are kept once in the kernel table:
 * two records of one shape get one id (and so one configuration), another
 * shape another id, a record without a shape none. */
START_TEST(attention_shapes_interned)
{
	struct ktable *t = ktable_new();
	struct trace_op o;
	struct ktable_lib l1, l2, l3, l4, l5;

	ck_assert_ptr_nonnull(t);
	memset(&o, 0, sizeof(o));
	o.kind = TRACE_OPK_ATTENTION;
	o.dtype = TRACE_DT_BF16;
	o.attn.impl = TRACE_ATTN_FLASH;
	o.attn.form = TRACE_ATTN_DECODE;
	o.attn.seqs = 4;
	o.attn.heads = 32;
	o.attn.kv_heads = 8;
	o.attn.head_dim = o.attn.head_dim_v = 128;
	o.attn.q_tokens = 4;
	o.attn.kv_tokens = 4 * 513;
	o.attn.max_kv = 513;
	o.attn.pairs = 4 * 513;
	ck_assert_int_eq(ktable_lib_from_op(t, &l1, &o), 0);
	ck_assert_int_eq(ktable_lib_from_op(t, &l2, &o), 0);
	o.attn.kv_tokens += 4;     /* the next decode step */
	o.attn.max_kv += 1;
	o.attn.pairs += 4;
	ck_assert_int_eq(ktable_lib_from_op(t, &l3, &o), 0);
	/* the same step in a sliding-window layer (the caller's keys are
	 * the same numbers here): a shape of its own, its window kept */
	struct trace_op ow = o;
	ow.attn.causal = 1;
	ow.attn.window = 1024;
	ck_assert_int_eq(ktable_lib_from_op(t, &l5, &ow), 0);
	ck_assert_uint_eq(l5.attn, 3);
	ck_assert_uint_eq(ktable_attn(t, l5.attn)->window, 1024);
	ck_assert_uint_eq(ktable_attn(t, l3.attn)->window, 0);
	/* the same step over an FP8 cache: a shape of its own, its size kept */
	struct trace_op o8 = o;
	o8.attn.kv_bytes = 1;
	struct ktable_lib l8;
	ck_assert_int_eq(ktable_lib_from_op(t, &l8, &o8), 0);
	ck_assert_uint_eq(l8.attn, 4);
	ck_assert_uint_eq(ktable_attn(t, l8.attn)->kv_bytes, 1);
	ck_assert_uint_eq(ktable_attn(t, l3.attn)->kv_bytes, 0);
	o.attn.impl = TRACE_ATTN_NONE;
	ck_assert_int_eq(ktable_lib_from_op(t, &l4, &o), 0);
	ck_assert_uint_eq(l1.attn, 1);
	ck_assert_uint_eq(l2.attn, 1);
	ck_assert_uint_eq(l3.attn, 2);
	ck_assert_uint_eq(l4.attn, 0);
	const struct pred_attn *a = ktable_attn(t, l3.attn);
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(a->form, PRED_ATTN_DECODE);
	ck_assert_uint_eq(a->max_kv, 514);
	ck_assert(a->pairs == 4.0 * 514);
	ck_assert_ptr_null(ktable_attn(t, 0));
	ck_assert_ptr_null(ktable_attn(t, 5));
	struct trace_kernel k;
	struct ktable_key k1, k3;
	memset(&k, 0, sizeof(k));
	k.name = 1;
	ktable_key_init(&k1, &k, &l1);
	ktable_key_init(&k3, &k, &l3);
	ck_assert_int_eq(ktable_intern(t, &k1), 0);
	ck_assert_int_eq(ktable_intern(t, &k3), 1);
	ck_assert_uint_eq(ktable_entry(t, 1)->key.attn, 2);
	ktable_free(t);
}
END_TEST

/* The same batched GEMM recorded with and without a transposed second
 * operand, predicted on an AMD target (whose scale slows the Q K^T class)
 * and on an NVIDIA one (no scale: the two predict alike).  The origin's
 * 500 us keep both above the MI250's roofline, where a prediction stops. */
START_TEST(transposed_gemm_on_amd)
{
	const struct gpu_spec *targets[2] = {gpu("mi250"), gpu("h100-sxm")};
	const char *names[2] = {"ampere_sgemm_128x64_tn", "ampere_sgemm_128x64_nn"};
	struct trace_record r;
	struct trace_writer *w;
	struct analysis *a;

	w = a10_writer();
	for (int i = 0; i < 2; i++) {
		memset(&r, 0, sizeof(r));
		r.type = TRACE_GEMM;
		r.u.gemm = (struct trace_gemm){ .seq = 1 + 2 * (uint64_t)i,
			.api = TRACE_GEMM_SGEMM_STRIDED_BATCHED, .m = 512, .n = 512, .k = 64,
			.batch = 64, .trans_a = (uint8_t)(i == 0), .a_type = TRACE_DT_F32,
			.b_type = TRACE_DT_F32, .c_type = TRACE_DT_F32,
			.compute_type = TRACE_DT_F32, .stream = 7,
			.cpu_ns = 1000 + 1000000 * (uint64_t)i };
		ck_assert_int_eq(trace_writer_record(w, &r), 0);
		memset(&r, 0, sizeof(r));
		r.type = TRACE_KERNEL;
		r.u.kernel = (struct trace_kernel){ .seq = 2 + 2 * (uint64_t)i,
			.name = trace_writer_intern(w, names[i], strlen(names[i])),
			.grid = {4, 8, 64}, .block = {256, 1, 1}, .stream = 7,
			.cpu_ns = 1010 + 1000000 * (uint64_t)i,
			.start_ns = 2000 + 1000000 * (uint64_t)i,
			.end_ns = 502000 + 1000000 * (uint64_t)i,
			.lib_call = 1 + 2 * (uint64_t)i, .iteration = -1 };
		ck_assert_int_eq(trace_writer_record(w, &r), 0);
	}
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);
	a = run(path, NULL, targets, 2, PRED_AUTO);
	double ns[2][2] = {{0}};
	for (int t = 0; t < 2; t++)
		for (size_t j = 0; j < a->targets[t].ngroups; j++) {
			const struct analysis_group *gr = &a->targets[t].groups[j];
			for (int i = 0; i < 2; i++)
				if (!strcmp(gr->name, names[i]))
					ns[t][i] = gr->pred_ns;
		}
	ck_assert(ns[0][0] > 0 && ns[0][1] > 0 && ns[1][0] > 0 && ns[1][1] > 0);
	ck_assert_msg(ns[0][0] > 1.3 * ns[0][1], "mi250: Q K^T %g ns, plain %g ns", ns[0][0], ns[0][1]);
	ck_assert_msg(fabs(ns[1][0] - ns[1][1]) <= 1e-9 * ns[1][1], "h100: %g ns against %g ns",
		      ns[1][0], ns[1][1]);
	analysis_free(a);
}
END_TEST

/*
 * CUDA graphs (analyzer/graphs.h).  A capture of three FP32 GEMMs on an
 * A100 SXM4: two of one kernel, grid and block but K 512 and 8192 (a
 * projection and the one after an FFN's wide layer: one tile grid, 16x
 * the work), and a third of another kernel.  The graph is replayed twice.
 */
#define GR_CAPTURE 0x5001
static const uint64_t gr_k[3] = { 512, 8192, 1024 };
static const double gr_us[3] = { 40, 600, 90 };   /* measured, each replay */

static void put_gr_gemm(struct trace_writer *w, uint64_t seq, uint64_t kk, uint64_t cpu)
{
	struct trace_record r;
	memset(&r, 0, sizeof(r));
	r.type = TRACE_GEMM;
	r.u.gemm = (struct trace_gemm){ .seq = seq, .api = TRACE_GEMM_SGEMM, .m = 2048, .n = 2048,
		.k = kk, .batch = 1, .a_type = TRACE_DT_F32, .b_type = TRACE_DT_F32,
		.c_type = TRACE_DT_F32, .compute_type = TRACE_DT_F32, .epilogue = 1, .stream = 7,
		.thread = 10, .cpu_ns = cpu };
	ck_assert_int_eq(trace_writer_record(w, &r), 0);
}

/* Kernel j of the capture as a record of the given flags, graph, replay,
 * library call and times. */
static void put_gr_kernel(struct trace_writer *w, int j, uint64_t seq, uint32_t flags,
			  uint64_t graph, uint64_t replay, uint64_t lib, uint64_t cpu, uint64_t start)
{
	struct trace_record r;
	const char *nm = j < 2 ? "ampere_sgemm_128x64_nn" : "ampere_sgemm_64x64_nn";
	memset(&r, 0, sizeof(r));
	r.type = TRACE_KERNEL;
	r.u.kernel = (struct trace_kernel){ .seq = seq, .name = trace_writer_intern(w, nm, strlen(nm)),
		.grid = { j < 2 ? 256u : 1024u, 1, 1 }, .block = { 256, 1, 1 }, .regs = 64,
		.stream = 7, .thread = 10, .flags = flags, .cpu_ns = cpu,
		.start_ns = start, .end_ns = start ? start + (uint64_t)(gr_us[j] * 1000) : 0,
		.lib_call = lib, .iteration = -1, .graph = graph, .replay = replay };
	ck_assert_int_eq(trace_writer_record(w, &r), 0);
}

/* The capture: each GEMM's call, then its launch into the graph. */
static uint64_t put_gr_capture(struct trace_writer *w, uint64_t graph)
{
	uint64_t seq = 0;
	for (int j = 0; j < 3; j++) {
		put_gr_gemm(w, ++seq, gr_k[j], 1000 + (uint64_t)j * 10);
		put_gr_kernel(w, j, seq + 1, TRACE_KF_CAPTURED, graph, 0, seq, 1001 + (uint64_t)j * 10, 0);
		seq++;
	}
	return seq;
}

/* kind 0: the launches made directly (each after its GEMM call), twice;
 * 1: the capture, then CUPTI's view of two replays (their kernels
 * interleaved: the second replay's first kernel before the first's second);
 * 2: the same with nothing linking them (graph and replay 0, as before
 * trace 1.12); 3: the capture, then two replays timed whole (events), each
 * lasting its three kernels; 4: 1 with the second replay's last kernel
 * lost (CUPTI dropped its report: the replay never completes), then a
 * launch written late, its CPU time before the replays' (a reading in CPU
 * order must replay it first). */
static void write_graph_trace(int kind)
{
	int late = kind == 4;
	kind = late ? 1 : kind;
	struct trace_writer *w = a100_writer(path);
	uint64_t seq = kind == 0 || kind == 2 ? 0 : put_gr_capture(w, GR_CAPTURE);
	uint64_t t = 1000000, total = 0;
	for (int j = 0; j < 3; j++)
		total += (uint64_t)(gr_us[j] * 1000);
	if (kind == 0) {
		for (int rep = 0; rep < 2; rep++)
			for (int j = 0; j < 3; j++, t += 1000000) {
				put_gr_gemm(w, ++seq, gr_k[j], t);
				put_gr_kernel(w, j, seq + 1, 0, 0, 0, seq, t + 1, t + 5000);
				seq++;
			}
	} else if (kind == 1 || kind == 2) {
		uint64_t replay[2] = { seq + 1, seq + 2 };
		seq += 2;
		static const int order[6][2] = { {0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2} };
		for (int i = 0; i < 6 - late; i++, t += 1000000) {
			int rep = order[i][0], j = order[i][1];
			put_gr_kernel(w, j, ++seq, TRACE_KF_GRAPH, kind == 1 ? GR_CAPTURE : 0,
				      kind == 1 ? replay[rep] : 0, 0, 500000 + (uint64_t)rep, t);
		}
		if (late)
			put_gr_kernel(w, 2, ++seq, 0, 0, 0, 0, 400000, t);
	} else {
		const char *nm = "cuGraphLaunch";
		for (int rep = 0; rep < 2; rep++, t += 10000000) {
			struct trace_record r;
			memset(&r, 0, sizeof(r));
			r.type = TRACE_KERNEL;
			r.u.kernel = (struct trace_kernel){ .seq = ++seq,
				.name = trace_writer_intern(w, nm, strlen(nm)), .grid = { 1, 1, 1 },
				.block = { 1, 1, 1 }, .stream = 7, .thread = 10, .flags = TRACE_KF_GRAPH,
				.cpu_ns = t, .start_ns = t + 5000, .end_ns = t + 5000 + total,
				.iteration = -1, .graph = GR_CAPTURE };
			ck_assert_int_eq(trace_writer_record(w, &r), 0);
		}
	}
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);
}

/* CUPTI's replayed kernels take the shapes their captured launches named:
 * predicted on every target as the same launches made directly, to the
 * last digit, although the two GEMMs of one kernel, grid and block differ
 * 16x in work and the two replays' kernels interleave.  Without the link
 * (a 1.11 trace) the two are one configuration of no shape, predicted
 * otherwise. */
START_TEST(graph_replays_take_captured_shapes)
{
	const struct gpu_spec *targets[3] = { gpu("t4"), gpu("h100-sxm"), gpu("a100-sxm4-80") };
	struct analysis *a[3];
	for (int kind = 0; kind < 3; kind++) {
		write_graph_trace(kind);
		a[kind] = run(path, NULL, targets, 3, PRED_AUTO);
	}
	ck_assert_uint_eq(a[0]->configs, 3);
	ck_assert_uint_eq(a[1]->configs, 3);
	ck_assert_uint_eq(a[2]->configs, 2);   /* the two 128x64 GEMMs one shapeless config */
	ck_assert_uint_eq(a[1]->captured, 3);
	for (int t = 0; t < 3; t++) {
		double direct = a[0]->targets[t].kernel_ns, linked = a[1]->targets[t].kernel_ns;
		ck_assert_msg(direct > 0 && fabs(linked / direct - 1) < 1e-12, "%s: replayed %.1f ns, direct %.1f",
			      targets[t]->id, linked, direct);
		for (int m = 0; m < PRED_METHOD_COUNT; m++)
			ck_assert(fabs(a[1]->targets[t].method_ns[m] - a[0]->targets[t].method_ns[m]) <=
				  1e-9 * direct);
	}
	/* read a second time, in CPU order (a one-event window, and a launch
	 * written after the replays' kernels with a CPU time before them),
	 * each replay matched again from its capture's start */
	write_graph_trace(4);
	struct analysis *once = run(path, NULL, targets, 3, PRED_AUTO);
	window = 1;
	struct analysis *again = run(path, NULL, targets, 3, PRED_AUTO);
	window = 0;
	ck_assert(!once->reread_in_order && !once->sorted_in_memory);
	ck_assert(again->sorted_in_memory);   /* one thread out of order: the sorted copy */
	ck_assert_uint_eq(again->configs, 4);   /* the late launch has no shape */
	ck_assert_uint_eq(again->kernels, 6);
	for (int t = 0; t < 3; t++)
		ck_assert_msg(fabs(again->targets[t].kernel_ns / once->targets[t].kernel_ns - 1) < 1e-12,
			      "%s: reread %.1f ns, once %.1f", targets[t]->id, again->targets[t].kernel_ns,
			      once->targets[t].kernel_ns);
	analysis_free(once);
	analysis_free(again);
	/* on another architecture the shapeless kernels are scaled otherwise */
	ck_assert_msg(fabs(a[2]->targets[0].kernel_ns / a[0]->targets[0].kernel_ns - 1) > 0.01,
		      "unlinked %.1f, direct %.1f", a[2]->targets[0].kernel_ns, a[0]->targets[0].kernel_ns);
	for (int kind = 0; kind < 3; kind++)
		analysis_free(a[kind]);
}
END_TEST

/* A training step whose layers are one CUDA graph, captured before the
 * first of three iterations (tests/synth.c): CUPTI's replayed kernels are
 * predicted as the same step launched eagerly, on every target; replays
 * timed whole reproduce the measured step on the origin, as every trace
 * does (identity_every_gpu). */
START_TEST(graph_step_as_eager)
{
	const struct gpu_spec *targets[3] = { gpu("a100-sxm4-40"), gpu("h100-sxm"), gpu("t4") };
	struct synth_opts o;
	struct analysis *a[3];
	for (int form = 0; form < 3; form++) {
		synth_defaults(&o, "NVIDIA A100-SXM4-40GB");
		o.iterations = 3;
		o.cuda_graphs = form;
		ck_assert_int_eq(synth_write(path, &o), 0);
		a[form] = run(path, NULL, targets, 3, PRED_AUTO);
	}
	ck_assert_uint_eq(a[SYNTH_GRAPHS_CUPTI]->captured, 12);
	ck_assert_uint_eq(a[SYNTH_GRAPHS_CUPTI]->configs, a[0]->configs);
	for (int t = 0; t < 3; t++) {
		double eager = a[0]->targets[t].kernel_ns, cupti = a[SYNTH_GRAPHS_CUPTI]->targets[t].kernel_ns;
		ck_assert_msg(fabs(cupti / eager - 1) < 1e-12, "%s: replayed %.1f ns, eager %.1f",
			      targets[t]->id, cupti, eager);
	}
	const struct analysis *w = a[SYNTH_GRAPHS_EVENTS];
	ck_assert_msg(fabs(w->targets[0].iteration_ns / w->measured_ns - 1) < 1e-9, "origin %.1f, measured %.1f",
		      w->targets[0].iteration_ns, w->measured_ns);
	ck_assert_ptr_nonnull(strstr(w->warning, "3 CUDA graph replays timed whole"));
	for (int t = 1; t < 3; t++)
		ck_assert(w->targets[t].kernel_ns > 0 && w->targets[t].method_ns[PRED_TCGEMM] > 0);
	for (int form = 0; form < 3; form++)
		analysis_free(a[form]);
}
END_TEST

/* A replay an events trace timed whole takes its graph's captured
 * launches: its time T shared among them as their roofline times on the
 * origin are, each share scaled as the roofline scales it, so on a target
 * T x sum(roofline there) / sum(roofline on the origin), and T on the
 * origin; the roofline times here come from the predictor on the shapes
 * written by hand (2 m n k FLOPs, each operand's 4-byte elements once).
 * A replay whose capture the trace lacks stays one kernel of unknown
 * kind, and the warning says which. */
START_TEST(whole_replay_from_its_capture)
{
	const struct gpu_spec *targets[2] = { gpu("t4"), gpu("a100-sxm4-80") };
	struct predictor *p;
	char err[256];
	ck_assert_int_eq(predictor_new(NULL, &p, err, sizeof(err)), 0);
	double sum[2] = { 0, 0 }, total = 0;
	for (int j = 0; j < 3; j++) {
		total += 2 * gr_us[j] * 1000;   /* two replays */
		for (int t = 0; t < 2; t++) {
			struct pred_kernel k;
			struct pred_result r;
			memset(&k, 0, sizeof(k));
			k.op = PRED_OP_GEMM;
			k.dtype = GPU_DT_FP32;
			k.m = k.n = 2048;
			k.k = gr_k[j];
			k.batch = 1;
			k.flops = 2.0 * 2048 * 2048 * (double)gr_k[j];
			k.bytes = 4.0 * (2048.0 * (double)gr_k[j] * 2 + 2048.0 * 2048);
			ck_assert_int_eq(predict_kernel(p, &k, NULL, targets[t], PRED_ROOFLINE, &r), 0);
			sum[t] += r.ns;
		}
	}
	write_graph_trace(3);
	struct analysis *a = run(path, NULL, targets, 2, PRED_ROOFLINE);
	ck_assert_uint_eq(a->configs, 1);
	double want = total * sum[0] / sum[1];
	ck_assert_msg(fabs(a->targets[0].kernel_ns / want - 1) < 1e-9, "t4 %.1f ns, want %.1f",
		      a->targets[0].kernel_ns, want);
	ck_assert_msg(fabs(a->targets[1].kernel_ns / total - 1) < 1e-9, "origin %.1f ns, measured %.1f",
		      a->targets[1].kernel_ns, total);
	ck_assert_ptr_nonnull(strstr(a->warning, "2 CUDA graph replays timed whole"));
	ck_assert_ptr_nonnull(strstr(a->warning, "predicted from the kernels captured into its graph"));
	double linked_t4 = a->targets[0].kernel_ns;
	analysis_free(a);

	/* the same replays, their capture not in the trace */
	struct trace_writer *w = a100_writer(path);
	const char *nm = "cuGraphLaunch";
	for (int rep = 0; rep < 2; rep++) {
		struct trace_record r;
		memset(&r, 0, sizeof(r));
		r.type = TRACE_KERNEL;
		r.u.kernel = (struct trace_kernel){ .seq = 1 + (uint64_t)rep,
			.name = trace_writer_intern(w, nm, strlen(nm)), .grid = { 1, 1, 1 },
			.block = { 1, 1, 1 }, .stream = 7, .thread = 10, .flags = TRACE_KF_GRAPH,
			.cpu_ns = 1000000 + (uint64_t)rep * 10000000,
			.start_ns = 1005000 + (uint64_t)rep * 10000000,
			.end_ns = 1005000 + (uint64_t)rep * 10000000 + (uint64_t)(total / 2),
			.iteration = -1, .graph = GR_CAPTURE };
		ck_assert_int_eq(trace_writer_record(w, &r), 0);
	}
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);
	a = run(path, NULL, targets, 2, PRED_ROOFLINE);
	ck_assert_ptr_nonnull(strstr(a->warning, "captures not in the trace, each predicted as one kernel"));
	ck_assert_msg(fabs(a->targets[0].kernel_ns / linked_t4 - 1) > 0.05, "unlinked %.1f, linked %.1f",
		      a->targets[0].kernel_ns, linked_t4);
	analysis_free(a);
	predictor_free(p);
}
END_TEST


/* Why an option was refused (analyzer/optfail.c): each of getopt_long()'s
 * four refusals told apart, a typo named only when one option is nearest. */
START_TEST(option_refusals)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"model", required_argument, NULL, 'm'},
		{"mode", required_argument, NULL, 'M'},
		{"price", required_argument, NULL, 'p'},
		{"precision", required_argument, NULL, 'P'},
		{"top", required_argument, NULL, 'n'},
		{"tp", required_argument, NULL, 't'},
		{NULL, 0, NULL, 0},
	};
	static const struct {
		const char *arg, *want;
	} cases[] = {
		{"--json=1", "option '--json' takes no value (given '--json=1')"},
		{"--js=1", "option '--json' takes no value (given '--js=1')"},
		{"--pr", "option '--pr' is ambiguous: --price, --precision"},
		{"--mdoel", "unknown option '--mdoel' (did you mean '--model'?)"},
		{"--jsn", "unknown option '--jsn' (did you mean '--json'?)"},
		/* one edit from both --top and --tp: no guess */
		{"--tpo", "unknown option '--tpo'"},
		{"--frobnicate=3", "unknown option '--frobnicate'"},
		{"-x", "unknown option '-x'"},
		{"--=1", "unknown option '--=1'"},
		{"--a-name-longer-than-any-option-could-be-and-longer-than-sixty-four-bytes=2",
		 "unknown option '--a-name-longer-than-any-option-could-be-and-longer-than-sixty-four-bytes'"},
	};
	char buf[160];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		optfail_describe(cases[i].arg, opts, buf, sizeof buf);
		ck_assert_msg(!strcmp(buf, cases[i].want), "%s: '%s', want '%s'", cases[i].arg, buf,
			      cases[i].want);
	}
	/* a short buffer is cut and terminated, never overrun */
	char small[12];
	memset(small, 'x', sizeof small);
	optfail_describe("--pr", opts, small, 8);
	ck_assert_uint_eq(strlen(small), 7);
	ck_assert_int_eq(small[8], 'x');

	ck_assert_uint_eq(edit_distance("model", "model", 2), 0);
	ck_assert_uint_eq(edit_distance("mdoel", "model", 2), 1);
	ck_assert_uint_eq(edit_distance("modl", "model", 2), 1);
	ck_assert_uint_eq(edit_distance("kitten", "sitting", 5), 3);
	ck_assert_uint_eq(edit_distance("a", "abcdef", 2), 3);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analyze");
	TCase *tc = tcase_create("analyze");
	size_t ngpus;

	gpu_all(&ngpus);
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, identity_every_gpu, 0, (int)ngpus);
	tcase_add_loop_test(tc, identity_with_events, 0, (int)ngpus);
	tcase_add_test(tc, memory_warning);
	tcase_add_test(tc, pull_follows_each_launch);
	tcase_add_test(tc, recorded_collective);
	tcase_add_test(tc, conv_shape_to_implicit_gemm);
	tcase_add_test(tc, launch_bound_does_not_shrink);
	tcase_add_test(tc, gpu_bound_scales);
	tcase_add_loop_test(tc, blocking_copy_scales, 0, SYNTH_BLOCK_COUNT);
	tcase_add_test(tc, out_of_order_records);
	tcase_add_test(tc, interleaved_threads);
	tcase_add_test(tc, second_reading_disagrees);
	tcase_add_test(tc, second_reading_is_the_sorted_copy);
	tcase_add_test(tc, capture_windows);
	tcase_add_test(tc, sync_written_first);
	tcase_add_test(tc, truncated_trace);
	tcase_add_test(tc, bad_input);
	tcase_add_test(tc, no_gpu_times);
	tcase_add_test(tc, json_document);
	tcase_add_test(tc, baseline_gate);
	tcase_add_test(tc, short_names);
	tcase_add_test(tc, short_names_functor);
	tcase_add_test(tc, kernels_long_after_their_calls);
	tcase_add_test(tc, cublas_shape_to_row_major);
	tcase_add_test(tc, times_past_int64);
	tcase_add_test(tc, gemm_transposed_operand);
	tcase_add_test(tc, tf32_gemm_named_by_kernel);
	tcase_add_test(tc, world_size_paces_targets);
	tcase_add_test(tc, power_limit_applied_once);
	tcase_add_test(tc, iterations_that_exist);
	tcase_add_test(tc, pinned_copy_does_not_wait);
	tcase_add_test(tc, transposed_gemm_on_amd);
	tcase_add_test(tc, attention_shapes_interned);
	tcase_add_test(tc, interval_text_digits);
	tcase_add_test(tc, option_refusals);
	tcase_add_test(tc, graph_replays_take_captured_shapes);
	tcase_add_test(tc, whole_replay_from_its_capture);
	tcase_add_test(tc, graph_step_as_eager);
	suite_add_tcase(s, tc);
	return check_run(s);
}
