#!/bin/sh
# nocuda.sh - without the CUDA headers (CUDA_HOME pointing nowhere) make
# builds everything but the recorder and says what it skipped and why,
# and make test leaves out the tests that need the recorder with a
# message, running the rest; without cudnn.h alone (cuDNN is not part
# of the toolkit) the recorder is built without its cuDNN hooks.  Read
# from make's plan (make -n into an empty build directory), so nothing is
# built; the full build and test without CUDA is
# `CUDA_HOME=/nonexistent make test`.
. "$(dirname "$0")/lib.sh"
test_tmp nocuda
T=$tmp
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -n NODEPS=1 FUZZ_CC=false \
	BUILD="$T/b" "$@"; }

mk CUDA_HOME=/nonexistent all >"$T/all" 2>&1
check "make -n all without CUDA succeeds ($(tail -2 "$T/all"))" $?
grep -q "skipped $T/b/libsurfer.so: CUDA headers not found under /nonexistent/include: cuda.h cupti.h cublasLt.h" "$T/all"
check "make says libsurfer.so was skipped and which headers are missing" $?
! grep -q -- "-o $T/b/libsurfer.so" "$T/all" && ! grep -q 'preload/[a-z_]*\.c' "$T/all"
check "nothing of preload/ is compiled" $?
for p in surfer surfer-record surfer-analyze surfer-import surfer-dump; do
	grep -q -- "-o $T/b/$p " "$T/all"
	check "$p is still built" $?
done

mk CUDA_HOME=/nonexistent test >"$T/test" 2>&1
check "make -n test without CUDA succeeds" $?
grep -q "skipping tests/shim_test.sh tests/gpu_check_test.sh $T/b/tests/check_cupti: they need the recorder" "$T/test"
check "make test says which tests it skips and why ($(grep skipping "$T/test"))" $?
run=$(grep 'tests/run.sh' "$T/test")
case $run in
*shim_test.sh* | *check_cupti* | *gpu_check_test.sh*) false ;;
*tests/record.sh*tests/surfer_cli.sh* | *tests/surfer_cli.sh*tests/record.sh*) true ;;
*) false ;;
esac
check "the run leaves those out and keeps the rest ($run)" $?

# the toolkit without cuDNN: the recorder without its cuDNN hooks, said so
# (make -n reads no header: empty files stand in for the toolkit's)
mkdir -p "$T/cuda/include"
: >"$T/cuda/include/cuda.h"
: >"$T/cuda/include/cupti.h"
: >"$T/cuda/include/cublasLt.h"
mk CUDA_HOME="$T/cuda" all >"$T/nodnn" 2>&1
check "make -n all without cudnn.h succeeds" $?
grep -q "built $T/b/libsurfer.so without its cuDNN hooks (cudnn.h not under $T/cuda/include" "$T/nodnn" &&
	grep -q 'preload/hooks_cudnn_none\.c' "$T/nodnn" && ! grep -q 'preload/hooks_cudnn\.c' "$T/nodnn" &&
	grep -q -- "-o $T/b/libsurfer.so" "$T/nodnn"
check "without cudnn.h: libsurfer.so with the empty cuDNN table, said so" $?

# with the headers (where this machine has them) nothing is skipped
if [ -f "${CUDA_HOME:-/usr/local/cuda}/include/cuda.h" ] && [ -f "${CUDA_HOME:-/usr/local/cuda}/include/cudnn.h" ]; then
	mk CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" test >"$T/with" 2>&1
	! grep -q 'skipp' "$T/with" && ! grep -q 'without its cuDNN' "$T/with" &&
		grep -q -- "-o $T/b/libsurfer.so" "$T/with"
	check "with the CUDA headers: libsurfer.so built, nothing skipped" $?
fi

finish "nocuda.sh"
