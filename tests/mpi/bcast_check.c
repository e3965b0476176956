/*
 * bcast_check: MPI_Bcast correctness matrix in one MPI program.
 *
 * For every communicator (world, reversed, odd/even split, a dup used interleaved
 * with world), every root, counts {0, 1, a prime, a large count spanning many
 * segments} and a set of datatype pairs (predefined, non-contiguous, non-zero true
 * lower bound, zero-size, different datatypes with the same signature on root and
 * leaves, and elements larger than a small block: long double complex, 32 bytes, in
 * indexed, vector, padded struct and resized layouts), the root's buffer is filled
 * from a packed reference stream and every rank's buffer, gaps included, is compared
 * with that stream unpacked into its own layout.
 * Usage: bcast_check [-l large_bytes] [-m max_bytes] [-c [-t]] [-n [-k K]] [-x | -X] [-R N]
 *   -m  no case moves more than about max_bytes (rows that cut messages into 1-byte
 *       segments: every case's count at most max_bytes of its type, whole steps)
 *   -n  MPI_Ibcast instead, completed by MPI_Wait or an MPI_Test loop (alternating)
 *   -k  with -n: up to K broadcasts outstanding at once (consecutive cases of a
 *       communicator, different roots, types and sizes), completed out of call order:
 *       batches alternately in reverse order (MPI_Wait on the newest first) and by an
 *       MPI_Testany loop; the buffers of every case checked after its completion
 *   -x  also different datatypes of one signature whose elements are larger than 16
 *       bytes (long double complex numbers contiguous or resized on the root, an indexed
 *       block of them on the leaves): Open MPI 4.1's own point-to-point path aborts on
 *       them ("buffer overflow detected" in opal_generic_simple_unpack, even for one
 *       MPI_Send / MPI_Recv pair: the PML cuts the sender's bytes anywhere, the
 *       receiver's convertor completes a cut element in 16-byte buffers), so its bcast
 *       does too: only for rows where our components serve every call.
 *   -X  -x, and only those types
 *   -R  every (type, count) from N roots instead of from every root: the roots rotate
 *       from one (type, count) to the next, so every root still broadcasts, each with a
 *       share of the cases (N >= the communicator's size: every root, the default);
 *       for the rows at many ranks, whose cases grow with the number of roots.
 *   -c  run on periodic Cartesian communicators instead (MPI_Dims_create(np, 2), and
 *       a 1-D ring), where coll/pathmc's torus algorithms apply.
 *   -t  with -c: a second 2-D torus instead of the ring (algorithms for 2-D tori only:
 *       coll/pathmc's edst).
 * Prints "bcast_check: <cases> cases, <failures> failures" and exits non-zero on failure.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cut_types.h"

#define SENTINEL 0xA5

typedef struct {
    const char *name;
    MPI_Datatype root_type, leaf_type;
    int root_per, leaf_per; /* signature units per datatype instance (0: count = units) */
    int unit_bytes;         /* bytes of a signature unit */
    int step;               /* counts in units: 0, step, step * mid_steps (prime), large */
    int mid_steps;
    int only_x;             /* with -x only */
} type_case_t;

static long failures = 0, cases = 0, lib_defects = 0;
static long max_bytes = 0; /* -m: 0 = no cap */

/* count units of tc, capped by -m to whole steps (at least one) */
static int capped(const type_case_t *tc, int units)
{
    if (max_bytes <= 0 || (long) units * tc->unit_bytes <= max_bytes) {
        return units;
    }
    const int steps = (int) (max_bytes / tc->unit_bytes) / tc->step;
    return (steps > 0 ? steps : 1) * tc->step;
}
static int nonblocking = 0; /* -n: MPI_Ibcast completed by MPI_Wait (even cases) or MPI_Test */
static int outstanding = 1; /* -k */
static int with_x = 0;      /* -x */
static int only_big = 0;    /* -X */
static int roots_per = 0;   /* -R: 0 = every root */

static unsigned char pattern(size_t i, unsigned seed)
{
    uint32_t x = (uint32_t) i * 2654435761u ^ (seed * 40503u + 17u);
    x ^= x >> 13;
    return (unsigned char) (x * 0x5bd1e995u >> 24);
}

/* Buffer big enough for `count` instances of `type` (true extent + margins). */
static size_t span_bytes(MPI_Datatype type, int count, MPI_Aint *offset)
{
    MPI_Aint lb, extent, tlb, textent;
    MPI_Type_get_extent(type, &lb, &extent);
    MPI_Type_get_true_extent(type, &tlb, &textent);
    MPI_Aint lo = tlb < 0 ? tlb : 0;
    MPI_Aint hi = (count > 0) ? tlb + textent + (MPI_Aint) (count - 1) * extent : 0;
    if (hi < 0) {
        hi = 0;
    }
    *offset = -lo + 64;
    return (size_t) (hi - lo) + 128;
}

/* A case between its call and its check. */
typedef struct {
    MPI_Comm comm;
    const char *comm_name;
    int root, units, count, rc;
    const type_case_t *tc;
    MPI_Datatype type;
    unsigned seed;
    size_t stream_bytes, span;
    MPI_Aint off;
    unsigned char *stream, *buf, *expect, *init;
    MPI_Request req;
} pending_t;

static pending_t pend[64];
static int npend = 0, nbatches = 0;
static void case_check(pending_t *p);

/* -k: completes every outstanding case, out of call order, and checks each. */
static void flush_cases(void)
{
    if (0 == npend) {
        return;
    }
    if (0 == nbatches++ % 2) {
        for (int i = npend - 1; i >= 0; i--) {
            if (MPI_SUCCESS == pend[i].rc) {
                pend[i].rc = MPI_Wait(&pend[i].req, MPI_STATUS_IGNORE);
            }
        }
    } else {
        MPI_Request reqs[64];
        for (int i = 0; i < npend; i++) {
            reqs[i] = MPI_SUCCESS == pend[i].rc ? pend[i].req : MPI_REQUEST_NULL;
        }
        for (;;) {
            int idx = MPI_UNDEFINED, flag = 0;
            const int rc = MPI_Testany(npend, reqs, &idx, &flag, MPI_STATUS_IGNORE);
            if (MPI_SUCCESS != rc) { /* (the failed request's case fails; the rest by MPI_Wait) */
                if (MPI_UNDEFINED != idx) {
                    pend[idx].rc = rc;
                    reqs[idx] = MPI_REQUEST_NULL;
                    continue;
                }
                break;
            }
            if (flag && MPI_UNDEFINED == idx) {
                break; /* all complete */
            }
        }
        for (int i = 0; i < npend; i++) {
            if (MPI_REQUEST_NULL != reqs[i] && MPI_SUCCESS == pend[i].rc) {
                pend[i].rc = MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
            }
        }
    }
    for (int i = 0; i < npend; i++) {
        case_check(&pend[i]);
    }
    npend = 0;
}

static void run_case(MPI_Comm comm, const char *comm_name, int root, const type_case_t *tc,
                     int units, unsigned seed)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Datatype type = (rank == root) ? tc->root_type : tc->leaf_type;
    int per = (rank == root) ? tc->root_per : tc->leaf_per;
    int count = (per > 0) ? units / per : units;
    int tsize;
    MPI_Type_size(type, &tsize);
    size_t stream_bytes = (size_t) tsize * (size_t) count;

    unsigned char *stream = malloc(stream_bytes + 1);
    for (size_t i = 0; i < stream_bytes; i++) {
        stream[i] = pattern(i, seed);
    }
    MPI_Aint off;
    size_t span = span_bytes(type, count, &off);
    unsigned char *buf = malloc(span), *expect = malloc(span);
    memset(expect, SENTINEL, span);
    if (count > 0 && stream_bytes > 0) {
        cut_unpack(stream, stream_bytes, expect + off, count, type);
    }
    if (rank == root) {
        memcpy(buf, expect, span);
    } else {
        memset(buf, SENTINEL, span);
        /* Where data lands the receiver must overwrite: poison it. */
        for (size_t i = 0; i < span; i++) {
            if (expect[i] != SENTINEL) {
                buf[i] = (unsigned char) ~expect[i];
            }
        }
    }
    unsigned char *init = malloc(span);
    memcpy(init, buf, span);
    int rc;
    if (nonblocking && outstanding > 1) {
        pending_t *p = &pend[npend++];
        *p = (pending_t){comm, comm_name, root, units, count, MPI_SUCCESS, tc, type, seed,
                         stream_bytes, span, off, stream, buf, expect, init, MPI_REQUEST_NULL};
        p->rc = MPI_Ibcast(buf + off, count, type, root, comm, &p->req);
        if (npend == outstanding) {
            flush_cases();
        }
        return;
    }
    if (nonblocking) {
        MPI_Request req;
        rc = MPI_Ibcast(buf + off, count, type, root, comm, &req);
        if (MPI_SUCCESS == rc && (seed & 1)) {
            int done = 0;
            while (MPI_SUCCESS == rc && !done) {
                rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE);
            }
        } else if (MPI_SUCCESS == rc) {
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
    } else {
        rc = MPI_Bcast(buf + off, count, type, root, comm);
    }
    pending_t p = {comm, comm_name, root, units, count, rc, tc, type, seed,
                   stream_bytes, span, off, stream, buf, expect, init, MPI_REQUEST_NULL};
    case_check(&p);
}

/* The case's buffers against the reference, after its broadcast completed; frees them. */
static void case_check(pending_t *p)
{
    int rank, size;
    MPI_Comm_rank(p->comm, &rank);
    MPI_Comm_size(p->comm, &size);
    const int rc = p->rc, root = p->root, units = p->units, count = p->count;
    const type_case_t *tc = p->tc;
    MPI_Datatype type = p->type;
    const size_t stream_bytes = p->stream_bytes, span = p->span;
    const MPI_Aint off = p->off;
    unsigned char *stream = p->stream, *buf = p->buf, *expect = p->expect, *init = p->init;
    const char *comm_name = p->comm_name;
    /* data bytes as the root sent them, holes as they were, padding of any value */
    unsigned char *cls = cut_byte_classes(type, count, span, off, stream_bytes);
    for (size_t i = 0; i < span; i++) {
        if (0 == cls[i]) {
            expect[i] = init[i];
        }
    }
    int bad = (rc != MPI_SUCCESS) || cut_first_diff(buf, expect, cls, span) >= 0;
    cases++;
    /* A case our broadcast fails is checked against the MPI library's own datatype engine
     * in one call (the reference above is made in small calls: cut_unpack), in this
     * process: the root's stream unpacked by one MPI_Unpack into this rank's buffer as it
     * was before the call, and (a leaf) the same after the library's own round trip at the
     * root (MPI_Unpack into the root's datatype, MPI_Pack out of it).  Where either gives
     * the very same bytes, the defect is the library's (Open MPI 5.0.7 gets a resized long
     * double complex type wrong in one large call: evidence E-OMPI5-1), not the broadcast's.
     * No point-to-point transfer of these types is needed (5.0.7's own aborts on some). */
    if (bad && MPI_SUCCESS == rc && count > 0 && stream_bytes > 0) {
        unsigned char *lib = malloc(span);
        for (int way = 0; way < 2 && bad; way++) {
            const unsigned char *src = stream;
            unsigned char *trip = NULL;
            if (1 == way) {
                if (rank == root) {
                    break;
                }
                const int rcount = tc->root_per > 0 ? units / tc->root_per : units;
                MPI_Aint roff;
                const size_t rspan = span_bytes(tc->root_type, rcount, &roff);
                unsigned char *rbuf = malloc(rspan);
                trip = malloc(stream_bytes + 1);
                memset(rbuf, SENTINEL, rspan);
                int pos = 0;
                MPI_Unpack(stream, (int) stream_bytes, &pos, rbuf + roff, rcount, tc->root_type,
                           MPI_COMM_SELF);
                pos = 0;
                MPI_Pack(rbuf + roff, rcount, tc->root_type, trip, (int) stream_bytes + 1, &pos,
                         MPI_COMM_SELF);
                free(rbuf);
                src = trip;
            }
            memcpy(lib, init, span);
            int pos = 0;
            MPI_Unpack(src, (int) stream_bytes, &pos, lib + off, count, type, MPI_COMM_SELF);
            if (cut_first_diff(lib, buf, cls, span) < 0) {
                bad = 0;
                lib_defects++;
            }
            free(trip);
        }
        free(lib);
    }
    if (bad) {
        failures++;
        const ssize_t d = cut_first_diff(buf, expect, cls, span);
        const size_t first = d < 0 ? span : (size_t) d;
        fprintf(stderr,
                "FAIL comm=%s size=%d rank=%d root=%d type=%s units=%d rc=%d first_bad_byte=%zd "
                "of %zu\n",
                comm_name, size, rank, root, tc->name, units, rc,
                first < span ? (ssize_t) first - (ssize_t) off : -1, span);
    }
    free(stream);
    free(init);
    free(cls);
    free(buf);
    free(expect);
}

int main(int argc, char **argv)
{
    int large_bytes = 1 << 18, opt, cart = 0, only2d = 0;
    MPI_Init(&argc, &argv);
    while ((opt = getopt(argc, argv, "l:m:cntxXk:R:")) != -1) {
        if (opt == 'l') {
            large_bytes = atoi(optarg);
        } else if (opt == 'm') {
            max_bytes = atol(optarg);
        } else if (opt == 'c') {
            cart = 1;
        } else if (opt == 't') {
            only2d = 1;
        } else if (opt == 'n') {
            nonblocking = 1;
        } else if (opt == 'k') {
            outstanding = atoi(optarg);
            outstanding = outstanding < 1 ? 1 : outstanding > 64 ? 64 : outstanding;
        } else if (opt == 'x') {
            with_x = 1;
        } else if (opt == 'X') {
            with_x = only_big = 1;
        } else if (opt == 'R') {
            roots_per = atoi(optarg);
        }
    }
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);

    /* Datatypes. Signature units: ints unless stated. */
    MPI_Datatype vec_int, contig_int4, struct_t, struct_res, hidx_int, zero_t, vec_dbl;
    MPI_Type_vector(4, 1, 2, MPI_INT, &vec_int); /* 4 ints, stride 2: non-contiguous */
    MPI_Type_commit(&vec_int);
    MPI_Type_contiguous(4, MPI_INT, &contig_int4);
    MPI_Type_commit(&contig_int4);
    {
        int bl[2] = {1, 1};
        MPI_Aint disp[2] = {0, 8};
        MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
        MPI_Type_create_struct(2, bl, disp, types, &struct_t); /* int, pad, double */
        MPI_Type_create_resized(struct_t, 0, 24, &struct_res);  /* and a tail gap */
        MPI_Type_commit(&struct_res);
    }
    {
        int bl[1] = {4};
        MPI_Aint disp[1] = {12};
        MPI_Type_create_hindexed(1, bl, disp, MPI_INT, &hidx_int); /* true_lb = 12 */
        MPI_Type_commit(&hidx_int);
    }
    MPI_Type_contiguous(0, MPI_INT, &zero_t);
    MPI_Type_commit(&zero_t);
    MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &vec_dbl);
    MPI_Type_commit(&vec_dbl);
    /* Elements larger than a block of a small segment (32-byte long double complex), in
     * layouts with holes: the convertor must never be left inside one of them. */
    MPI_Datatype cut[CUT_NTYPES];
    cut_types_create(cut);

    /* per = units of the signature per instance (both sides' counts are whole) */
    const type_case_t tcases[] = {
        {"byte", MPI_BYTE, MPI_BYTE, 0, 0, 1, 4, 1009},
        {"int", MPI_INT, MPI_INT, 1, 1, 4, 4, 1009},
        {"double", MPI_DOUBLE, MPI_DOUBLE, 1, 1, 8, 4, 1009},
        {"vector_int", vec_int, vec_int, 4, 4, 4, 4, 1009},
        {"struct_int_double", struct_res, struct_res, 1, 1, 12, 4, 1009},
        {"hindexed_true_lb", hidx_int, hidx_int, 4, 4, 4, 4, 1009},
        {"int_vs_vector", MPI_INT, vec_int, 1, 4, 4, 4, 1009},
        {"contig4_vs_int", contig_int4, MPI_INT, 4, 1, 4, 4, 1009},
        {"vector_vs_hindexed", vec_int, hidx_int, 4, 4, 4, 4, 1009},
        {"vector_double", vec_dbl, vec_dbl, 2, 2, 8, 4, 1009},
        {"zero_size", zero_t, zero_t, 1, 1, 4, 4, 1009},
        {"indexed_block_ldcomplex", cut[CUT_INDEXED_BLOCK], cut[CUT_INDEXED_BLOCK], 5, 5, 32, 5,
         101},
        {"ldcomplex_vs_indexed_block", MPI_C_LONG_DOUBLE_COMPLEX, cut[CUT_INDEXED_BLOCK], 1, 5,
         32, 5, 101, 1},
        {"vector_ldcomplex", cut[CUT_VECTOR], cut[CUT_VECTOR], 6, 6, 32, 6, 67},
        {"struct_char_ldcomplex_int", cut[CUT_STRUCT], cut[CUT_STRUCT], 1, 1, 37, 1, 433},
        {"resized_ldcomplex", cut[CUT_RESIZED], cut[CUT_RESIZED], 1, 1, 32, 1, 509},
        {"resized_vs_indexed_block", cut[CUT_RESIZED], cut[CUT_INDEXED_BLOCK], 1, 5, 32, 5, 101,
         1},
    };
    const int ntc = (int) (sizeof(tcases) / sizeof(tcases[0]));

    /* Communicators.  Seeds derive from the case, never from a running counter: the
     * odd/even halves run different numbers of cases. */
    MPI_Comm comms[4];
    const char *names[4] = {"world", "reversed", "oddeven", "dup"};
    if (cart) {
        int dims2[2] = {0, 0}, periods2[2] = {1, 1}, dims1[1] = {wsize}, periods1[1] = {1};
        MPI_Dims_create(wsize, 2, dims2);
        MPI_Cart_create(MPI_COMM_WORLD, 2, dims2, periods2, 0, &comms[0]);
        if (only2d) {
            MPI_Cart_create(MPI_COMM_WORLD, 2, dims2, periods2, 1, &comms[1]);
        } else {
            MPI_Cart_create(MPI_COMM_WORLD, 1, dims1, periods1, 0, &comms[1]);
        }
        MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &comms[2]);
        MPI_Comm_dup(comms[0], &comms[3]);
        names[0] = "cart2d";
        names[1] = only2d ? "cart2d_reordered" : "ring";
        names[3] = "cart2d_dup";
    } else {
        comms[0] = MPI_COMM_WORLD;
        MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &comms[1]);
        MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &comms[2]);
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[3]);
    }

    for (int c = 0; c < 3; c++) {
        int csize;
        MPI_Comm_size(comms[c], &csize);
        const int nroots = (roots_per > 0 && roots_per < csize) ? roots_per : csize;
        for (int r = 0; r < nroots; r++) {
            for (int t = 0; t < ntc; t++) {
                const type_case_t *tc = &tcases[t];
                if ((tc->only_x && !with_x) || (only_big && tc->unit_bytes <= 16)) {
                    continue;
                }
                int big = large_bytes / tc->unit_bytes;
                int counts[4] = {0, tc->step, tc->step * tc->mid_steps,
                                 (big / tc->step + 1) * tc->step};
                for (int u = 0; u < 4; u++) {
                    if (0 == tc->root_per && u == 1) {
                        counts[u] = 1;
                    }
                    /* -R: the N roots of case (t, u) start where the last case's ended */
                    const int root =
                        nroots == csize ? r : (int) (((long) (t * 4 + u) * nroots + r) % csize);
                    run_case(comms[c], names[c], root, &tcases[t], capped(tc, counts[u]),
                             (unsigned) (((c * 64 + root) * 32 + t) * 4 + u));
                }
            }
        }
        flush_cases();
    }
    /* Interleaved use of two communicators (world and its dup), alternating roots. */
    for (int i = 0; i < 2 * wsize; i++) {
        run_case(comms[i % 2 == 0 ? 0 : 3], names[i % 2 == 0 ? 0 : 3], (i / 2) % wsize, &tcases[1],
                 capped(&tcases[1], 4 * 1009), 1000000u + (unsigned) i);
    }
    flush_cases();

    long tot[3] = {cases, failures, lib_defects}, sum[3];
    MPI_Reduce(tot, sum, 3, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (wrank == 0) {
        if (sum[2] > 0) {
            printf("bcast_check: %ld rank-cases wrong in the same bytes with the library's own "
                   "MPI_Unpack too (the MPI library's datatype defect, not counted)\n",
                   sum[2]);
        }
        char kind[48];
        snprintf(kind, sizeof(kind), nonblocking && outstanding > 1 ? "MPI_Ibcast(%d outstanding)"
                                     : nonblocking ? "MPI_Ibcast" : "MPI_Bcast", outstanding);
        printf("bcast_check: np=%d %s %ld cases, %ld failures\n", wsize, kind, sum[0], sum[1]);
    }
    for (int c = cart ? 0 : 1; c < 4; c++) {
        MPI_Comm_free(&comms[c]);
    }
    MPI_Type_free(&vec_int);
    MPI_Type_free(&contig_int4);
    MPI_Type_free(&struct_t);
    MPI_Type_free(&struct_res);
    MPI_Type_free(&hidx_int);
    MPI_Type_free(&zero_t);
    MPI_Type_free(&vec_dbl);
    for (int i = 0; i < CUT_NTYPES; i++) {
        MPI_Type_free(&cut[i]);
    }
    long any = failures, all = 0;
    MPI_Allreduce(&any, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return all == 0 ? 0 : 1;
}
