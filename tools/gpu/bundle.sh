#!/bin/sh
# tools/gpu/bundle.sh DIR FILE...: copies the programs FILE... into
# DIR/bin and the shared libraries they need beyond the C library's own
# into DIR/lib, so tools/gpu/check.sh can run them on a machine that has a
# GPU but not this project's build dependencies (msgpack-c, jansson,
# libunwind).  `make devcheck-bundle` calls it.
set -e
dir=$1
shift
rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/lib"
for f in "$@"; do
	cp "$f" "$dir/bin/"
	ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | while read -r lib; do
		case $(basename "$lib") in
		libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) ;;
		*) cp -L "$lib" "$dir/lib/" ;;
		esac
	done
done
echo "devcheck bundle in $dir: $(ls "$dir/bin" | tr '\n' ' ')+ $(ls "$dir/lib" | tr '\n' ' ')"
