/*
 * editdist.c - the optimal string alignment distance (editdist.h).
 */
#include "trace/editdist.h"

#include <string.h>

unsigned edit_distance(const char *a, const char *b, unsigned limit)
{
	/* row i of the table is rows[i % 3]: a swap looks two rows back */
	unsigned rows[3][EDIT_DISTANCE_MAX + 1];
	size_t la = strnlen(a, EDIT_DISTANCE_MAX), lb = strnlen(b, EDIT_DISTANCE_MAX);
	unsigned over = limit < (unsigned)-1 ? limit + 1 : limit;

	if ((la > lb ? la - lb : lb - la) > limit)
		return over;
	for (size_t j = 0; j <= lb; j++)
		rows[0][j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned *c = rows[i % 3], *p = rows[(i - 1) % 3], *pp = rows[(i + 1) % 3];
		unsigned row_min;

		c[0] = row_min = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned cost = a[i - 1] != b[j - 1];
			unsigned v = p[j] + 1;

			if (c[j - 1] + 1 < v)
				v = c[j - 1] + 1;
			if (p[j - 1] + cost < v)
				v = p[j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			c[j] = v;
			if (v < row_min)
				row_min = v;
		}
		/* a row's least is at most the previous row's plus one, and
		 * the next row's at least the lesser of this row's and the
		 * previous row's plus one (a swap reaches back a row): once a
		 * row's least is past limit, so is every later row's */
		if (row_min > limit)
			return over;
	}
	unsigned d = rows[la % 3][lb];
	return d > limit ? over : d;
}

long edit_nearest(const char *word, size_t n, const char *(*name)(size_t i, const void *ctx),
		  const void *ctx, unsigned limit)
{
	unsigned best = limit + 1, ties = 0;
	long near = -1;
	for (size_t i = 0; i < n; i++) {
		unsigned d = edit_distance(word, name(i, ctx), limit);
		if (d < best)
			best = d, near = (long)i, ties = 0;
		else if (d == best && d <= limit)
			ties++;
	}
	return best <= limit && !ties ? near : -1;
}
