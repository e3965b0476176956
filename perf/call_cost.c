/*
 * call_cost BYTES CALLS [b|n]: the instructions of one broadcast call, for perf/call-cost.
 *
 * Run under `valgrind --tool=callgrind`: 1000 untimed calls first (the communicator's
 * setup, the plan, the verification's trials are behind them), then the counters are
 * zeroed, CALLS broadcasts of BYTES chars from rank 0 run with an MPI_Barrier after each
 * (as osu_bcast), and the counters are dumped (a second part, `.1`, of callgrind's
 * output) before MPI_Finalize.  `b`: MPI_Bcast; `n`: MPI_Ibcast + MPI_Wait.
 * perf/call-cost divides the inclusive count of PMPI_Bcast (PMPI_Ibcast, PMPI_Wait) in
 * that part by CALLS.  Outside valgrind the requests do nothing.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <valgrind/callgrind.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 3) {
        fprintf(stderr, "usage: call_cost BYTES CALLS [b|n]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int bytes = atoi(argv[1]), calls = atoi(argv[2]);
    const int nonblocking = argc > 3 && 'n' == argv[3][0];
    char *buf = malloc((size_t) bytes + 1);
    if (NULL == buf || bytes < 0 || calls < 1) {
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < bytes; i++) {
        buf[i] = (char) i;
    }
    for (int i = 0; i < 1000 + calls; i++) {
        if (1000 == i) {
            MPI_Barrier(MPI_COMM_WORLD);
            CALLGRIND_ZERO_STATS;
        }
        if (nonblocking) {
            MPI_Request r;
            MPI_Ibcast(buf, bytes, MPI_CHAR, 0, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else {
            MPI_Bcast(buf, bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    CALLGRIND_DUMP_STATS;
    free(buf);
    MPI_Finalize();
    return 0;
}
