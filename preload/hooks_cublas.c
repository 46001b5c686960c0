/* hooks_cublas.c - placeholder, filled below */
#include "preload/preload.h"
struct preload_hook preload_cublas_hooks[] = { { NULL, { NULL, NULL }, 0, { NULL, NULL }, { NULL, NULL } } };
