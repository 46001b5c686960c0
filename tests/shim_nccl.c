/*
 * shim_nccl.c - drives the fake libnccl like PyTorch's ProcessGroupNCCL:
 * an all-reduce of 1000 floats, an all-gather of 256 bf16 per rank, a
 * broadcast (whose error result must come back unchanged), a reduce-scatter
 * in a group of one kind (two calls of 128 bf16 per rank), an all-to-all as
 * a group of sends and receives to all four ranks (100 floats each), and a
 * send/recv pair with one peer (64 bytes).  Exits 0 when every result is
 * what the fake returns.  The trace is checked by shim_test.sh.
 */
#include <stddef.h>

int cuInit(unsigned flags);
int ncclAllReduce(const void *sb, void *rb, size_t n, int t, int op, void *c, void *s);
int ncclAllGather(const void *sb, void *rb, size_t n, int t, void *c, void *s);
int ncclReduceScatter(const void *sb, void *rb, size_t n, int t, int op, void *c, void *s);
int ncclBroadcast(const void *sb, void *rb, size_t n, int t, int root, void *c, void *s);
int ncclSend(const void *sb, size_t n, int t, int peer, void *c, void *s);
int ncclRecv(void *rb, size_t n, int t, int peer, void *c, void *s);
int ncclGroupStart(void);
int ncclGroupEnd(void);

#define FLOAT32 7
#define BF16 9
#define INT8 0

int main(void)
{
	void *comm = (void *)0x1000;
	char buf[16];
	int bad = 0;
	if (cuInit(0))
		return 3;
	bad |= ncclAllReduce(buf, buf, 1000, FLOAT32, 0, comm, NULL) != 0;
	bad |= ncclAllGather(buf, buf, 256, BF16, comm, NULL) != 0;
	bad |= ncclBroadcast(buf, buf, 10, INT8, 0, comm, NULL) != 5;
	bad |= ncclGroupStart() != 0;
	bad |= ncclReduceScatter(buf, buf, 128, BF16, 0, comm, NULL) != 0;
	bad |= ncclReduceScatter(buf, buf, 128, BF16, 0, comm, NULL) != 0;
	bad |= ncclGroupEnd() != 0;
	bad |= ncclGroupStart() != 0;
	for (int peer = 0; peer < 4; peer++) {
		bad |= ncclSend(buf, 100, FLOAT32, peer, comm, NULL) != 0;
		bad |= ncclRecv(buf, 100, FLOAT32, peer, comm, NULL) != 0;
	}
	bad |= ncclGroupEnd() != 0;
	bad |= ncclGroupStart() != 0;
	bad |= ncclSend(buf, 64, INT8, 2, comm, NULL) != 0;
	bad |= ncclRecv(buf, 64, INT8, 2, comm, NULL) != 0;
	bad |= ncclGroupEnd() != 0;
	return bad ? 1 : 0;
}
