/*
 * check_profile.c - NeuSight per-operator profiles (tools/lab/profile.c) on
 * files written here: which graph nodes become which kernel rows (shapes,
 * layer multiplicity, broadcast operands), the kernel each becomes, the
 * AMD scale fitted against sums computed here from the builder's kernels,
 * where the scale applies (AMD targets only), and surfer-bench profile's
 * exit codes.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyzer/model/model.h"
#include "gpu_specs/gpu.h"
#include "predictor/predict.h"
#include "predictor/tile.h"
#include "tools/lab/profile.h"
#include "tests/check_run.h"

/* Columns in another order than NeuSight's, and some of its columns left
 * out: the reader goes by the header. */
static const char HDR[] = "op,target,meta,input_shapes,bw_latency,fw_latency,output_shape,Name,_input_nodes\n";
/* meta of a node inside the first layer, and of a Linear / LayerNorm /
 * Dropout module there */
#define LAYER "\"{'nn_module_stack': OrderedDict({'m.layers.0': ('m.layers.0', <class 'x.Block'>)})}\""
#define MOD(cls) "\"{'nn_module_stack': OrderedDict({'m.layers.0': ('m.layers.0', <class 'x.Block'>), " \
	"'m.layers.0.f': ('m.layers.0.f', <class 'torch.nn.modules." cls "'>)})}\""
#define TOP "\"{'nn_module_stack': OrderedDict({'lm_head': ('lm_head', <class 'torch.nn.modules.linear.Linear'>)})}\""

static char dir[256];

static void write_file(const char *rel, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	FILE *fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fputs(text, fp);
	fclose(fp);
}

static void mkdir_rel(const char *rel)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	ck_assert_int_eq(mkdir(path, 0700), 0);
}

/* One profile with every kind of node; num_layer 3. */
static const char PROFILE[] =
	"placeholder,input_ids,{},[],0,0.0,\"(2, 64)\",input_ids,{}\n"
	"call_method,size,{},\"[[2, 64]]\",0,0.012,\"(1,)\",size,{}\n"
	"call_module,m.layers.0.f," MOD("linear.Linear") ",\"[[2, 64, 32]]\",0,0.5,\"(2, 64, 128)\",fc1,{}\n"
	"call_module,m.layers.0.f," MOD("dropout.Dropout") ",\"[[2, 64, 128]]\",0,0.02,\"(2, 64, 128)\",drop,{}\n"
	"call_module,m.layers.0.f," MOD("normalization.LayerNorm") ",\"[[2, 64, 128]]\",0,0.25,\"(2, 64, 128)\",ln_1,{}\n"
	"call_function,<built-in method matmul of type object at 0x7f>," LAYER ",\"[[2, 4, 64, 16], [2, 4, 16, 64]]\",0,0.4,\"(2, 4, 64, 64)\",matmul,\"{permute: None, transpose: None}\"\n"
	"call_function,<built-in function truediv>," LAYER ",\"[[2, 4, 64, 2048], [1]]\",0,0.6,\"(2, 4, 64, 2048)\",truediv,{}\n"
	"call_function,<built-in method where of type object at 0x7f>," LAYER ",\"[[1, 1, 64, 2048], [2, 4, 64, 2048], [1]]\",0,0.7,\"(2, 4, 64, 2048)\",where,{}\n"
	"call_function,<function softmax at 0x7f>," LAYER ",\"[[2, 4, 64, 2048]]\",0,0.9,\"(2, 4, 64, 2048)\",softmax,{}\n"
	"call_function,<built-in function mul>," LAYER ",\"[[2, 64, 128], [2, 64, 128]]\",0,0.35,\"(2, 64, 128)\",mul,{}\n"
	"call_function,<built-in function add>," LAYER ",\"[[2, 4, 64, 2048], [2, 1, 64, 2048]]\",0,0.45,\"(2, 4, 64, 2048)\",mask,{}\n"
	"call_function,<built-in function gelu>," LAYER ",\"[[2, 64, 512]]\",0,,\"(2, 64, 512)\",gelu,{}\n"
	"call_function,<built-in method addmm of type object at 0x7f>," TOP ",\"[[96], [128, 32], [32, 96]]\",0,0.8,\"(128, 96)\",addmm,{}\n"
	"call_function,<built-in function add>," LAYER ",\"[[1]]\",0,0.011,\"(1,)\",add,{}\n"
	"call_function,<built-in function mul>," LAYER ",\"[[99999999999, 99999999999, 9999], [9, 9]]\",0,0.5,\"(1,)\",damaged,{}\n"
	"call_function,<built-in function mul>," LAYER ",\"[[2, 64, 128], [2, 64\",0,0.5,\"(1,)\",cut,{}\n"
	"output,output,{},[],0,0.0,(),output,{}\n";

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/surfer-check-profile-%ld", (long)getpid());
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	char buf[8192];
	snprintf(buf, sizeof buf, "%s%s", HDR, PROFILE);
	write_file("m-inf-64-2.csv", buf);
	write_file("m-inf-64-2.json", "{\"num_layer\": 3, \"e2e_latency\": 10.0}\n");
}

static void teardown(void)
{
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static const struct prof_op *find(const struct prof_set *s, const char *node)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].node, node))
			return &s->v[i];
	ck_abort_msg("node %s not read", node);
	return NULL;
}

static void check_dims(const struct prof_op *o, const char *op, unsigned n, uint64_t a,
		       uint64_t b, uint64_t c, uint64_t d)
{
	uint64_t want[4] = {a, b, c, d};
	ck_assert_str_eq(o->row.op, op);
	ck_assert_uint_eq(o->row.ndims, n);
	for (unsigned i = 0; i < n; i++)
		ck_assert_uint_eq(o->row.dims[i], want[i]);
}

START_TEST(reads_nodes)
{
	struct prof_set s = {0};
	char err[256], path[512];
	snprintf(path, sizeof path, "%s/m-inf-64-2.csv", dir);
	ck_assert_int_eq(prof_load_file(&s, path, err, sizeof err), 0);
	/* fc1, ln_1, matmul, truediv, where, softmax, mul, mask, addmm; not
	 * the placeholder, size, dropout, the gelu without a time, the add of
	 * Python numbers, a shape of 1e26 elements, a cut shape or the output */
	ck_assert_uint_eq(s.n, 9);
	const struct prof_op *o = find(&s, "fc1");
	/* NeuSight's B, M, N (reduction), K (output columns) */
	check_dims(o, "linear", 4, 1, 128, 32, 128);
	ck_assert_double_eq(o->mult, 3);
	/* less the profiler's cost of a module call: the eval dropout's time */
	ck_assert_double_eq(o->raw_ms, 0.5);
	ck_assert_double_eq(o->overhead_ms, 0.02);
	ck_assert_double_eq_tol(o->ms, 0.48, 1e-12);
	/* a function call's: the size() node's */
	ck_assert_double_eq_tol(find(&s, "truediv")->ms, 0.6 - 0.012, 1e-12);
	ck_assert_str_eq(o->config, "m-inf-64-2.csv");
	check_dims(find(&s, "addmm"), "linear", 4, 1, 128, 32, 96);
	ck_assert_double_eq(find(&s, "addmm")->mult, 1);
	check_dims(find(&s, "matmul"), "bmm", 4, 8, 64, 16, 64);
	/* its second input is a transpose node: Q K^T */
	ck_assert_int_eq(find(&s, "matmul")->b_transposed, 1);
	ck_assert_int_eq(find(&s, "fc1")->b_transposed, 0);
	check_dims(find(&s, "ln_1"), "ln", 2, 128, 128, 0, 0);
	check_dims(find(&s, "softmax"), "softmax", 2, 512, 2048, 0, 0);
	/* a one-element tensor is the scalar form */
	o = find(&s, "truediv");
	check_dims(o, "divu", 2, 512, 2048, 0, 0);
	ck_assert_double_eq(o->nin, 1);
	/* a broadcast mask reads its share: 1 + 64*2048 / (2*4*64*2048) */
	o = find(&s, "where");
	check_dims(o, "add", 2, 512, 2048, 0, 0);
	ck_assert_double_eq_tol(o->nin, 1.125, 1e-12);
	o = find(&s, "mul");
	check_dims(o, "mul", 2, 128, 128, 0, 0);
	ck_assert_double_eq(o->nin, 2);
	ck_assert_double_eq(o->reread_bytes, 0);
	/* a mask broadcast over heads: read again per head unless the three
	 * 64 x 2048 slices between two heads stay in L2 */
	o = find(&s, "mask");
	check_dims(o, "add", 2, 512, 2048, 0, 0);
	ck_assert_double_eq(o->reread_bytes, (2.0 * 4 * 64 * 2048 - 2.0 * 64 * 2048) * 4);
	ck_assert_double_eq(o->reuse_bytes, 3.0 * 64 * 2048 * 4);
	/* where's condition is bool: no re-read rule */
	ck_assert_double_eq(find(&s, "where")->reread_bytes, 0);
	prof_release(&s);
	/* A file that is not a profile: a clear error. */
	write_file("x-inf-1-1.csv", "OPName,Latency\nadd,0.1\n");
	snprintf(path, sizeof path, "%s/x-inf-1-1.csv", dir);
	ck_assert_int_eq(prof_load_file(&s, path, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "not a per-operator profile"));
	prof_release(&s);
	/* Text after a closing quote: the file and the line. */
	write_file("y-inf-1-1.csv", "op,target,meta,input_shapes,output_shape,fw_latency,Name\n"
				     "call_function,\"add\"x,{},[],[],0.1,add\n");
	snprintf(path, sizeof path, "%s/y-inf-1-1.csv", dir);
	ck_assert_int_eq(prof_load_file(&s, path, err, sizeof err), -1);
	char want[600];
	snprintf(want, sizeof want, "%s:2: text after a closing quote", path);
	ck_assert_str_eq(err, want);
	prof_release(&s);
}
END_TEST

START_TEST(kernels_and_classes)
{
	struct prof_set s = {0};
	char err[256], path[512];
	snprintf(path, sizeof path, "%s/m-inf-64-2.csv", dir);
	ck_assert_int_eq(prof_load_file(&s, path, err, sizeof err), 0);
	struct pred_kernel k;
	ck_assert_int_eq(prof_kernel(find(&s, "fc1"), &k), 0);
	ck_assert_int_eq(k.op, PRED_OP_GEMM);
	ck_assert_uint_eq(k.m, 128);
	ck_assert_uint_eq(k.n, 128);
	ck_assert_uint_eq(k.k, 32);
	ck_assert_int_eq(tile_amd_class_of(&k), TILE_AMD_GEMM);
	ck_assert_int_eq(prof_kernel(find(&s, "matmul"), &k), 0);
	ck_assert_int_eq(tile_amd_class_of(&k), TILE_AMD_GEMM_BT);
	ck_assert_int_eq(prof_kernel(find(&s, "softmax"), &k), 0);
	ck_assert_int_eq(tile_amd_class_of(&k), TILE_AMD_SOFTMAX_BLOCK);
	ck_assert_int_eq(prof_kernel(find(&s, "where"), &k), 0);
	ck_assert_double_eq_tol(k.bytes, (1.125 + 1) * 512 * 2048 * 4, 1e-6);
	ck_assert_int_eq(tile_amd_class_of(&k), TILE_AMD_ELEMENTWISE);
	ck_assert_int_eq(prof_kernel(find(&s, "ln_1"), &k), 0);
	ck_assert_int_eq(tile_amd_class_of(&k), TILE_AMD_NORM);
	/* vectorized_layer_norm_kernel: a 32 x 4 block per row (NeuSight's
	 * launches on every GPU) */
	ck_assert_uint_eq(k.grid[0], 128);
	ck_assert_uint_eq(k.block[0], 32);
	ck_assert_uint_eq(k.block[1], 4);
	/* up to 1024 columns PyTorch runs a warp per row */
	struct pred_kernel w;
	ck_assert_int_eq(model_forward_kernel(PRED_OP_SOFTMAX, 1, 512, 1024, 0, 1, 1, &w), 0);
	ck_assert_int_eq(tile_amd_class_of(&w), TILE_AMD_SOFTMAX_WARP);
	/* beyond, a block per row of the threads NeuSight's V100 launches
	 * show (cunn_SoftMaxForward: 256 at 1600 and 2048 columns, 512 at
	 * 4096) */
	static const uint64_t cols[] = {1600, 2048, 4096}, threads[] = {256, 256, 512};
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(model_forward_kernel(PRED_OP_SOFTMAX, 1, 8192, cols[i], 0, 1, 1, &w), 0);
		ck_assert_uint_eq(w.block[0], threads[i]);
		ck_assert_uint_eq(w.grid[0], 8192);
	}
	prof_release(&s);
}
END_TEST

/* A predictor with the compiled-in weights and AMD scale sc. */
static struct predictor *scaled(const struct tile_amd_scale *sc)
{
	struct pred_config c = { .amd_scale = sc };
	struct predictor *p;
	ck_assert_int_eq(predictor_new(&c, &p, NULL, 0), 0);
	return p;
}

/* The tile model's time (ms) of a kernel built here, predicted by p. */
static double model_ms(const struct predictor *p, enum pred_op op, uint64_t b, uint64_t r,
		       uint64_t c, uint64_t kk, double nin, double flops, const struct gpu_spec *g)
{
	struct pred_kernel k;
	struct pred_result res;
	ck_assert_int_eq(model_forward_kernel(op, b, r, c, kk, nin, flops, &k), 0);
	ck_assert_int_eq(predict_kernel(p, &k, NULL, g, PRED_AUTO, &res), 0);
	ck_assert_int_eq(res.method, PRED_MLP);
	return res.ns / 1e6;
}

/* Three GEMM nodes (two in the layer, run twice), three element-wise
 * ones, one block softmax, and an add below any threshold; each measured
 * as scale x the model's time on g plus fixed (ms), or t ms when g is
 * NULL. */
static void write_gpu(const char *gdir, const struct gpu_spec *g, double scale, double fixed)
{
	static const struct { enum pred_op op; uint64_t r, c, k; double nin, fl, t; } n[] = {
		{PRED_OP_GEMM, 1024, 1024, 512, 0, 0, 0.5},
		{PRED_OP_GEMM, 1024, 512, 1024, 0, 0, 0.6},
		{PRED_OP_GEMM, 1024, 64, 512, 0, 0, 0.3},
		{PRED_OP_ELEMENTWISE, 1024, 4096, 0, 2, 1, 0.4},
		{PRED_OP_ELEMENTWISE, 1024, 8192, 0, 1, 1, 0.45},
		{PRED_OP_ELEMENTWISE, 1024, 2048, 0, 1, 4, 0.3},
		{PRED_OP_SOFTMAX, 8192, 2048, 0, 1, 1, 1.2},
	};
	double ms[7];
	struct tile_amd_scale ones = { { 1, 1, 1, 1, 1, 1 }, 0 };
	struct predictor *p = scaled(&ones);
	for (int i = 0; i < 7; i++)
		ms[i] = g ? scale * model_ms(p, n[i].op, 1, n[i].r, n[i].c, n[i].k, n[i].nin, n[i].fl,
					     g) + fixed
			  : n[i].t;
	predictor_free(p);
	char rel[300], buf[8192];
	mkdir_rel(gdir);
	snprintf(buf, sizeof buf, "%s"
		 "call_module,m.layers.0.f," MOD("linear.Linear") ",\"[[4, 256, 512]]\",0,%.17g,\"(4, 256, 1024)\",fc1,{}\n"
		 "call_module,m.layers.0.g," MOD("linear.Linear") ",\"[[4, 256, 1024]]\",0,%.17g,\"(4, 256, 512)\",fc2,{}\n"
		 "call_function,<built-in method addmm of type object at 0x7f>," TOP ",\"[[64], [1024, 512], [512, 64]]\",0,%.17g,\"(1024, 64)\",addmm,{}\n"
		 "call_function,<built-in function mul>," LAYER ",\"[[4, 256, 4096], [4, 256, 4096]]\",0,%.17g,\"(4, 256, 4096)\",mul,{}\n"
		 "call_function,<built-in function mul>," LAYER ",\"[[4, 256, 8192], [1]]\",0,%.17g,\"(4, 256, 8192)\",mul_1,{}\n"
		 "call_function,<built-in method tanh of type object at 0x7f>," LAYER ",\"[[4, 256, 2048]]\",0,%.17g,\"(4, 256, 2048)\",tanh,{}\n"
		 "call_function,<function softmax at 0x7f>," LAYER ",\"[[4, 8, 256, 2048]]\",0,%.17g,\"(4, 8, 256, 2048)\",softmax,{}\n"
		 "call_function,<built-in function add>," LAYER ",\"[[4, 256, 64], [4, 256, 64]]\",0,0.001,\"(4, 256, 64)\",add,{}\n",
		 HDR, ms[0], ms[1], ms[2], ms[3], ms[4], ms[5], ms[6]);
	snprintf(rel, sizeof rel, "%s/m-inf-256-4.csv", gdir);
	write_file(rel, buf);
	snprintf(rel, sizeof rel, "%s/m-inf-256-4.json", gdir);
	write_file(rel, "{\"num_layer\": 2}\n");
	/* training profiles are not read */
	snprintf(rel, sizeof rel, "%s/m-train-256-4.csv", gdir);
	write_file(rel, buf);
}

/* Operators measured as 1.5 x the model's time + 12 us on both AMD GPUs:
 * the fit finds both; with the MI100 at 2 x, held out it is the MI210's
 * alone. */
START_TEST(fits_amd_scale)
{
	const struct gpu_spec *mi100 = gpu_find("mi100"), *mi210 = gpu_find("mi210");
	ck_assert_ptr_nonnull(mi100);
	ck_assert_ptr_nonnull(mi210);
	mkdir_rel("labels");
	write_gpu("labels/AMD_Instinct_MI100", mi100, 1.5, 0.012);
	write_gpu("labels/AMD_Instinct_MI210", mi210, 1.5, 0.012);
	write_gpu("labels/Tesla_T4", NULL, 50, 0);       /* NVIDIA: not in the fit */
	char labels[300], err[256];
	snprintf(labels, sizeof labels, "%s/labels", dir);
	struct tile_amd_scale sc;
	struct tile_model *tm;
	ck_assert_int_eq(tile_model_load_builtin(&tm), 0);
	ck_assert_int_eq(prof_fit_amd(tm, labels, NULL, 0.01, &sc, err, sizeof err), 2);
	ck_assert_double_eq_tol(sc.fixed_ns, 12000, 1e-6);
	ck_assert_double_eq_tol(sc.scale[TILE_AMD_GEMM], 1.5, 1e-9);
	ck_assert_double_eq_tol(sc.scale[TILE_AMD_ELEMENTWISE], 1.5, 1e-9);
	/* one softmax row is fewer than PROF_MIN_ROWS; no norm rows */
	ck_assert_double_eq(sc.scale[TILE_AMD_SOFTMAX_BLOCK], 1);
	ck_assert_double_eq(sc.scale[TILE_AMD_NORM], 1);
	/* held out: the MI210 alone */
	char rm[400];
	snprintf(rm, sizeof rm, "rm -rf '%s/labels/AMD_Instinct_MI100'", dir);
	ck_assert_int_eq(system(rm), 0);
	write_gpu("labels/AMD_Instinct_MI100", mi100, 2.0, 0.004);
	ck_assert_int_eq(prof_fit_amd(tm, labels, mi100, 0.01, &sc, err, sizeof err), 1);
	ck_assert_double_eq_tol(sc.fixed_ns, 12000, 1e-6);
	ck_assert_double_eq_tol(sc.scale[TILE_AMD_GEMM], 1.5, 1e-9);
	/* both: between the two */
	ck_assert_int_eq(prof_fit_amd(tm, labels, NULL, 0.01, &sc, err, sizeof err), 2);
	ck_assert(sc.scale[TILE_AMD_GEMM] > 1.5 && sc.scale[TILE_AMD_GEMM] < 2.0);
	/* above every row: nothing to fit, scale 1 and no fixed cost */
	ck_assert_int_eq(prof_fit_amd(tm, labels, mi100, 1e3, &sc, err, sizeof err), 0);
	for (int c = 0; c < TILE_AMD_NCLASS; c++)
		ck_assert_double_eq(sc.scale[c], 1);
	ck_assert_double_eq(sc.fixed_ns, 0);
	ck_assert_int_eq(prof_fit_amd(tm, "/nonexistent/labels", NULL, 0.2, &sc, err, sizeof err), -1);
	tile_model_free(tm);
}
END_TEST

START_TEST(scale_on_amd_targets_only)
{
	const struct gpu_spec *mi100 = gpu_find("mi100"), *mi210 = gpu_find("mi210"),
			      *a100 = gpu_find("a100");
	struct tile_amd_scale ones = { { 1, 1, 1, 1, 1, 1 }, 0 }, two = { { 2, 1, 1, 1, 1, 1 }, 0 },
			      fixed = { { 1, 1, 1, 1, 1, 1 }, 5000 };
	struct predictor *p1 = scaled(&ones), *p2 = scaled(&two), *pf = scaled(&fixed),
			 *pd = scaled(NULL);
	double t1 = model_ms(p1, PRED_OP_GEMM, 1, 4096, 4096, 4096, 0, 0, mi210);
	double a1 = model_ms(p1, PRED_OP_GEMM, 1, 4096, 4096, 4096, 0, 0, a100);
	double v1 = model_ms(p1, PRED_OP_ELEMENTWISE, 1, 4096, 4096, 0, 2, 1, mi210);
	struct pred_kernel k;
	struct pred_result r;
	ck_assert_int_eq(model_forward_kernel(PRED_OP_GEMM, 1, 4096, 4096, 4096, 0, 0, &k), 0);
	k.origin_ns = 5e6;
	ck_assert_int_eq(predict_kernel(p1, &k, mi100, mi210, PRED_MLP, &r), 0);
	double ratio1 = r.ns;
	ck_assert_double_eq_tol(model_ms(p2, PRED_OP_GEMM, 1, 4096, 4096, 4096, 0, 0, mi210), 2 * t1,
				1e-9 * t1);
	ck_assert_double_eq(model_ms(p2, PRED_OP_GEMM, 1, 4096, 4096, 4096, 0, 0, a100), a1);
	ck_assert_double_eq(model_ms(p2, PRED_OP_ELEMENTWISE, 1, 4096, 4096, 0, 2, 1, mi210), v1);
	/* AMD to AMD: the scale is on both sides of the ratio and cancels */
	ck_assert_int_eq(predict_kernel(p2, &k, mi100, mi210, PRED_MLP, &r), 0);
	ck_assert_double_eq_tol(r.ns, ratio1, 1e-9 * ratio1);
	/* the fixed cost: 5 us more on every AMD kernel, none on NVIDIA */
	ck_assert_double_eq_tol(model_ms(pf, PRED_OP_ELEMENTWISE, 1, 4096, 4096, 0, 2, 1, mi210),
				v1 + 0.005, 1e-12);
	ck_assert_double_eq(model_ms(pf, PRED_OP_GEMM, 1, 4096, 4096, 4096, 0, 0, a100), a1);
	/* none given: the compiled-in scale */
	const struct tile_amd_scale *now = predictor_amd_scale(pd);
	for (int c = 0; c < TILE_AMD_NCLASS; c++)
		ck_assert_double_eq(now->scale[c], tile_amd_scale_default.scale[c]);
	ck_assert_double_eq(now->fixed_ns, tile_amd_scale_default.fixed_ns);
	predictor_free(p1);
	predictor_free(p2);
	predictor_free(pf);
	predictor_free(pd);
}
END_TEST

static int run(const char *args)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "%s/surfer-bench profile %s >/dev/null 2>&1", build, args);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

START_TEST(cli_exit_codes)
{
	mkdir_rel("labels");
	write_gpu("labels/AMD_Instinct_MI210", NULL, 1, 0);
	char a[600];
	snprintf(a, sizeof a, "--labels '%s/labels' --rows", dir);
	ck_assert_int_eq(run(a), 0);
	snprintf(a, sizeof a, "--labels '%s/labels' --emit", dir);
	ck_assert_int_eq(run(a), 0);
	snprintf(a, sizeof a, "--labels '%s/labels' --min-ms -1", dir);
	ck_assert_int_eq(run(a), 2);
	ck_assert_int_eq(run("--labels /nonexistent/labels"), 2);
	ck_assert_int_eq(run("--gpu nosuchgpu --labels /tmp"), 2);
	ck_assert_int_eq(run(""), 2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("profile");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, reads_nodes);
	tcase_add_test(tc, kernels_and_classes);
	tcase_add_test(tc, fits_amd_scale);
	tcase_add_test(tc, scale_on_amd_targets_only);
	tcase_add_test(tc, cli_exit_codes);
	suite_add_tcase(s, tc);
	return check_run(s);
}
