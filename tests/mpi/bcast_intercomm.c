/*
 * bcast_intercomm: broadcasts on intercommunicators when the forced algorithm does not
 * apply to the groups' communicators (the matrix runs it with coll_kbinomial_algorithm
 * twolevel on one node).  Our components do not serve intercommunicators: Open MPI's
 * coll/inter does, over each group's local intracommunicator, where ours is; and Open
 * MPI's MPI_Intercomm_create broadcasts on the local communicator it is given.
 *   default  (coll_kbinomial_fallback silent or warn): the module below serves every
 *            declined call.  Intercommunicators between the even and the odd ranks and
 *            between rank 0 and the others: MPI_Intercomm_create succeeds; MPI_Bcast and
 *            MPI_Ibcast from every rank of either group (MPI_ROOT, MPI_PROC_NULL, the
 *            root's rank on the other side) bring the root's data to the other group and
 *            leave its own group's buffers alone; a broadcast on each local communicator
 *            delivers its data too.
 *   -e       (fallback error): MPI_Bcast on the even/odd communicator fails with
 *            MPI_ERR_UNSUPPORTED_OPERATION on every rank, and so does the broadcast Open
 *            MPI's MPI_Intercomm_create makes on it: that call then fails on every rank
 *            (Open MPI 4.1 returns MPI_ERR_INTERN for any failure inside it, whatever
 *            the class it got) and returns no communicator.
 * Prints "bcast_intercomm: <checks> checks, <failures> failures"; exits 1 on a failure.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define N 1000 /* ints per broadcast */

static int checks = 0, failures = 0, wrank = 0;

static void check(int ok, const char *what, int a, int b)
{
    checks++;
    if (!ok) {
        failures++;
        fprintf(stderr, "FAIL rank=%d %s (%d, %d)\n", wrank, what, a, b);
    }
}

static int class_of(int rc)
{
    int cls = MPI_SUCCESS;
    if (MPI_SUCCESS != rc) {
        MPI_Error_class(rc, &cls);
    }
    return cls;
}

static int value(int group, int root, int i)
{
    return (group * 64 + root) * 100000 + i;
}

/* Every rank of either group as the root, MPI_Bcast (nb = 0) or MPI_Ibcast (nb = 1). */
static void bcast_both_ways(MPI_Comm inter, int group, int nb)
{
    int lrank, lsize, rsize, buf[N];
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    for (int g = 0; g < 2; g++) {
        const int nroots = g == group ? lsize : rsize;
        for (int r = 0; r < nroots; r++) {
            int root;
            if (g == group) {
                root = lrank == r ? MPI_ROOT : MPI_PROC_NULL;
            } else {
                root = r;
            }
            for (int i = 0; i < N; i++) {
                buf[i] = MPI_ROOT == root ? value(g, r, i) : -1;
            }
            int rc;
            if (nb) {
                MPI_Request req;
                rc = MPI_Ibcast(buf, N, MPI_INT, root, inter, &req);
                if (MPI_SUCCESS == rc) {
                    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
                }
            } else {
                rc = MPI_Bcast(buf, N, MPI_INT, root, inter);
            }
            int ok = MPI_SUCCESS == rc;
            for (int i = 0; i < N && ok; i++) {
                ok = buf[i] == (g == group ? (MPI_ROOT == root ? value(g, r, i) : -1)
                                           : value(g, r, i));
            }
            check(ok, nb ? "MPI_Ibcast on the intercommunicator (group, root)"
                         : "MPI_Bcast on the intercommunicator (group, root)", g, r);
        }
    }
}

int main(int argc, char **argv)
{
    int expect_refusal = 0, opt, size;
    MPI_Init(&argc, &argv);
    while ((opt = getopt(argc, argv, "e")) != -1) {
        expect_refusal = opt == 'e';
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* split communicators inherit it, and MPI_Intercomm_create reports on its local one */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (size < 2 || (expect_refusal && size < 4)) { /* -e: groups where our module is */
        if (0 == wrank) {
            fprintf(stderr, "bcast_intercomm: needs at least %d ranks\n", expect_refusal ? 4 : 2);
        }
        MPI_Finalize();
        return 1;
    }

    for (int split = 0; split < (expect_refusal ? 1 : 2); split++) {
        /* split 0: even and odd ranks; split 1: rank 0 alone and the others */
        const int group = split == 0 ? wrank % 2 : wrank != 0;
        const int remote_leader = group == 0 ? 1 : 0; /* world rank of the other leader */
        MPI_Comm local, inter = MPI_COMM_NULL;
        MPI_Comm_split(MPI_COMM_WORLD, group, wrank, &local);
        int buf[N], lrank;
        MPI_Comm_rank(local, &lrank);
        for (int i = 0; i < N; i++) {
            buf[i] = 0 == lrank ? value(group, 0, i) : -1;
        }
        const int brc = MPI_Bcast(buf, N, MPI_INT, 0, local);
        const int rc = MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, 17, &inter);
        if (expect_refusal) {
            check(MPI_ERR_UNSUPPORTED_OPERATION == class_of(brc),
                  "MPI_Bcast on the local communicator: MPI_ERR_UNSUPPORTED_OPERATION (class, "
                  "split)", class_of(brc), split);
            check(MPI_SUCCESS != rc && MPI_COMM_NULL == inter,
                  "MPI_Intercomm_create fails (class, split)", class_of(rc), split);
            if (MPI_COMM_NULL != inter) {
                MPI_Comm_free(&inter);
            }
        } else {
            int ok = MPI_SUCCESS == brc;
            for (int i = 0; i < N && ok; i++) {
                ok = buf[i] == value(group, 0, i);
            }
            check(ok, "MPI_Bcast on the local communicator (class, split)", class_of(brc), split);
            check(MPI_SUCCESS == rc, "MPI_Intercomm_create (class, split)", class_of(rc), split);
            if (MPI_SUCCESS == rc) {
                MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
                bcast_both_ways(inter, group, 0);
                bcast_both_ways(inter, group, 1);
                MPI_Comm_free(&inter);
            }
        }
        MPI_Comm_free(&local);
    }

    int tot[2] = {checks, failures}, sum[2];
    MPI_Reduce(tot, sum, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 == wrank) {
        printf("bcast_intercomm: np=%d %s %d checks, %d failures\n", size,
               expect_refusal ? "refused" : "served", sum[0], sum[1]);
    }
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0 == all ? 0 : 1;
}
