/*
 * optfail.h - one line saying why getopt_long() refused an option.
 *
 * getopt_long() with opterr 0 returns '?' for four different mistakes: a
 * name no option has ("--tpp"), a value given to an option that takes none
 * ("--json=1"), a prefix that several options share ("--pr"), and an unknown
 * short letter.  Every surfer program used to answer all four with "unknown
 * option '--json=1'", which sends a user looking for an option that exists.
 * optfail_describe() tells them apart and, for a name no option has, names
 * the nearest one when it is close (a typo, not a different word).
 *
 * Contract: reads only its arguments; writes one line without a newline
 * (at most n - 1 bytes, always terminated when n > 0); never allocates.
 */
#ifndef SURFER_OPTFAIL_H
#define SURFER_OPTFAIL_H

#include <getopt.h>
#include <stddef.h>

/* arg: the refused argument as given (argv[optind - 1] after the '?');
 * opts: the table given to getopt_long(), ended by a NULL name. */
void optfail_describe(const char *arg, const struct option *opts, char *buf, size_t n);

#endif
