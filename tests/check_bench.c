/*
 * check_bench.c - the accuracy harness on small CSVs written here: reading
 * (quoted names with commas, files and directories), the kernel record built
 * from a row, pairing by operator and shape, the statistics (worked by
 * hand), DeepBench's results layout, and surfer-bench's JSON against errors
 * computed independently.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "predictor/tile.h"
#include "predictor/vecop.h"
#include "tools/lab/bench_own.h"
#include "tools/lab/bench_vec.h"
#include "tools/lab/neusight.h"
#include "tools/lab/stats.h"
#include "trace/csv.h"
#include "tests/check_run.h"

#define DEV_O "Tesla T4"
#define DEV_T "Tesla V100-PCIE-32GB"
static const char GEMM_HDR[] = "OPName,Latency,Device,Torch Version,CUDNN Version,Kernel Name,"
	"Warps per SM,Blocks per SM,Grid x,Grid y,Grid z,Block x,Block y,Block z,CUDA Version,Kernels,B,M,N,K\n";
static const char VEC_HDR[] = "OPName,Latency,Device,Torch Version,CUDNN Version,Kernel Name,"
	"Warps per SM,Blocks per SM,Grid x,Grid y,Grid z,Block x,Block y,Block z,CUDA Version,B,H\n";

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

/* bmm on T4: shapes A, B, C and A again; on V100: B, C, D.  add on both. */
static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/surfer-check-bench-%ld", (long)getpid());
	char sub[300];
	mkdir(dir, 0700);
	snprintf(sub, sizeof sub, "%s/bmm", dir);
	mkdir(sub, 0700);
	snprintf(sub, sizeof sub, "%s/add", dir);
	mkdir(sub, 0700);
	char buf[4096];
	snprintf(buf, sizeof buf, "%s"
		 "bmm,0.1," DEV_O ",p2.1.0,8902,volta_sgemm_128x64_nn,1,1,4,1,2,256,1,1,cu121,;x,2,3,4,5\n"
		 "bmm,0.2," DEV_O ",p2.1.0,8902,volta_sgemm_128x64_nn,1,1,4,1,2,256,1,1,cu121,;x,2,30,40,50\n"
		 "bmm,0.4," DEV_O ",p2.1.0,8902,volta_sgemm_64x64_nn,1,1,4,1,2,256,1,1,cu121,;x,8,64,64,64\n"
		 "bmm,0.9," DEV_O ",p2.1.0,8902,volta_sgemm_128x64_nn,1,1,4,1,2,256,1,1,cu121,;x,2,3,4,5\n",
		 GEMM_HDR);
	write_file("bmm/" DEV_O ".csv", buf);
	snprintf(buf, sizeof buf, "%s"
		 "bmm,0.25," DEV_T ",p2.1.0,8902,volta_sgemm_64x64_nn,1,1,4,1,2,256,1,1,cu121,;x,2,30,40,50\n"
		 "bmm,0.5," DEV_T ",p2.1.0,8902,volta_sgemm_64x64_nn,1,1,4,1,2,256,1,1,cu121,;x,8,64,64,64\n"
		 "bmm,0.7," DEV_T ",p2.1.0,8902,volta_sgemm_64x64_nn,1,1,4,1,2,256,1,1,cu121,;x,1,9,9,9\n",
		 GEMM_HDR);
	write_file("bmm/" DEV_T ".csv", buf);
	snprintf(buf, sizeof buf, "%s"
		 "add,0.03," DEV_O ",p2.1.0,8902,\"void at::native::vectorized_elementwise_kernel<4, "
		 "at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::"
		 "CUDAFunctor_add<float>, at::detail::Array<char*, 3>)\",2.1,0.5,42,1,1,128,1,1,cu121,127,168\n"
		 "add,0.05," DEV_T ",p2.1.0,8902,\"void at::native::vectorized_elementwise_kernel<4, "
		 "at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::"
		 "CUDAFunctor_add<float>, at::detail::Array<char*, 3>)\",2.1,0.5,42,1,1,128,1,1,cu121,127,168\n",
		 VEC_HDR);
	write_file("add/both.csv", buf);
	write_file("README.txt", "not a csv\n");
}

static void teardown(void)
{
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(reads_and_pairs)
{
	const struct gpu_spec *o = gpu_find(DEV_O), *t = gpu_find(DEV_T);
	ck_assert_ptr_nonnull(o);
	ck_assert_ptr_nonnull(t);
	struct ns_set s;
	char err[256];
	memset(&s, 0, sizeof s);
	ck_assert_int_eq(ns_load(&s, dir, NULL, NULL, err, sizeof err), 0);
	ck_assert_uint_eq(s.n, 9);
	struct ns_pair *p;
	size_t n;
	ck_assert_int_eq(ns_pairs(&s, o, t, NULL, &p, &n), 0);
	ck_assert_uint_eq(n, 3);    /* add; bmm shapes B and C; A and D unpaired */
	double sum_o = 0, sum_t = 0;
	for (size_t i = 0; i < n; i++) {
		ck_assert_str_eq(p[i].origin->op, p[i].target->op);
		ck_assert(p[i].origin->gpu == o && p[i].target->gpu == t);
		for (unsigned d = 0; d < p[i].origin->ndims; d++)
			ck_assert(p[i].origin->dims[d] == p[i].target->dims[d]);
		sum_o += p[i].origin->latency_ms;
		sum_t += p[i].target->latency_ms;
	}
	ck_assert_double_eq_tol(sum_o, 0.03 + 0.2 + 0.4, 1e-12);
	ck_assert_double_eq_tol(sum_t, 0.05 + 0.25 + 0.5, 1e-12);
	free(p);
	ck_assert_int_eq(ns_pairs(&s, o, t, "bmm", &p, &n), 0);
	ck_assert_uint_eq(n, 2);
	free(p);
	/* From scratch: every distinct target shape, no origin. */
	ck_assert_int_eq(ns_pairs(&s, NULL, t, NULL, &p, &n), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_ptr_null(p[0].origin);
	free(p);
	/* The other way round: the same two shapes pair. */
	ck_assert_int_eq(ns_pairs(&s, t, o, "bmm", &p, &n), 0);
	ck_assert_uint_eq(n, 2);
	free(p);
	ns_release(&s);

	/* A single file, rows of other GPUs left out at load. */
	memset(&s, 0, sizeof s);
	char f[400];
	snprintf(f, sizeof f, "%s/add/both.csv", dir);
	ck_assert_int_eq(ns_load(&s, f, t, NULL, err, sizeof err), 0);
	ck_assert_uint_eq(s.n, 1);
	ck_assert(strstr(s.rows[0].kname, "Array<char*, 3> >(int,") != NULL);
	ck_assert_uint_eq(s.rows[0].dims[0], 127);
	ck_assert_uint_eq(s.rows[0].dims[1], 168);
	ns_release(&s);
	memset(&s, 0, sizeof s);
	ck_assert_int_eq(ns_load(&s, "/nonexistent/x.csv", NULL, NULL, err, sizeof err), -1);
	ck_assert(strstr(err, "nonexistent") != NULL);
	ns_release(&s);
}
END_TEST

/* DeepBench's layout: a results file with sections (only the FP32 GEMM
 * rows are kept), its GPU named by the specs file beside it, CRLF line
 * ends; an FP16 results file and a CPU's are passed over. */
START_TEST(reads_deepbench)
{
	char db[300], path[400];
	snprintf(db, sizeof db, "%s/db", dir);
	ck_assert_int_eq(mkdir(db, 0700), 0);
	write_file("db/DeepBench_NV_X__Specs.csv",
		   "CPU Model,Intel(R) Xeon(R)\r\nGPU Model,NVIDIA GTX TitanXp\r\nCUDA Version,8.0.88\r\n");
	write_file("db/DeepBench_NV_X__Results_FP32.csv",
		   "Precision,Float\r\n"
		   "Dense Matrix Multiplication,,M,N,K,A Transpose,B Transpose,,Time (msec),TERAFLOPS\r\n"
		   ",DeepSpeech,1760,16,1760,N,N,,3.7999999999999999E-2,2.6\r\n"
		   ",,2048,7000,512,T,N,,1.25,11.7\r\n"
		   ",,64,0,64,N,N,,0.01,0\r\n"
		   "Convolution,,W,H,C,N,K,S,R,pad_w,pad_h,wstride,hstride,,Time (msec)\r\n"
		   ",,700,161,1,4,32,20,5,0,0,2,2,,0.5\r\n"
		   "All-Reduce,,Size # floats,# chips,,,Mean All Reduce Time (msec)\r\n"
		   ",,100000,8,,,0.2\r\n");
	write_file("db/DeepBench_NV_X__Results_-_FP16_ip_Mixed_math.csv",
		   "Precision,\"16 bit inputs, 16 bit multiplication, 32 bit addition\"\r\n"
		   "Dense Matrix Multiplication,,M,N,K,A Transpose,B Transpose,,Time (msec),TERAFLOPS\r\n"
		   ",,1760,16,1760,N,N,,0.02,5\r\n");
	write_file("db/DeepBench_IA_KNL__Specs.csv", "CPU Model,Xeon Phi 7250\r\n");
	write_file("db/DeepBench_IA_KNL__Results_-_FP32.csv",
		   "Precision,Float\r\n"
		   "Dense Matrix Multiplication,,M,N,K,A Transpose,B Transpose,,Time (msec),TERAFLOPS\r\n"
		   ",,1760,16,1760,N,N,,0.4,0.2\r\n");
	struct ns_set s;
	char err[256];
	memset(&s, 0, sizeof s);
	ck_assert_int_eq(ns_load(&s, db, NULL, NULL, err, sizeof err), 0);
	ck_assert_uint_eq(s.n, 3);   /* the KNL's row (an unknown device), two GEMMs */
	const struct gpu_spec *xp = gpu_find("titan-xp");
	ck_assert_ptr_nonnull(xp);
	size_t seen = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct ns_row *r = &s.rows[i];
		ck_assert_str_eq(r->op, "matmul");
		if (!r->gpu) {
			ck_assert_str_eq(r->device, "DeepBench_IA_KNL");
			continue;
		}
		ck_assert(r->gpu == xp);
		ck_assert_uint_eq(r->ndims, 4);
		ck_assert_uint_eq(r->dims[0], 1);
		struct pred_kernel k;
		ck_assert_int_eq(ns_kernel(r, 1, &k), 0);
		ck_assert_int_eq(k.op, PRED_OP_GEMM);
		ck_assert_ptr_null(k.name);
		if (r->dims[1] == 1760) {
			/* C (1760 x 16) = A (1760 x 1760) B (1760 x 16) */
			ck_assert_uint_eq(k.m, 1760);
			ck_assert_uint_eq(k.k, 1760);
			ck_assert_uint_eq(k.n, 16);
			ck_assert_double_eq_tol(r->latency_ms, 0.038, 1e-12);
			ck_assert_double_eq_tol(k.flops, 2.0 * 1760 * 16 * 1760, 1);
			seen |= 1;
		} else {
			ck_assert_uint_eq(k.m, 2048);
			ck_assert_uint_eq(k.k, 512);
			ck_assert_uint_eq(k.n, 7000);
			ck_assert_double_eq_tol(k.origin_ns, 1.25e6, 1e-3);
			seen |= 2;
		}
	}
	ck_assert_uint_eq(seen, 3);
	ns_release(&s);
	/* Another GPU kept: nothing of the Titan Xp. */
	memset(&s, 0, sizeof s);
	snprintf(path, sizeof path, "%s/DeepBench_NV_X__Results_FP32.csv", db);
	ck_assert_int_eq(ns_load(&s, path, gpu_find("t4"), NULL, err, sizeof err), 0);
	ck_assert_uint_eq(s.n, 0);
	ns_release(&s);
	/* A results file whose name has no prefix: one clear error. */
	write_file("db/results.csv", "Precision,Float\n");
	memset(&s, 0, sizeof s);
	snprintf(path, sizeof path, "%s/results.csv", db);
	ck_assert_int_eq(ns_load(&s, path, NULL, NULL, err, sizeof err), -1);
	ck_assert(strstr(err, "<prefix>__") != NULL);
	ns_release(&s);
}
END_TEST

/* DeepBench's training convolutions: a results file's "Convolution"
 * section, its columns found by name (the V100's file orders the filter
 * width S before the height R, the P100's R first, with the vertical
 * stride first too), three passes per line, a pass given as N/A left out;
 * nothing of the GEMMs.  Each row's kernel is the implicit GEMM of its
 * pass, by hand: 700 x 161 input (W x H), 1 channel, batch 4, 32 filters
 * of 5 (R, height) x 20 (S, width), stride 2: P = (161 - 5) / 2 + 1 = 79,
 * Q = (700 - 20) / 2 + 1 = 341; forward m = N P Q = 107,756, n = K = 32,
 * k = C R S = 100; the filters' gradient m = 32, n = 100, k = 107,756. */
START_TEST(reads_deepbench_conv)
{
	char db[300];
	snprintf(db, sizeof db, "%s/dbc", dir);
	ck_assert_int_eq(mkdir(db, 0700), 0);
	write_file("dbc/DeepBench_NV_V__Specs.csv", "GPU Model,NVIDIA V100\r\n");
	write_file("dbc/DeepBench_NV_V__Results_FP32.csv",
		   "Precision,Float\r\n"
		   "Dense Matrix Multiplication,,M,N,K,A Transpose,B Transpose,,Time (msec),TERAFLOPS\r\n"
		   ",,1760,16,1760,N,N,,0.038,2.6\r\n"
		   "Convolution\r\n"
		   ",,W,H,C,N,K ,S (Filter width),R (Filter height),pad_w,pad_h,Horizontal stride,"
		   "Vertical stride,Forward (msec),wrt Inputs (msec),wrt Parameters (msec),,P,Q\r\n"
		   ",DeepSpeech,700,161,1,4,32,20,5,0,0,2,2,7.8E-2,N/A*,0.127,,341,79\r\n");
	write_file("dbc/DeepBench_NV_V__Results_-_FP16_ip_Mixed_math.csv",
		   "Precision,\"16 bit inputs, 16 bit multiplication, 32 bit addition\"\r\n"
		   "Convolution\r\n"
		   ",,W,H,C,N,K ,S (Filter width),R (Filter height),pad_w,pad_h,Horizontal stride,"
		   "Vertical stride,Forward (msec),wrt Inputs (msec),wrt Parameters (msec),,P,Q\r\n"
		   ",,700,161,1,4,32,20,5,0,0,2,2,0.591,N/A*,1.028,,341,79\r\n");
	write_file("dbc/DeepBench_NV_P__Specs.csv", "GPU Model,NVIDIA Tesla P100\r\n");
	write_file("dbc/DeepBench_NV_P__Results_FP32.csv",
		   "Precision,Float\r\n"
		   "Convolution\r\n"
		   ",,W,H,C,N,K ,R,S,pad_h,pad_w,Vertical stride,Horizontal stride,Forward (msec),"
		   "wrt Inputs (msec),wrt Parameters (msec),,P,Q\r\n"
		   ",,700,161,1,4,32,5,20,0,0,2,2,0.142,0.482,0.301,,78.5,340.5\r\n"
		   "All-Reduce,,Size # floats,# chips,,,Mean All Reduce Time (msec)\r\n"
		   ",,100000,8,,,0.2\r\n");
	struct ns_set s;
	char err[256];
	memset(&s, 0, sizeof s);
	ck_assert_int_eq(ns_load_deepbench_conv(&s, db, err, sizeof err), 0);
	ck_assert_uint_eq(s.n, 7);  /* the V100's input gradients are N/A */
	const struct gpu_spec *v = gpu_find("NVIDIA V100"), *p = gpu_find("NVIDIA Tesla P100");
	ck_assert_ptr_nonnull(v);
	ck_assert_ptr_nonnull(p);
	int seen = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct ns_row *r = &s.rows[i];
		struct pred_kernel k;
		ck_assert_uint_eq(r->ndims, 11);
		ck_assert_uint_eq(r->dims[0], 4);    /* N */
		ck_assert_uint_eq(r->dims[2], 161);  /* H */
		ck_assert_uint_eq(r->dims[3], 700);  /* W */
		ck_assert_uint_eq(r->dims[5], 5);    /* R */
		ck_assert_uint_eq(r->dims[6], 20);   /* S */
		ck_assert_int_eq(ns_op_class(r->op), PRED_OP_CONV);
		ck_assert_int_eq(ns_kernel(r, 1, &k), 0);
		ck_assert_int_eq(k.op, PRED_OP_CONV);
		if (r->dtype == GPU_DT_FP16) {
			/* the tensor-core file's rows: FP16 data */
			ck_assert(r->gpu == v);
			ck_assert_int_eq(k.dtype, GPU_DT_FP16);
			ck_assert(!strcmp(r->op, "conv2d_fwd") ? r->latency_ms == 0.591
							       : r->latency_ms == 1.028);
			seen |= 32;
			continue;
		}
		ck_assert_int_eq(k.dtype, GPU_DT_FP32);
		ck_assert_double_eq_tol(k.flops, 2.0 * 107756 * 32 * 100, 1);
		if (!strcmp(r->op, "conv2d_fwd")) {
			ck_assert_uint_eq(k.m, 107756);
			ck_assert_uint_eq(k.n, 32);
			ck_assert_uint_eq(k.k, 100);
			ck_assert_uint_eq(k.conv.pass, PRED_CONV_FWD);
			ck_assert_uint_eq(k.conv.p, 79);
			ck_assert_uint_eq(k.conv.q, 341);
			ck_assert_double_eq_tol(k.origin_ns, r->gpu == v ? 78e3 : 142e3, 1e-6);
			seen |= r->gpu == v ? 1 : 2;
		} else if (!strcmp(r->op, "conv2d_wgrad")) {
			ck_assert_uint_eq(k.m, 32);
			ck_assert_uint_eq(k.n, 100);
			ck_assert_uint_eq(k.k, 107756);
			ck_assert_uint_eq(k.conv.pass, PRED_CONV_WGRAD);
			seen |= r->gpu == v ? 4 : 8;
		} else {
			ck_assert_str_eq(r->op, "conv2d_dgrad");
			ck_assert(r->gpu == p);
			ck_assert_uint_eq(k.m, 4 * 161 * 700);   /* N H W by C over K R S */
			ck_assert_uint_eq(k.n, 1);
			ck_assert_uint_eq(k.k, 32 * 100);
			ck_assert_uint_eq(k.conv.pass, PRED_CONV_DGRAD);
			ck_assert_double_eq_tol(r->latency_ms, 0.482, 1e-12);
			seen |= 16;
		}
	}
	ck_assert_int_eq(seen, 63);
	ns_release(&s);
	/* the other loaders do not read them */
	memset(&s, 0, sizeof s);
	ck_assert_int_eq(ns_load(&s, db, NULL, NULL, err, sizeof err), 0);
	ck_assert_uint_eq(s.n, 1);
	ck_assert_str_eq(s.rows[0].op, "matmul");
	ns_release(&s);
}
END_TEST

/* The other layouts of ns_load_format(): PipeWeave's FP8 GEMMs, DeepBench's
 * FP16 (tensor-core) results, Vidur's projections, each in NeuSight's
 * convention (B, M, N the reduction, K the output's columns). */
START_TEST(reads_other_formats)
{
	char sub[400], path[500];
	struct ns_set s;
	char err[512];
	enum ns_format f;
	ck_assert_int_eq(ns_format_parse("PipeWeave", &f), 0);
	ck_assert_int_eq(f, NS_FMT_PIPEWEAVE);
	ck_assert_int_eq(ns_format_parse("vidur", &f), 0);
	ck_assert_int_eq(f, NS_FMT_VIDUR);
	ck_assert_int_eq(ns_format_parse("csv", &f), -1);

	/* PipeWeave: C (M x N) = A (M x K) B (K x N), avg_duration in us; a
	 * row with N 0 and one with no time are passed over. */
	write_file("pw.csv", "M,N,K,avg_duration,hardware,tc_bf16\n"
		   "16,4096,1024,13.5,NVIDIA H20,1024\n"
		   "16,4096,1024,6.75,NVIDIA H800,4096\n"
		   "16,0,1024,5,NVIDIA H800,4096\n"
		   "32,64,64,,NVIDIA H800,4096\n");
	memset(&s, 0, sizeof s);
	snprintf(path, sizeof path, "%s/pw.csv", dir);
	ck_assert_int_eq(ns_load_format(&s, path, NS_FMT_PIPEWEAVE, NULL, NULL, err, sizeof err), 0);
	ck_assert_uint_eq(s.n, 2);
	ck_assert(s.rows[0].gpu == gpu_find("h20") && s.rows[1].gpu == gpu_find("h800"));
	ck_assert_str_eq(s.rows[0].op, "matmul_fp8");
	ck_assert_int_eq(s.rows[0].dtype, GPU_DT_FP8);
	ck_assert_double_eq_tol(s.rows[0].latency_ms, 0.0135, 1e-12);
	struct pred_kernel k;
	ck_assert_int_eq(ns_kernel(&s.rows[0], 1, &k), 0);
	ck_assert_int_eq(k.op, PRED_OP_GEMM);
	ck_assert_int_eq(k.dtype, GPU_DT_FP8);
	ck_assert_uint_eq(k.m, 16);
	ck_assert_uint_eq(k.k, 1024);
	ck_assert_uint_eq(k.n, 4096);
	ck_assert_double_eq_tol(k.flops, 2.0 * 16 * 4096 * 1024, 1e-3);
	/* FP8 in (16 x 1024 + 1024 x 4096 bytes), BF16 out (16 x 4096 x 2) */
	ck_assert_double_eq_tol(k.bytes, 16384 + 4194304 + 131072, 1e-3);
	struct ns_pair *p;
	size_t n;
	ck_assert_int_eq(ns_pairs(&s, gpu_find("h20"), gpu_find("h800"), NULL, &p, &n), 0);
	ck_assert_uint_eq(n, 1);
	free(p);
	ns_release(&s);
	/* A NeuSight file is no PipeWeave table: one line naming the file. */
	memset(&s, 0, sizeof s);
	snprintf(path, sizeof path, "%s/bmm/" DEV_O ".csv", dir);
	ck_assert_int_eq(ns_load_format(&s, path, NS_FMT_PIPEWEAVE, NULL, NULL, err, sizeof err), -1);
	ck_assert(strstr(err, "not a PipeWeave GEMM CSV") != NULL);
	ns_release(&s);

	/* DeepBench: FP16 tensor-core math read with its format (and FP32),
	 * the P100's FP32 math on FP16 data not; NeuSight's format reads none. */
	snprintf(sub, sizeof sub, "%s/db16", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	write_file("db16/DeepBench_NV_V__Specs.csv", "GPU Model,NVIDIA V100\r\n");
	write_file("db16/DeepBench_NV_V__Results_-_FP16_ip_Mixed_math.csv",
		   "Precision,\"16 bit inputs, 16 bit multiplication, 32 bit addition\"\r\n"
		   "Dense Matrix Multiplication,,M,N,K,A Transpose,B Transpose,,Time (msec),TERAFLOPS\r\n"
		   ",,1760,16,1760,N,N,,0.02,5\r\n");
	write_file("db16/DeepBench_NV_V__Results_FP32.csv",
		   "Precision,Float\r\n"
		   "Dense Matrix Multiplication,,M,N,K,A Transpose,B Transpose,,Time (msec),TERAFLOPS\r\n"
		   ",,1760,16,1760,N,N,,0.04,2.5\r\n");
	write_file("db16/DeepBench_NV_V__Results_-_Psuedo_FP16.csv",
		   "Precision,\"16 bit inputs, 32 bit multiplication, 32 bit addition\"\r\n"
		   "Dense Matrix Multiplication,,M,N,K,A Transpose,B Transpose,,Time (msec),TERAFLOPS\r\n"
		   ",,1760,16,1760,N,N,,0.03,3\r\n");
	memset(&s, 0, sizeof s);
	ck_assert_int_eq(ns_load_format(&s, sub, NS_FMT_DEEPBENCH, NULL, NULL, err, sizeof err), 0);
	ck_assert_uint_eq(s.n, 2);
	int fp16 = strcmp(s.rows[0].op, "matmul_fp16") == 0 ? 0 : 1;
	ck_assert_str_eq(s.rows[fp16].op, "matmul_fp16");
	ck_assert_str_eq(s.rows[!fp16].op, "matmul");
	ck_assert_int_eq(s.rows[fp16].dtype, GPU_DT_FP16);
	ck_assert_int_eq(s.rows[!fp16].dtype, GPU_DT_FP32);
	ck_assert(s.rows[fp16].gpu == gpu_find("v100-sxm2-16"));
	ck_assert_int_eq(ns_kernel(&s.rows[fp16], 1, &k), 0);
	/* 2-byte A (1760 x 1760), B (1760 x 16), C (1760 x 16) */
	ck_assert_double_eq_tol(k.bytes, 2.0 * (1760 * 1760 + 1760 * 16 + 1760 * 16), 1e-3);
	ns_release(&s);
	memset(&s, 0, sizeof s);
	ck_assert_int_eq(ns_load_format(&s, sub, NS_FMT_NEUSIGHT, NULL, NULL, err, sizeof err), 0);
	ck_assert_uint_eq(s.n, 0);
	ns_release(&s);

	/* Vidur: one mlp.csv row of a gated model, n_head 4, n_kv_head 2,
	 * n_embd 64 (head_dim 16), n_expanded_embd 128, 8 tokens, tp 2. */
	static const char *const mk[] = {"vd", "vd/compute", "vd/compute/a100", "vd/compute/a100/o",
					 "vd/compute/a100/o/m"};
	for (size_t i = 0; i < sizeof mk / sizeof mk[0]; i++) {
		snprintf(sub, sizeof sub, "%s/%s", dir, mk[i]);
		ck_assert_int_eq(mkdir(sub, 0700), 0);
	}
	write_file("vd/compute/a100/o/m/mlp.csv",
		   "time_stats.attn_pre_proj.median,time_stats.attn_post_proj.median,"
		   "time_stats.mlp_up_proj.median,time_stats.mlp_down_proj.median,n_head,n_kv_head,"
		   "n_embd,n_expanded_embd,use_gated_mlp,num_tokens,num_tensor_parallel_workers\n"
		   "0.01,0.02,0.03,0.04,4,2,64,128,True,8,2\n");
	snprintf(sub, sizeof sub, "%s/vd", dir);
	static const struct { const char *op; uint64_t in, out; double ms; } want[4] = {
		{"attn_pre_proj", 64, 64, 0.01},    /* (4 + 2 x 2) x 16 / 2 */
		{"attn_post_proj", 32, 64, 0.02},   /* 4 x 16 / 2 -> 64     */
		{"mlp_up_proj", 64, 128, 0.03},     /* 128 x 2 / 2          */
		{"mlp_down_proj", 64, 64, 0.04},    /* 128 / 2 -> 64        */
	};
	for (int keep = 0; keep < 2; keep++) {
		const struct gpu_spec *board = keep ? gpu_find("a100-sxm4-40") : gpu_find("a100-sxm4-80");
		memset(&s, 0, sizeof s);
		ck_assert_int_eq(ns_load_format(&s, sub, NS_FMT_VIDUR, keep ? board : NULL, NULL, err,
						sizeof err), 0);
		ck_assert_uint_eq(s.n, 4);
		for (int i = 0; i < 4; i++) {
			const struct ns_row *r = &s.rows[i];
			ck_assert_str_eq(r->op, want[i].op);
			ck_assert(r->gpu == board);
			ck_assert_int_eq(r->dtype, GPU_DT_FP16);
			ck_assert_uint_eq(r->dims[1], 8);
			ck_assert_uint_eq(r->dims[2], want[i].in);
			ck_assert_uint_eq(r->dims[3], want[i].out);
			ck_assert_double_eq_tol(r->latency_ms, want[i].ms, 1e-12);
			ck_assert_int_eq(ns_kernel(r, 1, &k), 0);
			ck_assert_int_eq(k.op, PRED_OP_GEMM);
		}
		ns_release(&s);
	}
	/* A folder with no GPU folder Vidur's layout has: one line. */
	memset(&s, 0, sizeof s);
	snprintf(sub, sizeof sub, "%s/db16", dir);
	ck_assert_int_eq(ns_load_format(&s, sub, NS_FMT_VIDUR, NULL, NULL, err, sizeof err), -1);
	ck_assert(strstr(err, "mlp.csv") != NULL);
	ns_release(&s);
}
END_TEST

START_TEST(kernel_records)
{
	struct ns_row r;
	memset(&r, 0, sizeof r);
	r.op = "bmm";
	r.kname = "volta_sgemm_128x64_nn";
	r.latency_ms = 0.5;
	r.grid[0] = 4; r.grid[1] = 1; r.grid[2] = 2;
	r.block[0] = 256;
	r.ndims = 4;
	r.dims[0] = 2; r.dims[1] = 3; r.dims[2] = 4; r.dims[3] = 5;   /* B M N K */
	struct pred_kernel k;
	ck_assert_int_eq(ns_kernel(&r, 1, &k), 0);
	ck_assert_int_eq(k.op, PRED_OP_GEMM);
	ck_assert_uint_eq(k.batch, 2);
	ck_assert_uint_eq(k.m, 3);
	ck_assert_uint_eq(k.k, 4);         /* NeuSight's N is the reduction */
	ck_assert_uint_eq(k.n, 5);
	ck_assert_double_eq_tol(k.flops, 2.0 * 2 * 3 * 4 * 5, 1e-9);
	/* A 2x3x4, W 2x4x5, out 2x3x5: (24 + 40 + 30) floats */
	ck_assert_double_eq_tol(k.bytes, 4.0 * 94, 1e-9);
	ck_assert_double_eq_tol(k.origin_ns, 5e5, 1e-3);
	ck_assert_str_eq(k.name, "volta_sgemm_128x64_nn");
	ck_assert_uint_eq(k.grid[2], 2);
	/* From scratch: no name, no grid, no time. */
	ck_assert_int_eq(ns_kernel(&r, 0, &k), 0);
	ck_assert_ptr_null(k.name);
	ck_assert_uint_eq(k.grid[0], 0);
	ck_assert(k.origin_ns <= 0);
	r.ndims = 2;
	ck_assert_int_eq(ns_kernel(&r, 1, &k), -1);
	r.op = "add";
	r.kname = "void at::native::vectorized_elementwise_kernel<4, F, at::detail::Array<char*, 3> >()";
	r.dims[0] = 10; r.dims[1] = 20;
	ck_assert_int_eq(ns_kernel(&r, 1, &k), 0);
	ck_assert_int_eq(k.op, PRED_OP_ELEMENTWISE);
	ck_assert_double_eq_tol(k.bytes, 3 * 4 * 200.0, 1e-9);   /* 2 inputs + output */
}
END_TEST

/* surfer-bench own's kernels of kernels.py's rows, FLOPs and bytes worked
 * by hand. */
START_TEST(own_kernels_by_hand)
{
	struct pred_kernel k[4];
	double g[3] = {2, 3, 4};                 /* m 2, n 3, k 4 */
	ck_assert_int_eq(bench_own_kernels("gemm", "bf16", g, 3, k, 4), 1);
	ck_assert_int_eq(k[0].op, PRED_OP_GEMM);
	ck_assert_int_eq(k[0].dtype, GPU_DT_BF16);
	ck_assert_double_eq_tol(k[0].flops, 48, 1e-9);     /* 2 x 2 x 3 x 4 */
	/* A 2 x 4 and B 4 x 3 at 2 bytes, C 2 x 3 at 2: (8 + 12) x 2 + 12 */
	ck_assert_double_eq_tol(k[0].bytes, 52, 1e-9);
	ck_assert_int_eq(bench_own_kernels("gemm", "fp8", g, 3, k, 4), 1);
	ck_assert_double_eq_tol(k[0].bytes, 20 + 12, 1e-9); /* 1-byte inputs, BF16 out */
	ck_assert_int_eq(bench_own_kernels("gemm", "fp32", g, 3, k, 4), 1);
	ck_assert_int_eq(k[0].dtype, GPU_DT_FP32);
	ck_assert_double_eq_tol(k[0].bytes, 80 + 24, 1e-9);
	ck_assert_int_eq(bench_own_kernels("gemm", "int4", g, 3, k, 4), -1);

	double v[2] = {2, 3};                    /* rows 2, hidden 3 */
	ck_assert_int_eq(bench_own_kernels("vec", "add", v, 2, k, 4), 1);
	ck_assert_int_eq(k[0].op, PRED_OP_ELEMENTWISE);
	ck_assert_double_eq_tol(k[0].bytes, 6 * 6, 1e-9);  /* 2 in + 1 out, 2 bytes */
	ck_assert_int_eq(bench_own_kernels("vec", "rms_norm", v, 2, k, 4), 1);
	ck_assert_int_eq(k[0].op, PRED_OP_NORM);
	ck_assert_double_eq_tol(k[0].bytes, 4 * 6, 1e-9);
	ck_assert_int_eq(bench_own_kernels("vec", "frobnicate", v, 2, k, 4), -1);

	/* causal fwd+bwd, batch 1, 2 heads, 4 tokens, head dim 8: 4 x 5 / 2
	 * = 10 pairs a head */
	double sd[5] = {1, 2, 4, 8, 1};
	ck_assert_int_eq(bench_own_kernels("sdpa", "", sd, 5, k, 4), 4);
	ck_assert_int_eq(k[0].op, PRED_OP_ATTENTION);
	ck_assert_int_eq(k[0].attn.impl, PRED_ATTN_FA2);
	ck_assert_int_eq(k[0].attn.causal, 1);
	ck_assert_double_eq_tol(k[0].flops, 2.0 * 16 * 2 * 10, 1e-9);     /* 640 */
	ck_assert_int_eq(k[1].op, PRED_OP_REDUCTION);
	/* dot_do_o: dO and O read (2 x 4 x 2 x 8 x 2 bytes), FP32 dQ zeroed
	 * (4 x 64), an FP32 row per query and head (4 x 8): 256 + 256 + 32 */
	ck_assert_double_eq_tol(k[1].bytes, 544, 1e-9);
	ck_assert_int_eq(k[2].attn.backward, 1);
	ck_assert_double_eq_tol(k[2].flops, 2.0 * (24 + 16) * 2 * 10, 1e-9); /* 1600 */
	ck_assert_double_eq_tol(k[3].bytes, 6.0 * 64, 1e-9);  /* FP32 read, BF16 written */
	sd[4] = 0;
	ck_assert_int_eq(bench_own_kernels("sdpa", "", sd, 5, k, 4), 1);
	ck_assert_int_eq(bench_own_kernels("sdpa", "", sd, 5, k, 0), -1);

	/* decode: batch 3, 4 heads over 2 KV heads, head dim 8, 16 keys */
	double dc[5] = {3, 4, 2, 8, 16};
	ck_assert_int_eq(bench_own_kernels("decode", "", dc, 5, k, 4), 1);
	ck_assert_int_eq(k[0].attn.form, PRED_ATTN_DECODE);
	ck_assert_int_eq(k[0].attn.kv_heads, 2);
	ck_assert_int_eq(k[0].attn.causal, 0);
	ck_assert_double_eq_tol(k[0].flops, 2.0 * 16 * 4 * 48, 1e-9);   /* 48 pairs a head */
	/* Q and O 3 x 4 x 16 and K, V 48 x 2 x 16 at 2 bytes */
	ck_assert_double_eq_tol(k[0].bytes, 2.0 * (192 + 1536), 1e-9);
	dc[2] = 3;                               /* 4 heads over 3 KV heads */
	ck_assert_int_eq(bench_own_kernels("decode", "", dc, 5, k, 4), -1);
	ck_assert_int_eq(bench_own_kernels("conv", "", dc, 5, k, 4), -1);
}
END_TEST

/* lab_re_mean(), worked by hand. */
START_TEST(random_effects_by_hand)
{
	double se;
	/* 10 of 10 and 5 of 10: p = 0.75, v = 0.75 * 0.25 / 10 = 0.01875,
	 * w = 53.333 each, W = 106.667; Q = 2 * 53.333 * 0.25^2 = 6.6667,
	 * den = W - 2 * 53.333^2 / W = 53.333, tau2 = (6.6667 - 1) / 53.333
	 * = 0.10625; weights 1 / (0.01875 + 0.10625) = 8 each: mean 0.75,
	 * se 1 / sqrt(16) = 0.25 */
	size_t h1[] = {10, 5}, n1[] = {10, 10};
	ck_assert_double_eq_tol(lab_re_mean(h1, n1, 2, &se), 0.75, 1e-12);
	ck_assert_double_eq_tol(se, 0.25, 1e-12);
	/* 36 of 40 and 5 of 10: p = 41 / 50 = 0.82, p (1 - p) = 0.1476, v =
	 * 0.00369 and 0.01476, w = 271.00 and 67.751, W = 338.75; Q = 271.00
	 * * 0.08^2 + 67.751 * 0.32^2 = 1.7344 + 6.9377 = 8.6721, den = W -
	 * (73441 + 4590.2) / W = 108.40, tau2 = 7.6721 / 108.40 = 0.070775;
	 * weights 1 / 0.074465 = 13.429 and 1 / 0.085535 = 11.691: mean
	 * (13.429 * 0.9 + 11.691 * 0.5) / 25.120 = 0.71385 (pooled 0.82, each
	 * group alike 0.7) */
	size_t h2[] = {36, 5}, n2[] = {40, 10};
	ck_assert_double_eq_tol(lab_re_mean(h2, n2, 2, NULL), 0.71385, 1e-4);
	/* no heterogeneity (Q = 0 < k - 1): the pooled share, 24 / 30 */
	size_t h3[] = {8, 16}, n3[] = {10, 20};
	ck_assert_double_eq_tol(lab_re_mean(h3, n3, 2, NULL), 0.8, 1e-12);
	ck_assert(isnan(lab_re_mean(h3, n3, 0, NULL)));
}
END_TEST

START_TEST(statistics_by_hand)
{
	double a[] = {10, 2, 4, 1, 3};
	struct ns_stats s;
	ns_stats_compute(a, 5, &s);
	ck_assert_uint_eq(s.n, 5);
	ck_assert_double_eq_tol(s.mape, 4.0, 1e-12);
	ck_assert_double_eq_tol(s.median, 3.0, 1e-12);
	/* rank 0.9 * 4 = 3.6 between 4 and 10: 4 + 0.6 * 6 */
	ck_assert_double_eq_tol(s.p90, 7.6, 1e-12);
	double b[] = {4, 1, 3, 2};
	ns_stats_compute(b, 4, &s);
	ck_assert_double_eq_tol(s.median, 2.5, 1e-12);
	ck_assert_double_eq_tol(s.p90, 3.7, 1e-12);    /* rank 2.7 */
	ns_stats_compute(b, 0, &s);
	ck_assert_uint_eq(s.n, 0);
}
END_TEST

/* The JSON surfer-bench printed for cmd, which must exit 0. */
static json_t *bench_json(const char *cmd)
{
	FILE *pp = popen(cmd, "r");
	ck_assert_ptr_nonnull(pp);
	json_error_t je;
	json_t *root = json_loadf(pp, 0, &je);
	ck_assert_int_eq(pclose(pp), 0);
	ck_assert_msg(root != NULL, "bad JSON: %s", je.text);
	return root;
}

/* surfer-bench with the bandwidth-ratio baseline: its errors follow from
 * the two GPUs' bandwidths alone, computed here. */
START_TEST(bench_json_bandwidth_ratio)
{
	const struct gpu_spec *o = gpu_find(DEV_O), *t = gpu_find(DEV_T);
	ck_assert_ptr_nonnull(o);
	ck_assert_ptr_nonnull(t);
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "%s/surfer-bench accuracy --dataset '%s' --origin '" DEV_O
		 "' --target '" DEV_T "' --method bw-ratio --json", build, dir);
	json_t *root = bench_json(cmd);
	double r = o->mem_bw_gbps / t->mem_bw_gbps;
	/* (origin ms, target ms) of each pair, per operator */
	double bmm_ape[2] = {100 * fabs(0.2 * r - 0.25) / 0.25, 100 * fabs(0.4 * r - 0.5) / 0.5};
	double add_ape = 100 * fabs(0.03 * r - 0.05) / 0.05;
	json_t *pairs = json_object_get(root, "pairs");
	ck_assert_uint_eq(json_array_size(pairs), 2);
	size_t i;
	json_t *e;
	json_array_foreach(pairs, i, e) {
		const char *op = json_string_value(json_object_get(e, "op"));
		double mape = json_real_value(json_object_get(e, "mape"));
		if (!strcmp(op, "bmm")) {
			ck_assert_int_eq(json_integer_value(json_object_get(e, "n")), 2);
			ck_assert_double_eq_tol(mape, (bmm_ape[0] + bmm_ape[1]) / 2, 1e-3);
			ck_assert_double_eq_tol(json_real_value(json_object_get(e, "median_ape")),
						(bmm_ape[0] + bmm_ape[1]) / 2, 1e-3);
		} else {
			ck_assert_str_eq(op, "add");
			ck_assert_double_eq_tol(mape, add_ape, 1e-3);
		}
	}
	json_t *ov = json_object_get(root, "overall");
	ck_assert_int_eq(json_integer_value(json_object_get(ov, "n")), 3);
	ck_assert_double_eq_tol(json_real_value(json_object_get(ov, "mape")),
				(bmm_ape[0] + bmm_ape[1] + add_ape) / 3, 1e-3);
	json_decref(root);
	/* Bad input: exit 2. */
	snprintf(cmd, sizeof cmd, "%s/surfer-bench accuracy --dataset '%s' --origin nosuchgpu "
		 "--target '" DEV_T "' 2>/dev/null", build, dir);
	int st = system(cmd);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2);
}
END_TEST

/* The auto rows of an accuracy dump: target_ns, low_ns, high_ns (0 where
 * the row has no interval), at most max; their number. */
static size_t dump_bounds(const char *path, double (*row)[3], size_t max)
{
	static const char *const header[] = {"method", "op", "dims", "origin_ns", "target_ns",
					     "predicted_ns", "distance", "low_ns", "high_ns"};
	static const char *const cols[] = {"method", "target_ns", "low_ns", "high_ns"};
	struct csv_reader r;
	ck_assert_int_eq(csv_open(&r, path, 0), 0);
	ck_assert_int_eq(csv_next(&r), 1);
	ck_assert_uint_eq(r.nfield, 9);
	for (size_t i = 0; i < 9; i++)
		ck_assert_str_eq(csv_field(&r, i), header[i]);
	int c[4];
	for (int i = 0; i < 4; i++)
		c[i] = csv_col(&r, cols[i]);
	size_t n = 0;
	int rc;
	while ((rc = csv_next(&r)) == 1) {
		ck_assert_uint_eq(r.nfield, 9);
		if (strcmp(csv_field(&r, (size_t)c[0]), "auto"))
			continue;
		ck_assert_uint_lt(n, max);
		for (int i = 0; i < 3; i++)
			row[n][i] = atof(csv_field(&r, (size_t)c[1 + i]));   /* "": 0 */
		n++;
	}
	ck_assert_int_eq(rc, 0);
	csv_release(&r);
	return n;
}

/* accuracy's interval coverage: of the rows a method's interval covers,
 * the share whose measured time lies within the bounds its dump writes
 * (counted here from the dump); the naive ratios have no interval; the
 * 50 % interval of a row lies within its 80 % one. */
START_TEST(bench_interval_coverage)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char cmd[1024], d80[300], d50[300];
	snprintf(d80, sizeof d80, "%s.iv80.csv", dir);
	snprintf(d50, sizeof d50, "%s.iv50.csv", dir);
	snprintf(cmd, sizeof cmd, "%s/surfer-bench accuracy --dataset '%s' --origin '" DEV_O
		 "' --target '" DEV_T "' --method all --json --dump '%s'", build, dir, d80);
	json_t *root = bench_json(cmd);
	json_t *methods = json_object_get(root, "methods");
	const char *naive[] = {"bw-ratio", "flops-ratio"};
	for (int i = 0; i < 2; i++) {
		json_t *ov = json_object_get(json_object_get(methods, naive[i]), "overall");
		ck_assert_ptr_nonnull(ov);
		ck_assert_ptr_null(json_object_get(ov, "interval_coverage"));
	}
	json_t *ov = json_object_get(json_object_get(methods, "auto"), "overall");
	double rows80[16][3], rows50[16][3];
	size_t n = dump_bounds(d80, rows80, 16), with = 0, in = 0;
	ck_assert_uint_gt(n, 0);
	for (size_t i = 0; i < n; i++)
		if (rows80[i][1] > 0) {
			with++;
			in += rows80[i][0] >= rows80[i][1] && rows80[i][0] <= rows80[i][2];
		}
	ck_assert_uint_eq(with, n);   /* every kernel of auto has a key */
	ck_assert_int_eq(json_integer_value(json_object_get(ov, "interval_n")), (json_int_t)with);
	ck_assert_double_eq_tol(json_real_value(json_object_get(ov, "interval")), 80.0, 1e-9);
	/* the V100's architecture is among the table's: an in-sample figure */
	ck_assert(json_is_true(json_object_get(ov, "interval_in_sample")));
	ck_assert_double_eq_tol(json_real_value(json_object_get(ov, "interval_coverage")),
				100.0 * (double)in / (double)with, 1e-9);
	json_decref(root);
	snprintf(cmd, sizeof cmd, "%s/surfer-bench accuracy --dataset '%s' --origin '" DEV_O
		 "' --target '" DEV_T "' --interval 50 --dump '%s' >/dev/null", build, dir, d50);
	int st = system(cmd);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_uint_eq(dump_bounds(d50, rows50, 16), n);
	for (size_t i = 0; i < n; i++) {
		ck_assert(rows50[i][1] >= rows80[i][1] - 0.05 && rows50[i][2] <= rows80[i][2] + 0.05);
		ck_assert(rows50[i][2] - rows50[i][1] < rows80[i][2] - rows80[i][1]);
	}
	unlink(d80);
	unlink(d50);
	snprintf(cmd, sizeof cmd, "%s/surfer-bench accuracy --dataset '%s' --origin '" DEV_O
		 "' --target '" DEV_T "' --interval 100 2>/dev/null >/dev/null", build, dir);
	st = system(cmd);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2);
}
END_TEST

/* surfer-train on rows written here: 14 GEMMs of one shape cell ran
 * volta_sgemm_128x128, 6 volta_sgemm_64x64 (the cell keeps 128x128), 6 of
 * a small shape volta_sgemm_32x32_sliced1x4; the weights it writes carry
 * those picks for the T4, and the V100 (no rows) borrows the T4's. */
START_TEST(trainer_records_picks)
{
	char sub[300], buf[8192];
	size_t n = (size_t)snprintf(buf, sizeof buf, "%s", GEMM_HDR);
	for (int i = 0; i < 26; i++) {
		const char *name = i < 14 ? "volta_sgemm_128x128_tn" : i < 20 ? "volta_sgemm_64x64_tn" :
				   "volta_sgemm_32x32_sliced1x4_tn";
		unsigned mm = i < 20 ? 2048 + 8 * i : 64 + i;
		n += (size_t)snprintf(buf + n, sizeof buf - n,
				      "linear,%.3f," DEV_O ",p2.1.0,8902,%s,1,1,4,1,1,256,1,1,cu121,;x,1,%u,%u,%u\n",
				      0.1 + 0.01 * i, name, mm, i < 20 ? 512u : 64u, i < 20 ? 2048u : 64u);
	}
	snprintf(sub, sizeof sub, "%s/train", dir);
	mkdir(sub, 0700);
	write_file("train/t4.csv", buf);
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char cmd[1024], out[400];
	snprintf(out, sizeof out, "%s/w.bin", dir);
	snprintf(cmd, sizeof cmd, "%s/surfer-train --data '%s' --out '%s' --epochs 2 --members 2 --quiet",
		 build, sub, out);
	ck_assert_int_eq(system(cmd), 0);
	struct tile_model *tm;
	ck_assert_int_eq(tile_model_load_file(out, &tm), 0);
	ck_assert(tile_model_has(tm, TILE_FAM_GEMM));
	const struct gpu_spec *t4 = gpu_find(DEV_O), *v100 = gpu_find(DEV_T);
	struct pred_kernel big = {.op = PRED_OP_GEMM, .dtype = GPU_DT_FP32, .batch = 1,
				  .m = 2100, .k = 512, .n = 2048};
	struct pred_kernel small = {.op = PRED_OP_GEMM, .dtype = GPU_DT_FP32, .batch = 1,
				    .m = 80, .k = 64, .n = 64};
	struct tile_shape t;
	ck_assert_int_eq(tile_pick_lookup(tm, &big, t4, &t), 0);
	ck_assert_uint_eq(t.t0, 128);
	ck_assert_uint_eq(t.t1, 128);
	ck_assert_int_eq(tile_pick_lookup(tm, &small, t4, &t), 0);
	ck_assert_uint_eq(t.t0, 32);
	ck_assert_uint_eq(t.split, 4);
	/* The V100 is held out and of another architecture than the T4:
	 * no table, the canonical rule. */
	ck_assert_ptr_null(tile_pick_source(tm, v100));
	ck_assert_int_eq(tile_pick_lookup(tm, &big, v100, &t), -1);
	tile_model_free(tm);
}
END_TEST

/* surfer-train's GEMM curve recovers the constants of times made with
 * them: linear rows on the T4 and the V100 whose times are the curve's
 * (tile.h) for constants chosen here, over shapes from memory-bound
 * (one row) to several waves with ragged edges; no floor and no power
 * cap, so the curve is all there is to fit. */
START_TEST(trainer_fits_curve)
{
	static const double truth[TILE_CURVE_NPARAM] = {-0.35667494393873245 /* log 0.7 */, 0.3,
							0.8, -0.5108256237659907 /* log 0.6 */};
	static const unsigned ms[] = {1, 16, 100, 300, 1000, 2048, 5000};
	static const unsigned ns[] = {64, 512, 2048};     /* reduction */
	static const unsigned ks[] = {96, 1024, 3000};    /* output columns */
	const char *devs[] = {DEV_O, DEV_T};
	char sub[300];
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);
	ck_assert_ptr_nonnull(buf);
	n += (size_t)snprintf(buf, cap, "%s", GEMM_HDR);
	for (int d = 0; d < 2; d++)
		for (size_t a = 0; a < sizeof ms / sizeof ms[0]; a++)
			for (size_t b = 0; b < sizeof ns / sizeof ns[0]; b++)
				for (size_t c = 0; c < sizeof ks / sizeof ks[0]; c++) {
					/* the record ns_kernel() builds from the row */
					double M = ms[a], N = ns[b], K = ks[c];
					struct pred_kernel k = {.op = PRED_OP_GEMM, .dtype = GPU_DT_FP32,
								.batch = 1, .m = ms[a], .k = ns[b],
								.n = ks[c], .flops = 2 * M * N * K,
								.bytes = 4 * (M * N + N * K + M * K)};
					double t[4];
					ck_assert_int_eq(tile_curve_terms(NULL, &k, gpu_find(devs[d]), t), 0);
					n += (size_t)snprintf(buf + n, cap - n,
							      "linear,%.17g,%s,p2.1.0,8902,volta_sgemm_128x128_tn,"
							      "1,1,4,1,1,256,1,1,cu121,;x,1,%u,%u,%u\n",
							      tile_curve_ns(t, truth) / 1e6, devs[d], ms[a], ns[b], ks[c]);
					ck_assert_uint_lt(n, cap);
				}
	snprintf(sub, sizeof sub, "%s/curve", dir);
	mkdir(sub, 0700);
	write_file("curve/rows.csv", buf);
	free(buf);
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char cmd[1024], out[400];
	snprintf(out, sizeof out, "%s/wc.bin", dir);
	snprintf(cmd, sizeof cmd, "%s/surfer-train --data '%s' --out '%s' --epochs 1 --members 1 "
		 "--no-floor --no-power-cap --quiet", build, sub, out);
	ck_assert_int_eq(system(cmd), 0);
	struct tile_model *tm;
	ck_assert_int_eq(tile_model_load_file(out, &tm), 0);
	double c[TILE_CURVE_NPARAM];
	ck_assert_int_eq(tile_curve_params(tm, c), 1);
	tile_model_free(tm);
	for (int i = 0; i < TILE_CURVE_NPARAM; i++)
		ck_assert_msg(fabs(c[i] - truth[i]) < 2e-3, "constant %d: %g, made with %g", i, c[i],
			      truth[i]);
	/* --no-curve: format 3, no curve. */
	snprintf(cmd, sizeof cmd, "%s/surfer-train --data '%s' --out '%s' --epochs 1 --members 1 "
		 "--no-floor --no-power-cap --no-curve --quiet", build, sub, out);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(tile_model_load_file(out, &tm), 0);
	ck_assert_int_eq(tile_curve_params(tm, c), 0);
	tile_model_free(tm);
}
END_TEST

/* A NeuSight file whose quote never closes: ns_load names the file and the
 * row's line, and surfer-bench prints that one line and exits 2. */
START_TEST(bad_csv_one_line)
{
	char buf[2048], path[400], err[1024];
	snprintf(buf, sizeof buf, "%s"
		 "add,0.03," DEV_O ",p2.1.0,8902,k,2.1,0.5,42,1,1,128,1,1,cu121,127,168\n"
		 "add,0.05," DEV_O ",p2.1.0,8902,\"void k<4, 3>(int),2.1,0.5,42,1,1,128,1,1,cu121,1,1\n",
		 VEC_HDR);
	write_file("bad.csv", buf);
	snprintf(path, sizeof path, "%s/bad.csv", dir);
	struct ns_set s;
	memset(&s, 0, sizeof s);
	ck_assert_int_eq(ns_load(&s, path, NULL, NULL, err, sizeof err), -1);
	char want[600];
	snprintf(want, sizeof want, "%s:3: unterminated quote", path);
	ck_assert_str_eq(err, want);
	ns_release(&s);

	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char cmd[1024], line[1024];
	snprintf(cmd, sizeof cmd, "%s/surfer-bench accuracy --dataset '%s' --origin '" DEV_O
		 "' --target '" DEV_T "' 2>&1 >/dev/null; echo \"exit $?\"", build, path);
	FILE *pp = popen(cmd, "r");
	ck_assert_ptr_nonnull(pp);
	ck_assert_ptr_nonnull(fgets(line, sizeof line, pp));
	ck_assert_ptr_nonnull(strstr(line, want));
	ck_assert_ptr_nonnull(fgets(line, sizeof line, pp));
	ck_assert_str_eq(line, "exit 2\n");
	ck_assert_ptr_null(fgets(line, sizeof line, pp));
	pclose(pp);
}
END_TEST

/* ms of a memory-bound kernel of `bytes` on g: floor + bytes / (eff x
 * the achievable bandwidth), bw_exp 1 (GB/s = bytes per ns). */
static double vec_ms(const char *gpu, double bytes, double eff, double floor_ns)
{
	const struct gpu_spec *g = gpu_find(gpu);
	ck_assert_ptr_nonnull(g);
	return (floor_ns + bytes / (eff * gpu_mem_bw_eff_gbps(g))) * 1e-6;
}

/* NeuSight add and ln rows of 12 shapes (B x 4096, B = 2^2 .. 2^13) on
 * each GPU: add moves 12 bytes an element (two FP32 reads, one write), ln
 * 8 and its 8 x 4096 bytes of gamma and beta. */
static void write_ns_vec(const char *gpu, double eff_add, double eff_ln, double floor_ns)
{
	char path[512], line[512];
	const char *ops[2] = {"add", "ln"};
	for (int o = 0; o < 2; o++) {
		snprintf(path, sizeof path, "%s/neusight/kernels/%s", dir, ops[o]);
		mkdir(path, 0700);
		snprintf(path + strlen(path), sizeof path - strlen(path), "/%s.csv", gpu);
		FILE *fp = fopen(path, "w");
		ck_assert_ptr_nonnull(fp);
		fputs(VEC_HDR, fp);
		for (int i = 2; i <= 13; i++) {
			double numel = 4096.0 * (1 << i);
			double ms = o == 0 ? vec_ms(gpu, 12 * numel, eff_add, floor_ns)
					   : vec_ms(gpu, 8 * numel + 8 * 4096.0, eff_ln, floor_ns);
			snprintf(line, sizeof line, "%s,%.12g,%s,p2.1.0,8902,k,1,1,1,1,1,128,1,1,cu121,%d,4096\n",
				 ops[o], ms, gpu, 1 << i);
			fputs(line, fp);
		}
		fclose(fp);
	}
}

/* The vector-op fit without an architecture (bench_vec_fit_heldout) on
 * made-up rows whose constants are known: NeuSight's T4 and V100 at eff
 * 0.8 (add) and 0.5 (ln), a 20 us floor; its A100 (cc 8.0) at 0.4 / 0.3,
 * 5 us; Vidur's A40 (cc 8.6) at 0.6 (add) and 0.45 (norm), 1.5 / 3 us.
 * bw_exp: the rows follow the bandwidth alone (a = 1), so the T4's fit
 * predicts the V100 exactly at a = 1 and not at a < 1 (their bandwidth to
 * SM-issue ratios differ: 239 GB/s against 40 x 1.59 x 64 = 4070, 814
 * against 80 x 1.38 x 64 = 7066).  Checks:
 *  - Ampere held out (8.0, 8.6): the A100 and Vidur's A40 rows are gone;
 *    eff 0.8 / 0.5 from the T4 and V100 by their bytes, softmax and
 *    reductions take the norm's 0.5; every floor is PRED_NO_BASIS_NS
 *    (2500 ns), not NeuSight's 20 us;
 *  - Hopper held out (9.0): no row is of it, 1 and p untouched;
 *  - the A100 alone held out (8.0): Vidur's A40 rows fit eff and floor:
 *    add 0.6, 1500 ns; norm 0.45, 3000 ns.
 * Vidur's rows: 32 heads, 4096 wide, T = 2^4 .. 2^14 tokens; the add
 * moves 2 x 3 x T x 4096 bytes (two FP16 reads and a write), the norm
 * 2 x 2 x T x 4096 + 2 x 4096 (its weight); at T = 1024 on the A40
 * (621.5625 GB/s achievable: 663 measured less in-band ECC) the add takes
 * 1500 + 25165824 / (0.6 x 621.5625) = 68980.0 ns. */
START_TEST(vecop_fit_heldout)
{
	char path[512];
	const char *subs[] = {"neusight", "neusight/kernels", "vidur", "vidur/compute",
			      "vidur/compute/a40", "vidur/compute/a40/org", "vidur/compute/a40/org/m"};
	for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, subs[i]);
		ck_assert_int_eq(mkdir(path, 0700), 0);
	}
	write_ns_vec("Tesla T4", 0.8, 0.5, 20000);
	write_ns_vec("Tesla V100-PCIE-32GB", 0.8, 0.5, 20000);
	write_ns_vec("NVIDIA A100-PCIE-40GB", 0.4, 0.3, 5000);
	snprintf(path, sizeof path, "%s/vidur/compute/a40/org/m/mlp.csv", dir);
	FILE *fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("n_head,n_kv_head,n_embd,n_expanded_embd,use_gated_mlp,num_tokens,"
	      "num_tensor_parallel_workers,time_stats.input_layernorm.median,time_stats.add.median,"
	      "time_stats.mlp_act.median,time_stats.attn_rope.median\n", fp);
	for (int i = 4; i <= 14; i++) {
		double t = 1 << i;
		fprintf(fp, "32,32,4096,11008,True,%d,1,%.12g,%.12g,,\n", 1 << i,
			vec_ms("a40", 2 * 2 * t * 4096 + 2 * 4096, 0.45, 3000),
			vec_ms("a40", 2 * 3 * t * 4096, 0.6, 1500));
	}
	fclose(fp);
	ck_assert(fabs(vec_ms("a40", 2 * 3 * 1024 * 4096.0, 0.6, 1500) * 1e6 - 68980.0) < 0.1);

	char err[256];
	struct vecop_params p;
	const uint32_t ampere[2] = {80, 86}, hopper[1] = {90}, a100[1] = {80};
	ck_assert_int_eq(bench_vec_fit_heldout(dir, ampere, 2, &p, err, sizeof err), 0);
	ck_assert_double_eq_tol(p.bw_exp, 1.0, 1e-9);
	ck_assert_double_eq_tol(p.eff[VECOP_ELEMENTWISE], 0.8, 1e-3);
	ck_assert_double_eq_tol(p.eff[VECOP_NORM], 0.5, 1e-3);
	ck_assert_double_eq_tol(p.eff[VECOP_SOFTMAX], 0.5, 1e-3);
	ck_assert_double_eq_tol(p.eff[VECOP_REDUCTION], 0.5, 1e-3);
	for (int c = 0; c < VECOP_COUNT; c++)
		ck_assert_double_eq_tol(p.floor_ns[c], 2500, 1e-9);

	memset(&p, 0, sizeof p);
	p.eff[0] = 7;
	ck_assert_int_eq(bench_vec_fit_heldout(dir, hopper, 1, &p, err, sizeof err), 1);
	ck_assert(p.eff[0] == 7 && p.floor_ns[0] == 0);

	ck_assert_int_eq(bench_vec_fit_heldout(dir, a100, 1, &p, err, sizeof err), 0);
	ck_assert_double_eq_tol(p.bw_exp, 1.0, 1e-9);
	ck_assert_double_eq_tol(p.eff[VECOP_ELEMENTWISE], 0.6, 1e-3);
	ck_assert_double_eq_tol(p.floor_ns[VECOP_ELEMENTWISE], 1500, 2);
	ck_assert_double_eq_tol(p.eff[VECOP_NORM], 0.45, 1e-3);
	ck_assert_double_eq_tol(p.floor_ns[VECOP_NORM], 3000, 2);

	/* nothing to fit on: one line, -1 */
	const uint32_t every[5] = {75, 70, 80, 86, 90};
	ck_assert_int_eq(bench_vec_fit_heldout(dir, every, 5, &p, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "no vector-op rows"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bench");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, reads_and_pairs);
	tcase_add_test(tc, reads_deepbench);
	tcase_add_test(tc, reads_deepbench_conv);
	tcase_add_test(tc, reads_other_formats);
	tcase_add_test(tc, kernel_records);
	tcase_add_test(tc, statistics_by_hand);
	tcase_add_test(tc, random_effects_by_hand);
	tcase_add_test(tc, own_kernels_by_hand);
	tcase_add_test(tc, bench_json_bandwidth_ratio);
	tcase_add_test(tc, bench_interval_coverage);
	tcase_add_test(tc, bad_csv_one_line);
	tcase_add_test(tc, trainer_records_picks);
	tcase_add_test(tc, trainer_fits_curve);
	tcase_add_test(tc, vecop_fit_heldout);
	suite_add_tcase(s, tc);
	return check_run(s);
}
