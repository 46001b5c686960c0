/*
 * fake_nccl.c - a stand-in for libnccl.so.2, so the tests can check what
 * the recorder writes for NCCL calls without NCCL or a GPU.
 *
 * Every communicator has 4 ranks and this process is rank 1.  A collective
 * outside a group launches one kernel through the (fake) driver, as NCCL
 * does; inside ncclGroupStart/ncclGroupEnd the calls only queue and the
 * outermost ncclGroupEnd launches one kernel.  ncclBroadcast returns
 * ncclInvalidUsage (5), so the test sees that a result passes through
 * unchanged; the others return ncclSuccess.  Each entry point notes the
 * errno it was called with (fake_nccl_errno) and leaves FAKE_NCCL_ERRNO,
 * so the test sees that errno passes through both ways.
 */
#include <errno.h>
#include <stddef.h>

#define API __attribute__((visibility("default")))

int cuModuleGetFunction(void **f, void *mod, const char *name);
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
		   unsigned bz, unsigned smem, void *s, void **p, void **x);

static int depth, queued;

#define FAKE_NCCL_ERRNO 121
static int seen_errno = -1;
API int fake_nccl_errno(void);
int fake_nccl_errno(void) { return seen_errno; }

/* What an entry point returns: r, with errno FAKE_NCCL_ERRNO. */
static int answer(int r)
{
	errno = FAKE_NCCL_ERRNO;
	return r;
}

static int launch(const char *name)
{
	void *f = NULL;
	if (cuModuleGetFunction(&f, NULL, name) != 0)
		return 3;  /* ncclSystemError */
	return cuLaunchKernel(f, 4, 1, 1, 512, 1, 1, 0, NULL, NULL, NULL) ? 3 : 0;
}

static int run(const char *name)
{
	seen_errno = errno;
	if (depth > 0) {
		queued++;
		return 0;
	}
	return launch(name);
}

API int ncclCommCount(const void *comm, int *count) { (void)comm; *count = 4; return 0; }
API int ncclCommUserRank(const void *comm, int *rank) { (void)comm; *rank = 1; return 0; }
API int ncclAllReduce(const void *sb, void *rb, size_t n, int t, int op, void *c, void *s)
{
	(void)sb; (void)rb; (void)n; (void)t; (void)op; (void)c; (void)s;
	return answer(run("ncclDevKernel_AllReduce_Sum_f32_RING_LL"));
}
API int ncclAllGather(const void *sb, void *rb, size_t n, int t, void *c, void *s)
{
	(void)sb; (void)rb; (void)n; (void)t; (void)c; (void)s;
	return answer(run("ncclDevKernel_AllGather_RING_LL"));
}
API int ncclReduceScatter(const void *sb, void *rb, size_t n, int t, int op, void *c, void *s)
{
	(void)sb; (void)rb; (void)n; (void)t; (void)op; (void)c; (void)s;
	return answer(run("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL"));
}
API int ncclBroadcast(const void *sb, void *rb, size_t n, int t, int root, void *c, void *s)
{
	(void)sb; (void)rb; (void)n; (void)t; (void)root; (void)c; (void)s;
	int r = run("ncclDevKernel_Broadcast_RING_LL");
	return answer(r ? r : 5);  /* ncclInvalidUsage */
}
API int ncclSend(const void *sb, size_t n, int t, int peer, void *c, void *s)
{
	(void)sb; (void)n; (void)t; (void)peer; (void)c; (void)s;
	return answer(run("ncclDevKernel_SendRecv"));
}
API int ncclRecv(void *rb, size_t n, int t, int peer, void *c, void *s)
{
	(void)rb; (void)n; (void)t; (void)peer; (void)c; (void)s;
	return answer(run("ncclDevKernel_SendRecv"));
}
API int ncclReduce(const void *sb, void *rb, size_t n, int t, int op, int root, void *c, void *s)
{
	(void)sb; (void)rb; (void)n; (void)t; (void)op; (void)root; (void)c; (void)s;
	return answer(run("ncclDevKernel_Reduce_Sum_f32_RING_LL"));
}
API int ncclAlltoAll(const void *sb, void *rb, size_t n, int t, void *c, void *s)
{
	(void)sb; (void)rb; (void)n; (void)t; (void)c; (void)s;
	return answer(run("ncclDevKernel_AlltoAll"));
}
API int ncclGroupStart(void) { seen_errno = errno; depth++; return answer(0); }
API int ncclGroupEnd(void)
{
	seen_errno = errno;
	if (depth == 0)
		return answer(5);
	if (--depth == 0 && queued) {
		queued = 0;
		return answer(launch("ncclDevKernel_SendRecv"));
	}
	return answer(0);
}
