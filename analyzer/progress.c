/*
 * progress.c - the progress bar of progress.h.
 */
#include "analyzer/progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void progress_start(struct progress *p, const char *prog, const char *what, int quiet)
{
	p->on = !quiet && isatty(2);
	p->last = -1;
	p->t0_s = now_s();
	p->prog = prog;
	p->what = what;
}

void progress_draw(void *ctx, uint64_t done, uint64_t total)
{
	struct progress *p = ctx;
	/* nothing for work that ends before anyone would wonder */
	if (!p->on || !total || now_s() - p->t0_s < 0.25)
		return;
	int pct = done >= total ? 100 : (int)(done * 100 / total);
	if (pct == p->last)
		return;
	p->last = pct;
	char bar[41];
	int fill = pct * 40 / 100;
	for (int i = 0; i < 40; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[40] = '\0';
	fprintf(stderr, "\r%s: %s [%s] %3d%%", p->prog, p->what, bar, pct);
	fflush(stderr);
}

void progress_end(struct progress *p)
{
	if (p->on && p->last >= 0)
		fprintf(stderr, "\r%*s\r", 78, "");
}
