/*
 * check_timeline.c - the timeline replay on hand-made events.  Every case
 * replays two targets: target 0 with the measured durations (scale 1, it
 * must reproduce the measurement exactly) and target 1 with every kernel
 * twice as fast (scale 0.5).  Expected times are worked out by hand in the
 * comments from the rules in analyzer/timeline.c.
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "analyzer/timeline.h"
#include "tests/check_run.h"

static const struct tl_kernel_pred pred_half[2] = {{1.0, 0, 0}, {0.5, 0, 0}};
static struct tl_target tgt[2];
static struct timeline *tl;
static struct tl_summary meas, pred[2];
static uint32_t thread;   /* the calling thread of the next events */

static void setup(void)
{
	thread = 0;
	for (int t = 0; t < 2; t++)
		for (int c = 0; c < TL_COPY_CLASS_COUNT; c++)
			tgt[t].copy_scale[c] = 1.0;
	tl = timeline_new(2, 1, pred_half, tgt);
	ck_assert_ptr_nonnull(tl);
}

static void teardown(void)
{
	timeline_free(tl);
}

/* Replays e from the current thread. */
static void add(struct tl_event e)
{
	e.thread = thread;
	ck_assert_int_eq(timeline_add(tl, &e), 0);
}

static void kernel(uint64_t stream, double cpu, double start, double end)
{
	add((struct tl_event){ .kind = TL_KERNEL, .stream = stream, .cpu_ns = cpu, .cpu_end_ns = cpu,
			       .start_ns = start, .end_ns = end, .has_gpu = 1 });
}

static void sync_on(uint64_t stream, int all, double cpu, double cpu_end)
{
	add((struct tl_event){ .kind = TL_SYNC, .stream = stream, .wait_all = all, .cpu_ns = cpu,
			       .cpu_end_ns = cpu_end });
}

static void record_event(uint64_t stream, uint64_t event, double cpu)
{
	add((struct tl_event){ .kind = TL_EVENT_RECORD, .stream = stream, .event = event,
			       .cpu_ns = cpu, .cpu_end_ns = cpu });
}

/* stream waits for event (cuStreamWaitEvent); event 0: a wait whose
 * event is not known (a trace without event ids) */
static void wait_event(uint64_t stream, uint64_t event, double cpu)
{
	add((struct tl_event){ .kind = TL_SYNC, .no_cpu_wait = 1, .stream = stream, .event = event,
			       .cpu_ns = cpu, .cpu_end_ns = cpu });
}

/* the CPU waits for event (cuEventSynchronize); wait_all as the analyzer
 * sets it for a sync that names no stream */
static void sync_event(uint64_t event, double cpu, double cpu_end)
{
	add((struct tl_event){ .kind = TL_SYNC, .wait_all = 1, .event = event, .cpu_ns = cpu,
			       .cpu_end_ns = cpu_end });
}

static void boundary(double cpu)
{
	struct tl_event e;

	memset(&e, 0, sizeof(e));
	e.kind = TL_ITERATION;
	e.cpu_ns = e.cpu_end_ns = cpu;
	ck_assert_int_eq(timeline_add(tl, &e), 0);
}

static void finish(void)
{
	timeline_finish(tl, &meas, pred);
	/* identity: the measured durations replay to the measurement */
	ck_assert_msg(pred[0].iteration_ns == meas.iteration_ns, "identity %.1f vs %.1f",
		      pred[0].iteration_ns, meas.iteration_ns);
	ck_assert(pred[0].gpu_wait_cpu_ns == meas.gpu_wait_cpu_ns);
}

START_TEST(launch_bound)
{
	/* 10 kernels of 1 us launched every 10 us, starting 0.5 us after launch.
	 * Measured end: 90000 + 500 + 1000 = 91500.  Twice as fast: the last
	 * ends at 90500 + 500 = 91000 -- a faster GPU saves 0.5 us, not half.
	 * GPU waiting on the CPU, measured: 500 + 9 * 9000 = 81500; fast:
	 * 500 + 9 * 9500 = 86000. */
	boundary(0);
	for (int i = 0; i < 10; i++)
		kernel(7, 10000.0 * i, 10000.0 * i + 500, 10000.0 * i + 1500);
	finish();
	ck_assert_double_eq(meas.iteration_ns, 91500);
	ck_assert_double_eq(pred[1].iteration_ns, 91000);
	ck_assert(pred[1].iteration_ns >= 0.99 * meas.iteration_ns);
	ck_assert_double_eq(meas.gpu_wait_cpu_ns, 81500);
	ck_assert_double_eq(pred[1].gpu_wait_cpu_ns, 86000);
	ck_assert_double_eq(meas.kernel_ns, 10000);
	ck_assert_double_eq(pred[1].kernel_ns, 5000);
	ck_assert_uint_eq(meas.iterations, 1);
}
END_TEST

START_TEST(gpu_bound_with_sync)
{
	/* 10 kernels of 100 us queued 1 us apart: measured ends 100500 + 100000 i,
	 * last 1000500.  Context sync at 10000 returns 2 us after: 1002500.
	 * A 1 us kernel launched 1 us later (1003500) runs 1004000..1005000.
	 * Fast: kernels end at 500 + 50000 (i+1), last 500500; the sync returns
	 * 502500 (shift -500000); the last kernel launches at 503500 and runs
	 * 504000..504500. */
	boundary(0);
	for (int i = 0; i < 10; i++)
		kernel(7, 1000.0 * i, 500 + 100000.0 * i, 100500 + 100000.0 * i);
	sync_on(0, 1, 10000, 1002500);
	kernel(7, 1003500, 1004000, 1005000);
	finish();
	ck_assert_double_eq(meas.iteration_ns, 1005000);
	ck_assert_double_eq(pred[1].iteration_ns, 504500);
}
END_TEST

START_TEST(streams_overlap)
{
	/* A on stream 1 (0..: 100..10100), B on stream 2 (150..10150) run
	 * together; C on stream 1 waits for A (10100..20100).  A stream sync on
	 * stream 2 at 200 returns at 10200 (50 after B), and D on stream 2
	 * launched at 10300 runs 10400..11400.
	 * Fast: A 100..5100, B 150..5150, C 5100..10100; the sync waits for B
	 * only: returns 5150 + 50 = 5200 (shift -5000); D launches 5300 and
	 * starts 5300 + 100 = 5400, ends 5900.  End: C at 10100 (a plain sum of
	 * kernel times would give 3 * 5000 + 500 = 15500). */
	boundary(0);
	kernel(1, 0, 100, 10100);
	kernel(2, 50, 150, 10150);
	kernel(1, 100, 10100, 20100);
	sync_on(2, 0, 200, 10200);
	kernel(2, 10300, 10400, 11400);
	finish();
	ck_assert_double_eq(meas.iteration_ns, 20100);
	ck_assert_double_eq(pred[1].iteration_ns, 10100);
	ck_assert_double_eq(pred[1].kernel_ns, 15500);
}
END_TEST

START_TEST(sync_waits_for_its_stream)
{
	/* Same as above but the sync is on stream 1: it waits for C (20100 ->
	 * returns 20150); D launched at 20250 runs 20350..21350.  Fast: C ends
	 * 10100, the sync returns 10150 (shift -10000), D launches 10250,
	 * starts 10350, ends 10850. */
	boundary(0);
	kernel(1, 0, 100, 10100);
	kernel(2, 50, 150, 10150);
	kernel(1, 100, 10100, 20100);
	sync_on(1, 0, 200, 20150);
	kernel(2, 20250, 20350, 21350);
	finish();
	ck_assert_double_eq(meas.iteration_ns, 21350);
	ck_assert_double_eq(pred[1].iteration_ns, 10850);
}
END_TEST

START_TEST(stream_waits_for_event)
{
	/* A on stream 1 runs 10..110; event 7 recorded after it; stream 2
	 * waits for event 7, then B (launched at 3) runs 110..130; the CPU
	 * syncs all at 4 and returns at 131 (1 after B).  Measured: 131.
	 * Fast: A 10..60 (its 10 us launch gap kept), event 7 = 60, B starts
	 * at 60 (its measured gap after the event is 0) and ends 70; the sync
	 * returns 71.  Without the dependency B's measured 107 us after its
	 * launch would stay a gap: 110..120, returning at 121. */
	boundary(0);
	kernel(1, 0, 10, 110);
	record_event(1, 7, 1);
	wait_event(2, 7, 2);
	kernel(2, 3, 110, 130);
	sync_on(0, 1, 4, 131);
	finish();
	ck_assert_double_eq(meas.iteration_ns, 131);
	ck_assert_double_eq(pred[1].iteration_ns, 71);
}
END_TEST

START_TEST(wait_for_unknown_event)
{
	/* The same with a wait on an event never recorded (and one without
	 * an id): no dependency, B keeps its measured gap: 121. */
	boundary(0);
	kernel(1, 0, 10, 110);
	wait_event(2, 8, 2);
	wait_event(2, 0, 2);
	kernel(2, 3, 110, 130);
	sync_on(0, 1, 4, 131);
	finish();
	ck_assert_double_eq(meas.iteration_ns, 131);
	ck_assert_double_eq(pred[1].iteration_ns, 121);
}
END_TEST

START_TEST(inferred_stream_dependency)
{
	/* A trace without event records (Kineto's without cuda_sync args): A
	 * on stream 1 runs 10000..110000; B on stream 2, launched at 3000,
	 * starts 2 us after A ends (112000..132000): its 109 us after its
	 * launch and its idle stream is a wait for stream 1, whose latest work
	 * ended last before B started; the sync of all at 4000 returns 133000.
	 * Fast: A 10000..60000, B starts 2 us after it (62000..72000), the
	 * sync returns 1 us after: 73000.  Kept as a launch gap B would run
	 * 112000..122000 and the sync return 123000.  C on stream 3, launched
	 * at 140000, starts 40 us later with no other stream ending in between
	 * (nothing to have waited for): its gap stays, 180000..190000 measured,
	 * fast 73000 + 7000 + 40000 = 120000..125000. */
	boundary(0);
	kernel(1, 0, 10000, 110000);
	kernel(2, 3000, 112000, 132000);
	sync_on(0, 1, 4000, 133000);
	kernel(3, 140000, 180000, 190000);
	finish();
	ck_assert_double_eq(meas.iteration_ns, 190000);
	ck_assert_double_eq(pred[1].iteration_ns, 125000);
}
END_TEST

START_TEST(cpu_waits_for_event)
{
	/* A on stream 1 (10..60), B on stream 2 (11..211); event 9 recorded on
	 * stream 1 after A; the CPU syncs on event 9 at 3 and returns at 61
	 * (1 after A, not after B); C on stream 1 launched at 62 runs 63..73;
	 * a sync of all at 74 returns 212.  Fast: A 10..35, B 11..111, event
	 * 9 = 35, the event sync returns 36 (shift -25), C launches 37 and runs
	 * 38..43, the last sync returns 112.  Waiting for every stream instead
	 * would give 120. */
	boundary(0);
	kernel(1, 0, 10, 60);
	kernel(2, 1, 11, 211);
	record_event(1, 9, 2);
	sync_event(9, 3, 61);
	kernel(1, 62, 63, 73);
	sync_on(0, 1, 74, 212);
	finish();
	ck_assert_double_eq(meas.iteration_ns, 212);
	ck_assert_double_eq(pred[1].iteration_ns, 112);
}
END_TEST

START_TEST(threads_keep_their_pace)
{
	/* Thread 1: a 100 us kernel (100..100100), a stream sync at 1000 that
	 * returns at 100200, then a 1 us kernel launched at 100300
	 * (100400..101400).  Thread 2 launches 1 us kernels on its own stream at
	 * 50000 and 150000 (+100 latency).  Measured end: 151100.
	 * Fast: thread 1's sync returns at 50200 (shift -50000), its last
	 * kernel runs 50400..50900; thread 2 did not wait, so its launches stay
	 * at 50000 and 150000: the last kernel runs 150100..150600. */
	boundary(0);
	thread = 1;
	kernel(1, 0, 100, 100100);
	sync_on(1, 0, 1000, 100200);
	thread = 2;
	kernel(2, 50000, 50100, 51100);
	thread = 1;
	kernel(1, 100300, 100400, 101400);
	thread = 2;
	kernel(2, 150000, 150100, 151100);
	finish();
	ck_assert_double_eq(meas.iteration_ns, 151100);
	ck_assert_double_eq(pred[1].iteration_ns, 150600);
}
END_TEST

START_TEST(blocking_copy)
{
	/* A blocking host-to-device copy 500..10500, the CPU returns at 11000;
	 * a kernel launched at 12000 runs 12500..13500.  Target 1's host link is
	 * half as fast (copy scale 2): the copy ends 20500, the CPU returns
	 * 21000 (shift +10000), the kernel launches 22000 and, twice as fast,
	 * runs 22500..23000. */
	struct tl_event e;

	tgt[1].copy_scale[TL_COPY_HOST] = 2.0;
	boundary(0);
	memset(&e, 0, sizeof(e));
	e.kind = TL_COPY;
	e.copy = TL_COPY_HOST;
	e.blocking = 1;
	e.stream = 7;
	e.cpu_ns = 0;
	e.cpu_end_ns = 11000;
	e.start_ns = 500;
	e.end_ns = 10500;
	e.has_gpu = 1;
	ck_assert_int_eq(timeline_add(tl, &e), 0);
	kernel(7, 12000, 12500, 13500);
	finish();
	ck_assert_double_eq(meas.iteration_ns, 13500);
	ck_assert_double_eq(pred[1].iteration_ns, 23000);
	ck_assert_double_eq(meas.copy_ns, 10000);
	ck_assert_double_eq(pred[1].copy_ns, 20000);
}
END_TEST

START_TEST(iterations)
{
	/* Two iterations of one 10 us kernel, boundaries at 0 and 50000 (and an
	 * end boundary at 100000 in the second run): span 0..max(end) and
	 * the time per iteration is span / 2. */
	boundary(0);
	kernel(7, 1000, 1500, 11500);
	boundary(50000);
	kernel(7, 51000, 51500, 61500);
	finish();
	ck_assert_uint_eq(meas.iterations, 2);
	ck_assert_double_eq(meas.iteration_ns, 61500 / 2.0);
	/* fast: second kernel 51500..56500 */
	ck_assert_double_eq(pred[1].iteration_ns, 56500 / 2.0);
	boundary(100000);
	finish();
	ck_assert_uint_eq(meas.iterations, 2);
	ck_assert_double_eq(meas.iteration_ns, 50000);
}
END_TEST

static void window_end(double cpu)
{
	struct tl_event e;

	memset(&e, 0, sizeof(e));
	e.kind = TL_ITERATION_END;
	e.cpu_ns = e.cpu_end_ns = cpu;
	ck_assert_int_eq(timeline_add(tl, &e), 0);
}

START_TEST(capture_windows)
{
	/* Two capture windows with uncaptured time between them: start 0,
	 * kernel 1000..11000, stop at 2000 (the kernel still runs: the window
	 * lasts to 11000); start 100000, kernel 101000..111000, stop 101500
	 * (to 111000).  Measured (11000 + 11000) / 2 = 11000; fast: kernels end
	 * 6000 and 106000: (6000 + 6000) / 2.  The 89 us between windows are not
	 * counted. */
	boundary(0);
	kernel(7, 500, 1000, 11000);
	window_end(2000);
	boundary(100000);
	kernel(7, 100500, 101000, 111000);
	window_end(101500);
	finish();
	ck_assert_uint_eq(meas.iterations, 2);
	ck_assert_double_eq(meas.iteration_ns, 11000);
	ck_assert_double_eq(pred[1].iteration_ns, 6000);
	ck_assert_double_eq(meas.kernel_ns, 10000);
}
END_TEST

START_TEST(warmup_excluded)
{
	/* Work before the first boundary is replayed but not counted: a kernel
	 * at 0..10000 (warm-up), boundary at 20000, kernel 21000..22000. */
	kernel(7, 0, 0, 10000);
	boundary(20000);
	kernel(7, 20500, 21000, 22000);
	finish();
	ck_assert_double_eq(meas.iteration_ns, 2000);
	ck_assert_double_eq(meas.kernel_ns, 1000);
	ck_assert_uint_eq(timeline_config_launches(tl, 0), 1);
	ck_assert_double_eq(timeline_config_ns(tl, 0, 0), 1000);
	ck_assert_double_eq(timeline_config_ns(tl, 0, 2), 500);
}
END_TEST

START_TEST(no_gpu_times)
{
	/* Without GPU times a kernel takes its predicted time (ns): target 1
	 * predicts 0 here, target 0 too; measured durations are 0. */
	struct tl_event e;

	memset(&e, 0, sizeof(e));
	e.kind = TL_KERNEL;
	e.stream = 7;
	e.cpu_ns = e.cpu_end_ns = 100;
	ck_assert_int_eq(timeline_add(tl, &e), 0);
	e.config = 5;   /* out of range: refused */
	ck_assert_int_lt(timeline_add(tl, &e), 0);
	finish();
	ck_assert_double_eq(meas.iteration_ns, 0);
}
END_TEST

/* The slowest of n boards whose figures spread evenly over 5 % around the
 * table's: 2.5 % (n - 1) / (n + 1) below it; one GPU (or an unknown world,
 * 0) runs at its own figures; the pace never falls below 97.5 %. */
START_TEST(pace_of_the_slowest)
{
	ck_assert_double_eq(timeline_pace(0), 1);
	ck_assert_double_eq(timeline_pace(1), 1);
	ck_assert_double_eq_tol(timeline_pace(2), 1 - 0.025 / 3, 1e-12);
	ck_assert_double_eq_tol(timeline_pace(8), 1 - 0.025 * 7 / 9, 1e-12);
	ck_assert_double_eq_tol(timeline_pace(64), 1 - 0.025 * 63 / 65, 1e-12);
	ck_assert(timeline_pace(65536) > 0.975 && timeline_pace(65536) < timeline_pace(64));
}
END_TEST

START_TEST(peer_work)
{
	/* Two kernels of 1 us on one stream, the first a peer's (a pipeline
	 * bubble): launched at 0 and 100, the second starts when the first
	 * ends.  Measured: the peer runs 0..1000, the kernel 1000..2000, the
	 * iteration 2000 with 1000 of kernel time and one launch; twice as
	 * fast: 0..500, 500..1000, iteration 1000, kernel time 500. */
	boundary(0);
	add((struct tl_event){ .kind = TL_KERNEL, .stream = 7, .cpu_ns = 0, .cpu_end_ns = 0,
			       .start_ns = 0, .end_ns = 1000, .has_gpu = 1, .peer = 1 });
	kernel(7, 100, 1000, 2000);
	finish();
	ck_assert_double_eq(meas.iteration_ns, 2000);
	ck_assert_double_eq(pred[1].iteration_ns, 1000);
	ck_assert_double_eq(meas.kernel_ns, 1000);
	ck_assert_double_eq(pred[1].kernel_ns, 500);
	ck_assert_uint_eq(timeline_config_launches(tl, 0), 1);
	ck_assert_double_eq(timeline_config_ns(tl, 0, 0), 1000);
	ck_assert_double_eq(timeline_config_ns(tl, 0, 2), 500);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("timeline");
	TCase *tc = tcase_create("timeline");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, launch_bound);
	tcase_add_test(tc, gpu_bound_with_sync);
	tcase_add_test(tc, streams_overlap);
	tcase_add_test(tc, sync_waits_for_its_stream);
	tcase_add_test(tc, stream_waits_for_event);
	tcase_add_test(tc, wait_for_unknown_event);
	tcase_add_test(tc, inferred_stream_dependency);
	tcase_add_test(tc, cpu_waits_for_event);
	tcase_add_test(tc, threads_keep_their_pace);
	tcase_add_test(tc, blocking_copy);
	tcase_add_test(tc, iterations);
	tcase_add_test(tc, capture_windows);
	tcase_add_test(tc, warmup_excluded);
	tcase_add_test(tc, no_gpu_times);
	tcase_add_test(tc, peer_work);
	tcase_add_test(tc, pace_of_the_slowest);
	suite_add_tcase(s, tc);
	return check_run(s);
}
