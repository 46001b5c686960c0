/*
 * check_csv.c - Check suite of the CSV reader (trace/csv.c): a table of
 * inputs and the rows, lines and errors expected of them, written by hand
 * from RFC 4180 (quoted commas, "" quotes, quoted line breaks, CRLF), a
 * UTF-8 byte-order mark, plus
 * the column lookup, the sticky error and a line longer than any buffer
 * the old per-tool readers had.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/csv.h"
#include "tests/check_run.h"

/* Every row as "LINE:f1|f2|...\n", a line break inside a field as "\n"
 * written out (backslash, n); then "error: MESSAGE" when reading failed. */
static char *render(const char *in, size_t len, unsigned flags)
{
	FILE *fp = fmemopen((void *)in, len, "r");
	ck_assert_ptr_nonnull(fp);
	struct csv_reader r;
	csv_init(&r, fp, "t.csv", flags);
	size_t cap = 4 * len + 256, n = 0;
	char *out = malloc(cap);
	ck_assert_ptr_nonnull(out);
	int rc;
	while ((rc = csv_next(&r)) == 1) {
		n += (size_t)snprintf(out + n, cap - n, "%lu:", r.line);
		for (size_t i = 0; i < r.nfield; i++) {
			if (i)
				out[n++] = '|';
			for (const char *c = r.field[i]; *c; c++) {
				if (*c == '\n') {
					out[n++] = '\\';
					out[n++] = 'n';
				} else {
					out[n++] = *c;
				}
			}
		}
		out[n++] = '\n';
		ck_assert_uint_lt(n + 64, cap);
	}
	out[n] = 0;
	if (rc < 0) {
		ck_assert_int_eq(csv_next(&r), rc);       /* the error stays */
		n += (size_t)snprintf(out + n, cap - n, "error: %s", r.err);
	}
	csv_release(&r);
	fclose(fp);
	return out;
}

static const struct {
	const char *in;
	unsigned flags;
	const char *want;
} cases[] = {
	{"a,b,c\n", 0, "1:a|b|c\n"},
	{"a,b", 0, "1:a|b\n"},                                     /* no final line end */
	{"x,y\r\nz,w\r\n", 0, "1:x|y\n2:z|w\n"},                   /* CRLF */
	{"\xef\xbb\xbfid,b\n\xef\xbb\xbf,c\n", 0, "1:id|b\n2:\xef\xbb\xbf|c\n"},  /* a BOM: the first line's only */
	{",a,,\n", 0, "1:|a||\n"},                                 /* empty fields */
	{"a\n\nb\n", 0, "1:a\n2:\n3:b\n"},                         /* an empty line is a row */
	{"\"a,b\",\"say \"\"hi\"\"\",c\n", 0, "1:a,b|say \"hi\"|c\n"},
	{"\"\",x\n", 0, "1:|x\n"},
	{"ab\"c,d\n", 0, "1:ab\"c|d\n"},                           /* a quote inside a bare field */
	{"\"two\nlines\",x\ny\n", 0, "1:two\\nlines|x\n3:y\n"},    /* a quoted line break */
	{"\"a\r\nb\"\r\nc\r\n", 0, "1:a\\nb\n3:c\n"},
	{"\"q\"\r\n", 0, "1:q\n"},
	{"void f<1, 2>(),\"k<a, \"\"b\"\">\"\n", 0, "1:void f<1| 2>()|k<a, \"b\">\n"},
	{"# c,\"\n\nh,i\n#x\nj,k\n", CSV_COMMENTS, "3:h|i\n5:j|k\n"},
	{"#x\n", 0, "1:#x\n"},
	{"", 0, ""},
	{"a\n\"open,b\nc\n", 0, "1:a\nerror: t.csv:2: unterminated quote"},
	{"x,\"q\"z,y\n", 0, "error: t.csv:1: text after a closing quote"},
	{"h\n\"a\"\"\n", 0, "1:h\nerror: t.csv:2: unterminated quote"},
};

START_TEST(test_cases)
{
	char *got = render(cases[_i].in, strlen(cases[_i].in), cases[_i].flags);
	ck_assert_msg(strcmp(got, cases[_i].want) == 0, "case %d: got '%s', want '%s'", _i, got,
		      cases[_i].want);
	free(got);
}
END_TEST

START_TEST(test_columns)
{
	static const char in[] = "id,name,,name\n1\n";
	FILE *fp = fmemopen((void *)in, sizeof in - 1, "r");
	ck_assert_ptr_nonnull(fp);
	struct csv_reader r;
	csv_init(&r, fp, "c.csv", 0);
	ck_assert_int_eq(csv_next(&r), 1);
	ck_assert_int_eq(csv_col(&r, "name"), 1);    /* the first of two */
	ck_assert_int_eq(csv_col(&r, ""), 2);
	ck_assert_int_eq(csv_col(&r, "nam"), -1);
	ck_assert_int_eq(csv_next(&r), 1);
	ck_assert_str_eq(csv_field(&r, 0), "1");
	ck_assert_str_eq(csv_field(&r, 3), "");      /* past a short row */
	ck_assert_int_eq(csv_next(&r), 0);
	ck_assert_int_eq(csv_next(&r), 0);
	csv_release(&r);
	fclose(fp);
}
END_TEST

/* Rows longer than the fixed line buffers (4 to 16 KiB) the benchmark
 * readers used to have, in a file opened by name. */
START_TEST(test_long_row_from_file)
{
	char path[] = "/tmp/check_csv_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *fp = fdopen(fd, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("head,tail\n\"", fp);
	for (int i = 0; i < 100000; i++)
		fputc(i % 1000 ? 'x' : ',', fp);
	fputs("\",end\n", fp);
	fclose(fp);

	struct csv_reader r;
	ck_assert_int_eq(csv_open(&r, path, 0), 0);
	ck_assert_int_eq(csv_next(&r), 1);
	ck_assert_int_eq(csv_next(&r), 1);
	ck_assert_uint_eq(r.line, 2);
	ck_assert_uint_eq(r.nfield, 2);
	ck_assert_uint_eq(strlen(r.field[0]), 100000);
	ck_assert_int_eq(r.field[0][0], ',');
	ck_assert_str_eq(r.field[1], "end");
	ck_assert_int_eq(csv_next(&r), 0);
	csv_release(&r);
	unlink(path);

	ck_assert_int_eq(csv_open(&r, "/nonexistent/x.csv", 0), SURFER_EIO);
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("csv");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_cases, 0, (int)(sizeof cases / sizeof cases[0]));
	tcase_add_test(tc, test_columns);
	tcase_add_test(tc, test_long_row_from_file);
	suite_add_tcase(s, tc);
	return check_run(s);
}
