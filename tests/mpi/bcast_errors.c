/*
 * bcast_errors: bad input under MPI_ERRORS_RETURN must give the MPI error class Open
 * MPI itself returns, never a hang or a crash:
 *   invalid root           -> MPI_ERR_ROOT      (every rank)
 *   negative count         -> MPI_ERR_COUNT     (every rank)
 *   shorter receiver       -> MPI_ERR_TRUNCATE  (the last rank receives fewer bytes); a rank
 *                             that receives through it fails too (MPI_ERR_TRUNCATE: it
 *                             cannot get the root's data), every other rank gets the
 *                             root's data with MPI_SUCCESS: never success with wrong data
 * A correct bcast afterwards proves the communicator still works.
 * Prints "bcast_errors: <checks> checks, <failures> failures".
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int checks = 0, failures = 0;

static void expect_class(int rc, int want, const char *what, int rank)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
    }
    checks++;
    if (cls != want) {
        failures++;
        fprintf(stderr, "FAIL rank=%d %s: got class %d, want %d\n", rank, what, cls, want);
    }
}

int main(int argc, char **argv)
{
    int rank, size, buf[64];
    MPI_Init(&argc, &argv);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    expect_class(MPI_Bcast(buf, 4, MPI_INT, size, comm), MPI_ERR_ROOT, "root=size", rank);
    expect_class(MPI_Bcast(buf, 4, MPI_INT, -5, comm), MPI_ERR_ROOT, "root=-5", rank);
    expect_class(MPI_Bcast(buf, -1, MPI_INT, 0, comm), MPI_ERR_COUNT, "count=-1", rank);

    if (size > 1) {
        /* The last rank passes a shorter signature than the root: it alone must see
         * MPI_ERR_TRUNCATE; everyone else completes. */
        for (int i = 0; i < 64; i++) {
            buf[i] = rank == 0 ? i : -1;
        }
        int count = (rank == size - 1) ? 8 : 16;
        int rc = MPI_Bcast(buf, count, MPI_INT, 0, comm);
        if (rank == size - 1) {
            expect_class(rc, MPI_ERR_TRUNCATE, "short receiver", rank);
        } else if (MPI_SUCCESS == rc) {
            int ok = 1;
            for (int i = 0; i < 16; i++) {
                ok &= (buf[i] == i);
            }
            checks++;
            if (!ok) {
                failures++;
                fprintf(stderr, "FAIL rank=%d short receiver elsewhere: success with wrong data\n",
                        rank);
            }
        } else {
            expect_class(rc, MPI_ERR_TRUNCATE, "below the short receiver", rank);
        }
    }
    /* The communicator still works. */
    for (int i = 0; i < 64; i++) {
        buf[i] = rank == 0 ? 1000 + i : -1;
    }
    MPI_Barrier(comm);
    expect_class(MPI_Bcast(buf, 64, MPI_INT, 0, comm), MPI_SUCCESS, "bcast after errors", rank);
    int ok = 1;
    for (int i = 0; i < 64; i++) {
        ok &= (buf[i] == 1000 + i);
    }
    checks++;
    if (!ok) {
        failures++;
        fprintf(stderr, "FAIL rank=%d data after errors\n", rank);
    }

    int tot[2] = {checks, failures}, sum[2];
    MPI_Reduce(tot, sum, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("bcast_errors: np=%d %d checks, %d failures\n", size, sum[0], sum[1]);
    }
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return all == 0 ? 0 : 1;
}
