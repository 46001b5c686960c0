/*
 * preload.h - internal interfaces of the recorder library libsurfer.so.
 *
 * Nothing here is exported: the library is built with -fvisibility=hidden
 * and only the hooks (dlsym, dlvsym, cu*, cublas*, cudnn*) carry default
 * visibility.  The pieces:
 *   resolve.c   every dlsym/dlvsym/cuGetProcAddress resolution, the hook table
 *   hooks_*.c   the hooks themselves (driver, cuBLAS/cuBLASLt, cuDNN, NCCL)
 *   the recorder (recorder.h lists its files): what the hooks call
 *               (entries.c, devmem.c), settings, per-thread rings, the
 *               single trace writer, the joins of GPU times to records
 *   log.c       clocks and messages (a leaf every file may call)
 *   events.c    CUDA-event timing (fallback): the recorder asks it
 *   cupti.c     CUPTI activity timing (loaded at run time): it reports
 *               into a sink (struct preload_cupti_sink) and calls nothing
 *               else of the recorder
 *   stacks.c    launch call stacks (SURFER_STACKS=1)
 *   graphs.c    which stream capture each CUDA graph came from
 * Constraints: never change what the host computes; no global lock on the
 * launch path; a failure turns recording off with one warning.
 */
#ifndef SURFER_PRELOAD_H
#define SURFER_PRELOAD_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "trace/trace.h"

#define PRELOAD_EXPORT __attribute__((visibility("default")))

/* Driver types as plain C, so these declarations need no cuda.h. */
typedef int preload_cures;          /* CUresult; 0 = CUDA_SUCCESS          */
typedef void *preload_stream;       /* CUstream                            */
typedef void *preload_event;        /* CUevent                             */
typedef void *preload_func;         /* CUfunction (or CUkernel)            */

/* CUDA_ERROR_NOT_INITIALIZED / CUDA_ERROR_NOT_FOUND, returned by an exported
 * hook whose real function cannot be found. */
#define PRELOAD_CU_NOT_INITIALIZED 3
#define PRELOAD_CU_NOT_FOUND 500
#define PRELOAD_CU_NOT_READY 600
#define PRELOAD_STREAM_LEGACY ((preload_stream)0x1)
#define PRELOAD_STREAM_PER_THREAD ((preload_stream)0x2)

/* ---- resolve.c ------------------------------------------------------- */

/* The real dlsym/dlvsym of the C library (found by reading its dynamic
 * symbol table, never through our own hooks); NULL when not found. */
extern void *(*preload_real_dlsym)(void *, const char *);
extern void *(*preload_real_dlvsym)(void *, const char *, const char *);

/* One hooked driver or library entry point.  Variant 0 is the legacy
 * default-stream function, variant 1 the per-thread-default-stream one
 * (_ptsz/_ptds); real[v] is the function the library or driver gave for that
 * variant (NULL until seen), hook[v] our wrapper (NULL: variant not hooked). */
struct preload_hook {
	const char *base;          /* name asked of cuGetProcAddress           */
	const char *sym[2];        /* exported names of the two variants       */
	int min_version;           /* getter versions below: not wrapped        */
	void *hook[2];
	void *volatile real[2];
	int max_version;           /* from this version on another entry's ABI  */
				   /* (0: none); cuCtxSynchronize takes a context */
				   /* from 13000 */
};

/* Looks a hooked entry up by exported symbol name: returns it and the
 * variant in *variant, or NULL. */
struct preload_hook *preload_hook_by_sym(const char *sym, int *variant);

/* Real function of a hook variant, resolving it from the already-loaded
 * driver (or library soname) when no lookup has shown it yet.  NULL when
 * it cannot be found. */
void *preload_real(struct preload_hook *h, int variant, const char *soname);

/* The real function of a hook variant as each wrapper asks for it on
 * every call: the pointer already resolved, else preload_real's lookup.
 * NULL when the driver or library lacks it. */
static inline void *preload_hook_real(struct preload_hook *h, int variant, const char *soname)
{
	void *p = __atomic_load_n(&h->real[variant], __ATOMIC_ACQUIRE);
	return p ? p : preload_real(h, variant, soname);
}

/* The table entry of a library hook (cuBLAS, cuDNN, NCCL): one variant,
 * exported and asked for as name. */
#define PRELOAD_LIB_HOOK(name, hook) \
	{ name, { name, NULL }, 0, { (void *)(hook), NULL }, { NULL, NULL } }

/* A function of an already-loaded library (soname, or "libx.so" for any
 * of its versions), found without our hooks, else through RTLD_NEXT. */
void *preload_lib_sym(const char *soname, const char *sym);

/* A driver function the recorder itself calls (names, attributes, events),
 * looked up in the loaded libcuda.so.1 without our hooks; NULL if absent. */
void *preload_driver_sym(const char *sym);

/* ---- the hook tables (hooks_cuda.c, hooks_cublas.c, hooks_cudnn.c,
 * hooks_nccl.c) ----
 * Each is indexed by its file's enum (HK_*, HB_*, HD_*, HN_*) through designated
 * initializers and ends with an entry whose base is NULL, where the walks
 * here stop: every index below the end needs its entry (shim_test.sh
 * checks). */
extern struct preload_hook preload_cuda_hooks[];
extern struct preload_hook preload_cublas_hooks[];
extern struct preload_hook preload_cudnn_hooks[];
extern struct preload_hook preload_nccl_hooks[];
enum { PRELOAD_HK_GETPROC = 0, PRELOAD_HK_GETPROC_V2 = 1 }; /* indices in preload_cuda_hooks */
/* The getters we hand out (4-argument form of CUDA 11.3, 5-argument form of
 * CUDA 12): they call the real getter and wrap what it answers. */
preload_cures preload_getproc4(const char *sym, void **pfn, int ver, uint64_t flags);
preload_cures preload_getproc5(const char *sym, void **pfn, int ver, uint64_t flags, int *status);

/* ---- settings.c, funcinfo.c, recorder.c ------------------------------ */

struct preload_settings {
	int disabled;              /* SURFER_DISABLE=1                          */
	int verbose;               /* SURFER_VERBOSE=1                          */
	int timing;                /* requested enum trace_timing (CUPTI default) */
	int skip, iterations;      /* SURFER_SKIP, SURFER_ITERATIONS (0 = unset) */
	int stacks;                /* SURFER_STACKS=1                           */
	char output[1024];         /* SURFER_OUTPUT, %p not yet expanded        */
	int world_size;            /* WORLD_SIZE, as torchrun and the launchers
				    * that follow it set it: the GPUs of the job
				    * (the header's world_size); 0 unset       */
};
extern struct preload_settings preload_cfg;

/* Cached facts about one kernel handle. */
struct preload_funcinfo {
	const char *name;          /* owned copy of the (mangled) name or NULL  */
	uint32_t regs, static_smem;
	uint32_t name_id, name_gen; /* interned id, valid for writer generation */
	uint32_t unloads;          /* modules unloaded when it was asked (funcinfo.c) */
};

/* Per-thread state; the pointer is NULL until the thread first records. */
struct preload_thread;

/* ---- recorder.c: state ---------------------------------------------- */

/* 1 while hooks should record (initialized, enabled, inside the capture
 * window); cheap, callable from every hook. */
int preload_recording(void);
/* Called by a launch that is not recorded: before the first capture
 * window, settles the timing now (recorder.c says why). */
void preload_not_recorded(void);

/* ---- entries.c: what the hooks record -------------------------------- */

/* Library-call nesting of the calling thread, for cuBLAS/cuDNN hooks:
 * enter returns 1 when this call is the outermost one (and should be
 * recorded), leave undoes it.  *seq receives the record's sequence number. */
int preload_lib_enter(uint64_t *seq);
void preload_lib_leave(void);

/* Everything a launch hook knows about one launch. */
struct preload_launch {
	preload_func f;
	uint32_t grid[3], block[3], cluster[3];
	uint32_t dyn_smem;
	preload_stream stream;
	uint32_t flags;            /* TRACE_KF_*                                */
};

/* Token carried from launch_begin to launch_end. */
struct preload_launch_tok {
	struct preload_thread *t;
	uint64_t seq;
	uint64_t cpu_ns;
	preload_event ev[2];
	uint8_t ev_slot;           /* their context's slot (events.c)           */
	int active;
	int captured;              /* the stream was capturing a graph          */
	uint64_t graph;            /* the record's graph: a captured launch's
				    * capture, a replay's executable graph's
				    * (graphs.c); 0 none or unknown            */
};

/* Called around the real launch: begin takes the CPU time, pushes the
 * CUPTI correlation id and records the start event; end records the end
 * event and queues the kernel record when the launch succeeded. */
void preload_launch_begin(const struct preload_launch *l, struct preload_launch_tok *tok);
void preload_launch_end(const struct preload_launch *l, struct preload_launch_tok *tok,
			preload_cures result);

/* Graph launch of exec (an opaque CUgraphExec): with CUPTI seq is the
 * external id of the kernels CUPTI reports for this replay, which carry it
 * as their replay; with events one record times the replay whole.  Both
 * name the capture exec came from. */
void preload_graph_begin(preload_stream s, int ptsz, const void *exec, struct preload_launch_tok *tok);
void preload_graph_end(preload_stream s, int ptsz, struct preload_launch_tok *tok, preload_cures r);

/* Around a copy or set: begin returns the sequence number of its record
 * and hands it to CUPTI as external correlation id; end takes it back. */
uint64_t preload_op_begin(void);
void preload_op_end(void);
/* Memcpy / memset (type TRACE_MEMCPY or TRACE_MEMSET), seq from begin;
 * host_mem: the copy's host side, pageable or pinned, as the driver said;
 * copies: a batch's count (bytes their sum), 1 for one copy or set. */
void preload_copy(uint64_t seq, int type, uint64_t bytes, uint32_t copies, enum trace_copy_kind kind,
		  enum trace_host_mem host_mem, int async, preload_stream s, int ptsz,
		  uint64_t cpu_ns, uint64_t cpu_end_ns);
/* Synchronization that blocked the CPU from cpu_ns to cpu_end_ns, a
 * stream's wait for an event, or an event recorded on a stream; event is
 * the CUevent (an opaque id), 0 for none. */
void preload_sync(enum trace_sync_kind kind, preload_stream s, int ptsz,
		  uint64_t cpu_ns, uint64_t cpu_end_ns, uint64_t event);
/* Library records: seq from preload_lib_enter. */
void preload_gemm(struct trace_gemm *g);
void preload_conv(struct trace_conv *c);
/* A collective (hooks_nccl.c): an OP record of kind COMM. */
void preload_op(struct trace_op *o);

/* ---- devmem.c -------------------------------------------------------- */

/* Device memory taken (cuMemAlloc, cuMemAllocAsync, cuMemCreate) and given
 * back, for the peak the trailer reports. */
void preload_mem_alloc(uint64_t ptr, uint64_t bytes);   /* both keep errno */
void preload_mem_free(uint64_t ptr);

/* ---- recorder.c: life ------------------------------------------------- */

/* Before a context is destroyed: waits for the GPU and writes every record
 * whose times are known, so they do not die with the context. */
void preload_before_teardown(void *ctx, int device);
/* cuProfilerStart (start = 1) / cuProfilerStop (start = 0). */
void preload_profiler(int start);
/* Initializes settings once (constructor or first hook). */
void preload_init(void);

/* ---- funcinfo.c ------------------------------------------------------- */

/* Stream id as the driver numbers it (cuStreamGetId), 0 unknown. */
uint64_t preload_stream_id(preload_stream s, int ptsz);
/* A module or library was unloaded: its kernels' handles may come back as
 * other kernels', so each handle's facts are asked again at its next
 * launch. */
void preload_funcinfo_unloaded(void);

/* ---- log.c ------------------------------------------------------------ */

/* CLOCK_MONOTONIC in ns (inline: every launch reads it, and a call into
 * log.c cost 9 instructions more a launch). */
static inline uint64_t preload_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
/* CLOCK_REALTIME in ns. */
uint64_t preload_unix_ns(void);
/* One "libsurfer: ..." line on stderr: always for warnings (each distinct
 * message once), only with SURFER_VERBOSE for notes. */
void preload_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void preload_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Turns the notes on (SURFER_VERBOSE, from settings.c). */
void preload_log_verbose(int on);

/* ---- events.c -------------------------------------------------------- */

/* Loads the event functions; 0 when events timing can be used. */
int preload_events_init(char *why, size_t whylen);
/* Takes a pair of timing events of the current context (from the caller's
 * cache or new), and in *slot the index of that context's slot, which
 * resolve and put take with the pair; -1 when none (no current context). */
int preload_events_get(preload_event ev[2], uint8_t *slot);
/* Records ev on the stream the launch used (ptsz: per-thread NULL stream). */
void preload_events_record(preload_event ev, preload_stream s, int ptsz);
/* 1 when the pair has completed, with the GPU start and end on the recorder's
 * clock in *start_ns and *end_ns; 0 not yet; negative on error.  wait = 1
 * blocks until completion. */
int preload_events_resolve(preload_event ev[2], uint8_t slot, int wait, uint64_t *start_ns,
			   uint64_t *end_ns);
/* Returns a pair to its context's free pool (caller holds the writer lock). */
void preload_events_put(preload_event ev[2], uint8_t slot);
/* A context goes (destroyed: ctx; a device's primary context released or
 * reset: ctx NULL and its device): its slot and events are never used
 * again, and a later context of the same handle gets a slot of its own. */
void preload_events_ctx_gone(void *ctx, int device);
/* Returns the calling thread's cached events to the pool: it exits. */
void preload_events_thread_gone(void);
/* Swaps the calling thread to the relaxed stream-capture mode, so that its
 * event queries do not invalidate another thread's capture (events.c says
 * why); returns the mode to give preload_events_unrelax, or -1 when the
 * driver has no modes (then unrelax does nothing). */
int preload_events_relax(void);
void preload_events_unrelax(int mode);

/* ---- graphs.c --------------------------------------------------------- */

/* 1 if the stream is capturing a graph: the launch is recorded into the
 * graph, not run (no events may be recorded, CUPTI will not report it);
 * *capture_id receives the capture's id (cuStreamGetCaptureInfo's, unique
 * in the process), 0 when the driver does not say.  Keeps errno. */
int preload_stream_capture(preload_stream s, int ptsz, uint64_t *capture_id);
/* Which capture each graph and executable graph came from (graphs.c says
 * why); every one keeps errno and takes no lock but its own.  A graph
 * holds the capture capture_id (0: forgotten). */
void preload_graphs_captured(const void *graph, uint64_t capture_id);
/* An executable graph made from (or updated to) graph: graph's capture. */
void preload_graphs_instantiated(const void *exec, const void *graph);
/* Destroyed: the driver may hand the handle to the next one it makes. */
void preload_graphs_forget_graph(const void *graph);
void preload_graphs_forget_exec(const void *exec);
/* The capture an executable graph came from, 0 unknown. */
uint64_t preload_graphs_exec_capture(const void *exec);
/* A stream capture opened (cuStreamBeginCapture*) and closed
 * (cuStreamEndCapture): while one is open, launches and library calls on
 * a capturing stream are recorded outside the windows too. */
void preload_capture_begun(void);
void preload_capture_ended(void);
/* Whether a launch or library call on stream s is recorded: inside a
 * window (preload_recording), or outside one while s captures a graph
 * (graphs.c says why).  Keeps errno. */
int preload_recording_on(preload_stream s, int ptsz);

/* ---- cupti.c --------------------------------------------------------- */

/* What a parsed CUPTI activity buffer reports, one call per record. */
struct preload_cupti_kernel {
	uint32_t correlation;
	const char *name;          /* owned by the buffer: copy it             */
	uint32_t grid[3], block[3], cluster[3];
	uint32_t regs, static_smem, dyn_smem;
	uint64_t stream;           /* CUPTI streamId                           */
	uint64_t start_ns, end_ns; /* GPU timestamps                           */
	uint32_t graph_id;         /* 0: not run by a graph                    */
	uint64_t graph_node_id;    /* the graph node it ran as                 */
};
struct preload_cupti_copy {
	uint32_t correlation;
	int memset;                /* 1 memset, 0 memcpy                       */
	uint64_t bytes;
	uint64_t copies;           /* copies of a batch it covers (copyCount);
				    * 1 for any other, and where CUPTI does not
				    * say                                      */
	int kind;                  /* enum trace_copy_kind                     */
	uint64_t stream;
	uint64_t start_ns, end_ns;
};
/* What CUPTI's records are reported into (the recorder's is joins.c's
 * preload_joins_sink; the tests pass their own).  For each completed
 * buffer, on CUPTI's thread: begin, every external correlation, every
 * kernel and copy report, end.  Any callback may be NULL. */
struct preload_cupti_sink {
	void *ctx;
	void (*begin)(void *ctx);
	void (*end)(void *ctx);
	void (*external)(void *ctx, uint32_t correlation, uint64_t external_id);
	/* a runtime call that starts GPU work: its correlation id and span,
	 * on CUPTI's clock (ns) */
	void (*call)(void *ctx, uint32_t correlation, uint64_t start_ns, uint64_t end_ns);
	/* n activity records CUPTI dropped (cuptiActivityGetNumDroppedRecords) */
	void (*lost)(void *ctx, size_t n);
	void (*kernel)(void *ctx, const struct preload_cupti_kernel *k);
	void (*copy)(void *ctx, const struct preload_cupti_copy *c);
};

/* Loads libcupti (SURFER_CUPTI_PATH, then the usual sonames); 0 on
 * success, negative with a reason otherwise. */
int preload_cupti_load(char *why, size_t whylen);
/* Walks a completed activity buffer (valid bytes) with the loaded CUPTI's
 * cuptiActivityGetNextRecord, reporting to the sink's external, kernel and
 * copy callbacks (its caller brackets it with begin and end); returns
 * records seen or negative. */
int preload_cupti_parse(uint8_t *buf, size_t valid, const struct preload_cupti_sink *sink);
/* Registers the buffer callbacks and enables kernel, memcpy, memset,
 * driver and external-correlation activity, and where CUPTI allows them
 * peer-to-peer copies (MEMCPY2) and the runtime's API records; 0 on
 * success, negative with a reason.  Only the buffers it allocated are read
 * and freed (cupti.c). */
int preload_cupti_start(const struct preload_cupti_sink *sink, char *why, size_t whylen);
/* Push/pop of our sequence number as external correlation id. */
void preload_cupti_push(uint64_t seq);
void preload_cupti_pop(void);
/* Asks CUPTI for its buffers now: forced, every one (only once the GPU
 * is idle: a running kernel's report comes unfinished and is lost), else
 * those whose records have all finished. */
void preload_cupti_flush(int forced);
/* How many reports came unfinished (a forced flush before they ran). */
unsigned long long preload_cupti_unfinished(void);
/* Turns off what preload_cupti_start turned on, once the trace is
 * finished (a program recorded in capture windows runs on without CUPTI's
 * cost); later buffers are freed unread. */
void preload_cupti_stop(void);
/* Converts a CUPTI timestamp to the recorder's clock (0 stays 0). */
uint64_t preload_cupti_to_cpu_ns(uint64_t gpu_ns);
/* 1 when CUPTI's clock was read against ours: GPU times then compare with
 * launch times. */
int preload_cupti_clock_known(void);
/* How far a converted time may be off: half the bracket of the clock
 * reading kept (cupti.c's measure_offset), ns; 0 before one. */
uint64_t preload_cupti_clock_err_ns(void);
/* 1 when the runtime's API records are on (their correlation ids name the
 * runtime calls that started kernels, copies and sets). */
int preload_cupti_runtime_records(void);

/* ---- stacks.c -------------------------------------------------------- */

/* Captures the calling thread's stack and returns its id (>0), 0 if none. */
uint32_t preload_stack_capture(void);
/* Writes the TRACE_STACK record of stack id to w unless already written
 * for writer generation gen (writer lock held); 0 when it is defined. */
int preload_stack_write(struct trace_writer *w, uint32_t id, uint32_t gen);

#endif
