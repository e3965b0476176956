/*
 * edst: four arc-disjoint spanning trees of a 2D torus (pm_torus_edst) and the schedule
 * that runs several trees at once (mcast_sched_multitree).
 *  - Every X x Y torus with 3 <= X, Y <= 9, every root, ranks on routers in a random
 *    order: four spanning trees, every edge between neighbours, no arc (one direction of
 *    a link) in two trees, at most four children per rank in all, one per tree at the
 *    root, depth at least 1 + the diameter and below the spine trees' X + Y - 1 (the
 *    spine trees were not needed), with even sides within one link of the bound (at it
 *    on 8 x 8, 16 x 16, 32 x 32), sides >= 4 within three; every X, Y in 3..16 and some
 *    to 32 x 32 with one random root too.
 *  - Tori that do not qualify are declined with a reason (3D, mesh, a dimension of 2, a
 *    router without a rank or with two).
 *  - The schedules of every rank, executed together (mcast_sched_check): every block
 *    exactly once, rounds equal to mcast_multitree_rounds, between m - 1 + the shallowest
 *    tree's depth and m - 1 + the deepest's plus the queueing (<= (X + Y) / 2 + 1 on the
 *    shapes here), below a chain's m + XY - 2; on the 8 x 8 and 16 x 16 tori, where the
 *    greedy takes the most urgent copy first (m <= 2 T D), at most m + D + 3 (fails in
 *    arrival order: 8 x 8 at 17 blocks 31 rounds).
 *  - The LogGP model in unit steps (o_send = 1, nothing else) is the closed form plus the
 *    queueing: exactly the greedy rounds at <= 256 blocks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "kbinomial.h"
#include "mcast_engine.h"
#include "mcast_families.h"
#include "pathmc.h"

static uint64_t rs = 7;
static int rnd(int n)
{
    rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int)((rs >> 33) % (uint64_t)n);
}

/* coords of n = X*Y ranks on the routers of an X x Y torus in a random order */
static int *shuffled_coords(int X, int Y)
{
    const int n = X * Y;
    int *perm = malloc(sizeof(int) * n), *co = malloc(sizeof(int) * 2 * n);
    for (int i = 0; i < n; ++i) perm[i] = i;
    for (int i = n - 1; i > 0; --i) {
        int j = rnd(i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int r = 0; r < n; ++r) {
        co[2 * r] = perm[r] % X;
        co[2 * r + 1] = perm[r] / X;
    }
    free(perm);
    return co;
}

static int ring_dist(int a, int b, int k)
{
    int d = ((b - a) % k + k) % k;
    return d;
}

static void check_trees(kb_tree_t *t[PM_EDST_TREES], int X, int Y, const int *co, int root)
{
    const int n = X * Y;
    /* arc id: from rank u to the neighbour in direction d (0 +x, 1 -x, 2 +y, 3 -y) */
    char *used = calloc((size_t)n * 4, 1);
    int *sends = calloc(n, sizeof(int));
    int maxdepth = 0;
    for (int i = 0; i < PM_EDST_TREES; ++i) {
        assert_int_equal(kb_tree_check(t[i]), KB_OK);
        assert_int_equal(t[i]->n, n);
        assert_int_equal(t[i]->root, root);
        /* at least 1 + the diameter, below the spine trees' X + Y - 1 (the greedy did
         * not stall) */
        assert_true(t[i]->depth >= 1 + X / 2 + Y / 2);
        if (t[i]->depth > maxdepth) maxdepth = t[i]->depth;
        assert_int_equal(kb_tree_nchildren(t[i], root), 1);
        for (int v = 0; v < n; ++v) {
            const int u = t[i]->parent[v];
            if (v == root) {
                assert_int_equal(u, KB_NO_PEER);
                continue;
            }
            const int dx = ring_dist(co[2 * u], co[2 * v], X), dy = ring_dist(co[2 * u + 1], co[2 * v + 1], Y);
            int dir = -1;
            if (dy == 0 && dx == 1) dir = 0;
            if (dy == 0 && dx == X - 1) dir = 1;
            if (dx == 0 && dy == 1) dir = 2;
            if (dx == 0 && dy == Y - 1) dir = 3;
            assert_true(dir >= 0); /* neighbours */
            assert_false(used[(size_t)u * 4 + dir]); /* no arc in two trees */
            used[(size_t)u * 4 + dir] = 1;
            ++sends[u];
        }
    }
    for (int v = 0; v < n; ++v) assert_true(sends[v] <= 4);
    assert_int_equal(sends[root], 4);
    assert_true(maxdepth < X + Y - 1);
    /* even sides: within one link of the bound (at it on 8 x 8, 16 x 16, 32 x 32); sides
     * >= 4: within three (31 x 31: one) */
    if (X % 2 == 0 && Y % 2 == 0) assert_true(maxdepth <= 2 + X / 2 + Y / 2);
    if (X >= 4 && Y >= 4) assert_true(maxdepth <= 4 + X / 2 + Y / 2);
    if (X == 31 && Y == 31) assert_int_equal(maxdepth, 2 + X / 2 + Y / 2);
    if ((X == 8 && Y == 8) || (X == 16 && Y == 16) || (X == 32 && Y == 32))
        assert_int_equal(maxdepth, 1 + X / 2 + Y / 2);
    free(used);
    free(sends);
}

static void test_trees(void **state)
{
    (void)state;
    for (int X = 3; X <= 9; ++X) {
        for (int Y = 3; Y <= 9; ++Y) {
            const int n = X * Y;
            pm_torus_shape_t sh = {2, {X, Y}, 1, 1};
            int *co = shuffled_coords(X, Y);
            for (int root = 0; root < n; ++root) {
                kb_tree_t *t[PM_EDST_TREES];
                char err[128] = "";
                assert_int_equal(pm_torus_edst(&sh, n, co, root, t, err, sizeof(err)), PM_OK);
                check_trees(t, X, Y, co, root);
                for (int i = 0; i < PM_EDST_TREES; ++i) pm_tree_free(t[i]);
            }
            free(co);
        }
    }
}

/* Larger shapes, one root each (the trees are built relative to the root): every X, Y
 * in 3..16 and some up to 32 x 32. */
static void large_shape(int X, int Y)
{
    const int n = X * Y;
    pm_torus_shape_t sh = {2, {X, Y}, 1, 1};
    int *co = shuffled_coords(X, Y);
    const int root = rnd(n);
    kb_tree_t *t[PM_EDST_TREES];
    assert_int_equal(pm_torus_edst(&sh, n, co, root, t, NULL, 0), PM_OK);
    check_trees(t, X, Y, co, root);
    for (int i = 0; i < PM_EDST_TREES; ++i) pm_tree_free(t[i]);
    free(co);
}

static void test_trees_large(void **state)
{
    (void)state;
    for (int X = 3; X <= 16; ++X)
        for (int Y = 3; Y <= 16; ++Y)
            if (X > 9 || Y > 9) large_shape(X, Y);
    static const int big[][2] = {{24, 24}, {31, 31}, {32, 32}, {32, 16}, {16, 32}, {3, 32}, {32, 3}};
    for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); ++i) large_shape(big[i][0], big[i][1]);
}

static void expect_declined(const pm_torus_shape_t *sh, int n, const int *co)
{
    kb_tree_t *t[PM_EDST_TREES];
    char err[128] = "";
    assert_int_equal(pm_torus_edst(sh, n, co, 0, t, err, sizeof(err)), PM_ERR_UNSUPPORTED);
    assert_true(strstr(err, "edst") != NULL);
    for (int i = 0; i < PM_EDST_TREES; ++i) assert_null(t[i]);
}

static void test_declines(void **state)
{
    (void)state;
    int co[2 * 27];
    for (int r = 0; r < 9; ++r) {
        co[2 * r] = r % 3;
        co[2 * r + 1] = r / 3;
    }
    pm_torus_shape_t mesh = {2, {3, 3}, 0, 1}, two = {2, {3, 2}, 1, 1}, ok = {2, {3, 3}, 1, 1},
                     uni = {2, {3, 3}, 1, 0};
    expect_declined(&mesh, 9, co);
    expect_declined(&uni, 9, co);
    expect_declined(&two, 6, co);
    expect_declined(&ok, 8, co); /* a router without a rank */
    int twice[18];
    memcpy(twice, co, sizeof(twice));
    twice[2] = 0; /* rank 1 on rank 0's router */
    expect_declined(&ok, 9, twice);
    pm_torus_shape_t three = {3, {3, 3, 3}, 1, 1};
    int co3[3 * 27];
    for (int r = 0; r < 27; ++r) {
        co3[3 * r] = r % 3;
        co3[3 * r + 1] = (r / 3) % 3;
        co3[3 * r + 2] = r / 9;
    }
    expect_declined(&three, 27, co3);
    kb_tree_t *t[PM_EDST_TREES];
    assert_int_equal(pm_torus_edst(NULL, 9, co, 0, t, NULL, 0), PM_ERR_ARG);
    assert_int_equal(pm_torus_edst(&ok, 9, co, 9, t, NULL, 0), PM_ERR_ARG);
    assert_int_equal(pm_torus_edst(&ok, 9, co, 0, NULL, NULL, 0), PM_ERR_ARG);
}

static void check_schedules(kb_tree_t *t[PM_EDST_TREES], int X, int Y, int root, uint32_t m)
{
    const int n = X * Y;
    const kb_tree_t *const *tp = (const kb_tree_t *const *)t;
    mcast_sched_t **s = calloc(n, sizeof(*s));
    for (int r = 0; r < n; ++r) {
        assert_int_equal(mcast_sched_multitree(tp, PM_EDST_TREES, r, m, 1, &s[r]), KB_OK);
        assert_int_equal(mcast_sched_count(s[r], MCAST_OP_RECV), r == root ? 0 : m);
    }
    long rounds = -1;
    char err[256] = "";
    const int rc = mcast_sched_check(n, root, s, 1 << 20, 1, &rounds, err, sizeof(err));
    if (rc != KB_OK) fail_msg("%dx%d root %d m %u: %s", X, Y, root, m, err);
    const long model = mcast_multitree_rounds(tp, PM_EDST_TREES, m, 1);
    assert_int_equal(rounds, m == 0 ? 0 : model);
    if (m > 0) {
        int dmin = t[0]->depth, dmax = t[0]->depth;
        for (int i = 1; i < PM_EDST_TREES; ++i) {
            if (t[i]->depth < dmin) dmin = t[i]->depth;
            if (t[i]->depth > dmax) dmax = t[i]->depth;
        }
        assert_true(rounds >= (long)m + dmin - 1);
        if (!(rounds <= (long)m + dmax - 1 + (X + Y) / 2 + 1)) fail_msg("%dx%d root %d m %u rounds %ld dmax %d", X, Y, root, m, rounds, dmax);
        assert_true(n < 16 || rounds < (long)m + n - 2); /* a chain */
        /* the fill's order (fam_multitree.cpp "Order"): while m <= 2 T D the most urgent
         * copy first, within 3 rounds of m + D on the square tori (arrival order: 16 x 16
         * at 64 blocks 94 rounds, 11 above) */
        if (X == Y && (X == 8 || X == 16) && m <= 2u * PM_EDST_TREES * (uint32_t)dmax) {
            if (rounds > (long)m + dmax + 3) fail_msg("%dx%d m %u: %ld rounds", X, Y, m, rounds);
        }
        /* the LogGP model in unit steps at <= 256 blocks: the greedy rounds */
        mcast_loggp_t g;
        memset(&g, 0, sizeof(g));
        g.o_send_us = 1.0;
        const double p = mcast_multitree_predict_us(tp, PM_EDST_TREES, m, m, &g, 8, 1);
        assert_true(fabs(p - (double)rounds) < 1e-9);
    }
    for (int r = 0; r < n; ++r) mcast_sched_free(s[r]);
    free(s);
}

static void test_schedules(void **state)
{
    (void)state;
    static const int shapes[][2] = {{3, 3}, {3, 4}, {4, 4}, {5, 3}, {5, 7}, {8, 8}, {16, 16}};
    static const uint32_t ms[] = {0, 1, 2, 3, 4, 5, 7, 17, 64, 130};
    for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); ++si) {
        const int X = shapes[si][0], Y = shapes[si][1], n = X * Y;
        pm_torus_shape_t sh = {2, {X, Y}, 1, 1};
        int *co = shuffled_coords(X, Y);
        const int roots[] = {0, n / 2, n - 1};
        for (int ri = 0; ri < 3; ++ri) {
            kb_tree_t *t[PM_EDST_TREES];
            assert_int_equal(pm_torus_edst(&sh, n, co, roots[ri], t, NULL, 0), PM_OK);
            for (size_t mi = 0; mi < sizeof(ms) / sizeof(ms[0]); ++mi) {
                if (n > 100 && ms[mi] > 64) continue;
                check_schedules(t, X, Y, roots[ri], ms[mi]);
            }
            for (int i = 0; i < PM_EDST_TREES; ++i) pm_tree_free(t[i]);
        }
        free(co);
    }
}

/* The model with synchronous sends (fam_multitree.cpp, "synchronous sends"): a chain
 * 0 -> 1 -> 2 as one tree, o_send = o_recv = 1, no latency, no bytes' cost.  A hop is
 * o_send + o_recv = 2; standard sends pace a rank at o_send (period 1):
 * T = 2 hops + (m - 1) = m + 3.  Synchronous ones (eager_bytes 0, 2 in flight) keep the
 * gap max(o_send, hop / 2) = 1, but rank 1 spends o_recv + o_send = 2 per block:
 * T = 4 + 2 (m - 1) = 2 m + 2. */
static void test_sync_model(void **state)
{
    (void)state;
    kb_tree_t *t = NULL;
    assert_int_equal(kb_tree_build(KB_SHAPE_CHAIN, 3, 0, NULL, NULL, &t), KB_OK);
    const kb_tree_t *tp[1] = {t};
    mcast_loggp_t g;
    memset(&g, 0, sizeof(g));
    g.o_send_us = 1.0;
    g.o_recv_us = 1.0;
    for (uint32_t m = 1; m <= 40; m += 13) {
        g.eager_bytes = 1 << 20;
        const double std1 = mcast_multitree_predict_us(tp, 1, m, m, &g, 4, 1);
        assert_true(fabs(std1 - (double)(m + 3)) < 1e-9);
        g.eager_bytes = 0;
        /* 2 in flight: with a lag of 2 (fam_multitree.cpp, "Lag") rank 1 sends each block
         * two steps after it came, m + 2 rounds of its period without o_recv (a
         * synchronous message's receiver overhead is its sender's wait, which the planner
         * folds into o_send; here none): 1, faster than the closed form's 2 m + 2 */
        const double sync2 = mcast_multitree_predict_us(tp, 1, m, m, &g, 4, 2);
        assert_true(fabs(sync2 - (double)(m + 2)) < 1e-9);
        assert_int_equal(mcast_multitree_lag(tp, 1, m, m, &g, 4, 2), 2);
        /* one synchronous send in flight: the slot (a hop) paces the rank */
        const double sync1 = mcast_multitree_predict_us(tp, 1, m, m, &g, 4, 1);
        assert_true(fabs(sync1 - (double)(2 * m + 2)) < 1e-9);
    }
    kb_tree_free(t);
}

/* Lag (fam_multitree.cpp, "Lag"): a rank sends a block no sooner than `lag` unit steps
 * after it arrived.  Every rank's schedule executed together: every block exactly once,
 * in no more rounds than mcast_multitree_rounds at that lag (the checker sends a block
 * as soon as it is held); every send at least `lag` steps after the receive of its block
 * (the generator's steps); the lagged rounds at least m + (shallowest depth - 1) lag
 * (each hop below the root's waits `lag`) and at most lag 1's + (lag - 1) per link of
 * the deepest tree.  Out of range (0, above MCAST_MULTITREE_LAG_MAX): KB_ERR_ARG. */
static void test_lag(void **state)
{
    (void)state;
    static const int shapes[][2] = {{3, 3}, {5, 4}, {8, 8}, {16, 16}};
    static const uint32_t ms[] = {1, 2, 7, 33, 100};
    static const int lags[] = {2, 3, 4, 7};
    for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); ++si) {
        const int X = shapes[si][0], Y = shapes[si][1], n = X * Y;
        pm_torus_shape_t sh = {2, {X, Y}, 1, 1};
        int *co = shuffled_coords(X, Y);
        const int root = n / 3;
        kb_tree_t *t[PM_EDST_TREES];
        assert_int_equal(pm_torus_edst(&sh, n, co, root, t, NULL, 0), PM_OK);
        const kb_tree_t *const *tp = (const kb_tree_t *const *)t;
        int dmin = t[0]->depth, dmax = t[0]->depth;
        for (int i = 1; i < PM_EDST_TREES; ++i) {
            if (t[i]->depth < dmin) dmin = t[i]->depth;
            if (t[i]->depth > dmax) dmax = t[i]->depth;
        }
        mcast_sched_t **s = calloc(n, sizeof(*s));
        uint32_t *got = malloc(sizeof(uint32_t) * 128);
        for (size_t mi = 0; mi < sizeof(ms) / sizeof(ms[0]); ++mi) {
            const uint32_t m = ms[mi];
            const long r1 = mcast_multitree_rounds(tp, PM_EDST_TREES, m, 1);
            for (size_t li = 0; li < sizeof(lags) / sizeof(lags[0]); ++li) {
                const int L = lags[li];
                for (int r = 0; r < n; ++r) {
                    assert_int_equal(mcast_sched_multitree(tp, PM_EDST_TREES, r, m, L, &s[r]), KB_OK);
                    /* every send's block arrived at least L steps before */
                    for (uint32_t j = 0; j < m; ++j) got[j] = 0;
                    const size_t nr = mcast_sched_count(s[r], MCAST_OP_RECV);
                    assert_int_equal(nr, r == root ? 0 : m);
                    for (size_t i = 0; i < nr; ++i) {
                        mcast_op_t op;
                        assert_int_equal(mcast_sched_op(s[r], MCAST_OP_RECV, i, &op), KB_OK);
                        got[op.block] = op.step;
                    }
                    for (size_t i = 0; i < mcast_sched_count(s[r], MCAST_OP_SEND); ++i) {
                        mcast_op_t op;
                        assert_int_equal(mcast_sched_op(s[r], MCAST_OP_SEND, i, &op), KB_OK);
                        if (r != root && op.step < got[op.block] + (uint32_t)L)
                            fail_msg("%dx%d m %u lag %d: rank %d sends block %u in step %u, got it in %u",
                                     X, Y, m, L, r, op.block, op.step, got[op.block]);
                    }
                }
                long rounds = -1;
                char err[256] = "";
                if (mcast_sched_check(n, root, s, 1 << 20, 1, &rounds, err, sizeof(err)) != KB_OK)
                    fail_msg("%dx%d m %u lag %d: %s", X, Y, m, L, err);
                /* the checker runs the lists as soon as it can (a block sent once it is
                 * held): no later than the lagged greedy's rounds */
                const long model = mcast_multitree_rounds(tp, PM_EDST_TREES, m, L);
                assert_true(rounds >= (long)m + dmin - 1 && rounds <= model);
                if (model < (long)m + (long)(dmin - 1) * L || model > r1 + (long)(L - 1) * dmax)
                    fail_msg("%dx%d m %u lag %d: %ld rounds (lag 1: %ld, depths %d..%d)", X, Y, m,
                             L, model, r1, dmin, dmax);
                for (int r = 0; r < n; ++r) mcast_sched_free(s[r]);
            }
        }
        mcast_sched_t *bad = NULL;
        assert_int_equal(mcast_sched_multitree(tp, PM_EDST_TREES, 0, 4, 0, &bad), KB_ERR_ARG);
        assert_int_equal(mcast_sched_multitree(tp, PM_EDST_TREES, 0, 4, MCAST_MULTITREE_LAG_MAX + 1, &bad),
                         KB_ERR_ARG);
        assert_null(bad);
        assert_int_equal(mcast_multitree_rounds(tp, PM_EDST_TREES, 4, 0), -1);
        free(got);
        free(s);
        for (int i = 0; i < PM_EDST_TREES; ++i) pm_tree_free(t[i]);
        free(co);
    }
}

/* The lag the model takes (fam_multitree.cpp, "Lag"): with synchronous sends in flight
 * (eager_bytes 0, max_sends >= 2) the least of lag 1's closed form and
 * rounds(L) x max(R, 1.7 h / L) over the lags L >= 2, R a rank's period per block (here
 * o_send = 1 a send, one send a block: 1; o_recv is the sender's wait, folded into
 * o_send by the planner), h a hop without o_recv (o_send + latency = 9); on 8 x 8's
 * trees at <= 256 blocks the rounds are the greedy's exactly.  Standard sends: lag 1. */
static void test_lag_model(void **state)
{
    (void)state;
    const int X = 8, n = X * X;
    pm_torus_shape_t sh = {2, {X, X}, 1, 1};
    int *co = shuffled_coords(X, X);
    kb_tree_t *t[PM_EDST_TREES];
    assert_int_equal(pm_torus_edst(&sh, n, co, 0, t, NULL, 0), PM_OK);
    const kb_tree_t *const *tp = (const kb_tree_t *const *)t;
    mcast_loggp_t g;
    memset(&g, 0, sizeof(g));
    g.o_send_us = 1.0;
    g.o_recv_us = 1.0; /* in lag 1's closed form a rank's period, not in the lagged one */
    g.latency_us = 8.0;
    g.eager_bytes = 0;
    static const uint32_t ms[] = {1, 4, 16, 64, 200};
    for (size_t mi = 0; mi < sizeof(ms) / sizeof(ms[0]); ++mi) {
        const uint32_t m = ms[mi];
        double best = -1.0;
        int best_lag = 0;
        for (int L = 2; L <= MCAST_MULTITREE_LAG_MAX; ++L) {
            double round = 1.7 * 9.0 / L;
            if (round < 1.0) round = 1.0;
            const double tl = (double)mcast_multitree_rounds(tp, PM_EDST_TREES, m, L) * round;
            if (best < 0.0 || tl < best) {
                best = tl;
                best_lag = L;
            }
        }
        const double p = mcast_multitree_predict_us(tp, PM_EDST_TREES, m, m, &g, 8, 16);
        const int lag = mcast_multitree_lag(tp, PM_EDST_TREES, m, m, &g, 8, 16);
        if (p > best * (1 + 1e-9) || (lag > 1 && fabs(p - best) > 1e-9 * best) ||
            (lag == 1 && p >= best))
            fail_msg("m %u: predicted %g at lag %d, least lagged %g (lag %d)", m, p, lag, best, best_lag);
        if (lag > 1) assert_int_equal(lag, best_lag);
        best_lag = lag;
        if (m == 1) assert_int_equal(best_lag, 1); /* all fill: a lag only adds to it */
        if (m >= 200) assert_true(best_lag > 1);   /* the stream outweighs the lag's fill */
        g.eager_bytes = 1 << 20;                 /* standard sends */
        assert_int_equal(mcast_multitree_lag(tp, PM_EDST_TREES, m, m, &g, 8, 16), 1);
        g.eager_bytes = 0;
    }
    assert_int_equal(mcast_multitree_lag(NULL, 4, 1, 1, &g, 8, 16), -1);
    for (int i = 0; i < PM_EDST_TREES; ++i) pm_tree_free(t[i]);
    free(co);
}

/* Bad input to the schedule: trees of different sizes or roots, too many trees. */
static void test_multitree_args(void **state)
{
    (void)state;
    pm_torus_shape_t a = {2, {3, 3}, 1, 1}, b = {2, {3, 4}, 1, 1};
    int co[24];
    for (int r = 0; r < 12; ++r) {
        co[2 * r] = r % 3;
        co[2 * r + 1] = r / 3;
    }
    kb_tree_t *ta[PM_EDST_TREES], *tb[PM_EDST_TREES], *tr[PM_EDST_TREES];
    assert_int_equal(pm_torus_edst(&a, 9, co, 0, ta, NULL, 0), PM_OK);
    assert_int_equal(pm_torus_edst(&b, 12, co, 0, tb, NULL, 0), PM_OK);
    assert_int_equal(pm_torus_edst(&a, 9, co, 4, tr, NULL, 0), PM_OK);
    const kb_tree_t *mixed[2] = {ta[0], tb[1]}, *roots[2] = {ta[0], tr[1]};
    mcast_sched_t *s = NULL;
    assert_int_equal(mcast_sched_multitree(mixed, 2, 0, 4, 1, &s), KB_ERR_ARG);
    assert_null(s);
    assert_int_equal(mcast_sched_multitree(roots, 2, 0, 4, 1, &s), KB_ERR_ARG);
    assert_int_equal(mcast_sched_multitree((const kb_tree_t *const *)ta, 0, 0, 4, 1, &s), KB_ERR_ARG);
    assert_int_equal(mcast_sched_multitree((const kb_tree_t *const *)ta, 4, 9, 4, 1, &s), KB_ERR_ARG);
    assert_int_equal(mcast_sched_multitree(NULL, 4, 0, 4, 1, &s), KB_ERR_ARG);
    assert_int_equal(mcast_multitree_rounds(mixed, 2, 4, 1), -1);
    /* one tree alone is a pipelined tree: depth + m - 1 rounds for a chain-free shape */
    assert_int_equal(mcast_sched_multitree((const kb_tree_t *const *)ta, 1, 0, 4, 1, &s), KB_OK);
    mcast_sched_free(s);
    for (int i = 0; i < PM_EDST_TREES; ++i) {
        pm_tree_free(ta[i]);
        pm_tree_free(tb[i]);
        pm_tree_free(tr[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trees),
        cmocka_unit_test(test_trees_large),
        cmocka_unit_test(test_declines),
        cmocka_unit_test(test_schedules),
        cmocka_unit_test(test_multitree_args),
        cmocka_unit_test(test_sync_model),
        cmocka_unit_test(test_lag),
        cmocka_unit_test(test_lag_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
