/*
 * bcast_mismatch: erroneous programs whose ranks pass signatures of different sizes
 * (issue 18, item 2).  For each scenario the broadcast must end on every rank (the
 * matrix's timeout catches a hang), no rank may report MPI_SUCCESS with data that is
 * not the root's, every rank whose size differs from the root's must report an error,
 * and the next, correct broadcast on the same communicator must deliver the root's
 * data to every rank with MPI_SUCCESS (left-over messages never match it).
 *   leaves_fewer   every non-root rank posts M - delta bytes
 *   leaves_more    every non-root rank posts M + delta bytes
 *   one_fewer      the last rank alone posts M - delta
 *   one_more       the last rank alone posts M + delta
 * M and delta: -m BYTES (default 1 MiB) and -d BYTES (default 65536).
 * Prints "bcast_mismatch: np=N C checks, F failures".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long checks = 0, failures = 0;

static unsigned char val(size_t i, int s)
{
    return (unsigned char) ((i * 7u + (unsigned) s * 29u + 3u) & 0xff);
}

int main(int argc, char **argv)
{
    int rank, size, opt;
    size_t M = 1 << 20, delta = 65536;
    MPI_Init(&argc, &argv);
    while ((opt = getopt(argc, argv, "m:d:")) != -1) {
        if (opt == 'm') {
            M = (size_t) atol(optarg);
        } else if (opt == 'd') {
            delta = (size_t) atol(optarg);
        }
    }
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const char *names[4] = {"leaves_fewer", "leaves_more", "one_fewer", "one_more"};
    unsigned char *buf = malloc(M + delta);
    for (int s = 0; s < 4; s++) {
        const int root = s % size;
        const int odd = (s < 2) ? (rank != root) : (rank == (root + size - 1) % size && rank != root);
        const size_t mine = !odd ? M : ((s % 2 == 0) ? M - delta : M + delta);
        for (size_t i = 0; i < M + delta; i++) {
            buf[i] = rank == root ? val(i, s) : (unsigned char) ~val(i, s);
        }
        const int rc = MPI_Bcast(buf, (int) mine, MPI_BYTE, root, comm);
        checks++;
        if (odd && MPI_SUCCESS == rc) {
            failures++;
            fprintf(stderr, "FAIL %s rank=%d: %zu bytes against the root's %zu, MPI_SUCCESS\n",
                    names[s], rank, mine, M);
        }
        if (MPI_SUCCESS == rc) {
            for (size_t i = 0; i < mine; i++) {
                if (buf[i] != val(i, s)) {
                    failures++;
                    fprintf(stderr, "FAIL %s rank=%d: MPI_SUCCESS but byte %zu differs\n",
                            names[s], rank, i);
                    break;
                }
            }
        }
        /* the next, correct broadcast */
        for (size_t i = 0; i < M; i++) {
            buf[i] = rank == root ? val(i, 10 + s) : (unsigned char) ~val(i, 10 + s);
        }
        const int rc2 = MPI_Bcast(buf, (int) M, MPI_BYTE, root, comm);
        checks++;
        int bad = MPI_SUCCESS != rc2;
        for (size_t i = 0; !bad && i < M; i++) {
            bad = buf[i] != val(i, 10 + s);
        }
        if (bad) {
            failures++;
            fprintf(stderr, "FAIL %s rank=%d: the correct broadcast after it: rc=%d or wrong data\n",
                    names[s], rank, rc2);
        }
    }
    free(buf);
    long tot[2] = {checks, failures}, sum[2];
    MPI_Reduce(tot, sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("bcast_mismatch: np=%d %ld checks, %ld failures\n", size, sum[0], sum[1]);
    }
    long all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return all == 0 ? 0 : 1;
}
