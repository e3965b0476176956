/*
 * osu_style_bcast.c -- MPI_Bcast latency benchmark: the method of the OSU micro-benchmarks
 * (our own code, same output layout as `osu_bcast -f`) and, for small messages, the method
 * of the Intel MPI Benchmarks (IMB-MPI1 Bcast).
 *
 * -M osu (OSU's osu_bcast), per message size:
 *   - `warmup` untimed broadcasts, then `iterations` timed ones;
 *   - each timed iteration: t0 = MPI_Wtime(); MPI_Bcast(); t += MPI_Wtime() - t0;
 *     then MPI_Barrier() (not timed) so that iterations do not overlap;
 *   - every rank computes its own average latency; rank 0 reports the average,
 *     minimum and maximum of those per-rank averages (MPI_Reduce); the value is the average.
 *   - Large messages (> 8 KiB) use fewer iterations (see -I / -X).
 *   Skew: the barrier releases ranks at different times (the last rank to arrive leaves
 *   first); when a broadcast needs no handshake (eager messages), a receiver that leaves
 *   the barrier late finds the data already there and a root that leaves first only posts
 *   sends: for small messages the average is mostly the barrier's exit skew.
 *
 * -M imb (IMB-MPI1 Bcast), per message size:
 *   - `warmup` untimed broadcasts, one MPI_Barrier, then `iterations` broadcasts back to
 *     back with the root rotating (root = iteration mod ranks), timed as one loop per rank;
 *   - the value is the slowest rank's loop time / iterations (IMB's t_max): no rank can
 *     finish before the data of every broadcast reached it, one barrier's skew is spread
 *     over all iterations, and a fixed root cannot run ahead of its receivers.
 *
 * -M auto: imb for sizes <= -T bytes (default 4096: the eager sizes, where the barrier
 * skew dominates osu), osu above (what bcast-compare runs by default).  Each output line names its method (last column)
 * and its value column: Avg for osu, Max for imb.
 *
 * Options:
 *   -m [min:]max   message sizes, powers of two from min to max (default 1:4194304)
 *   -i N           iterations for small messages (default 1000)
 *   -I N           iterations for large messages (default: -i / 10, at least 1)
 *   -x N           warm-up iterations for small messages (default 100)
 *   -X N           warm-up iterations for large messages (default: -x / 10, at least 1)
 *   -M osu|imb|auto  method (default osu), -T BYTES the auto threshold (default 4096)
 *   -r ROOT        root rank for osu (default 0); `-r rotate` rotates the root every iteration
 *   -c             validate: the root fills the buffer with a pattern depending on the
 *                  iteration, every rank checks it after each broadcast (untimed; in imb
 *                  mode the warm-up broadcasts are the validated ones);
 *                  aborts with a message on mismatch.  In osu mode a barrier follows the
 *                  fills, so every timed broadcast carries data its root has just written
 *                  (an application's new data; without -c the same bytes every time, as
 *                  osu_bcast and IMB time it: docs/performance.md, "New data or the same")
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
                "          [-M osu|imb|auto] [-T bytes] [-r root|rotate] [-c] [-t] [-h]\n"
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
    long iters = 1000, iters_large = -1, warmup = 100, warmup_large = -1;
    enum { M_OSU, M_IMB, M_AUTO } method = M_OSU;
    size_t auto_max_imb = 4096;
    int root = 0, rotate = 0, validate = 0, torus = 0;
    MPI_Comm comm = MPI_COMM_WORLD;
    int opt, bad = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    while ((opt = getopt(argc, argv, "m:i:I:x:X:M:T:r:cth")) != -1) {
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
        case 'M':
            if (strcmp(optarg, "osu") == 0) method = M_OSU;
            else if (strcmp(optarg, "imb") == 0) method = M_IMB;
            else if (strcmp(optarg, "auto") == 0) method = M_AUTO;
            else bad = 1;
            break;
        case 'T':
            if (parse_size(optarg, &auto_max_imb)) bad = 1;
            break;
        case 'c': validate = 1; break;
        case 't': torus = 1; break;
        case 'h': usage(argv[0]); MPI_Finalize(); return 0;
        default: bad = 1;
        }
    }
    if (iters_large < 0) iters_large = iters / 10 > 0 ? iters / 10 : 1;
    if (warmup_large < 0) warmup_large = warmup / 10 > 0 ? warmup / 10 : 1;
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
        if (method == M_OSU)
            printf("# method osu: value = Avg\n");
        else if (method == M_IMB)
            printf("# method imb: value = Max (slowest rank)\n");
        else
            printf("# method imb up to %zu bytes (value = Max, slowest rank), osu above (value = Avg)\n",
                   auto_max_imb);
        printf("# %-10s %18s %18s %18s %12s %6s\n", "Size", "Avg Latency(us)", "Min Latency(us)",
               "Max Latency(us)", "Iterations", "Method");
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

        int imb = method == M_IMB || (method == M_AUTO && size <= auto_max_imb);

        MPI_Barrier(comm);
        if (imb) {
            /* warm-up (validated with -c), one barrier, the timed loop with rotating roots */
            for (long it = 0; it < n_warm; it++) {
                int r = (int)(it % nprocs);
                if (validate) {
                    if (rank == r) fill(buf, size, it, r);
                    else memset(buf, 0xA5 ^ (int)(it & 0xff), size);
                }
                MPI_Bcast(buf, count, MPI_BYTE, r, comm);
                if (validate && rank != r) check(buf, size, it, r);
            }
            MPI_Barrier(comm);
            double t0 = MPI_Wtime();
            for (long it = 0; it < n_iter; it++)
                MPI_Bcast(buf, count, MPI_BYTE, (int)(it % nprocs), comm);
            timer = MPI_Wtime() - t0;
        } else {
            for (long it = 0; it < n_iter + n_warm; it++) {
                int r = rotate ? (int)(it % nprocs) : root;
                if (validate) {
                    if (rank == r) fill(buf, size, it, r);
                    else memset(buf, 0xA5 ^ (int)(it & 0xff), size);
                    MPI_Barrier(comm); /* (the fills are not timed: every rank starts together) */
                }
                double t0 = MPI_Wtime();
                MPI_Bcast(buf, count, MPI_BYTE, r, comm);
                double t1 = MPI_Wtime();
                if (it >= n_warm) timer += t1 - t0;
                if (validate && rank != r) check(buf, size, it, r);
                MPI_Barrier(comm);
            }
        }

        double lat = timer * 1e6 / (double)n_iter, lat_min = 0, lat_max = 0, lat_sum = 0;
        MPI_Reduce(&lat, &lat_min, 1, MPI_DOUBLE, MPI_MIN, 0, comm);
        MPI_Reduce(&lat, &lat_max, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
        MPI_Reduce(&lat, &lat_sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
        if (rank == 0) {
            printf("%-12zu %18.2f %18.2f %18.2f %12ld %6s\n", size, lat_sum / nprocs, lat_min, lat_max,
                   n_iter, imb ? "imb" : "osu");
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
