/*
 * bcast_fault: a local failure on one rank during a broadcast (issue 44, fault 3).  Run
 * with tests/mpi/libfailalloc.so preloaded (failalloc.c: MCAST_FAILALLOC_RANK names the
 * rank whose allocations of MCAST_FAILALLOC_BYTES or more fail while armed).  Per round:
 *
 *   1. a correct MPI_Bcast, also under -n (the communicator's first-call and segment setup
 *      are done and the module settled, as after any blocking call: the armed MPI_Ibcast
 *      then takes that path; an MPI_Ibcast before any MPI_Bcast without memory for its
 *      own state is not covered, docs/local-failures.md); -f skips it: the failure then
 *      also hits the first call's setup
 *   2. the injector armed, one broadcast of M bytes, disarmed
 *   3. the next broadcast, correct, no injection
 *
 * Asserts: the program ends (the matrix's timeout catches a hang); in 2, a rank that
 * returns MPI_SUCCESS has the root's data (gaps of a strided type untouched), and the
 * failing rank, when its allocations did fail, returns an error class or the root's
 * data, never MPI_SUCCESS with other bytes; allocations did fail somewhere (a row
 * without an injection proves nothing: exit 2 without the library; -0 turns this
 * around); in 3, every rank returns MPI_SUCCESS with the root's data.
 *
 *   bcast_fault [-m BYTES (16 MiB)] [-t vector|bytes (vector)] [-n] [-r ROOT] [-f] [-k ROUNDS] [-0] [-A]
 *     vector  MPI_Type_vector(M/8, 1, 2, MPI_DOUBLE): the convertor packs and unpacks
 *     bytes   M MPI_BYTEs (contiguous: packed in place)
 *     -n      MPI_Ibcast + MPI_Wait instead of MPI_Bcast
 *     -r      the root (default 0)
 *     -k      rounds (default 2; the root moves by one each round)
 *     -0      the faulty broadcast must allocate nothing the injector would refuse (a
 *             path that cannot fail for want of memory): an injection is the failure
 *     -A      a rank may lose a call's plan (no memory for it) on a shared segment, which
 *             it then abandons (docs/local-failures.md): every broadcast after the first
 *             injection may end with an error class on any rank, never MPI_SUCCESS with
 *             other bytes
 * Prints "bcast_fault: np=N C checks, F failures (I injected, E error returns)".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errors_return.h"

static long checks = 0, failures = 0, after_errors = 0;
static int nonblocking = 0;
static void (*arm)(int) = NULL;
static long (*failed)(void) = NULL;
static int (*failing_rank)(void) = NULL;

#define GAP 0x5Au

static unsigned char val(size_t i, unsigned seed)
{
    uint32_t x = (uint32_t) i * 2654435761u ^ (seed * 40503u + 17u);
    x ^= x >> 15;
    return (unsigned char) (x * 0x2c1b3c6du >> 24);
}

/* Byte i of the type signature sits at buffer offset at(i). */
static size_t at(size_t i, int vector)
{
    return vector ? (i / 8) * 16 + i % 8 : i;
}

static void fill(unsigned char *buf, size_t span, size_t M, int vector, int root_side, unsigned seed)
{
    memset(buf, GAP, span);
    for (size_t i = 0; i < M; i++) {
        buf[at(i, vector)] = root_side ? val(i, seed) : (unsigned char) ~val(i, seed);
    }
}

/* the root's bytes at every signature position, gaps untouched */
static int correct(const unsigned char *buf, size_t span, size_t M, int vector, unsigned seed)
{
    for (size_t i = 0; i < M; i++) {
        if (buf[at(i, vector)] != val(i, seed)) {
            return 0;
        }
    }
    for (size_t o = 0; vector && o < span; o += 16) {
        for (size_t b = 8; b < 16 && o + b < span; b++) {
            if (buf[o + b] != GAP) {
                return 0;
            }
        }
    }
    return 1;
}

static int bcast_kind(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm,
                      int nonblocking)
{
    if (!nonblocking) {
        return MPI_Bcast(buf, count, t, root, comm);
    }
    MPI_Request req;
    int rc = MPI_Ibcast(buf, count, t, root, comm, &req);
    if (MPI_SUCCESS != rc) {
        return rc;
    }
    return MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static int bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm)
{
    return bcast_kind(buf, count, t, root, comm, nonblocking);
}

static int err_class(int rc)
{
    int cls = MPI_SUCCESS;
    if (MPI_SUCCESS != rc) {
        MPI_Error_class(rc, &cls);
    }
    return cls;
}

/* A broadcast without injection, which must be right on every rank (`what`: before or
 * after the faulty one). */
static int abandoned_ok; /* -A */
static int injected_once; /* the first faulty broadcast ran */

static void correct_bcast(unsigned char *buf, size_t span, size_t M, int vector, int count,
                          MPI_Datatype t, int root, int rank, MPI_Comm comm, unsigned seed,
                          int round, const char *what)
{
    fill(buf, span, M, vector, rank == root, seed);
    const int rc = bcast_kind(buf, count, t, root, comm, nonblocking && 0 != strcmp(what, "before"));
    checks++;
    if (abandoned_ok && MPI_SUCCESS != rc && injected_once) {
        after_errors++; /* (an abandoned segment: an error, not wrong data) */
        return;
    }
    if (MPI_SUCCESS != rc || !correct(buf, span, M, vector, seed)) {
        failures++;
        fprintf(stderr, "FAIL round %d rank=%d: the broadcast %s the injection: class %d or "
                        "wrong data\n", round, rank, what, err_class(rc));
    }
}

int main(int argc, char **argv)
{
    size_t M = (size_t) 16 << 20;
    int vector = 1, root0 = 0, warm = 1, rounds = 2, none = 0, opt;
    MPI_Init(&argc, &argv);
    while ((opt = getopt(argc, argv, "m:t:nr:fk:0A")) != -1) {
        switch (opt) {
        case 'm': M = (size_t) atol(optarg); break;
        case 't': vector = 0 != strcmp(optarg, "bytes"); break;
        case 'n': nonblocking = 1; break;
        case 'r': root0 = atoi(optarg); break;
        case 'f': warm = 0; break;
        case 'k': rounds = atoi(optarg); break;
        case '0': none = 1; break;
        case 'A': abandoned_ok = 1; break;
        default: break;
        }
    }
    M -= M % 8;
    arm = (void (*)(int)) dlsym(RTLD_DEFAULT, "failalloc_arm");
    failed = (long (*)(void)) dlsym(RTLD_DEFAULT, "failalloc_failed");
    failing_rank = (int (*)(void)) dlsym(RTLD_DEFAULT, "failalloc_is_failing_rank");
    int rank, size;
    MPI_Comm comm = errors_return_dup(&rank, &size);
    if (NULL == arm || NULL == failed || NULL == failing_rank) {
        if (0 == rank) {
            fprintf(stderr, "bcast_fault: libfailalloc.so is not preloaded: nothing to inject\n");
        }
        MPI_Finalize();
        return 2;
    }
    MPI_Datatype vec;
    MPI_Type_vector((int) (M / 8), 1, 2, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    const size_t span = vector ? M * 2 : M;
    const MPI_Datatype t = vector ? vec : MPI_BYTE;
    const int count = vector ? 1 : (int) M;
    unsigned char *buf = malloc(span);
    long injected = 0, errors = 0;
    for (int k = 0; k < rounds; k++) {
        const int root = (root0 + k) % size;
        const unsigned seed = 100u * (unsigned) k;
        if (warm) {
            correct_bcast(buf, span, M, vector, count, t, root, rank, comm, seed + 1, k, "before");
        }
        fill(buf, span, M, vector, rank == root, seed + 2);
        const long before = failed();
        arm(1);
        const int rc = bcast(buf, count, t, root, comm);
        arm(0);
        injected_once = 1;
        const long mine = failed() - before;
        injected += mine;
        const int ok = correct(buf, span, M, vector, seed + 2);
        checks++;
        errors += MPI_SUCCESS != rc;
        if (MPI_SUCCESS == rc && !ok) {
            failures++;
            fprintf(stderr, "FAIL round %d rank=%d: MPI_SUCCESS with wrong data (%ld failed "
                            "allocations here)\n", k, rank, mine);
        }
        fprintf(stderr, "bcast_fault: round %d root=%d rank=%d%s: %ld failed allocations, "
                        "class %d, data %s\n", k, root, rank, failing_rank() ? " (failing rank)" : "",
                mine, err_class(rc), ok ? "right" : "wrong");
        /* the next broadcast, after the injection stopped */
        correct_bcast(buf, span, M, vector, count, t, root, rank, comm, seed + 3, k, "after");
    }
    long tot[5] = {checks, failures, injected, errors, after_errors}, sum[5];
    MPI_Allreduce(tot, sum, 5, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (none && 0 != sum[2]) {
        sum[1]++;
        if (0 == rank) {
            fprintf(stderr, "FAIL the broadcast allocated memory (%ld requests refused)\n", sum[2]);
        }
    } else if (!none && 0 == sum[2]) {
        sum[1]++; /* nothing was injected: the row tested nothing */
        if (0 == rank) {
            fprintf(stderr, "FAIL no allocation failed: raise the message size or lower "
                            "MCAST_FAILALLOC_BYTES\n");
        }
    }
    if (0 == rank) {
        printf("bcast_fault: np=%d %ld checks, %ld failures (%ld injected, %ld error returns%s",
               size, sum[0], sum[1], sum[2], sum[3], abandoned_ok ? "" : ")\n");
        if (abandoned_ok) {
            printf(", %ld after it)\n", sum[4]);
        }
    }
    free(buf);
    MPI_Type_free(&vec);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0 == sum[1] ? 0 : 1;
}
