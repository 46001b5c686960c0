/*
 * recording.c - the work behind `surfer record` (see recording.h).
 *
 * The child is the user's program: it gets the terminal, the standard
 * streams and the environment unchanged apart from LD_PRELOAD and the
 * SURFER_* settings, and its exit status is ours.  Only signals another
 * process sends us are passed on: the terminal's ^C already reaches the
 * whole foreground process group, and sending it again would make a
 * program that counts interrupts (a second ^C = quit now) see two.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyzer/sibling.h"
#include "tools/recording.h"

#define PRELOAD_NAME "libsurfer.so"

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int recording_find_preload(char *out, size_t outlen, char *err, size_t errlen)
{
	char dir[1024];
	sibling_self_dir(dir, sizeof dir);
	const char *where[] = { "%s/" PRELOAD_NAME, "%s/../lib/" PRELOAD_NAME };
	for (size_t i = 0; i < sizeof where / sizeof *where; i++) {
		char path[1200];
		snprintf(path, sizeof path, where[i], dir);
		if (exists(path)) {
			char *abs = realpath(path, NULL);
			snprintf(out, outlen, "%s", abs ? abs : path);
			free(abs);
			return 0;
		}
	}
	snprintf(err, errlen, "no " PRELOAD_NAME " in %s or %s/../lib", dir, dir);
	return -1;
}

char *recording_preload_value(const char *old, const char *lib)
{
	size_t n = (old ? strlen(old) : 0) + strlen(lib) + 2;
	char *v = malloc(n);
	if (!v)
		return NULL;
	if (old && *old)
		snprintf(v, n, "%s:%s", old, lib);
	else
		snprintf(v, n, "%s", lib);
	return v;
}

/* ---- running the program ------------------------------------------- */

static volatile pid_t child_pid;

/* The signals passed on: the ones a job scheduler, a timeout or a user's
 * kill sends to stop or poke a program. */
static const int forwarded[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGCONT, SIGWINCH,
};

static void forward(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	/* si_code > 0: the kernel sent it (the terminal's ^C, ^\, a hangup),
	 * which the child, in the same process group, receives itself. */
	if (child_pid > 0 && (!si || si->si_code <= 0))
		kill(child_pid, sig);
}

int recording_run(char *const argv[], char *err, size_t errlen)
{
	int pipefd[2];
	/* The child reports a failed exec through a close-on-exec pipe. */
	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(pipefd[0]);
		close(pipefd[1]);
		snprintf(err, errlen, "cannot start '%s': %s", argv[0], strerror(e));
		return -1;
	}
	if (pid == 0) {
		close(pipefd[0]);
		sigprocmask(SIG_SETMASK, &old, NULL);
		execvp(argv[0], argv);
		int e = errno;
		if (write(pipefd[1], &e, sizeof e) < 0)
			e = 0;
		_exit(e == ENOENT ? 127 : 126);
	}
	close(pipefd[1]);
	child_pid = pid;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof forwarded / sizeof *forwarded; i++)
		sigaction(forwarded[i], &sa, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);

	int exec_errno = 0;
	ssize_t got;
	do
		got = read(pipefd[0], &exec_errno, sizeof exec_errno);
	while (got < 0 && errno == EINTR);
	close(pipefd[0]);

	int status;
	pid_t w;
	do
		w = waitpid(pid, &status, 0);
	while (w < 0 && errno == EINTR);
	child_pid = 0;
	if (w < 0) {
		snprintf(err, errlen, "cannot wait for '%s': %s", argv[0], strerror(errno));
		return -1;
	}
	if (got == (ssize_t)sizeof exec_errno && exec_errno) {
		snprintf(err, errlen, "cannot run '%s': %s", argv[0], strerror(exec_errno));
		return exec_errno == ENOENT ? 127 : 126;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* ---- finding the traces -------------------------------------------- */

/* Whether name matches pat, where "%p" in pat stands for one or more
 * digits and, when pat has no %p, "<pat>.<digits>" matches too (the file
 * of a forked child). */
static int digits(const char **s)
{
	const char *p = *s;
	while (*p >= '0' && *p <= '9')
		p++;
	int n = p != *s;
	*s = p;
	return n;
}

static int match_here(const char *pat, const char *name)
{
	while (*pat) {
		if (pat[0] == '%' && pat[1] == 'p') {
			/* the pid is digits; the recorder writes it greedily */
			if (!digits(&name))
				return 0;
			pat += 2;
		} else if (*pat++ != *name++) {
			return 0;
		}
	}
	return *name == 0;
}

static int name_matches(const char *pat, const char *name)
{
	if (match_here(pat, name))
		return 1;
	if (strstr(pat, "%p"))
		return 0;
	size_t n = strlen(pat);
	if (strncmp(pat, name, n) != 0 || name[n] != '.')
		return 0;
	const char *rest = name + n + 1;
	return digits(&rest) && *rest == 0;
}

int recording_files_scan(struct recording_files *f, const char *pattern,
			 char *err, size_t errlen)
{
	memset(f, 0, sizeof *f);
	const char *slash = strrchr(pattern, '/');
	if (slash) {
		size_t dn = (size_t)(slash - pattern);
		if (dn >= sizeof f->dir) {
			snprintf(err, errlen, "output directory too long");
			return -1;
		}
		memcpy(f->dir, pattern, dn);
		f->dir[dn] = 0;
		if (dn == 0)
			snprintf(f->dir, sizeof f->dir, "/");
	} else {
		snprintf(f->dir, sizeof f->dir, ".");
	}
	if (strstr(f->dir, "%p")) {
		snprintf(err, errlen, "%%p only in the file name, not in '%s'", f->dir);
		return -1;
	}
	snprintf(f->name, sizeof f->name, "%s", slash ? slash + 1 : pattern);
	DIR *d = opendir(f->dir);
	if (!d)
		return 0;       /* nothing there yet; the recorder may fail later */
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!name_matches(f->name, e->d_name))
			continue;
		char path[1400];
		if (slash)
			snprintf(path, sizeof path, "%s/%s", strcmp(f->dir, "/") ? f->dir : "", e->d_name);
		else
			snprintf(path, sizeof path, "%s", e->d_name);
		struct stat st;
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (f->n == f->cap) {
			size_t cap = f->cap ? 2 * f->cap : 8;
			void *p = realloc(f->files, cap * sizeof *f->files);
			if (!p)
				goto nomem;
			f->files = p;
			f->cap = cap;
		}
		struct recording_file *r = &f->files[f->n];
		r->path = strdup(path);
		if (!r->path)
			goto nomem;
		r->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		r->size = (int64_t)st.st_size;
		f->n++;
	}
	closedir(d);
	return 0;
nomem:
	closedir(d);
	recording_files_release(f);
	snprintf(err, errlen, "out of memory");
	return -1;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct recording_file *)a)->path,
		      ((const struct recording_file *)b)->path);
}

void recording_files_new(struct recording_files *after, const struct recording_files *before)
{
	size_t k = 0;
	for (size_t i = 0; i < after->n; i++) {
		struct recording_file *a = &after->files[i];
		int old = 0;
		for (size_t j = 0; j < before->n && !old; j++) {
			const struct recording_file *b = &before->files[j];
			old = strcmp(a->path, b->path) == 0 && a->mtime_ns == b->mtime_ns &&
			      a->size == b->size;
		}
		if (old)
			free(a->path);
		else
			after->files[k++] = *a;
	}
	after->n = k;
	if (after->n > 1)
		qsort(after->files, after->n, sizeof *after->files, by_path);
}

void recording_files_release(struct recording_files *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->files[i].path);
	free(f->files);
	f->files = NULL;
	f->n = f->cap = 0;
}

/* ---- summarizing a trace ------------------------------------------- */

int recording_summarize(const char *path, struct recording_summary *s,
			char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	struct trace_reader *r;
	int rc = trace_reader_open(&r, path, err, errlen);
	if (rc < 0)
		return rc;
	const struct trace_header *h = trace_reader_header(r);
	s->timing = h->timing;
	snprintf(s->timing_note, sizeof s->timing_note, "%s", h->timing_note);
	/* iteration indices seen, as a bitmap grown on demand */
	unsigned char *seen = NULL;
	size_t nseen = 0;
	struct trace_record rec;
	char why[256];
	while ((rc = trace_reader_next(r, &rec, why, sizeof why)) == 1) {
		if (rec.type != TRACE_KERNEL)
			continue;
		s->kernels++;
		int32_t it = rec.u.kernel.iteration;
		if (it < 0)
			continue;
		size_t byte = (size_t)it / 8;
		if (byte >= nseen) {
			size_t n = byte + 64;
			unsigned char *p = realloc(seen, n);
			if (!p)
				continue;
			memset(p + nseen, 0, n - nseen);
			seen = p;
			nseen = n;
		}
		if (!(seen[byte] & (1u << (it % 8)))) {
			seen[byte] |= (unsigned char)(1u << (it % 8));
			s->iterations++;
		}
	}
	free(seen);
	s->records = trace_reader_count(r);
	if (rc == 0)
		s->dropped = rec.u.trailer.dropped;
	else if (rc == TRACE_ETRUNC)
		s->truncated = 1;
	else
		snprintf(s->error, sizeof s->error, "%s", why);
	trace_reader_free(r);
	return 0;
}

void recording_summary_format(const struct recording_summary *s, char *out, size_t outlen)
{
	char its[64], lost[320];
	if (s->iterations)
		snprintf(its, sizeof its, "%u iteration%s", s->iterations,
			 s->iterations == 1 ? "" : "s");
	else
		snprintf(its, sizeof its, "whole run (no profiler windows)");
	if (s->error[0])
		snprintf(lost, sizeof lost, "damaged: %s", s->error);
	else if (s->truncated)
		snprintf(lost, sizeof lost, "truncated after %llu records (the process was killed)",
			 (unsigned long long)s->records);
	else if (s->dropped)
		snprintf(lost, sizeof lost, "%llu records dropped", (unsigned long long)s->dropped);
	else
		snprintf(lost, sizeof lost, "nothing lost");
	snprintf(out, outlen, "%llu kernel%s, %s, timing %s%s%s%s, %s",
		 (unsigned long long)s->kernels, s->kernels == 1 ? "" : "s", its,
		 trace_timing_name(s->timing), s->timing_note[0] ? " (" : "", s->timing_note,
		 s->timing_note[0] ? ")" : "", lost);
}
