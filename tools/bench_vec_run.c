/*
 * bench_vec_run.c - surfer-bench-vec, a stand-alone driver of the
 * `surfer-bench vec` subcommand (tools/bench_vec.c) for `make bench-vec`.
 */
#include "tools/bench_vec.h"

int main(int argc, char **argv)
{
	return bench_vec_main(argc, argv);
}
