/*
 * MPI_Ibcast beside MPI_Comm_idup (docs/architecture.md, "Per-call tags"): five rounds of
 * a nonblocking collective and an idup of the same communicator outstanding together,
 * completed by one MPI_Waitall; the collectives in turn Ibarrier, Ibcast, Iallreduce,
 * Iscan, Ibcast, on MPI_COMM_WORLD, its duplicates and an MPI_Comm_create_group
 * communicator of the even ranks.  Every Ibcast's value and an Allreduce on every new
 * communicator are checked.  Until our tags left the communicator's nonblocking counter,
 * which the idups draw from inside the progress engine, this hung (3 ranks, forced
 * kbinomial; MPICH's comm_idup_nb).  Then five idups of an intercommunicator at once
 * (inter_stage; `-I` leaves it out: Open MPI 5.0's own agreement on an intercommunicator
 * duplicate's context id hangs there whatever broadcast serves it, E-IDUP-3; `-O` runs it
 * alone: Open MPI 4.1's agreement there hangs now and then too, E-IDUP-4).  Exit 0 and
 * "0 failures" when every check held.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 5

static int stage(MPI_Comm c, int kind)
{
    int rank, size, failures = 0, in[ROUNDS], out[ROUNDS];
    MPI_Comm nc[ROUNDS];
    MPI_Request r[2 * ROUNDS];
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    for (int i = 0; i < ROUNDS; i++) {
        in[i] = 0 == rank ? 815 + i : -1;
        out[i] = -1;
        switch (kind) {
        case 0: MPI_Ibarrier(c, &r[i]); break;
        case 1: MPI_Ibcast(&in[i], 1, MPI_INT, 0, c, &r[i]); break;
        case 2: in[i] = 1; MPI_Iallreduce(&in[i], &out[i], 1, MPI_INT, MPI_SUM, c, &r[i]); break;
        default: MPI_Iscan(&rank, &out[i], 1, MPI_INT, MPI_SUM, c, &r[i]); break;
        }
        MPI_Comm_idup(c, &nc[i], &r[ROUNDS + i]);
    }
    MPI_Waitall(2 * ROUNDS, r, MPI_STATUSES_IGNORE);
    for (int i = 0; i < ROUNDS; i++) {
        failures += 1 == kind && in[i] != 815 + i;
        failures += 2 == kind && out[i] != size;
        failures += 3 == kind && out[i] != rank * (rank + 1) / 2;
        int x = rank, sum = -1;
        MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, nc[i]);
        failures += sum != size * (size - 1) / 2;
        MPI_Comm_free(&nc[i]);
    }
    return failures;
}

/* Five MPI_Comm_idup of an intercommunicator outstanding together (after an Ibarrier each
 * when `barrier`): Open MPI 4.1 agrees on each new context id with steps on the local
 * communicators (ours) that it takes in the order their broadcasts complete, so an
 * MPI_Ibcast that started or completed out of call order hung (E-IDUP-2; MPICH's
 * comm_idup_nb).  Every duplicate is checked with an Allreduce over the remote group. */
static int inter_stage(MPI_Comm inter, int barrier, int remote_size)
{
    int failures = 0;
    MPI_Comm nc[ROUNDS];
    MPI_Request r[2 * ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
        r[i] = MPI_REQUEST_NULL;
        if (barrier) {
            MPI_Ibarrier(inter, &r[i]);
        }
        MPI_Comm_idup(inter, &nc[i], &r[ROUNDS + i]);
    }
    MPI_Waitall(2 * ROUNDS, r, MPI_STATUSES_IGNORE);
    for (int i = 0; i < ROUNDS; i++) {
        int one = 1, sum = -1;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, nc[i]);
        failures += sum != remote_size;
        MPI_Comm_free(&nc[i]);
    }
    return failures;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const int inter_too = !(argc > 1 && 0 == strcmp(argv[1], "-I"));
    const int intra_too = !(argc > 1 && 0 == strcmp(argv[1], "-O"));
    int wrank, wsize, failures = 0, checks = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    const int kinds[] = {0, 1, 2, 3, 1};
    for (int k = 0; k < 6 && intra_too; k++) {
        MPI_Comm c = MPI_COMM_NULL;
        if (0 == k) {
            c = MPI_COMM_WORLD;
        } else if (k % 2) {
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
        } else {
            MPI_Group wg, eg;
            int range[1][3] = {{0, wsize - 1, 2}};
            MPI_Comm_group(MPI_COMM_WORLD, &wg);
            MPI_Group_range_incl(wg, 1, range, &eg);
            if (0 == wrank % 2) {
                MPI_Comm_create_group(MPI_COMM_WORLD, eg, 7, &c);
            }
            MPI_Group_free(&wg);
            MPI_Group_free(&eg);
        }
        if (MPI_COMM_NULL == c) {
            continue;
        }
        for (int s = 0; s < 5; s++) {
            failures += stage(c, kinds[s]);
            checks += ROUNDS;
        }
        if (MPI_COMM_WORLD != c) {
            MPI_Comm_free(&c);
        }
    }
    if (wsize >= 2 && inter_too) {
        const int left = wrank < (wsize + 1) / 2;
        MPI_Comm local, inter;
        MPI_Comm_split(MPI_COMM_WORLD, left, wrank, &local);
        MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, left ? (wsize + 1) / 2 : 0, 11, &inter);
        int remote = 0;
        MPI_Comm_remote_size(inter, &remote);
        for (int it = 0; it < 3; it++) {
            for (int barrier = 0; barrier < 2; barrier++) {
                failures += inter_stage(inter, barrier, remote);
                checks += ROUNDS;
            }
        }
        MPI_Comm_free(&inter);
        MPI_Comm_free(&local);
    }
    /* A communicator freed after its only call, an MPI_Ibcast, is released: the handle
     * of the next duplicate does not grow (a request of the first call's setup that
     * completed and was never freed held it: its context id stayed taken, and the idups
     * above then retried their id agreement, where Open MPI 4.1 may hang). */
    int first = -1, last = -1;
    for (int it = 0; it < 20 && intra_too; it++) {
        MPI_Comm c;
        MPI_Request r;
        int x = 0 == wrank ? 42 : -1;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Ibcast(&x, 1, MPI_INT, 0, c, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        failures += 42 != x;
        last = (int) MPI_Comm_c2f(c);
        first = first < 0 ? last : first;
        MPI_Comm_free(&c);
        MPI_Barrier(MPI_COMM_WORLD); /* (every rank's first call made: its setup ends) */
        checks++;
    }
    if (last > first + 1) {
        fprintf(stderr, "ibcast_idup: rank %d: communicators not released (handle %d, then %d)\n",
                wrank, first, last);
        failures++;
    }
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == wrank) {
        printf("ibcast_idup: np=%d %d checks%s, %d failures\n", wsize, checks,
               !inter_too ? " (no intercommunicator stage)"
               : !intra_too ? " (the intercommunicator stage only)" : "", all);
    }
    MPI_Finalize();
    return 0 == all ? 0 : 1;
}
