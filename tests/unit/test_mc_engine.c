/*
 * Schedules and the engine (mcast_engine.h), run on the simulated network:
 *  - the seeds' step counts on the engine itself (seed 001 figs. 7-8: 3 packets to 3
 *    destinations in 6 steps on a binomial tree and 5 on a linear one, 3 packets to 7
 *    destinations in 9 steps; Theorem 2: L1 + (m-1)k on k-binomial trees);
 *  - every tree shape, every n <= 65 (and primes / 2^k +- 1 up to 257), every root for
 *    small n, FPFS and FCFS: the checker's rounds equal the unit-step simulator's, the
 *    engine's unit-step finish equals both, every rank holds every block exactly once;
 *  - LogGP timing with out-of-order completions: data exact, sends in flight <= max_sends,
 *    receives posted <= window;
 *  - an error injected mid-stream on any rank: every rank finishes (no hang), the
 *    failing rank reports the error, no rank reports success with wrong data;
 *  - the checker rejects broken schedules; the engine rejects bad parameters.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbinomial.h"
#include "mcast_engine.h"

static const mcast_simnet_params_t UNIT = {{1.0, 0.0, 0.0, 0.0, 0.0, (size_t) -1}, 0, -1, 0, 0};

typedef struct {
    int n;
    kb_tree_t *tree;
    mcast_sched_t **s;
} tree_scheds_t;

static void build(tree_scheds_t *ts, kb_shape_t shape, int n, int root, int k, uint32_t m,
                  kb_discipline_t disc)
{
    const kb_tree_params_t p = {k, 2.0};
    ts->n = n;
    ts->tree = NULL;
    assert_int_equal(kb_tree_build(shape, n, root, NULL, &p, &ts->tree), KB_OK);
    ts->s = calloc((size_t) n, sizeof(*ts->s));
    assert_non_null(ts->s);
    for (int r = 0; r < n; ++r) {
        assert_int_equal(mcast_sched_tree(ts->tree, r, m, disc, &ts->s[r]), KB_OK);
    }
}

static void release(tree_scheds_t *ts)
{
    for (int r = 0; r < ts->n; ++r) {
        mcast_sched_free(ts->s[r]);
    }
    free(ts->s);
    kb_tree_free(ts->tree);
}

/* Unit-step run of the engine: M = m bytes in 1-byte blocks. */
static double engine_steps(tree_scheds_t *ts, int root, uint32_t m, int window, int max_sends)
{
    mcast_engine_params_t ep = {m, 1, window, max_sends};
    mcast_simnet_result_t res;
    char err[256] = "";
    int rc = mcast_simnet_run(ts->n, root, ts->s, &ep, &UNIT, NULL, NULL, &res, err, sizeof(err));
    if (KB_OK != rc) {
        fail_msg("simnet: %s", err);
    }
    assert_int_equal(res.status, 0);
    assert_true(res.max_sends_in_flight <= max_sends);
    assert_true(res.max_recvs_in_flight <= window);
    return res.finish_us;
}

static long seed_steps(kb_shape_t shape, int n, uint32_t m)
{
    tree_scheds_t ts;
    build(&ts, shape, n, 0, 0, m, KB_DISC_FPFS);
    const double t = engine_steps(&ts, 0, m, 4, 1);
    long rounds = -1;
    assert_int_equal(mcast_sched_check(n, 0, ts.s, 4, 1, &rounds, NULL, 0), KB_OK);
    assert_int_equal(rounds, (long) t);
    release(&ts);
    return (long) t;
}

static void test_seed_steps_on_engine(void **state)
{
    (void) state;
    assert_int_equal(seed_steps(KB_SHAPE_BINOMIAL, 4, 3), 6);
    assert_int_equal(seed_steps(KB_SHAPE_CHAIN, 4, 3), 5);
    assert_int_equal(seed_steps(KB_SHAPE_BINOMIAL, 8, 3), 9);
    /* Theorem 2: L1 + (m-1) delta_root when the root has the largest fan-out, at most
     * L1 + (m-1)k always */
    long exact = 0;
    for (int n = 2; n <= 64; n += 7) {
        for (int k = 1; k <= kb_ceil_log2(n); ++k) {
            for (uint32_t m = 1; m <= 6; ++m) {
                tree_scheds_t ts;
                build(&ts, KB_SHAPE_KBINOMIAL, n, 0, k, m, KB_DISC_FPFS);
                const int droot = kb_tree_nchildren(ts.tree, 0);
                int dmax = 0;
                for (int v = 0; v < n; ++v) {
                    dmax = kb_tree_nchildren(ts.tree, v) > dmax ? kb_tree_nchildren(ts.tree, v) : dmax;
                }
                const double t = engine_steps(&ts, 0, m, 2, 1);
                assert_int_equal((long) t, kb_sim_steps(ts.tree, m, KB_DISC_FPFS));
                if (droot == dmax) {
                    assert_int_equal((long) t, kb_L1(n, k) + (long) (m - 1) * droot);
                    exact++;
                }
                assert_true((long) t <= kb_steps(n, m, k));
                release(&ts);
            }
        }
    }
    assert_true(exact > 100);
}

static int interesting(int n)
{
    static const int extra[] = {67, 97, 127, 128, 129, 131, 255, 256, 257};
    if (n <= 65) {
        return 1;
    }
    for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); ++i) {
        if (extra[i] == n) {
            return 1;
        }
    }
    return 0;
}

/* Every shape: checker rounds == kb_sim_steps == engine unit steps. */
static void test_trees_three_ways(void **state)
{
    (void) state;
    const kb_shape_t shapes[] = {KB_SHAPE_LINEAR, KB_SHAPE_BINOMIAL, KB_SHAPE_KBINOMIAL,
                                 KB_SHAPE_POSTAL, KB_SHAPE_CHAIN};
    long cases = 0;
    for (int n = 1; n <= 257; ++n) {
        if (!interesting(n)) {
            continue;
        }
        const int roots = n <= 12 ? n : 2;
        for (int ri = 0; ri < roots; ++ri) {
            const int root = n <= 12 ? ri : (ri == 0 ? 0 : n - 1);
            for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); ++si) {
                for (int disc = 0; disc < 2; ++disc) {
                    const uint32_t m = (uint32_t) (1 + (n + (int) si) % 5);
                    const int k = 1 + (n % (n > 1 ? kb_ceil_log2(n) : 1));
                    tree_scheds_t ts;
                    build(&ts, shapes[si], n, root, k, m, (kb_discipline_t) disc);
                    const long sim = kb_sim_steps(ts.tree, m, (kb_discipline_t) disc);
                    long rounds = -1;
                    char err[256] = "";
                    if (KB_OK != mcast_sched_check(n, root, ts.s, 1, 1, &rounds, err, sizeof(err))) {
                        fail_msg("n=%d shape=%zu disc=%d: %s", n, si, disc, err);
                    }
                    assert_int_equal(rounds, n == 1 ? 0 : sim);
                    assert_int_equal((long) engine_steps(&ts, root, m, 1, 1), n == 1 ? 0 : sim);
                    release(&ts);
                    cases++;
                }
            }
        }
    }
    printf("# %ld tree schedules checked three ways\n", cases);
}

/* LogGP, out-of-order completions, rendezvous and eager, several windows and send bounds. */
static void test_loggp_shuffled(void **state)
{
    (void) state;
    for (int n = 2; n <= 40; n += 3) {
        for (int w = 1; w <= 4; w += 3) {
            for (int ms = 1; ms <= 3; ++ms) {
                for (uint64_t seed = 1; seed <= 3; ++seed) {
                    tree_scheds_t ts;
                    const size_t M = 10000 + (size_t) n * 37, B = 1000;
                    const uint32_t m = (uint32_t) ((M + B - 1) / B);
                    build(&ts, KB_SHAPE_KBINOMIAL, n, n / 3, 2, m, KB_DISC_FPFS);
                    mcast_engine_params_t ep = {M, B, w, ms};
                    mcast_simnet_params_t net = {{0.5, 0.5, 1.0, 0.1, 0.1, seed == 2 ? 0 : 4096},
                                                 seed, -1, 0, 0};
                    mcast_simnet_result_t res;
                    char err[256] = "";
                    if (KB_OK != mcast_simnet_run(n, n / 3, ts.s, &ep, &net, NULL, NULL, &res, err, sizeof(err))) {
                        fail_msg("n=%d w=%d ms=%d seed=%llu: %s", n, w, ms, (unsigned long long) seed, err);
                    }
                    assert_int_equal(res.status, 0);
                    assert_true(res.max_sends_in_flight <= ms);
                    assert_true(res.max_recvs_in_flight <= w);
                    assert_true(res.finish_us > 0.0);
                    release(&ts);
                }
            }
        }
    }
}

/* A notice (an op of no blocks, mcast_plan_schedule's) carries an error: rank 1 sends
 * rank 2 a notice after its stream from rank 0; rank 1's receive fails, so the notice
 * goes as the one byte of error mode, and rank 2, which expects nothing there, errs too
 * (E-PAIRS-1).  Without the failure every rank ends with success. */
static void test_notice_carries_error(void **state)
{
    (void) state;
    const mcast_op_t r0s[2] = {{.peer = 1, .block = 0, .nblocks = 1, .step = 1, .last = 1},
                               {.peer = 2, .block = 0, .nblocks = 1, .step = 2, .last = 1}};
    const mcast_op_t r1r[1] = {{.peer = 0, .block = 0, .nblocks = 1, .step = 1, .last = 1}};
    const mcast_op_t r1s[1] = {{.peer = 2, .block = 0, .nblocks = 0, .step = 1, .last = 1,
                                .after = 1}};
    const mcast_op_t r2r[2] = {{.peer = 0, .block = 0, .nblocks = 1, .step = 2, .last = 1},
                               {.peer = 1, .block = 0, .nblocks = 0, .step = 2, .last = 1}};
    mcast_sched_t *s[3];
    assert_int_equal(mcast_sched_explicit(3, 0, 1, NULL, 0, r0s, 2, &s[0]), KB_OK);
    assert_int_equal(mcast_sched_explicit(3, 1, 1, r1r, 1, r1s, 1, &s[1]), KB_OK);
    assert_int_equal(mcast_sched_explicit(3, 2, 1, r2r, 2, NULL, 0, &s[2]), KB_OK);
    char err[256] = "";
    long rounds = 0;
    assert_int_equal(mcast_sched_check(3, 0, s, 2, 1, &rounds, err, sizeof(err)), KB_OK);
    for (int fail = 0; fail < 2; ++fail) {
        mcast_engine_params_t ep = {100, 100, 2, 1};
        mcast_simnet_params_t net = {{0.5, 0.5, 1.0, 0.01, 0.01, (size_t) -1}, 0,
                                     fail ? 1 : -1, 0, 77};
        mcast_simnet_result_t res;
        int st[3];
        if (KB_OK != mcast_simnet_run(3, 0, s, &ep, &net, NULL, st, &res, err, sizeof(err))) {
            fail_msg("fail=%d: %s", fail, err);
        }
        assert_int_equal(st[0], 0);
        assert_int_equal(st[1], fail ? 77 : 0);
        if (fail) {
            assert_int_not_equal(st[2], 0);
        } else {
            assert_int_equal(st[2], 0);
        }
    }
    for (int r = 0; r < 3; ++r) {
        mcast_sched_free(s[r]);
    }
}

/* An error injected at any op of any rank: no hang, the failing rank errs, no rank
 * reports success with wrong data (the simulator checks the data of every rank without
 * error). */
static void test_injected_errors(void **state)
{
    (void) state;
    long runs = 0, with_error = 0;
    for (int n = 2; n <= 12; ++n) {
        for (int shape = 0; shape < 2; ++shape) {
            tree_scheds_t ts;
            const uint32_t m = 5;
            build(&ts, shape ? KB_SHAPE_CHAIN : KB_SHAPE_BINOMIAL, n, 1 % n, 0, m, KB_DISC_FPFS);
            for (int fr = 0; fr < n; ++fr) {
                const long ops = (long) (mcast_sched_count(ts.s[fr], MCAST_OP_RECV) +
                                         mcast_sched_count(ts.s[fr], MCAST_OP_SEND));
                for (long op = 0; op < ops; ++op) {
                    mcast_engine_params_t ep = {5 * 100, 100, 2, 1};
                    mcast_simnet_params_t net = {{0.5, 0.5, 1.0, 0.01, 0.01, (size_t) -1},
                                                 (uint64_t) op + 1, fr, op, 77};
                    mcast_simnet_result_t res;
                    int st[12];
                    char err[256] = "";
                    if (KB_OK != mcast_simnet_run(n, 1 % n, ts.s, &ep, &net, NULL, st, &res, err, sizeof(err))) {
                        fail_msg("n=%d fail rank %d op %ld: %s", n, fr, op, err);
                    }
                    assert_int_equal(st[fr], 77); /* the failing rank reports its error */
                    for (int r = 0; r < n; ++r) { /* the others: success or the mismatch */
                        assert_true(st[r] == 0 || st[r] == 77 || st[r] == 1001);
                    }
                    assert_true(res.ranks_with_error >= 1);
                    runs++;
                    with_error += res.ranks_with_error;
                }
            }
            release(&ts);
        }
    }
    printf("# %ld injected failures, %ld rank-ends with an error, no hang\n", runs, with_error);
}

/* The checker rejects what the engine could not run. */
static void test_checker_rejects(void **state)
{
    (void) state;
    mcast_sched_t *s[3] = {NULL, NULL, NULL};
    char err[256];
    /* 0 -> 1 -> 2, two blocks; rank 2 receives block 1 twice (block 0 never). */
    const mcast_op_t send0[] = {{1, 0, 1, 1, 0}, {1, 1, 1, 2, 0}};
    const mcast_op_t recv1[] = {{0, 0, 1, 1, 0}, {0, 1, 1, 2, 0}};
    const mcast_op_t send1[] = {{2, 0, 1, 2, 0}, {2, 1, 1, 3, 0}};
    const mcast_op_t recv2_bad[] = {{1, 1, 1, 2, 0}, {1, 1, 1, 3, 0}};
    const mcast_op_t recv2_swapped[] = {{1, 1, 1, 2, 0}, {1, 0, 1, 3, 0}};
    const mcast_op_t recv2[] = {{1, 0, 1, 2, 0}, {1, 1, 1, 3, 0}};
    assert_int_equal(mcast_sched_explicit(3, 0, 2, NULL, 0, send0, 2, &s[0]), KB_OK);
    assert_int_equal(mcast_sched_explicit(3, 1, 2, recv1, 2, send1, 2, &s[1]), KB_OK);
    assert_int_equal(mcast_sched_explicit(3, 2, 2, recv2_bad, 2, NULL, 0, &s[2]), KB_OK);
    assert_int_equal(mcast_sched_check(3, 0, s, 2, 1, NULL, err, sizeof(err)), KB_ERR_ARG);
    assert_non_null(strstr(err, "exactly once"));
    mcast_sched_free(s[2]);
    assert_int_equal(mcast_sched_explicit(3, 2, 2, recv2_swapped, 2, NULL, 0, &s[2]), KB_OK);
    assert_int_equal(mcast_sched_check(3, 0, s, 2, 1, NULL, err, sizeof(err)), KB_ERR_ARG);
    assert_non_null(strstr(err, "different blocks"));
    mcast_sched_free(s[2]);
    assert_int_equal(mcast_sched_explicit(3, 2, 2, recv2, 2, NULL, 0, &s[2]), KB_OK);
    long rounds = 0;
    assert_int_equal(mcast_sched_check(3, 0, s, 2, 1, &rounds, err, sizeof(err)), KB_OK);
    assert_int_equal(rounds, 3);
    /* rank 1 forwards block 1 before block 0 while its parent sends 0 first: with a
     * window of 1 rank 1 waits for block 1 ... which its parent sends only after block
     * 0 was taken: still fine (parent's order); make rank 1 send block 1 first to rank 2
     * whose receives expect 0 first: pairs disagree. */
    const mcast_op_t send1_swapped[] = {{2, 1, 1, 2, 0}, {2, 0, 1, 3, 0}};
    mcast_sched_free(s[1]);
    assert_int_equal(mcast_sched_explicit(3, 1, 2, recv1, 2, send1_swapped, 2, &s[1]), KB_OK);
    assert_int_equal(mcast_sched_check(3, 0, s, 2, 1, NULL, err, sizeof(err)), KB_ERR_ARG);
    /* ops with itself, out of range */
    mcast_sched_t *bad = NULL;
    const mcast_op_t self[] = {{1, 0, 1, 0, 0}};
    assert_int_equal(mcast_sched_explicit(3, 1, 2, self, 1, NULL, 0, &bad), KB_ERR_ARG);
    const mcast_op_t range[] = {{0, 1, 2, 0, 0}};
    assert_int_equal(mcast_sched_explicit(3, 1, 2, range, 1, NULL, 0, &bad), KB_ERR_ARG);
    assert_null(bad);
    for (int r = 0; r < 3; ++r) {
        mcast_sched_free(s[r]);
    }
}

static int never(void *ctx, int slot, mcast_op_kind_t kind, int peer, size_t off, size_t len,
                 unsigned flags)
{
    (void) ctx; (void) slot; (void) kind; (void) peer; (void) off; (void) len; (void) flags;
    return 0;
}

static void test_engine_rejects(void **state)
{
    (void) state;
    tree_scheds_t ts;
    build(&ts, KB_SHAPE_BINOMIAL, 4, 0, 0, 3, KB_DISC_FPFS);
    mcast_engine_t *e = mcast_engine_create();
    assert_non_null(e);
    mcast_xport_t x = {NULL, never};
    mcast_engine_params_t ok = {300, 100, 1, 1};
    mcast_engine_params_t blocks = {301, 100, 1, 1}; /* 4 blocks, schedule has 3 */
    mcast_engine_params_t win = {300, 100, 0, 1};
    mcast_engine_params_t ms = {300, 100, 1, 0};
    assert_int_equal(mcast_engine_start(e, ts.s[1], &blocks, &x), KB_ERR_ARG);
    assert_int_equal(mcast_engine_start(e, ts.s[1], &win, &x), KB_ERR_ARG);
    assert_int_equal(mcast_engine_start(e, ts.s[1], &ms, &x), KB_ERR_ARG);
    assert_int_equal(mcast_engine_start(e, ts.s[1], &ok, NULL), KB_ERR_ARG);
    assert_int_equal(mcast_engine_start(e, ts.s[1], &ok, &x), KB_OK);
    assert_false(mcast_engine_done(e));
    assert_int_equal(mcast_engine_complete(e, 5, 0), KB_ERR_ARG); /* free slot */
    /* rank 1 is a leaf of the 4-rank binomial tree: one receive at a time; complete them */
    for (int i = 0; i < 3; ++i) {
        assert_int_equal(mcast_engine_slot_peer(e, 0, NULL), 0);
        assert_int_equal(mcast_engine_complete(e, 0, 0), KB_OK);
    }
    assert_true(mcast_engine_done(e));
    assert_int_equal(mcast_engine_status(e), 0);
    /* restart; the parent's stream ends early: the remaining receives fail, no hang */
    assert_int_equal(mcast_engine_start(e, ts.s[1], &ok, &x), KB_OK);
    assert_int_equal(mcast_engine_peer_ended(e, 0, 15), KB_OK);
    assert_int_equal(mcast_engine_complete(e, 0, 15), KB_OK); /* the posted one, cancelled */
    assert_true(mcast_engine_done(e));
    assert_int_equal(mcast_engine_status(e), 15);
    mcast_engine_destroy(e);
    release(&ts);
}

/* What a rank holds without a gap (a two-level leader hands it on through its node's
 * segment): blocks completed out of order count only once the gap before them closes;
 * the last block is short; the root holds everything. */
static void test_held_bytes(void **state)
{
    (void) state;
    tree_scheds_t ts;
    build(&ts, KB_SHAPE_CHAIN, 2, 0, 0, 5, KB_DISC_FPFS);
    mcast_engine_t *e = mcast_engine_create();
    mcast_xport_t x = {NULL, never};
    mcast_engine_params_t ep = {450, 100, 4, 1};
    assert_int_equal(mcast_engine_held_bytes(e), 0); /* not started */
    assert_int_equal(mcast_engine_start(e, ts.s[0], &ep, &x), KB_OK);
    assert_int_equal(mcast_engine_held_bytes(e), 450);
    assert_int_equal(mcast_engine_start(e, ts.s[1], &ep, &x), KB_OK);
    assert_int_equal(mcast_engine_held_bytes(e), 0);
    /* slots 0..3 hold blocks 0..3 */
    assert_int_equal(mcast_engine_complete(e, 1, 0), KB_OK);
    assert_int_equal(mcast_engine_held_bytes(e), 0);
    assert_int_equal(mcast_engine_complete(e, 0, 0), KB_OK);
    assert_int_equal(mcast_engine_held_bytes(e), 200);
    assert_int_equal(mcast_engine_complete(e, 3, 0), KB_OK);
    assert_int_equal(mcast_engine_held_bytes(e), 200);
    assert_int_equal(mcast_engine_complete(e, 2, 0), KB_OK);
    assert_int_equal(mcast_engine_held_bytes(e), 400);
    int slot = -1;
    for (int i = 0; i < 4; ++i) {
        if (mcast_engine_slot_peer(e, i, NULL) == 0) {
            slot = i;
        }
    }
    assert_true(slot >= 0); /* block 4 */
    assert_int_equal(mcast_engine_complete(e, slot, 0), KB_OK);
    assert_int_equal(mcast_engine_held_bytes(e), 450);
    assert_true(mcast_engine_done(e));
    /* a failed receive is not held: the prefix stops before it */
    assert_int_equal(mcast_engine_start(e, ts.s[1], &ep, &x), KB_OK);
    assert_int_equal(mcast_engine_complete(e, 0, 0), KB_OK);
    assert_int_equal(mcast_engine_complete(e, 1, 7), KB_OK);
    assert_int_equal(mcast_engine_complete(e, 2, 0), KB_OK);
    assert_int_equal(mcast_engine_held_bytes(e), 100);
    assert_int_equal(mcast_engine_status(e), 7);
    /* a restart starts from nothing */
    assert_int_equal(mcast_engine_start(e, ts.s[1], &ep, &x), KB_OK);
    assert_int_equal(mcast_engine_held_bytes(e), 0);
    mcast_engine_destroy(e);
    release(&ts);
}

/* The one receive slot (of the first `window`) posted to `peer`: it carries MCAST_XF_LAST;
 * completed successfully. */
static void complete_last_from(mcast_engine_t *e, int peer, int window)
{
    unsigned flags = 0;
    int at = -1;
    for (int i = 0; i < window; ++i) {
        if (mcast_engine_slot_peer(e, i, &flags) == peer) {
            assert_int_equal(at, -1);
            at = i;
            assert_true(flags & MCAST_XF_LAST);
        }
    }
    assert_true(at >= 0);
    assert_int_equal(mcast_engine_complete(e, at, 0), KB_OK);
}

/* The last receive from a peer is posted only after the earlier ones from it completed. */
static void test_last_receive_waits(void **state)
{
    (void) state;
    tree_scheds_t ts;
    build(&ts, KB_SHAPE_CHAIN, 2, 0, 0, 5, KB_DISC_FPFS);
    mcast_engine_t *e = mcast_engine_create();
    mcast_xport_t x = {NULL, never};
    mcast_engine_params_t ep = {500, 100, 4, 1};
    assert_int_equal(mcast_engine_start(e, ts.s[1], &ep, &x), KB_OK);
    size_t pr = 0;
    mcast_engine_counts(e, &pr, NULL, NULL, NULL);
    assert_int_equal(pr, 4); /* blocks 0..3 */
    /* complete the slots holding blocks 0, 1, 2 (slots are handed out 0, 1, 2, 3) */
    assert_int_equal(mcast_engine_complete(e, 0, 0), KB_OK);
    assert_int_equal(mcast_engine_complete(e, 1, 0), KB_OK);
    assert_int_equal(mcast_engine_complete(e, 2, 0), KB_OK);
    mcast_engine_counts(e, &pr, NULL, NULL, NULL);
    assert_int_equal(pr, 4); /* block 3 still open: the last one is not posted */
    assert_int_equal(mcast_engine_complete(e, 3, 0), KB_OK);
    mcast_engine_counts(e, &pr, NULL, NULL, NULL);
    assert_int_equal(pr, 5);
    complete_last_from(e, 0, 4);
    assert_true(mcast_engine_done(e));
    mcast_engine_destroy(e);
    release(&ts);
}

/* mcast_engine_params_fit: window and max_sends cut to the schedule's receives and sends
 * (at least 1; bad values left for start to reject), and a rank's engine posts the same
 * ops in the same order with the fitted params as with the wide ones (completions in
 * the order of posting). */
typedef struct {
    int n;
    int kind[16], peer[16];
    size_t off[16], len[16];
    int slot[16];
} posts_t;

static int record_post(void *ctx, int slot, mcast_op_kind_t kind, int peer, size_t off,
                       size_t len, unsigned flags)
{
    (void) flags;
    posts_t *p = ctx;
    assert_true(p->n < 16);
    p->kind[p->n] = (int) kind;
    p->peer[p->n] = peer;
    p->off[p->n] = off;
    p->len[p->n] = len;
    p->slot[p->n] = slot;
    p->n++;
    return 0;
}

static void run_recorded(const mcast_sched_t *s, const mcast_engine_params_t *ep, posts_t *p)
{
    memset(p, 0, sizeof(*p));
    mcast_engine_t *e = mcast_engine_create();
    assert_non_null(e);
    const mcast_xport_t x = {p, record_post};
    assert_int_equal(mcast_engine_start(e, s, ep, &x), KB_OK);
    for (int done = 0; !mcast_engine_done(e); ++done) {
        assert_true(done < p->n); /* something is posted while it is not done */
        assert_int_equal(mcast_engine_complete(e, p->slot[done], 0), KB_OK);
    }
    assert_int_equal(mcast_engine_status(e), 0);
    mcast_engine_destroy(e);
}

static void test_params_fit(void **state)
{
    (void) state;
    /* rank 1 of a chain 0 -> 1 -> 2 over 3 blocks: 3 receives, 3 sends */
    tree_scheds_t ts;
    build(&ts, KB_SHAPE_CHAIN, 3, 0, 0, 3, KB_DISC_FPFS);
    mcast_engine_params_t wide = {300, 100, 8, 5, 0}, fit = wide;
    mcast_engine_params_fit(&fit, ts.s[1]);
    assert_int_equal(fit.window, 3);
    assert_int_equal(fit.max_sends, 3);
    assert_true(fit.bytes == 300 && fit.block_bytes == 100);
    posts_t a, b;
    run_recorded(ts.s[1], &wide, &a);
    run_recorded(ts.s[1], &fit, &b);
    assert_int_equal(a.n, 6);
    assert_int_equal(b.n, a.n);
    for (int i = 0; i < a.n; ++i) {
        assert_int_equal(a.kind[i], b.kind[i]);
        assert_int_equal(a.peer[i], b.peer[i]);
        assert_true(a.off[i] == b.off[i] && a.len[i] == b.len[i]);
        assert_true(b.slot[i] < fit.window + fit.max_sends);
    }
    /* the root: no receives (window 1), the leaf: no sends (max_sends 1) */
    mcast_engine_params_t r = wide, leaf = wide;
    mcast_engine_params_fit(&r, ts.s[0]);
    mcast_engine_params_fit(&leaf, ts.s[2]);
    assert_true(r.window == 1 && r.max_sends == 3);
    assert_true(leaf.window == 3 && leaf.max_sends == 1);
    /* smaller than the schedule's: unchanged; bad values: left for start to reject */
    mcast_engine_params_t small = {300, 100, 2, 1, 0}, bad = {300, 100, 0, -1, 0};
    mcast_engine_params_fit(&small, ts.s[1]);
    mcast_engine_params_fit(&bad, ts.s[1]);
    mcast_engine_params_fit(NULL, ts.s[1]);
    mcast_engine_params_fit(&small, NULL);
    assert_true(small.window == 2 && small.max_sends == 1);
    assert_true(bad.window == 0 && bad.max_sends == -1);
    release(&ts);
}

/* A rank fed by two peers (the two-tree's: blocks 0 and 2 from rank 0, 1 and 3 from rank
 * 1, in that list order): the last receive from rank 0 waits for block 0 and the receives
 * after it, from rank 1, are posted meanwhile (before: none until block 0 came,
 * E-LAST-1); the held-back one is posted once its peer's earlier receive completed,
 * with MCAST_XF_LAST; one whose peer ended is failed without posting. */
static void test_last_receive_held_back(void **state)
{
    (void) state;
    const mcast_op_t recv[4] = {{.peer = 0, .block = 0, .nblocks = 1, .step = 0, .last = 0},
                                {.peer = 0, .block = 2, .nblocks = 1, .step = 1, .last = 0},
                                {.peer = 1, .block = 1, .nblocks = 1, .step = 1, .last = 0},
                                {.peer = 1, .block = 3, .nblocks = 1, .step = 2, .last = 0}};
    for (int ended = 0; ended < 2; ++ended) {
        mcast_sched_t *s = NULL;
        assert_int_equal(mcast_sched_explicit(3, 2, 4, recv, 4, NULL, 0, &s), KB_OK);
        mcast_engine_t *e = mcast_engine_create();
        mcast_xport_t x = {NULL, never};
        mcast_engine_params_t ep = {400, 100, 4, 1};
        assert_int_equal(mcast_engine_start(e, s, &ep, &x), KB_OK);
        size_t pr = 0, dr = 0;
        unsigned flags = 0;
        mcast_engine_counts(e, &pr, NULL, &dr, NULL);
        assert_int_equal(pr, 2); /* block 0 from rank 0, block 1 from rank 1 */
        assert_int_equal(mcast_engine_slot_peer(e, 0, &flags), 0);
        assert_int_equal(flags & MCAST_XF_LAST, 0);
        assert_int_equal(mcast_engine_slot_peer(e, 1, &flags), 1);
        assert_int_equal(flags & MCAST_XF_LAST, 0);
        assert_int_equal(mcast_engine_slot_peer(e, 2, NULL), -1);
        if (ended) {
            /* rank 0's stream ended: its held-back last receive fails unposted */
            assert_int_equal(mcast_engine_peer_ended(e, 0, KB_ERR_ARG), KB_OK);
            mcast_engine_counts(e, &pr, NULL, &dr, NULL);
            assert_int_equal(dr, 1);
            assert_int_equal(mcast_engine_complete(e, 0, KB_ERR_ARG), KB_OK);
        } else {
            assert_int_equal(mcast_engine_complete(e, 0, 0), KB_OK); /* block 0 */
            mcast_engine_counts(e, &pr, NULL, &dr, NULL);
            assert_int_equal(pr, 3);
            complete_last_from(e, 0, 4); /* block 2 */
        }
        /* rank 1's last receive waits for block 1 */
        mcast_engine_counts(e, &pr, NULL, &dr, NULL);
        assert_int_equal(pr, 3);
        assert_int_equal(mcast_engine_complete(e, 1, 0), KB_OK);
        mcast_engine_counts(e, &pr, NULL, &dr, NULL);
        assert_int_equal(pr, 4);
        complete_last_from(e, 1, 4);
        assert_true(mcast_engine_done(e));
        assert_int_equal(mcast_engine_status(e) != 0, ended);
        mcast_engine_destroy(e);
        mcast_sched_free(s);
    }
}

/* sync_sends: every send is posted with MCAST_XF_SYNC, and none without it. */
/* The byte range of an op: whole blocks, the last one short, none past the message. */
static void test_op_range(void **state)
{
    (void) state;
    const mcast_engine_params_t p = {.bytes = 1000, .block_bytes = 300, .window = 1,
                                     .max_sends = 1, .sync_sends = 0};
    const struct {
        uint32_t block, nblocks;
        size_t off, len;
    } c[] = {{0, 1, 0, 300}, {1, 2, 300, 600}, {3, 1, 900, 100}, {2, 5, 600, 400}, {4, 1, 1200, 0}};
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        mcast_op_t o = {.peer = 1, .block = c[i].block, .nblocks = c[i].nblocks, .step = 0, .last = 0};
        size_t off = 99, len = 99;
        mcast_op_range(&p, &o, &off, &len);
        assert_int_equal(off, c[i].off);
        assert_int_equal(len, c[i].len);
    }
}

static void test_sync_sends(void **state)
{
    (void) state;
    tree_scheds_t ts;
    build(&ts, KB_SHAPE_CHAIN, 2, 0, 0, 5, KB_DISC_FPFS);
    for (int sync = 0; sync <= 1; ++sync) {
        mcast_engine_t *e = mcast_engine_create();
        mcast_xport_t x = {NULL, never};
        mcast_engine_params_t ep = {500, 100, 4, 1, sync};
        assert_int_equal(mcast_engine_start(e, ts.s[0], &ep, &x), KB_OK);
        for (int b = 0; b < 5; ++b) { /* the root's 5 sends, one slot (4) at a time */
            unsigned flags = 0;
            assert_int_equal(mcast_engine_slot_peer(e, 4, &flags), 1);
            assert_int_equal((flags & MCAST_XF_SYNC) != 0, sync);
            assert_int_equal(mcast_engine_complete(e, 4, 0), KB_OK);
        }
        assert_true(mcast_engine_done(e));
        mcast_engine_destroy(e);
    }
    release(&ts);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_steps_on_engine),
        cmocka_unit_test(test_trees_three_ways),
        cmocka_unit_test(test_loggp_shuffled),
        cmocka_unit_test(test_injected_errors),
        cmocka_unit_test(test_sync_sends),
        cmocka_unit_test(test_op_range),
        cmocka_unit_test(test_checker_rejects),
        cmocka_unit_test(test_engine_rejects),
        cmocka_unit_test(test_held_bytes),
        cmocka_unit_test(test_notice_carries_error),
        cmocka_unit_test(test_last_receive_waits),
        cmocka_unit_test(test_last_receive_held_back),
        cmocka_unit_test(test_params_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
