/*
 * ibcast_multi: nonblocking broadcasts as applications use them.
 *   - K outstanding MPI_Ibcast on one communicator (different roots, sizes and buffers),
 *     completed by MPI_Waitall, by MPI_Waitany in any order, and by MPI_Testall polling;
 *   - MPI_Ibcast interleaved with blocking MPI_Bcast on the same communicator (MPI's
 *     ordering rules: collectives match in call order);
 *   - MPI_Ibcast on several communicators at once (world, a dup, a reversed split);
 *   - MPI_Request_free of an active MPI_Ibcast request (the operation still completes);
 *   - a compute loop with MPI_Test while an Ibcast progresses (overlap);
 *   - on a communicator that sees MPI_Ibcast only, a window of 40 outstanding calls of
 *     two size classes, more than a verification's trials of each (on one node with a
 *     core per rank its size classes are verified: the calls after the trials start
 *     only once every rank's times are in, while the earlier ones are in flight), then
 *     a blocking MPI_Bcast before any is waited for, then MPI_Waitall; twice.
 * Every buffer is checked byte for byte.  Prints "ibcast_multi: np=N C checks, F failures".
 * Usage: ibcast_multi [-l large_bytes]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long checks = 0, failures = 0;

static unsigned char val(size_t i, int tag)
{
    return (unsigned char) ((i * 131u + (unsigned) tag * 17u + 7u) & 0xff);
}

static void fill(unsigned char *b, size_t n, int tag, int mine)
{
    for (size_t i = 0; i < n; i++) {
        b[i] = mine ? val(i, tag) : (unsigned char) ~val(i, tag);
    }
}

static void check(const unsigned char *b, size_t n, int tag, const char *what, int rank)
{
    checks++;
    for (size_t i = 0; i < n; i++) {
        if (b[i] != val(i, tag)) {
            failures++;
            fprintf(stderr, "FAIL rank=%d %s tag=%d byte %zu of %zu\n", rank, what, tag, i, n);
            return;
        }
    }
}

int main(int argc, char **argv)
{
    int rank, size, opt;
    size_t large = 1 << 20;
    MPI_Init(&argc, &argv);
    while ((opt = getopt(argc, argv, "l:")) != -1) {
        if (opt == 'l') {
            large = (size_t) atol(optarg);
        }
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    enum { K = 6 };
    const size_t sizes[K] = {1, 100, 4096, 70001, large, large / 3 + 5};
    unsigned char *buf[K];
    MPI_Request req[K];
    const size_t cap = large + 70001; /* every buffer holds the largest size */
    for (int i = 0; i < K; i++) {
        buf[i] = malloc(cap);
    }

    /* 1. K outstanding, three ways of completing them */
    for (int way = 0; way < 3; way++) {
        for (int i = 0; i < K; i++) {
            const int root = (i + way) % size, tag = 10 * way + i;
            fill(buf[i], sizes[i], tag, rank == root);
            MPI_Ibcast(buf[i], (int) sizes[i], MPI_BYTE, root, MPI_COMM_WORLD, &req[i]);
        }
        if (way == 0) {
            MPI_Waitall(K, req, MPI_STATUSES_IGNORE);
        } else if (way == 1) {
            for (int j = 0; j < K; j++) {
                int idx;
                MPI_Waitany(K, req, &idx, MPI_STATUS_IGNORE);
            }
        } else {
            int done = 0;
            while (!done) {
                MPI_Testall(K, req, &done, MPI_STATUSES_IGNORE);
            }
        }
        for (int i = 0; i < K; i++) {
            check(buf[i], sizes[i], 10 * way + i, "outstanding", rank);
        }
    }

    /* 2. Ibcast, Bcast, Ibcast on one communicator, then wait */
    fill(buf[0], sizes[4], 100, rank == 0);
    fill(buf[1], sizes[3], 101, rank == size - 1);
    fill(buf[2], sizes[5], 102, rank == size / 2);
    MPI_Ibcast(buf[0], (int) sizes[4], MPI_BYTE, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Bcast(buf[1], (int) sizes[3], MPI_BYTE, size - 1, MPI_COMM_WORLD);
    MPI_Ibcast(buf[2], (int) sizes[5], MPI_BYTE, size / 2, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    check(buf[0], sizes[4], 100, "ibcast before bcast", rank);
    check(buf[1], sizes[3], 101, "bcast between ibcasts", rank);
    check(buf[2], sizes[5], 102, "ibcast after bcast", rank);

    /* 3. several communicators at once */
    MPI_Comm dup, rev;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    MPI_Comm comms[3] = {MPI_COMM_WORLD, dup, rev};
    for (int i = 0; i < 3; i++) {
        fill(buf[i], sizes[4], 200 + i, rank == (i * 2) % size);
    }
    for (int i = 0; i < 3; i++) { /* root = communicator rank (i*2)%size of each */
        int crank;
        MPI_Comm_rank(comms[i], &crank);
        fill(buf[i], sizes[4], 200 + i, crank == (i * 2) % size);
        MPI_Ibcast(buf[i], (int) sizes[4], MPI_BYTE, (i * 2) % size, comms[i], &req[i]);
    }
    MPI_Waitall(3, req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 3; i++) {
        check(buf[i], sizes[4], 200 + i, "three communicators", rank);
    }

    /* 4. overlap: compute while testing */
    fill(buf[3], sizes[4], 300, rank == 0);
    MPI_Ibcast(buf[3], (int) sizes[4], MPI_BYTE, 0, MPI_COMM_WORLD, &req[0]);
    int done = 0;
    volatile double x = 0;
    while (!done) {
        for (int i = 0; i < 1000; i++) {
            x += i * 0.5;
        }
        MPI_Test(&req[0], &done, MPI_STATUS_IGNORE);
    }
    check(buf[3], sizes[4], 300, "overlap", rank);

    /* 5. MPI_Request_free of an active request: the operation still completes (its
     *    buffer stays allocated until after MPI_Finalize) and the communicator keeps
     *    working. */
    unsigned char *freed = malloc(sizes[3]);
    fill(freed, sizes[3], 400, rank == 1 % size);
    MPI_Ibcast(freed, (int) sizes[3], MPI_BYTE, 1 % size, dup, &req[0]);
    MPI_Request_free(&req[0]);
    checks++;
    if (req[0] != MPI_REQUEST_NULL) {
        failures++;
        fprintf(stderr, "FAIL rank=%d MPI_Request_free did not reset the handle\n", rank);
    }
    fill(buf[4], sizes[2], 401, rank == 0);
    MPI_Bcast(buf[4], (int) sizes[2], MPI_BYTE, 0, dup);
    check(buf[4], sizes[2], 401, "bcast after a freed ibcast", rank);

    /* 6. a window of outstanding calls on a communicator that sees MPI_Ibcast first */
    MPI_Comm nbc;
    MPI_Comm_dup(MPI_COMM_WORLD, &nbc);
    enum { W = 40 };
    unsigned char *wb[W];
    MPI_Request wr[W];
    for (int i = 0; i < W; i++) {
        wb[i] = malloc(65536);
    }
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < W; i++) {
            const size_t n = i % 2 ? 65536 : 20000;
            const int root = (i / 2 + round) % size;
            fill(wb[i], n, 500 + 100 * round + i, rank == root);
            MPI_Ibcast(wb[i], (int) n, MPI_BYTE, root, nbc, &wr[i]);
        }
        fill(buf[5], sizes[3], 700 + round, rank == size - 1);
        MPI_Bcast(buf[5], (int) sizes[3], MPI_BYTE, size - 1, nbc);
        MPI_Waitall(W, wr, MPI_STATUSES_IGNORE);
        for (int i = 0; i < W; i++) {
            check(wb[i], i % 2 ? 65536 : 20000, 500 + 100 * round + i, "window of outstanding calls", rank);
        }
        check(buf[5], sizes[3], 700 + round, "bcast behind a window", rank);
    }
    for (int i = 0; i < W; i++) {
        free(wb[i]);
    }
    MPI_Comm_free(&nbc);

    MPI_Comm_free(&dup);
    MPI_Comm_free(&rev);
    long tot[2] = {checks, failures}, sum[2];
    MPI_Reduce(tot, sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("ibcast_multi: np=%d %ld checks, %ld failures\n", size, sum[0], sum[1]);
    }
    long all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < K; i++) {
        free(buf[i]);
    }
    MPI_Finalize();
    free(freed);
    return all == 0 ? 0 : 1;
}
