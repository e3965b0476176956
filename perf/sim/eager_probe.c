/*
 * eager_probe: how SMPI shares a rank's link among its eager (detached) sends.
 *
 * Rank 0 posts m sends of S bytes to rank 1 back to back (MPI_Isend + MPI_Wait each, as
 * the engine's transport does); rank 1 has every receive posted and forwards each block to
 * rank 2 once it has it.  Prints, per block, when rank 1 and rank 2 completed its receive
 * (simulated us after a barrier).  A FIFO network (a NIC queue, a TCP socket) delivers
 * block i to rank 1 about (i + 1) S / B after the start; SimGrid's flow model shares the
 * link fairly among the transfers in flight, so blocks that leave together arrive
 * together, late.  With a third argument 0, rank 1 does not forward (rank 2 idles): the
 * gap between rank 1's receives is then what the sender and the network allow, and the
 * difference to the forwarding run is what forwarding costs rank 1's one CPU.  Run by
 * perf/sim/eager-probe.sh.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, n = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    const int S = argc > 1 ? atoi(argv[1]) : 40960;
    const int m = argc > 2 ? atoi(argv[2]) : 4;
    const int forward = argc > 3 ? atoi(argv[3]) : 1;
    if (n != 3 || S <= 0 || m <= 0 || m > 1024) {
        if (rank == 0) {
            fprintf(stderr, "usage: smpirun -np 3 eager_probe BYTES BLOCKS [FORWARD=1|0] (BLOCKS <= 1024)\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = malloc((size_t) S * (size_t) m);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t) m);
    double *got = calloc((size_t) m, sizeof(double));
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (rank == 0) {
        for (int i = 0; i < m; i++) {
            MPI_Request r;
            MPI_Isend(buf + (size_t) i * (size_t) S, S, MPI_BYTE, 1, i, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
    } else if (rank == 1 || forward) {
        for (int i = 0; i < m; i++) {
            MPI_Irecv(buf + (size_t) i * (size_t) S, S, MPI_BYTE, rank - 1, i, MPI_COMM_WORLD, &rq[i]);
        }
        for (int i = 0; i < m; i++) {
            MPI_Wait(&rq[i], MPI_STATUS_IGNORE);
            got[i] = (MPI_Wtime() - t0) * 1e6;
            if (rank == 1 && forward) {
                MPI_Request r;
                MPI_Isend(buf + (size_t) i * (size_t) S, S, MPI_BYTE, 2, i, MPI_COMM_WORLD, &r);
                MPI_Wait(&r, MPI_STATUS_IGNORE);
            }
        }
    }
    double *all = rank == 0 ? malloc(sizeof(double) * 3 * (size_t) m) : NULL;
    MPI_Gather(got, m, MPI_DOUBLE, all, m, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("block,bytes,forward,rank1_us,rank2_us\n");
        for (int i = 0; i < m; i++) {
            printf("%d,%d,%d,%.3f,%.3f\n", i, S, forward, all[(size_t) m + (size_t) i],
                   all[2 * (size_t) m + (size_t) i]);
        }
        free(all);
    }
    free(got);
    free(rq);
    free(buf);
    MPI_Finalize();
    return 0;
}
