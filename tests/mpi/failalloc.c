/*
 * failalloc: a test-only allocation-failure injector, preloaded into the MPI processes
 * (mpirun -x LD_PRELOAD=.../libfailalloc.so).  On the one rank named by
 * MCAST_FAILALLOC_RANK (compared with OMPI_COMM_WORLD_RANK), while armed, malloc,
 * calloc, realloc, posix_memalign, aligned_alloc, memalign and valloc of at least
 * MCAST_FAILALLOC_BYTES bytes (default 4096) return NULL (ENOMEM), except the first
 * MCAST_FAILALLOC_AFTER such requests after arming (default 0).  With
 * MCAST_FAILALLOC_CALLER set, only requests made from a shared object whose path holds
 * that text fail: the caller of the allocation function (of operator new for C++), or
 * one of the MCAST_FAILALLOC_DEPTH nearest callers (default 1).  So the components' own
 * allocations fail, not those of the Open MPI code they call (its collectives, PMIx and
 * its progress engine's fragment buffering fail alone or crash on NULL, with or without
 * our components).  Every other request goes to glibc.
 *
 * Arming: MCAST_FAILALLOC_ARMED=1 arms from the start; a test program arms and disarms
 * around the calls it tests through failalloc_arm(), found with dlsym (RTLD_DEFAULT, so
 * the program runs without the library too: it then knows nothing was injected).
 * failalloc_failed() says how many requests failed on this process.
 * MCAST_FAILALLOC_TRACE=1 prints each failed request's size and call stack to stderr.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static int armed = -1;    /* -1: not read from the environment yet */
static int mine = -1;     /* -1: unknown, 0: another rank, 1: the failing rank */
static size_t min_bytes = 4096;
static long skip = 0;     /* qualifying requests still to let through */
static long skip_armed = 0;
static long failed = 0;
static int trace = 0;
static const char *caller = NULL;
static int depth = 1;
static __thread int inside = 0; /* the unwinder's own allocations are never refused */

static long env_long(const char *name, long dflt)
{
    const char *v = getenv(name);
    return (NULL != v && '\0' != v[0]) ? strtol(v, NULL, 10) : dflt;
}

static void init(void)
{
    if (armed >= 0) {
        return;
    }
    const char *want = getenv("MCAST_FAILALLOC_RANK");
    const char *me = getenv("OMPI_COMM_WORLD_RANK");
    mine = (NULL != want && NULL != me && 0 == strcmp(want, me)) ? 1 : 0;
    min_bytes = (size_t) env_long("MCAST_FAILALLOC_BYTES", 4096);
    skip_armed = env_long("MCAST_FAILALLOC_AFTER", 0);
    skip = skip_armed;
    trace = env_long("MCAST_FAILALLOC_TRACE", 0) != 0;
    caller = getenv("MCAST_FAILALLOC_CALLER");
    if (NULL != caller && '\0' == caller[0]) {
        caller = NULL;
    }
    depth = (int) env_long("MCAST_FAILALLOC_DEPTH", 1);
    depth = depth < 1 ? 1 : depth > 16 ? 16 : depth;
    armed = env_long("MCAST_FAILALLOC_ARMED", 0) != 0;
}

/* true: one of the `depth` callers nearest the allocation function (this library's and
 * the C++ runtime's frames skipped: operator new) lives in an object whose path holds
 * `caller` */
static int from_caller(void)
{
    void *frames[40];
    Dl_info self, info;
    const int n = backtrace(frames, 40);
    if (0 == dladdr((void *) from_caller, &self)) {
        return 0;
    }
    int seen = 0;
    for (int i = 0; i < n && seen < depth; i++) {
        if (0 == dladdr(frames[i], &info)) {
            continue;
        }
        if (info.dli_fbase == self.dli_fbase ||
            (NULL != info.dli_fname && NULL != strstr(info.dli_fname, "libstdc++"))) {
            continue; /* the interposer, operator new */
        }
        if (NULL != info.dli_fname && NULL != strstr(info.dli_fname, caller)) {
            return 1;
        }
        seen++;
    }
    return 0;
}

/* true: this request fails */
static int fail(size_t bytes)
{
    init();
    if (!armed || 1 != mine || bytes < min_bytes || inside) {
        return 0;
    }
    if (NULL != caller) {
        inside = 1;
        const int match = from_caller();
        inside = 0;
        if (!match) {
            return 0;
        }
    }
    if (__atomic_load_n(&skip, __ATOMIC_RELAXED) > 0 &&
        __atomic_sub_fetch(&skip, 1, __ATOMIC_RELAXED) >= 0) {
        return 0;
    }
    __atomic_add_fetch(&failed, 1, __ATOMIC_RELAXED);
    if (trace) {
        inside = 1;
        void *frames[24];
        const int n = backtrace(frames, 24);
        fprintf(stderr, "failalloc: %zu bytes refused\n", bytes);
        backtrace_symbols_fd(frames, n, 2);
        inside = 0;
    }
    return 1;
}

/* the unwinder loads libgcc at its first use: before anything is armed */
__attribute__((constructor)) static void warm_unwinder(void)
{
    void *frames[2];
    inside = 1;
    (void) backtrace(frames, 2);
    inside = 0;
}

__attribute__((visibility("default"))) void failalloc_arm(int on)
{
    init();
    skip = skip_armed;
    __atomic_store_n(&armed, on != 0, __ATOMIC_SEQ_CST);
}

__attribute__((visibility("default"))) long failalloc_failed(void)
{
    return __atomic_load_n(&failed, __ATOMIC_RELAXED);
}

__attribute__((visibility("default"))) int failalloc_is_failing_rank(void)
{
    init();
    return mine;
}

__attribute__((visibility("default"))) void *malloc(size_t bytes)
{
    if (fail(bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_malloc(bytes);
}

__attribute__((visibility("default"))) void *calloc(size_t n, size_t size)
{
    if (0 != size && n > (size_t) -1 / size) {
        errno = ENOMEM;
        return NULL;
    }
    if (fail(n * size)) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_calloc(n, size);
}

__attribute__((visibility("default"))) void *realloc(void *p, size_t bytes)
{
    if (fail(bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_realloc(p, bytes);
}

__attribute__((visibility("default"))) void *memalign(size_t align, size_t bytes)
{
    if (fail(bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_memalign(align, bytes);
}

__attribute__((visibility("default"))) void *aligned_alloc(size_t align, size_t bytes)
{
    return memalign(align, bytes);
}

__attribute__((visibility("default"))) int posix_memalign(void **out, size_t align, size_t bytes)
{
    if (0 == align || 0 != (align & (align - 1)) || 0 != align % sizeof(void *)) {
        return EINVAL;
    }
    void *p = memalign(align, bytes);
    if (NULL == p) {
        return ENOMEM;
    }
    *out = p;
    return 0;
}

__attribute__((visibility("default"))) void *valloc(size_t bytes)
{
    return memalign(4096, bytes);
}
