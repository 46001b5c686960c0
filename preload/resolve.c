/*
 * resolve.c - every symbol resolution of the recorder: the dlsym/dlvsym
 * interposition, the wrapping of what cuGetProcAddress returns, and the
 * lookup of the real functions behind each hook.
 *
 * Why dlsym: the CUDA runtime (and the copies of it inside cuBLAS, cuDNN,
 * NCCL) never calls an exported cuLaunchKernel; it dlopens libcuda.so.1,
 * dlsym's cuGetProcAddress_v2 and fetches every entry point through it.
 * So we wrap dlsym to hand out our getter, and our getter hands out our
 * launch hooks, keeping the version and per-thread-stream flag asked for.
 *
 * Constraints kept:
 *  - the real dlsym/dlvsym are found by reading the C library's dynamic
 *    symbol table (a versioned reference such as dlsym@GLIBC_2.34 would
 *    bind to our own unversioned definition, and __libc_dlsym is gone);
 *  - a lookup we do not wrap is a tail call to the real dlsym, so glibc
 *    still sees the caller's return address and RTLD_NEXT keeps its meaning;
 *  - no unwinding, no allocation, no locks here.
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <string.h>

#include "preload/preload.h"

void *(*preload_real_dlsym)(void *, const char *);
void *(*preload_real_dlvsym)(void *, const char *, const char *);

/* Real getters, one typedef per real signature (not cuda.h's renamed ones). */
typedef preload_cures (*getproc4_fn)(const char *sym, void **pfn, int ver, uint64_t flags);
typedef preload_cures (*getproc5_fn)(const char *sym, void **pfn, int ver, uint64_t flags,
				     int *status);

#define PER_THREAD_FLAG 2u /* CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM */

/* A sanitizer runtime preloaded before us resolves its own interceptors
 * through our dlsym before it is initialized: the code on that path must
 * not be instrumented, and calls no intercepted string functions. */
#define NO_SAN __attribute__((no_sanitize("address", "undefined", "thread")))

NO_SAN static int same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

NO_SAN static int contains(const char *hay, const char *needle)
{
	for (; *hay; hay++) {
		const char *h = hay, *n = needle;
		while (*n && *h == *n)
			h++, n++;
		if (!*n)
			return 1;
	}
	return 0;
}

/* ---- the C library's own dlsym, found without dlsym ------------------- */

/* GNU hash of a symbol name (the ELF gABI extension used by DT_GNU_HASH). */
NO_SAN static uint32_t gnu_hash(const char *s)
{
	uint32_t h = 5381;
	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

struct elf_find {
	const char *lib;     /* substring of the object's path               */
	const char *names[2];
	void *found[2];
};

NO_SAN static uintptr_t dyn_ptr(uintptr_t base, ElfW(Addr) p)
{
	/* glibc relocates these in place on most targets; on others (RISC-V,
	 * MIPS) they stay relative to the load address. */
	return p < base ? base + p : p;
}

NO_SAN static void *gnu_lookup(uintptr_t base, const uint32_t *ht, const ElfW(Sym) *symtab,
			const char *strtab, const char *name)
{
	uint32_t nbuckets = ht[0], symoff = ht[1], bloom_size = ht[2];
	const ElfW(Addr) *bloom = (const ElfW(Addr) *)(ht + 4);
	const uint32_t *buckets = (const uint32_t *)(bloom + bloom_size);
	const uint32_t *chain = buckets + nbuckets;
	uint32_t h = gnu_hash(name);

	if (nbuckets == 0)
		return NULL;
	uint32_t i = buckets[h % nbuckets];
	if (i < symoff)
		return NULL;
	for (;; i++) {
		uint32_t h2 = chain[i - symoff];
		const ElfW(Sym) *s = &symtab[i];
		if ((h | 1) == (h2 | 1) && s->st_shndx != SHN_UNDEF &&
		    ELF64_ST_TYPE(s->st_info) == STT_FUNC && same(strtab + s->st_name, name))
			return (void *)(base + s->st_value);
		if (h2 & 1)
			return NULL;
	}
}

/* Looks f->names up in the dynamic symbol table of one loaded object. */
NO_SAN static int find_in(const char *name, uintptr_t base, const ElfW(Dyn) *dyn, struct elf_find *f)
{
	if (!name || !dyn || !contains(name, f->lib))
		return 0;
	const uint32_t *ht = NULL;
	const ElfW(Sym) *symtab = NULL;
	const char *strtab = NULL;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		uintptr_t p = dyn_ptr(base, dyn->d_un.d_ptr);
		if (dyn->d_tag == DT_GNU_HASH)
			ht = (const uint32_t *)p;
		else if (dyn->d_tag == DT_SYMTAB)
			symtab = (const ElfW(Sym) *)p;
		else if (dyn->d_tag == DT_STRTAB)
			strtab = (const char *)p;
	}
	if (!ht || !symtab || !strtab)
		return 0;
	for (int k = 0; k < 2; k++)
		f->found[k] = gnu_lookup(base, ht, symtab, strtab, f->names[k]);
	return f->found[0] != NULL;
}

/* The loaded objects are walked through the dynamic linker's own list
 * (_r_debug), not dl_iterate_phdr: a sanitizer runtime intercepts that and
 * calls in here before its interceptors work. */
NO_SAN static void find_libdl(void)
{
	/* glibc >= 2.34 has dlsym in libc.so.6; older ones in libdl.so.2. */
	static const char *libs[] = { "/libc.so.6", "/libdl.so.2" };
	for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
		struct elf_find f = { libs[i], { "dlsym", "dlvsym" }, { NULL, NULL } };
		for (struct link_map *m = _r_debug.r_map; m; m = m->l_next)
			if (find_in(m->l_name, (uintptr_t)m->l_addr, m->l_ld, &f))
				break;
		if (f.found[0]) {
			preload_real_dlvsym = (void *(*)(void *, const char *, const char *))f.found[1];
			__atomic_store_n(&preload_real_dlsym, (void *(*)(void *, const char *))f.found[0],
					 __ATOMIC_RELEASE);
			return;
		}
	}
}

/* No pthread_once either (also intercepted): the lookup is idempotent, so
 * threads racing here at most repeat it. */
NO_SAN static inline void need_libdl(void)
{
	if (__builtin_expect(__atomic_load_n(&preload_real_dlsym, __ATOMIC_ACQUIRE) == NULL, 0))
		find_libdl();
}

/* Only names starting with "cu" (cuda, cublas, cudnn) or "nc" (nccl) can
 * be ours. */
NO_SAN static int maybe_ours(const char *s)
{
	return s && ((s[0] == 'c' && s[1] == 'u') || (s[0] == 'n' && s[1] == 'c'));
}

/* ---- the hook tables -------------------------------------------------- */

static struct preload_hook *const tables[] = {
	preload_cuda_hooks, preload_cublas_hooks, preload_cudnn_hooks, preload_nccl_hooks,
};

struct preload_hook *preload_hook_by_sym(const char *sym, int *variant)
{
	if (!maybe_ours(sym))
		return NULL;
	for (size_t t = 0; t < sizeof tables / sizeof *tables; t++)
		for (struct preload_hook *h = tables[t]; h->base; h++)
			for (int v = 0; v < 2; v++)
				if (h->sym[v] && strcmp(h->sym[v], sym) == 0) {
					*variant = v;
					return h;
				}
	return NULL;
}

/* The entry hooking base as the getter's version ver gives it: a name
 * whose signature changed (cuCtxSynchronize in CUDA 13) has one entry per
 * signature, each for its versions. */
static struct preload_hook *hook_for(const char *base, int ver)
{
	for (struct preload_hook *h = preload_cuda_hooks; h->base; h++)
		if (strcmp(h->base, base) == 0 && ver >= h->min_version &&
		    (!h->max_version || ver < h->max_version))
			return h;
	return NULL;
}

/* Remembers real as the function behind h's variant v and returns what the
 * caller should get: our hook, or real itself when the slot already holds a
 * different function (another version's ABI: passed through unwrapped). */
static void *adopt(struct preload_hook *h, int v, void *real)
{
	void *hook = h->hook[v];
	if (!hook || !real || real == hook)
		return real;
	void *expected = NULL;
	if (!__atomic_compare_exchange_n(&h->real[v], &expected, real, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE) && expected != real)
		return real;
	return preload_cfg.disabled ? real : hook;
}

/* Handle of an already-loaded library by soname; a name ending in ".so"
 * stands for its versioned sonames (libcublas.so -> .13, .12, .11, ...). */
static void *loaded_lib(const char *soname)
{
	void *lib = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);
	size_t n = strlen(soname);
	if (lib || n < 3 || strcmp(soname + n - 3, ".so") != 0 || n > 200)
		return lib;
	static const char *vers[] = { ".13", ".12", ".11", ".10", ".9", ".8" };
	char name[256];
	for (size_t i = 0; i < sizeof vers / sizeof *vers && !lib; i++) {
		memcpy(name, soname, n);
		strcpy(name + n, vers[i]);
		lib = dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
	}
	return lib;
}

void *preload_lib_sym(const char *soname, const char *sym)
{
	need_libdl();
	if (!preload_real_dlsym)
		return NULL;
	/* The handle is kept open: a library we call into must not be
	 * unloaded under us (closing it here could itself unload a library
	 * its user already dlclosed, at exit). */
	void *p = NULL, *lib = loaded_lib(soname);
	if (lib)
		p = preload_real_dlsym(lib, sym);
	if (!p) /* called from here, RTLD_NEXT means "after libsurfer" */
		p = preload_real_dlsym(RTLD_NEXT, sym);
	return p;
}

void *preload_real(struct preload_hook *h, int v, const char *soname)
{
	void *p = __atomic_load_n(&h->real[v], __ATOMIC_ACQUIRE);
	if (p)
		return p;
	if (!h->sym[v])
		return NULL;
	p = preload_lib_sym(soname, h->sym[v]);
	if (p && p != h->hook[v])
		adopt(h, v, p);
	return __atomic_load_n(&h->real[v], __ATOMIC_ACQUIRE);
}

void *preload_driver_sym(const char *sym)
{
	static void *driver; /* kept open, see preload_lib_sym */
	need_libdl();
	if (!preload_real_dlsym)
		return NULL;
	void *lib = __atomic_load_n(&driver, __ATOMIC_ACQUIRE);
	if (!lib) {
		lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
		if (!lib)
			return NULL;
		void *expected = NULL;
		if (!__atomic_compare_exchange_n(&driver, &expected, lib, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			dlclose(lib); /* another thread's reference is kept instead */
		lib = __atomic_load_n(&driver, __ATOMIC_ACQUIRE);
	}
	return preload_real_dlsym(lib, sym);
}

/* ---- cuGetProcAddress ------------------------------------------------- */

/* Applies our wrapping to a successful getter answer. */
static void wrap_answer(const char *symbol, void **pfn, int ver, uint64_t flags)
{
	if (!symbol || !pfn || !*pfn)
		return;
	if (strcmp(symbol, "cuGetProcAddress") == 0) {
		/* The runtime's self-lookup: 11030 gives the 4-argument getter,
		 * 12000 and later the 5-argument one. */
		int five = ver >= 12000;
		struct preload_hook *h = &preload_cuda_hooks[five ? PRELOAD_HK_GETPROC_V2
								  : PRELOAD_HK_GETPROC];
		*pfn = adopt(h, 0, *pfn);
		return;
	}
	struct preload_hook *h = hook_for(symbol, ver);
	if (!h)
		return;
	int v = (flags & PER_THREAD_FLAG) && h->hook[1] ? 1 : 0;
	*pfn = adopt(h, v, *pfn);
}

/* The exported getters and the ones handed out by the self-lookup share
 * these bodies; which real getter they call is the table slot's. */
preload_cures preload_getproc4(const char *symbol, void **pfn, int ver, uint64_t flags)
{
	getproc4_fn real = (getproc4_fn)preload_real(&preload_cuda_hooks[PRELOAD_HK_GETPROC], 0,
						     "libcuda.so.1");
	if (!real)
		return PRELOAD_CU_NOT_FOUND;
	preload_cures r = real(symbol, pfn, ver, flags);
	if (r == 0)
		wrap_answer(symbol, pfn, ver, flags);
	return r;
}

preload_cures preload_getproc5(const char *symbol, void **pfn, int ver, uint64_t flags,
			      int *status)
{
	getproc5_fn real = (getproc5_fn)preload_real(&preload_cuda_hooks[PRELOAD_HK_GETPROC_V2], 0,
						     "libcuda.so.1");
	if (!real)
		return PRELOAD_CU_NOT_FOUND;
	preload_cures r = real(symbol, pfn, ver, flags, status);
	if (r == 0)
		wrap_answer(symbol, pfn, ver, flags);
	return r;
}

PRELOAD_EXPORT preload_cures cuGetProcAddress(const char *symbol, void **pfn, int ver,
					      uint64_t flags);
PRELOAD_EXPORT preload_cures cuGetProcAddress_v2(const char *symbol, void **pfn, int ver,
						 uint64_t flags, int *status);

preload_cures cuGetProcAddress(const char *symbol, void **pfn, int ver, uint64_t flags)
{
	return preload_getproc4(symbol, pfn, ver, flags);
}

preload_cures cuGetProcAddress_v2(const char *symbol, void **pfn, int ver, uint64_t flags,
				  int *status)
{
	return preload_getproc5(symbol, pfn, ver, flags, status);
}

/* ---- dlsym / dlvsym --------------------------------------------------- */

static __attribute__((noinline)) void *wrap_dlsym(void *handle, const char *name, const char *ver)
{
	void *p = ver ? (preload_real_dlvsym ? preload_real_dlvsym(handle, name, ver) : NULL)
		      : preload_real_dlsym(handle, name);
	int v;
	struct preload_hook *h = preload_hook_by_sym(name, &v);
	return h ? adopt(h, v, p) : p;
}

PRELOAD_EXPORT void *dlsym(void *handle, const char *name);
PRELOAD_EXPORT void *dlvsym(void *handle, const char *name, const char *ver);

NO_SAN void *dlsym(void *handle, const char *name)
{
	need_libdl();
	if (!preload_real_dlsym)
		return NULL;
	/* RTLD_NEXT lookups are never wrapped: the real dlsym must see the
	 * caller's return address, which only a tail call keeps. */
	if (handle != RTLD_NEXT && maybe_ours(name))
		return wrap_dlsym(handle, name, NULL);
	return preload_real_dlsym(handle, name);
}

NO_SAN void *dlvsym(void *handle, const char *name, const char *ver)
{
	need_libdl();
	if (!preload_real_dlvsym)
		return NULL;
	if (handle != RTLD_NEXT && maybe_ours(name))
		return wrap_dlsym(handle, name, ver);
	return preload_real_dlvsym(handle, name, ver);
}
