/*
 * osu_style_bcast.c -- MPI_Bcast latency benchmark using the method of the
 * OSU micro-benchmarks (our own code, same output layout as `osu_bcast -f`).
 *
 * Method, per message size:
 *   - `warmup` untimed broadcasts, then `iterations` timed ones;
 *   - each timed iteration: t0 = MPI_Wtime(); MPI_Bcast(); t += MPI_Wtime() - t0;
 *     then MPI_Barrier() (not timed) so that iterations do not overlap;
 *   - every rank computes its own average latency; rank 0 reports the average,
 *     minimum and maximum of those per-rank averages (MPI_Reduce).
 *   - Large messages (> 8 KiB) use fewer iterations (see -I / -X).
 *
 * Options:
 *   -m [min:]max   message sizes, powers of two from min to max (default 1:4194304)
 *   -i N           iterations for small messages (default 1000)
 *   -I N           iterations for large messages (default: -i / 10, at least 1)
 *   -x N           warm-up iterations for small messages (default 200)
 *   -X N           warm-up iterations for large messages (default: -x / 20, at least 1)
 *   -r ROOT        root rank (default 0); `-r rotate` rotates the root every iteration
 *   -c             validate: the root fills the buffer with a pattern depending on the
 *                  iteration, every rank checks it after each broadcast (untimed);
 *                  aborts with a message on mismatch
 *   -h             help
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LARGE_MESSAGE_SIZE 8192

static int rank, nprocs;

static void usage(const char *prog)
{
    if (rank == 0) {
        fprintf(stderr,
                "usage: %s [-m [min:]max] [-i iters] [-I large_iters] [-x warmup] [-X large_warmup]\n"
                "          [-r root|rotate] [-c] [-t] [-h]\n"
                "  -t  broadcast on a periodic 2-D Cartesian communicator (MPI_Dims_create)\n",
                prog);
    }
}

static int parse_size(const char *s, size_t *out)
{
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s) return -1;
    if (*end == 'k' || *end == 'K') { v <<= 10; end++; }
    else if (*end == 'm' || *end == 'M') { v <<= 20; end++; }
    if (*end != '\0') return -1;
    *out = (size_t)v;
    return 0;
}

/* Pattern byte for buffer index i, iteration it, message size sz, root r. */
static inline uint8_t pattern(size_t i, long it, size_t sz, int r)
{
    uint64_t x = (uint64_t)i * 2654435761u + (uint64_t)it * 40503u + sz * 97u + (uint64_t)r * 131u;
    return (uint8_t)(x ^ (x >> 11) ^ (x >> 23));
}

static void fill(uint8_t *buf, size_t sz, long it, int r)
{
    for (size_t i = 0; i < sz; i++) buf[i] = pattern(i, it, sz, r);
}

static void check(const uint8_t *buf, size_t sz, long it, int r)
{
    for (size_t i = 0; i < sz; i++) {
        uint8_t want = pattern(i, it, sz, r);
        if (buf[i] != want) {
            fprintf(stderr,
                    "osu_style_bcast: VALIDATION FAILED on rank %d: size %zu iteration %ld root %d: "
                    "byte %zu is 0x%02x, expected 0x%02x\n",
                    rank, sz, it, r, i, buf[i], want);
            fflush(stderr);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
}

int main(int argc, char **argv)
{
    size_t min_size = 1, max_size = 4194304;
    long iters = 1000, iters_large = -1, warmup = 200, warmup_large = -1;
    int root = 0, rotate = 0, validate = 0, torus = 0;
    MPI_Comm comm = MPI_COMM_WORLD;
    int opt, bad = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    while ((opt = getopt(argc, argv, "m:i:I:x:X:r:cth")) != -1) {
        switch (opt) {
        case 'm': {
            char spec[64];
            snprintf(spec, sizeof spec, "%s", optarg); /* keep argv intact (ps, logs) */
            char *colon = strchr(spec, ':');
            if (colon) {
                *colon = '\0';
                if (parse_size(spec, &min_size) || parse_size(colon + 1, &max_size)) bad = 1;
            } else if (parse_size(spec, &max_size)) {
                bad = 1;
            }
            break;
        }
        case 'i': iters = atol(optarg); break;
        case 'I': iters_large = atol(optarg); break;
        case 'x': warmup = atol(optarg); break;
        case 'X': warmup_large = atol(optarg); break;
        case 'r':
            if (strcmp(optarg, "rotate") == 0) rotate = 1;
            else root = atoi(optarg);
            break;
        case 'c': validate = 1; break;
        case 't': torus = 1; break;
        case 'h': usage(argv[0]); MPI_Finalize(); return 0;
        default: bad = 1;
        }
    }
    if (iters_large < 0) iters_large = iters / 10 > 0 ? iters / 10 : 1;
    if (warmup_large < 0) warmup_large = warmup / 20 > 0 ? warmup / 20 : 1;
    if (min_size > max_size || iters < 1 || iters_large < 1 || warmup < 0 || warmup_large < 0 ||
        root < 0 || root >= nprocs) bad = 1;
    if (bad) {
        usage(argv[0]);
        MPI_Finalize();
        return 2;
    }

    uint8_t *buf = NULL;
    size_t alloc = max_size > 0 ? max_size : 1;
    if (posix_memalign((void **)&buf, 4096, alloc) != 0) {
        fprintf(stderr, "osu_style_bcast: cannot allocate %zu bytes\n", alloc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(buf, 1, alloc);

    if (rank == 0) {
        printf("# OSU-style MPI Broadcast Latency Test\n");
        if (rotate)
            printf("# ranks %d, root rotating, validation %s\n", nprocs, validate ? "on" : "off");
        else
            printf("# ranks %d, root %d, validation %s\n", nprocs, root, validate ? "on" : "off");
        printf("# %-10s %18s %18s %18s %12s\n", "Size", "Avg Latency(us)", "Min Latency(us)",
               "Max Latency(us)", "Iterations");
        fflush(stdout);
    }

    size_t first = min_size;
    if (torus) {
        int dims[2] = {0, 0}, periods[2] = {1, 1};
        MPI_Dims_create(nprocs, 2, dims);
        MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &comm);
        if (rank == 0) {
            printf("# periodic Cartesian communicator %dx%d\n", dims[0], dims[1]);
        }
    }
    /* sizes: min (may be 0), then powers of two up to max */
    for (size_t size = first; size <= max_size; size = (size == 0 ? 1 : size * 2)) {
        long n_iter = size > LARGE_MESSAGE_SIZE ? iters_large : iters;
        long n_warm = size > LARGE_MESSAGE_SIZE ? warmup_large : warmup;
        double timer = 0.0;
        int count = (int)size;

        MPI_Barrier(comm);
        for (long it = 0; it < n_iter + n_warm; it++) {
            int r = rotate ? (int)(it % nprocs) : root;
            if (validate) {
                if (rank == r) fill(buf, size, it, r);
                else memset(buf, 0xA5 ^ (int)(it & 0xff), size);
            }
            double t0 = MPI_Wtime();
            MPI_Bcast(buf, count, MPI_BYTE, r, comm);
            double t1 = MPI_Wtime();
            if (it >= n_warm) timer += t1 - t0;
            if (validate && rank != r) check(buf, size, it, r);
            MPI_Barrier(comm);
        }

        double lat = timer * 1e6 / (double)n_iter, lat_min = 0, lat_max = 0, lat_sum = 0;
        MPI_Reduce(&lat, &lat_min, 1, MPI_DOUBLE, MPI_MIN, 0, comm);
        MPI_Reduce(&lat, &lat_max, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
        MPI_Reduce(&lat, &lat_sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
        if (rank == 0) {
            printf("%-12zu %18.2f %18.2f %18.2f %12ld\n", size, lat_sum / nprocs, lat_min, lat_max,
                   n_iter);
            fflush(stdout);
        }
        if (size >= max_size) break;
    }

    if (torus) {
        MPI_Comm_free(&comm);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
