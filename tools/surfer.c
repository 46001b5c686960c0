/*
 * surfer.c - the one entry point: `surfer VERB ARGS...` runs surfer-VERB,
 * found beside this program (the build tree, the install prefix's bin/)
 * or else on PATH, the way git runs git-VERB.  Each program also works on
 * its own; this one adds nothing to them but the dispatch, `surfer help
 * VERB` (the man page) and the list of verbs.
 *
 * Exit status: the program's; 2 for an unknown verb or bad usage; 127
 * when the verb's program is not installed.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/sibling.h"
#include "trace/editdist.h"

#define PROG "surfer"

static const struct verb {
	const char *name;
	const char *what;
} verbs[] = {
	{"record", "run a program under the recorder and write its trace"},
	{"analyze", "predict a trace's or a model config's iteration time on other GPUs"},
	{"import", "convert a torch.profiler (Kineto) or Nsight Systems trace"},
	{"dump", "print a trace as JSON lines"},
	{"occupancy", "occupancy of a kernel configuration on a GPU"},
	{"bench", "compare the predictions with measured kernel times"},
	{"train", "fit the tile model's weights to measured kernel times"},
};
#define NVERBS (sizeof verbs / sizeof *verbs)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: surfer VERB [ARGS...]\n"
		"       surfer help VERB          the manual page of VERB\n"
		"       surfer --help | --version\n"
		"\n"
		"Predicts how long an iteration of a PyTorch program takes on GPUs you do not have.\n"
		"\n"
		"verbs (each is also the program surfer-VERB; surfer VERB --help for its options):\n");
	for (size_t i = 0; i < NVERBS; i++)
		fprintf(f, "  %-10s %s\n", verbs[i].name, verbs[i].what);
	fprintf(f,
		"\n"
		"  -h, --help     show this help\n"
		"      --version  show the version\n"
		"\n"
		"  surfer record -o run.mp -- python train.py\n"
		"  surfer analyze run.mp --target a100 --target h100\n"
		"See surfer(1).\n");
}

static const struct verb *find_verb(const char *name)
{
	for (size_t i = 0; i < NVERBS; i++)
		if (strcmp(verbs[i].name, name) == 0)
			return &verbs[i];
	return NULL;
}

static int is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

#ifndef SURFER_SRC_MANDIR
#define SURFER_SRC_MANDIR "docs/man"
#endif

/* `surfer help VERB`: man -l on the installed page (../share/man/man1), the
 * one in the source tree beside build/ (../docs/man), or in the source tree
 * this program was built from. */
static const char *verb_name(size_t i, const void *tab)
{
	return ((const struct verb *)tab)[i].name;
}

static int help(const char *name)
{
	char page[64];
	if (strcmp(name, "surfer") == 0)
		snprintf(page, sizeof page, "surfer.1");
	else if (find_verb(name))
		snprintf(page, sizeof page, "surfer-%s.1", name);
	else {
		fprintf(stderr, PROG ": no manual page for '%s'; see surfer --help\n", name);
		return 2;
	}
	char dir[PATH_MAX], path[PATH_MAX + 64];
	sibling_self_dir(dir, sizeof dir);
	const char *where[] = { "%s/../share/man/man1/%s", "%s/../docs/man/%s", SURFER_SRC_MANDIR "/%s" };
	for (size_t i = 0; i < sizeof where / sizeof *where; i++) {
		if (i == 2)
			snprintf(path, sizeof path, where[i], page);
		else
			snprintf(path, sizeof path, where[i], dir, page);
		if (!is_file(path))
			continue;
		execlp("man", "man", "-l", path, (char *)NULL);
		fprintf(stderr, PROG ": cannot run man (%s); the page is %s\n", strerror(errno), path);
		return 1;
	}
	fprintf(stderr, PROG ": %s not found under %s/../share/man/man1, %s/../docs/man or %s\n",
		page, dir, dir, SURFER_SRC_MANDIR);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *v = argv[1];
	if (strcmp(v, "--help") == 0 || strcmp(v, "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(v, "--version") == 0) {
		printf(PROG " " SURFER_VERSION "\n");
		return 0;
	}
	if (strcmp(v, "help") == 0) {
		if (argc == 2) {
			usage(stdout);
			return 0;
		}
		return help(argv[2]);
	}
	if (!find_verb(v)) {
		/* "surfer analyse": the verb within two edits, when one is */
		long near = v[0] != '-' ? edit_nearest(v, NVERBS, verb_name, verbs, 2) : -1;
		if (near >= 0)
			fprintf(stderr, PROG ": '%s' is not a surfer verb (did you mean '%s'?); see surfer --help\n",
				v, verbs[near].name);
		else
			fprintf(stderr, PROG ": '%s' is not a surfer verb; see surfer --help\n", v);
		return 2;
	}
	char prog[64], dir[PATH_MAX], path[PATH_MAX + 64];
	snprintf(prog, sizeof prog, "surfer-%s", v);
	sibling_self_dir(dir, sizeof dir);
	argv[1] = prog;
	if (sibling_path(prog, path, sizeof path))
		execv(path, argv + 1);
	execvp(prog, argv + 1);
	fprintf(stderr, PROG ": cannot run %s (not beside %s/surfer nor on PATH): %s\n",
		prog, dir, strerror(errno));
	return 127;
}
