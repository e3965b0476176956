/*
 * osu_style_ibcast: MPI_Ibcast latency and overlap, the osu_ibcast method (our code).
 *
 * Per size (powers of two, -m [min:]max, default 1 B .. 4 MiB):
 *   pure      MPI_Ibcast + MPI_Wait, averaged over the iterations (t_pure)
 *   overlap   MPI_Ibcast, a compute loop calibrated to last t_pure, MPI_Wait:
 *             t_total; overlap % = 100 * (1 - (t_total - t_compute) / t_pure), in [0, 100]
 *   overlap+test  the same with MPI_Test every 1/16 of the compute (an application that
 *             polls; no progress thread exists in either implementation)
 * Every iteration ends with an untimed MPI_Barrier; every rank averages its own times and
 * rank 0 prints the maximum over ranks (the slowest rank decides a collective's time).
 *
 * Output:
 *   # Size  Pure(us)  Compute(us)  Total(us)  Overlap(%)  Total+test(us)  Overlap+test(%)
 * Usage: mpirun -np N osu_style_ibcast [-m [min:]max] [-i iterations] [-x warmup] [-c] [-t]
 *   -t  broadcast on a periodic 2-D Cartesian communicator (MPI_Dims_create), as
 *       osu_style_bcast -t
 *   -c  check the data of every iteration (untimed): the root writes new data before each
 *       call, a barrier follows (docs/performance.md, "New data or the same")
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile double sink = 0.0;

/* Busy work for `us` microseconds, calling MPI_Test every us/16 when req != NULL. */
static double compute(double us, MPI_Request *req)
{
    const double t0 = MPI_Wtime(), step = us / 16.0;
    double next = step;
    int done = 0;
    for (;;) {
        for (int i = 0; i < 200; i++) {
            sink += i * 0.5;
        }
        const double el = (MPI_Wtime() - t0) * 1e6;
        if (el >= us) {
            return el;
        }
        if (NULL != req && !done && el >= next) {
            MPI_Test(req, &done, MPI_STATUS_IGNORE);
            next += step;
        }
    }
}

int main(int argc, char **argv)
{
    size_t min_size = 1, max_size = (size_t) 4 << 20;
    int iters = 200, warmup = 20, check = 0, torus = 0, opt, rank, size;
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((opt = getopt(argc, argv, "m:i:x:ct")) != -1) {
        if ('m' == opt) {
            char *colon = strchr(optarg, ':');
            if (NULL != colon) {
                min_size = (size_t) atol(optarg);
                max_size = (size_t) atol(colon + 1);
            } else {
                max_size = (size_t) atol(optarg);
            }
        } else if ('i' == opt) {
            iters = atoi(optarg);
        } else if ('x' == opt) {
            warmup = atoi(optarg);
        } else if ('c' == opt) {
            check = 1;
        } else if ('t' == opt) {
            torus = 1;
        }
    }
    if (torus) {
        int dims[2] = {0, 0}, periods[2] = {1, 1};
        MPI_Dims_create(size, 2, dims);
        MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &comm);
        if (0 == rank) {
            printf("# periodic Cartesian communicator %dx%d\n", dims[0], dims[1]);
        }
    }
    unsigned char *buf = malloc(max_size > 0 ? max_size : 1);
    if (0 == rank) {
        printf("# OSU-style MPI_Ibcast latency and overlap, %d ranks, root 0\n", size);
        printf("# %-10s %12s %12s %12s %10s %14s %14s\n", "Size", "Pure(us)", "Compute(us)",
               "Total(us)", "Overlap(%)", "Total+test(us)", "Overlap+test(%)");
    }
    long bad = 0;
    for (size_t m = min_size; m <= max_size; m = (m == 0 ? 1 : m * 2)) {
        const int it = m > 65536 ? (iters / 10 > 10 ? iters / 10 : 10) : iters;
        double sum[3] = {0, 0, 0}, comp = 0;
        for (int phase = 0; phase < 3; phase++) {
            double pure_avg = 0;
            if (phase > 0) { /* everyone computes for the slowest rank's pure time */
                MPI_Allreduce(&sum[0], &pure_avg, 1, MPI_DOUBLE, MPI_MAX, comm);
                pure_avg /= it;
            }
            for (int i = -warmup; i < it; i++) {
                if (check) {
                    for (size_t b = 0; b < m; b++) {
                        buf[b] = 0 == rank ? (unsigned char) (b + i) : 0;
                    }
                    MPI_Barrier(comm); /* (the fills are not timed) */
                }
                MPI_Request req;
                const double t0 = MPI_Wtime();
                MPI_Ibcast(buf, (int) m, MPI_BYTE, 0, comm, &req);
                double c = 0;
                if (phase > 0) {
                    c = compute(pure_avg, 2 == phase ? &req : NULL);
                }
                MPI_Wait(&req, MPI_STATUS_IGNORE);
                const double t = (MPI_Wtime() - t0) * 1e6;
                if (i >= 0) {
                    sum[phase] += t;
                    if (1 == phase) {
                        comp += c;
                    }
                }
                if (check) {
                    for (size_t b = 0; b < m; b++) {
                        bad += buf[b] != (unsigned char) (b + i);
                    }
                }
                MPI_Barrier(comm);
            }
        }
        double mine[4] = {sum[0] / it, comp / it, sum[1] / it, sum[2] / it}, worst[4];
        MPI_Reduce(mine, worst, 4, MPI_DOUBLE, MPI_MAX, 0, comm);
        if (0 == rank) {
            double ov = 100.0 * (1.0 - (worst[2] - worst[1]) / worst[0]);
            double ovt = 100.0 * (1.0 - (worst[3] - worst[1]) / worst[0]);
            ov = ov < 0 ? 0 : (ov > 100 ? 100 : ov);
            ovt = ovt < 0 ? 0 : (ovt > 100 ? 100 : ovt);
            printf("%-12zu %12.2f %12.2f %12.2f %10.1f %14.2f %14.1f\n", m, worst[0], worst[1],
                   worst[2], ov, worst[3], ovt);
            fflush(stdout);
        }
        if (0 == m) {
            break;
        }
    }
    long all = 0;
    MPI_Reduce(&bad, &all, 1, MPI_LONG, MPI_SUM, 0, comm);
    if (0 == rank && check) {
        printf("# data check: %ld wrong bytes\n", all);
    }
    free(buf);
    if (torus) {
        MPI_Comm_free(&comm);
    }
    MPI_Finalize();
    return all == 0 ? 0 : 1;
}
