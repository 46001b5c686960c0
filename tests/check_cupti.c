/*
 * check_cupti.c - the CUPTI activity path without a GPU: hand-built
 * activity buffers (CUPTI 13 record layouts) walked by the real libcupti's
 * cuptiActivityGetNextRecord through preload/cupti.c.  Skips (passes with a
 * note) where libcupti is not installed.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cupti.h>

#include "preload/preload.h"
#include "tests/check_run.h"

static int have_cupti;

struct seen {
	uint32_t ext_corr[8];
	uint64_t ext_id[8];
	int next;
	struct preload_cupti_kernel k[8];
	char names[8][64];
	int nk;
	int ext_before_kernel;   /* externals seen when the first kernel came */
	struct preload_cupti_copy c[8];
	int nc;
};

static void on_ext(void *ctx, uint32_t corr, uint64_t id)
{
	struct seen *s = ctx;
	s->ext_corr[s->next] = corr;
	s->ext_id[s->next++] = id;
}

static void on_kernel(void *ctx, const struct preload_cupti_kernel *k)
{
	struct seen *s = ctx;
	if (s->nk == 0)
		s->ext_before_kernel = s->next;
	s->k[s->nk] = *k;
	snprintf(s->names[s->nk], sizeof s->names[0], "%s", k->name ? k->name : "");
	s->nk++;
}

static void on_copy(void *ctx, const struct preload_cupti_copy *c)
{
	struct seen *s = ctx;
	s->c[s->nc++] = *c;
}

/* Appends one record of size n to the buffer at *off (8-byte aligned). */
static void put(uint8_t *buf, size_t *off, const void *rec, size_t n)
{
	memcpy(buf + *off, rec, n);
	*off += (n + 7) & ~(size_t)7;
}

static size_t build(uint8_t *buf)
{
	size_t off = 0;
	CUpti_ActivityKernel10 k;
	memset(&k, 0, sizeof k);
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.correlationId = 5;
	k.name = "ampere_sgemm_128x64_nn";
	k.gridX = 40; k.gridY = 2; k.gridZ = 1;
	k.blockX = 256; k.blockY = 1; k.blockZ = 1;
	k.clusterX = 2; k.clusterY = 1; k.clusterZ = 1;
	k.registersPerThread = 122;
	k.staticSharedMemory = 16384;
	k.dynamicSharedMemory = 4096;
	k.streamId = 7;
	k.start = 1000000;
	k.end = 1012345;
	put(buf, &off, &k, sizeof k);
	/* The correlation record after the kernel it names. */
	CUpti_ActivityExternalCorrelation x;
	memset(&x, 0, sizeof x);
	x.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
	x.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
	x.externalId = 1234;
	x.correlationId = 5;
	put(buf, &off, &x, sizeof x);
	CUpti_ActivityMemcpy6 m;
	memset(&m, 0, sizeof m);
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
	m.bytes = 1 << 20;
	m.correlationId = 6;
	m.streamId = 7;
	m.start = 2000000;
	m.end = 2100000;
	put(buf, &off, &m, sizeof m);
	CUpti_ActivityMemset4 s;
	memset(&s, 0, sizeof s);
	s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	s.bytes = 4096;
	s.correlationId = 7;
	s.start = 3000000;
	s.end = 3000500;
	put(buf, &off, &s, sizeof s);
	/* Another tool's external id (kind CUSTOM1) is not ours. */
	x.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1;
	x.externalId = 99;
	x.correlationId = 7;
	put(buf, &off, &x, sizeof x);
	return off;
}

START_TEST(parse_hand_built_buffer)
{
	if (!have_cupti)
		return;
	static uint8_t buf[4096] __attribute__((aligned(8)));
	size_t n = build(buf);
	struct seen s;
	memset(&s, 0, sizeof s);
	struct preload_cupti_sink sink = {
		.ctx = &s, .external = on_ext, .kernel = on_kernel, .copy = on_copy,
	};
	ck_assert_int_eq(preload_cupti_parse(buf, n, &sink), 5);
	/* One CUSTOM0 correlation, delivered before any kernel. */
	ck_assert_int_eq(s.next, 1);
	ck_assert_int_eq(s.ext_before_kernel, 1);
	ck_assert_uint_eq(s.ext_corr[0], 5);
	ck_assert_uint_eq(s.ext_id[0], 1234);
	ck_assert_int_eq(s.nk, 1);
	ck_assert_str_eq(s.names[0], "ampere_sgemm_128x64_nn");
	ck_assert_uint_eq(s.k[0].correlation, 5);
	ck_assert_uint_eq(s.k[0].grid[0], 40);
	ck_assert_uint_eq(s.k[0].grid[1], 2);
	ck_assert_uint_eq(s.k[0].block[0], 256);
	ck_assert_uint_eq(s.k[0].cluster[0], 2);
	ck_assert_uint_eq(s.k[0].regs, 122);
	ck_assert_uint_eq(s.k[0].static_smem, 16384);
	ck_assert_uint_eq(s.k[0].dyn_smem, 4096);
	ck_assert_uint_eq(s.k[0].stream, 7);
	ck_assert_uint_eq(s.k[0].end_ns - s.k[0].start_ns, 12345);
	ck_assert_int_eq(s.nc, 2);
	ck_assert_int_eq(s.c[0].memset, 0);
	ck_assert_int_eq(s.c[0].kind, TRACE_COPY_HTOD);
	ck_assert_uint_eq(s.c[0].bytes, 1u << 20);
	ck_assert_uint_eq(s.c[0].end_ns - s.c[0].start_ns, 100000);
	ck_assert_int_eq(s.c[1].memset, 1);
	ck_assert_uint_eq(s.c[1].bytes, 4096);
	ck_assert_uint_eq(s.c[1].correlation, 7);
}
END_TEST

/* A forced flush hands over the records of kernels and copies still
 * running with no times (start and end 0): such a report is left out and
 * counted, never passed on with 0 as its start. */
START_TEST(parse_leaves_out_unfinished)
{
	if (!have_cupti)
		return;
	static uint8_t buf[4096] __attribute__((aligned(8)));
	size_t n = build(buf), off = n;
	CUpti_ActivityKernel10 k;
	memset(&k, 0, sizeof k);
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.correlationId = 8;
	k.name = "still_running";
	put(buf, &off, &k, sizeof k);
	CUpti_ActivityMemcpy6 m;
	memset(&m, 0, sizeof m);
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m.correlationId = 9;
	m.start = 5000000; /* begun, not ended */
	put(buf, &off, &m, sizeof m);
	struct seen s;
	memset(&s, 0, sizeof s);
	struct preload_cupti_sink sink = { .ctx = &s, .external = on_ext, .kernel = on_kernel, .copy = on_copy };
	unsigned long long before = preload_cupti_unfinished();
	preload_cupti_parse(buf, off, &sink);
	/* build()'s kernel, copy and set only */
	ck_assert_int_eq(s.nk, 1);
	ck_assert_str_eq(s.names[0], "ampere_sgemm_128x64_nn");
	ck_assert_int_eq(s.nc, 2);
	ck_assert_uint_eq(preload_cupti_unfinished() - before, 2);
}
END_TEST

START_TEST(parse_empty_buffer)
{
	if (!have_cupti)
		return;
	static uint8_t buf[64] __attribute__((aligned(8)));
	struct seen s;
	memset(&s, 0, sizeof s);
	struct preload_cupti_sink sink = {
		.ctx = &s, .external = on_ext, .kernel = on_kernel, .copy = on_copy,
	};
	ck_assert_int_eq(preload_cupti_parse(buf, 0, &sink), 0);
	ck_assert_int_eq(s.nk + s.nc + s.next, 0);
}
END_TEST

START_TEST(parse_rejects_missing_sink)
{
	static uint8_t buf[64] __attribute__((aligned(8)));
	ck_assert_int_lt(preload_cupti_parse(buf, 0, NULL), 0);
	ck_assert_uint_eq(preload_cupti_to_cpu_ns(0), 0);
}
END_TEST

int main(void)
{
	char why[128];
	const char *home = getenv("CUDA_HOME");
	char path[512];
	snprintf(path, sizeof path, "%s/lib64/libcupti.so", home ? home : "/usr/local/cuda");
	if (!getenv("SURFER_CUPTI_PATH") && access(path, R_OK) == 0)
		setenv("SURFER_CUPTI_PATH", path, 1);
	have_cupti = preload_cupti_load(why, sizeof why) == 0;
	if (!have_cupti)
		printf("check_cupti: %s: buffer tests skipped\n", why);
	Suite *s = suite_create("cupti");
	TCase *tc = tcase_create("parse");
	tcase_add_test(tc, parse_hand_built_buffer);
	tcase_add_test(tc, parse_leaves_out_unfinished);
	tcase_add_test(tc, parse_empty_buffer);
	tcase_add_test(tc, parse_rejects_missing_sink);
	suite_add_tcase(s, tc);
	return check_run(s);
}
