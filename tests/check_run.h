/*
 * check_run.h - the end of every check_*.c main(): run the suite, print
 * Check's summary, and turn the failures into the exit status (0 all
 * passed, 1 some failed).
 */
#ifndef SURFER_CHECK_RUN_H
#define SURFER_CHECK_RUN_H

#include <check.h>

static inline int check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

#endif
