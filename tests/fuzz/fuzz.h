/*
 * fuzz.h - what the libFuzzer targets in tests/fuzz/ share.
 *
 * Each target is a thin LLVMFuzzerTestOneInput over the library entry point
 * a program calls for that input (the trace reader and analysis_run, the
 * importers' read and finish, model_config_load, baseline_compare, ns_load);
 * the parsers themselves are never copied here.  Most of those entry points
 * take a path, so the input is written to a file first: fuzz_file() keeps
 * one scratch directory per process (removed at exit) under $TMPDIR.  What
 * an importer wrote must read back and analyze (fuzz_check_trace,
 * fuzz_analyze), so the JSON and SQL inputs also reach the analyzer with
 * well-formed traces of odd content.
 */
#ifndef SURFER_TESTS_FUZZ_H
#define SURFER_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Writes data[0..size) to the file called name in the process's scratch
 * directory (created on first use) and returns its path, which stays valid
 * until the process exits.  Aborts when the file cannot be written: that is
 * a broken test machine, not a finding. */
const char *fuzz_file(const uint8_t *data, size_t size, const char *name);

/* The path of name in the scratch directory, without writing it. */
const char *fuzz_path(const char *name);

/* Reads back the trace an importer wrote to path and aborts when the reader
 * rejects it: whatever an importer accepts must become a readable trace. */
void fuzz_check_trace(const char *path, const char *who);

/* Analyzes the trace at path as surfer-analyze --origin a100 -t h100-sxm
 * would (with a reorder window of 8 events instead of 16384, so that small
 * inputs out of order also take the path that reads the trace twice and
 * sorts it), writes the text and JSON reports to /dev/null, and aborts when
 * a time of the analysis is not finite and non-negative.  A trace the
 * analysis refuses is no finding. */
void fuzz_analyze(const char *path, const char *who);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#endif
