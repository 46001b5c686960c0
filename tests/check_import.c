/*
 * check_import.c - tests of surfer-import: a small Kineto trace written
 * here (plain and gzip-compressed) and a small Nsight Systems SQLite export
 * created here with nsys's schema are imported and read back with the
 * trace reader, field by field, against values worked out by hand from the
 * inputs; the error cases run the built program and check its exit status
 * and its one-line message; an optional test imports the real traces under
 * $SURFER_DATA/kineto (default ../shared/data) and compares the kernel
 * counts with counts made by Python's json module.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dirent.h>

#include <sqlite3.h>
#include <zlib.h>

#include "analyzer/analyze.h"
#include "gpu_specs/gpu.h"
#include "tools/import/import.h"
#include "trace/trace.h"
#include "tests/check_run.h"

static char tmpdir[64];
static char path_buf[32][256];
static int path_next;

/* A path inside the test's temporary directory; valid for the next 31
 * calls, more than any test makes. */
static const char *tmp(const char *name)
{
	char *p = path_buf[path_next++ % 32];
	snprintf(p, 256, "%s/%s", tmpdir, name);
	return p;
}

static void setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/check_import.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char p[512];
		snprintf(p, sizeof(p), "%s/%s", tmpdir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(tmpdir);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
}

static void write_gz(const char *path, const char *text)
{
	gzFile gz = gzopen(path, "wb");
	ck_assert_ptr_nonnull(gz);
	ck_assert_int_eq(gzputs(gz, text), (int)strlen(text));
	ck_assert_int_eq(gzclose(gz), Z_OK);
}

/* ---- the Kineto fixture ---------------------------------------------
 * Events deliberately out of order (a kernel before its launch call),
 * with noise the importer must skip (CPU ops, flows, metadata, nested
 * arrays in args, a runtime call that issues nothing), two devices, a
 * graph launch issuing two kernels, a kernel with no launch call, and
 * deviceProperties after traceEvents. */
static const char kineto_json[] =
"{\"schemaVersion\": 1, \"traceEvents\": [\n"
"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#7\",\"pid\":100,\"tid\":100,"
" \"ts\":1000,\"dur\":500,\"args\":{\"Input Dims\":[[1,2],[3]],\"External id\":1}},\n"
"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#8\",\"pid\":100,\"tid\":100,"
" \"ts\":1500,\"dur\":1200,\"args\":{}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"late\",\"pid\":0,\"tid\":7,\"ts\":3000,\"dur\":2,"
" \"args\":{\"device\":0,\"stream\":7,\"correlation\":20,\"registers per thread\":16,"
" \"shared memory\":0,\"grid\":[1,1,1],\"block\":[64,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,\"tid\":100,"
" \"ts\":2990,\"dur\":4,\"args\":{\"correlation\":20}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void gemm_kernel<float>(int)\",\"pid\":0,\"tid\":7,"
" \"ts\":1010.5,\"dur\":20.25,\"args\":{\"device\":0,\"stream\":7,\"correlation\":11,"
" \"registers per thread\":64,\"shared memory\":16384,\"grid\":[80,2,1],\"block\":[256,1,1],"
" \"blocks per SM\":2.5}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,\"tid\":100,"
" \"ts\":1005.125,\"dur\":4,\"args\":{\"correlation\":11}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernelExC\",\"pid\":100,\"tid\":101,"
" \"ts\":1100,\"dur\":3,\"args\":{\"correlation\":12}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"flash_fwd\",\"pid\":0,\"tid\":20,\"ts\":1104,\"dur\":50,"
" \"args\":{\"device\":0,\"stream\":20,\"correlation\":12,\"registers per thread\":128,"
" \"shared memory\":100000,\"grid\":[4,8,2],\"block\":[128,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pinned -> Device)\",\"pid\":0,\"tid\":7,"
" \"ts\":1210,\"dur\":5,\"args\":{\"device\":0,\"stream\":7,\"correlation\":13,\"bytes\":4096}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":100,\"tid\":100,"
" \"ts\":1200,\"dur\":6,\"args\":{\"correlation\":13}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemsetAsync\",\"pid\":100,\"tid\":100,"
" \"ts\":1250,\"dur\":2,\"args\":{\"correlation\":14}},\n"
"{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset (Device)\",\"pid\":0,\"tid\":7,\"ts\":1260,"
" \"dur\":1,\"args\":{\"device\":0,\"stream\":7,\"correlation\":14,\"bytes\":512}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamSynchronize\",\"pid\":100,\"tid\":100,"
" \"ts\":1300,\"dur\":50,\"args\":{\"correlation\":15}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Sync\",\"pid\":0,\"tid\":7,\"ts\":1301,\"dur\":48,"
" \"args\":{\"device\":0,\"stream\":7,\"correlation\":15,\"cuda_sync_kind\":\"Stream Sync\"}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaGraphLaunch\",\"pid\":100,\"tid\":100,"
" \"ts\":1600,\"dur\":10,\"args\":{\"correlation\":16}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)\","
" \"pid\":0,\"tid\":7,\"ts\":1620,\"dur\":30,\"args\":{\"device\":0,\"stream\":7,\"correlation\":16,"
" \"registers per thread\":96,\"shared memory\":0,\"grid\":[2,1,1],\"block\":[512,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void gemm_kernel<float>(int)\",\"pid\":0,\"tid\":7,"
" \"ts\":1612,\"dur\":5,\"args\":{\"device\":0,\"stream\":7,\"correlation\":16,"
" \"registers per thread\":64,\"shared memory\":16384,\"grid\":[80,2,1],\"block\":[256,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"other_dev\",\"pid\":1,\"tid\":7,\"ts\":1700,\"dur\":3,"
" \"args\":{\"device\":1,\"stream\":7,\"correlation\":17,\"registers per thread\":8,"
" \"shared memory\":0,\"grid\":[1,1,1],\"block\":[32,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"orphan\",\"pid\":0,\"tid\":7,\"ts\":2000.0006,\"dur\":1,"
" \"args\":{\"device\":0,\"stream\":7,\"correlation\":99,\"registers per thread\":16,"
" \"shared memory\":0,\"grid\":[1,1,1],\"block\":[64,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaDeviceSynchronize\",\"pid\":100,\"tid\":100,"
" \"ts\":1950,\"dur\":60,\"args\":{\"correlation\":18}},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":100,\"tid\":100,\"ts\":1004,\"dur\":10,"
" \"args\":{\"Input Dims\":[[2,3],[3,4]],\"Input type\":[\"float\",\"float\"],\"flag\":true,\"none\":null,"
" \"Input Strides\":[[3,1],[4,1]]}},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::baddbmm\",\"pid\":100,\"tid\":101,\"ts\":1099,\"dur\":5,"
" \"args\":{\"Input Dims\":[[4,8,16],[4,8,32],[4,32,16],[],[]],"
" \"Input Strides\":[[128,16,1],[256,32,1],[512,1,32],[],[]],"
" \"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":100,\"tid\":100,\"ts\":1599,\"dur\":20,"
" \"args\":{\"Input Dims\":[[2,3,4],[4,5]],\"Input type\":[\"float\",\"float\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::addmm\",\"pid\":100,\"tid\":100,\"ts\":1199,\"dur\":60,"
" \"args\":{\"Input Dims\":[[4],[2,3],[3,4]],\"Input type\":[\"float\",\"float\",\"float\"]}},\n"
"{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":11,\"pid\":100,\"tid\":100,\"ts\":1005},\n"
"{\"name\":\"process_name\",\"ph\":\"M\",\"ts\":0,\"pid\":100,\"tid\":0,\"args\":{\"name\":\"python\"}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaEventQuery\",\"pid\":100,\"tid\":100,"
" \"ts\":1400,\"dur\":1,\"args\":{\"correlation\":19}}\n"
"],\n"
"\"deviceProperties\": [{\"id\":0,\"name\":\"Tesla V100-SXM2-16GB\",\"computeMajor\":7,"
" \"computeMinor\":0,\"numSms\":80,\"totalGlobalMem\":16945512448,\"regsPerMultiprocessor\":65536,"
" \"sharedMemPerMultiprocessor\":98304,\"sharedMemPerBlockOptin\":98304,"
" \"maxThreadsPerMultiprocessor\":2048},"
" {\"id\":1,\"name\":\"Tesla V100-SXM2-16GB\",\"computeMajor\":7,\"computeMinor\":0,\"numSms\":80}],\n"
"\"baseTimeNanoseconds\": 1700000000000000000}\n";

/* What the fixture must become, worked out by hand: times are the
 * microseconds above times 1000; records in CPU launch order, the two
 * kernels of the graph launch (same CPU time) by GPU start; the kernel of
 * device 1 skipped; the orphan kernel (no launch call) placed by its GPU
 * start with no CPU time and no iteration (2000.0006 us rounds to
 * 2000001 ns); "late", launched at 2990 us
 * after the last step ended (1500 + 1200), left out; flash_fwd's 100000
 * bytes of shared memory exceed 48 KB, so they are dynamic. */
static const char *const kineto_expected[] = {
	"M 1 it=7 cpu=1000000 th=100 name=ProfilerStep#7",
	/* aten::mm of 2 x 3 by 3 x 4 around the launch at 1005.125 us: cuBLAS
	 * sees m = 4, n = 2, k = 3 */
	"G 2 imported m=4 n=2 k=3 batch=1 f32/f32 stream=7 th=100 cpu=1004000",
	"K 3 void gemm_kernel<float>(int) grid=80,2,1 block=256,1,1 regs=64 smem=16384+0 "
		"stream=7 th=100 flags=0 cpu=1005125 gpu=1010500-1030750 it=7 lib=2",
	/* aten::baddbmm (thread 101) of 4 x 8 x 32 by 4 x 32 x 16, bf16; its
	 * B's strides (512, 1, 32) make it a transposed view: cuBLAS's A is
	 * transposed (the mm's contiguous B is not) */
	"G 4 imported m=16 n=8 k=32 batch=4 bf16/f32 stream=20 th=101 cpu=1099000 ta=1",
	"K 5 flash_fwd grid=4,8,2 block=128,1,1 regs=128 smem=0+100000 "
		"stream=20 th=101 flags=16 cpu=1100000 gpu=1104000-1154000 it=7 lib=4",
	/* the addmm around the copy and the set launches no kernel: no G */
	"C6 6 kind=1 bytes=4096 async=1 stream=7 th=100 cpu=1200000-1206000 gpu=1210000-1215000 "
		"host=pinned",
	"C7 7 kind=0 bytes=512 async=1 stream=7 th=100 cpu=1250000-1252000 gpu=1260000-1261000",
	"Y 8 kind=1 stream=7 th=100 cpu=1300000-1350000",
	"M 9 it=8 cpu=1500000 th=100 name=ProfilerStep#8",
	/* the mm around the graph launch has a 3-d input: not a GEMM shape */
	"K 10 void gemm_kernel<float>(int) grid=80,2,1 block=256,1,1 regs=64 smem=16384+0 "
		"stream=7 th=100 flags=2 cpu=1600000 gpu=1612000-1617000 it=8",
	"K 11 ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*) grid=2,1,1 block=512,1,1 "
		"regs=96 smem=0+0 stream=7 th=100 flags=2 cpu=1600000 gpu=1620000-1650000 it=8",
	"Y 12 kind=0 stream=0 th=100 cpu=1950000-2010000",
	"K 13 orphan grid=1,1,1 block=64,1,1 regs=16 smem=0+0 stream=7 th=0 flags=0 cpu=0 "
		"gpu=2000001-2001001 it=-1",
	NULL
};

/* Reads a trace back as one line per record (the fields the importer
 * sets), so whole traces compare as text.  Returns the number of lines. */
static size_t dump(const char *path, char lines[][320], size_t max, struct trace_header *hdr)
{
	struct trace_reader *r;
	char err[256];
	int rc = trace_reader_open(&r, path, err, sizeof(err));
	ck_assert_msg(rc == 0, "open %s: %s", path, err);
	if (hdr)
		*hdr = *trace_reader_header(r);
	struct trace_record rec;
	size_t n = 0;
	while ((rc = trace_reader_next(r, &rec, err, sizeof(err))) == 1) {
		ck_assert_uint_lt(n, max);
		char *l = lines[n++];
		switch (rec.type) {
		case TRACE_KERNEL: {
			const struct trace_kernel *k = &rec.u.kernel;
			snprintf(l, 320, "K %llu %s grid=%u,%u,%u block=%u,%u,%u regs=%u smem=%u+%u "
				 "stream=%llu th=%u flags=%u cpu=%llu gpu=%llu-%llu it=%d",
				 (unsigned long long)k->seq, trace_reader_string(r, k->name, NULL),
				 k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2],
				 k->regs, k->static_smem, k->dyn_smem, (unsigned long long)k->stream,
				 k->thread, k->flags, (unsigned long long)k->cpu_ns,
				 (unsigned long long)k->start_ns, (unsigned long long)k->end_ns,
				 k->iteration);
			if (k->lib_call) {
				size_t used = strlen(l);
				snprintf(l + used, 320 - used, " lib=%llu", (unsigned long long)k->lib_call);
			}
			break;
		}
		case TRACE_GEMM: {
			const struct trace_gemm *g = &rec.u.gemm;
			snprintf(l, 320, "G %llu %s m=%llu n=%llu k=%llu batch=%llu %s/%s stream=%llu "
				 "th=%u cpu=%llu%s", (unsigned long long)g->seq, trace_gemm_api_name(g->api),
				 (unsigned long long)g->m, (unsigned long long)g->n,
				 (unsigned long long)g->k, (unsigned long long)g->batch,
				 trace_dtype_name(g->a_type), trace_dtype_name(g->compute_type),
				 (unsigned long long)g->stream, g->thread, (unsigned long long)g->cpu_ns,
				 g->trans_a ? " ta=1" : "");
			break;
		}
		case TRACE_CONV: {
			const struct trace_conv *c = &rec.u.conv;
			snprintf(l, 320, "V %llu %s dir=%d nd=%u in=%lld,%lld,%lld,%lld "
				 "filt=%lld,%lld,%lld,%lld out=%lld,%lld,%lld,%lld stride=%lld,%lld "
				 "pad=%lld,%lld dil=%lld,%lld groups=%u %s/%s stream=%llu th=%u cpu=%llu",
				 (unsigned long long)c->seq, trace_conv_api_name(c->api), (int)c->dir,
				 c->nbdims, (long long)c->in[0], (long long)c->in[1],
				 (long long)c->in[2], (long long)c->in[3], (long long)c->filt[0],
				 (long long)c->filt[1], (long long)c->filt[2], (long long)c->filt[3],
				 (long long)c->out[0], (long long)c->out[1], (long long)c->out[2],
				 (long long)c->out[3], (long long)c->stride[0], (long long)c->stride[1],
				 (long long)c->pad[0], (long long)c->pad[1], (long long)c->dilation[0],
				 (long long)c->dilation[1], c->groups, trace_dtype_name(c->dtype),
				 trace_dtype_name(c->compute_type), (unsigned long long)c->stream,
				 c->thread, (unsigned long long)c->cpu_ns);
			break;
		}
		case TRACE_MEMCPY:
		case TRACE_MEMSET: {
			const struct trace_copy *c = &rec.u.copy;
			snprintf(l, 320, "C%d %llu kind=%d bytes=%llu async=%u stream=%llu th=%u "
				 "cpu=%llu-%llu gpu=%llu-%llu", (int)rec.type,
				 (unsigned long long)c->seq, (int)c->kind, (unsigned long long)c->bytes,
				 c->async, (unsigned long long)c->stream, c->thread,
				 (unsigned long long)c->cpu_ns, (unsigned long long)c->cpu_end_ns,
				 (unsigned long long)c->start_ns, (unsigned long long)c->end_ns);
			if (c->host_mem) {
				size_t used = strlen(l);
				snprintf(l + used, 320 - used, " host=%s", trace_host_mem_name(c->host_mem));
			}
			break;
		}
		case TRACE_SYNC: {
			const struct trace_sync *y = &rec.u.sync;
			snprintf(l, 320, "Y %llu kind=%d stream=%llu th=%u cpu=%llu-%llu",
				 (unsigned long long)y->seq, (int)y->kind, (unsigned long long)y->stream,
				 y->thread, (unsigned long long)y->cpu_ns, (unsigned long long)y->cpu_end_ns);
			if (y->event) {
				size_t used = strlen(l);
				snprintf(l + used, 320 - used, " event=%llu", (unsigned long long)y->event);
			}
			break;
		}
		case TRACE_OP: {
			const struct trace_op *o = &rec.u.op;
			const struct trace_attn *a = &o->attn;
			if (o->kind == TRACE_OPK_ATTENTION) {
				snprintf(l, 320, "A %llu %s bwd=%u causal=%u seqs=%u heads=%u/%u d=%u/%u "
					 "q=%llu kv=%llu max=%llu pairs=%.0f flops=%.0f bytes=%.0f %s "
					 "stream=%llu th=%u cpu=%llu", (unsigned long long)o->seq,
					 trace_attn_impl_name(a->impl), a->backward, a->causal, a->seqs,
					 a->heads, a->kv_heads, a->head_dim, a->head_dim_v,
					 (unsigned long long)a->q_tokens, (unsigned long long)a->kv_tokens,
					 (unsigned long long)a->max_kv, a->pairs, o->flops, o->bytes,
					 trace_dtype_name(o->dtype), (unsigned long long)o->stream, o->thread,
					 (unsigned long long)o->cpu_ns);
				if (a->bias_heads) {
					size_t used = strlen(l);
					snprintf(l + used, 320 - used, " bias=%u", a->bias_heads);
				}
				if (a->window) {
					size_t used = strlen(l);
					snprintf(l + used, 320 - used, " window=%llu",
						 (unsigned long long)a->window);
				}
				break;
			}
			if (o->kind == TRACE_OPK_NORM || o->kind == TRACE_OPK_SOFTMAX) {
				snprintf(l, 320, "R %llu %s rows=%llu cols=%llu flops=%.0f bytes=%.0f %s "
					 "stream=%llu th=%u cpu=%llu", (unsigned long long)o->seq,
					 trace_op_kind_name(o->kind), (unsigned long long)o->m,
					 (unsigned long long)o->n, o->flops, o->bytes,
					 trace_dtype_name(o->dtype), (unsigned long long)o->stream,
					 o->thread, (unsigned long long)o->cpu_ns);
				break;
			}
			snprintf(l, 320, "O %llu %s bytes=%.0f ranks=%u rank=%d %s stream=%llu th=%u cpu=%llu",
				 (unsigned long long)o->seq, trace_collective_name(o->collective), o->bytes,
				 o->ranks, o->rank, trace_dtype_name(o->dtype),
				 (unsigned long long)o->stream, o->thread, (unsigned long long)o->cpu_ns);
			break;
		}
		case TRACE_MARKER: {
			const struct trace_marker *m = &rec.u.marker;
			const char *name = trace_reader_string(r, m->name, NULL);
			snprintf(l, 320, "M %llu it=%d cpu=%llu th=%u name=%s kind=%d",
				 (unsigned long long)m->seq, m->iteration, (unsigned long long)m->cpu_ns,
				 m->thread, name ? name : "", (int)m->kind);
			/* every marker the importer writes is an iteration boundary */
			ck_assert_int_eq(m->kind, TRACE_MARK_ITERATION);
			*strstr(l, " kind=") = '\0';
			break;
		}
		default:
			snprintf(l, 320, "? type %d", (int)rec.type);
		}
	}
	ck_assert_msg(rc == 0, "read %s: %s", path, err);
	/* the trailer's counts agree with what was read */
	ck_assert_uint_eq(rec.type, TRACE_TRAILER);
	trace_reader_free(r);
	return n;
}

static void check_lines(const char *path, const char *const *want, struct trace_header *hdr)
{
	static char got[64][320];
	size_t n = dump(path, got, 64, hdr);
	size_t nwant = 0;
	while (want[nwant])
		nwant++;
	for (size_t i = 0; i < n && i < nwant; i++)
		ck_assert_str_eq(got[i], want[i]);
	ck_assert_uint_eq(n, nwant);
}

static int import_kineto(const char *in, const char *out, const char *origin,
			 struct import_stats *st, char *err, size_t errlen)
{
	struct import_set set;
	struct import_opts opts = { origin, -1 };
	import_set_init(&set);
	int rc = import_kineto_read(&set, in, NULL, NULL, err, errlen);
	if (rc == 0)
		rc = import_finish(&set, &opts, out, st, err, errlen);
	import_set_release(&set);
	return rc;
}

/* Writes json to STEM.json, imports it into STEM.mp (returned: a tmp()
 * path) and checks the trace's records against want; the import's counts
 * into *st, the header into *h (NULL: not kept). */
static const char *import_checked(const char *stem, const char *json, const char *const *want,
				  struct import_stats *st, struct trace_header *h)
{
	char name[64];
	snprintf(name, sizeof(name), "%s.json", stem);
	const char *in = tmp(name);
	snprintf(name, sizeof(name), "%s.mp", stem);
	const char *out = tmp(name);
	write_file(in, json);
	char err[2048] = "";
	int rc = import_kineto(in, out, NULL, st, err, sizeof(err));
	ck_assert_msg(rc == 0, "import: %s", err);
	check_lines(out, want, h);
	return out;
}

START_TEST(kineto_plain)
{
	struct import_stats st;
	struct trace_header h;
	import_checked("k", kineto_json, kineto_expected, &st, &h);
	ck_assert_uint_eq(st.kernels, 5);
	ck_assert_uint_eq(st.memcpys, 1);
	ck_assert_uint_eq(st.memsets, 1);
	ck_assert_uint_eq(st.syncs, 2);
	ck_assert_uint_eq(st.markers, 2);
	ck_assert_uint_eq(st.gemms, 2);       /* the mm and the baddbmm */
	ck_assert_uint_eq(st.skipped, 1);     /* other_dev */
	ck_assert_uint_eq(st.unmatched, 1);   /* orphan */
	ck_assert_uint_eq(st.after, 1);       /* late */
	ck_assert_uint_eq(st.after_kernels, 1);
	ck_assert_int_eq(st.device, 0);
	/* the header: the device as deviceProperties gave it */
	ck_assert_str_eq(h.device.name, "Tesla V100-SXM2-16GB");
	ck_assert_uint_eq(h.device.sm_count, 80);
	ck_assert_uint_eq(h.device.cc_major, 7);
	ck_assert_uint_eq(h.device.cc_minor, 0);
	ck_assert_uint_eq(h.device.mem_bytes, 16945512448ull);
	ck_assert_uint_eq(h.device.regs_per_sm, 65536);
	ck_assert_uint_eq(h.device.smem_per_sm, 98304);
	ck_assert_uint_eq(h.device.smem_per_block_optin, 98304);
	ck_assert_uint_eq(h.device.max_threads_per_sm, 2048);
	ck_assert_int_eq(h.timing, TRACE_TIMING_IMPORTED);
	/* base 1.7e18 ns plus the first record, ProfilerStep#7 at 1000 us */
	ck_assert_uint_eq(h.start_unix_ns, 1700000000001000000ull);
	ck_assert_ptr_nonnull(strstr(h.cmdline, "kineto"));
}
END_TEST

START_TEST(kineto_gzip_same)
{
	const char *in = tmp("k.json.gz"), *out = tmp("kgz.mp");
	write_gz(in, kineto_json);
	char err[512] = "";
	int rc = import_kineto(in, out, NULL, NULL, err, sizeof(err));
	ck_assert_msg(rc == 0, "import: %s", err);
	check_lines(out, kineto_expected, NULL);
}
END_TEST

START_TEST(kineto_device_choice)
{
	/* --device 1 keeps only other_dev, launched by no call in the trace */
	const char *in = tmp("k.json"), *out = tmp("k1.mp");
	write_file(in, kineto_json);
	struct import_set set;
	struct import_opts opts = { NULL, 1 };
	struct import_stats st;
	char err[512] = "";
	import_set_init(&set);
	ck_assert_int_eq(import_kineto_read(&set, in, NULL, NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(import_finish(&set, &opts, out, &st, err, sizeof(err)), 0);
	import_set_release(&set);
	ck_assert_uint_eq(st.kernels, 1);
	ck_assert_uint_eq(st.memcpys, 0);
	/* device 0's 6 kernels, copy, set, and the stream sync whose GPU side
	 * (cuda_sync) ran on device 0 */
	ck_assert_uint_eq(st.skipped, 9);
	ck_assert_int_eq(st.device, 1);
}
END_TEST

START_TEST(kineto_origin_override)
{
	/* an A100 board name the database does not know: an error that
	 * suggests --origin; with --origin the header names the database GPU */
	const char *in = tmp("a.json"), *out = tmp("a.mp");
	write_file(in, "{\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA A100-ZZ999-000\","
		   "\"numSms\":108,\"computeMajor\":8,\"computeMinor\":0}],\"traceEvents\":["
		   "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":5,\"dur\":1,"
		   "\"args\":{\"device\":0,\"grid\":[1,1,1],\"block\":[32,1,1]}}]}");
	char err[512] = "";
	int rc = import_kineto(in, out, NULL, NULL, err, sizeof(err));
	ck_assert_int_eq(rc, SURFER_EDEVICE);
	ck_assert_ptr_nonnull(strstr(err, "NVIDIA A100-ZZ999-000"));
	ck_assert_ptr_nonnull(strstr(err, "--origin"));
	ck_assert_int_eq(access(out, F_OK), -1);
	rc = import_kineto(in, out, "a100", NULL, err, sizeof(err));
	ck_assert_msg(rc == 0, "import: %s", err);
	struct trace_header h;
	static char lines[4][320];
	ck_assert_uint_eq(dump(out, lines, 4, &h), 1);
	const struct gpu_spec *g = gpu_find("a100");
	ck_assert_ptr_nonnull(g);
	ck_assert_str_eq(h.device.name, g->name);
	ck_assert_ptr_eq(gpu_find(h.device.name), g);
	ck_assert_uint_eq(h.device.sm_count, 108);
	ck_assert_ptr_nonnull(strstr(h.timing_note, "A100-ZZ999-000"));
	/* an --origin the database does not know either */
	rc = import_kineto(in, out, "a100-pg509", NULL, err, sizeof(err));
	ck_assert_int_eq(rc, SURFER_EDEVICE);
	ck_assert_ptr_nonnull(strstr(err, "a100-pg509"));
}
END_TEST

START_TEST(kineto_bad_values)
{
	/* a kernel with a zero grid cannot have run: dropped and counted;
	 * a negative ts is a format error */
	const char *in = tmp("b.json"), *out = tmp("b.mp");
	write_file(in, "{\"deviceProperties\":[{\"id\":0,\"name\":\"Tesla V100-SXM2-16GB\"}],"
		   "\"traceEvents\":["
		   "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ok\",\"ts\":5,\"dur\":1,"
		   "\"args\":{\"device\":0,\"grid\":[1,1,1],\"block\":[32,1,1]}},"
		   "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"zero\",\"ts\":6,\"dur\":1,"
		   "\"args\":{\"device\":0,\"grid\":[0,1,1],\"block\":[32,1,1]}}]}");
	struct import_stats st;
	char err[512] = "";
	ck_assert_int_eq(import_kineto(in, out, NULL, &st, err, sizeof(err)), 0);
	ck_assert_uint_eq(st.kernels, 1);
	ck_assert_uint_eq(st.invalid, 1);
	static const char neg[] = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\","
				  "\"ts\":-5,\"dur\":1,\"args\":{}}]}";
	write_file(in, neg);
	ck_assert_int_eq(import_kineto(in, out, NULL, NULL, err, sizeof(err)), SURFER_ECORRUPT);
	ck_assert_ptr_nonnull(strstr(err, "ts"));
	/* the error says where: at the value, not at the start of its chunk */
	const char *at = strstr(err, "near byte ");
	ck_assert_ptr_nonnull(at);
	long byte = strtol(at + 10, NULL, 10), value = (long)(strstr(neg, "-5") - neg);
	ck_assert_msg(byte >= value && byte <= value + 2, "'%s': the value is at byte %ld", err, value);
}
END_TEST

START_TEST(kineto_step_option)
{
	/* --step names the ranges; unnumbered ones count from 0, a nested one
	 * of the same name is no new iteration, work after the last is left
	 * out */
	const char *in = tmp("s.json"), *out = tmp("s.mp");
	write_file(in, "{\"deviceProperties\":[{\"id\":0,\"name\":\"Tesla V100-SXM2-16GB\"}],"
		   "\"traceEvents\":["
		   "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"train_step\",\"tid\":1,"
		   "\"ts\":100,\"dur\":100},"
		   "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"train_step\",\"tid\":1,"
		   "\"ts\":110,\"dur\":10},"
		   "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"train_step\",\"tid\":1,"
		   "\"ts\":200,\"dur\":100},"
		   "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"train_step_x\",\"tid\":1,"
		   "\"ts\":250,\"dur\":10},"
		   "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"tid\":1,"
		   "\"ts\":150,\"dur\":1,\"args\":{\"correlation\":1}},"
		   "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"tid\":1,"
		   "\"ts\":250,\"dur\":1,\"args\":{\"correlation\":2}},"
		   "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"tid\":1,"
		   "\"ts\":350,\"dur\":1,\"args\":{\"correlation\":3}},"
		   "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"ts\":152,\"dur\":1,"
		   "\"args\":{\"device\":0,\"correlation\":1,\"grid\":[1,1,1],\"block\":[32,1,1]}},"
		   "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"ts\":252,\"dur\":1,"
		   "\"args\":{\"device\":0,\"correlation\":2,\"grid\":[1,1,1],\"block\":[32,1,1]}},"
		   "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"c\",\"ts\":352,\"dur\":1,"
		   "\"args\":{\"device\":0,\"correlation\":3,\"grid\":[1,1,1],\"block\":[32,1,1]}}]}");
	static const char *const want[] = {
		"M 1 it=0 cpu=100000 th=1 name=train_step",
		"K 2 a grid=1,1,1 block=32,1,1 regs=0 smem=0+0 stream=0 th=1 flags=0 "
			"cpu=150000 gpu=152000-153000 it=0",
		"M 3 it=1 cpu=200000 th=1 name=train_step",
		"K 4 b grid=1,1,1 block=32,1,1 regs=0 smem=0+0 stream=0 th=1 flags=0 "
			"cpu=250000 gpu=252000-253000 it=1",
		NULL
	};
	struct import_set set;
	struct import_opts opts = { NULL, -1 };
	struct import_stats st;
	char err[512] = "";
	import_set_init(&set);
	set.step = "train_step";
	ck_assert_int_eq(import_kineto_read(&set, in, NULL, NULL, err, sizeof(err)), 0);
	ck_assert_msg(import_finish(&set, &opts, out, &st, err, sizeof(err)) == 0, "%s", err);
	import_set_release(&set);
	check_lines(out, want, NULL);
	ck_assert_uint_eq(st.nested, 1);
	ck_assert_uint_eq(st.after, 1);
	/* without --step there are no iterations and nothing is left out */
	ck_assert_int_eq(import_kineto(in, out, NULL, &st, err, sizeof(err)), 0);
	ck_assert_uint_eq(st.markers, 0);
	ck_assert_uint_eq(st.kernels, 3);
	ck_assert_uint_eq(st.after, 0);
}
END_TEST

/* A GPU-bound step in Kineto's form, ended by `.item()`: ProfilerStep#N
 * ranges of 20 launches of a 200 us elementwise kernel, then a
 * cudaMemcpyAsync whose "Memcpy DtoH (Device -> Pageable)" activity runs
 * after the last kernel and whose call returns 10 us after it.  Written
 * with "Pageable" in the activity's name and with "Host" (no memory kind:
 * the call's end after the copy's tells). */
static void write_item_step(const char *path, const char *host, int cpu_end_after)
{
	FILE *f = fopen(path, "w");
	uint64_t cpu = 1000, gpu_end = 0;   /* us */
	unsigned corr = 1;

	ck_assert_ptr_nonnull(f);
	fprintf(f, "{\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA A100-SXM4-40GB\"}],"
		"\"traceEvents\":[");
	for (int it = 0; it < 4; it++) {
		uint64_t step0 = cpu;
		for (int k = 0; k < 20; k++, corr++) {
			uint64_t start = cpu + 5 > gpu_end ? cpu + 5 : gpu_end + 2;
			gpu_end = start + 200;
			fprintf(f, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
				"\"tid\":1,\"ts\":%llu,\"dur\":4,\"args\":{\"correlation\":%u}},"
				"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void at::native::"
				"vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>(int, float*, "
				"float*)\",\"ts\":%llu,\"dur\":200,\"args\":{\"device\":0,\"stream\":7,"
				"\"correlation\":%u,\"grid\":[8192,1,1],\"block\":[128,1,1]}},",
				(unsigned long long)cpu, corr, (unsigned long long)start, corr);
			cpu += 8;
		}
		uint64_t cstart = gpu_end + 2, cend = cstart + 2;
		uint64_t ret = cpu_end_after ? cend + 10 : cpu + 6;
		fprintf(f, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\","
			"\"tid\":1,\"ts\":%llu,\"dur\":%llu,\"args\":{\"correlation\":%u}},"
			"{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy DtoH (Device -> %s)\","
			"\"ts\":%llu,\"dur\":2,\"args\":{\"device\":0,\"stream\":7,\"correlation\":%u,"
			"\"bytes\":8}},", (unsigned long long)cpu, (unsigned long long)(ret - cpu), corr,
			host, (unsigned long long)cstart, corr);
		corr++;
		cpu = cend + 10 + 20;
		fprintf(f, "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\","
			"\"tid\":1,\"ts\":%llu,\"dur\":%llu}%s", it, (unsigned long long)step0,
			(unsigned long long)(cpu - step0 - 1), it < 3 ? "," : "");
	}
	fprintf(f, "]}");
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(kineto_item_blocks)
{
	static const struct { const char *host; int cpu_end_after; } cases[] = {
		{ "Pageable", 1 }, { "Host", 1 },
	};
	const char *in = tmp("item.json"), *out = tmp("item.mp");
	const struct gpu_spec *targets[2] = { gpu_find("h100-sxm"), gpu_find("t4") };
	struct analysis_options o = { .targets = targets, .ntargets = 2, .method = PRED_WAVE };
	char err[512] = "";

	write_item_step(in, cases[_i].host, cases[_i].cpu_end_after);
	ck_assert_msg(import_kineto(in, out, NULL, NULL, err, sizeof(err)) == 0, "%s", err);
	struct analysis *a = NULL;
	ck_assert_msg(analysis_run(out, &o, &a, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(a->iterations, 4);
	for (int t = 0; t < 2; t++) {
		const struct analysis_target *at = &a->targets[t];
		double kr = at->kernel_ns / a->measured_kernel_ns;
		double ir = at->iteration_ns / a->measured_ns;

		/* the step follows its kernels: about 2x faster on the H100 */
		ck_assert_msg(fabs(ir / kr - 1) < 0.05, "case %d on %s: kernels x%.3f, step x%.3f",
			      _i, at->gpu->id, kr, ir);
	}
	ck_assert(a->targets[0].kernel_ns < 0.6 * a->measured_kernel_ns);
	ck_assert(a->targets[1].kernel_ns > 1.5 * a->measured_kernel_ns);
	analysis_free(a);
}
END_TEST

START_TEST(step_names)
{
	int64_t n;
	ck_assert_int_eq(import_step_match(NULL, "ProfilerStep#12", 15, &n), 1);
	ck_assert_int_eq(n, 12);
	ck_assert_int_eq(import_step_match(NULL, "ProfilerStep", 12, &n), 1);
	ck_assert_int_eq(n, -1);
	ck_assert_int_eq(import_step_match(NULL, "ProfilerStep#", 13, &n), 0);
	ck_assert_int_eq(import_step_match(NULL, "ProfilerStep#1a", 15, &n), 0);
	ck_assert_int_eq(import_step_match(NULL, "ProfilerStepX", 13, &n), 0);
	ck_assert_int_eq(import_step_match(NULL, "Profiler", 8, &n), 0);
	ck_assert_int_eq(import_step_match(NULL, "ProfilerStep#12345678901", 24, &n), 0);
	ck_assert_int_eq(import_step_match("step", "step#3", 6, &n), 1);
	ck_assert_int_eq(n, 3);
}
END_TEST

/* ---- the program: exit status and messages --------------------------- */

static const char *build_dir(void)
{
	const char *b = getenv("BUILD");
	return b && *b ? b : "build";
}

/* Runs surfer-import with args; returns its exit status and its stderr
 * in err. */
static int run_import(const char *args, char *err, size_t errlen)
{
	char cmd[2048], errf[256];
	snprintf(errf, sizeof(errf), "%s/stderr.txt", tmpdir);
	snprintf(cmd, sizeof(cmd), "%s/surfer-import %s >/dev/null 2>%s", build_dir(), args, errf);
	int st = system(cmd);
	ck_assert_int_ne(st, -1);
	ck_assert(WIFEXITED(st));
	FILE *f = fopen(errf, "r");
	ck_assert_ptr_nonnull(f);
	size_t n = fread(err, 1, errlen - 1, f);
	err[n] = '\0';
	fclose(f);
	return WEXITSTATUS(st);
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

START_TEST(program_errors)
{
	char err[2048], args[1024];
	const char *out = tmp("o.mp");

	/* missing input: exit 2, one line naming the file */
	snprintf(args, sizeof(args), "kineto %s -o %s", tmp("missing.json"), out);
	ck_assert_int_eq(run_import(args, err, sizeof(err)), 2);
	ck_assert_int_eq(count_lines(err), 1);
	ck_assert_ptr_nonnull(strstr(err, "surfer-import: cannot open"));
	ck_assert_ptr_nonnull(strstr(err, "missing.json"));

	/* unknown device: exit 2 with a suggestion and --origin */
	const char *in = tmp("u.json");
	write_file(in, "{\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA A100-ZZ999-000\"}],"
		   "\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":5,"
		   "\"dur\":1,\"args\":{\"device\":0,\"grid\":[1,1,1],\"block\":[32,1,1]}}]}");
	snprintf(args, sizeof(args), "kineto %s -o %s", in, out);
	ck_assert_int_eq(run_import(args, err, sizeof(err)), 2);
	ck_assert_int_eq(count_lines(err), 1);
	ck_assert_ptr_nonnull(strstr(err, "--origin"));
	ck_assert_ptr_nonnull(strstr(err, "closest known: "));
	ck_assert_int_eq(access(out, F_OK), -1);
	snprintf(args, sizeof(args), "kineto %s -o %s --origin a100-sxm4-40", in, out);
	ck_assert_int_eq(run_import(args, err, sizeof(err)), 0);
	ck_assert_int_eq(access(out, F_OK), 0);
	unlink(out);

	/* --step naming no range: exit 2, one line naming the steps the
	 * trace has, no output; a trace without numbered ranges says so */
	const char *steps = tmp("steps.json");
	write_item_step(steps, "Pageable", 1);
	snprintf(args, sizeof(args), "kineto %s -o %s --step Foo", steps, out);
	ck_assert_int_eq(run_import(args, err, sizeof(err)), 2);
	ck_assert_int_eq(count_lines(err), 1);
	ck_assert_ptr_nonnull(strstr(err, "no range named 'Foo'"));
	ck_assert_ptr_nonnull(strstr(err, "its steps: ProfilerStep#N (4)"));
	ck_assert_int_eq(access(out, F_OK), -1);
	snprintf(args, sizeof(args), "kineto %s -o %s --step ProfilerStep", steps, out);
	ck_assert_int_eq(run_import(args, err, sizeof(err)), 0);
	unlink(out);
	snprintf(args, sizeof(args), "kineto %s -o %s --origin a100-sxm4-40 --step train", in, out);
	ck_assert_int_eq(run_import(args, err, sizeof(err)), 2);
	ck_assert_int_eq(count_lines(err), 1);
	ck_assert_ptr_nonnull(strstr(err, "no numbered ranges"));
	ck_assert_int_eq(access(out, F_OK), -1);
	/* without --step it imports, and says the whole trace is one iteration */
	snprintf(args, sizeof(args), "kineto %s -o %s --origin a100-sxm4-40", in, out);
	ck_assert_int_eq(run_import(args, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "no ProfilerStep#N ranges"));
	unlink(out);

	/* corrupt JSON (cut short, then garbage): exit 2, no output left */
	const char *bad = tmp("bad.json");
	char cut[256];
	snprintf(cut, sizeof(cut), "%.200s", kineto_json);
	write_file(bad, cut);
	snprintf(args, sizeof(args), "kineto %s -o %s", bad, out);
	ck_assert_int_eq(run_import(args, err, sizeof(err)), 2);
	ck_assert_int_eq(count_lines(err), 1);
	ck_assert_ptr_nonnull(strstr(err, "invalid JSON"));
	ck_assert_int_eq(access(out, F_OK), -1);
	write_file(bad, "{\"traceEvents\": [ {\"ph\": \"X\" ,, ] }");
	ck_assert_int_eq(run_import(args, err, sizeof(err)), 2);
	ck_assert_int_eq(count_lines(err), 1);

	/* valid JSON that is not a Kineto trace */
	write_file(bad, "[1, 2, 3]");
	ck_assert_int_eq(run_import(args, err, sizeof(err)), 2);
	ck_assert_ptr_nonnull(strstr(err, "traceEvents"));

	/* a gzip file cut short */
	const char *gz = tmp("cut.json.gz");
	write_gz(gz, kineto_json);
	ck_assert_int_eq(truncate(gz, 300), 0);
	snprintf(args, sizeof(args), "kineto %s -o %s", gz, out);
	ck_assert_int_eq(run_import(args, err, sizeof(err)), 2);
	ck_assert_int_eq(count_lines(err), 1);
	ck_assert_int_eq(access(out, F_OK), -1);

	/* usage errors */
	ck_assert_int_eq(run_import("kineto", err, sizeof(err)), 2);
	ck_assert_int_eq(count_lines(err), 1);
	snprintf(args, sizeof(args), "perfetto %s -o %s", in, out);
	ck_assert_int_eq(run_import(args, err, sizeof(err)), 2);
	ck_assert_ptr_nonnull(strstr(err, "perfetto"));
	ck_assert_int_eq(run_import("--version", err, sizeof(err)), 0);

	/* no format word: JSON and gzip are Kineto's (JSON that is not a
	 * trace, and the cut gzip, get the Kineto reader's errors), anything
	 * else is refused naming both formats, a missing file says so; none
	 * leaves an output */
	snprintf(args, sizeof(args), "%s -o %s", bad, out);
	ck_assert_int_eq(run_import(args, err, sizeof(err)), 2);
	ck_assert_int_eq(count_lines(err), 1);
	ck_assert_ptr_nonnull(strstr(err, "traceEvents"));
	snprintf(args, sizeof(args), "%s -o %s", gz, out);
	ck_assert_int_eq(run_import(args, err, sizeof(err)), 2);
	ck_assert_int_eq(count_lines(err), 1);
	ck_assert_ptr_null(strstr(err, "neither"));
	const char *odd = tmp("odd.bin");
	write_file(odd, "MPK\x01 not a profile");
	snprintf(args, sizeof(args), "%s -o %s", odd, out);
	ck_assert_int_eq(run_import(args, err, sizeof(err)), 2);
	ck_assert_int_eq(count_lines(err), 1);
	ck_assert_ptr_nonnull(strstr(err, "neither a torch.profiler trace"));
	ck_assert_ptr_nonnull(strstr(err, "kineto or nsys"));
	snprintf(args, sizeof(args), "%s -o %s", tmp("missing.json"), out);
	ck_assert_int_eq(run_import(args, err, sizeof(err)), 2);
	ck_assert_ptr_nonnull(strstr(err, "cannot open"));
	ck_assert_int_eq(access(out, F_OK), -1);
	const char *good = tmp("good.json");
	write_file(good, kineto_json);
	snprintf(args, sizeof(args), "%s -o %s", good, out);
	ck_assert_int_eq(run_import(args, err, sizeof(err)), 0);
	ck_assert_int_eq(access(out, F_OK), 0);
	unlink(out);

	/* nsys: not a database, and a database without the kernel table */
	snprintf(args, sizeof(args), "nsys %s -o %s", bad, out);
	ck_assert_int_eq(run_import(args, err, sizeof(err)), 2);
	ck_assert_int_eq(count_lines(err), 1);
	snprintf(args, sizeof(args), "nsys %s -o %s", tmp("none.sqlite"), out);
	ck_assert_int_eq(run_import(args, err, sizeof(err)), 2);
	ck_assert_int_eq(count_lines(err), 1);
}
END_TEST

/* ---- events: cudaEventRecord, cudaStreamWaitEvent, cudaEventSynchronize
 * Kineto's cuda_sync of a wait names the record's correlation and stream
 * (wait_on_cuda_event_record_corr_id, wait_on_stream).  GPU activities
 * come before their calls here, as Kineto writes them. */
static const char events_json[] =
"{\"deviceProperties\":[{\"id\":0,\"name\":\"Tesla V100-SXM2-16GB\"}],\"traceEvents\":[\n"
"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"tid\":1,"
" \"ts\":100,\"dur\":1000},\n"
/* a wait on stream 20 for the record (corr 2) on stream 7 */
"{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Wait Event\",\"pid\":0,\"tid\":20,"
" \"ts\":130,\"dur\":1,\"args\":{\"External id\":3,\"cuda_sync_kind\":\"Stream Wait Event\","
" \"wait_on_stream\":7,\"wait_on_cuda_event_record_corr_id\":2,\"wait_on_cuda_event_id\":1,"
" \"stream\":20,\"correlation\":3,\"device\":0,\"context\":1}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"tid\":7,\"ts\":115,\"dur\":20,"
" \"args\":{\"device\":0,\"stream\":7,\"correlation\":1,\"grid\":[1,1,1],\"block\":[32,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"tid\":20,\"ts\":145,\"dur\":5,"
" \"args\":{\"device\":0,\"stream\":20,\"correlation\":4,\"grid\":[1,1,1],\"block\":[32,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"c\",\"tid\":21,\"ts\":160,\"dur\":5,"
" \"args\":{\"device\":0,\"stream\":21,\"correlation\":10,\"grid\":[1,1,1],\"block\":[32,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"tid\":1,\"ts\":110,"
" \"dur\":4,\"args\":{\"correlation\":1}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaEventRecord\",\"tid\":1,\"ts\":120,"
" \"dur\":3,\"args\":{\"correlation\":2}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamWaitEvent\",\"tid\":1,\"ts\":130,"
" \"dur\":2,\"args\":{\"correlation\":3}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"tid\":1,\"ts\":140,"
" \"dur\":4,\"args\":{\"correlation\":4}},\n"
/* stream 21 waits for the same record: no second record */
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamWaitEvent\",\"tid\":1,\"ts\":150,"
" \"dur\":2,\"args\":{\"correlation\":5}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Wait Event\",\"tid\":21,\"ts\":150,"
" \"dur\":1,\"args\":{\"cuda_sync_kind\":\"Stream Wait Event\",\"wait_on_stream\":7,"
" \"wait_on_cuda_event_record_corr_id\":2,\"stream\":21,\"correlation\":5,\"device\":0}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"tid\":1,\"ts\":155,"
" \"dur\":4,\"args\":{\"correlation\":10}},\n"
/* a wait with no cuda_sync, and one whose record corr is no number:
 * neither names its event, neither is written */
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamWaitEvent\",\"tid\":1,\"ts\":160,"
" \"dur\":1,\"args\":{\"correlation\":6}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamWaitEvent\",\"tid\":1,\"ts\":162,"
" \"dur\":1,\"args\":{\"correlation\":11}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Wait Event\",\"tid\":20,\"ts\":162,"
" \"dur\":1,\"args\":{\"wait_on_stream\":7,\"wait_on_cuda_event_record_corr_id\":-1,"
" \"stream\":20,\"correlation\":11,\"device\":0}},\n"
/* a wait for a record made before the trace (corr 1000, no call): the
 * wait names it, no record is written */
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamWaitEvent\",\"tid\":1,\"ts\":170,"
" \"dur\":2,\"args\":{\"correlation\":7}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Wait Event\",\"tid\":20,\"ts\":170,"
" \"dur\":1,\"args\":{\"wait_on_stream\":7,\"wait_on_cuda_event_record_corr_id\":1000,"
" \"stream\":20,\"correlation\":7,\"device\":0}},\n"
/* an event sync in the same microsecond as its record (corr 8 before
 * 9): the record still comes first */
"{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Event Sync\",\"tid\":7,\"ts\":180,"
" \"dur\":20,\"args\":{\"cuda_sync_kind\":\"Event Sync\",\"wait_on_stream\":7,"
" \"wait_on_cuda_event_record_corr_id\":8,\"stream\":7,\"correlation\":9,\"device\":0}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaEventSynchronize\",\"tid\":1,\"ts\":180,"
" \"dur\":20,\"args\":{\"correlation\":9}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaEventRecord\",\"tid\":1,\"ts\":180,"
" \"dur\":0,\"args\":{\"correlation\":8}},\n"
/* a record no wait names: not written */
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaEventRecord\",\"tid\":1,\"ts\":210,"
" \"dur\":1,\"args\":{\"correlation\":12}}\n"
"]}\n";

/* Worked out by hand: the event's id is its record's correlation (2, 8;
 * 1000 for the record before the trace); sync kinds 2 event, 3
 * stream_wait_event, 5 event_record; stream of a record = wait_on_stream,
 * of a wait = the waiting stream ("stream"). */
static const char *const events_expected[] = {
	"M 1 it=1 cpu=100000 th=1 name=ProfilerStep#1",
	"K 2 a grid=1,1,1 block=32,1,1 regs=0 smem=0+0 stream=7 th=1 flags=0 "
		"cpu=110000 gpu=115000-135000 it=1",
	"Y 3 kind=5 stream=7 th=1 cpu=120000-123000 event=2",
	"Y 4 kind=3 stream=20 th=1 cpu=130000-132000 event=2",
	"K 5 b grid=1,1,1 block=32,1,1 regs=0 smem=0+0 stream=20 th=1 flags=0 "
		"cpu=140000 gpu=145000-150000 it=1",
	"Y 6 kind=3 stream=21 th=1 cpu=150000-152000 event=2",
	"K 7 c grid=1,1,1 block=32,1,1 regs=0 smem=0+0 stream=21 th=1 flags=0 "
		"cpu=155000 gpu=160000-165000 it=1",
	"Y 8 kind=3 stream=20 th=1 cpu=170000-172000 event=1000",
	"Y 9 kind=5 stream=7 th=1 cpu=180000-180000 event=8",
	"Y 10 kind=2 stream=7 th=1 cpu=180000-200000 event=8",
	NULL
};

START_TEST(kineto_events)
{
	struct import_stats st;
	const char *out = import_checked("e", events_json, events_expected, &st, NULL);
	ck_assert_uint_eq(st.kernels, 3);
	ck_assert_uint_eq(st.syncs, 6);
	ck_assert_uint_eq(st.event_records, 2);
	ck_assert_uint_eq(st.event_waits, 4);
	ck_assert_uint_eq(st.skipped, 0);
	/* the waits' GPU side ran on device 0: with --device 1 neither they
	 * nor the records they name are written */
	const char *in = tmp("e.json");
	char err[512] = "";
	struct import_set set;
	struct import_opts opts = { "v100-sxm2-16", 1 };
	import_set_init(&set);
	ck_assert_int_eq(import_kineto_read(&set, in, NULL, NULL, err, sizeof(err)), 0);
	int rc = import_finish(&set, &opts, out, &st, err, sizeof(err));
	ck_assert_msg(rc == 0, "finish: %s", err);
	import_set_release(&set);
	ck_assert_uint_eq(st.syncs, 0);
	ck_assert_uint_eq(st.event_records, 0);
	ck_assert_uint_eq(st.skipped, 3 + 4);   /* 3 kernels, 4 syncs */
}
END_TEST

/* ---- nsys -------------------------------------------------------------
 * The tables of `nsys export --type sqlite` that the importer reads, with
 * the columns it uses (plus a few it ignores).  globalTid / globalPid pack
 * the process id in bits 24..47 and the thread id in bits 0..23:
 * pid 4242, tid 4243 -> 4242 * 2^24 + 4243 = 71168954515. */
static const char nsys_sql[] =
"CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
"INSERT INTO StringIds VALUES (1,'_Z6kernelPf'),(2,'kernel(float*)'),(3,'kernel'),"
" (4,'cudaLaunchKernel_v7000'),(5,'cudaMemcpyAsync_v3020'),(6,'cudaStreamSynchronize_v3020'),"
" (7,'cudaMemset_v3020'),(8,'elementwise(float*)'),(9,'cudaEventQuery_v3020');"
"CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, busLocation TEXT, totalMemory INTEGER,"
" smCount INTEGER, computeMajor INTEGER, computeMinor INTEGER, l2CacheSize INTEGER,"
" clockRate INTEGER, maxShmemPerBlockOptin INTEGER);"
"INSERT INTO TARGET_INFO_GPU VALUES (0,'NVIDIA A100-SXM4-40GB','0000:07:00.0',42505273344,"
" 108,8,0,41943040,1410000000,166912);"
"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,"
" deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER,"
" globalPid INTEGER, demangledName INTEGER, shortName INTEGER, mangledName INTEGER,"
" launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER, gridX INTEGER,"
" gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER,"
" staticSharedMemory INTEGER, dynamicSharedMemory INTEGER, localMemoryPerThread INTEGER,"
" gridId INTEGER);"
/* second kernel listed first: the importer orders by launch time */
"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (9000,9500,0,1,13,21,71168950272,8,8,NULL,"
" 0,0,24,1024,1,1,256,1,1,0,0,0,2);"
"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (5000,7000,0,1,13,20,71168950272,2,3,1,"
" 0,0,40,64,2,1,128,2,1,1024,49152,0,1);"
"CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,"
" eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER,"
" returnValue INTEGER, callchainId INTEGER);"
"INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (4000,4100,1,71168954515,20,4,0,NULL),"
" (8000,8100,1,71168954515,21,4,0,NULL),(10000,10200,1,71168954515,22,5,0,NULL),"
" (11000,12000,1,71168954515,23,6,0,NULL),(13000,13300,1,71168954515,24,7,0,NULL),"
" (14000,14001,1,71168954515,25,9,0,NULL);"
"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,"
" deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER,"
" globalPid INTEGER, bytes INTEGER, copyKind INTEGER, srcKind INTEGER, dstKind INTEGER);"
/* the copy's memory kinds are what the export's own enum table names them:
 * device to pageable */
"CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER PRIMARY KEY, name TEXT, label TEXT);"
"INSERT INTO ENUM_CUDA_MEM_KIND VALUES (0,'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE','Pageable'),"
" (1,'CUDA_MEMOPR_MEMORY_KIND_DEVICE','Device'),(2,'CUDA_MEMOPR_MEMORY_KIND_PINNED','Pinned');"
"INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (10500,10900,0,1,13,22,71168950272,65536,2,1,0);"
"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,"
" deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER,"
" globalPid INTEGER, value INTEGER, bytes INTEGER, memKind INTEGER);"
"INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (13100,13200,0,1,7,24,71168950272,0,256,1);"
"CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL,"
" deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER,"
" globalPid INTEGER, syncType INTEGER, eventId INTEGER);"
"INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (11000,12000,0,1,13,23,71168950272,3,NULL);"
"CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER,"
" text TEXT, globalTid INTEGER, textId INTEGER);"
"INSERT INTO NVTX_EVENTS VALUES (3000,15000,59,'ProfilerStep#0',71168954515,NULL),"
" (3500,3600,59,'forward',71168954515,NULL);"
"CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER);"
"INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1600000000000000000);";

/* Worked out by hand from the rows above: kernel 1 takes its mangled name
 * (mangledName 1), kernel 2 has none and falls back to the demangled one;
 * the launch thread is globalTid & 0xffffff = 4243; copyKind 2 is DtoH. */
static const char *const nsys_expected[] = {
	"M 1 it=0 cpu=3000 th=4243 name=ProfilerStep#0",
	"K 2 _Z6kernelPf grid=64,2,1 block=128,2,1 regs=40 smem=1024+49152 "
		"stream=13 th=4243 flags=0 cpu=4000 gpu=5000-7000 it=0",
	"K 3 elementwise(float*) grid=1024,1,1 block=256,1,1 regs=24 smem=0+0 "
		"stream=13 th=4243 flags=0 cpu=8000 gpu=9000-9500 it=0",
	"C6 4 kind=2 bytes=65536 async=1 stream=13 th=4243 cpu=10000-10200 gpu=10500-10900 "
		"host=pageable",
	"Y 5 kind=1 stream=13 th=4243 cpu=11000-12000",
	"C7 6 kind=0 bytes=256 async=0 stream=7 th=4243 cpu=13000-13300 gpu=13100-13200",
	NULL
};

START_TEST(nsys_import)
{
	const char *db = tmp("r.sqlite"), *out = tmp("n.mp");
	sqlite3 *h;
	ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
	char *msg = NULL;
	int rc = sqlite3_exec(h, nsys_sql, NULL, NULL, &msg);
	ck_assert_msg(rc == SQLITE_OK, "schema: %s", msg ? msg : "?");
	sqlite3_close(h);

	struct import_set set;
	struct import_opts opts = { NULL, -1 };
	struct import_stats st;
	char err[512] = "";
	import_set_init(&set);
	rc = import_nsys_read(&set, db, err, sizeof(err));
	ck_assert_msg(rc == 0, "read: %s", err);
	rc = import_finish(&set, &opts, out, &st, err, sizeof(err));
	ck_assert_msg(rc == 0, "finish: %s", err);
	import_set_release(&set);
	struct trace_header h2;
	check_lines(out, nsys_expected, &h2);
	/* the program without the format word: SQLite's header says nsys,
	 * to the same records */
	char args[1024], perr[1024];
	const char *out2 = tmp("n2.mp");
	snprintf(args, sizeof(args), "%s -o %s", db, out2);
	ck_assert_int_eq(run_import(args, perr, sizeof(perr)), 0);
	struct trace_header h3;
	check_lines(out2, nsys_expected, &h3);
	ck_assert_str_eq(h2.device.name, "NVIDIA A100-SXM4-40GB");
	ck_assert_uint_eq(h2.device.sm_count, 108);
	ck_assert_uint_eq(h2.device.cc_major, 8);
	ck_assert_uint_eq(h2.device.l2_bytes, 41943040);
	ck_assert_uint_eq(h2.device.clock_khz, 1410000);
	ck_assert_uint_eq(h2.device.smem_per_block_optin, 166912);
	ck_assert_uint_eq(h2.device.mem_bytes, 42505273344ull);
	ck_assert_uint_eq(h2.start_unix_ns, 1600000000000003000ull);
	ck_assert_uint_eq(st.kernels, 2);
	ck_assert_uint_eq(st.unmatched, 0);
}
END_TEST

START_TEST(nsys_minimal)
{
	/* an export with only a kernel table holding few columns (others
	 * read as 0), no runtime and no device table: the GPU must be named */
	const char *db = tmp("m.sqlite"), *out = tmp("m.mp");
	sqlite3 *h;
	ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(h,
		"CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
		"INSERT INTO StringIds VALUES (1, 'k1');"
		"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER,"
		" shortName INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER,"
		" blockX INTEGER, blockY INTEGER, blockZ INTEGER);"
		"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 250, 1, 2, 1, 1, 64, 1, 1);",
		NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	struct import_set set;
	struct import_opts opts = { NULL, -1 };
	char err[512] = "";
	import_set_init(&set);
	ck_assert_int_eq(import_nsys_read(&set, db, err, sizeof(err)), 0);
	ck_assert_int_eq(import_finish(&set, &opts, out, NULL, err, sizeof(err)), SURFER_EDEVICE);
	ck_assert_ptr_nonnull(strstr(err, "--origin"));
	opts.origin = "t4";
	ck_assert_msg(import_finish(&set, &opts, out, NULL, err, sizeof(err)) == 0, "%s", err);
	import_set_release(&set);
	static const char *const want[] = {
		"K 1 k1 grid=2,1,1 block=64,1,1 regs=0 smem=0+0 stream=0 th=0 flags=0 cpu=0 "
			"gpu=100-250 it=-1",
		NULL
	};
	struct trace_header hd;
	check_lines(out, want, &hd);
	/* the database's T4 describes the device: 40 SMs, cc 7.5 */
	ck_assert_uint_eq(hd.device.sm_count, 40);
	ck_assert_uint_eq(hd.device.cc_major, 7);
	ck_assert_uint_eq(hd.device.cc_minor, 5);
}
END_TEST

/* ---- real traces (optional) ------------------------------------------ */

/* Kernels of the busiest device, counted by Python's json module: an
 * independent reading of the same file.  -1 when python3 is missing. */
static long python_count(const char *path)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd),
		 "python3 -c \"import gzip,json,sys,collections;"
		 "d=json.load(gzip.open(sys.argv[1]));"
		 "c=collections.Counter(e['args'].get('device') for e in d['traceEvents']"
		 " if e.get('cat')=='kernel' and e.get('ph')=='X');"
		 "print(max(c.values()) if c else 0)\" '%s' 2>/dev/null", path);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	long n = -1;
	if (fscanf(p, "%ld", &n) != 1)
		n = -1;
	pclose(p);
	return n;
}

/* NCCL collectives, the two ways torch.profiler names them: a
 * record_param_comms CPU op with the collective's name, element counts,
 * group size and dtype (PyTorch 2.1 on), and an nccl:NAME annotation with
 * the input's dims (older; the group is distributedInfo's world size). */
static const char kineto_comms_json[] =
"{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 1, \"world_size\": 4},\n"
"\"deviceProperties\": [{\"id\":0,\"name\":\"NVIDIA A100-SXM4-80GB\",\"computeMajor\":8,"
" \"computeMinor\":0,\"numSms\":108}],\n"
"\"traceEvents\": [\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\",\"pid\":1,\"tid\":1,\"ts\":100,"
" \"dur\":50,\"args\":{\"Collective name\":\"allreduce\",\"In msg nelems\":1000,"
" \"Out msg nelems\":1000,\"Group size\":2,\"dtype\":\"BFloat16\",\"Process Group Ranks\":\"[0, 1]\"}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
" \"ts\":110,\"dur\":5,\"args\":{\"correlation\":1}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_bf16_RING_LL\",\"pid\":0,"
" \"tid\":7,\"ts\":120,\"dur\":30,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1,"
" \"registers per thread\":96,\"shared memory\":0,\"grid\":[2,1,1],\"block\":[512,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"nccl:all_gather\",\"pid\":1,\"tid\":1,"
" \"ts\":200,\"dur\":30,\"args\":{\"Input Dims\":[[16,16]],\"Input type\":[\"float\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
" \"ts\":205,\"dur\":5,\"args\":{\"correlation\":2}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllGather_RING_LL\",\"pid\":0,"
" \"tid\":7,\"ts\":215,\"dur\":20,\"args\":{\"device\":0,\"stream\":7,\"correlation\":2,"
" \"registers per thread\":96,\"shared memory\":0,\"grid\":[2,1,1],\"block\":[512,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\",\"pid\":1,\"tid\":1,\"ts\":300,"
" \"dur\":50,\"args\":{\"Collective name\":\"barrier\",\"In msg nelems\":1,"
" \"Out msg nelems\":1,\"Group size\":4,\"dtype\":\"Float\"}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
" \"ts\":310,\"dur\":5,\"args\":{\"correlation\":3}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32_RING_LL\",\"pid\":0,"
" \"tid\":7,\"ts\":320,\"dur\":10,\"args\":{\"device\":0,\"stream\":7,\"correlation\":3,"
" \"registers per thread\":96,\"shared memory\":0,\"grid\":[1,1,1],\"block\":[512,1,1]}}\n"
"]}\n";

/* By hand: the all-reduce of 1000 bf16 on a group of 2 is 2000 bytes; the
 * all-gather's input is 16 x 16 floats of one rank, the output 4 ranks of
 * it (distributedInfo): 4096 bytes; a barrier is no collective surfer
 * models, so its kernel has no record. */
static const char *const kineto_comms_expected[] = {
	"O 1 all_reduce bytes=2000 ranks=2 rank=-1 bf16 stream=7 th=1 cpu=100000",
	"K 2 ncclDevKernel_AllReduce_Sum_bf16_RING_LL grid=2,1,1 block=512,1,1 regs=96 smem=0+0 "
		"stream=7 th=1 flags=0 cpu=110000 gpu=120000-150000 it=-1 lib=1",
	"O 3 all_gather bytes=4096 ranks=4 rank=-1 f32 stream=7 th=1 cpu=200000",
	"K 4 ncclDevKernel_AllGather_RING_LL grid=2,1,1 block=512,1,1 regs=96 smem=0+0 "
		"stream=7 th=1 flags=0 cpu=205000 gpu=215000-235000 it=-1 lib=3",
	"K 5 ncclDevKernel_AllReduce_Sum_f32_RING_LL grid=1,1,1 block=512,1,1 regs=96 smem=0+0 "
		"stream=7 th=1 flags=0 cpu=310000 gpu=320000-330000 it=-1",
	NULL
};

START_TEST(kineto_collectives)
{
	struct import_stats st;
	struct trace_header h;
	import_checked("c", kineto_comms_json, kineto_comms_expected, &st, &h);
	ck_assert_uint_eq(h.world_size, 4);   /* distributedInfo's: the step's GPUs */
	ck_assert_uint_eq(st.collectives, 2);
	ck_assert_uint_eq(st.gemms, 0);
}
END_TEST

/* Convolutions as torch.profiler records them with record_shapes=True
 * (PyTorch 2.1 on): aten::conv2d > aten::convolution > aten::_convolution
 * > aten::cudnn_convolution, each with its input and filter in "Input
 * Dims" and its other arguments in "Concrete Inputs" (cudnn_convolution
 * puts padding before stride).  The first, 2 groups, launches a cuDNN
 * kernel inside cudnn_convolution and the bias addition after it returned
 * (inside _convolution only); the second is an older trace's, without
 * "Concrete Inputs"; the third is transposed. */
static const char kineto_conv_json[] =
"{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0,"
" \"name\": \"Tesla V100-SXM2-16GB\", \"computeMajor\": 7, \"computeMinor\": 0,"
" \"numSms\": 80, \"totalGlobalMem\": 16945512448, \"maxThreadsPerMultiprocessor\": 2048,"
" \"regsPerMultiprocessor\": 65536, \"sharedMemPerMultiprocessor\": 98304,"
" \"sharedMemPerBlockOptin\": 98304}],\n"
"\"traceEvents\": [\n"
"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":100,"
"\"tid\":100,\"ts\":1000,\"dur\":1000},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::conv2d\",\"pid\":100,\"tid\":100,"
"\"ts\":1010,\"dur\":100,\"args\":{\"External id\":2,\"Input Dims\":[[8,64,56,40],[128,"
"32,3,3],[128],[],[],[],[]],\"Input type\":[\"float\",\"float\",\"float\",\"ScalarList\","
"\"ScalarList\",\"ScalarList\",\"Scalar\"],\"Concrete Inputs\":[\"\",\"\",\"\",\"[2,"
" 1]\",\"[1, 0]\",\"[1, 2]\",\"2\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::convolution\",\"pid\":100,\"tid\":100,"
"\"ts\":1011,\"dur\":98,\"args\":{\"External id\":3,\"Input Dims\":[[8,64,56,40],[128,32,"
"3,3],[128],[],[],[],[],[],[]],\"Input type\":[\"float\",\"float\",\"float\","
"\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\"],"
"\"Concrete Inputs\":[\"\",\"\",\"\",\"[2, 1]\",\"[1, 0]\",\"[1, 2]\",\"False\",\"[0,"
" 0]\",\"2\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::_convolution\",\"pid\":100,"
"\"tid\":100,\"ts\":1012,\"dur\":96,\"args\":{\"External id\":4,\"Input Dims\":[[8,64,56,"
"40],[128,32,3,3],[128],[],[],[],[],[],[],[],[],[],[]],\"Input type\":[\"float\","
"\"float\",\"float\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\","
"\"ScalarList\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"],"
"\"Concrete Inputs\":[\"\",\"\",\"\",\"[2, 1]\",\"[1, 0]\",\"[1, 2]\",\"False\",\"[0,"
" 0]\",\"2\",\"False\",\"False\",\"True\",\"True\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::cudnn_convolution\",\"pid\":100,"
"\"tid\":100,\"ts\":1014,\"dur\":60,\"args\":{\"External id\":5,\"Input Dims\":[[8,64,56,"
"40],[128,32,3,3],[],[],[],[],[],[],[]],\"Input type\":[\"float\",\"float\","
"\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\",\"Scalar\",\"Scalar\","
"\"Scalar\"],\"Concrete Inputs\":[\"\",\"\",\"[1, 0]\",\"[2, 1]\",\"[1, 2]\",\"2\","
"\"False\",\"False\",\"True\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
"\"tid\":100,\"ts\":1020,\"dur\":5,\"args\":{\"External id\":5,\"correlation\":1}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"volta_scudnn_128x64_relu_interior_nn_v1\","
"\"pid\":0,\"tid\":7,\"ts\":1030,\"dur\":200,\"args\":{\"External id\":5,\"device\":0,"
"\"stream\":7,\"correlation\":1,\"registers per thread\":128,\"shared memory\":49152,"
"\"grid\":[63,2,2],\"block\":[256,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
"\"tid\":100,\"ts\":1090,\"dur\":5,\"args\":{\"External id\":4,\"correlation\":2}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\","
"\"name\":\"void at::native::vectorized_elementwise_kernel<4,"
" at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int,"
" at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)\",\"pid\":0,\"tid\":7,"
"\"ts\":1240,\"dur\":20,\"args\":{\"External id\":4,\"device\":0,\"stream\":7,"
"\"correlation\":2,\"registers per thread\":24,\"shared memory\":0,\"grid\":[1008,1,1],"
"\"block\":[128,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::convolution\",\"pid\":100,\"tid\":100,"
"\"ts\":1300,\"dur\":50,\"args\":{\"External id\":6,\"Input Dims\":[[8,64,56,40],[128,64,"
"3,3],[],[],[],[],[],[],[]],\"Input type\":[\"float\",\"float\",\"\",\"ScalarList\","
"\"ScalarList\",\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::cudnn_convolution\",\"pid\":100,"
"\"tid\":100,\"ts\":1305,\"dur\":40,\"args\":{\"External id\":7,\"Input Dims\":[[8,64,56,"
"40],[128,64,3,3],[],[],[],[],[],[],[]],\"Input type\":[\"float\",\"float\","
"\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\",\"Scalar\",\"Scalar\","
"\"Scalar\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
"\"tid\":100,\"ts\":1310,\"dur\":5,\"args\":{\"External id\":7,\"correlation\":3}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"volta_scudnn_128x128_relu_interior_nn_v1\","
"\"pid\":0,\"tid\":7,\"ts\":1320,\"dur\":300,\"args\":{\"External id\":7,\"device\":0,"
"\"stream\":7,\"correlation\":3,\"registers per thread\":128,\"shared memory\":49152,"
"\"grid\":[70,2,1],\"block\":[256,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::convolution\",\"pid\":100,\"tid\":100,"
"\"ts\":1700,\"dur\":50,\"args\":{\"Input Dims\":[[8,128,28,36],[128,64,2,2],[],[],[],[],"
"[],[],[]],\"Input type\":[\"float\",\"float\",\"\",\"ScalarList\",\"ScalarList\","
"\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\"],\"Concrete Inputs\":[\"\",\"\","
"\"\",\"[2, 2]\",\"[0, 0]\",\"[1, 1]\",\"True\",\"[0, 0]\",\"1\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
"\"tid\":100,\"ts\":1710,\"dur\":5,\"args\":{\"correlation\":4}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"dgrad2d_transpose\",\"pid\":0,\"tid\":7,"
"\"ts\":1720,\"dur\":100,\"args\":{\"device\":0,\"stream\":7,\"correlation\":4,"
"\"registers per thread\":64,\"shared memory\":0,\"grid\":[100,1,1],\"block\":[256,1,1]}}\n"
"]}\n";

/* By hand, the first convolution: input 8 x 64 x 56 x 40, filter 128 x 32
 * x 3 x 3 (64 channels in 2 groups), stride (2, 1), padding (1, 0),
 * dilation (1, 2): P = (56 + 2 - 1 * 2 - 1) / 2 + 1 = 28 (55 / 2 rounds
 * down), Q = (40 + 0 - 2 * 2 - 1) / 1 + 1 = 36; its record is written
 * before its kernel, with cudnn_convolution's CPU time (1014 us) and
 * thread.  The bias kernel, the second convolution's (no padding known)
 * and the transposed one's have none. */
static const char *const kineto_conv_expected[] = {
	"M 1 it=1 cpu=1000000 th=100 name=ProfilerStep#1",
	"V 2 imported dir=0 nd=4 in=8,64,56,40 filt=128,32,3,3 out=8,128,28,36 stride=2,1 "
		"pad=1,0 dil=1,2 groups=2 f32/f32 stream=7 th=100 cpu=1014000",
	"K 3 volta_scudnn_128x64_relu_interior_nn_v1 grid=63,2,2 block=256,1,1 regs=128 "
		"smem=49152+0 stream=7 th=100 flags=0 cpu=1020000 gpu=1030000-1230000 it=1 lib=2",
	"K 4 void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
		"at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
		"at::detail::Array<char*, 3>) grid=1008,1,1 block=128,1,1 regs=24 smem=0+0 stream=7 "
		"th=100 flags=0 cpu=1090000 gpu=1240000-1260000 it=1",
	"K 5 volta_scudnn_128x128_relu_interior_nn_v1 grid=70,2,1 block=256,1,1 regs=128 "
		"smem=49152+0 stream=7 th=100 flags=0 cpu=1310000 gpu=1320000-1620000 it=1",
	"K 6 dgrad2d_transpose grid=100,1,1 block=256,1,1 regs=64 smem=0+0 stream=7 th=100 "
		"flags=0 cpu=1710000 gpu=1720000-1820000 it=1",
	NULL
};

/* The method of the breakdown row of kernel name in surfer-analyze's
 * JSON text j, copied to m; 0, or -1 when there is no such row. */
static int row_method(const char *j, const char *name, char *m, size_t mlen)
{
	char key[256];
	snprintf(key, sizeof(key), "\"kernel\": \"%s\"", name);
	const char *r = strstr(j, key), *end = r ? strchr(r, '}') : NULL;
	const char *f = r ? strstr(r, "\"method\": \"") : NULL;
	if (!f || f > end)
		return -1;
	f += strlen("\"method\": \"");
	size_t n = strcspn(f, "\"");
	snprintf(m, mlen, "%.*s", (int)n, f);
	return 0;
}

/* Asserts that the breakdown row of kernel name in j was predicted by
 * method want. */
static void assert_method(const char *j, const char *name, const char *want)
{
	char m[32];
	ck_assert_msg(row_method(j, name, m, sizeof(m)) == 0, "no row for %s", name);
	ck_assert_msg(strcmp(m, want) == 0, "%s: method %s, not %s", name, m, want);
}

/* surfer-analyze's JSON of trace predicted on target, into j (cap bytes). */
static void analyze_json(const char *trace, const char *target, char *j, size_t cap)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "%s/surfer-analyze %s --target %s --json 2>/dev/null", build_dir(),
		 trace, target);
	FILE *pj = popen(cmd, "r");
	ck_assert_ptr_nonnull(pj);
	size_t n = fread(j, 1, cap - 1, pj);
	j[n] = '\0';
	ck_assert_int_eq(pclose(pj), 0);
}

/* torchao's float8 linear as the profiler records it: aten::_scaled_mm of
 * 64 x 128 by 128 x 256 in E4M3 (B the weight's transposed view), with
 * its scales and out_dtype; the cuBLASLt kernel it launches. */
static const char kineto_fp8_json[] =
"{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0,"
" \"name\": \"NVIDIA H100 80GB HBM3\", \"computeMajor\": 9, \"computeMinor\": 0,"
" \"numSms\": 132}],\n"
"\"traceEvents\": [\n"
"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,"
"\"tid\":1,\"ts\":1000,\"dur\":1000},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::_scaled_mm\",\"pid\":1,\"tid\":1,"
"\"ts\":1010,\"dur\":30,\"args\":{\"Input Dims\":[[64,128],[128,256],[],[],[],[],[],[]],"
"\"Input Strides\":[[128,1],[1,128],[],[],[],[],[],[]],"
"\"Input type\":[\"c10::Float8_e4m3fn\",\"c10::Float8_e4m3fn\",\"float\",\"float\",\"\","
"\"\",\"ScalarType\",\"Scalar\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
"\"tid\":1,\"ts\":1020,\"dur\":5,\"args\":{\"correlation\":5}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32_tn_n_tilesize128x128x128\","
"\"pid\":0,\"tid\":7,\"ts\":1030,\"dur\":8,\"args\":{\"device\":0,\"stream\":7,\"correlation\":5,"
"\"registers per thread\":168,\"shared memory\":0,\"grid\":[2,1,1],\"block\":[384,1,1]}}\n"
"]}\n";

static const char *const kineto_fp8_expected[] = {
	"M 1 it=1 cpu=1000000 th=1 name=ProfilerStep#1",
	/* cuBLAS's view: m = 256, n = 64, k = 128; B's strides (1, 128) make
	 * it the weight's transposed view */
	"G 2 imported m=256 n=64 k=128 batch=1 f8e4m3/f32 stream=7 th=1 cpu=1010000 ta=1",
	"K 3 sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32_tn_n_tilesize128x128x128 grid=2,1,1 block=384,1,1 "
		"regs=168 smem=0+0 stream=7 th=1 flags=0 cpu=1020000 gpu=1030000-1038000 it=1 lib=2",
	NULL
};

START_TEST(kineto_fp8_gemm)
{
	struct import_stats st;
	import_checked("fp8", kineto_fp8_json, kineto_fp8_expected, &st, NULL);
	ck_assert_uint_eq(st.gemms, 1);
}
END_TEST

START_TEST(kineto_convolutions)
{
	struct import_stats st;
	const char *out = import_checked("conv", kineto_conv_json, kineto_conv_expected, &st, NULL);
	ck_assert_uint_eq(st.convs, 1);
	ck_assert_uint_eq(st.conv_unsized, 1);  /* counted once, not per nested op */
	ck_assert_uint_eq(st.gemms, 0);

	/* the program warns about the convolution without padding */
	char args[1024], err[2048] = "";
	snprintf(args, sizeof(args), "kineto %s -o %s", tmp("conv.json"), out);
	ck_assert_int_eq(run_import(args, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "warning: 1 convolutions without stride and padding"));

	/* surfer-analyze's auto reaches the convolution model for the
	 * kernel with a shape, and scales the one without */
	char m[32];
	static char j[1 << 16];
	analyze_json(out, "a100-sxm4-40", j, sizeof(j));
	assert_method(j, "volta_scudnn_128x64_relu_interior_nn_v1", "conv");
	ck_assert_int_eq(row_method(j, "volta_scudnn_128x128_relu_interior_nn_v1", m, sizeof(m)), 0);
	ck_assert_str_ne(m, "conv");
}
END_TEST

/* Backward convolutions as torch.profiler records them (PyTorch 2.x, our
 * H200's ResNet-50 profile): one aten::convolution_backward per layer,
 * grad_output, input and weight in "Input Dims", output_mask last in
 * "Concrete Inputs".  The first (stride 2, padding 1: 56 x 56 -> 28 x 28)
 * runs the inputs' gradient and then the filters', as cuDNN's kernels
 * show; the second is a network's first layer (no input gradient asked);
 * the third runs kernels that name neither pass (FFT's). */
static const char kineto_conv_bwd_json[] =
"{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0,"
" \"name\": \"NVIDIA A100-SXM4-40GB\", \"computeMajor\": 8, \"computeMinor\": 0,"
" \"numSms\": 108}],\n"
"\"traceEvents\": [\n"
"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":100,"
"\"tid\":100,\"ts\":1000,\"dur\":2000},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::convolution_backward\",\"pid\":100,"
"\"tid\":100,\"ts\":1100,\"dur\":200,\"args\":{\"Input Dims\":[[8,128,28,28],[8,64,56,56],[128,64,3,3],[],[],[],[],[],[],[],[]],"
"\"Input type\":[\"float\",\"float\",\"float\",\"ScalarList\",\"ScalarList\","
"\"ScalarList\",\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\",\"ScalarList\"],"
"\"Concrete Inputs\":[\"\",\"\",\"\",\"[0]\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"1\",\"[True, True, False]\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
"\"tid\":100,\"ts\":1110,\"dur\":2,\"args\":{\"correlation\":1}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void cudnn::engines_precompiled::scalePackedTensor_kernel<float, float>(long, float*, float)\",\"pid\":0,\"tid\":7,"
"\"ts\":1115,\"dur\":10,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1,"
"\"registers per thread\":64,\"shared memory\":0,\"grid\":[64,1,1],\"block\":[128,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
"\"tid\":100,\"ts\":1130,\"dur\":2,\"args\":{\"correlation\":2}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int)\",\"pid\":0,\"tid\":7,"
"\"ts\":1135,\"dur\":40,\"args\":{\"device\":0,\"stream\":7,\"correlation\":2,"
"\"registers per thread\":64,\"shared memory\":0,\"grid\":[392,1,1],\"block\":[128,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
"\"tid\":100,\"ts\":1180,\"dur\":2,\"args\":{\"correlation\":3}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void cudnn::engines_precompiled::nchwToNhwcKernel<float, float, float, false, true>(int)\",\"pid\":0,\"tid\":7,"
"\"ts\":1185,\"dur\":10,\"args\":{\"device\":0,\"stream\":7,\"correlation\":3,"
"\"registers per thread\":64,\"shared memory\":0,\"grid\":[256,1,1],\"block\":[128,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
"\"tid\":100,\"ts\":1200,\"dur\":2,\"args\":{\"correlation\":4}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"sm80_xmma_wgrad_implicit_gemm_indexed_f32f32_f32f32_f32_nhwckrsc_nhwc_tilesize32x32x8_stage3_warpsize1x2x1_g1_ffma_execute_kernel__5x_cudnn\",\"pid\":0,\"tid\":7,"
"\"ts\":1205,\"dur\":50,\"args\":{\"device\":0,\"stream\":7,\"correlation\":4,"
"\"registers per thread\":64,\"shared memory\":0,\"grid\":[576,1,1],\"block\":[128,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::convolution_backward\",\"pid\":100,"
"\"tid\":100,\"ts\":1400,\"dur\":100,\"args\":{\"Input Dims\":[[8,64,112,112],[8,3,224,224],[64,3,7,7],[],[],[],[],[],[],[],[]],"
"\"Input type\":[\"float\",\"float\",\"float\",\"ScalarList\",\"ScalarList\","
"\"ScalarList\",\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\",\"ScalarList\"],"
"\"Concrete Inputs\":[\"\",\"\",\"\",\"[0]\",\"[2, 2]\",\"[3, 3]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"1\",\"[False, True, False]\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
"\"tid\":100,\"ts\":1410,\"dur\":2,\"args\":{\"correlation\":5}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void wgrad_alg0_engine<float, 128, 5, 5, 3, 3, 3, false, 512>(int)\",\"pid\":0,\"tid\":7,"
"\"ts\":1415,\"dur\":60,\"args\":{\"device\":0,\"stream\":7,\"correlation\":5,"
"\"registers per thread\":64,\"shared memory\":0,\"grid\":[98,1,1],\"block\":[128,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::convolution_backward\",\"pid\":100,"
"\"tid\":100,\"ts\":1600,\"dur\":100,\"args\":{\"Input Dims\":[[8,256,14,14],[8,256,14,14],[256,256,3,3],[],[],[],[],[],[],[],[]],"
"\"Input type\":[\"float\",\"float\",\"float\",\"ScalarList\",\"ScalarList\","
"\"ScalarList\",\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\",\"ScalarList\"],"
"\"Concrete Inputs\":[\"\",\"\",\"\",\"[0]\",\"[1, 1]\",\"[1, 1]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"1\",\"[True, True, False]\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
"\"tid\":100,\"ts\":1610,\"dur\":2,\"args\":{\"correlation\":6}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void fft2d_r2c_32x32<float, false, 0u, false>(float2*, float const*, int)\",\"pid\":0,\"tid\":7,"
"\"ts\":1615,\"dur\":20,\"args\":{\"device\":0,\"stream\":7,\"correlation\":6,"
"\"registers per thread\":64,\"shared memory\":0,\"grid\":[128,1,1],\"block\":[128,1,1]}}\n"
"]}\n";

/* By hand: the first op's records are the inputs' gradient (dir 1) before
 * its first kernel and the filters' (dir 2) before the first kernel after
 * dgrad_engine, the same shape (input 8 x 64 x 56 x 56, filter 128 x 64 x
 * 3 x 3, output (56 + 2 - 3) / 2 + 1 = 28) and CPU time; the first layer's
 * is the filters' alone; the FFT kernel stays with the inputs'. */
static const char *const kineto_conv_bwd_expected[] = {
	"M 1 it=1 cpu=1000000 th=100 name=ProfilerStep#1",
	"V 2 imported dir=1 nd=4 in=8,64,56,56 filt=128,64,3,3 out=8,128,28,28 stride=2,2 "
		"pad=1,1 dil=1,1 groups=1 f32/f32 stream=7 th=100 cpu=1100000",
	"K 3 void cudnn::engines_precompiled::scalePackedTensor_kernel<float, float>(long, float*, "
		"float) grid=64,1,1 block=128,1,1 regs=64 smem=0+0 stream=7 th=100 flags=0 "
		"cpu=1110000 gpu=1115000-1125000 it=1 lib=2",
	"K 4 void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int) grid=392,1,1 "
		"block=128,1,1 regs=64 smem=0+0 stream=7 th=100 flags=0 cpu=1130000 "
		"gpu=1135000-1175000 it=1 lib=2",
	"V 5 imported dir=2 nd=4 in=8,64,56,56 filt=128,64,3,3 out=8,128,28,28 stride=2,2 "
		"pad=1,1 dil=1,1 groups=1 f32/f32 stream=7 th=100 cpu=1100000",
	"K 6 void cudnn::engines_precompiled::nchwToNhwcKernel<float, float, float, false, true>(int) "
		"grid=256,1,1 block=128,1,1 regs=64 smem=0+0 stream=7 th=100 flags=0 cpu=1180000 "
		"gpu=1185000-1195000 it=1 lib=5",
	"K 7 sm80_xmma_wgrad_implicit_gemm_indexed_f32f32_f32f32_f32_nhwckrsc_nhwc_tilesize32x32x8_"
		"stage3_warpsize1x2x1_g1_ffma_execute_kernel__5x_cudnn grid=576,1,1 block=128,1,1 "
		"regs=64 smem=0+0 stream=7 th=100 flags=0 cpu=1200000 gpu=1205000-1255000 it=1 lib=5",
	"V 8 imported dir=2 nd=4 in=8,3,224,224 filt=64,3,7,7 out=8,64,112,112 stride=2,2 "
		"pad=3,3 dil=1,1 groups=1 f32/f32 stream=7 th=100 cpu=1400000",
	"K 9 void wgrad_alg0_engine<float, 128, 5, 5, 3, 3, 3, false, 512>(int) grid=98,1,1 "
		"block=128,1,1 regs=64 smem=0+0 stream=7 th=100 flags=0 cpu=1410000 "
		"gpu=1415000-1475000 it=1 lib=8",
	"V 10 imported dir=1 nd=4 in=8,256,14,14 filt=256,256,3,3 out=8,256,14,14 stride=1,1 "
		"pad=1,1 dil=1,1 groups=1 f32/f32 stream=7 th=100 cpu=1600000",
	"K 11 void fft2d_r2c_32x32<float, false, 0u, false>(float2*, float const*, int) "
		"grid=128,1,1 block=128,1,1 regs=64 smem=0+0 stream=7 th=100 flags=0 cpu=1610000 "
		"gpu=1615000-1635000 it=1 lib=10",
	NULL
};

START_TEST(kineto_convolution_backward)
{
	struct import_stats st;
	const char *out = import_checked("convbwd", kineto_conv_bwd_json, kineto_conv_bwd_expected, &st,
					 NULL);
	ck_assert_uint_eq(st.convs, 4);
	ck_assert_uint_eq(st.conv_unsized, 0);

	/* surfer-analyze takes each pass's kernels to the convolution model */
	static char j[1 << 16];
	analyze_json(out, "v100-sxm2-16", j, sizeof(j));
	assert_method(j, "void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, "
			 "false>(int)", "conv");
	assert_method(j, "void wgrad_alg0_engine<float, 128, 5, 5, 3, 3, 3, false, "
			 "512>(int)", "conv");
}
END_TEST

/* Fused attention as torch.profiler records it (scaled_dot_product_attention
 * with record_shapes=True): the flash backend's forward op and its
 * backward op (grad_out first, is_causal the twelfth argument) around their
 * kernels, a cuDNN forward with four KV heads for sixteen query heads and
 * no causal mask, and a flash forward without Concrete Inputs (is_causal
 * unknown: no record). */
static const char kineto_sdpa_json[] =
"{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0,"
" \"name\": \"NVIDIA A100-SXM4-40GB\", \"computeMajor\": 8, \"computeMinor\": 0,"
" \"numSms\": 108}],\n"
"\"traceEvents\": [\n"
"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":100,"
"\"tid\":100,\"ts\":1000,\"dur\":2000},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::_scaled_dot_product_flash_attention\",\"pid\":100,"
"\"tid\":100,\"ts\":1100,\"dur\":100,\"args\":{\"Input Dims\":[[4,16,1024,64],[4,16,1024,64],[4,16,1024,64],[],[],[],[]],"
"\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\",\"Scalar\",\"\"],"
"\"Concrete Inputs\":[\"\",\"\",\"\",\"0.\",\"True\",\"False\",\"\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
"\"tid\":100,\"ts\":1110,\"dur\":2,\"args\":{\"correlation\":1}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t>>(Flash_fwd_params)\",\"pid\":0,\"tid\":7,"
"\"ts\":1115,\"dur\":50,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1,"
"\"registers per thread\":255,\"shared memory\":49152,\"grid\":[512,1,1],\"block\":[128,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::_scaled_dot_product_flash_attention_backward\",\"pid\":100,"
"\"tid\":100,\"ts\":1300,\"dur\":300,\"args\":{\"Input Dims\":[[4,16,1024,64],[4,16,1024,64],[4,16,1024,64],[4,16,1024,64],[4,16,1024,64],[4,16,1024],[],[],[],[],[],[],[],[],[]],"
"\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"float\",\"\",\"\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"long int\",\"long int\",\"\"],"
"\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"1024\",\"1024\",\"0.\",\"True\",\"\",\"\",\"\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
"\"tid\":100,\"ts\":1310,\"dur\":2,\"args\":{\"correlation\":2}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void pytorch_flash::flash_bwd_dot_do_o_kernel<true, Flash_bwd_kernel_traits<64, 128, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t>>(Flash_bwd_params)\",\"pid\":0,\"tid\":7,"
"\"ts\":1315,\"dur\":5,\"args\":{\"device\":0,\"stream\":7,\"correlation\":2,"
"\"registers per thread\":255,\"shared memory\":49152,\"grid\":[512,1,1],\"block\":[128,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
"\"tid\":100,\"ts\":1330,\"dur\":2,\"args\":{\"correlation\":3}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<64, 128, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t>>(Flash_bwd_params)\",\"pid\":0,\"tid\":7,"
"\"ts\":1335,\"dur\":120,\"args\":{\"device\":0,\"stream\":7,\"correlation\":3,"
"\"registers per thread\":255,\"shared memory\":49152,\"grid\":[512,1,1],\"block\":[128,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
"\"tid\":100,\"ts\":1460,\"dur\":2,\"args\":{\"correlation\":4}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void pytorch_flash::flash_bwd_convert_dq_kernel<Flash_bwd_kernel_traits<64, 128, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t>>(Flash_bwd_params, int)\",\"pid\":0,\"tid\":7,"
"\"ts\":1465,\"dur\":5,\"args\":{\"device\":0,\"stream\":7,\"correlation\":4,"
"\"registers per thread\":255,\"shared memory\":49152,\"grid\":[512,1,1],\"block\":[128,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::_scaled_dot_product_cudnn_attention\",\"pid\":100,"
"\"tid\":100,\"ts\":1700,\"dur\":50,\"args\":{\"Input Dims\":[[2,16,512,128],[2,4,512,128],[2,4,512,128],[],[],[],[],[],[]],"
"\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"\"],"
"\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"True\",\"0.\",\"False\",\"False\",\"\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
"\"tid\":100,\"ts\":1710,\"dur\":2,\"args\":{\"correlation\":5}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_3_64x64x128_4x1x1_kernel0_0\",\"pid\":0,\"tid\":7,"
"\"ts\":1715,\"dur\":30,\"args\":{\"device\":0,\"stream\":7,\"correlation\":5,"
"\"registers per thread\":255,\"shared memory\":49152,\"grid\":[64,1,1],\"block\":[128,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::_scaled_dot_product_flash_attention\",\"pid\":100,"
"\"tid\":100,\"ts\":1800,\"dur\":50,\"args\":{\"Input Dims\":[[4,16,1024,64],[4,16,1024,64],[4,16,1024,64],[],[],[],[]],"
"\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\",\"Scalar\",\"\"],"
"\"Concrete Inputs\":[]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
"\"tid\":100,\"ts\":1810,\"dur\":2,\"args\":{\"correlation\":6}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t>>(Flash_fwd_params)\",\"pid\":0,\"tid\":7,"
"\"ts\":1815,\"dur\":50,\"args\":{\"device\":0,\"stream\":7,\"correlation\":6,"
"\"registers per thread\":255,\"shared memory\":49152,\"grid\":[512,1,1],\"block\":[128,1,1]}}\n"
"]}\n";

/* By hand: 4 sequences of 1024 tokens, 16 heads of 64, causal: pairs 4 x
 * 1024 x 1025 / 2 = 2,099,200; forward FLOPs 2 (64 + 64) 16 pairs =
 * 8,598,323,200, bytes 2 (4096 x 16 x 128) x 2 (Q and O, K and V) =
 * 33,554,432; backward FLOPs 2 (3 x 64 + 2 x 64) 16 pairs =
 * 21,495,808,000, bytes 2 x (2 x 4096 x 16 x 128 x 2) + 4 x 4096 x 16 =
 * 67,371,008; every kernel of the backward op links to its record.  The
 * cuDNN call: 2 x 512 x 512 pairs, FLOPs 2 (128 + 128) 16 x 524,288 =
 * 4,294,967,296, bytes 2 (1024 x 16 x 256 + 1024 x 4 x 256) =
 * 10,485,760. */
static const char *const kineto_sdpa_expected[] = {
	"M 1 it=1 cpu=1000000 th=100 name=ProfilerStep#1",
	"A 2 fa2 bwd=0 causal=1 seqs=4 heads=16/16 d=64/64 q=4096 kv=4096 max=1024 pairs=2099200 "
		"flops=8598323200 bytes=33554432 bf16 stream=7 th=100 cpu=1100000",
	"K 3 void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, "
		"false, cutlass::bfloat16_t>>(Flash_fwd_params) grid=512,1,1 block=128,1,1 regs=255 "
		"smem=49152+0 stream=7 th=100 flags=0 cpu=1110000 gpu=1115000-1165000 it=1 lib=2",
	"A 4 fa2 bwd=1 causal=1 seqs=4 heads=16/16 d=64/64 q=4096 kv=4096 max=1024 pairs=2099200 "
		"flops=21495808000 bytes=67371008 bf16 stream=7 th=100 cpu=1300000",
	"K 5 void pytorch_flash::flash_bwd_dot_do_o_kernel<true, Flash_bwd_kernel_traits<64, 128, "
		"128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t>>(Flash_bwd_params) grid=512,1,1 "
		"block=128,1,1 regs=255 smem=49152+0 stream=7 th=100 flags=0 cpu=1310000 "
		"gpu=1315000-1320000 it=1 lib=4",
	"K 6 void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<"
		"64, 128, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t>>(Flash_bwd_params) "
		"grid=512,1,1 block=128,1,1 regs=255 "
		"smem=49152+0 stream=7 th=100 flags=0 cpu=1330000 gpu=1335000-1455000 it=1 lib=4",
	"K 7 void pytorch_flash::flash_bwd_convert_dq_kernel<Flash_bwd_kernel_traits<64, 128, 128, "
		"8, 2, 4, 2, false, false, cutlass::bfloat16_t>>(Flash_bwd_params, int) grid=512,1,1 "
		"block=128,1,1 regs=255 smem=49152+0 stream=7 th=100 flags=0 cpu=1460000 "
		"gpu=1465000-1470000 it=1 lib=4",
	"A 8 cudnn bwd=0 causal=0 seqs=2 heads=16/4 d=128/128 q=1024 kv=1024 max=512 pairs=524288 "
		"flops=4294967296 bytes=10485760 bf16 stream=7 th=100 cpu=1700000",
	"K 9 cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_3_64x64x128_4x1x1_"
		"kernel0_0 grid=64,1,1 block=128,1,1 regs=255 smem=49152+0 stream=7 th=100 flags=0 "
		"cpu=1710000 gpu=1715000-1745000 it=1 lib=8",
	"K 10 void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, "
		"false, cutlass::bfloat16_t>>(Flash_fwd_params) grid=512,1,1 block=128,1,1 regs=255 "
		"smem=49152+0 stream=7 th=100 flags=0 cpu=1810000 gpu=1815000-1865000 it=1",
	NULL
};

START_TEST(kineto_attention)
{
	struct import_stats st;
	const char *out = import_checked("sdpa", kineto_sdpa_json, kineto_sdpa_expected, &st, NULL);
	ck_assert_uint_eq(st.attentions, 3);
	ck_assert_uint_eq(st.attn_unsized, 1);   /* the flash op without is_causal */
	char args[1024], err[2048] = "";
	snprintf(args, sizeof(args), "kineto %s -o %s", tmp("sdpa.json"), out);
	ck_assert_int_eq(run_import(args, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "warning: 1 fused attention ops without their shapes"));

	/* surfer-analyze predicts the described calls' kernels with the
	 * attention model, the one without a shape by scaling */
	static char j[1 << 16];
	analyze_json(out, "h100-sxm", j, sizeof(j));
	assert_method(j, "cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_"
			 "knob_3_64x64x128_4x1x1_kernel0_0", "attention");
	assert_method(j, "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_"
			 "kernel<Flash_bwd_kernel_traits<64, 128, 128, 8, 2, 4, 2, false, false, "
			 "cutlass::bfloat16_t>>(Flash_bwd_params)", "attention");
}
END_TEST

/* PyTorch's memory-efficient backend: an FP32 forward with Hugging Face's
 * broadcast padding mask ([2, 1, 256, 256], is_causal False) and a 16-bit
 * backward with a bias per head, its arguments after grad_out (bias the
 * fifth, is_causal the twelfth). */
static const char kineto_efficient_json[] =
"{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0,"
" \"name\": \"NVIDIA A100-SXM4-40GB\", \"computeMajor\": 8, \"computeMinor\": 0,"
" \"numSms\": 108}],\n"
"\"traceEvents\": [\n"
"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":100,"
"\"tid\":100,\"ts\":1000,\"dur\":2000},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::_scaled_dot_product_efficient_attention\",\"pid\":100,"
"\"tid\":100,\"ts\":1100,\"dur\":100,\"args\":{\"Input Dims\":[[2,12,256,64],[2,12,256,64],[2,12,256,64],[2,1,256,256],[],[],[],[]],"
"\"Input type\":[\"float\",\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\",\"Scalar\",\"\"],"
"\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"True\",\"0.\",\"False\",\"\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
"\"tid\":100,\"ts\":1110,\"dur\":2,\"args\":{\"correlation\":1}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<float, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)\",\"pid\":0,\"tid\":7,"
"\"ts\":1115,\"dur\":40,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1,"
"\"registers per thread\":128,\"shared memory\":49152,\"grid\":[4,12,2],\"block\":[32,4,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::_scaled_dot_product_efficient_attention_backward\",\"pid\":100,"
"\"tid\":100,\"ts\":1300,\"dur\":300,\"args\":{\"Input Dims\":[[2,12,256,64],[2,12,256,64],[2,12,256,64],[2,12,256,64],[2,12,256,256],[2,12,256,64],[2,12,256],[],[],[],[],[],[]],"
"\"Input type\":[\"c10::Half\",\"c10::Half\",\"c10::Half\",\"c10::Half\",\"c10::Half\",\"c10::Half\",\"float\",\"long int\",\"long int\",\"Scalar\",\"GenericList\",\"Scalar\",\"\"],"
"\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"0.\",\"[True, True, True, False]\",\"False\",\"\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
"\"tid\":100,\"ts\":1310,\"dur\":2,\"args\":{\"correlation\":2}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"fmha_cutlassB_f16_aligned_64x64_k64_sm80(PyTorchMemEffAttention::AttentionBackwardKernel<cutlass::arch::Sm80, cutlass::half_t, true, false, true, 64, 64, 64, false>::Params)\",\"pid\":0,\"tid\":7,"
"\"ts\":1315,\"dur\":90,\"args\":{\"device\":0,\"stream\":7,\"correlation\":2,"
"\"registers per thread\":128,\"shared memory\":81920,\"grid\":[4,12,2],\"block\":[128,1,1]}}\n"
"]}\n";

/* By hand: 2 x 256 x 256 = 131,072 pairs (no causal mask: the bias is the
 * mask); forward FLOPs 2 (64 + 64) 12 pairs = 402,653,184, bytes 4 (512
 * x 12 x 128) x 2 (Q and O, K and V) + 4 x 512 x 512 / 2 (the broadcast
 * bias) = 6,815,744; backward FLOPs 2 (3 x 64 + 2 x 64) 12 pairs =
 * 1,006,632,960, bytes 2 x (2 x 786,432 x 2) + 4 x 512 x 12 + 2 x 12 x
 * 512 x 512 / 2 = 9,461,760. */
static const char *const kineto_efficient_expected[] = {
	"M 1 it=1 cpu=1000000 th=100 name=ProfilerStep#1",
	"A 2 efficient bwd=0 causal=0 seqs=2 heads=12/12 d=64/64 q=512 kv=512 max=256 pairs=131072 "
		"flops=402653184 bytes=6815744 f32 stream=7 th=100 cpu=1100000 bias=1",
	"K 3 fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<float, "
		"cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params) grid=4,12,2 block=32,4,1 "
		"regs=128 smem=49152+0 stream=7 th=100 flags=0 cpu=1110000 gpu=1115000-1155000 it=1 lib=2",
	"A 4 efficient bwd=1 causal=0 seqs=2 heads=12/12 d=64/64 q=512 kv=512 max=256 pairs=131072 "
		"flops=1006632960 bytes=9461760 f16 stream=7 th=100 cpu=1300000 bias=12",
	"K 5 fmha_cutlassB_f16_aligned_64x64_k64_sm80(PyTorchMemEffAttention::AttentionBackwardKernel<"
		"cutlass::arch::Sm80, cutlass::half_t, true, false, true, 64, 64, 64, false>::Params) "
		"grid=4,12,2 block=128,1,1 regs=128 smem=0+81920 stream=7 th=100 flags=0 cpu=1310000 "
		"gpu=1315000-1405000 it=1 lib=4",
	NULL
};

START_TEST(kineto_efficient_attention)
{
	struct import_stats st;
	const char *out = import_checked("eff", kineto_efficient_json, kineto_efficient_expected, &st,
					 NULL);
	ck_assert_uint_eq(st.attentions, 2);
	ck_assert_uint_eq(st.attn_unsized, 0);

	/* both kernels go to the attention model, on a Hopper target and on
	 * a P100, where only these kernels run (on the CUDA cores) */
	static char j[1 << 16];
	for (int t = 0; t < 2; t++) {
		analyze_json(out, t ? "p100-pcie" : "h100-sxm", j, sizeof(j));
		assert_method(j, "fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::"
				 "AttentionKernel<float, cutlass::arch::Sm80, true, 64, 64, 64, true, "
				 "true>::Params)", "attention");
		assert_method(j, "fmha_cutlassB_f16_aligned_64x64_k64_sm80(PyTorchMemEffAttention::"
				 "AttentionBackwardKernel<cutlass::arch::Sm80, cutlass::half_t, true, "
				 "false, true, 64, 64, 64, false>::Params)", "attention");
	}
}
END_TEST

/* flash-attn's own ops (Hugging Face's flash_attention_2): tensors (batch,
 * tokens, heads, head dim), GQA's 2 KV heads of 8; a causal forward with
 * window_size_left 127 (a 128-key sliding window), a backward without. */
static const char kineto_flash_attn_json[] =
"{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0,"
" \"name\": \"NVIDIA A100-SXM4-40GB\", \"computeMajor\": 8, \"computeMinor\": 0,"
" \"numSms\": 108}],\n"
"\"traceEvents\": [\n"
"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":100,"
"\"tid\":100,\"ts\":1000,\"dur\":2000},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"flash_attn::_flash_attn_forward\",\"pid\":100,"
"\"tid\":100,\"ts\":1100,\"dur\":100,\"args\":{\"Input Dims\":[[2,256,8,64],[2,256,2,64],[2,256,2,64],[],[],[],[],[],[],[],[]],"
"\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"\",\"Scalar\"],"
"\"Concrete Inputs\":[\"\",\"\",\"\",\"0.\",\"0.125\",\"True\",\"127\",\"0\",\"0.\",\"\",\"False\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
"\"tid\":100,\"ts\":1110,\"dur\":2,\"args\":{\"correlation\":1}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t>, false, true, true>(Flash_fwd_params)\",\"pid\":0,\"tid\":7,"
"\"ts\":1115,\"dur\":20,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1,"
"\"registers per thread\":255,\"shared memory\":49152,\"grid\":[2,2,8],\"block\":[128,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"flash_attn::_flash_attn_backward\",\"pid\":100,"
"\"tid\":100,\"ts\":1300,\"dur\":300,\"args\":{\"Input Dims\":[[2,256,8,64],[2,256,8,64],[2,256,2,64],[2,256,2,64],[2,256,8,64],[2,8,256],[2,256,8,64],[2,256,2,64],[2,256,2,64],[],[],[],[],[],[],[],[],[]],"
"\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"float\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"\",\"Scalar\",\"\"],"
"\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"0.\",\"0.125\",\"True\",\"-1\",\"-1\",\"0.\",\"\",\"False\",\"\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
"\"tid\":100,\"ts\":1310,\"dur\":2,\"args\":{\"correlation\":2}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<64, 128, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t>, false, true, false, false, false, false, false>(Flash_bwd_params)\",\"pid\":0,\"tid\":7,"
"\"ts\":1315,\"dur\":60,\"args\":{\"device\":0,\"stream\":7,\"correlation\":2,"
"\"registers per thread\":255,\"shared memory\":49152,\"grid\":[2,2,8],\"block\":[256,1,1]}}\n"
"]}\n";

/* By hand: the forward's 128-key window on 256 causal queries, per
 * sequence 128 x 1 + 128 x 127 / 2 + 128 x 128 = 24,640 pairs, 49,280 in
 * all; FLOPs 2 (64 + 64) 8 pairs = 100,925,440, bytes 2 (512 x 8 x 128)
 * + 2 (512 x 2 x 128) = 1,310,720; the backward's causal pairs 2 x 256 x
 * 257 / 2 = 65,792, FLOPs 2 (3 x 64 + 2 x 64) 8 pairs = 336,855,040,
 * bytes 2 x (2 x 524,288 + 2 x 131,072) + 4 x 512 x 8 = 2,637,824. */
static const char *const kineto_flash_attn_expected[] = {
	"M 1 it=1 cpu=1000000 th=100 name=ProfilerStep#1",
	"A 2 fa2 bwd=0 causal=1 seqs=2 heads=8/2 d=64/64 q=512 kv=512 max=256 pairs=49280 "
		"flops=100925440 bytes=1310720 bf16 stream=7 th=100 cpu=1100000 window=128",
	"K 3 void flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
		"cutlass::bfloat16_t>, false, true, true>(Flash_fwd_params) grid=2,2,8 block=128,1,1 "
		"regs=255 smem=49152+0 stream=7 th=100 flags=0 cpu=1110000 gpu=1115000-1135000 it=1 "
		"lib=2",
	"A 4 fa2 bwd=1 causal=1 seqs=2 heads=8/2 d=64/64 q=512 kv=512 max=256 pairs=65792 "
		"flops=336855040 bytes=2637824 bf16 stream=7 th=100 cpu=1300000",
	"K 5 void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<64, 128, 128, "
		"8, 2, 4, 2, false, false, cutlass::bfloat16_t>, false, true, false, false, false, false, "
		"false>(Flash_bwd_params) grid=2,2,8 block=256,1,1 regs=255 smem=49152+0 stream=7 th=100 "
		"flags=0 cpu=1310000 gpu=1315000-1375000 it=1 lib=4",
	NULL
};

START_TEST(kineto_flash_attn_ops)
{
	struct import_stats st;
	import_checked("fa", kineto_flash_attn_json, kineto_flash_attn_expected, &st, NULL);
	ck_assert_uint_eq(st.attentions, 2);
}
END_TEST

/* flash-attn's varlen ops: a causal forward over three packed sequences
 * of 100, 60 and 60 tokens (longest 100), a backward over four of 200,
 * 50, 30 and 40 (320 tokens, longest 200; the profile gives neither
 * list), and a forward over a paged cache (a 4-D key: no record). */
static const char kineto_varlen_json[] =
"{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0,"
" \"name\": \"NVIDIA A100-SXM4-40GB\", \"computeMajor\": 8, \"computeMinor\": 0,"
" \"numSms\": 108}],\n"
"\"traceEvents\": [\n"
"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":100,"
"\"tid\":100,\"ts\":1000,\"dur\":2000},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"flash_attn::_flash_attn_varlen_forward\",\"pid\":100,"
"\"tid\":100,\"ts\":1100,\"dur\":100,\"args\":{\"Input Dims\":[[220,8,64],[220,2,64],[220,2,64],[4],[4],[],[],[],[],[],[],[],[],[],[],[],[],[],[]],"
"\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"int\",\"int\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"\",\"Scalar\",\"\",\"\",\"\",\"Scalar\"],"
"\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"\",\"100\",\"100\",\"0.\",\"0.125\",\"True\",\"-1\",\"-1\",\"0.\",\"\",\"False\",\"\",\"\",\"\",\"False\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
"\"tid\":100,\"ts\":1110,\"dur\":2,\"args\":{\"correlation\":1}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"flash_fwd_kernel\",\"pid\":0,\"tid\":7,"
"\"ts\":1115,\"dur\":20,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1,"
"\"grid\":[1,8,3],\"block\":[128,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"flash_attn::_flash_attn_varlen_backward\",\"pid\":100,"
"\"tid\":100,\"ts\":1300,\"dur\":300,\"args\":{\"Input Dims\":[[320,8,64],[320,8,64],[320,2,64],[320,2,64],[320,8,64],[4,8,200],[320,8,64],[320,2,64],[320,2,64],[5],[5],[],[],[],[],[],[],[],[],[],[],[]],"
"\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"float\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"int\",\"int\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"\",\"Scalar\",\"\"],"
"\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"200\",\"200\",\"0.\",\"0.125\",\"True\",\"-1\",\"-1\",\"0.\",\"\",\"False\",\"\"]}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
"\"tid\":100,\"ts\":1310,\"dur\":2,\"args\":{\"correlation\":2}},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel\",\"pid\":0,\"tid\":7,"
"\"ts\":1315,\"dur\":60,\"args\":{\"device\":0,\"stream\":7,\"correlation\":2,"
"\"grid\":[2,4,8],\"block\":[256,1,1]}},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"flash_attn::_flash_attn_varlen_forward\",\"pid\":100,"
"\"tid\":100,\"ts\":1700,\"dur\":100,\"args\":{\"Input Dims\":[[16,8,64],[64,16,2,64],[64,16,2,64],[17],[17],[],[],[],[],[],[]],"
"\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"\",\"1\",\"900\",\"0.\",\"0.125\",\"True\",\"-1\"]}}\n"
"]}\n";

/* By hand: the forward's causal pairs 100 x 101 / 2 + 2 x 60 x 61 / 2 =
 * 8,710 (estimated, as 220 is not 3 x 100, and exact: the two others
 * share 120 equally), FLOPs 2
 * (64 + 64) 8 pairs = 17,838,080, bytes 2 (220 x 8 x 128) + 2 (220 x 2 x
 * 128) = 563,200; the backward's taken as 200 and three of 40: 200 x 201
 * / 2 + 3 x 40 x 41 / 2 = 22,560 pairs (the real 200, 50, 30, 40 have
 * 22,236), FLOPs 2 (3 x 64 + 2 x 64) 8 pairs = 115,507,200, bytes 2 x (2
 * x 327,680 + 2 x 81,920) + 4 x 320 x 8 = 1,648,640. */
static const char *const kineto_varlen_expected[] = {
	"M 1 it=1 cpu=1000000 th=100 name=ProfilerStep#1",
	"A 2 fa2 bwd=0 causal=1 seqs=3 heads=8/2 d=64/64 q=220 kv=220 max=100 pairs=8710 "
		"flops=17838080 bytes=563200 bf16 stream=7 th=100 cpu=1100000",
	"K 3 flash_fwd_kernel grid=1,8,3 block=128,1,1 regs=0 smem=0+0 stream=7 th=100 flags=0 "
		"cpu=1110000 gpu=1115000-1135000 it=1 lib=2",
	"A 4 fa2 bwd=1 causal=1 seqs=4 heads=8/2 d=64/64 q=320 kv=320 max=200 pairs=22560 "
		"flops=115507200 bytes=1648640 bf16 stream=7 th=100 cpu=1300000",
	"K 5 flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel grid=2,4,8 block=256,1,1 regs=0 "
		"smem=0+0 stream=7 th=100 flags=0 cpu=1310000 gpu=1315000-1375000 it=1 lib=4",
	NULL
};

START_TEST(kineto_flash_attn_varlen)
{
	struct import_stats st;
	import_checked("fav", kineto_varlen_json, kineto_varlen_expected, &st, NULL);
	ck_assert_uint_eq(st.attentions, 2);
	ck_assert_uint_eq(st.attn_estimated, 2);   /* T != B x longest in both */
	ck_assert_uint_eq(st.attn_unsized, 1);
	/* their kernels reach the attention model on another GPU */
	static char j[1 << 16];
	analyze_json(tmp("fav.mp"), "h100-sxm", j, sizeof(j));
	assert_method(j, "flash_fwd_kernel", "attention");
	assert_method(j, "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel", "attention");
}
END_TEST

/* The CPU side (keep_cpu, import_cpu_nest).  Thread 1, in us: op A
 * [10, 20) with a nested op B [12, 25) that outlives it, a launch at 20
 * (A's last microsecond: still A's), op C at 21 (after A's end: a new
 * top-level op although B still runs) written first in the file, a sync
 * call at 32 after C [21, 31) ended (no op's); thread 2: an annotation
 * [0, 100), op D [5.25, 6.25) and op E starting where D ends (top-level);
 * a kernel and an instant event that are not CPU spans. */
static const char kineto_cpu_json[] =
"{\"traceEvents\": [\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"C\",\"tid\":1,\"ts\":21,\"dur\":10},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"A\",\"tid\":1,\"ts\":10,\"dur\":10},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"B\",\"tid\":1,\"ts\":12,\"dur\":13},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"tid\":1,\"ts\":20,\"dur\":0.5,"
"\"args\":{\"correlation\":1}},\n"
"{\"ph\":\"X\",\"cat\":\"cuda_driver\",\"name\":\"cuStreamSynchronize\",\"tid\":1,\"ts\":32,\"dur\":1},\n"
"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"tid\":7,\"ts\":21,\"dur\":3,"
"\"args\":{\"correlation\":1,\"device\":0,\"stream\":7}},\n"
"{\"ph\":\"i\",\"cat\":\"cpu_op\",\"name\":\"instant\",\"tid\":1,\"ts\":11},\n"
"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"Optimizer.step#1\",\"tid\":2,\"ts\":0,\"dur\":100},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"E\",\"tid\":2,\"ts\":6.25,\"dur\":0.75},\n"
"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"D\",\"tid\":2,\"ts\":5.25,\"dur\":1}\n"
"]}\n";

START_TEST(kineto_cpu_spans)
{
	const char *in = tmp("cpu.json");
	write_file(in, kineto_cpu_json);
	struct import_set set;
	char err[512] = "";
	import_set_init(&set);
	set.keep_cpu = 1;
	ck_assert_msg(import_kineto_read(&set, in, NULL, NULL, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(set.ncpu, 8);
	import_cpu_nest(&set);
	/* sorted: thread 1 A, B, launch, C, sync; thread 2 annotation, D, E */
	static const struct { const char *name; uint64_t ts_ns; int cat; int64_t outer; } want[] = {
		{ "A", 10000, IMPORT_CPU_OP, 0 },
		{ "B", 12000, IMPORT_CPU_OP, 0 },
		{ "cudaLaunchKernel", 20000, IMPORT_CPU_CALL, 0 },
		{ "C", 21000, IMPORT_CPU_OP, 3 },
		{ "cuStreamSynchronize", 32000, IMPORT_CPU_CALL, -1 },
		{ "Optimizer.step#1", 0, IMPORT_CPU_ANNOTATION, -1 },
		{ "D", 5250, IMPORT_CPU_OP, 6 },
		{ "E", 6250, IMPORT_CPU_OP, 7 },
	};
	for (size_t i = 0; i < 8; i++) {
		const struct import_cpu_span *c = &set.cpu[i];
		ck_assert_str_eq(import_string(&set, c->name), want[i].name);
		ck_assert_uint_eq(c->ts_ns, want[i].ts_ns);
		ck_assert_int_eq(c->cat, want[i].cat);
		ck_assert_int_eq(c->outer, want[i].outer);
	}
	ck_assert_int_eq(set.cpu[0].tid, 1);
	ck_assert_int_eq(set.cpu[7].tid, 2);
	ck_assert_uint_eq(set.cpu[2].dur_ns, 500);
	import_set_release(&set);

	/* without keep_cpu nothing of it is kept */
	import_set_init(&set);
	ck_assert_int_eq(import_kineto_read(&set, in, NULL, NULL, err, sizeof(err)), 0);
	ck_assert_uint_eq(set.ncpu, 0);
	import_set_release(&set);
}
END_TEST

START_TEST(real_kineto)
{
	const char *base = getenv("SURFER_DATA");
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/kineto", base && *base ? base : "../shared/data");
	DIR *d = opendir(dir);
	if (!d) {
		printf("check_import: %s absent, real-trace test skipped\n", dir);
		return;
	}
	struct dirent *e;
	int done = 0;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 8 || strcmp(e->d_name + len - 8, ".json.gz"))
			continue;
		char in[1024];
		snprintf(in, sizeof(in), "%s/%s", dir, e->d_name);
		long want = python_count(in);
		if (want < 0) {
			printf("check_import: python3 unavailable, real-trace test skipped\n");
			break;
		}
		struct import_stats st;
		char err[512] = "";
		/* the A100 traces name their board "A100-PG509-200", an alias
		 * of the A100-SXM4-40GB; no --origin is needed */
		const char *origin = NULL;
		int rc = import_kineto(in, tmp("real.mp"), origin, &st, err, sizeof(err));
		ck_assert_msg(rc == 0, "%s: %s", in, err);
		/* read back: as many kernels as Python counted, all dropped
		 * only if invalid */
		static char lines[1][320];
		(void)lines;
		struct trace_reader *r;
		ck_assert_int_eq(trace_reader_open(&r, tmp("real.mp"), err, sizeof(err)), 0);
		struct trace_record rec;
		long kernels = 0;
		while ((rc = trace_reader_next(r, &rec, err, sizeof(err))) == 1)
			kernels += rec.type == TRACE_KERNEL;
		ck_assert_msg(rc == 0, "%s: %s", in, err);
		trace_reader_free(r);
		ck_assert_msg(kernels + (long)st.invalid + (long)st.after_kernels == want,
			      "%s: %ld kernels + %llu invalid + %llu after the last step, "
			      "python counts %ld", e->d_name, kernels,
			      (unsigned long long)st.invalid,
			      (unsigned long long)st.after_kernels, want);
		ck_assert_uint_eq(st.invalid, 0);
		done++;
	}
	closedir(d);
	printf("check_import: %d real Kineto traces imported\n", done);
}
END_TEST

/* PyTorch's row-wise ops as torch.profiler records them: a layer norm
 * over the last dim, its normalized dims from the weight (aten::layer_norm
 * around aten::native_layer_norm: the inner op owns the kernel); one
 * without affine parameters, its normalized_shape two dims from "Concrete
 * Inputs"; a softmax over the last dim (dim -1); a 16-bit log-softmax with
 * half_to_float over dim 1 of a 2-D input (the last); a softmax over the
 * channels of a 4-D input (an inner dim: PyTorch's spatial kernel, no
 * record); a softmax without "Concrete Inputs" (its dim unknown: no
 * record, counted); a layer norm's backward (no record). */
#define KEV(name, ts, dur, args) \
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":100,\"tid\":100,\"ts\":" #ts \
	",\"dur\":" #dur ",\"args\":{" args "}},\n"
#define KLAUNCH(ts, kts, corr, kname, grid, block) \
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100," \
	"\"tid\":100,\"ts\":" #ts ",\"dur\":2,\"args\":{\"correlation\":" #corr "}},\n" \
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" kname "\",\"pid\":0,\"tid\":7,\"ts\":" #kts \
	",\"dur\":40,\"args\":{\"device\":0,\"stream\":7,\"correlation\":" #corr "," \
	"\"registers per thread\":32,\"shared memory\":0,\"grid\":" grid ",\"block\":" block "}}"
static const char kineto_rows_json[] =
"{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0,"
" \"name\": \"NVIDIA A100-SXM4-40GB\", \"computeMajor\": 8, \"computeMinor\": 0,"
" \"numSms\": 108}],\n"
"\"traceEvents\": [\n"
"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":100,"
"\"tid\":100,\"ts\":1000,\"dur\":9000},\n"
KEV("aten::layer_norm", 1100, 100, "\"Input Dims\":[[4,256,1024],[],[1024],[1024],[],[]],"
    "\"Input type\":[\"float\",\"\",\"float\",\"float\",\"Scalar\",\"Scalar\"]")
KEV("aten::native_layer_norm", 1101, 98, "\"Input Dims\":[[4,256,1024],[],[1024],[1024],[]],"
    "\"Input type\":[\"float\",\"\",\"float\",\"float\",\"Scalar\"]")
KLAUNCH(1110, 1115, 1, "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)",
	"[1024,1,1]", "[32,4,1]") ",\n"
KEV("aten::native_layer_norm", 1300, 100, "\"Input Dims\":[[8,64,64],[],[],[],[]],"
    "\"Input type\":[\"float\",\"\",\"\",\"\",\"Scalar\"],"
    "\"Concrete Inputs\":[\"\",\"[64, 64]\",\"\",\"\",\"1e-05\"]")
KLAUNCH(1310, 1315, 2, "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)",
	"[8,1,1]", "[32,4,1]") ",\n"
KEV("aten::_softmax", 1500, 100, "\"Input Dims\":[[2,12,512,512],[],[]],"
    "\"Input type\":[\"float\",\"Scalar\",\"Scalar\"],"
    "\"Concrete Inputs\":[\"\",\"-1\",\"False\"]")
KLAUNCH(1510, 1515, 3, "void (anonymous namespace)::softmax_warp_forward<float, float, float, 9, false, false>(float*, float const*, int, int, int, bool const*, int, bool)",
	"[3072,1,1]", "[128,1,1]") ",\n"
KEV("aten::_log_softmax", 1700, 100, "\"Input Dims\":[[4096,50257],[],[]],"
    "\"Input type\":[\"c10::BFloat16\",\"Scalar\",\"Scalar\"],"
    "\"Concrete Inputs\":[\"\",\"1\",\"True\"]")
KLAUNCH(1710, 1715, 4, "void (anonymous namespace)::cunn_SoftMaxForward<4, c10::BFloat16, float, float, (anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, c10::BFloat16 const*, int)",
	"[4096,1,1]", "[1024,1,1]") ",\n"
KEV("aten::_softmax", 1900, 100, "\"Input Dims\":[[8,10,32,32],[],[]],"
    "\"Input type\":[\"float\",\"Scalar\",\"Scalar\"],"
    "\"Concrete Inputs\":[\"\",\"1\",\"False\"]")
KLAUNCH(1910, 1915, 5, "void (anonymous namespace)::cunn_SpatialSoftMaxForward<float, float, float, (anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, unsigned int, unsigned int, unsigned int)",
	"[8,8,1]", "[16,32,1]") ",\n"
KEV("aten::_softmax", 2100, 100, "\"Input Dims\":[[2,12,512,512],[],[]],"
    "\"Input type\":[\"float\",\"Scalar\",\"Scalar\"]")
KLAUNCH(2110, 2115, 6, "void (anonymous namespace)::softmax_warp_forward<float, float, float, 9, false, false>(float*, float const*, int, int, int, bool const*, int, bool)",
	"[3072,1,1]", "[128,1,1]") ",\n"
KEV("aten::native_layer_norm_backward", 2300, 100,
    "\"Input Dims\":[[4,256,1024],[4,256,1024],[],[1024,1],[1024,1],[1024],[1024],[]],"
    "\"Input type\":[\"float\",\"float\",\"\",\"float\",\"float\",\"float\",\"float\",\"\"]")
KLAUNCH(2310, 2315, 7, "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel<float, float>(float const*, float const*, float const*, float const*, float const*, float*, int)",
	"[1024,1,1]", "[256,1,1]") "\n"
"]}\n";

/* By hand: 4 x 256 rows of 1024, FP32: 1,048,576 elements, FLOPs 8 each
 * (8,388,608), bytes 4 in + 4 out each (8,388,608); 8 rows of 64 x 64:
 * 32,768 elements, 262,144 and 262,144; 2 x 12 x 512 rows of 512:
 * 6,291,456 elements, FLOPs 5 each (31,457,280), bytes 8 each
 * (50,331,648); 4096 rows of 50,257 in BF16 out to FP32: 205,852,672
 * elements, 1,029,263,360 FLOPs, 2 + 4 bytes each (1,235,116,032). */
static const char *const kineto_rows_expected[] = {
	"M 1 it=1 cpu=1000000 th=100 name=ProfilerStep#1",
	"R 2 norm rows=1024 cols=1024 flops=8388608 bytes=8388608 f32 stream=7 th=100 cpu=1101000",
	"K 3 void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, "
		"float, float const*, float const*, float const*, float*, float*, float*) "
		"grid=1024,1,1 block=32,4,1 regs=32 smem=0+0 stream=7 th=100 flags=0 cpu=1110000 "
		"gpu=1115000-1155000 it=1 lib=2",
	"R 4 norm rows=8 cols=4096 flops=262144 bytes=262144 f32 stream=7 th=100 cpu=1300000",
	"K 5 void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, "
		"float, float const*, float const*, float const*, float*, float*, float*) "
		"grid=8,1,1 block=32,4,1 regs=32 smem=0+0 stream=7 th=100 flags=0 cpu=1310000 "
		"gpu=1315000-1355000 it=1 lib=4",
	"R 6 softmax rows=12288 cols=512 flops=31457280 bytes=50331648 f32 stream=7 th=100 "
		"cpu=1500000",
	"K 7 void (anonymous namespace)::softmax_warp_forward<float, float, float, 9, false, false>("
		"float*, float const*, int, int, int, bool const*, int, bool) grid=3072,1,1 "
		"block=128,1,1 regs=32 smem=0+0 stream=7 th=100 flags=0 cpu=1510000 "
		"gpu=1515000-1555000 it=1 lib=6",
	"R 8 softmax rows=4096 cols=50257 flops=1029263360 bytes=1235116032 bf16 stream=7 th=100 "
		"cpu=1700000",
	"K 9 void (anonymous namespace)::cunn_SoftMaxForward<4, c10::BFloat16, float, float, "
		"(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, c10::BFloat16 const*, int) "
		"grid=4096,1,1 block=1024,1,1 regs=32 smem=0+0 stream=7 th=100 flags=0 cpu=1710000 "
		"gpu=1715000-1755000 it=1 lib=8",
	"K 10 void (anonymous namespace)::cunn_SpatialSoftMaxForward<float, float, float, "
		"(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, unsigned int, "
		"unsigned int, unsigned int) grid=8,8,1 block=16,32,1 regs=32 smem=0+0 stream=7 th=100 "
		"flags=0 cpu=1910000 gpu=1915000-1955000 it=1",
	"K 11 void (anonymous namespace)::softmax_warp_forward<float, float, float, 9, false, false>("
		"float*, float const*, int, int, int, bool const*, int, bool) grid=3072,1,1 "
		"block=128,1,1 regs=32 smem=0+0 stream=7 th=100 flags=0 cpu=2110000 "
		"gpu=2115000-2155000 it=1",
	"K 12 void at::native::(anonymous namespace)::layer_norm_grad_input_kernel<float, float>("
		"float const*, float const*, float const*, float const*, float const*, float*, int) "
		"grid=1024,1,1 block=256,1,1 regs=32 smem=0+0 stream=7 th=100 flags=0 cpu=2310000 "
		"gpu=2315000-2355000 it=1",
	NULL
};

START_TEST(kineto_rowwise_ops)
{
	struct import_stats st;
	const char *out = import_checked("rows", kineto_rows_json, kineto_rows_expected, &st, NULL);
	ck_assert_uint_eq(st.rows_ops, 4);
	ck_assert_uint_eq(st.rows_unsized, 1);   /* the softmax without its dim */
	char args[1024], err[2048] = "";
	snprintf(args, sizeof(args), "kineto %s -o %s", tmp("rows.json"), out);
	ck_assert_int_eq(run_import(args, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "warning: 1 layer norms or softmaxes without"));

	/* on an H100: the FP32 layer norms and softmax of known rows go to the
	 * row-wise model (a ratio of their A100 times), the 16-bit
	 * log-softmax to the vector-op model; the kernels without a record
	 * keep wave scaling */
	static char j[1 << 16];
	analyze_json(out, "h100-sxm", j, sizeof(j));
	assert_method(j, "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, "
			 "float>(int, float, float const*, float const*, float const*, float*, float*, "
			 "float*)", "rowwise");
	assert_method(j, "void (anonymous namespace)::cunn_SoftMaxForward<4, c10::BFloat16, float, "
			 "float, (anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, "
			 "c10::BFloat16 const*, int)", "vecop");
	assert_method(j, "void (anonymous namespace)::cunn_SpatialSoftMaxForward<float, float, float, "
			 "(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, "
			 "unsigned int, unsigned int, unsigned int)", "wave");
	assert_method(j, "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel<float, "
			 "float>(float const*, float const*, float const*, float const*, float const*, "
			 "float*, int)", "wave");
}
END_TEST
#undef KEV
#undef KLAUNCH

static Suite *import_suite(void)
{
	Suite *s = suite_create("import");
	TCase *t = tcase_create("kineto");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, kineto_plain);
	tcase_add_test(t, kineto_collectives);
	tcase_add_test(t, kineto_gzip_same);
	tcase_add_test(t, kineto_device_choice);
	tcase_add_test(t, kineto_origin_override);
	tcase_add_test(t, kineto_bad_values);
	tcase_add_test(t, kineto_step_option);
	tcase_add_test(t, kineto_events);
	tcase_add_loop_test(t, kineto_item_blocks, 0, 2);
	tcase_add_test(t, step_names);
	tcase_add_test(t, kineto_cpu_spans);
	tcase_add_test(t, kineto_convolutions);
	tcase_add_test(t, kineto_convolution_backward);
	tcase_add_test(t, kineto_attention);
	tcase_add_test(t, kineto_efficient_attention);
	tcase_add_test(t, kineto_flash_attn_ops);
	tcase_add_test(t, kineto_flash_attn_varlen);
	tcase_add_test(t, kineto_fp8_gemm);
	tcase_add_test(t, kineto_rowwise_ops);
	suite_add_tcase(s, t);
	t = tcase_create("program");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, program_errors);
	suite_add_tcase(s, t);
	t = tcase_create("nsys");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, nsys_import);
	tcase_add_test(t, nsys_minimal);
	suite_add_tcase(s, t);
	t = tcase_create("real");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 120);
	tcase_add_test(t, real_kineto);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return check_run(import_suite());
}
