/*
 * bcast_setup: a communicator's first broadcasts never block inside a nonblocking call.
 *
 * Run under MPI_THREAD_MULTIPLE (the default of mpi4py).  On fresh communicators:
 *   dup      MPI_Comm_dup of an intercommunicator, `loops` times: Open MPI 4.1's dup runs
 *            nonblocking steps that call MPI_Ibcast on the local group from its progress
 *            engine (a setup that blocks there hangs every rank)
 *   local    MPI_Ibcast is local: rank 0 starts one and only then sends rank 1 the message
 *            rank 1 waits for before it starts its own (a first call that waits for the
 *            other ranks deadlocks)
 *   overlap  Ibcasts outstanding (sizes on both sides of every segment and shm chunk),
 *            then a Bcast, more Ibcasts, completed in reverse order (an MPI_Comm_idup
 *            outstanding among them hangs stock Open MPI 4.1 itself: its steps take
 *            collective tags when they run, not when idup was called)
 *   threads  (-t, with MPI_THREAD_MULTIPLE) three threads at once, each on its own new
 *            communicator: rounds of three outstanding Ibcasts (sizes on both sides of
 *            the segment, the multicast chunk and window, rotating roots), completed by
 *            MPI_Test loops in reverse order, so progress runs from several threads
 *            together
 * Every buffer is checked on every rank.  Prints "bcast_setup: N checks, F failures"
 * and exits non-zero on a failure.  Usage: bcast_setup [-l loops (20)] [-t]
 */
#include <mpi.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long checks = 0, failures = 0;

static unsigned char pattern(size_t i, int seed)
{
    return (unsigned char) ((i * 131u + (unsigned) seed * 7u) >> 1);
}

static void fill(unsigned char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++) {
        b[i] = pattern(i, seed);
    }
}

static void check(const char *what, const unsigned char *b, size_t n, int seed)
{
    checks++;
    for (size_t i = 0; i < n; i++) {
        if (b[i] != pattern(i, seed)) {
            int rank;
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
            fprintf(stderr, "bcast_setup: rank %d: %s: byte %zu of %zu wrong\n", rank, what, i, n);
            failures++;
            return;
        }
    }
}

static void check_rc(const char *what, int rc)
{
    checks++;
    if (MPI_SUCCESS != rc) {
        char s[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, s, &len);
        fprintf(stderr, "bcast_setup: %s: %s\n", what, s);
        failures++;
    }
}

/* An MPI_Ibcast that failed to start leaves no request to wait for. */
static void check_start(const char *what, int rc, MPI_Request *req)
{
    check_rc(what, rc);
    if (MPI_SUCCESS != rc) {
        *req = MPI_REQUEST_NULL;
    }
}

/* MPI_Comm_dup of an intercommunicator between the even and odd ranks. */
static void dup_loop(int loops)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        return;
    }
    /* (a call that failed leaves its handle alone: none is used after a failure, which
     * Open MPI 5 answers with a crash in the binding, not an error) */
    MPI_Comm local = MPI_COMM_NULL, inter = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &local);
    /* (not counted as a failure: where the broadcasts on `local` are refused, Open MPI
     * fails the creation on every rank and names it MPI_ERR_INTERN, run_matrix.sh 7b) */
    const int irc = MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 17, &inter);
    for (int i = 0; MPI_SUCCESS == irc && i < loops; i++) {
        MPI_Comm d = MPI_COMM_NULL;
        const int drc = MPI_Comm_dup(inter, &d);
        check_rc("MPI_Comm_dup(intercomm)", drc);
        if (MPI_SUCCESS != drc) {
            continue;
        }
        /* the dup works: a broadcast across it from the even group's first rank */
        int v = rank % 2 ? -1 : 1000 + i;
        const int root = rank % 2 ? 0 : (0 == rank ? MPI_ROOT : MPI_PROC_NULL);
        check_rc("MPI_Bcast(dup)", MPI_Bcast(&v, 1, MPI_INT, root, d));
        checks++;
        if (rank % 2 && v != 1000 + i) {
            fprintf(stderr, "bcast_setup: rank %d: dup %d: got %d\n", rank, i, v);
            failures++;
        }
        MPI_Comm_free(&d);
    }
    if (MPI_COMM_NULL != inter) {
        MPI_Comm_free(&inter);
    }
    MPI_Comm_free(&local);
}

/* MPI_Ibcast returns before the other ranks call it, also on a new communicator. */
static void local_start(size_t bytes)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        return;
    }
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    unsigned char *b = malloc(bytes);
    memset(b, 0, bytes);
    if (0 == rank) {
        fill(b, bytes, 3);
    }
    MPI_Request req;
    int token = 42;
    if (1 == rank) {
        MPI_Recv(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    check_start("MPI_Ibcast(first)", MPI_Ibcast(b, (int) bytes, MPI_BYTE, 0, c, &req), &req);
    if (0 == rank) {
        MPI_Send(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    }
    check_rc("MPI_Wait(first)", MPI_Wait(&req, MPI_STATUS_IGNORE));
    check("local start", b, bytes, 3);
    free(b);
    MPI_Comm_free(&c);
}

/* Ibcasts outstanding around a Bcast on a new communicator (buffer i from root i % 2). */
static void overlap(void)
{
    static const size_t sizes[] = {1, 1000, 40000, 300000, 2000000};
    enum { NS = sizeof(sizes) / sizeof(sizes[0]), NB = 2 * NS + 1 };
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    unsigned char *b[NB];
    MPI_Request req[NB];
    for (int i = 0; i < NB; i++) {
        b[i] = calloc(sizes[i % NS], 1);
        if (i % 2 % size == rank) {
            fill(b[i], sizes[i % NS], i);
        }
    }
    for (int i = 0; i < NS; i++) {
        check_start("MPI_Ibcast(before)",
                    MPI_Ibcast(b[i], (int) sizes[i], MPI_BYTE, i % 2 % size, c, &req[i]), &req[i]);
    }
    check_rc("MPI_Bcast(between)",
             MPI_Bcast(b[NS], (int) sizes[0], MPI_BYTE, NS % 2 % size, c));
    for (int i = NS + 1; i < NB; i++) {
        check_start("MPI_Ibcast(after)",
                    MPI_Ibcast(b[i], (int) sizes[i % NS], MPI_BYTE, i % 2 % size, c, &req[i]),
                    &req[i]);
    }
    for (int i = NB - 1; i > NS; i--) {
        check_rc("MPI_Wait(after)", MPI_Wait(&req[i], MPI_STATUS_IGNORE));
    }
    for (int i = NS - 1; i >= 0; i--) {
        check_rc("MPI_Wait(before)", MPI_Wait(&req[i], MPI_STATUS_IGNORE));
    }
    for (int i = 0; i < NB; i++) {
        char what[64];
        snprintf(what, sizeof(what), "overlap buffer %d (%zu bytes)", i, sizes[i % NS]);
        check(what, b[i], sizes[i % NS], i);
        free(b[i]);
    }
    MPI_Comm_free(&c);
}

enum { NTHREADS = 3, THREAD_ROUNDS = 6, PER_ROUND = 3 };
typedef struct {
    MPI_Comm comm;
    int id;
    long checks, failures;
} thread_arg_t;

static void thread_error(int rank, int id, int round, int i, const char *what, int rc)
{
    char s[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, s, &len);
    fprintf(stderr, "bcast_setup: rank %d: thread %d round %d buffer %d: %s: %s\n", rank, id, round,
            i, what, s);
}

static void *thread_body(void *p)
{
    static const size_t sizes[PER_ROUND] = {3000, 70000, 2100000};
    thread_arg_t *a = p;
    int rank, size;
    MPI_Comm_rank(a->comm, &rank);
    MPI_Comm_size(a->comm, &size);
    unsigned char *b[PER_ROUND];
    for (int i = 0; i < PER_ROUND; i++) {
        b[i] = malloc(sizes[i]);
    }
    for (int r = 0; r < THREAD_ROUNDS; r++) {
        MPI_Request req[PER_ROUND];
        for (int i = 0; i < PER_ROUND; i++) {
            const int root = (r + i + a->id) % size, seed = 100 * a->id + 10 * r + i;
            if (rank == root) {
                fill(b[i], sizes[i], seed);
            } else {
                memset(b[i], 0, sizes[i]);
            }
            const int irc = MPI_Ibcast(b[i], (int) sizes[i], MPI_BYTE, root, a->comm, &req[i]);
            if (MPI_SUCCESS != irc) {
                thread_error(rank, a->id, r, i, "MPI_Ibcast", irc);
                a->failures++;
                req[i] = MPI_REQUEST_NULL;
            }
        }
        for (int i = PER_ROUND - 1; i >= 0; i--) {
            int done = 0;
            while (!done) {
                const int trc = MPI_Test(&req[i], &done, MPI_STATUS_IGNORE);
                if (MPI_SUCCESS != trc) {
                    thread_error(rank, a->id, r, i, "MPI_Test", trc);
                    a->failures++;
                    break;
                }
            }
        }
        for (int i = 0; i < PER_ROUND; i++) {
            const int seed = 100 * a->id + 10 * r + i;
            a->checks++;
            for (size_t k = 0; k < sizes[i]; k++) {
                if (b[i][k] != pattern(k, seed)) {
                    fprintf(stderr, "bcast_setup: rank %d: thread %d round %d buffer %d: byte %zu "
                                    "of %zu wrong\n", rank, a->id, r, i, k, sizes[i]);
                    a->failures++;
                    break;
                }
            }
        }
    }
    for (int i = 0; i < PER_ROUND; i++) {
        free(b[i]);
    }
    return NULL;
}

/* Threads at once, each on its own new communicator (its first call an Ibcast). */
static void threads(void)
{
    thread_arg_t a[NTHREADS];
    pthread_t t[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        a[i] = (thread_arg_t){MPI_COMM_NULL, i, 0, 0};
        MPI_Comm_dup(MPI_COMM_WORLD, &a[i].comm);
    }
    for (int i = 0; i < NTHREADS; i++) {
        pthread_create(&t[i], NULL, thread_body, &a[i]);
    }
    for (int i = 0; i < NTHREADS; i++) {
        pthread_join(t[i], NULL);
        checks += a[i].checks;
        failures += a[i].failures;
        MPI_Comm_free(&a[i].comm);
    }
}

int main(int argc, char **argv)
{
    int provided, loops = 20;
    bool with_threads = false;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    for (int i = 1; i < argc; i++) {
        if (0 == strcmp(argv[i], "-l") && i + 1 < argc) {
            loops = atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "-t")) {
            with_threads = true;
        }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dup_loop(loops);
    local_start(1);
    local_start(1 << 20);
    overlap();
    if (with_threads && MPI_THREAD_MULTIPLE == provided) {
        threads();
    }
    long all[2] = {checks, failures}, sum[2];
    MPI_Reduce(all, sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("bcast_setup: np=%d provided=%s %ld checks, %ld failures\n", size,
               MPI_THREAD_MULTIPLE == provided ? "multiple" : "less than multiple", sum[0], sum[1]);
    }
    MPI_Finalize();
    return 0 == rank && sum[1] > 0 ? 1 : 0;
}
