/*
 * check_cupti.c - the CUPTI activity path without a GPU: hand-built
 * activity buffers (CUPTI 13 record layouts) walked by the real libcupti's
 * cuptiActivityGetNextRecord through preload/cupti.c.  Skips (passes with a
 * note) where libcupti is not installed.
 *
 * A second suite runs preload/cupti.c against the fake libcupti and fake
 * driver beside this program (tests/fake_cupti.c, built by `make all`), in a
 * child process: cupti.c keeps the first libcupti it loaded, and this
 * process's is the real one.  Skipped with a note where the fakes are not
 * built.
 */
#include <check.h>
#include <dlfcn.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

/* An external correlation record: CUPTI's correlation id corr is the
 * external id ext of kind (CUSTOM0: our sequence number). */
static void put_external(uint8_t *buf, size_t *off, CUpti_ExternalCorrelationKind kind, uint64_t ext,
			 uint32_t corr)
{
	CUpti_ActivityExternalCorrelation x;
	memset(&x, 0, sizeof x);
	x.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
	x.externalKind = kind;
	x.externalId = ext;
	x.correlationId = corr;
	put(buf, off, &x, sizeof x);
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
	put_external(buf, &off, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 1234, 5);
	CUpti_ActivityMemcpy6 m;
	memset(&m, 0, sizeof m);
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
	m.bytes = 1 << 20;
	m.correlationId = 6;
	m.streamId = 7;
	m.start = 2000000;
	m.end = 2100000;
	m.copyCount = 3;   /* three copies of a batch in one report */
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
	put_external(buf, &off, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, 99, 7);
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
	ck_assert_uint_eq(s.c[0].copies, 3);   /* a CUPTI of 12.8 or later */
	ck_assert_int_eq(s.c[1].memset, 1);
	ck_assert_uint_eq(s.c[1].copies, 1);
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

/* A peer-to-peer copy comes as a MEMCPY2 record, whose correlationId is
 * at another offset than a MEMCPY record's: it is reported as a copy with
 * its times and the correlation id its external record names. */
START_TEST(parse_peer_copy)
{
	if (!have_cupti)
		return;
	static uint8_t buf[4096] __attribute__((aligned(8)));
	size_t off = 0;
	CUpti_ActivityMemcpyPtoP4 p;
	memset(&p, 0, sizeof p);
	p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
	p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
	p.bytes = 3 << 20;
	p.start = 4000000;
	p.end = 4250000;
	p.deviceId = 0;
	p.contextId = 1;
	p.streamId = 13;
	p.srcDeviceId = 0;
	p.srcContextId = 1;
	p.dstDeviceId = 1;
	p.dstContextId = 2;
	p.correlationId = 21;
	put(buf, &off, &p, sizeof p);
	put_external(buf, &off, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 555, 21);
	struct seen s;
	memset(&s, 0, sizeof s);
	struct preload_cupti_sink sink = { .ctx = &s, .external = on_ext, .kernel = on_kernel, .copy = on_copy };
	ck_assert_int_eq(preload_cupti_parse(buf, off, &sink), 2);
	ck_assert_int_eq(s.next, 1);
	ck_assert_int_eq(s.nc, 1);
	ck_assert_uint_eq(s.c[0].correlation, s.ext_corr[0]);
	ck_assert_uint_eq(s.ext_id[0], 555);
	ck_assert_int_eq(s.c[0].memset, 0);
	ck_assert_int_eq(s.c[0].kind, TRACE_COPY_PTOP);
	ck_assert_uint_eq(s.c[0].bytes, 3u << 20);
	ck_assert_uint_eq(s.c[0].stream, 13);
	ck_assert_uint_eq(s.c[0].start_ns, 4000000);
	ck_assert_uint_eq(s.c[0].end_ns, 4250000);
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

/* ---- against the fake libcupti (in a child process) ------------------ */

typedef int (*peer_fn)(uintptr_t dst, void *dst_ctx, uintptr_t src, void *src_ctx, size_t n);
typedef void (*foreign_fn)(uint8_t *buf, size_t size, size_t valid);
static peer_fn memcpy_peer;        /* the fake driver's cuMemcpyPeer          */
static foreign_fn complete_foreign; /* fake_cupti_complete_foreign           */
static char fake_cupti_path[600], fake_cuda_path[600];

/* Starts cupti.c on the fake with sink s; env: the fake's variables. */
static void start_fake(struct seen *s, struct preload_cupti_sink *sink)
{
	memset(s, 0, sizeof *s);
	memset(sink, 0, sizeof *sink);
	sink->ctx = s;
	sink->external = on_ext;
	sink->kernel = on_kernel;
	sink->copy = on_copy;
	char why[128] = "";
	ck_assert_msg(preload_cupti_start(sink, why, sizeof why) == 0, "start: %s", why);
}

/* One copy of n bytes between two buffers through the fake driver, under
 * external id ext, and every buffer handed over. */
static void peer_copy(uint64_t ext, size_t n)
{
	static char src[1 << 20], dst[1 << 20];
	ck_assert_uint_le(n, sizeof src);
	preload_cupti_push(ext);
	ck_assert_int_eq(memcpy_peer((uintptr_t)dst, NULL, (uintptr_t)src, NULL, n), 0);
	preload_cupti_pop();
	preload_cupti_flush(1);
}

/* A copy between two GPUs gets its GPU times, under the correlation id its
 * external record names (the MEMCPY2 kind enabled, its record parsed). */
START_TEST(fake_peer_copy_timed)
{
	setenv("FAKE_CUPTI_PEER", "1", 1);
	struct seen s;
	struct preload_cupti_sink sink;
	start_fake(&s, &sink);
	peer_copy(4242, 1 << 20);
	preload_cupti_stop();
	unsetenv("FAKE_CUPTI_PEER");
	ck_assert_int_eq(s.next, 1);
	ck_assert_uint_eq(s.ext_id[0], 4242);
	ck_assert_int_eq(s.nc, 1);
	ck_assert_uint_eq(s.c[0].correlation, s.ext_corr[0]);
	ck_assert_int_eq(s.c[0].kind, TRACE_COPY_PTOP);
	ck_assert_uint_eq(s.c[0].bytes, 1u << 20);
	ck_assert_uint_gt(s.c[0].start_ns, 0);
	/* the fake driver's copies take bytes / 100 ns */
	ck_assert_uint_eq(s.c[0].end_ns - s.c[0].start_ns, (1u << 20) / 100);
}
END_TEST

/* A CUPTI that refuses MEMCPY2 still times everything else: the start
 * succeeds, and an ordinary device-to-device copy gets its times. */
START_TEST(fake_peer_kind_refused)
{
	char k[16];
	snprintf(k, sizeof k, "%d", (int)CUPTI_ACTIVITY_KIND_MEMCPY2);
	setenv("FAKE_CUPTI_REFUSE", k, 1);
	struct seen s;
	struct preload_cupti_sink sink;
	start_fake(&s, &sink);
	peer_copy(7, 4096);
	preload_cupti_stop();
	unsetenv("FAKE_CUPTI_REFUSE");
	ck_assert_int_eq(s.nc, 1);
	ck_assert_int_eq(s.c[0].kind, TRACE_COPY_DTOD);
	ck_assert_uint_eq(s.c[0].correlation, s.ext_corr[0]);
	ck_assert_uint_gt(s.c[0].end_ns, s.c[0].start_ns);
}
END_TEST

/* How many lines of the file at fd hold needle. */
static int lines_with(int fd, const char *needle)
{
	char text[4096];
	ssize_t n = pread(fd, text, sizeof text - 1, 0);
	text[n > 0 ? n : 0] = 0;
	int count = 0;
	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		count++;
	return count;
}

/* CUPTI completes through our callback a buffer another client (kineto)
 * allocated: the recorder neither reads nor frees it, says so once, and
 * goes on with its own buffers. */
START_TEST(fake_foreign_buffer_left_alone)
{
	/* the size of cupti.c's own buffers: the size alone must not give
	 * the foreign one away */
	const size_t size = 8u << 20;
	uint8_t *buf = NULL, *copy = malloc(size);
	ck_assert_int_eq(posix_memalign((void **)&buf, 8, size), 0);
	ck_assert_ptr_nonnull(copy);
	memset(buf, 0xa5, size);
	size_t valid = build(buf);
	memcpy(copy, buf, size);
	struct seen s;
	struct preload_cupti_sink sink;
	start_fake(&s, &sink);
	preload_log_verbose(1);
	FILE *log = tmpfile();
	ck_assert_ptr_nonnull(log);
	int saved = dup(2);
	dup2(fileno(log), 2);
	complete_foreign(buf, size, valid);
	complete_foreign(buf, size, valid);
	dup2(saved, 2);
	close(saved);
	ck_assert_int_eq(memcmp(buf, copy, size), 0);
	ck_assert_int_eq(s.nk + s.nc + s.next, 0);
	ck_assert_int_eq(lines_with(fileno(log), "did not allocate"), 1);
	fclose(log);
	preload_log_verbose(0);
	/* our own buffers are still read */
	peer_copy(9, 4096);
	preload_cupti_stop();
	ck_assert_int_eq(s.nc, 1);
	free(buf);
	free(copy);
}
END_TEST

/* Runs the fake-CUPTI suite in a child process; 1 if any test failed. */
static int fake_suite_failed(void)
{
	char exe[512];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return 1;
	exe[n] = 0;
	const char *dir = dirname(exe);
	snprintf(fake_cupti_path, sizeof fake_cupti_path, "%s/fakelib/libcupti.so.13", dir);
	snprintf(fake_cuda_path, sizeof fake_cuda_path, "%s/libcuda.so.1", dir);
	if (access(fake_cupti_path, R_OK) != 0 || access(fake_cuda_path, R_OK) != 0) {
		printf("check_cupti: %s not built (make all): fake CUPTI tests skipped\n", fake_cupti_path);
		return 0;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		/* the fake libcupti needs the fake driver (its libcuda.so.1) */
		void *cuda = dlopen(fake_cuda_path, RTLD_NOW | RTLD_GLOBAL);
		char why[128] = "";
		setenv("SURFER_CUPTI_PATH", fake_cupti_path, 1);
		if (!cuda || preload_cupti_load(why, sizeof why) < 0) {
			printf("check_cupti: cannot load the fakes: %s %s\n", why, cuda ? "" : dlerror());
			exit(1);
		}
		void *cupti = dlopen(fake_cupti_path, RTLD_NOW | RTLD_NOLOAD);
		memcpy_peer = (peer_fn)dlsym(cuda, "cuMemcpyPeer");
		complete_foreign = cupti ? (foreign_fn)dlsym(cupti, "fake_cupti_complete_foreign") : NULL;
		if (!memcpy_peer || !complete_foreign) {
			printf("check_cupti: the fakes lack cuMemcpyPeer or fake_cupti_complete_foreign\n");
			exit(1);
		}
		Suite *s = suite_create("cupti-fake");
		TCase *tc = tcase_create("fake");
		tcase_add_test(tc, fake_peer_copy_timed);
		tcase_add_test(tc, fake_peer_kind_refused);
		tcase_add_test(tc, fake_foreign_buffer_left_alone);
		suite_add_tcase(s, tc);
		exit(check_run(s));
	}
	int st = 0;
	if (waitpid(pid, &st, 0) != pid)
		return 1;
	return !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

int main(void)
{
	/* first: the child must not inherit the real libcupti */
	int fake_failed = fake_suite_failed();
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
	tcase_add_test(tc, parse_peer_copy);
	tcase_add_test(tc, parse_empty_buffer);
	tcase_add_test(tc, parse_rejects_missing_sink);
	suite_add_tcase(s, tc);
	int failed = check_run(s);
	return failed || fake_failed ? 1 : 0;
}
