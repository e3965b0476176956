/*
 * The shared-segment broadcast (mcast_shm.h), with one thread per rank on one region:
 *  - layout: region size, format, attach refuses a region formatted for another n or
 *    not formatted at all;
 *  - every rank receives exactly the root's bytes, for n = 2..7, rings of 2, 3 and 8
 *    slots, chunk sizes that do not divide the messages, sizes 1 .. several rings, every
 *    root in turn, calls back to back (the ring runs on across calls);
 *  - a receiver that expects another size gets MCAST_SHM_MISMATCH, the others their
 *    data, and the next call is right on every rank (the ring stayed in step), 0 bytes
 *    included (a 0-byte receiver of a larger root's call, a larger receiver of a 0-byte
 *    root's call, every rank at 0 bytes: one empty chunk goes round); a root
 *    whose pack fails makes every receiver report MCAST_SHM_ROOT_FAILED, same;
 *  - warming a view (mcast_shm_warm) changes no byte; calls run right with warming
 *    between them and with views that take no lock (mcast_shm_one_thread);
 *  - a streaming root (a two-level plan's node leader: io.avail grows as the network
 *    brings the message) packs nothing beyond what is there, and every rank gets its data;
 *  - the cost model's closed form.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbinomial.h"
#include "mcast_shm.h"

static unsigned char pattern(int call, size_t i)
{
    return (unsigned char) ((size_t) call * 131u + i * 7u + (i >> 9));
}

typedef struct {
    unsigned char *buf;
    int fail_pack; /* root: pack fails from this offset on (SIZE_MAX: never) */
    size_t fail_at;
    size_t packed, unpacked;
    int slow; /* a receiver that dawdles before each copy */
    size_t step;   /* streaming root: avail grows by step bytes per idle call (0: all there) */
    size_t avail, total;
    int beyond;    /* the root packed bytes beyond avail */
    long waits;    /* idle calls of a streaming root */
} io_ctx_t;

/* Packs a few bytes short of `max` now and then, as a convertor does at an element
 * boundary. */
static int io_pack(void *ctx, size_t off, size_t max, void *dst, size_t *packed)
{
    io_ctx_t *c = ctx;
    if (c->fail_pack && off + max > c->fail_at) {
        return -1;
    }
    if (c->step != 0 && off + max > c->avail) {
        c->beyond = 1;
    }
    const size_t len = max > 8 ? max - (off / 7) % 5 : max;
    memcpy(dst, c->buf + off, len);
    c->packed += len;
    *packed = len;
    return 0;
}

static int io_unpack(void *ctx, size_t off, size_t len, const void *src)
{
    io_ctx_t *c = ctx;
    if (c->slow) {
        usleep(200);
    }
    memcpy(c->buf + off, src, len);
    c->unpacked += len;
    return 0;
}

static void io_idle(void *ctx)
{
    io_ctx_t *c = ctx;
    if (c != NULL && c->step != 0) {
        c->waits++;
        c->avail = c->avail + c->step < c->total ? c->avail + c->step : c->total;
    }
    sched_yield();
}

static size_t io_avail(void *ctx)
{
    const io_ctx_t *c = ctx;
    return c->avail;
}

/* ---- one thread per rank ------------------------------------------------- */
typedef struct {
    int ncalls;
    const int *root;       /* [ncalls] */
    const size_t *bytes;   /* [ncalls] the root's size */
    int odd_rank;          /* this rank expects odd_bytes in call odd_call (-1: none) */
    int odd_call;
    size_t odd_bytes;
    int fail_call;         /* the root of this call fails to pack (-1: none) */
    int slow_rank;         /* this rank copies slowly (-1: none) */
    size_t chunk_min;      /* the calls' smallest chunk (mcast_shm_chunk_bytes; 0: a slot) */
    size_t stream_step;    /* roots stream: avail grows by this per wait (0: no) */
    int warm;              /* every rank calls mcast_shm_warm before each call */
    int one_thread;        /* every rank's view takes no lock (one thread calls into it) */
    int skip;              /* 1: skip_rank does not take part in call skip_call (it has no */
    int skip_rank;         /* plan for it), and with skip_abandons abandons the region there */
    int skip_call;
    int skip_abandons;
} script_t;

#define SKIPPED 1000 /* rc of the call a rank did not take part in */

typedef struct {
    void *region;
    size_t region_bytes;
    int n, me, slots;
    size_t slot_bytes;
    const script_t *sc;
    int *rc;               /* [ncalls] this rank's outcome per call */
    int *ok;               /* [ncalls] 1 when this rank's buffer holds what it should */
    int beyond;            /* a streaming root packed past avail */
    long waits;            /* a streaming root's waits */
} rank_arg_t;

static void *rank_main(void *p)
{
    rank_arg_t *a = p;
    mcast_shm_t *s = NULL;
    if (KB_OK != mcast_shm_attach(a->region, a->region_bytes, a->n, a->me, &s)) {
        for (int c = 0; c < a->sc->ncalls; ++c) {
            a->rc[c] = -100;
        }
        return NULL;
    }
    mcast_shm_one_thread(s, a->sc->one_thread);
    for (int c = 0; c < a->sc->ncalls; ++c) {
        if (a->sc->skip && a->me == a->sc->skip_rank && c == a->sc->skip_call) {
            if (a->sc->skip_abandons) {
                mcast_shm_abandon(s);
            }
            a->rc[c] = SKIPPED;
            a->ok[c] = 0;
            continue;
        }
        const int root = a->sc->root[c];
        size_t want = a->sc->bytes[c];
        if (a->me == a->sc->odd_rank && c == a->sc->odd_call) {
            want = a->sc->odd_bytes;
        }
        unsigned char *buf = malloc(want);
        for (size_t i = 0; i < want; ++i) {
            buf[i] = (a->me == root) ? pattern(c, i) : 0xEE;
        }
        const bool stream = a->me == root && a->sc->stream_step != 0;
        io_ctx_t ctx = {buf, a->me == root && c == a->sc->fail_call, a->sc->bytes[c] / 2, 0, 0,
                        a->me == a->sc->slow_rank, stream ? a->sc->stream_step : 0, 0, want, 0, 0};
        const mcast_shm_io_t io = {&ctx, io_pack, io_unpack, io_idle, stream ? io_avail : NULL};
        const size_t chunk = mcast_shm_chunk_bytes(want, a->sc->chunk_min, a->slot_bytes, a->slots, 1);
        if (a->sc->warm) {
            mcast_shm_warm(s, want); /* (while other ranks' calls may be on the ring) */
        }
        a->rc[c] = mcast_shm_bcast(s, root, want, chunk, &io);
        int good = 1;
        if (KB_OK == a->rc[c]) {
            for (size_t i = 0; i < want; ++i) {
                good &= buf[i] == pattern(c, i);
            }
        }
        a->ok[c] = good;
        a->beyond |= ctx.beyond;
        a->waits += ctx.waits;
        free(buf);
    }
    mcast_shm_detach(s);
    return NULL;
}

static int last_beyond;  /* the last run_script: a streaming root packed past avail */
static long last_waits;  /* and its streaming roots' waits */

/* Runs the script on n threads; rc / ok are [n][ncalls]. */
static void run_script(int n, int slots, size_t slot_bytes, const script_t *sc, int *rc, int *ok)
{
    const size_t bytes = mcast_shm_region_bytes(n, slots, slot_bytes);
    assert_true(bytes > 0);
    void *region = NULL;
    assert_int_equal(posix_memalign(&region, 4096, bytes), 0);
    memset(region, 0xA5, bytes); /* format must not rely on a zeroed region */
    assert_int_equal(mcast_shm_format(region, bytes, n, slots, slot_bytes), KB_OK);
    pthread_t th[16];
    rank_arg_t args[16];
    for (int r = 0; r < n; ++r) {
        args[r] = (rank_arg_t){region, bytes, n, r, slots, slot_bytes, sc, rc + r * sc->ncalls,
                               ok + r * sc->ncalls, 0, 0};
        assert_int_equal(pthread_create(&th[r], NULL, rank_main, &args[r]), 0);
    }
    last_beyond = 0;
    last_waits = 0;
    for (int r = 0; r < n; ++r) {
        pthread_join(th[r], NULL);
        last_beyond |= args[r].beyond;
        last_waits += args[r].waits;
    }
    free(region);
}

static void test_layout(void **state)
{
    (void) state;
    assert_int_equal(mcast_shm_region_bytes(0, 8, 4096), 0);
    assert_int_equal(mcast_shm_region_bytes(4, 1, 4096), 0); /* a ring needs two slots */
    assert_int_equal(mcast_shm_region_bytes(4, 8, 0), 0);
    const size_t b = mcast_shm_region_bytes(4, 8, 1000);
    /* header + 4 counters + 8 slot headers (128 B lines) + the board (4 ranks' entries of
     * 32 bytes, rounded to a line) + 8 slots of 1000 rounded to 1024 */
    assert_int_equal(b, 128 + 4 * 128 + 8 * 128 + (4 * MCAST_SHM_BOARD_KEYS * 32 + 127) / 128 * 128 +
                            8 * 1024);
    void *region = calloc(1, b);
    mcast_shm_t *s = NULL;
    assert_int_equal(mcast_shm_attach(region, b, 4, 0, &s), KB_ERR_ARG); /* not formatted */
    assert_int_equal(mcast_shm_format(region, b - 1, 4, 8, 1000), KB_ERR_ARG);
    assert_int_equal(mcast_shm_format(region, b, 4, 8, 1000), KB_OK);
    assert_int_equal(mcast_shm_attach(region, b, 5, 0, &s), KB_ERR_ARG); /* another n */
    assert_int_equal(mcast_shm_attach(region, b, 4, 4, &s), KB_ERR_ARG); /* rank out of range */
    assert_int_equal(mcast_shm_attach(region, b - 1, 4, 0, &s), KB_ERR_ARG);
    assert_int_equal(mcast_shm_attach(region, b, 4, 3, &s), KB_OK);
    assert_int_equal(mcast_shm_slot_bytes(s), 1000);
    const mcast_shm_io_t io = {NULL, io_pack, io_unpack, io_idle, NULL};
    assert_int_equal(mcast_shm_bcast(s, -1, 0, 0, &io), KB_ERR_ARG);
    assert_int_equal(mcast_shm_bcast(s, 4, 10, 0, &io), KB_ERR_ARG);
    assert_int_equal(mcast_shm_bcast(s, 0, 10, 0, NULL), KB_ERR_ARG);
    /* a call's chunk: the smallest one, or (fit_ring) M / slots within [chunk_min, slot] */
    assert_int_equal(mcast_shm_chunk_bytes(100, 4096, 262144, 8, 1), 4096);
    assert_int_equal(mcast_shm_chunk_bytes(1 << 20, 4096, 262144, 8, 1), 131072);
    assert_int_equal(mcast_shm_chunk_bytes((1 << 20) + 1, 4096, 262144, 8, 1), 131073);
    assert_int_equal(mcast_shm_chunk_bytes(64 << 20, 4096, 262144, 8, 1), 262144);
    assert_int_equal(mcast_shm_chunk_bytes(100, 0, 262144, 8, 1), 262144);
    assert_int_equal(mcast_shm_chunk_bytes(100, 1 << 20, 262144, 8, 1), 262144);
    assert_int_equal(mcast_shm_chunk_bytes(100, 4096, 0, 8, 1), 0);
    assert_int_equal(mcast_shm_chunk_bytes(1 << 20, 4096, 262144, 8, 0), 4096);
    assert_int_equal(mcast_shm_chunk_bytes(1 << 20, 1 << 20, 262144, 8, 0), 262144);
    assert_int_equal(mcast_shm_chunk_bytes(1 << 20, 0, 262144, 8, 0), 262144);
    mcast_shm_detach(s);
    free(region);
}

/* A formatted region of n ranks (4 slots of 4 KiB) and each rank's view of it, s[n]. */
static void *board_region(int n, mcast_shm_t **s)
{
    const size_t b = mcast_shm_region_bytes(n, 4, 4096);
    void *region = calloc(1, b);
    assert_non_null(region);
    assert_int_equal(mcast_shm_format(region, b, n, 4, 4096), KB_OK);
    for (int r = 0; r < n; r++) {
        assert_int_equal(mcast_shm_attach(region, b, n, r, &s[r]), KB_OK);
    }
    return region;
}

static void board_region_free(int n, mcast_shm_t **s, void *region)
{
    for (int r = 0; r < n; r++) {
        mcast_shm_detach(s[r]);
    }
    free(region);
}

/* The board: an entry is written once; max answers only once every rank's entry for the
 * key is there, with the largest value per component (unmeasured if any rank's is
 * negative or NaN), the same for every rank that reads it; keys are independent. */
static void test_board(void **state)
{
    (void) state;
    enum { N = 3 };
    mcast_shm_t *s[N];
    void *region = board_region(N, s);
    double out[2] = {7, 7};
    const double v0[2] = {1.5, 3.0}, v1[2] = {2.5, 1.0}, v2[2] = {0.5, 2.0};
    assert_int_equal(mcast_shm_board_put(s[0], -1, v0), KB_ERR_ARG);
    assert_int_equal(mcast_shm_board_put(s[0], MCAST_SHM_BOARD_KEYS, v0), KB_ERR_ARG);
    assert_int_equal(mcast_shm_board_put(NULL, 0, v0), KB_ERR_ARG);
    assert_int_equal(mcast_shm_board_max(s[0], MCAST_SHM_BOARD_KEYS, out), -1);
    assert_int_equal(mcast_shm_board_max(s[1], 5, out), 0); /* nobody yet */
    assert_int_equal(mcast_shm_board_put(s[0], 5, v0), KB_OK);
    assert_int_equal(mcast_shm_board_put(s[2], 5, v2), KB_OK);
    assert_int_equal(mcast_shm_board_max(s[0], 5, out), 0); /* rank 1 missing */
    assert_true(out[0] == 7 && out[1] == 7);                  /* untouched before */
    assert_int_equal(mcast_shm_board_put(s[1], 5, v1), KB_OK);
    for (int r = 0; r < N; r++) {
        out[0] = out[1] = 0;
        assert_int_equal(mcast_shm_board_max(s[r], 5, out), 1);
        assert_true(out[0] == 2.5 && out[1] == 3.0);
    }
    /* written once: a second put changes nothing */
    const double big[2] = {100, 100};
    assert_int_equal(mcast_shm_board_put(s[1], 5, big), KB_ERR_ARG);
    assert_int_equal(mcast_shm_board_max(s[2], 5, out), 1);
    assert_true(out[0] == 2.5 && out[1] == 3.0);
    /* another key: one rank's unmeasured candidate makes it unmeasured for all */
    const double neg[2] = {-1.0, 4.0};
    assert_int_equal(mcast_shm_board_max(s[0], 6, out), 0);
    assert_int_equal(mcast_shm_board_put(s[0], 6, v0), KB_OK);
    assert_int_equal(mcast_shm_board_put(s[1], 6, neg), KB_OK);
    assert_int_equal(mcast_shm_board_put(s[2], 6, v2), KB_OK);
    assert_int_equal(mcast_shm_board_max(s[1], 6, out), 1);
    assert_true(out[0] < 0 && out[1] == 4.0);
    board_region_free(N, s, region);
}

/* The gate: open for call n of a key only once every rank arrived at n or later; arrivals
 * only grow; keys are independent of each other and of the board's values. */
static void test_gate(void **state)
{
    (void) state;
    enum { N = 3 };
    mcast_shm_t *s[N];
    void *region = board_region(N, s);
    assert_int_equal(mcast_shm_gate_arrive(NULL, 0, 1), KB_ERR_ARG);
    assert_int_equal(mcast_shm_gate_arrive(s[0], -1, 1), KB_ERR_ARG);
    assert_int_equal(mcast_shm_gate_arrive(s[0], MCAST_SHM_BOARD_KEYS, 1), KB_ERR_ARG);
    assert_int_equal(mcast_shm_gate_arrive(s[0], 0, 0), KB_ERR_ARG);
    assert_int_equal(mcast_shm_gate_open(s[0], MCAST_SHM_BOARD_KEYS, 1), -1);
    assert_int_equal(mcast_shm_gate_open(s[0], 3, 0), -1);
    assert_int_equal(mcast_shm_gate_open(s[0], 3, 1), 0); /* nobody yet */
    assert_int_equal(mcast_shm_gate_arrive(s[0], 3, 1), KB_OK);
    assert_int_equal(mcast_shm_gate_arrive(s[1], 3, 1), KB_OK);
    assert_int_equal(mcast_shm_gate_open(s[0], 3, 1), 0); /* rank 2 missing */
    assert_int_equal(mcast_shm_gate_arrive(s[2], 3, 2), KB_OK); /* (ahead: counts for 1) */
    for (int r = 0; r < N; r++) {
        assert_int_equal(mcast_shm_gate_open(s[r], 3, 1), 1);
        assert_int_equal(mcast_shm_gate_open(s[r], 3, 2), 0);
        assert_int_equal(mcast_shm_gate_open(s[r], 4, 1), 0); /* another key */
    }
    assert_int_equal(mcast_shm_gate_arrive(s[2], 3, 1), KB_OK); /* a smaller n writes nothing */
    assert_int_equal(mcast_shm_gate_arrive(s[0], 3, 2), KB_OK);
    assert_int_equal(mcast_shm_gate_open(s[1], 3, 2), 0);
    assert_int_equal(mcast_shm_gate_arrive(s[1], 3, 2), KB_OK);
    assert_int_equal(mcast_shm_gate_open(s[1], 3, 2), 1);
    /* the board's values of the key are not the gate's */
    double out[2];
    assert_int_equal(mcast_shm_board_max(s[0], 3, out), 0);
    const double v[2] = {1.0, 2.0};
    for (int r = 0; r < N; r++) {
        assert_int_equal(mcast_shm_board_put(s[r], 3, v), KB_OK);
    }
    assert_int_equal(mcast_shm_board_max(s[0], 3, out), 1);
    assert_true(out[0] == 1.0 && out[1] == 2.0);
    assert_int_equal(mcast_shm_gate_open(s[2], 3, 2), 1);
    assert_int_equal(mcast_shm_gate_open(s[2], 3, 3), 0);
    board_region_free(N, s, region);
}

/* A rank that cannot take part in a call (no plan for it) and goes on: without abandoning
 * the region, its next call takes the chunks of the call it missed and reports success
 * with the wrong bytes (the control); abandoning it, no rank ever reports success with
 * wrong bytes, no rank waits (the test ends: a root short of room, receivers of an
 * abandoning root), every call of that rank after it ends MCAST_SHM_ABANDONED, and so
 * does every call that starts after it on any rank. */
static void test_abandon(void **state)
{
    (void) state;
    const int n = 4;
    /* the control: one chunk a call, room for all, equal sizes */
    const int roots1[] = {0, 0, 1};
    const size_t small[] = {300, 300, 300};
    script_t sc = {3, roots1, small, -1, -1, 0, -1, -1, 0, 0, 0, 0, 1, 2, 0, 0};
    int rc[4 * 6], ok[4 * 6];
    run_script(n, 4, 512, &sc, rc, ok);
    assert_int_equal(rc[2 * 3 + 0], SKIPPED);
    assert_int_equal(rc[2 * 3 + 1], KB_OK);
    assert_int_equal(ok[2 * 3 + 1], 0); /* call 0's bytes as call 1's */
    /* abandoning: the same, then many chunks on a ring of 2 and the abandoning rank as a
     * later call's root */
    const int roots2[] = {0, 2, 1, 0, 3, 2};
    const size_t big[] = {5000, 3000, 5000, 700, 5000, 64};
    const script_t cases[] = {
        {3, roots1, small, -1, -1, 0, -1, -1, 0, 0, 0, 0, 1, 2, 0, 1},
        {6, roots2, big, -1, -1, 0, -1, -1, 0, 0, 0, 0, 1, 2, 0, 1},
        {6, roots2, big, -1, -1, 0, -1, -1, 0, 0, 0, 0, 1, 3, 2, 1},
        {6, roots2, big, -1, -1, 0, -1, -1, 0, 0, 0, 0, 1, 0, 3, 1}};
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); ++k) {
        for (int rep = 0; rep < 20; ++rep) {
            const script_t *c = &cases[k];
            run_script(n, k == 0 ? 4 : 2, 512, c, rc, ok);
            for (int r = 0; r < n; ++r) {
                for (int i = 0; i < c->ncalls; ++i) {
                    const int x = rc[r * c->ncalls + i];
                    if (r == c->skip_rank && i == c->skip_call) {
                        assert_int_equal(x, SKIPPED);
                    } else if (r == c->skip_rank && i > c->skip_call) {
                        assert_int_equal(x, MCAST_SHM_ABANDONED);
                    } else if (i < c->skip_call) {
                        assert_int_equal(x, KB_OK); /* (before it: as ever) */
                        assert_int_equal(ok[r * c->ncalls + i], 1);
                    } else if (x == KB_OK) {
                        assert_int_equal(ok[r * c->ncalls + i], 1); /* never wrong bytes */
                    } else {
                        assert_int_equal(x, MCAST_SHM_ABANDONED);
                    }
                }
            }
        }
    }
}

/* A region's slot: the smallest chunk where every rank has a core (no call's chunk is
 * larger: the region then reserves no byte a chunk cannot use), the largest where the
 * chunks fill the ring; every call's chunk of every size fits the slot chosen. */
static void test_slot_for_chunks(void **state)
{
    (void) state;
    assert_int_equal(mcast_shm_fit_ring(0, 64), 0);   /* a core per rank */
    assert_int_equal(mcast_shm_fit_ring(2, 2), 0);
    assert_int_equal(mcast_shm_fit_ring(2, 3), 1);
    assert_int_equal(mcast_shm_slot_bytes_for(32768, 262144, 0, 8), 32768);
    assert_int_equal(mcast_shm_slot_bytes_for(32768, 262144, 2, 2), 32768);
    assert_int_equal(mcast_shm_slot_bytes_for(32768, 262144, 2, 4), 262144);
    assert_int_equal(mcast_shm_slot_bytes_for(0, 262144, 0, 8), 262144);       /* chunk = a slot */
    assert_int_equal(mcast_shm_slot_bytes_for(1 << 20, 262144, 0, 8), 262144); /* clamped */
    assert_int_equal(mcast_shm_slot_bytes_for(32768, 0, 0, 8), 0);
    const size_t mins[] = {0, 512, 32768, 1 << 20};
    const int cores[] = {0, 1, 2, 8}, ranks[] = {2, 3, 8, 64};
    for (size_t i = 0; i < sizeof(mins) / sizeof(mins[0]); ++i) {
        for (int c = 0; c < 4; ++c) {
            for (int r = 0; r < 4; ++r) {
                const size_t slot = mcast_shm_slot_bytes_for(mins[i], 262144, cores[c], ranks[r]);
                const int fit = mcast_shm_fit_ring(cores[c], ranks[r]);
                for (size_t m = 1; m <= (size_t) 64 << 20; m *= 4) {
                    const size_t want = mcast_shm_chunk_bytes(m, mins[i], 262144, 8, fit);
                    assert_int_equal(mcast_shm_chunk_bytes(m, mins[i], slot, 8, fit), want);
                    assert_true(want <= slot);
                }
            }
        }
    }
}

/* A region's pages are reserved at its setup unless the file system holds every segment the
 * node's ranks may map at its size (E-FIRST-4): the boundary, a container's 64 MiB
 * /dev/shm, the defaults' extremes without overflow, and limits below 1 counted as 1. */
static void test_reserve_at_setup(void **state)
{
    (void) state;
    const size_t two_mib = (size_t) 2 << 20;
    /* 4 ranks x 64 segments x 2 MiB = 512 MiB */
    assert_int_equal(mcast_shm_reserve_at_setup((uint64_t) 512 << 20, two_mib, 4, 64), 0);
    assert_int_equal(mcast_shm_reserve_at_setup(((uint64_t) 512 << 20) - 1, two_mib, 4, 64), 1);
    assert_int_equal(mcast_shm_reserve_at_setup((uint64_t) 64 << 20, two_mib, 4, 64), 1);
    /* a container's 64 MiB: 2 ranks' 256 KiB regions fit (32 MiB), 4 ranks' 2 MiB do not */
    assert_int_equal(mcast_shm_reserve_at_setup((uint64_t) 64 << 20, (size_t) 256 << 10, 2, 64), 0);
    assert_int_equal(mcast_shm_reserve_at_setup((uint64_t) 32 << 20, (size_t) 256 << 10, 2, 64), 0);
    assert_int_equal(mcast_shm_reserve_at_setup(((uint64_t) 32 << 20) - 1, (size_t) 256 << 10, 2, 64), 1);
    assert_int_equal(mcast_shm_reserve_at_setup((uint64_t) 12 << 30, two_mib, 64, 64), 0);
    assert_int_equal(mcast_shm_reserve_at_setup(0, two_mib, 4, 64), 1);
    /* the largest inputs the parameters allow: 2^66 bytes, more than any file system holds */
    assert_int_equal(mcast_shm_reserve_at_setup(UINT64_MAX, (size_t) 1 << 30, 1 << 20, 65536), 1);
    assert_int_equal(mcast_shm_reserve_at_setup(UINT64_MAX, (size_t) 1 << 27, 1 << 20, 65536), 0);
    assert_int_equal(mcast_shm_reserve_at_setup(((uint64_t) 1 << 63) - 1, (size_t) 1 << 27, 1 << 20, 65536), 1);
    assert_int_equal(mcast_shm_reserve_at_setup(two_mib, two_mib, 0, 0), 0);
    assert_int_equal(mcast_shm_reserve_at_setup(two_mib - 1, two_mib, -3, -1), 1);
}

static void test_every_root_and_size(void **state)
{
    (void) state;
    const int slot_counts[] = {2, 3, 8};
    for (int n = 2; n <= 7; ++n) {
        for (int si = 0; si < 3; ++si) {
            const int slots = slot_counts[si];
            const size_t C = 1000;
            /* (96 / 97 bytes: the largest chunk on its slot's line and the smallest not) */
            const size_t sizes[] = {1, C - 1, C, C + 1, (size_t) slots * C, 3 * (size_t) slots * C + 7,
                                    2 * C, 96, 97, C + 96};
            enum { NS = sizeof(sizes) / sizeof(sizes[0]) };
            int roots[NS * 7];
            size_t bytes[NS * 7];
            int nc = 0;
            for (int root = 0; root < n; ++root) {
                for (int k = 0; k < NS; ++k) {
                    roots[nc] = root;
                    bytes[nc] = sizes[(k + root) % NS];
                    ++nc;
                }
            }
            for (size_t chunk_min = 0; chunk_min <= 300; chunk_min += 300) {
                /* whole slots, and chunks that grow with the message from 300 bytes */
                const script_t sc = {nc, roots, bytes, -1, -1, 0, -1, -1, chunk_min, 0};
                int *rc = calloc((size_t) (n * nc), sizeof(int)), *ok = calloc((size_t) (n * nc), sizeof(int));
                run_script(n, slots, C, &sc, rc, ok);
                for (int i = 0; i < n * nc; ++i) {
                    if (KB_OK != rc[i] || 1 != ok[i]) {
                        fail_msg("n=%d slots=%d chunk_min=%zu rank %d call %d (root %d, %zu bytes): rc %d "
                                 "data %s", n, slots, chunk_min, i / nc, i % nc, roots[i % nc],
                                 bytes[i % nc], rc[i], ok[i] ? "ok" : "wrong");
                    }
                }
                free(rc);
                free(ok);
            }
        }
    }
}

/* mcast_shm_warm changes no byte of a formatted region (an atomic add of 0 per page,
 * the lines before the data and the slots' first bytes, growing); calls run right when
 * every rank warms before each call while others' calls are on the ring, and where each
 * view takes no lock (mcast_shm_one_thread: one thread per view, as a process without
 * threads). */
static void test_warm_and_one_thread(void **state)
{
    (void) state;
    const int n = 3, slots = 4;
    const size_t C = 10000;
    const size_t bytes = mcast_shm_region_bytes(n, slots, C);
    void *region = NULL;
    assert_int_equal(posix_memalign(&region, 4096, bytes), 0);
    memset(region, 0x5A, bytes);
    assert_int_equal(mcast_shm_format(region, bytes, n, slots, C), KB_OK);
    unsigned char *before = malloc(bytes);
    memcpy(before, region, bytes);
    mcast_shm_t *v = NULL;
    assert_int_equal(mcast_shm_attach(region, bytes, n, 1, &v), KB_OK);
    const size_t steps[] = {0, 1, 5000, 4096, 9000, 20000};
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); ++i) {
        mcast_shm_warm(v, steps[i]);
        assert_memory_equal(region, before, bytes);
    }
    mcast_shm_warm(NULL, 10); /* (no view: nothing) */
    mcast_shm_detach(v);
    free(before);
    free(region);

    for (int nr = 2; nr <= 5; nr += 3) {
        const size_t sizes[] = {1, 97, C - 1, C + 1, 3 * C + 7, 96, 2 * C};
        enum { NS = sizeof(sizes) / sizeof(sizes[0]) };
        int roots[NS * 5];
        size_t msg[NS * 5];
        int nc = 0;
        for (int root = 0; root < nr; ++root) {
            for (int k = 0; k < NS; ++k) {
                roots[nc] = root;
                msg[nc] = sizes[(k + root) % NS];
                ++nc;
            }
        }
        for (int mode = 0; mode < 3; ++mode) {
            const script_t sc = {nc, roots, msg, -1, -1, 0, -1, -1, 0, 0, mode != 1, mode != 0};
            int *rc = calloc((size_t) (nr * nc), sizeof(int)), *ok = calloc((size_t) (nr * nc), sizeof(int));
            run_script(nr, slots, C, &sc, rc, ok);
            for (int i = 0; i < nr * nc; ++i) {
                if (KB_OK != rc[i] || 1 != ok[i]) {
                    fail_msg("n=%d warm=%d one_thread=%d rank %d call %d: rc %d data %s", nr,
                             sc.warm, sc.one_thread, i / nc, i % nc, rc[i], ok[i] ? "ok" : "wrong");
                }
            }
            free(rc);
            free(ok);
        }
    }
}

static void test_mismatch_keeps_step(void **state)
{
    (void) state;
    const int n = 4, slots = 2;
    const size_t C = 512;
    /* call 1: rank 2 expects 100 bytes of a 5000-byte broadcast; call 3: rank 1 expects
     * 5000 of 700; the calls after each are right everywhere */
    const int roots[] = {0, 3, 1, 0, 2};
    const size_t bytes[] = {3000, 5000, 4096, 700, 2600};
    /* then 0 bytes: call 1's rank 2 expects 0 of 5000 (an erroneous program's count 0 on
     * one rank); call 2's rank 3 expects 64 where the root sends 0 */
    const size_t zero_bytes[] = {3000, 5000, 0, 700, 2600};
    const int odd_rank[] = {2, 1, 2, 3}, odd_call[] = {1, 3, 1, 2};
    const size_t odd_bytes[] = {100, 5000, 0, 64};
    for (int variant = 0; variant < 4; ++variant) {
        const script_t sc = {5, roots, variant == 3 ? zero_bytes : bytes, odd_rank[variant],
                             odd_call[variant], odd_bytes[variant], -1, -1, 0, 0};
        int rc[4 * 5], ok[4 * 5];
        run_script(n, slots, C, &sc, rc, ok);
        for (int r = 0; r < n; ++r) {
            for (int c = 0; c < 5; ++c) {
                const bool odd = r == sc.odd_rank && c == sc.odd_call;
                if (odd) {
                    assert_int_equal(rc[r * 5 + c], MCAST_SHM_MISMATCH);
                } else {
                    assert_int_equal(rc[r * 5 + c], KB_OK);
                    assert_int_equal(ok[r * 5 + c], 1);
                }
            }
        }
    }
}

/* Every rank at 0 bytes, between calls that move data: the empty chunk keeps the ring in
 * step and every call succeeds. */
static void test_zero_bytes(void **state)
{
    (void) state;
    const int roots[] = {0, 1, 1, 3, 2, 2};
    const size_t bytes[] = {1500, 0, 2600, 0, 0, 700};
    const script_t sc = {6, roots, bytes, -1, -1, 0, -1, -1, 0, 0};
    int rc[4 * 6], ok[4 * 6];
    run_script(4, 2, 512, &sc, rc, ok);
    for (int i = 0; i < 4 * 6; ++i) {
        assert_int_equal(rc[i], KB_OK);
        assert_int_equal(ok[i], 1);
    }
}

static void test_root_failure(void **state)
{
    (void) state;
    const int n = 3;
    const int roots[] = {1, 1, 0};
    const size_t bytes[] = {10000, 10000, 1234};
    const script_t sc = {3, roots, bytes, -1, -1, 0, 1, -1, 0, 0};
    int rc[3 * 3], ok[3 * 3];
    run_script(n, 2, 1024, &sc, rc, ok);
    for (int r = 0; r < n; ++r) {
        assert_int_equal(rc[r * 3 + 0], KB_OK);
        assert_int_equal(ok[r * 3 + 0], 1);
        /* the root itself completes; its receivers learn that its data did not come */
        assert_int_equal(rc[r * 3 + 1], r == 1 ? KB_OK : MCAST_SHM_ROOT_FAILED);
        assert_int_equal(rc[r * 3 + 2], KB_OK);
        assert_int_equal(ok[r * 3 + 2], 1);
    }
}

/* A reader that is slow to copy: the root, two slots ahead, must wait for it (a slot
 * reused before its reader finished would show here as wrong data). */
static void test_slow_reader(void **state)
{
    (void) state;
    const int roots[] = {0, 0, 2};
    const size_t bytes[] = {256 * 20, 256 * 7 + 3, 256 * 11};
    for (int slow = 1; slow <= 2; ++slow) {
        const script_t sc = {3, roots, bytes, -1, -1, 0, -1, slow, 100, 0};
        int rc[3 * 3], ok[3 * 3];
        run_script(3, 2, 256, &sc, rc, ok);
        for (int i = 0; i < 9; ++i) {
            assert_int_equal(rc[i], KB_OK);
            assert_int_equal(ok[i], 1);
        }
    }
}

/* Nonblocking: every rank starts 6 broadcasts at once (roots and sizes vary, several wrap
 * the ring) and polls until all are complete; one rank frees one op before it completes.
 * The data must be right and the ops complete in the order they started. */
typedef struct {
    void *region;
    size_t region_bytes;
    int n, me;
    int ok;
} nb_arg_t;

#define NB_OPS 6
static const int nb_root[NB_OPS] = {0, 2, 1, 1, 0, 2};
static const size_t nb_bytes[NB_OPS] = {5000, 1, 700, 3 * 1024 + 5, 64, 4096};

static void *nb_rank(void *p)
{
    nb_arg_t *a = p;
    mcast_shm_t *s = NULL;
    a->ok = 0;
    if (KB_OK != mcast_shm_attach(a->region, a->region_bytes, a->n, a->me, &s)) {
        return NULL;
    }
    unsigned char *buf[NB_OPS];
    io_ctx_t ctx[NB_OPS];
    mcast_shm_op_t *op[NB_OPS];
    int good = 1;
    for (int c = 0; c < NB_OPS; ++c) {
        buf[c] = malloc(nb_bytes[c]);
        for (size_t i = 0; i < nb_bytes[c]; ++i) {
            buf[c][i] = a->me == nb_root[c] ? pattern(c, i) : 0xEE;
        }
        ctx[c] = (io_ctx_t){buf[c], 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        const mcast_shm_io_t io = {&ctx[c], io_pack, io_unpack, NULL, NULL};
        good &= KB_OK == mcast_shm_start(s, nb_root[c], nb_bytes[c], 512, &io, &op[c]);
    }
    /* rank 1 lets go of op 3 at once: its buffer must stay until the op completes, so it
     * is freed only after everything is done */
    const bool drop = a->me == 1;
    if (drop) {
        mcast_shm_op_free(op[3]);
    }
    int done = 0, order_ok = 1;
    while (done < NB_OPS) {
        mcast_shm_poll(s);
        int now = 0;
        for (int c = 0; c < NB_OPS; ++c) {
            int r = -1;
            if (drop && c == 3) {
                now += 1; /* cannot be tested any more */
                continue;
            }
            if (mcast_shm_op_test(op[c], &r)) {
                order_ok &= now == c; /* complete ops form a prefix */
                good &= KB_OK == r;
                now++;
            }
        }
        done = now;
        if (done < NB_OPS) {
            sched_yield();
        }
    }
    for (int c = 0; c < NB_OPS; ++c) {
        if (!(drop && c == 3)) {
            for (size_t i = 0; i < nb_bytes[c]; ++i) {
                good &= buf[c][i] == pattern(c, i);
            }
            mcast_shm_op_free(op[c]);
        }
        free(buf[c]);
    }
    mcast_shm_detach(s);
    a->ok = good && order_ok;
    return NULL;
}

static void test_nonblocking(void **state)
{
    (void) state;
    const int n = 3;
    const size_t bytes = mcast_shm_region_bytes(n, 2, 1024);
    void *region = NULL;
    assert_int_equal(posix_memalign(&region, 4096, bytes), 0);
    assert_int_equal(mcast_shm_format(region, bytes, n, 2, 1024), KB_OK);
    pthread_t th[3];
    nb_arg_t args[3];
    for (int r = 0; r < n; ++r) {
        args[r] = (nb_arg_t){region, bytes, n, r, 0};
        assert_int_equal(pthread_create(&th[r], NULL, nb_rank, &args[r]), 0);
    }
    for (int r = 0; r < n; ++r) {
        pthread_join(th[r], NULL);
        assert_int_equal(args[r].ok, 1);
    }
    free(region);
}

/* A root that receives the message while it hands it on (a two-level plan's node leader):
 * avail grows by a step per wait; nothing is packed before it is there, every rank gets
 * its data, at every root, for chunks above and below the step, messages of one chunk to
 * several rings. */
static void test_streaming_root(void **state)
{
    (void) state;
    const int roots[] = {0, 2, 1, 3, 0};
    const size_t bytes[] = {1, 999, 4096 * 3 + 17, 40000, 777};
    const size_t steps[] = {100, 1000, 5000};
    for (int i = 0; i < 3; ++i) {
        const script_t sc = {5, roots, bytes, -1, -1, 0, -1, -1, 1000, steps[i]};
        int rc[4 * 5], ok[4 * 5];
        run_script(4, 3, 4096, &sc, rc, ok);
        for (int k = 0; k < 4 * 5; ++k) {
            assert_int_equal(rc[k], KB_OK);
            assert_int_equal(ok[k], 1);
        }
        assert_int_equal(last_beyond, 0);
        assert_true(last_waits > 0); /* the roots did wait for their stream */
    }
}

/* mcast_shm_copy: every byte at every size around MCAST_SHM_REP_BYTES (below it memcpy,
 * from it `rep movsb` where the CPU has it) and at unaligned ends, nothing written
 * outside the destination. */
static void test_copy(void **state)
{
    (void) state;
    const size_t sizes[] = {0,    1,    63,   64,   MCAST_SHM_REP_BYTES - 1, MCAST_SHM_REP_BYTES,
                            MCAST_SHM_REP_BYTES + 1, 4096, 65536 + 13, 1 << 20};
    const size_t offs[] = {0, 1, 16, 63};
    const size_t max = (1 << 20) + 128;
    unsigned char *src = malloc(max), *dst = malloc(max);
    assert_non_null(src);
    assert_non_null(dst);
    for (size_t i = 0; i < max; i++) {
        src[i] = (unsigned char) (i * 131u + 7u);
    }
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        for (size_t so = 0; so < 4; so++) {
            for (size_t dof = 0; dof < 4; dof++) {
                const size_t n = sizes[si], s0 = offs[so], d0 = offs[dof];
                memset(dst, 0xEE, max);
                mcast_shm_copy(dst + d0, src + s0, n);
                if (n > 0) {
                    assert_memory_equal(dst + d0, src + s0, n);
                }
                for (size_t k = 0; k < d0; k++) {
                    assert_int_equal(dst[k], 0xEE);
                }
                for (size_t k = d0 + n; k < d0 + n + 64 && k < max; k++) {
                    assert_int_equal(dst[k], 0xEE);
                }
            }
        }
    }
    free(src);
    free(dst);
}

static void test_model(void **state)
{
    (void) state;
    /* 4 ranks, 4 cores: m = 4 chunks of 1000 B at 1 ns/B (1 us), h = 0.5:
     * 2h + 1 + 3 (1 + 0.5) + 1 = 7.5 */
    assert_float_equal(mcast_shm_predict_us(4, 4000, 1000, 0, 1.0, 0.5), 7.5, 1e-9);
    assert_float_equal(mcast_shm_predict_us(4, 4000, 1000, 4, 1.0, 0.5), 7.5, 1e-9);
    /* 2 cores: the period is the 4 ranks' copies over 2 cores, 2 us: 1 + 1 + 3 * 2.5 + 1 */
    assert_float_equal(mcast_shm_predict_us(4, 4000, 1000, 2, 1.0, 0.5), 10.5, 1e-9);
    /* a message under one chunk: one copy in, one out */
    assert_float_equal(mcast_shm_predict_us(8, 100, 1000, 0, 1.0, 0.25), 0.5 + 0.2, 1e-9);
    assert_float_equal(mcast_shm_predict_us(1, 100, 1000, 0, 1.0, 0.25), 0.0, 0.0);
    assert_true(mcast_shm_predict_us(4, 100, 0, 0, 1.0, 0.25) < 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_slot_for_chunks),
        cmocka_unit_test(test_reserve_at_setup),
        cmocka_unit_test(test_board),
        cmocka_unit_test(test_gate),
        cmocka_unit_test(test_every_root_and_size),
        cmocka_unit_test(test_warm_and_one_thread),
        cmocka_unit_test(test_mismatch_keeps_step),
        cmocka_unit_test(test_zero_bytes),
        cmocka_unit_test(test_root_failure),
        cmocka_unit_test(test_abandon),
        cmocka_unit_test(test_slow_reader),
        cmocka_unit_test(test_nonblocking),
        cmocka_unit_test(test_streaming_root),
        cmocka_unit_test(test_copy),
        cmocka_unit_test(test_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
