/*
 * output.c - the one trace writer of a process: opened on the first record
 * to write (a process that records nothing leaves no file), its header
 * (host, command line, timing and why, the GPU as the driver reports it),
 * the records, and the trailer (dropped records, peak device memory).
 * Kernel names and call stacks are interned per writer: a forked child
 * opens its own writer, a new generation, and defines them again.
 *
 * Everything here runs under the writer lock.
 *
 * Must never: write into another process's file (a child's path gets its
 * pid), keep recording after a write failed (one warning, recording off),
 * or free a writer inherited through fork (freeing flushes into the
 * parent's file).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "preload/recorder.h"

static struct trace_writer *w;
static uint32_t gen;           /* bumped per writer (fork)                 */

typedef preload_cures (*dev_get_fn)(int *, int);
typedef preload_cures (*ctx_dev_fn)(int *);
typedef preload_cures (*dev_name_fn)(char *, int, int);
typedef preload_cures (*dev_attr_fn)(int *, int, int);
typedef preload_cures (*dev_mem_fn)(size_t *, int);
typedef preload_cures (*drv_ver_fn)(int *);

static void device_props(struct trace_device *d)
{
	ctx_dev_fn ctx_dev = (ctx_dev_fn)preload_driver_sym("cuCtxGetDevice");
	dev_get_fn dev_get = (dev_get_fn)preload_driver_sym("cuDeviceGet");
	dev_name_fn name = (dev_name_fn)preload_driver_sym("cuDeviceGetName");
	dev_attr_fn attr = (dev_attr_fn)preload_driver_sym("cuDeviceGetAttribute");
	dev_mem_fn mem = (dev_mem_fn)preload_driver_sym("cuDeviceTotalMem_v2");
	drv_ver_fn ver = (drv_ver_fn)preload_driver_sym("cuDriverGetVersion");
	/* the device of the thread that settled the timing (recorder.c),
	 * else this thread's, else the first */
	int dev = preload_core.device, v;
	if (dev < 0 && (!ctx_dev || ctx_dev(&dev) != 0)) {
		dev = 0;
		if (!dev_get || dev_get(&dev, 0) != 0)
			return;
	}
	if (name && name(d->name, (int)sizeof d->name, dev) != 0)
		d->name[0] = 0;
	d->name[sizeof d->name - 1] = 0;
	/* CUdevice_attribute values, cuda.h */
	static const struct { int attr; size_t off; } A[] = {
		{ 75, offsetof(struct trace_device, cc_major) },
		{ 76, offsetof(struct trace_device, cc_minor) },
		{ 16, offsetof(struct trace_device, sm_count) },
		{ 13, offsetof(struct trace_device, clock_khz) },
		{ 36, offsetof(struct trace_device, mem_clock_khz) },
		{ 37, offsetof(struct trace_device, mem_bus_bits) },
		{ 38, offsetof(struct trace_device, l2_bytes) },
		{ 39, offsetof(struct trace_device, max_threads_per_sm) },
		{ 106, offsetof(struct trace_device, max_blocks_per_sm) },
		{ 82, offsetof(struct trace_device, regs_per_sm) },
		{ 81, offsetof(struct trace_device, smem_per_sm) },
		{ 97, offsetof(struct trace_device, smem_per_block_optin) },
	};
	for (size_t i = 0; attr && i < sizeof A / sizeof *A; i++)
		if (attr(&v, A[i].attr, dev) == 0 && v >= 0)
			*(uint32_t *)((char *)d + A[i].off) = (uint32_t)v;
	size_t bytes;
	if (mem && mem(&bytes, dev) == 0)
		d->mem_bytes = bytes;
	if (ver && ver(&v) == 0)
		d->driver_version = (uint32_t)v;
}

/* SURFER_OUTPUT with %p replaced by the pid. */
static void expand_output(char *out, size_t n)
{
	const struct preload_core *g = &preload_core;
	const char *src = preload_cfg.output;
	size_t o = 0;
	int had_pid = 0;
	for (const char *p = src; *p && o + 1 < n; p++) {
		if (p[0] == '%' && p[1] == 'p') {
			o += (size_t)snprintf(out + o, n - o, "%d", (int)g->pid);
			had_pid = 1;
			p++;
		} else {
			out[o++] = *p;
		}
	}
	if (o >= n)
		o = n - 1;
	out[o] = 0;
	/* A child never writes into its parent's file. */
	if (!had_pid && g->pid != g->root_pid)
		snprintf(out + o, n - o, ".%d", (int)g->pid);
}

int preload_out_open(void)
{
	struct preload_core *g = &preload_core;
	if (w)
		return 0;
	if (g->state != PRELOAD_ST_ON)
		return -1;
	char path[1100];
	expand_output(path, sizeof path);
	int err = 0;
	w = trace_writer_open(path, 0, &err);
	if (!w) {
		preload_warn("cannot write '%s': %s: recording off", path,
			     err == TRACE_ENOMEM ? "out of memory" : strerror(errno));
		preload_turn_off();
		return -1;
	}
	gen++;
	struct trace_header h;
	memset(&h, 0, sizeof h);
	snprintf(h.tool_version, sizeof h.tool_version, "libsurfer %s", SURFER_VERSION);
	gethostname(h.host, sizeof h.host - 1);
	h.pid = (uint32_t)g->pid;
	h.start_unix_ns = preload_unix_ns();
	FILE *f = fopen("/proc/self/cmdline", "re");
	if (f) {
		size_t n = fread(h.cmdline, 1, sizeof h.cmdline - 1, f);
		for (size_t i = 0; n && i < n - 1; i++)
			if (!h.cmdline[i])
				h.cmdline[i] = ' ';
		fclose(f);
	}
	/* The header is written once: settle the timing now if a driver is
	 * there to time with (a sync can come before the first launch). */
	if (preload_driver_sym("cuInit"))
		preload_timing_settle();
	else if (!g->timing_note[0])
		snprintf(g->timing_note, sizeof g->timing_note, "none: the CUDA driver was not loaded");
	h.timing = (enum trace_timing)g->timing;
	/* the note always ends inside its array; the bound says so to
	 * -Wformat-truncation, which cannot see it */
	snprintf(h.timing_note, sizeof h.timing_note, "%.*s", (int)sizeof g->timing_note - 1,
		 g->timing_note);
	device_props(&h.device);
	h.world_size = (uint32_t)preload_cfg.world_size;
	if (trace_writer_header(w, &h) != 0) {
		preload_warn("cannot write '%s': %s: recording off", path, strerror(errno));
		preload_turn_off();
		return -1;
	}
	preload_note("writing %s (timing: %s)", path, trace_timing_name(h.timing));
	return 0;
}

void preload_out_name_kernel(struct trace_record *rec, struct preload_funcinfo *fi)
{
	if (fi->name_gen != gen) {
		fi->name_id = trace_writer_intern(w, fi->name, strlen(fi->name));
		fi->name_gen = gen;
	}
	rec->u.kernel.name = fi->name_id;
}

uint32_t preload_out_intern(const char *name)
{
	return trace_writer_intern(w, name, strlen(name));
}

void preload_out_write(struct trace_record *rec, struct preload_funcinfo *fi)
{
	if (preload_out_open() < 0)
		return;
	if (rec->type == TRACE_KERNEL && fi && fi->name)
		preload_out_name_kernel(rec, fi);
	if (rec->type == TRACE_KERNEL && rec->u.kernel.stack &&
	    preload_stack_write(w, rec->u.kernel.stack, gen) != 0)
		rec->u.kernel.stack = 0;
	if (trace_writer_record(w, rec) != 0) {
		preload_warn("cannot write the trace (%s): recording off", strerror(errno));
		preload_turn_off();
	}
}

void preload_out_dropped(uint64_t n)
{
	if (preload_out_open() == 0)
		trace_writer_add_dropped(w, n);
}

void preload_out_close(void)
{
	if (!w)
		return;
	trace_writer_set_peak_device_bytes(w, preload_mem_peak());
	if (trace_writer_finish(w) != 0)
		preload_warn("cannot finish the trace: %s", strerror(errno));
	trace_writer_free(w);
	w = NULL;
}

void preload_out_fork_child(void)
{
	w = NULL;
}
