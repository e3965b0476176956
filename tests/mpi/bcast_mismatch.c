/*
 * bcast_mismatch: erroneous programs whose ranks pass signatures of different sizes
 * (issue 18, item 2; issue 44, fault 5).  For each scenario the broadcast must end on
 * every rank (the matrix's timeout catches a hang), no rank may report MPI_SUCCESS with
 * data that is not the root's, every rank whose size differs from the root's must report
 * an error, and the next, correct broadcast on the same communicator must deliver the
 * root's data to every rank with MPI_SUCCESS (left-over messages or chunks never match it).
 *   leaves_fewer   every non-root rank posts M - delta bytes
 *   leaves_more    every non-root rank posts M + delta bytes
 *   one_fewer      the last rank alone posts M - delta
 *   one_more       the last rank alone posts M + delta
 * With -z, the 0-byte scenarios instead (a signature of 0 bytes: count 1 of a zero-size
 * datatype; MPI_Bcast with count 0 returns before any coll component in Open MPI 4.1, so
 * a component never learns of it), where the odd ranks must report MPI_ERR_TRUNCATE:
 *   one_zero       the last rank alone posts 0 bytes where the root sends M
 *   root_zero      the root sends 0 bytes where every other rank expects M
 *   all_zero       every rank posts 0 bytes (a correct program: MPI_SUCCESS everywhere)
 * M and delta: -m BYTES (default 1 MiB) and -d BYTES (default 65536); -n: MPI_Ibcast +
 * MPI_Wait instead of MPI_Bcast.
 * Prints "bcast_mismatch: np=N C checks, F failures".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errors_return.h"

static long checks = 0, failures = 0;
static int nonblocking = 0;

static unsigned char val(size_t i, int s)
{
    return (unsigned char) ((i * 7u + (unsigned) s * 29u + 3u) & 0xff);
}

static int bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm)
{
    if (!nonblocking) {
        return MPI_Bcast(buf, count, t, root, comm);
    }
    MPI_Request req;
    const int rc = MPI_Ibcast(buf, count, t, root, comm, &req);
    return MPI_SUCCESS != rc ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    int rank, size, opt, zero = 0;
    size_t M = 1 << 20, delta = 65536;
    MPI_Init(&argc, &argv);
    while ((opt = getopt(argc, argv, "m:d:zn")) != -1) {
        if (opt == 'm') {
            M = (size_t) atol(optarg);
        } else if (opt == 'd') {
            delta = (size_t) atol(optarg);
        } else if (opt == 'z') {
            zero = 1;
        } else if (opt == 'n') {
            nonblocking = 1;
        }
    }
    MPI_Comm comm = errors_return_dup(&rank, &size);
    MPI_Datatype empty; /* a datatype of 0 bytes */
    MPI_Type_contiguous(0, MPI_BYTE, &empty);
    MPI_Type_commit(&empty);
    const char *names[4] = {"leaves_fewer", "leaves_more", "one_fewer", "one_more"};
    const char *znames[3] = {"one_zero", "root_zero", "all_zero"};
    unsigned char *buf = malloc(M + delta);
    for (int s = 0; s < (zero ? 3 : 4); s++) {
        const int root = s % size;
        const int last = rank == (root + size - 1) % size && rank != root;
        int odd;
        size_t mine;
        if (!zero) {
            odd = (s < 2) ? (rank != root) : last;
            mine = !odd ? M : ((s % 2 == 0) ? M - delta : M + delta);
        } else {
            const int zero_here = (0 == s && last) || (1 == s && rank == root) || 2 == s;
            /* the ranks whose size differs from the root's */
            odd = (0 == s && last) || (1 == s && rank != root);
            mine = zero_here ? 0 : M;
        }
        const char *name = zero ? znames[s] : names[s];
        for (size_t i = 0; i < M + delta; i++) {
            buf[i] = rank == root ? val(i, s) : (unsigned char) ~val(i, s);
        }
        const int rc = 0 == mine ? bcast(buf, 1, empty, root, comm)
                                 : bcast(buf, (int) mine, MPI_BYTE, root, comm);
        int cls = MPI_SUCCESS;
        if (MPI_SUCCESS != rc) {
            MPI_Error_class(rc, &cls);
        }
        checks++;
        if (odd && (MPI_SUCCESS == rc || (zero && MPI_ERR_TRUNCATE != cls))) {
            failures++;
            fprintf(stderr, "FAIL %s rank=%d: %zu bytes against the root's, class %d\n", name,
                    rank, mine, cls);
        }
        if (!odd && zero && MPI_SUCCESS != rc) {
            failures++;
            fprintf(stderr, "FAIL %s rank=%d: the root's size, class %d\n", name, rank, cls);
        }
        if (MPI_SUCCESS == rc) {
            /* the root's bytes, and nothing of a 0-byte call's buffer touched */
            const size_t want = (zero && 2 == s) ? 0 : mine;
            for (size_t i = 0; i < M + delta; i++) {
                const unsigned char expect = (i < want || rank == root) ? val(i, s)
                                                                        : (unsigned char) ~val(i, s);
                if ((i < want || 0 == mine) && buf[i] != expect) {
                    failures++;
                    fprintf(stderr, "FAIL %s rank=%d: MPI_SUCCESS but byte %zu differs\n", name,
                            rank, i);
                    break;
                }
            }
        }
        /* the next, correct broadcast */
        for (size_t i = 0; i < M; i++) {
            buf[i] = rank == root ? val(i, 10 + s) : (unsigned char) ~val(i, 10 + s);
        }
        const int rc2 = bcast(buf, (int) M, MPI_BYTE, root, comm);
        checks++;
        int bad = MPI_SUCCESS != rc2;
        for (size_t i = 0; !bad && i < M; i++) {
            bad = buf[i] != val(i, 10 + s);
        }
        if (bad) {
            failures++;
            fprintf(stderr, "FAIL %s rank=%d: the correct broadcast after it: rc=%d or wrong data\n",
                    name, rank, rc2);
        }
    }
    free(buf);
    MPI_Type_free(&empty);
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
