/*
 * import_nsys.c - reads an Nsight Systems report exported to SQLite
 * (`nsys export --type sqlite`) into an import_set, with SQLite itself.
 *
 * Tables read (columns vary between nsys versions, so each query is built
 * from the columns PRAGMA table_info finds; a missing column reads as 0):
 *   CUPTI_ACTIVITY_KIND_KERNEL       kernels (names are StringIds ids)
 *   CUPTI_ACTIVITY_KIND_MEMCPY       copies (copyKind: CUpti_ActivityMemcpyKind;
 *                                    srcKind/dstKind: pageable or pinned host
 *                                    memory, named by ENUM_CUDA_MEM_KIND)
 *   CUPTI_ACTIVITY_KIND_MEMSET       sets
 *   CUPTI_ACTIVITY_KIND_RUNTIME      API calls: launch CPU times and threads
 *                                    by correlationId; synchronize calls
 *   CUPTI_ACTIVITY_KIND_SYNCHRONIZATION  the stream a sync call waited on
 *   TARGET_INFO_GPU                  the devices (name, SMs, cc, memory;
 *                                    TARGET_INFO_CUDA_GPU in older nsys)
 *   TARGET_INFO_SESSION_START_TIME   wall clock of time 0
 *   NVTX_EVENTS                      "ProfilerStep#N" (or --step) ranges
 *                                    -> iterations
 * Times are nanoseconds on the session clock for CPU and GPU alike.
 * Correlation ids are per process, so they are joined with the process id
 * nsys packs into globalPid / globalTid (bits 24..47).
 */
#include "tools/import/import.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

struct db {
	sqlite3 *h;
	char *err;
	size_t errlen;
	int64_t pageable, pinned;   /* memory kind ids (ENUM_CUDA_MEM_KIND), -1 none */
};

static int has_table(struct db *d, const char *table)
{
	sqlite3_stmt *st;
	int found = 0;
	if (sqlite3_prepare_v2(d->h, "SELECT 1 FROM sqlite_master WHERE type IN "
			       "('table','view') AND name = ?", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

static int has_column(struct db *d, const char *table, const char *col)
{
	char sql[160];
	sqlite3_stmt *st;
	int found = 0;
	snprintf(sql, sizeof(sql), "PRAGMA table_info(%s)", table);
	if (sqlite3_prepare_v2(d->h, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	while (!found && sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *n = sqlite3_column_text(st, 1);
		found = n && strcmp((const char *)n, col) == 0;
	}
	sqlite3_finalize(st);
	return found;
}

/* Builds "SELECT c1, c2, ... FROM table" where each missing column is 0.
 * cols entries are plain column names; a name of StringIds ids is given
 * as "@col" and selected as the string (or NULL). */
static int build_select(struct db *d, const char *table, const char *const *cols,
			size_t ncols, const char *tail, char *sql, size_t len)
{
	size_t off = (size_t)snprintf(sql, len, "SELECT ");
	for (size_t i = 0; i < ncols && off < len; i++) {
		const char *c = cols[i];
		int str = c[0] == '@';
		if (str)
			c++;
		const char *sep = i ? ", " : "";
		if (!has_column(d, table, c))
			off += (size_t)snprintf(sql + off, len - off, "%sNULL", sep);
		else if (str)
			off += (size_t)snprintf(sql + off, len - off,
				"%s(SELECT value FROM StringIds WHERE id = t.%s)", sep, c);
		else
			off += (size_t)snprintf(sql + off, len - off, "%st.%s", sep, c);
	}
	if (off < len)
		off += (size_t)snprintf(sql + off, len - off, " FROM %s AS t %s", table,
					tail ? tail : "");
	if (off >= len) {
		snprintf(d->err, d->errlen, "query for %s too long", table);
		return SURFER_ECORRUPT;
	}
	return 0;
}

static int prepare(struct db *d, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(d->h, sql, -1, st, NULL) != SQLITE_OK) {
		snprintf(d->err, d->errlen, "cannot query the report: %s", sqlite3_errmsg(d->h));
		return SURFER_ECORRUPT;
	}
	return 0;
}

/* Prepares the SELECT of cols from table (build_select) in *st. */
static int select_cols(struct db *d, const char *table, const char *const *cols, size_t ncols,
		       sqlite3_stmt **st)
{
	char sql[4096];
	int rc = build_select(d, table, cols, ncols, NULL, sql, sizeof(sql));
	return rc ? rc : prepare(d, sql, st);
}

/* The end of a table's rows: finalizes st; rc, the last step's result,
 * is an error unless SQLITE_DONE. */
static int finish(struct db *d, sqlite3_stmt *st, int rc)
{
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 0;
	snprintf(d->err, d->errlen, "cannot read the report: %s", sqlite3_errmsg(d->h));
	return SURFER_ECORRUPT;
}

/* A read that ran out of memory: finalizes st. */
static int out_of_memory(struct db *d, sqlite3_stmt *st)
{
	sqlite3_finalize(st);
	snprintf(d->err, d->errlen, "out of memory");
	return SURFER_ENOMEM;
}

/* Column i as a non-negative integer (negative and NULL read as 0). */
static uint64_t col_u64(sqlite3_stmt *st, int i)
{
	sqlite3_int64 v = sqlite3_column_int64(st, i);
	return v > 0 ? (uint64_t)v : 0;
}

static uint32_t col_u32(sqlite3_stmt *st, int i)
{
	uint64_t v = col_u64(st, i);
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* The process id nsys packs into globalPid/globalTid, bits 24..47. */
static uint64_t pid_of(uint64_t global)
{
	return (global >> 24) & 0xffffffu;
}

/* Correlation key unique across processes. */
static uint64_t corr_key(uint64_t global, uint64_t corr)
{
	return pid_of(global) << 32 | (corr & 0xffffffffu);
}

/* CUpti_ActivityMemcpyKind -> surfer's kind (array copies have none). */
static enum trace_copy_kind nsys_copy_kind(uint64_t k)
{
	switch (k) {
	case 1: return TRACE_COPY_HTOD;
	case 2: return TRACE_COPY_DTOH;
	case 8: return TRACE_COPY_DTOD;
	case 9: return TRACE_COPY_HTOH;
	case 10: return TRACE_COPY_PTOP;
	default: return TRACE_COPY_UNKNOWN;
	}
}

static int read_devices(struct db *d, struct import_set *s)
{
	static const char *const cols[] = {
		"id", "name", "smCount", "computeMajor", "computeMinor", "totalMemory",
		"l2CacheSize", "clockRate", "maxShmemPerBlockOptin", "maxRegistersPerSm",
		"maxShmemPerSm", "maxWarpsPerSm", "maxBlocksPerSm",
	};
	sqlite3_stmt *st;
	/* older nsys versions call the table TARGET_INFO_CUDA_GPU */
	const char *table = has_table(d, "TARGET_INFO_GPU") ? "TARGET_INFO_GPU"
			  : has_table(d, "TARGET_INFO_CUDA_GPU") ? "TARGET_INFO_CUDA_GPU" : NULL;
	if (!table)
		return 0;
	int rc = select_cols(d, table, cols, sizeof(cols) / sizeof(cols[0]), &st);
	if (rc)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct import_device *dv = import_device_slot(s, (int32_t)col_u32(st, 0));
		if (!dv)
			return out_of_memory(d, st);
		struct trace_device *t = &dv->dev;
		const unsigned char *name = sqlite3_column_text(st, 1);
		snprintf(t->name, sizeof(t->name), "%s", name ? (const char *)name : "");
		t->sm_count = col_u32(st, 2);
		t->cc_major = col_u32(st, 3);
		t->cc_minor = col_u32(st, 4);
		t->mem_bytes = col_u64(st, 5);
		t->l2_bytes = col_u32(st, 6);
		t->clock_khz = (uint32_t)(col_u64(st, 7) / 1000);   /* clockRate is Hz */
		t->smem_per_block_optin = col_u32(st, 8);
		t->regs_per_sm = col_u32(st, 9);
		t->smem_per_sm = col_u32(st, 10);
		t->max_threads_per_sm = col_u32(st, 11) * 32;       /* warps of 32 */
		t->max_blocks_per_sm = col_u32(st, 12);
	}
	return finish(d, st, rc);
}

/* The ids the export gives pageable and pinned host memory in its copies'
 * srcKind and dstKind, from its own ENUM_CUDA_MEM_KIND table (by name, so
 * that no numbering is assumed); -1 when it has none. */
static void read_mem_kinds(struct db *d)
{
	sqlite3_stmt *st;

	d->pageable = d->pinned = -1;
	if (!has_table(d, "ENUM_CUDA_MEM_KIND") ||
	    sqlite3_prepare_v2(d->h, "SELECT id, name FROM ENUM_CUDA_MEM_KIND", -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 1);
		if (name && strstr(name, "PAGEABLE"))
			d->pageable = sqlite3_column_int64(st, 0);
		else if (name && strstr(name, "PINNED"))
			d->pinned = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
}

/* The host memory of a copy of direction k between memory kinds src and
 * dst (its host side: the source of HtoD, the destination of DtoH). */
static enum trace_host_mem nsys_host_mem(const struct db *d, enum trace_copy_kind k,
					 sqlite3_stmt *st, int src_col)
{
	int64_t src = sqlite3_column_type(st, src_col) == SQLITE_NULL ? -2
		    : sqlite3_column_int64(st, src_col);
	int64_t dst = sqlite3_column_type(st, src_col + 1) == SQLITE_NULL ? -2
		    : sqlite3_column_int64(st, src_col + 1);
	int64_t host = k == TRACE_COPY_HTOD ? src : k == TRACE_COPY_DTOH ? dst : -2;
	if (k == TRACE_COPY_HTOH)   /* pageable on either side stages the copy */
		host = src == d->pageable || dst == d->pageable ? d->pageable : src;
	if (host >= 0 && host == d->pageable)
		return TRACE_HOST_PAGEABLE;
	if (host >= 0 && host == d->pinned)
		return TRACE_HOST_PINNED;
	return TRACE_HOST_UNKNOWN;
}

/* A kernel, copy or set table; kind selects the columns used. */
static int read_activities(struct db *d, struct import_set *s, enum import_kind kind)
{
	static const char *const kcols[] = {
		"start", "end", "deviceId", "streamId", "correlationId", "globalPid",
		"@mangledName", "@demangledName", "@shortName",
		"gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
		"registersPerThread", "staticSharedMemory", "dynamicSharedMemory",
	};
	static const char *const mcols[] = {
		"start", "end", "deviceId", "streamId", "correlationId", "globalPid",
		"bytes", "copyKind", "srcKind", "dstKind",
	};
	const char *table = kind == IMPORT_KERNEL ? "CUPTI_ACTIVITY_KIND_KERNEL"
			  : kind == IMPORT_MEMCPY ? "CUPTI_ACTIVITY_KIND_MEMCPY"
			  : "CUPTI_ACTIVITY_KIND_MEMSET";
	if (!has_table(d, table)) {
		if (kind != IMPORT_KERNEL)
			return 0;
		snprintf(d->err, d->errlen, "no %s table: not an nsys SQLite export "
			 "with CUDA trace", table);
		return SURFER_ECORRUPT;
	}
	sqlite3_stmt *st;
	int rc = kind == IMPORT_KERNEL
		? select_cols(d, table, kcols, sizeof(kcols) / sizeof(kcols[0]), &st)
		: select_cols(d, table, mcols, sizeof(mcols) / sizeof(mcols[0]), &st);
	if (rc)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct import_event *e = import_add_event(s);
		if (!e)
			return out_of_memory(d, st);
		e->kind = (uint8_t)kind;
		e->start_ns = col_u64(st, 0);
		e->end_ns = col_u64(st, 1);
		e->device = (int32_t)col_u32(st, 2);
		e->has_device = sqlite3_column_type(st, 2) != SQLITE_NULL;
		e->stream = col_u64(st, 3);
		e->corr = corr_key(col_u64(st, 5), col_u64(st, 4));
		e->async = 1;
		if (kind == IMPORT_KERNEL) {
			const unsigned char *name = NULL;
			for (int i = 6; i <= 8 && !(name && *name); i++)
				name = sqlite3_column_text(st, i);
			if (!name)
				name = (const unsigned char *)"";
			e->name = import_intern(s, (const char *)name, strlen((const char *)name));
			if (!e->name)
				return out_of_memory(d, st);
			for (int i = 0; i < 3; i++) {
				e->grid[i] = col_u32(st, 9 + i);
				e->block[i] = col_u32(st, 12 + i);
			}
			e->regs = col_u32(st, 15);
			e->static_smem = col_u32(st, 16);
			e->dyn_smem = col_u32(st, 17);
		} else {
			e->bytes = col_u64(st, 6);
			if (kind == IMPORT_MEMCPY) {
				e->sub = (uint8_t)nsys_copy_kind(col_u64(st, 7));
				e->host_mem = (uint8_t)nsys_host_mem(d, (enum trace_copy_kind)e->sub, st, 8);
			}
		}
	}
	return finish(d, st, rc);
}

static int starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* API calls: launches, copies and sets give CPU times to their activities;
 * synchronize calls become sync records. */
static int read_runtime(struct db *d, struct import_set *s)
{
	static const char *const cols[] = {
		"start", "end", "globalTid", "correlationId", "@nameId",
	};
	const char *table = "CUPTI_ACTIVITY_KIND_RUNTIME";
	if (!has_table(d, table))
		return 0;
	sqlite3_stmt *st;
	int rc = select_cols(d, table, cols, sizeof(cols) / sizeof(cols[0]), &st);
	if (rc)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *n = (const char *)sqlite3_column_text(st, 4);
		if (!n)
			continue;
		uint64_t tid = col_u64(st, 2);
		uint64_t corr = corr_key(tid, col_u64(st, 3));
		int sync = -1;
		if (starts(n, "cudaDeviceSynchronize") || starts(n, "cuCtxSynchronize"))
			sync = TRACE_SYNC_CTX;
		else if (starts(n, "cudaStreamSynchronize") || starts(n, "cuStreamSynchronize"))
			sync = TRACE_SYNC_STREAM;
		else if (starts(n, "cudaEventSynchronize") || starts(n, "cuEventSynchronize"))
			sync = TRACE_SYNC_EVENT;
		if (sync >= 0) {
			struct import_event *e = import_add_event(s);
			if (!e)
				return out_of_memory(d, st);
			e->kind = IMPORT_SYNC;
			e->sub = (uint8_t)sync;
			e->cpu_ns = col_u64(st, 0);
			e->cpu_end_ns = col_u64(st, 1);
			e->thread = (uint32_t)(tid & 0xffffffu);
			e->corr = corr;
			continue;
		}
		int launch = starts(n, "cudaLaunch") || starts(n, "cuLaunch") ||
			     starts(n, "cudaGraphLaunch") || starts(n, "cuGraphLaunch");
		int copy = starts(n, "cudaMemcpy") || starts(n, "cudaMemset") ||
			   starts(n, "cuMemcpy") || starts(n, "cuMemset");
		if (!launch && !copy)
			continue;
		struct import_call *c = import_add_call(s);
		if (!c)
			return out_of_memory(d, st);
		c->corr = corr;
		c->cpu_ns = col_u64(st, 0);
		c->cpu_end_ns = col_u64(st, 1);
		c->thread = (uint32_t)(tid & 0xffffffu);
		c->async = launch || strstr(n, "Async") != NULL;
		if (launch) {
			if (strstr(n, "Cooperative"))
				c->flags |= TRACE_KF_COOPERATIVE;
			if (strstr(n, "Graph"))
				c->flags |= TRACE_KF_GRAPH;
			if (strstr(n, "KernelEx"))
				c->flags |= TRACE_KF_EX;
			if (strstr(n, "_ptsz"))
				c->flags |= TRACE_KF_PTSZ;
		}
	}
	return finish(d, st, rc);
}

/* The GPU side of synchronize calls: which stream and device. */
static int read_sync(struct db *d, struct import_set *s)
{
	static const char *const cols[] = { "deviceId", "streamId", "correlationId", "globalPid" };
	const char *table = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
	if (!has_table(d, table))
		return 0;
	sqlite3_stmt *st;
	int rc = select_cols(d, table, cols, sizeof(cols) / sizeof(cols[0]), &st);
	if (rc)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct import_event *e = import_add_event(s);
		if (!e)
			return out_of_memory(d, st);
		e->kind = IMPORT_GPU_SYNC;
		e->device = (int32_t)col_u32(st, 0);
		e->has_device = sqlite3_column_type(st, 0) != SQLITE_NULL;
		e->stream = col_u64(st, 1);
		e->corr = corr_key(col_u64(st, 3), col_u64(st, 2));
	}
	return finish(d, st, rc);
}

/* NVTX ranges named "ProfilerStep#N" (or as --step says) delimit
 * iterations. */
static int read_steps(struct db *d, struct import_set *s)
{
	static const char *const cols[] = { "start", "end", "globalTid", "text", "@textId" };
	const char *table = "NVTX_EVENTS";
	if (!has_table(d, table))
		return 0;
	sqlite3_stmt *st;
	int rc = select_cols(d, table, cols, sizeof(cols) / sizeof(cols[0]), &st);
	if (rc)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *n = (const char *)sqlite3_column_text(st, 3);
		if (!n)
			n = (const char *)sqlite3_column_text(st, 4);
		int64_t v;
		if (n)
			import_note_range(s, n, strlen(n));
		if (!n || sqlite3_column_type(st, 1) == SQLITE_NULL ||
		    !import_step_match(s->step, n, strlen(n), &v))
			continue;
		struct import_event *e = import_add_event(s);
		if (!e || !(e->name = import_intern(s, n, strlen(n))))
			return out_of_memory(d, st);
		e->kind = IMPORT_STEP;
		e->iteration = (int32_t)v;
		e->cpu_ns = col_u64(st, 0);
		e->cpu_end_ns = col_u64(st, 1);
		e->thread = (uint32_t)(col_u64(st, 2) & 0xffffffu);
	}
	return finish(d, st, rc);
}

static void read_start_time(struct db *d, struct import_set *s)
{
	sqlite3_stmt *st;
	if (!has_table(d, "TARGET_INFO_SESSION_START_TIME") ||
	    !has_column(d, "TARGET_INFO_SESSION_START_TIME", "utcEpochNs") ||
	    sqlite3_prepare_v2(d->h, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW)
		s->base_unix_ns = col_u64(st, 0);
	sqlite3_finalize(st);
}

int import_nsys_read(struct import_set *set, const char *path,
		     char *err, size_t errlen)
{
	struct db d = { NULL, err, errlen, -1, -1 };
	snprintf(set->source, sizeof(set->source), "nsys");
	snprintf(set->input, sizeof(set->input), "%s", path);
	/* sqlite3_open_v2 read-only on a missing file fails with a generic
	 * message; check first so the error says why. */
	if (access(path, R_OK) != 0) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return SURFER_EIO;
	}
	if (sqlite3_open_v2(path, &d.h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot open '%s': %s", path,
			 d.h ? sqlite3_errmsg(d.h) : "out of memory");
		sqlite3_close(d.h);
		return SURFER_EIO;
	}
	/* a file that is not a database fails on its first query */
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(d.h, "SELECT count(*) FROM sqlite_master", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		snprintf(err, errlen, "'%s' is not an SQLite database: %s", path, sqlite3_errmsg(d.h));
		sqlite3_finalize(st);
		sqlite3_close(d.h);
		return SURFER_ECORRUPT;
	}
	sqlite3_finalize(st);
	if (!has_table(&d, "StringIds")) {
		snprintf(err, errlen, "'%s' is not an nsys SQLite export: no StringIds table", path);
		sqlite3_close(d.h);
		return SURFER_ECORRUPT;
	}
	read_mem_kinds(&d);
	int rc = read_devices(&d, set);
	if (!rc)
		rc = read_activities(&d, set, IMPORT_KERNEL);
	if (!rc)
		rc = read_activities(&d, set, IMPORT_MEMCPY);
	if (!rc)
		rc = read_activities(&d, set, IMPORT_MEMSET);
	if (!rc)
		rc = read_runtime(&d, set);
	if (!rc)
		rc = read_sync(&d, set);
	if (!rc)
		rc = read_steps(&d, set);
	if (!rc)
		read_start_time(&d, set);
	sqlite3_close(d.h);
	return rc;
}
