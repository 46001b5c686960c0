/*
 * bench_e2e_main.c - build/surfer-bench-e2e, a stand-alone front for the
 * e2e and comm subcommands until surfer-bench dispatches to them.
 */
#include <stdio.h>
#include <string.h>

#include "tools/bench_e2e.h"

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "e2e") == 0)
		return bench_e2e_main(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "comm") == 0)
		return bench_comm_main(argc - 1, argv + 1);
	fprintf(stderr, "usage: surfer-bench-e2e e2e --labels DIR --configs DIR | comm DIR...\n");
	return 2;
}
