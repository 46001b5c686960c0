/*
 * hooks_nccl.c - collective records from NCCL.
 *
 * PyTorch links libnccl.so.2 as an ordinary dependency (the nvidia-nccl
 * wheel), so our exported definitions interpose it as they interpose
 * cuBLAS.  One OP record of kind COMM per collective the program asks for
 * (trace format 1.3): the collective, the bytes (comm.h's convention: the
 * reduced buffer, the full all-gather output or reduce-scatter input, the
 * whole all-to-all send buffer, the message), the dtype, the
 * communicator's size and this process's rank in it, the communicator
 * (an opaque id) and the stream.  Every kernel NCCL launches inside the
 * call carries the record's seq in lib_call.
 *
 * Groups: between ncclGroupStart and ncclGroupEnd NCCL only queues the
 * calls and launches at the outermost ncclGroupEnd, so the calls of a group
 * are summed per thread into one record written there: PyTorch's all-to-all
 * and batched send/recv are a group of ncclSend/ncclRecv, FSDP's
 * coalesced collectives a group of one kind.  Sends and receives to every
 * peer are an all-to-all; otherwise send/recv of the larger direction.  A
 * group of different collectives is recorded as its largest one with the
 * bytes of all.
 *
 * The communicator's size and rank are asked of NCCL at each call
 * (ncclCommCount, ncclCommUserRank, both documented and cheap), which
 * covers every way a communicator is made (ncclCommInitRank, InitAll,
 * InitRankConfig, Split, Shrink) without a table of communicators.
 *
 * No nccl.h is needed: the few types are declared here as NCCL's
 * documented ABI has them (nccl.h of NCCL 2.x: ncclResult_t and
 * ncclDataType_t are C enums, ncclComm_t a pointer to an opaque struct,
 * ncclRedOp_t an enum passed as int, cudaStream_t a pointer).  Never
 * changes a result: the real function's return is returned unchanged,
 * errno is kept, and a library without a function leaves its hook
 * returning ncclSystemError only when the program called a function its
 * own NCCL lacks (which it cannot have linked).  ncclAlltoAll (NCCL 2.28)
 * is hooked too; ncclGather/ncclScatter are not (PyTorch does not call
 * them).
 */
#include <errno.h>
#include <string.h>

#include "preload/preload.h"

typedef int nccl_result;               /* ncclResult_t; 0 = ncclSuccess      */
typedef int nccl_dtype;                /* ncclDataType_t                      */
typedef int nccl_redop;                /* ncclRedOp_t                         */
typedef struct nccl_comm_opaque *nccl_comm; /* ncclComm_t                     */
typedef void *nccl_stream;             /* cudaStream_t                        */
#define NCCL_SYSTEM_ERROR 2            /* ncclSystemError                     */

typedef nccl_result (*coll_fn)(const void *, void *, size_t, nccl_dtype, nccl_redop, nccl_comm,
			       nccl_stream);
typedef nccl_result (*gather_fn)(const void *, void *, size_t, nccl_dtype, nccl_comm, nccl_stream);
typedef nccl_result (*bcast_fn)(const void *, void *, size_t, nccl_dtype, int, nccl_comm,
				nccl_stream);
typedef nccl_result (*reduce_fn)(const void *, void *, size_t, nccl_dtype, nccl_redop, int,
				 nccl_comm, nccl_stream);
typedef nccl_result (*send_fn)(const void *, size_t, nccl_dtype, int, nccl_comm, nccl_stream);
typedef nccl_result (*recv_fn)(void *, size_t, nccl_dtype, int, nccl_comm, nccl_stream);
typedef nccl_result (*group_fn)(void);
typedef nccl_result (*count_fn)(const nccl_comm, int *);

/* Indices in preload_nccl_hooks. */
enum {
	HN_ALL_REDUCE, HN_ALL_GATHER, HN_REDUCE_SCATTER, HN_BROADCAST, HN_REDUCE, HN_SEND,
	HN_RECV, HN_ALL_TO_ALL, HN_GROUP_START, HN_GROUP_END,
	HN_COUNT
};

#define NCCL_LIB "libnccl.so"

#define REAL(type, idx) ((type)preload_hook_real(&preload_nccl_hooks[idx], 0, NCCL_LIB))

/* ncclDataType_t -> trace dtype and element size (nccl.h's enum). */
static enum trace_dtype nccl_trace_dtype(nccl_dtype t)
{
	switch (t) {
	case 0: case 1: return TRACE_DT_I8;        /* ncclInt8, ncclUint8        */
	case 2: case 3: return TRACE_DT_I32;       /* ncclInt32, ncclUint32      */
	case 6: return TRACE_DT_F16;               /* ncclFloat16                */
	case 7: return TRACE_DT_F32;               /* ncclFloat32                */
	case 8: return TRACE_DT_F64;               /* ncclFloat64                */
	case 9: return TRACE_DT_BF16;              /* ncclBfloat16               */
	case 10: return TRACE_DT_F8E4M3;           /* ncclFloat8e4m3             */
	case 11: return TRACE_DT_F8E5M2;           /* ncclFloat8e5m2             */
	default: return TRACE_DT_UNKNOWN;          /* 64-bit integers, newer     */
	}
}

static double nccl_size(nccl_dtype t)
{
	static const double size[] = { 1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1 };
	return t >= 0 && (size_t)t < sizeof size / sizeof size[0] ? size[t] : 0;
}

/* The communicator's size and this process's rank, from NCCL itself. */
static void comm_shape(nccl_comm c, uint32_t *ranks, int32_t *rank)
{
	static count_fn count, user_rank;
	int n = 0, r = -1;
	if (!count)
		count = (count_fn)preload_lib_sym(NCCL_LIB, "ncclCommCount");
	if (!user_rank)
		user_rank = (count_fn)preload_lib_sym(NCCL_LIB, "ncclCommUserRank");
	if (!c || !count || count(c, &n) != 0 || n < 0)
		n = 0;
	if (!c || !user_rank || user_rank(c, &r) != 0 || r < 0 || r >= n)
		r = -1;
	*ranks = (uint32_t)n;
	*rank = r;
}

/* ---- per thread: the group being assembled ---------------------------- */

#define GROUP_PEERS 64   /* distinct send peers remembered (all-to-all test) */

static __thread struct {
	int depth;               /* ncclGroupStart nesting                     */
	int calls;               /* calls queued in the outermost group        */
	struct trace_op op;      /* the largest collective queued so far       */
	double bytes[TRACE_COLL_COUNT];
	double sent, received;   /* send/recv bytes                            */
	int peers[GROUP_PEERS];  /* distinct peers sent to                     */
	int npeers;
} grp;

/* The record of one call: bytes = count elements, times the group's size
 * where the call's count is per rank (all-gather, reduce-scatter,
 * all-to-all). */
static void op_init(struct trace_op *o, enum trace_collective c, size_t count, int per_rank,
		    nccl_dtype t, nccl_comm comm, nccl_stream s)
{
	memset(o, 0, sizeof *o);
	o->kind = TRACE_OPK_COMM;
	o->collective = c;
	o->dtype = nccl_trace_dtype(t);
	o->comm = (uint64_t)(uintptr_t)comm;
	o->stream = preload_stream_id(s, 0);
	comm_shape(comm, &o->ranks, &o->rank);
	o->bytes = (double)count * nccl_size(t) * (per_rank && o->ranks ? o->ranks : 1);
}

/* Adds a call made inside a group to the thread's group. */
static void group_add(const struct trace_op *o, int send_peer, int recv)
{
	if (grp.calls++ == 0) {
		memset(grp.bytes, 0, sizeof grp.bytes);
		grp.sent = grp.received = 0;
		grp.npeers = 0;
		grp.op = *o;
	}
	if (recv) {
		grp.received += o->bytes;
	} else if (send_peer >= 0) {
		grp.sent += o->bytes;
		int seen = 0;
		for (int i = 0; i < grp.npeers; i++)
			seen |= grp.peers[i] == send_peer;
		if (!seen && grp.npeers < GROUP_PEERS)
			grp.peers[grp.npeers++] = send_peer;
	}
	grp.bytes[o->collective] += o->bytes;
	if (o->bytes > grp.op.bytes && o->collective != TRACE_COLL_SEND_RECV)
		grp.op = *o;
}

/* The one record of a finished group (see the file comment). */
static void group_op(struct trace_op *o)
{
	double other = 0;
	*o = grp.op;
	for (int c = 0; c < TRACE_COLL_COUNT; c++)
		if (c != TRACE_COLL_SEND_RECV)
			other += grp.bytes[c];
	if (other > 0) {
		o->bytes = other + (grp.sent > grp.received ? grp.sent : grp.received);
		return;
	}
	o->collective = TRACE_COLL_SEND_RECV;
	o->bytes = grp.sent > grp.received ? grp.sent : grp.received;
	/* sends to every other rank (and maybe itself): an all-to-all */
	if (o->ranks > 2 && (uint32_t)grp.npeers + 1 >= o->ranks) {
		o->collective = TRACE_COLL_ALL_TO_ALL;
		o->bytes = grp.sent;
	}
}

/* Enters the library call whose record is o: every kernel launched until
 * call_leave carries its seq; the record is written when the call is the
 * outermost one. */
static void op_enter(struct trace_op *o)
{
	uint64_t seq;
	if (preload_lib_enter(&seq)) {
		o->seq = seq;
		preload_op(o);
	}
}

/* Before the real call, when recording: outside a group, writes the
 * call's record and enters the library (op_enter); inside one, adds it to
 * the group.  Keeps errno.  Returns whether call_leave must leave.
 * send_peer: the peer of an ncclSend, else -1; recv: an ncclRecv. */
static int call_enter(enum trace_collective c, size_t count, int per_rank, nccl_dtype t,
		      nccl_comm comm, nccl_stream s, int send_peer, int recv)
{
	if (!preload_recording())
		return 0;
	int e = errno, on = grp.depth == 0;
	struct trace_op o;
	op_init(&o, c, count, per_rank, t, comm, s);
	if (on)
		op_enter(&o);
	else
		group_add(&o, send_peer, recv);
	errno = e;
	return on;
}

/* After it: leaves the library call (when on); returns r. */
static nccl_result call_leave(int on, nccl_result r)
{
	if (on)
		preload_lib_leave();
	return r;
}

PRELOAD_EXPORT nccl_result ncclAllReduce(const void *sb, void *rb, size_t count, nccl_dtype t,
					 nccl_redop op, nccl_comm comm, nccl_stream s);
PRELOAD_EXPORT nccl_result ncclAllGather(const void *sb, void *rb, size_t count, nccl_dtype t,
					 nccl_comm comm, nccl_stream s);
PRELOAD_EXPORT nccl_result ncclReduceScatter(const void *sb, void *rb, size_t count,
					     nccl_dtype t, nccl_redop op, nccl_comm comm,
					     nccl_stream s);
PRELOAD_EXPORT nccl_result ncclBroadcast(const void *sb, void *rb, size_t count, nccl_dtype t,
					 int root, nccl_comm comm, nccl_stream s);
PRELOAD_EXPORT nccl_result ncclReduce(const void *sb, void *rb, size_t count, nccl_dtype t,
				      nccl_redop op, int root, nccl_comm comm, nccl_stream s);
PRELOAD_EXPORT nccl_result ncclSend(const void *sb, size_t count, nccl_dtype t, int peer,
				    nccl_comm comm, nccl_stream s);
PRELOAD_EXPORT nccl_result ncclRecv(void *rb, size_t count, nccl_dtype t, int peer,
				    nccl_comm comm, nccl_stream s);
PRELOAD_EXPORT nccl_result ncclAlltoAll(const void *sb, void *rb, size_t count, nccl_dtype t,
					nccl_comm comm, nccl_stream s);
PRELOAD_EXPORT nccl_result ncclGroupStart(void);
PRELOAD_EXPORT nccl_result ncclGroupEnd(void);

PRELOAD_EXPORT nccl_result ncclAllReduce(const void *sb, void *rb, size_t count, nccl_dtype t,
					 nccl_redop op, nccl_comm comm, nccl_stream s)
{
	coll_fn real = REAL(coll_fn, HN_ALL_REDUCE);
	if (!real)
		return NCCL_SYSTEM_ERROR;
	int on = call_enter(TRACE_COLL_ALL_REDUCE, count, 0, t, comm, s, -1, 0);
	return call_leave(on, real(sb, rb, count, t, op, comm, s));
}

/* count is what each rank sends; the output holds ranks of them */
PRELOAD_EXPORT nccl_result ncclAllGather(const void *sb, void *rb, size_t count, nccl_dtype t,
					 nccl_comm comm, nccl_stream s)
{
	gather_fn real = REAL(gather_fn, HN_ALL_GATHER);
	if (!real)
		return NCCL_SYSTEM_ERROR;
	int on = call_enter(TRACE_COLL_ALL_GATHER, count, 1, t, comm, s, -1, 0);
	return call_leave(on, real(sb, rb, count, t, comm, s));
}

/* count is what each rank receives; the input holds ranks of them */
PRELOAD_EXPORT nccl_result ncclReduceScatter(const void *sb, void *rb, size_t count,
					     nccl_dtype t, nccl_redop op, nccl_comm comm,
					     nccl_stream s)
{
	coll_fn real = REAL(coll_fn, HN_REDUCE_SCATTER);
	if (!real)
		return NCCL_SYSTEM_ERROR;
	int on = call_enter(TRACE_COLL_REDUCE_SCATTER, count, 1, t, comm, s, -1, 0);
	return call_leave(on, real(sb, rb, count, t, op, comm, s));
}

PRELOAD_EXPORT nccl_result ncclBroadcast(const void *sb, void *rb, size_t count, nccl_dtype t,
					 int root, nccl_comm comm, nccl_stream s)
{
	bcast_fn real = REAL(bcast_fn, HN_BROADCAST);
	if (!real)
		return NCCL_SYSTEM_ERROR;
	int on = call_enter(TRACE_COLL_BROADCAST, count, 0, t, comm, s, -1, 0);
	return call_leave(on, real(sb, rb, count, t, root, comm, s));
}

PRELOAD_EXPORT nccl_result ncclReduce(const void *sb, void *rb, size_t count, nccl_dtype t,
				      nccl_redop op, int root, nccl_comm comm, nccl_stream s)
{
	reduce_fn real = REAL(reduce_fn, HN_REDUCE);
	if (!real)
		return NCCL_SYSTEM_ERROR;
	int on = call_enter(TRACE_COLL_REDUCE, count, 0, t, comm, s, -1, 0);
	return call_leave(on, real(sb, rb, count, t, op, root, comm, s));
}

PRELOAD_EXPORT nccl_result ncclSend(const void *sb, size_t count, nccl_dtype t, int peer,
				    nccl_comm comm, nccl_stream s)
{
	send_fn real = REAL(send_fn, HN_SEND);
	if (!real)
		return NCCL_SYSTEM_ERROR;
	int on = call_enter(TRACE_COLL_SEND_RECV, count, 0, t, comm, s, peer, 0);
	return call_leave(on, real(sb, count, t, peer, comm, s));
}

PRELOAD_EXPORT nccl_result ncclRecv(void *rb, size_t count, nccl_dtype t, int peer,
				    nccl_comm comm, nccl_stream s)
{
	recv_fn real = REAL(recv_fn, HN_RECV);
	if (!real)
		return NCCL_SYSTEM_ERROR;
	int on = call_enter(TRACE_COLL_SEND_RECV, count, 0, t, comm, s, -1, 1);
	return call_leave(on, real(rb, count, t, peer, comm, s));
}

/* NCCL 2.28: count elements to each peer and from each peer */
PRELOAD_EXPORT nccl_result ncclAlltoAll(const void *sb, void *rb, size_t count, nccl_dtype t,
					nccl_comm comm, nccl_stream s)
{
	gather_fn real = REAL(gather_fn, HN_ALL_TO_ALL);
	if (!real)
		return NCCL_SYSTEM_ERROR;
	int on = call_enter(TRACE_COLL_ALL_TO_ALL, count, 1, t, comm, s, -1, 0);
	return call_leave(on, real(sb, rb, count, t, comm, s));
}

PRELOAD_EXPORT nccl_result ncclGroupStart(void)
{
	group_fn real = REAL(group_fn, HN_GROUP_START);
	if (!real)
		return NCCL_SYSTEM_ERROR;
	if (grp.depth++ == 0)
		grp.calls = 0;
	return real();
}

/* The outermost end launches the group's kernels: they carry the seq of
 * the group's record, written just before. */
PRELOAD_EXPORT nccl_result ncclGroupEnd(void)
{
	group_fn real = REAL(group_fn, HN_GROUP_END);
	if (!real)
		return NCCL_SYSTEM_ERROR;
	int on = 0;
	if (grp.depth > 0 && --grp.depth == 0 && grp.calls > 0 && preload_recording()) {
		int e = errno;
		struct trace_op o;
		group_op(&o);
		on = 1;
		op_enter(&o);
		grp.calls = 0;
		errno = e;
	}
	return call_leave(on, real());
}

struct preload_hook preload_nccl_hooks[HN_COUNT + 1] = {
	[HN_ALL_REDUCE] = PRELOAD_LIB_HOOK("ncclAllReduce", ncclAllReduce),
	[HN_ALL_GATHER] = PRELOAD_LIB_HOOK("ncclAllGather", ncclAllGather),
	[HN_REDUCE_SCATTER] = PRELOAD_LIB_HOOK("ncclReduceScatter", ncclReduceScatter),
	[HN_BROADCAST] = PRELOAD_LIB_HOOK("ncclBroadcast", ncclBroadcast),
	[HN_REDUCE] = PRELOAD_LIB_HOOK("ncclReduce", ncclReduce),
	[HN_SEND] = PRELOAD_LIB_HOOK("ncclSend", ncclSend),
	[HN_RECV] = PRELOAD_LIB_HOOK("ncclRecv", ncclRecv),
	[HN_ALL_TO_ALL] = PRELOAD_LIB_HOOK("ncclAlltoAll", ncclAlltoAll),
	[HN_GROUP_START] = PRELOAD_LIB_HOOK("ncclGroupStart", ncclGroupStart),
	[HN_GROUP_END] = PRELOAD_LIB_HOOK("ncclGroupEnd", ncclGroupEnd),
	[HN_COUNT] = { NULL, { NULL, NULL }, 0, { NULL, NULL }, { NULL, NULL } },
};
