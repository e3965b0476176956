/*
 * Persistent broadcast (MPI-4 MPI_Bcast_init / MPI_Start / MPI_Startall / MPI_Wait).
 *
 *   bcast_persist [-s STARTS]
 *
 * On world and on a reversed copy of it, for every root, for MPI_BYTE, MPI_INT, a
 * strided vector of doubles and a struct with holes, at 1 B - 1 MiB: one request
 * started STARTS times (fresh data before every start, checked after every wait),
 * three requests in flight together on one communicator (MPI_Startall, waited in
 * reverse order), two in flight on two communicators, and MPI_Request_free of an
 * inactive request that was never started and of one that ran.  Byte-exact checks,
 * holes included (they must keep the receiver's bytes).
 *
 * Prints "bcast_persist: N checks, M failures" and exits non-zero on a failure; exits 77
 * (skipped) where the MPI library has no MPI_Bcast_init (MPI < 4).
 */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if MPI_VERSION < 4 && !(defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (0 == rank) {
        printf("SKIP: this MPI (%d.%d) has no MPI_Bcast_init\n", MPI_VERSION, MPI_SUBVERSION);
    }
    MPI_Finalize();
    return 77;
}
#else

static long checks = 0, failures = 0;

static unsigned char pat(size_t i, unsigned seed)
{
    return (unsigned char) ((i * 131u + seed * 7919u + (i >> 8)) & 0xff);
}

/* One broadcast's buffer: 'span' bytes; the root fills what the type covers with seed's
 * pattern, every other rank holds ~pattern there and 0x5a in the holes. */
typedef struct {
    MPI_Datatype type;
    int count;
    size_t span;
    unsigned char *mask; /* 1 where the type has data */
    unsigned char *buf;
} pbuf_t;

static void pbuf_init(pbuf_t *b, MPI_Datatype type, int count)
{
    MPI_Aint lb, extent, tlb, textent;
    MPI_Type_get_extent(type, &lb, &extent);
    MPI_Type_get_true_extent(type, &tlb, &textent);
    b->type = type;
    b->count = count;
    b->span = count > 0 ? (size_t) (tlb + textent + (MPI_Aint) (count - 1) * extent) : 1;
    b->mask = calloc(b->span, 1);
    b->buf = malloc(b->span);
    /* the mask: unpack a stream of 1s */
    int tsize;
    MPI_Type_size(type, &tsize);
    size_t stream = (size_t) tsize * (size_t) count;
    unsigned char *ones = malloc(stream + 1);
    memset(ones, 1, stream + 1);
    int pos = 0;
    if (stream > 0) {
        MPI_Unpack(ones, (int) stream, &pos, b->mask, count, type, MPI_COMM_SELF);
    }
    free(ones);
}

static void pbuf_fill(pbuf_t *b, int is_root, unsigned seed)
{
    for (size_t i = 0; i < b->span; i++) {
        b->buf[i] = b->mask[i] ? (unsigned char) (is_root ? pat(i, seed) : ~pat(i, seed)) : 0x5a;
    }
}

static void pbuf_check(pbuf_t *b, int rc, const char *what, int root, unsigned seed)
{
    checks++;
    size_t bad = b->span;
    for (size_t i = 0; i < b->span && MPI_SUCCESS == rc; i++) {
        unsigned char want = b->mask[i] ? pat(i, seed) : 0x5a;
        if (b->buf[i] != want) {
            bad = i;
            break;
        }
    }
    if (MPI_SUCCESS != rc || bad < b->span) {
        failures++;
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        fprintf(stderr, "FAIL %s rank=%d root=%d rc=%d first_bad_byte=%zd of %zu\n", what, rank,
                root, rc, bad < b->span ? (ssize_t) bad : -1, b->span);
    }
}

static void pbuf_free(pbuf_t *b)
{
    free(b->mask);
    free(b->buf);
}

int main(int argc, char **argv)
{
    int starts = 5, opt;
    MPI_Init(&argc, &argv);
    while ((opt = getopt(argc, argv, "s:")) != -1) {
        if ('s' == opt) {
            starts = atoi(optarg);
        }
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    MPI_Comm_set_errhandler(rev, MPI_ERRORS_RETURN);

    MPI_Datatype vec, st, sres;
    MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    struct s {
        char c;
        double d;
        short h;
    };
    int bl[3] = {1, 1, 1};
    MPI_Aint disp[3] = {offsetof(struct s, c), offsetof(struct s, d), offsetof(struct s, h)};
    MPI_Datatype tys[3] = {MPI_CHAR, MPI_DOUBLE, MPI_SHORT};
    MPI_Type_create_struct(3, bl, disp, tys, &st);
    MPI_Type_create_resized(st, 0, sizeof(struct s), &sres);
    MPI_Type_commit(&sres);

    const struct {
        const char *name;
        MPI_Datatype type;
        int tsize;
    } types[4] = {{"byte", MPI_BYTE, 1}, {"int", MPI_INT, 4}, {"vector", vec, 48},
                  {"struct", sres, 11}};
    const size_t sizes[] = {1, 100, 4096, 65536, 1 << 20};
    const MPI_Comm comms[2] = {MPI_COMM_WORLD, rev};
    const char *cnames[2] = {"world", "reversed"};
    char what[160];

    /* 1. one request, many starts */
    for (int c = 0; c < 2; c++) {
        int crank;
        MPI_Comm_rank(comms[c], &crank);
        for (int t = 0; t < 4; t++) {
            for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
                int count = (int) (sizes[z] / (size_t) types[t].tsize);
                if (count < 1) {
                    count = 1;
                }
                for (int root = 0; root < size; root++) {
                    pbuf_t b;
                    pbuf_init(&b, types[t].type, count);
                    MPI_Request req;
                    int rc = MPI_Bcast_init(b.buf, count, types[t].type, root, comms[c],
                                            MPI_INFO_NULL, &req);
                    for (int s = 0; s < starts && MPI_SUCCESS == rc; s++) {
                        const unsigned seed = (unsigned) (1000 * s + 10 * root + t + 1);
                        pbuf_fill(&b, crank == root, seed);
                        rc = MPI_Start(&req);
                        if (MPI_SUCCESS == rc) {
                            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
                        }
                        snprintf(what, sizeof what, "starts comm=%s type=%s count=%d start=%d",
                                 cnames[c], types[t].name, count, s);
                        pbuf_check(&b, rc, what, root, seed);
                    }
                    if (MPI_SUCCESS == rc || MPI_REQUEST_NULL != req) {
                        MPI_Request_free(&req);
                    }
                    pbuf_free(&b);
                }
            }
        }
    }

    /* 2. three in flight on one communicator (Startall, waited in reverse), then two on
     * two communicators, repeated */
    for (int rep = 0; rep < starts; rep++) {
        pbuf_t b[3];
        MPI_Request req[3];
        const int counts[3] = {1000, 70000, 7};
        int rc = MPI_SUCCESS;
        for (int i = 0; i < 3; i++) {
            pbuf_init(&b[i], types[i + 1].type, counts[i]);
            if (MPI_SUCCESS == rc) {
                rc = MPI_Bcast_init(b[i].buf, counts[i], types[i + 1].type, i % size,
                                    MPI_COMM_WORLD, MPI_INFO_NULL, &req[i]);
            }
            pbuf_fill(&b[i], rank == i % size, (unsigned) (77 + rep * 3 + i));
        }
        if (MPI_SUCCESS == rc) {
            rc = MPI_Startall(3, req);
        }
        for (int i = 2; i >= 0; i--) {
            int wrc = MPI_SUCCESS == rc ? MPI_Wait(&req[i], MPI_STATUS_IGNORE) : rc;
            snprintf(what, sizeof what, "startall rep=%d req=%d", rep, i);
            pbuf_check(&b[i], wrc, what, i % size, (unsigned) (77 + rep * 3 + i));
        }
        for (int i = 0; i < 3; i++) {
            if (MPI_SUCCESS == rc) {
                MPI_Request_free(&req[i]);
            }
            pbuf_free(&b[i]);
        }

        pbuf_t w, r;
        MPI_Request q[2];
        int rrank;
        MPI_Comm_rank(rev, &rrank);
        pbuf_init(&w, MPI_INT, 20000);
        pbuf_init(&r, vec, 333);
        rc = MPI_Bcast_init(w.buf, 20000, MPI_INT, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &q[0]);
        if (MPI_SUCCESS == rc) {
            rc = MPI_Bcast_init(r.buf, 333, vec, 0, rev, MPI_INFO_NULL, &q[1]);
        }
        pbuf_fill(&w, rank == size - 1, (unsigned) (500 + rep));
        pbuf_fill(&r, rrank == 0, (unsigned) (600 + rep));
        if (MPI_SUCCESS == rc) {
            rc = MPI_Start(&q[0]);
        }
        if (MPI_SUCCESS == rc) {
            rc = MPI_Start(&q[1]);
        }
        if (MPI_SUCCESS == rc) {
            rc = MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        }
        pbuf_check(&w, rc, "two communicators: world", size - 1, (unsigned) (500 + rep));
        pbuf_check(&r, rc, "two communicators: reversed", 0, (unsigned) (600 + rep));
        if (MPI_SUCCESS == rc) {
            MPI_Request_free(&q[0]);
            MPI_Request_free(&q[1]);
        }
        pbuf_free(&w);
        pbuf_free(&r);
    }

    /* 3. freed without a start; MPI_Wait on an inactive request returns at once */
    {
        int x = 0;
        MPI_Request req;
        int rc = MPI_Bcast_init(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        if (MPI_SUCCESS == rc) {
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        checks++;
        if (MPI_SUCCESS != rc || MPI_REQUEST_NULL == req) {
            failures++;
            fprintf(stderr, "FAIL inactive wait rank=%d rc=%d\n", rank, rc);
        }
        if (MPI_REQUEST_NULL != req) {
            MPI_Request_free(&req);
        }
        checks++;
        if (MPI_REQUEST_NULL != req) {
            failures++;
            fprintf(stderr, "FAIL free of an inactive request left it set, rank=%d\n", rank);
        }
    }

    long tot[2] = {checks, failures}, sum[2];
    MPI_Allreduce(tot, sum, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("bcast_persist: np=%d %ld checks, %ld failures\n", size, sum[0], sum[1]);
    }
    MPI_Type_free(&vec);
    MPI_Type_free(&st);
    MPI_Type_free(&sres);
    MPI_Comm_free(&rev);
    MPI_Finalize();
    return 0 == sum[1] ? 0 : 1;
}
#endif
