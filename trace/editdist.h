/*
 * editdist.h - the one edit distance: how many single-character edits
 * turn one name into another, for "did you mean" answers (GPU names in
 * gpu_specs/gpus.c, options and verbs in analyzer/optfail.c).
 *
 * The distance is the optimal string alignment's: insertions, deletions,
 * substitutions and swaps of two neighbouring characters each count one,
 * so "a1000" and "h10o" are one edit from "a100" and "h100", and "--tpo"
 * one from "--top".  Bytes are compared as they are (no case folding: the
 * callers fold first where they want to).
 *
 * Contract: reads only its arguments; never allocates; strings are
 * compared on their first EDIT_DISTANCE_MAX bytes.
 */
#ifndef SURFER_EDITDIST_H
#define SURFER_EDITDIST_H

#include <stddef.h>

#define EDIT_DISTANCE_MAX 127

/* The distance between a and b, or limit + 1 as soon as it is known to
 * exceed limit (UINT_MAX for no limit). */
unsigned edit_distance(const char *a, const char *b, unsigned limit);

/* The index of the one name nearest word within limit edits, of the n that
 * name(i, ctx) gives; -1 when none is within limit or when several are
 * equally near (a guess between them would be a coin toss).  The "did you
 * mean" of options (analyzer/optfail.c) and verbs (tools/surfer.c). */
long edit_nearest(const char *word, size_t n, const char *(*name)(size_t i, const void *ctx),
		  const void *ctx, unsigned limit);

#endif
