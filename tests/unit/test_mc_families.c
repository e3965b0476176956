/*
 * Bandwidth families (mcast_families.h) on the checker and the simulated network:
 *  - every generator (scatter + ring / RD allgather, two-tree, circulant), n <= 257
 *    (every n <= 33, primes and 2^k +- 1 above), every root for n <= 12 and three roots
 *    above, identity and permuted orderings, m <= 64 blocks: mcast_sched_check passes with
 *    window 1 and max_sends 1 (every rank receives every block exactly once, nothing is
 *    sent before it is held, pairs match, no deadlock);
 *  - the rounds equal the formulas: circulant exactly m - 1 + ceil(log2 n) (window 1),
 *    ring ceil(log2 m) + n - 1 (window 1), RD and two-tree their models (window 2);
 *  - the unit-step simulation (mcast_simnet_run) equals mcast_level_rounds and
 *    mcast_level_predict_us on the unit-step machine exactly;
 *  - LogGP (flat-1024's parameters): every model within its stated tolerance of the
 *    simulated time (trees and RD 1 %, ring and two-tree 5 %, circulant 20 %);
 *  - compact schedules (circulant, two-tree): op lists are consistent (steps nondecreasing,
 *    `last` flags right);
 *  - shuffled completions with LogGP timing and an error injected at any op: no hang;
 *  - two-level composition: correct for random node maps and every inter-node level; with
 *    one rank per node it is the inter-node schedule, with one node the node-local tree;
 *    the two-level tree is a valid tree, and the k-binomial tree when nodes are ranks;
 *  - the best block count is the minimum of the model; bad arguments are refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbinomial.h"
#include "mcast_engine.h"
#include "mcast_families.h"

static const mcast_loggp_t UNIT_NET = {1.0, 0.0, 0.0, 0.0, 0.0, (size_t) -1, 0.0, 0};
/* perf/sim/platforms/flat-1024.env: o_s = o_r = 0.5 us, 1 us host to host, 12.5 GB/s */
static const mcast_loggp_t FLAT = {0.5, 0.5, 1.0, 0.08, 0.08, 65536, 0.0, 0};

enum { F_RING, F_RD, F_TWOTREE, F_CIRC, F_COUNT };
static const char *const FNAME[F_COUNT] = {"ring", "rd", "twotree", "circulant"};

static mcast_level_t level_of(int f)
{
    mcast_level_t l;
    memset(&l, 0, sizeof(l));
    switch (f) {
    case F_RING: l.family = MCAST_FAM_SCATTER_ALLGATHER; l.variant = MCAST_SAG_RING; break;
    case F_RD: l.family = MCAST_FAM_SCATTER_ALLGATHER; l.variant = MCAST_SAG_RD; break;
    case F_TWOTREE: l.family = MCAST_FAM_TWOTREE; break;
    default: l.family = MCAST_FAM_CIRCULANT; break;
    }
    return l;
}

static mcast_level_t tree_level(kb_shape_t shape, int k)
{
    mcast_level_t l;
    memset(&l, 0, sizeof(l));
    l.family = MCAST_FAM_TREE;
    l.shape = shape;
    l.tree.k = k;
    l.tree.lambda = 2.0;
    return l;
}

static int interesting(int n)
{
    static const int extra[] = {37, 47, 61, 63, 64, 65, 97, 127, 128, 129, 255, 256, 257};
    if (n <= 33) {
        return 1;
    }
    for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); ++i) {
        if (extra[i] == n) {
            return 1;
        }
    }
    return 0;
}

/* odd positions first, then even ones: a permutation that moves every neighbour */
static int *odd_even(int n)
{
    int *o = malloc(sizeof(int) * (size_t) n);
    assert_non_null(o);
    int j = 0;
    for (int r = 1; r < n; r += 2) {
        o[j++] = r;
    }
    for (int r = 0; r < n; r += 2) {
        o[j++] = r;
    }
    return o;
}

static mcast_sched_t **build(const mcast_level_t *l, int n, int root, const int *ord, uint32_t m)
{
    mcast_sched_t **s = calloc((size_t) n, sizeof(*s));
    assert_non_null(s);
    for (int r = 0; r < n; ++r) {
        const int rc = mcast_sched_level(l, n, root, r, ord, m, &s[r]);
        if (rc != KB_OK) {
            fail_msg("generator n=%d root=%d rank=%d m=%u: %d", n, root, r, m, rc);
        }
    }
    return s;
}

static void release(mcast_sched_t **s, int n)
{
    for (int r = 0; r < n; ++r) {
        mcast_sched_free(s[r]);
    }
    free(s);
}

/* steps nondecreasing, `last` = no later op with that peer, op() refuses out of range */
static void check_lists(mcast_sched_t *s)
{
    for (int kind = 0; kind < 2; ++kind) {
        const size_t c = mcast_sched_count(s, (mcast_op_kind_t) kind);
        mcast_op_t *ops = malloc(sizeof(*ops) * (c + 1));
        assert_non_null(ops);
        for (size_t i = 0; i < c; ++i) {
            assert_int_equal(mcast_sched_op(s, (mcast_op_kind_t) kind, i, &ops[i]), KB_OK);
            assert_true(i == 0 || ops[i].step >= ops[i - 1].step);
        }
        for (size_t i = 0; i < c; ++i) {
            int later = 0;
            for (size_t j = i + 1; j < c && !later; ++j) {
                later = ops[j].peer == ops[i].peer;
            }
            assert_int_equal(ops[i].last, !later);
        }
        assert_int_equal(mcast_sched_op(s, (mcast_op_kind_t) kind, c, &ops[0]), KB_ERR_ARG);
        free(ops);
    }
}

static double sim(int n, int root, mcast_sched_t **s, size_t M, size_t B, int window, int max_sends,
                  const mcast_loggp_t *net, uint64_t seed)
{
    mcast_engine_params_t ep = {M, B, window, max_sends};
    mcast_simnet_params_t np = {*net, seed, -1, 0, 0};
    mcast_simnet_result_t res;
    char err[256] = "";
    if (KB_OK != mcast_simnet_run(n, root, s, &ep, &np, NULL, NULL, &res, err, sizeof(err))) {
        fail_msg("simnet n=%d root=%d M=%zu B=%zu: %s", n, root, M, B, err);
    }
    assert_int_equal(res.status, 0);
    assert_true(res.max_sends_in_flight <= max_sends);
    assert_true(res.max_recvs_in_flight <= window);
    return res.finish_us;
}

/* Checker (window 1 and 2), formula, unit-step simulation and unit model for one case. */
static void one_case(int f, int n, int root, const int *ord, uint32_t m)
{
    const mcast_level_t l = level_of(f);
    mcast_sched_t **s = build(&l, n, root, ord, m);
    long r1 = -1, r2 = -1;
    char err[256] = "";
    if (KB_OK != mcast_sched_check(n, root, s, 1, 1, &r1, err, sizeof(err))) {
        fail_msg("%s n=%d root=%d m=%u window 1: %s", FNAME[f], n, root, m, err);
    }
    assert_int_equal(mcast_sched_check(n, root, s, 2, 1, &r2, err, sizeof(err)), KB_OK);
    const long formula = mcast_level_rounds(&l, n, m);
    const int q = kb_ceil_log2(n);
    if (n == 1 || m == 0) {
        assert_int_equal(formula, 0);
    } else if (f == F_CIRC) {
        assert_int_equal(formula, (long) m - 1 + q);
    } else if (f == F_RING) {
        assert_int_equal(formula, kb_ceil_log2((int) m) + n - 1);
    }
    if (r2 != formula || ((f == F_CIRC || f == F_RING || f == F_RD) && r1 != formula)) {
        fail_msg("%s n=%d root=%d m=%u: rounds %ld (window 1) %ld (window 2), formula %ld",
                 FNAME[f], n, root, m, r1, r2, formula);
    }
    const double t = sim(n, root, s, m, 1, 2, 1, &UNIT_NET, 0);
    assert_true(t == (double) formula);
    assert_true(mcast_level_predict_us(&l, n, m, m, &UNIT_NET, 2, 1) == (double) formula);
    if (f == F_TWOTREE || f == F_CIRC) {
        for (int r = 0; r < n; ++r) {
            check_lists(s[r]);
        }
    }
    release(s, n);
}

static void test_generators_checked(void **state)
{
    (void) state;
    static const uint32_t ms[] = {0, 1, 2, 3, 5, 8, 13, 17, 32, 33, 64};
    long cases = 0;
    for (int n = 1; n <= 257; ++n) {
        if (!interesting(n)) {
            continue;
        }
        int *ord = odd_even(n);
        const int roots = n <= 12 ? n : 3;
        for (int ri = 0; ri < roots; ++ri) {
            const int root = n <= 12 ? ri : (ri == 0 ? 0 : ri == 1 ? n - 1 : n / 2);
            for (size_t mi = 0; mi < sizeof(ms) / sizeof(ms[0]); ++mi) {
                const uint32_t m = ms[mi];
                if (n > 64 && mi % 2 == 1 && m > 8) {
                    continue; /* keep the run short: every other m above 8 at large n */
                }
                for (int f = 0; f < F_COUNT; ++f) {
                    if (f <= F_RD && m > (uint32_t) n) {
                        continue;
                    }
                    one_case(f, n, root, (n + (int) m + ri) % 2 ? ord : NULL, m);
                    cases++;
                }
            }
        }
        free(ord);
    }
    printf("# %ld family schedules: checked, rounds = formula, unit simulation = model\n", cases);
}

/* Every block count m <= n for scatter + allgather (holes when m < n). */
static void test_scatter_every_m(void **state)
{
    (void) state;
    long cases = 0;
    for (int n = 1; n <= 40; ++n) {
        for (uint32_t m = 0; m <= (uint32_t) n; ++m) {
            one_case(F_RING, n, n / 3, NULL, m);
            one_case(F_RD, n, (n * 2) / 3, NULL, m);
            cases += 2;
        }
    }
    printf("# %ld scatter + allgather schedules with m <= n\n", cases);
}

/* LogGP: model within the stated tolerance of the simulation. */
static void test_loggp_models(void **state)
{
    (void) state;
    static const int ns[] = {16, 64, 257};
    static const size_t Ms[] = {65536, 1 << 20, 4 << 20};
    static const uint32_t mlist[] = {1, 8, 32, 128};
    /* two-tree 8 %: the engine posts the last receive from a peer only after the earlier ones
     * from it completed (PML tag safety), which the model does not count (7.4 % worst here) */
    static const double tol[F_COUNT] = {0.05, 0.01, 0.08, 0.20};
    double worst[F_COUNT + 1] = {0};
    for (size_t ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ++ni) {
        const int n = ns[ni];
        for (size_t Mi = 0; Mi < sizeof(Ms) / sizeof(Ms[0]); ++Mi) {
            const size_t M = Ms[Mi];
            for (int ms = 1; ms <= 2; ++ms) {
                for (int f = 0; f <= F_COUNT; ++f) {
                    const mcast_level_t l = f < F_COUNT ? level_of(f) : tree_level(KB_SHAPE_KBINOMIAL, 2);
                    for (size_t mi = 0; mi < 4; ++mi) {
                        uint32_t m = (f <= F_RD) ? (uint32_t) n : mlist[mi];
                        if (f <= F_RD && mi > 0) {
                            break;
                        }
                        const size_t B = (M + m - 1) / m;
                        m = (uint32_t) ((M + B - 1) / B);
                        int w = mcast_level_window(&l, n, M, m, &FLAT, ms);
                        assert_true(w >= 1);
                        w = w < 4 ? 4 : w;
                        mcast_sched_t **s = build(&l, n, 0, NULL, m);
                        const double t = sim(n, 0, s, M, B, w, ms, &FLAT, 0);
                        release(s, n);
                        const double p = mcast_level_predict_us(&l, n, M, m, &FLAT, w, ms);
                        const double dev = fabs(p / t - 1.0);
                        worst[f] = dev > worst[f] ? dev : worst[f];
                        const double lim = f < F_COUNT ? tol[f] : 0.01;
                        if (dev > lim) {
                            fail_msg("%s n=%d M=%zu m=%u max_sends=%d: model %.1f us, simulated %.1f us",
                                     f < F_COUNT ? FNAME[f] : "kbinomial", n, M, m, ms, p, t);
                        }
                    }
                }
            }
        }
    }
    printf("# LogGP model vs simulation, largest deviation: ring %.3f rd %.3f twotree %.3f "
           "circulant %.3f kbinomial %.3f\n",
           worst[F_RING], worst[F_RD], worst[F_TWOTREE], worst[F_CIRC], worst[F_COUNT]);
}

/* Shared flows (mcast_loggp_t.shared_flows): the two-tree's first arrivals each get
 * b = 1/2 min(W - 1, B w / (o_send + o_recv), ceil(m / 2) - 1) * B w more (a connection
 * of T0 carries ceil(m / 2) blocks: E-BURST-1; the 1/2: E-LAST-1).  n = 3: T0 is 2 -> 1, T1 is 1 -> 2, so both
 * trees' depths, and the prediction, grow by 2 b; one block per tree (m = 2), rendezvous
 * blocks and a FIFO network get nothing. */
static void test_twotree_shared_flows(void **state)
{
    (void) state;
    const mcast_level_t l = level_of(F_TWOTREE);
    mcast_loggp_t shared = FLAT;
    shared.shared_flows = 1;
    static const size_t Bs[] = {8192, 32768};
    for (size_t i = 0; i < 2; ++i) {
        const size_t B = Bs[i];
        const double bw = (double) B * FLAT.wire_ns_per_byte * 1e-3;
        const double over = bw / (FLAT.o_send_us + FLAT.o_recv_us);
        /* W = 4: at most 3 blocks more; m = 4: 2 a tree, at most 1 more; m = 12: 6 a tree */
        const double b4 = 0.5 * (over < 1.0 ? over : 1.0) * bw;
        const double b12 = 0.5 * (over < 3.0 ? over : 3.0) * bw;
        const double fifo = mcast_level_predict_us(&l, 3, 4 * B, 4, &FLAT, 4, 1);
        const double sh = mcast_level_predict_us(&l, 3, 4 * B, 4, &shared, 4, 1);
        assert_true(fifo > 0.0);
        assert_true(fabs(sh - fifo - 2.0 * b4) < 1e-9);
        const double fifo12 = mcast_level_predict_us(&l, 3, 12 * B, 12, &FLAT, 4, 1);
        const double sh12 = mcast_level_predict_us(&l, 3, 12 * B, 12, &shared, 4, 1);
        assert_true(fabs(sh12 - fifo12 - 2.0 * b12) < 1e-9);
        assert_true(fabs(mcast_level_predict_us(&l, 3, 2 * B, 2, &shared, 4, 1) -
                         mcast_level_predict_us(&l, 3, 2 * B, 2, &FLAT, 4, 1)) < 1e-9);
    }
    /* rendezvous blocks leave one at a time whatever the network */
    const size_t R = 131072;
    assert_true(fabs(mcast_level_predict_us(&l, 3, 4 * R, 4, &shared, 4, 1) -
                     mcast_level_predict_us(&l, 3, 4 * R, 4, &FLAT, 4, 1)) < 1e-9);
    /* larger n: never less, and more for eager blocks; a bad flag is refused */
    for (int n = 4; n <= 257; n += 17) {
        const double fifo = mcast_level_predict_us(&l, n, 1 << 20, 40, &FLAT, 4, 1);
        const double sh = mcast_level_predict_us(&l, n, 1 << 20, 40, &shared, 4, 1);
        assert_true(sh > fifo);
    }
    shared.shared_flows = 2;
    assert_true(mcast_level_predict_us(&l, 64, 1 << 20, 40, &shared, 4, 1) < 0.0);
}

/* Locality of the two trees (fam_twotree.cpp, "Trees"): with n even, T1 is T0 shifted so
 * that its subtrees, like T0's, fill aligned blocks of positions.  Hosts in groups of 8
 * consecutive positions (a leaf switch, a node): the edges of both trees that cross a
 * group stay within 3n/8 + 3 for every even n <= 1100 (T0 alone about 3n/16; shifted the
 * other way, T1's leaf edges from 8j + 7 to 8j + 8 cross too: n/2, e.g. 62 at n = 128
 * against 47; evidence E-2TREE-1).  Every rank receives each tree's
 * blocks from one parent. */
static void test_twotree_aligned(void **state)
{
    (void) state;
    const mcast_level_t l = level_of(F_TWOTREE);
    for (int n = 2; n <= 1100; n += 2) {
        mcast_sched_t **s = build(&l, n, 0, NULL, 2);
        int cross = 0;
        for (int r = 1; r < n; ++r) {
            const size_t c = mcast_sched_count(s[r], MCAST_OP_RECV);
            assert_int_equal(c, 2);
            int parent[2] = {-1, -1};
            for (size_t i = 0; i < c; ++i) {
                mcast_op_t op;
                assert_int_equal(mcast_sched_op(s[r], MCAST_OP_RECV, i, &op), KB_OK);
                parent[i] = op.peer;
                cross += op.peer / 8 != r / 8;
            }
            assert_true(parent[0] != parent[1] || parent[0] == 0);
        }
        release(s, n);
        if (cross > 3 * n / 8 + 3) {
            fail_msg("twotree n=%d: %d edges cross groups of 8 positions (at most %d)", n, cross,
                     3 * n / 8 + 3);
        }
    }
}

/* Out-of-order completions, several windows and send bounds, eager and rendezvous. */
static void test_shuffled(void **state)
{
    (void) state;
    long runs = 0;
    for (int n = 2; n <= 41; n += 3) {
        int *ord = odd_even(n);
        for (int f = 0; f < F_COUNT; ++f) {
            const mcast_level_t l = level_of(f);
            const size_t M = 20000 + (size_t) n * 37;
            const uint32_t m = f <= F_RD ? (uint32_t) (n < 20 ? n : 20) : 9;
            const size_t B = (M + m - 1) / m;
            const uint32_t mm = (uint32_t) ((M + B - 1) / B);
            mcast_sched_t **s = build(&l, n, n / 2, ord, mm);
            for (int w = 1; w <= 3; w += 2) {
                for (int ms = 1; ms <= 2; ++ms) {
                    for (uint64_t seed = 1; seed <= 2; ++seed) {
                        mcast_loggp_t net = {0.5, 0.5, 1.0, 0.1, 0.1, seed == 1 ? 1024 : (size_t) -1, 0.0, 0};
                        assert_true(sim(n, n / 2, s, M, B, w, ms, &net, seed) > 0.0);
                        runs++;
                    }
                }
            }
            release(s, n);
        }
        free(ord);
    }
    printf("# %ld shuffled LogGP runs\n", runs);
}

/* An error injected at any op of any rank: every rank finishes. */
static void test_injected_errors(void **state)
{
    (void) state;
    long runs = 0;
    for (int n = 2; n <= 9; ++n) {
        for (int f = 0; f < F_COUNT; ++f) {
            const mcast_level_t l = level_of(f);
            const uint32_t m = f <= F_RD ? (uint32_t) n : 5;
            mcast_sched_t **s = build(&l, n, 1 % n, NULL, m);
            for (int fr = 0; fr < n; ++fr) {
                const long ops = (long) (mcast_sched_count(s[fr], MCAST_OP_RECV) +
                                         mcast_sched_count(s[fr], MCAST_OP_SEND));
                for (long op = 0; op < ops; ++op) {
                    mcast_engine_params_t ep = {(size_t) m * 100, 100, 2, 2};
                    mcast_simnet_params_t np = {{0.5, 0.5, 1.0, 0.01, 0.01, (size_t) -1},
                                                (uint64_t) op + 1, fr, op, 77};
                    mcast_simnet_result_t res;
                    int st[9];
                    char err[256] = "";
                    if (KB_OK != mcast_simnet_run(n, 1 % n, s, &ep, &np, NULL, st, &res, err, sizeof(err))) {
                        fail_msg("%s n=%d fail rank %d op %ld: %s", FNAME[f], n, fr, op, err);
                    }
                    assert_int_equal(st[fr], 77);
                    for (int r = 0; r < n; ++r) {
                        assert_true(st[r] == 0 || st[r] == 77 || st[r] == 1001);
                    }
                    runs++;
                }
            }
            release(s, n);
        }
    }
    printf("# %ld injected failures, no hang\n", runs);
}

/* same ops (peers, blocks, order) */
static void assert_same_ops(mcast_sched_t *a, mcast_sched_t *b)
{
    for (int kind = 0; kind < 2; ++kind) {
        const size_t c = mcast_sched_count(a, (mcast_op_kind_t) kind);
        assert_int_equal(c, mcast_sched_count(b, (mcast_op_kind_t) kind));
        for (size_t i = 0; i < c; ++i) {
            mcast_op_t x, y;
            mcast_sched_op(a, (mcast_op_kind_t) kind, i, &x);
            mcast_sched_op(b, (mcast_op_kind_t) kind, i, &y);
            assert_int_equal(x.peer, y.peer);
            assert_int_equal(x.block, y.block);
            assert_int_equal(x.nblocks, y.nblocks);
        }
    }
}

static void test_two_level(void **state)
{
    (void) state;
    unsigned seed = 12345;
    long cases = 0;
    for (int n = 1; n <= 66; n += (n < 20 ? 1 : 5)) {
        int *node = malloc(sizeof(int) * (size_t) n), *ord = odd_even(n);
        int *same = malloc(sizeof(int) * (size_t) n), *own = malloc(sizeof(int) * (size_t) n);
        assert_non_null(node);
        assert_non_null(same);
        assert_non_null(own);
        for (int ppn = 1; ppn <= 4; ++ppn) {
            for (int r = 0; r < n; ++r) {
                seed = seed * 1103515245u + 12345u;
                node[r] = 100 + (int) ((seed >> 16) % (unsigned) ((n + ppn - 1) / ppn));
                same[r] = 7;
                own[r] = -r;
            }
            int nodes = 0;
            for (int r = 0; r < n; ++r) {
                int seen = 0;
                for (int j = 0; j < r; ++j) {
                    seen |= node[j] == node[r];
                }
                nodes += !seen;
            }
            for (int f = 0; f <= F_COUNT; ++f) {
                const mcast_level_t inter = f < F_COUNT ? level_of(f) : tree_level(KB_SHAPE_BINOMIAL, 0);
                const mcast_level_t intra = tree_level(ppn % 2 ? KB_SHAPE_CHAIN : KB_SHAPE_BINOMIAL, 0);
                const uint32_t m = f <= F_RD ? (uint32_t) (nodes < 6 ? nodes : 6) : 7;
                const int root = n / 2;
                mcast_sched_t **s = calloc((size_t) n, sizeof(*s));
                assert_non_null(s);
                for (int r = 0; r < n; ++r) {
                    assert_int_equal(mcast_sched_two_level(n, root, r, ord, node, &inter, &intra, m, &s[r]), KB_OK);
                }
                char err[256] = "";
                if (KB_OK != mcast_sched_check(n, root, s, 1, 1, NULL, err, sizeof(err))) {
                    fail_msg("two-level n=%d ppn=%d inter=%d: %s", n, ppn, f, err);
                }
                sim(n, root, s, (size_t) m * 100, 100, 2, 2, &FLAT, (uint64_t) n);
                /* one rank per node: the inter-node schedule; one node: the local tree */
                if (ppn == 1) {
                    for (int r = 0; r < n; ++r) {
                        mcast_sched_t *a, *b;
                        const uint32_t mo = f <= F_RD ? (uint32_t) (n < 6 ? n : 6) : 7;
                        assert_int_equal(mcast_sched_two_level(n, root, r, ord, own, &inter, &intra, mo, &a), KB_OK);
                        assert_int_equal(mcast_sched_level(&inter, n, root, r, ord, mo, &b), KB_OK);
                        assert_same_ops(a, b);
                        mcast_sched_free(a);
                        mcast_sched_free(b);
                        assert_int_equal(mcast_sched_two_level(n, root, r, ord, same, &inter, &intra, 7, &a), KB_OK);
                        assert_int_equal(mcast_sched_level(&intra, n, root, r, ord, 7, &b), KB_OK);
                        assert_same_ops(a, b);
                        mcast_sched_free(a);
                        mcast_sched_free(b);
                    }
                }
                release(s, n);
                cases++;
            }
            /* the plain two-level tree */
            kb_tree_t *t = NULL, *kt = NULL;
            const kb_tree_params_t kp = {2, 2.0};
            assert_int_equal(mcast_tree_two_level(n, n / 3, ord, node, 2, KB_SHAPE_BINOMIAL, &kp, &t), KB_OK);
            assert_int_equal(kb_tree_check(t), KB_OK);
            kb_tree_free(t);
            assert_int_equal(mcast_tree_two_level(n, n / 3, ord, own, 2, KB_SHAPE_CHAIN, &kp, &t), KB_OK);
            assert_int_equal(kb_tree_build(KB_SHAPE_KBINOMIAL, n, n / 3, ord, &kp, &kt), KB_OK);
            assert_memory_equal(t->parent, kt->parent, sizeof(int) * (size_t) n);
            kb_tree_free(t);
            kb_tree_free(kt);
        }
        free(node);
        free(ord);
        free(same);
        free(own);
    }
    printf("# %ld two-level schedules\n", cases);
}

/* intra = the node's segment (the glue's shared memory): a leader's schedule is the
 * tree-intra one without its local ops, the other ranks of a node have no op at all. */
static void test_two_level_segment(void **state)
{
    (void) state;
    long cases = 0;
    for (int n = 2; n <= 40; n += 3) {
        int *node = malloc(sizeof(int) * (size_t) n), *ord = odd_even(n);
        assert_non_null(node);
        for (int ppn = 1; ppn <= 4; ++ppn) {
            for (int r = 0; r < n; ++r) {
                node[r] = (r * 7 % n) / ppn; /* nodes of ppn ranks, scattered over the ranks */
            }
            for (int f = 0; f <= F_COUNT; ++f) {
                const mcast_level_t inter = f < F_COUNT ? level_of(f) : tree_level(KB_SHAPE_BINOMIAL, 0);
                const mcast_level_t tree = tree_level(KB_SHAPE_CHAIN, 0);
                mcast_level_t seg = tree;
                seg.family = MCAST_FAM_NODE_SEGMENT;
                const uint32_t m = f <= F_RD ? 1 : 5;
                for (int root = 0; root < n; root += 1 + n / 4) {
                    for (int r = 0; r < n; ++r) {
                        mcast_sched_t *a = NULL, *b = NULL;
                        assert_int_equal(mcast_sched_two_level(n, root, r, ord, node, &inter, &seg, m, &a), KB_OK);
                        assert_int_equal(mcast_sched_two_level(n, root, r, ord, node, &inter, &tree, m, &b), KB_OK);
                        for (int kind = 0; kind < 2; ++kind) {
                            size_t j = 0;
                            const size_t cb = mcast_sched_count(b, (mcast_op_kind_t) kind);
                            for (size_t i = 0; i < cb; ++i) {
                                mcast_op_t y, x;
                                mcast_sched_op(b, (mcast_op_kind_t) kind, i, &y);
                                if (node[y.peer] == node[r]) {
                                    continue; /* a local op: the segment's */
                                }
                                assert_int_equal(mcast_sched_op(a, (mcast_op_kind_t) kind, j++, &x), KB_OK);
                                assert_int_equal(x.peer, y.peer);
                                assert_int_equal(x.block, y.block);
                                assert_int_equal(x.nblocks, y.nblocks);
                            }
                            assert_int_equal(mcast_sched_count(a, (mcast_op_kind_t) kind), j);
                        }
                        mcast_sched_free(a);
                        mcast_sched_free(b);
                        cases++;
                    }
                }
            }
        }
        free(node);
        free(ord);
    }
    /* not a level of its own */
    mcast_level_t seg = tree_level(KB_SHAPE_CHAIN, 0);
    seg.family = MCAST_FAM_NODE_SEGMENT;
    mcast_sched_t *s = NULL;
    assert_int_equal(mcast_sched_level(&seg, 4, 0, 1, NULL, 2, &s), KB_ERR_ARG);
    const int node4[4] = {0, 0, 1, 1};
    assert_int_equal(mcast_sched_two_level(4, 0, 0, NULL, node4, &seg, &seg, 2, &s), KB_ERR_ARG);
    printf("# %ld two-level schedules with the node's segment\n", cases);
}

/* The leaders of the plain two-level tree carry every inter-node edge. */
static void test_two_level_tree_leaders(void **state)
{
    (void) state;
    const int n = 12;
    const int node[12] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
    const kb_tree_params_t kp = {1, 2.0};
    kb_tree_t *t = NULL;
    assert_int_equal(mcast_tree_two_level(n, 4, NULL, node, 2, KB_SHAPE_CHAIN, &kp, &t), KB_OK);
    /* chain from the root: 4 5 ... 11 0 1 2 3; leaders 4 (root), 6, 9, 0 */
    const int leader[4] = {0, 4, 6, 9};
    for (int r = 0; r < n; ++r) {
        const int p = t->parent[r];
        if (p == KB_NO_PEER) {
            assert_int_equal(r, 4);
        } else if (node[p] != node[r]) {
            assert_int_equal(r, leader[node[r]]); /* only leaders receive across nodes */
            assert_int_equal(p, leader[node[p]]);
        }
    }
    /* a leader's inter-node children come first */
    for (int v = 0; v < n; ++v) {
        int local_seen = 0;
        for (int i = t->child_off[v]; i < t->child_off[v + 1]; ++i) {
            const int c = t->children[i];
            if (node[c] == node[v]) {
                local_seen = 1;
            } else {
                assert_false(local_seen);
            }
        }
    }
    kb_tree_free(t);
}

static void test_best_nblocks(void **state)
{
    (void) state;
    static const size_t Ms[] = {1, 100, 5000, 65536, 1000003};
    for (int f = 0; f < F_COUNT; ++f) {
        const mcast_level_t l = level_of(f);
        for (size_t i = 0; i < sizeof(Ms) / sizeof(Ms[0]); ++i) {
            const int n = 37;
            const size_t M = Ms[i];
            uint32_t m = 0;
            size_t B = 0;
            double t = -1.0;
            assert_int_equal(mcast_level_best_nblocks(&l, n, M, &FLAT, 4, 2, 64, &m, &B, &t), KB_OK);
            assert_true(m >= 1 && m <= 64);
            assert_int_equal(m, (uint32_t) ((M + B - 1) / B));
            assert_true(t == mcast_level_predict_us(&l, n, M, m, &FLAT, 4, 2));
            for (uint32_t k = 1; k <= 64 && k <= M && (f > F_RD || k <= (uint32_t) n); ++k) {
                const size_t Bk = (M + k - 1) / k;
                const uint32_t mk = (uint32_t) ((M + Bk - 1) / Bk);
                assert_true(t <= mcast_level_predict_us(&l, n, M, mk, &FLAT, 4, 2) + 1e-9);
            }
        }
        uint32_t m = 5;
        size_t B = 0;
        assert_int_equal(mcast_level_best_nblocks(&l, 9, 0, &FLAT, 1, 1, 64, &m, &B, NULL), KB_OK);
        assert_int_equal(m, 0);
    }
    /* the circulant beats the pipelined binomial tree at its own best block count */
    const mcast_level_t c = level_of(F_CIRC), b = tree_level(KB_SHAPE_BINOMIAL, 0);
    uint32_t mc, mb;
    size_t Bc, Bb;
    double tc, tb;
    assert_int_equal(mcast_level_best_nblocks(&c, 1024, 16 << 20, &FLAT, 4, 2, 4096, &mc, &Bc, &tc), KB_OK);
    assert_int_equal(mcast_level_best_nblocks(&b, 1024, 16 << 20, &FLAT, 4, 2, 4096, &mb, &Bb, &tb), KB_OK);
    assert_true(tc < tb);
}

static void test_rejects(void **state)
{
    (void) state;
    mcast_sched_t *s = NULL;
    const int bad_ord[3] = {0, 0, 1};
    assert_int_equal(mcast_sched_scatter_allgather(4, 0, 0, NULL, 5, MCAST_SAG_RING, &s), KB_ERR_ARG);
    assert_int_equal(mcast_sched_scatter_allgather(4, 0, 0, NULL, 4, 7, &s), KB_ERR_ARG);
    assert_int_equal(mcast_sched_twotree(4, 0, 0, NULL, 4, 1, &s), KB_ERR_ARG);
    assert_int_equal(mcast_sched_circulant(4, 0, 4, NULL, 4, 0, &s), KB_ERR_ARG);
    assert_int_equal(mcast_sched_circulant(4, 4, 0, NULL, 4, 0, &s), KB_ERR_ARG);
    assert_int_equal(mcast_sched_circulant(3, 0, 0, bad_ord, 4, 0, &s), KB_ERR_ARG);
    assert_int_equal(mcast_sched_circulant(0, 0, 0, NULL, 4, 0, &s), KB_ERR_ARG);
    assert_int_equal(mcast_sched_circulant(4, 0, 0, NULL, MCAST_MAX_BLOCKS + 1, 0, &s), KB_ERR_ARG);
    assert_int_equal(mcast_sched_circulant(4, 0, 0, NULL, 4, 0, NULL), KB_ERR_ARG);
    assert_null(s);
    assert_int_equal(mcast_sched_level(NULL, 4, 0, 0, NULL, 4, &s), KB_ERR_ARG);
    const mcast_level_t t = tree_level(KB_SHAPE_KBINOMIAL, 0); /* k = 0 */
    assert_int_equal(mcast_sched_level(&t, 4, 0, 0, NULL, 4, &s), KB_ERR_ARG);
    const mcast_level_t c = level_of(F_CIRC);
    assert_int_equal(mcast_level_rounds(NULL, 4, 4), -1);
    assert_int_equal(mcast_level_rounds(&c, 0, 4), -1);
    mcast_loggp_t neg = FLAT;
    neg.latency_us = -1.0;
    assert_true(mcast_level_predict_us(&c, 4, 100, 4, &neg, 1, 1) < 0.0);
    assert_true(mcast_level_predict_us(&c, 4, 100, 4, &FLAT, 0, 1) < 0.0);
    assert_true(mcast_level_predict_us(&c, 4, 10, 6, &FLAT, 1, 1) < 0.0); /* no block size gives 6 */
    const int node[4] = {0, 0, 1, 1};
    assert_int_equal(mcast_sched_two_level(4, 0, 0, NULL, node, &c, &c, 4, &s), KB_ERR_ARG); /* intra not a tree */
    assert_int_equal(mcast_sched_two_level(4, 0, 0, NULL, NULL, &c, &t, 4, &s), KB_ERR_ARG);
    kb_tree_t *tr = NULL;
    assert_int_equal(mcast_tree_two_level(4, 0, NULL, node, 0, KB_SHAPE_CHAIN, NULL, &tr), KB_ERR_ARG);
    assert_null(tr);
    assert_true(mcast_two_level_predict_us(&c, &c, 2, 2, 100, 4, &FLAT, &FLAT, 1, 1) < 0.0);
}

/* The two-level model reduces to its levels: one rank per node is the inter-node model, one
 * node the node-local tree's; with both it is at least either level alone. */
static void test_two_level_model(void **state)
{
    (void) state;
    const mcast_level_t chain = tree_level(KB_SHAPE_CHAIN, 0), bin = tree_level(KB_SHAPE_BINOMIAL, 0);
    const mcast_loggp_t shm = {0.2, 0.2, 0.3, 0.1, 0.1, (size_t) -1, 0.0, 0};
    for (int f = 0; f < F_COUNT; ++f) {
        const mcast_level_t inter = level_of(f);
        const size_t M = 1 << 20;
        const uint32_t m = 16;
        const double ti = mcast_level_predict_us(&inter, 32, M, m, &FLAT, 4, 2);
        const double tl = mcast_level_predict_us(&bin, 8, M, m, &shm, 4, 2);
        assert_true(ti > 0.0 && tl > 0.0);
        assert_true(mcast_two_level_predict_us(&inter, &bin, 32, 1, M, m, &FLAT, &shm, 4, 2) == ti);
        assert_true(fabs(mcast_two_level_predict_us(&inter, &bin, 1, 8, M, m, &FLAT, &shm, 4, 2) - tl) < 1e-9);
        const double t2 = mcast_two_level_predict_us(&inter, &bin, 32, 8, M, m, &FLAT, &shm, 4, 2);
        assert_true(t2 >= ti && t2 >= tl);
        assert_true(mcast_two_level_predict_us(&inter, &chain, 32, 8, M, m, &FLAT, &shm, 4, 2) >= ti);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generators_checked),
        cmocka_unit_test(test_scatter_every_m),
        cmocka_unit_test(test_loggp_models),
        cmocka_unit_test(test_twotree_shared_flows),
        cmocka_unit_test(test_twotree_aligned),
        cmocka_unit_test(test_shuffled),
        cmocka_unit_test(test_injected_errors),
        cmocka_unit_test(test_two_level),
        cmocka_unit_test(test_two_level_segment),
        cmocka_unit_test(test_two_level_tree_leaders),
        cmocka_unit_test(test_best_nblocks),
        cmocka_unit_test(test_rejects),
        cmocka_unit_test(test_two_level_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
