/*
 * shim_direct.c - a program linked with -lcuda that calls the driver
 * directly, as Triton's generated launchers do, links a library whose
 * constructor launches before main, and forks a child that launches too.
 *
 *   shim_direct [EXIT]   exits with EXIT (default 0), 3 on a driver error
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int cuInit(unsigned flags);
int cuModuleGetFunction(void **f, void *mod, const char *name);
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
		   unsigned bz, unsigned smem, void *s, void **p, void **x);
int cuLaunchKernel_ptsz(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
			unsigned bz, unsigned smem, void *s, void **p, void **x);
int cuCtxSynchronize(void);
extern int shim_ctorlib_status;

static void *func(const char *name)
{
	void *f = NULL;
	if (cuModuleGetFunction(&f, (void *)0x1000, name) != 0)
		exit(3);
	return f;
}

int main(int argc, char **argv)
{
	if (shim_ctorlib_status != 0 || cuInit(0) != 0)
		return 3;
	for (int i = 0; i < 4; i++)
		if (cuLaunchKernel(func("triton_direct"), 16, 1, 1, 128, 1, 1, 512, NULL, NULL, NULL) != 0)
			return 3;
	if (cuLaunchKernel_ptsz(func("triton_ptsz"), 4, 4, 1, 64, 1, 1, 0, NULL, NULL, NULL) != 0)
		return 3;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return 3;
	if (pid == 0) {
		for (int i = 0; i < 3; i++)
			if (cuLaunchKernel(func("child_kernel"), 5, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL) != 0)
				_exit(3);
		exit(cuCtxSynchronize() == 0 ? 0 : 3);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 3;
	if (cuLaunchKernel(func("parent_after_fork"), 6, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL) != 0)
		return 3;
	return argc > 1 ? atoi(argv[1]) : 0;
}
