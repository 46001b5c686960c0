/*
 * bench_tc_cli.c - surfer-bench-tc, bench_tc_main() as a program of its own
 * (`make bench-tc`), until `surfer-bench tensorcore` dispatches to it.
 */
#include "tools/bench_tc.h"

#include <string.h>

int main(int argc, char **argv)
{
	/* `surfer-bench-tc tensorcore ...` and `surfer-bench-tc ...` alike. */
	if (argc > 1 && !strcmp(argv[1], "tensorcore"))
		return bench_tc_main(argc - 1, argv + 1);
	return bench_tc_main(argc, argv);
}
