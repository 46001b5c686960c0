#!/bin/sh
# layers.sh - the include rules of docs/architecture.md ("Folders and what
# each may include"): every #include "dir/..." of a source file must name a
# folder its own folder may use.  A file that crosses a line fails here, so
# the layers stay what the document says.
. "$(dirname "$0")/lib.sh"

# allowed FILE: the folders FILE may include, as a |-separated pattern.
allowed() {
	case $1 in
	trace/*) echo 'trace' ;;
	gpu_specs/*) echo 'trace|gpu_specs' ;;
	predictor/*) echo 'trace|gpu_specs|predictor' ;;
	preload/*) echo 'trace|preload' ;;
	analyzer/model/*) echo 'trace|gpu_specs|predictor|analyzer|analyzer/model' ;;
	# the command line (main.c, its target list) may reach the model builder
	analyzer/main.c | analyzer/targets.[ch]) echo 'trace|gpu_specs|predictor|analyzer|analyzer/model' ;;
	analyzer/*) echo 'trace|gpu_specs|predictor|analyzer' ;;
	tools/import/*) echo 'trace|gpu_specs|predictor|tools/import' ;;
	tools/lab/*) echo '.*' ;;
	tools/*) echo 'trace|gpu_specs|predictor|analyzer|analyzer/model|tools|tools/import' ;;
	*) echo '.*' ;;
	esac
}

# crossings PATH FILE: prints each include of FILE (read as if it were at
# PATH) that PATH's folder may not use.
crossings() {
	pat=$(allowed "$1")
	[ "$pat" = '.*' ] && return 0
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z_]*\/[^"]*\)".*/\1/p' "$2"); do
		dir=${inc%/*}
		echo "$dir" | grep -Eqx "$pat" || echo "layers: $1 includes $inc ($dir is not among: $pat)"
	done
}

out=$(for f in $(git ls-files '*.c' '*.h'); do crossings "$f" "$f"; done)
[ -n "$out" ] && echo "$out"
check "every #include follows docs/architecture.md's folder rules" $([ -z "$out" ]; echo $?)
[ -n "$(git ls-files 'analyzer/*.c')" ]
check "the sources are listed by git" $?

# The rules can fail: a trace/ file including the predictor, a predictor
# file including the analyzer, the analysis including the model builder.
test_tmp layers
printf '#include "predictor/predict.h"\n' >"$tmp/a.c"
[ -n "$(crossings trace/x.c "$tmp/a.c")" ]
check "trace/ may not include predictor/" $?
printf '#include "analyzer/analyze.h"\n' >"$tmp/b.c"
[ -n "$(crossings predictor/x.c "$tmp/b.c")" ]
check "predictor/ may not include analyzer/" $?
printf '#include "analyzer/model/model.h"\n' >"$tmp/c.c"
[ -n "$(crossings analyzer/analyze.c "$tmp/c.c")" ] && [ -z "$(crossings analyzer/model/x.c "$tmp/c.c")" ]
check "the analysis may not include the model builder; the builder may" $?
finish layers
