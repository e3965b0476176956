/*
 * first_bcast.c -- what the first MPI_Bcast on a new communicator costs.
 *
 * usage: first_bcast [-n COMMS] [-m BYTES] [-s split|dup] [-k]
 *
 * COMMS times (default 200): create a communicator (MPI_Comm_dup of MPI_COMM_WORLD,
 * or MPI_Comm_split into halves), then time its first broadcast and its second one
 * (same size, same root), then free it.  Times are the max over ranks of each call
 * (ranks start each call together after a barrier on the new communicator).  rank 0
 * prints the medians:
 *   first_bcast: ranks=P mode=dup bytes=M comms=N first_us=F second_us=S extra_us=F-S
 * The first call includes what a component does once per communicator (our
 * discovery allgather and plan build); the second is a cached plan.  free_us is the
 * median of MPI_Comm_free's time on the slowest rank (a module's state released), and
 * cycle_us the median of the slowest rank's whole cycle: create, both broadcasts (with
 * their barriers and checks), free.  Output ends with " free_us=X cycle_us=Y".  With -k
 * every communicator is kept until all COMMS exist, then they are freed in turn (an
 * application that keeps many: free_us is then each one's MPI_Comm_free, cycle_us stops
 * before it); " kept" follows mode=.
 * Every rank checks the data of both broadcasts; exit status 1 on wrong data.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t) n, sizeof(*v), cmp_double);
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One timed broadcast on comm: the max over ranks of the call's duration. */
static double timed_bcast(char *buf, int bytes, MPI_Comm comm, int tag, int *bad)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    for (int i = 0; i < bytes; i++) {
        buf[i] = (char) (0 == rank ? (i * 7 + tag) & 0x7f : 0);
    }
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    MPI_Bcast(buf, bytes, MPI_CHAR, 0, comm);
    double dt = MPI_Wtime() - t0, mx;
    for (int i = 0; i < bytes; i++) {
        if (buf[i] != (char) ((i * 7 + tag) & 0x7f)) {
            (*bad)++;
            break;
        }
    }
    MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, comm);
    return mx * 1e6;
}

int main(int argc, char **argv)
{
    int ncomms = 200, bytes = 8, split = 0, keep = 0, opt, rank, size, bad = 0, allbad;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((opt = getopt(argc, argv, "n:m:s:k")) != -1) {
        switch (opt) {
        case 'n': ncomms = atoi(optarg); break;
        case 'm': bytes = atoi(optarg); break;
        case 's': split = (0 == strcmp(optarg, "split")); break;
        case 'k': keep = 1; break;
        default:
            if (0 == rank) fprintf(stderr, "usage: %s [-n COMMS] [-m BYTES] [-s split|dup] [-k]\n", argv[0]);
            MPI_Finalize();
            return 2;
        }
    }
    if (ncomms < 1 || bytes < 1) {
        if (0 == rank) fprintf(stderr, "first_bcast: COMMS and BYTES must be >= 1\n");
        MPI_Finalize();
        return 2;
    }
    char *buf = malloc((size_t) bytes);
    double *first = malloc(sizeof(double) * (size_t) ncomms);
    double *second = malloc(sizeof(double) * (size_t) ncomms);
    double *freed = malloc(sizeof(double) * (size_t) ncomms);
    double *cycle = malloc(sizeof(double) * (size_t) ncomms);
    MPI_Comm *kept = malloc(sizeof(MPI_Comm) * (size_t) ncomms);
    if (NULL == buf || NULL == first || NULL == second || NULL == freed || NULL == cycle ||
        NULL == kept) {
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    for (int c = 0; c < ncomms; c++) {
        MPI_Comm comm;
        MPI_Barrier(MPI_COMM_WORLD);
        const double c0 = MPI_Wtime();
        if (split) {
            MPI_Comm_split(MPI_COMM_WORLD, rank < (size + 1) / 2, rank, &comm);
        } else {
            MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        }
        first[c] = timed_bcast(buf, bytes, comm, c, &bad);
        second[c] = timed_bcast(buf, bytes, comm, c + 1, &bad);
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        if (keep) {
            kept[c] = comm;
        } else {
            MPI_Comm_free(&comm);
        }
        const double t1 = MPI_Wtime();
        double dt[2] = {(t1 - t0) * 1e6, (t1 - c0) * 1e6}, mx[2];
        MPI_Allreduce(dt, mx, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        freed[c] = mx[0];
        cycle[c] = mx[1];
    }
    for (int c = 0; keep && c < ncomms; c++) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        MPI_Comm_free(&kept[c]);
        double dt = (MPI_Wtime() - t0) * 1e6;
        MPI_Allreduce(&dt, &freed[c], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == rank) {
        double f = median(first, ncomms), s = median(second, ncomms);
        printf("first_bcast: ranks=%d mode=%s%s bytes=%d comms=%d first_us=%.1f second_us=%.1f "
               "extra_us=%.1f%s free_us=%.1f cycle_us=%.1f\n",
               size, split ? "split" : "dup", keep ? " kept" : "", bytes, ncomms, f, s, f - s,
               allbad ? " WRONG DATA" : "", median(freed, ncomms), median(cycle, ncomms));
    }
    free(buf);
    free(first);
    free(second);
    free(freed);
    free(cycle);
    free(kept);
    MPI_Finalize();
    return allbad ? 1 : 0;
}
