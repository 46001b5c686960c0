/*
 * sibling.h - where another surfer program is: beside this program's
 * executable first (the build tree, an install prefix's bin/), then on
 * PATH, the way git finds git-VERB.  `surfer VERB` runs surfer-VERB so,
 * and surfer-analyze runs surfer-import so on a torch.profiler or Nsight
 * Systems file; surfer-record looks for libsurfer.so beside its folder.
 */
#ifndef SURFER_SIBLING_H
#define SURFER_SIBLING_H

#include <stddef.h>

/* The directory of this program's executable, without a trailing '/';
 * "." when /proc/self/exe cannot be read. */
void sibling_self_dir(char *out, size_t n);

/* Into out (n bytes): the path of prog beside this program when an
 * executable file is there (returns 1), else prog itself, for execvp to
 * look on PATH (returns 0). */
int sibling_path(const char *prog, char *out, size_t n);

#endif
