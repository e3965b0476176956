/*
 * copy_bw: memcpy against process_vm_readv (CMA, the single copy Open MPI's vader BTL
 * uses above its eager size) on this machine, 64 KiB - 4 MiB, one process, the same
 * buffers again and again (cache-warm: an upper bound for both).  Why `shm` (two
 * memcpy's per byte and rank) beats one CMA copy per receiver on one node.
 *
 *   cc -O2 perf/copy_bw.c -o copy_bw && ./copy_bw
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double) t.tv_sec * 1e6 + (double) t.tv_nsec / 1e3;
}

int main(void)
{
    const size_t sizes[] = {65536, 262144, 524288, 1048576, 4194304};
    const int iters = 2000;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        const size_t n = sizes[i];
        char *a = malloc(n), *b = malloc(n);
        if (NULL == a || NULL == b) {
            return 1;
        }
        memset(a, 1, n);
        memset(b, 2, n);
        double t0 = now_us();
        for (int k = 0; k < iters; k++) {
            memcpy(b, a, n);
            a[(size_t) k % n]++; /* keep the copy from being hoisted */
        }
        const double mc = (now_us() - t0) / iters;
        struct iovec l = {b, n}, r = {a, n};
        t0 = now_us();
        for (int k = 0; k < iters; k++) {
            if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) != (ssize_t) n) {
                perror("process_vm_readv");
                return 1;
            }
        }
        const double cma = (now_us() - t0) / iters;
        printf("%8zu B  memcpy %8.2f us (%6.1f GB/s)  process_vm_readv %8.2f us (%6.1f GB/s)\n", n,
               mc, (double) n / mc / 1e3, cma, (double) n / cma / 1e3);
        free(a);
        free(b);
    }
    return 0;
}
