/*
 * shim_nccl.c - drives the fake libnccl like PyTorch's ProcessGroupNCCL:
 * an all-reduce of 1000 floats, an all-gather of 256 bf16 per rank, a
 * broadcast (whose error result must come back unchanged), a reduce-scatter
 * in a group of one kind (two calls of 128 bf16 per rank), an all-to-all as
 * a group of sends and receives to all four ranks (100 floats each), and a
 * send/recv pair with one peer (64 bytes), then a reduce of 50 floats and
 * an all-to-all of 25 floats to each rank.  Exits 0 when every result is
 * what the fake returns and errno passed through both ways (the fake saw
 * the program's, the program got the fake's).  The trace is checked by
 * shim_test.sh.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

int cuInit(unsigned flags);
int ncclAllReduce(const void *sb, void *rb, size_t n, int t, int op, void *c, void *s);
int ncclAllGather(const void *sb, void *rb, size_t n, int t, void *c, void *s);
int ncclReduceScatter(const void *sb, void *rb, size_t n, int t, int op, void *c, void *s);
int ncclBroadcast(const void *sb, void *rb, size_t n, int t, int root, void *c, void *s);
int ncclSend(const void *sb, size_t n, int t, int peer, void *c, void *s);
int ncclRecv(void *rb, size_t n, int t, int peer, void *c, void *s);
int ncclReduce(const void *sb, void *rb, size_t n, int t, int op, int root, void *c, void *s);
int ncclAlltoAll(const void *sb, void *rb, size_t n, int t, void *c, void *s);
int ncclGroupStart(void);
int ncclGroupEnd(void);
int fake_nccl_errno(void);

#define FLOAT32 7
#define BF16 9
#define INT8 0
#define CALLER_ERRNO 33
#define FAKE_NCCL_ERRNO 121

/* r is not want, or errno did not pass through: 1. */
static int wrong(int r, int want)
{
	int e = errno, seen = fake_nccl_errno();
	errno = CALLER_ERRNO;   /* for the next call */
	if (r == want && e == FAKE_NCCL_ERRNO && seen == CALLER_ERRNO)
		return 0;
	fprintf(stderr, "shim_nccl: result %d (want %d), errno %d (want %d), NCCL saw %d (want %d)\n",
		r, want, e, FAKE_NCCL_ERRNO, seen, CALLER_ERRNO);
	return 1;
}

int main(void)
{
	void *comm = (void *)0x1000;
	char buf[16];
	int bad = 0;
	if (cuInit(0))
		return 3;
	errno = CALLER_ERRNO;
	bad |= wrong(ncclAllReduce(buf, buf, 1000, FLOAT32, 0, comm, NULL), 0);
	bad |= wrong(ncclAllGather(buf, buf, 256, BF16, comm, NULL), 0);
	bad |= wrong(ncclBroadcast(buf, buf, 10, INT8, 0, comm, NULL), 5);
	bad |= wrong(ncclGroupStart(), 0);
	bad |= wrong(ncclReduceScatter(buf, buf, 128, BF16, 0, comm, NULL), 0);
	bad |= wrong(ncclReduceScatter(buf, buf, 128, BF16, 0, comm, NULL), 0);
	bad |= wrong(ncclGroupEnd(), 0);
	bad |= wrong(ncclGroupStart(), 0);
	for (int peer = 0; peer < 4; peer++) {
		bad |= wrong(ncclSend(buf, 100, FLOAT32, peer, comm, NULL), 0);
		bad |= wrong(ncclRecv(buf, 100, FLOAT32, peer, comm, NULL), 0);
	}
	bad |= wrong(ncclGroupEnd(), 0);
	bad |= wrong(ncclGroupStart(), 0);
	bad |= wrong(ncclSend(buf, 64, INT8, 2, comm, NULL), 0);
	bad |= wrong(ncclRecv(buf, 64, INT8, 2, comm, NULL), 0);
	bad |= wrong(ncclGroupEnd(), 0);
	bad |= wrong(ncclReduce(buf, buf, 50, FLOAT32, 0, 0, comm, NULL), 0);
	bad |= wrong(ncclAlltoAll(buf, buf, 25, FLOAT32, comm, NULL), 0);
	return bad ? 1 : 0;
}
