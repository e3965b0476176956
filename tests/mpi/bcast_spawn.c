/*
 * bcast_spawn: broadcasts on communicators that join two jobs (MPI_Comm_spawn).
 *
 * The parents (the job mpirun started) spawn -c C children (default 2) of this program;
 * then, with MPI_Bcast and MPI_Ibcast, every root, sizes 1 B - 2 MiB:
 *   children   the children's MPI_COMM_WORLD
 *   merged     MPI_Intercomm_merge, the parents first
 *   reversed   MPI_Intercomm_merge, the children first
 *   inter      the intercommunicator itself (MPI_ROOT / MPI_PROC_NULL), a root of each
 *              side in turn
 * Every receiver's buffer is compared with the root's bytes, every call must return
 * MPI_SUCCESS.  The two jobs' ranks may differ in what is local to a process (a node
 * that ran the parents with a core each runs more ranks than cores once the children
 * are there: Open MPI then yields when idle in the children only), and a component must
 * still plan alike on every rank of a merged communicator (the matrix's row checks that
 * coll/kbinomial served it).
 * Prints "bcast_spawn: parents=N children=C K checks, F failures" (merged rank 0) and
 * exits non-zero on a failure.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long checks = 0, failures = 0;

static unsigned char val(size_t i, int root, int s)
{
    return (unsigned char) ((i * 7u + (unsigned) root * 29u + (unsigned) s * 13u + 3u) & 0xff);
}

static int bcast(void *buf, int count, int root, MPI_Comm comm, int nb)
{
    if (!nb) {
        return MPI_Bcast(buf, count, MPI_BYTE, root, comm);
    }
    MPI_Request req;
    const int rc = MPI_Ibcast(buf, count, MPI_BYTE, root, comm, &req);
    return MPI_SUCCESS != rc ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static unsigned char *buffer(size_t bytes)
{
    unsigned char *b = malloc(bytes);
    if (NULL == b) {
        fprintf(stderr, "bcast_spawn: no memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return b;
}

static const size_t sizes[] = {1, 8, 1000, 65536, 300000, 2u << 20};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* Every root, every size, blocking and not, on an intracommunicator. */
static void intra(MPI_Comm comm, const char *what)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    for (size_t s = 0; s < NSIZES; s++) {
        unsigned char *b = buffer(sizes[s]);
        for (int root = 0; root < n; root++) {
            for (int nb = 0; nb < 2; nb++) {
                for (size_t i = 0; i < sizes[s]; i++) {
                    b[i] = rank == root ? val(i, root, (int) s) : 0xEE;
                }
                const int rc = bcast(b, (int) sizes[s], root, comm, nb);
                size_t bad = 0;
                for (size_t i = 0; i < sizes[s]; i++) {
                    bad += b[i] != val(i, root, (int) s);
                }
                checks++;
                if (MPI_SUCCESS != rc || bad) {
                    failures++;
                    printf("bcast_spawn: %s rank %d/%d root %d %zu B %s: rc %d, %zu bytes wrong\n",
                           what, rank, n, root, sizes[s], nb ? "MPI_Ibcast" : "MPI_Bcast", rc, bad);
                }
            }
        }
        free(b);
    }
}

/* The intercommunicator: rank `r` of side `from` (0 the parents, 1 the children) is the
 * root, for every r of that side and both sides in turn. */
static void inter(MPI_Comm ic, int side)
{
    int rank, local, remote;
    MPI_Comm_rank(ic, &rank);
    MPI_Comm_size(ic, &local);
    MPI_Comm_remote_size(ic, &remote);
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    for (size_t s = 0; s < NSIZES; s++) {
        unsigned char *b = buffer(sizes[s]);
        for (int from = 0; from < 2; from++) {
            const int nroots = from == side ? local : remote;
            for (int r = 0; r < nroots; r++) {
                for (int nb = 0; nb < 2; nb++) {
                    int root;
                    if (from == side) {
                        root = rank == r ? MPI_ROOT : MPI_PROC_NULL;
                    } else {
                        root = r;
                    }
                    for (size_t i = 0; i < sizes[s]; i++) {
                        b[i] = MPI_ROOT == root ? val(i, r, (int) s + from) : 0xEE;
                    }
                    const int rc = bcast(b, (int) sizes[s], root, ic, nb);
                    size_t bad = 0;
                    if (from != side) { /* a receiver: the root's bytes */
                        for (size_t i = 0; i < sizes[s]; i++) {
                            bad += b[i] != val(i, r, (int) s + from);
                        }
                    } else if (MPI_ROOT != root) { /* the root's group: untouched */
                        for (size_t i = 0; i < sizes[s]; i++) {
                            bad += b[i] != 0xEE;
                        }
                    }
                    checks++;
                    if (MPI_SUCCESS != rc || bad) {
                        failures++;
                        printf("bcast_spawn: inter side %d rank %d root %d of side %d %zu B %s: "
                               "rc %d, %zu bytes wrong\n", side, rank, r, from, sizes[s],
                               nb ? "MPI_Ibcast" : "MPI_Bcast", rc, bad);
                    }
                }
            }
        }
        free(b);
    }
}

int main(int argc, char **argv)
{
    int opt, children = 2;
    MPI_Comm parent, ic, merged, reversed;
    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    while ((opt = getopt(argc, argv, "c:")) != -1) {
        if (opt == 'c') {
            children = atoi(optarg);
        }
    }
    const int side = MPI_COMM_NULL == parent ? 0 : 1;
    if (0 == side) {
        char *args[] = {NULL};
        int *errs = malloc(sizeof(int) * (size_t) (children > 0 ? children : 1));
        const int rc = MPI_Comm_spawn(argv[0], args, children, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                                      &ic, errs);
        if (MPI_SUCCESS != rc) {
            printf("bcast_spawn: MPI_Comm_spawn of %d failed (%d)\n", children, rc);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        free(errs);
    } else {
        ic = parent;
        intra(MPI_COMM_WORLD, "children");
    }
    MPI_Intercomm_merge(ic, side, &merged);
    intra(merged, "merged");
    MPI_Intercomm_merge(ic, !side, &reversed);
    intra(reversed, "reversed");
    inter(ic, side);
    long sum[2] = {checks, failures}, tot[2];
    MPI_Allreduce(sum, tot, 2, MPI_LONG, MPI_SUM, merged);
    int mrank, parents;
    MPI_Comm_rank(merged, &mrank);
    if (0 == side) {
        MPI_Comm_size(MPI_COMM_WORLD, &parents);
    } else {
        MPI_Comm_remote_size(ic, &parents);
    }
    if (0 == mrank) {
        printf("bcast_spawn: parents=%d children=%d %ld checks, %ld failures\n", parents,
               children, tot[0], tot[1]);
    }
    MPI_Comm_free(&reversed);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&ic);
    MPI_Finalize();
    return tot[1] ? 1 : 0;
}
