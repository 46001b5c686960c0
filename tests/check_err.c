/*
 * check_err.c - the error codes' contract (trace/surfer_err.h): the exit
 * status of every code as the man pages state it (0 success, 1 when memory
 * runs out or an output cannot be written, 2 for bad input), distinct
 * codes, and the trace module's names for the same codes.
 */
#include <check.h>
#include <string.h>

#include "trace/surfer_err.h"
#include "trace/trace.h"
#include "tests/check_run.h"

static const struct {
	int err;
	int exit_code;
} cases[] = {
	{SURFER_OK, 0},       {3, 0},               /* a count is success */
	{SURFER_ENOMEM, 1},   {SURFER_EWRITE, 1},
	{SURFER_EINVAL, 2},   {SURFER_EIO, 2},      {SURFER_ECORRUPT, 2},
	{SURFER_EVERSION, 2}, {SURFER_ETRUNC, 2},   {SURFER_EUNKNOWN, 2},
	{SURFER_EDEVICE, 2},  {-100, 2},            /* any other negative value */
};

START_TEST(test_exit_codes)
{
	ck_assert_msg(surfer_exit_code(cases[_i].err) == cases[_i].exit_code,
		      "code %d: exit %d, want %d", cases[_i].err, surfer_exit_code(cases[_i].err),
		      cases[_i].exit_code);
}
END_TEST

START_TEST(test_distinct)
{
	static const int all[] = {SURFER_ENOMEM, SURFER_EINVAL, SURFER_EIO, SURFER_ECORRUPT,
				  SURFER_EVERSION, SURFER_ETRUNC, SURFER_EUNKNOWN, SURFER_EDEVICE,
				  SURFER_EWRITE};
	const size_t n = sizeof all / sizeof all[0];
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_lt(all[i], 0);
		ck_assert_str_ne(surfer_err_name(all[i]), "error");
		for (size_t j = 0; j < i; j++) {
			ck_assert_int_ne(all[i], all[j]);
			ck_assert_str_ne(surfer_err_name(all[i]), surfer_err_name(all[j]));
		}
	}
	/* the values the analyzer and the predictor returned before the enum */
	ck_assert_int_eq(SURFER_ENOMEM, -1);
	ck_assert_int_eq(SURFER_EINVAL, -2);
	ck_assert_int_eq(TRACE_ENOMEM, SURFER_ENOMEM);
	ck_assert_int_eq(TRACE_ETRUNC, SURFER_ETRUNC);
	ck_assert_int_eq(TRACE_ECORRUPT, SURFER_ECORRUPT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("err");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_exit_codes, 0, (int)(sizeof cases / sizeof cases[0]));
	tcase_add_test(tc, test_distinct);
	suite_add_tcase(s, tc);
	return check_run(s);
}
