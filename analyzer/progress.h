/*
 * progress.h - a one-line progress bar on standard error for the programs'
 * long runs (surfer-import reading a large trace, surfer-analyze --plan
 * timing its layouts).  It is drawn only on a terminal and only once the
 * work has taken a quarter of a second, so quick runs, pipes and logs see
 * nothing; progress_end() wipes it so the next line starts clean.  One
 * thread draws: the caller keeps other threads off it.
 */
#ifndef SURFER_PROGRESS_H
#define SURFER_PROGRESS_H

#include <stdint.h>

struct progress {
	int on;                 /* standard error is a terminal, not quiet   */
	int last;               /* the percentage drawn last, -1 none        */
	double t0_s;            /* when the work started, monotonic seconds  */
	const char *prog;       /* the program's name, before the bar        */
	const char *what;       /* what it is doing ("reading", "timing")    */
};

/* Starts p for prog doing what (both static); quiet or a standard error
 * that is not a terminal leaves it off. */
void progress_start(struct progress *p, const char *prog, const char *what, int quiet);

/* Draws done of total (ctx a struct progress; the shape of surfer-import's
 * reader callback) when the percentage changed. */
void progress_draw(void *ctx, uint64_t done, uint64_t total);

/* Wipes the bar if one was drawn. */
void progress_end(struct progress *p);

#endif
