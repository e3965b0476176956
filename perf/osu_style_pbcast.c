/*
 * osu_style_pbcast: persistent broadcast latency beside MPI_Bcast, the OSU method (our code).
 *
 * Per size (powers of two, -m [min:]max, default 1 B .. 4 MiB), in the same process and
 * the same buffer, interleaved per size:
 *   bcast      MPI_Bcast, averaged over the iterations
 *   persistent one MPI_Bcast_init per size (outside the timing), then MPI_Start + MPI_Wait
 *              per iteration: what a persistent request saves is the per-call work
 *              (argument checks, the decision) and nothing else
 * Every iteration ends with an untimed MPI_Barrier; every rank averages its own times and
 * rank 0 prints the maximum over ranks (the slowest rank decides a collective's time).
 *
 * Output:  # Size  Bcast(us)  Persistent(us)  Ratio(persistent/bcast)
 * Usage: mpirun -np N osu_style_pbcast [-m [min:]max] [-i iterations] [-x warmup]
 * Exits 77 where the MPI library has no MPI_Bcast_init.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if MPI_VERSION < 4 && !(defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fprintf(stderr, "osu_style_pbcast: this MPI has no MPI_Bcast_init\n");
    MPI_Finalize();
    return 77;
}
#else

static double timed(int persistent, MPI_Request *req, void *buf, int n, int iters, int warmup)
{
    double total = 0.0;
    for (int i = 0; i < warmup + iters; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        if (persistent) {
            MPI_Start(req);
            MPI_Wait(req, MPI_STATUS_IGNORE);
        } else {
            MPI_Bcast(buf, n, MPI_CHAR, 0, MPI_COMM_WORLD);
        }
        const double t = MPI_Wtime() - t0;
        if (i >= warmup) {
            total += t;
        }
    }
    double mine = total * 1e6 / iters, worst = 0.0;
    MPI_Reduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    return worst;
}

int main(int argc, char **argv)
{
    long lo = 1, hi = 4L << 20;
    int iters = 200, warmup = 20, opt;
    MPI_Init(&argc, &argv);
    while ((opt = getopt(argc, argv, "m:i:x:")) != -1) {
        if ('m' == opt) {
            char *colon = strchr(optarg, ':');
            if (NULL != colon) {
                lo = atol(optarg);
                hi = atol(colon + 1);
            } else {
                hi = atol(optarg);
            }
        } else if ('i' == opt) {
            iters = atoi(optarg);
        } else if ('x' == opt) {
            warmup = atoi(optarg);
        }
    }
    if (lo < 1 || hi < lo || iters < 1 || warmup < 0) {
        fprintf(stderr, "usage: osu_style_pbcast [-m [min:]max] [-i iterations] [-x warmup]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *buf = malloc((size_t) hi);
    memset(buf, rank, (size_t) hi);
    if (0 == rank) {
        printf("# osu_style_pbcast: %d iterations, %d warm-up\n", iters, warmup);
        printf("# %-10s %14s %16s %12s\n", "Size", "Bcast(us)", "Persistent(us)", "Ratio");
    }
    for (long n = lo; n <= hi; n *= 2) {
        const int it = n > (1L << 20) ? (iters + 9) / 10 : iters;
        MPI_Request req;
        MPI_Bcast_init(buf, (int) n, MPI_CHAR, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        const double b = timed(0, NULL, buf, (int) n, it, warmup);
        const double p = timed(1, &req, buf, (int) n, it, warmup);
        MPI_Request_free(&req);
        if (0 == rank) {
            printf("%-12ld %14.2f %16.2f %12.3f\n", n, b, p, b > 0 ? p / b : 0.0);
            fflush(stdout);
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
#endif
