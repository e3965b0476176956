/*
 * The planner (mcast_planner.h):
 *  - registry: ids, unique names, lookup, components;
 *  - size classes: every size falls into the class whose representative it shares;
 *  - the model against the engine on the simulated network: exact in unit steps for
 *    k-binomial FPFS trees (L1 + (m-1)k) and chains, within a stated tolerance under
 *    LogGP timing for every tree shape the registry builds;
 *  - auto within 1.05x of the best plan the registry can build (best k and segment by
 *    exhaustive search, both timed by the engine on the simulated network);
 *  - selection order forced > rules > model, forced algorithms that do not apply;
 *  - machine files (values, errors as file:line), the digest of decision inputs.
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
#include <unistd.h>

#include "kbinomial.h"
#include "mcast_engine.h"
#include "mcast_planner.h"
#include "mcast_shm.h"
#include "mcast_status.h"
#include "pathmc.h"
#include "pm_mcproto.h"


static mcast_plan_t *select_ok(const mcast_plan_input_t *in)
{
    mcast_plan_t *p = NULL;
    char e[512] = "";
    const int rc = mcast_plan_select(in, &p, e, sizeof(e));
    if (KB_OK != rc) {
        fail_msg("mcast_plan_select: rc %d %s", rc, e);
    }
    return p;
}

static void test_registry(void **state)
{
    (void) state;
    const int n = mcast_registry_count();
    assert_int_equal(n, MCAST_ALG_COUNT);
    for (int i = 0; i < n; ++i) {
        const mcast_alg_info_t *a = mcast_registry_get(i);
        assert_non_null(a);
        assert_int_equal(a->id, i);
        assert_int_equal(mcast_registry_lookup(a->name), i);
        assert_true(strlen(a->description) > 5);
        assert_true(a->component & (MCAST_COMP_KBINOMIAL | MCAST_COMP_PATHMC));
        for (int j = 0; j < i; ++j) {
            assert_string_not_equal(a->name, mcast_registry_get(j)->name);
        }
    }
    assert_null(mcast_registry_get(n));
    assert_null(mcast_registry_get(-1));
    assert_int_equal(mcast_registry_lookup("broadcast"), -1);
    assert_int_equal(mcast_registry_lookup(NULL), -1);
    assert_int_equal(mcast_registry_lookup("chain"), MCAST_ALG_CHAIN);
}

static void test_size_classes(void **state)
{
    (void) state;
    assert_int_equal(mcast_size_class(0), 0);
    assert_int_equal(mcast_class_bytes(0), 0);
    int prev = 0;
    for (size_t b = 1; b < ((size_t) 1 << 34); b = b < 4096 ? b + 1 : b + b / 7 + 1) {
        const int c = mcast_size_class(b);
        assert_true(c >= prev); /* monotone */
        prev = c;
        assert_int_equal(mcast_size_class(mcast_class_bytes(c)), c);
        if (b < 8) {
            continue;
        }
        /* four classes per power of two, centred on a log scale: the representative is
         * within 2^(1/8) - 1 = 9.05 % (and the rounding of a small one) */
        const double rep = (double) mcast_class_bytes(c);
        const double rel = fabs(rep - (double) b) / (double) b;
        assert_true(rel <= 0.0906 + 0.5 / (double) b);
        /* and the size is nearer (log scale) to its own representative than to the
         * neighbours' */
        const double d = fabs(log2((double) b) - log2(rep));
        assert_true(d <= 0.125 + 1e-9 + 1.0 / (double) b);
    }
    for (int e = 0; e < 63; ++e) { /* powers of two are planned at their own size */
        const size_t p2 = (size_t) 1 << e;
        assert_int_equal(mcast_class_bytes(mcast_size_class(p2)), p2);
        if (e >= 4) { /* the classes around it are its neighbours */
            assert_int_equal(mcast_size_class(p2 - 1), mcast_size_class(p2));
            assert_int_not_equal(mcast_size_class(p2 + p2 / 8), mcast_size_class(p2));
            assert_int_not_equal(mcast_size_class(p2 - p2 / 8), mcast_size_class(p2));
        }
    }
    /* the last class boundaries of a size_t: monotone, no overflow */
    assert_true(mcast_size_class(SIZE_MAX) >= mcast_size_class(SIZE_MAX / 2));
    assert_true(mcast_size_class(SIZE_MAX) < 260);
}

static mcast_machine_t unit_machine(void)
{
    mcast_machine_t m;
    mcast_machine_default(&m);
    const mcast_loggp_t u = {1.0, 0.0, 0.0, 0.0, 0.0, (size_t) -1, 0.0, 0};
    m.net = u;
    m.shm = u;
    return m;
}

static double simulate(const kb_tree_t *t, size_t M, size_t S, int window, int max_sends,
                       const mcast_loggp_t *net, const int *node, const mcast_machine_t *mach)
{
    const int n = t->n;
    mcast_sched_t **s = calloc((size_t) n, sizeof(*s));
    assert_non_null(s);
    if (S == 0 || S > M) {
        S = M;
    }
    const uint32_t m = (uint32_t) ((M + S - 1) / S);
    for (int r = 0; r < n; ++r) {
        assert_int_equal(mcast_sched_tree(t, r, m, KB_DISC_FPFS, &s[r]), KB_OK);
    }
    (void) node;
    (void) mach;
    mcast_engine_params_t ep = {M, S, window, max_sends, 0};
    mcast_simnet_params_t sp;
    memset(&sp, 0, sizeof(sp));
    sp.net = *net;
    sp.fail_rank = -1;
    mcast_simnet_result_t res;
    char err[256] = "";
    if (KB_OK != mcast_simnet_run(n, t->root, s, &ep, &sp, NULL, NULL, &res, err, sizeof(err))) {
        fail_msg("simnet: %s", err);
    }
    for (int r = 0; r < n; ++r) {
        mcast_sched_free(s[r]);
    }
    free(s);
    return res.finish_us;
}

/* Unit steps: the model is the seeds' L1 + (m-1)k on k-binomial trees whose root has the
 * largest fan-out, and equals the engine's unit-step time. */
static void test_model_unit_steps(void **state)
{
    (void) state;
    const mcast_machine_t mach = unit_machine();
    long exact = 0;
    for (int n = 2; n <= 64; ++n) {
        for (int k = 1; k <= kb_ceil_log2(n); ++k) {
            const kb_tree_params_t tp = {k, 1.0};
            kb_tree_t *t = NULL;
            assert_int_equal(kb_tree_build(KB_SHAPE_KBINOMIAL, n, 0, NULL, &tp, &t), KB_OK);
            int dmax = 0;
            for (int v = 0; v < n; ++v) {
                dmax = kb_tree_nchildren(t, v) > dmax ? kb_tree_nchildren(t, v) : dmax;
            }
            for (size_t m = 1; m <= 7; m += 2) {
                const double model = mcast_model_tree_us(t, m, 1, 1, NULL, 0, &mach);
                const double sim = simulate(t, m, 1, 2, 1, &mach.net, NULL, &mach);
                assert_true(fabs(model - sim) < 1e-9);
                if (kb_tree_nchildren(t, 0) == dmax) {
                    assert_true(fabs(model - (double) kb_steps(n, (long) m, k)) < 1e-9 ||
                                model <= (double) kb_steps(n, (long) m, k));
                    assert_true(fabs(model - (double) (kb_L1(n, k) + (long) (m - 1) * dmax)) < 1e-9);
                    exact++;
                }
            }
            kb_tree_free(t);
        }
    }
    assert_true(exact > 300);
}

/* LogGP: the model against the engine on the simulated network, every shape. */
static void test_model_loggp(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    const kb_shape_t shapes[] = {KB_SHAPE_KBINOMIAL, KB_SHAPE_CHAIN, KB_SHAPE_BINOMIAL,
                                 KB_SHAPE_LINEAR, KB_SHAPE_POSTAL};
    const size_t sizes[] = {8, 4096, 65536, 1 << 20, 4 << 20};
    const size_t segs[] = {0, 8192, 65536};
    double worst = 0, sum = 0;
    int cases = 0, chain_exact = 0;
    for (int n = 2; n <= 64; n = n * 2 + 1) {
        for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); ++si) {
            const kb_tree_params_t tp = {2, 3.0};
            kb_tree_t *t = NULL;
            assert_int_equal(kb_tree_build(shapes[si], n, n / 2, NULL, &tp, &t), KB_OK);
            for (size_t mi = 0; mi < sizeof(sizes) / sizeof(sizes[0]); ++mi) {
                for (size_t gi = 0; gi < sizeof(segs) / sizeof(segs[0]); ++gi) {
                    const size_t M = sizes[mi], S = segs[gi];
                    if (S != 0 && (S >= M || M / S > 1024)) {
                        continue;
                    }
                    const double model = mcast_model_tree_us(t, M, S, 1, NULL, 0, &mach);
                    const double sim = simulate(t, M, S, 4, 1, &mach.net, NULL, &mach);
                    const double err = fabs(model - sim) / sim;
                    if (shapes[si] == KB_SHAPE_CHAIN && err < 1e-9) {
                        chain_exact++;
                    }
                    worst = err > worst ? err : worst;
                    sum += err;
                    cases++;
                    if (err > 0.10) {
                        fail_msg("n=%d shape=%zu M=%zu S=%zu: model %.2f sim %.2f", n, si, M, S,
                                 model, sim);
                    }
                }
            }
            kb_tree_free(t);
        }
    }
    printf("# model vs engine on the simulated network: %d cases, mean error %.2f%%, worst %.2f%%, "
           "%d chains exact\n", cases, 100.0 * sum / cases, 100.0 * worst, chain_exact);
    assert_true(chain_exact > 10);
}

static mcast_plan_input_t input(int n, int root, size_t bytes, const mcast_machine_t *m,
                                const mcast_forced_t *f)
{
    mcast_plan_input_t in;
    memset(&in, 0, sizeof(in));
    in.component = MCAST_COMP_KBINOMIAL;
    in.n = n;
    in.root = root;
    in.bytes = bytes;
    in.nnodes = n;
    in.machine = m;
    in.forced = f;
    return in;
}

/* Simulated time of a plan (all ranks' schedules from mcast_plan_schedule) with its engine
 * parameters, max_sends / sync >= 0 overriding them; *status (if given) the run's. */
static double plan_sim_with(const mcast_plan_t *p, int n, size_t M, const mcast_machine_t *mach,
                            int max_sends, int sync, int *status)
{
    mcast_sched_t **s = calloc((size_t) n, sizeof(*s));
    assert_non_null(s);
    mcast_plan_info_t info;
    assert_int_equal(mcast_plan_get_info(p, &info), KB_OK);
    for (int r = 0; r < n; ++r) {
        assert_int_equal(mcast_plan_schedule(p, r, M, &s[r]), KB_OK);
    }
    mcast_engine_params_t ep;
    assert_int_equal(mcast_plan_engine_params(p, 0, M, &ep), KB_OK);
    if (max_sends >= 0) {
        ep.max_sends = max_sends;
    }
    if (sync >= 0) {
        ep.sync_sends = sync;
    }
    mcast_simnet_params_t sp;
    memset(&sp, 0, sizeof(sp));
    sp.net = mach->net;
    sp.fail_rank = -1;
    mcast_simnet_result_t res;
    char err[256] = "";
    if (KB_OK != mcast_simnet_run(n, info.root, s, &ep, &sp, NULL, NULL, &res, err, sizeof(err))) {
        fail_msg("simnet: %s", err);
    }
    for (int r = 0; r < n; ++r) {
        mcast_sched_free(s[r]);
    }
    free(s);
    if (status != NULL) {
        *status = res.status;
    }
    return res.finish_us;
}

/* ... with one copy at a time across nodes (what auto resolves to). */
static double plan_sim(const mcast_plan_t *p, int n, size_t M, const mcast_machine_t *mach)
{
    return plan_sim_with(p, n, M, mach, 1, -1, NULL);
}

/* ... with the plan's own sends in flight, every rank ending without error. */
static double simnet_own_params(const mcast_plan_t *p, int n, size_t M, const mcast_machine_t *mach,
                                int sync)
{
    int status = -1;
    const double t = plan_sim_with(p, n, M, mach, -1, sync, &status);
    assert_int_equal(status, 0);
    return t;
}

/* auto against the best forced (algorithm, k, segment) found by exhaustive search, both
 * run by the engine on the simulated network. */
static void test_auto_near_best(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    const int ns[] = {4, 16, 33, 64};
    const size_t sizes[] = {64, 4096, 65536, 1 << 20, 4 << 20};
    const int algs[] = {MCAST_ALG_KBINOMIAL, MCAST_ALG_POSTAL, MCAST_ALG_LINEAR, MCAST_ALG_BINOMIAL,
                        MCAST_ALG_SCATTER_ALLGATHER, MCAST_ALG_TWOTREE, MCAST_ALG_CIRCULANT};
    const size_t segs[] = {0, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144};
    double worst = 0;
    for (size_t ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ++ni) {
        const int n = ns[ni];
        for (size_t mi = 0; mi < sizeof(sizes) / sizeof(sizes[0]); ++mi) {
            /* the class representative: what the planner decides for */
            const size_t M = mcast_class_bytes(mcast_size_class(sizes[mi]));
            mcast_forced_t f;
            mcast_forced_default(&f);
            f.max_sends = 1;
            mcast_plan_input_t in = input(n, 0, M, &mach, &f);
            mcast_plan_t *p = NULL;
            p = select_ok(&in);
            const double t_auto = plan_sim(p, n, M, &mach);
            mcast_plan_info_t pinfo;
            mcast_plan_get_info(p, &pinfo);
            const char *auto_name = pinfo.name;
            mcast_plan_free(p);
            const char *best_name = "";
            size_t best_seg = 0;
            double best = INFINITY;
            for (size_t ai = 0; ai < sizeof(algs) / sizeof(algs[0]); ++ai) {
                for (int k = 0; k <= (algs[ai] == MCAST_ALG_KBINOMIAL ? kb_ceil_log2(n) : 0); ++k) {
                    for (size_t gi = 0; gi < sizeof(segs) / sizeof(segs[0]); ++gi) {
                        if (segs[gi] >= M || (segs[gi] != 0 && M / segs[gi] > 2048)) {
                            continue;
                        }
                        mcast_forced_t g = f;
                        g.algorithm = algs[ai];
                        g.k = algs[ai] == MCAST_ALG_KBINOMIAL ? (k == 0 ? 1 : k) : 0;
                        g.segment_bytes = segs[gi];
                        mcast_plan_input_t gi_in = input(n, 0, M, &mach, &g);
                        mcast_plan_t *q = NULL;
                        q = select_ok(&gi_in);
                        const double t = plan_sim(q, n, M, &mach);
                        if (t < best) {
                            best = t;
                            best_name = mcast_registry_get(algs[ai])->name;
                            best_seg = segs[gi];
                        }
                        mcast_plan_free(q);
                    }
                }
            }
            const double ratio = t_auto / best;
            worst = ratio > worst ? ratio : worst;
            if (ratio > 1.05) {
                fail_msg("n=%d M=%zu: auto (%s) %.2f us, best searched %.2f us (%s segment %zu, "
                         "%.3fx)", n, M, auto_name, t_auto, best, best_name, best_seg, ratio);
            }
        }
    }
    printf("# auto / best searched plan on the simulated network: worst %.3f\n", worst);
}

/* The schedule families as plans: forced by name on every n, root and size (the model's
 * block count or a forced segment), each rank's schedule from mcast_plan_schedule; all
 * of them together pass the checker and run on the simulated network with the plan's
 * engine parameters, every rank receiving every block once; no tree; scatter_allgather
 * never more blocks than ranks; the allgather parameter is obeyed; messages larger
 * than n blocks allow are refused when forced and skipped under auto. */
/* The pairs a rank sends to and receives from, per kind: bit r of peers[kind][rank]. */
static void pairs_of(const mcast_plan_t *p, int n, size_t M, uint64_t peers[2][64],
                     int *notices)
{
    for (int r = 0; r < n; ++r) {
        mcast_sched_t *s = NULL;
        assert_int_equal(mcast_plan_schedule(p, r, M, &s), KB_OK);
        for (int k = 0; k < 2; ++k) {
            peers[k][r] = 0;
            const size_t c = mcast_sched_count(s, (mcast_op_kind_t) k);
            for (size_t i = 0; i < c; ++i) {
                mcast_op_t o;
                assert_int_equal(mcast_sched_op(s, (mcast_op_kind_t) k, i, &o), KB_OK);
                peers[k][r] |= (uint64_t) 1 << o.peer;
                *notices += 0 == o.nblocks;
            }
        }
        mcast_sched_free(s);
    }
}

/* E-PAIRS-1: the two-tree's and the scatter's plans talk over the same pairs of ranks at
 * every block count (notices where the blocks do not reach a pair), so ranks whose
 * signatures differ in size never wait for a peer that sends them nothing; the schedules
 * with notices pass the checker and run (test_family_plans runs them at small sizes
 * too).  The circulant has none (planner.cpp, pair_blocks). */
static void test_pairs_every_size(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    const int algs[] = {MCAST_ALG_SCATTER_ALLGATHER, MCAST_ALG_TWOTREE};
    int notices = 0, checked = 0;
    for (int ai = 0; ai < 2; ++ai) {
        for (int n = 2; n <= 40; ++n) {
            for (int root = 0; root < n; root += (n + 2) / 3) {
                uint64_t first[2][64], now[2][64];
                for (size_t m = 1; m <= 12; ++m) {
                    const size_t seg = 1000, M = m * seg;
                    mcast_forced_t f;
                    mcast_forced_default(&f);
                    f.algorithm = algs[ai];
                    f.segment_bytes = seg;
                    f.allgather = 1; /* ring at every size (the variant changes the pairs) */
                    if (MCAST_ALG_SCATTER_ALLGATHER == algs[ai] && m > (size_t) n) {
                        break;
                    }
                    mcast_plan_input_t in = input(n, root, M, &mach, &f);
                    mcast_plan_t *p = select_ok(&in);
                    size_t B;
                    uint32_t nb;
                    assert_int_equal(mcast_plan_blocks(p, M, &B, &nb), KB_OK);
                    assert_int_equal(nb, (uint32_t) m);
                    pairs_of(p, n, M, 1 == m ? first : now, &notices);
                    if (m > 1) {
                        for (int k = 0; k < 2; ++k) {
                            for (int r = 0; r < n; ++r) {
                                if (first[k][r] != now[k][r]) {
                                    fail_msg("alg %d n=%d root=%d m=%zu: rank %d's %s peers "
                                             "differ from 1 block's",
                                             algs[ai], n, root, m, r, k ? "send" : "receive");
                                }
                            }
                        }
                    }
                    mcast_sched_t *sc[64];
                    for (int r = 0; r < n; ++r) {
                        assert_int_equal(mcast_plan_schedule(p, r, M, &sc[r]), KB_OK);
                    }
                    mcast_engine_params_t ep;
                    assert_int_equal(mcast_plan_engine_params(p, 0, M, &ep), KB_OK);
                    char err[256] = "";
                    if (KB_OK != mcast_sched_check(n, root, sc, ep.window, ep.max_sends, NULL,
                                                   err, sizeof(err))) {
                        fail_msg("alg %d n=%d M=%zu: %s", algs[ai], n, M, err);
                    }
                    for (int r = 0; r < n; ++r) {
                        mcast_sched_free(sc[r]);
                    }
                    mcast_plan_free(p);
                    ++checked;
                }
            }
        }
    }
    print_message("# pairs every size: %d plans, %d notices\n", checked, notices);
    assert_true(notices > 0);
}

static void test_family_plans(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    const int algs[] = {MCAST_ALG_SCATTER_ALLGATHER, MCAST_ALG_TWOTREE, MCAST_ALG_CIRCULANT};
    const int ns[] = {1, 2, 3, 5, 7, 8, 16, 17, 33};
    const size_t sizes[] = {0, 1, 100, 4096, 100000, 1 << 20};
    const size_t segs[] = {0, 1000};
    int cases = 0;
    for (size_t ai = 0; ai < 3; ++ai) {
        for (size_t ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ++ni) {
            const int n = ns[ni];
            const int roots[] = {0, n / 2, n - 1};
            for (int ri = 0; ri < 3; ++ri) {
                for (size_t mi = 0; mi < sizeof(sizes) / sizeof(sizes[0]); ++mi) {
                    for (size_t gi = 0; gi < 2; ++gi) {
                        const size_t M = sizes[mi];
                        mcast_forced_t f;
                        mcast_forced_default(&f);
                        f.algorithm = algs[ai];
                        f.segment_bytes = segs[gi];
                        f.allgather = (int) (1 + (mi + gi) % 2); /* ring, recursive doubling */
                        mcast_plan_input_t in = input(n, roots[ri], M, &mach, &f);
                        mcast_plan_t *p = select_ok(&in);
                        mcast_plan_info_t info;
                        assert_int_equal(mcast_plan_get_info(p, &info), KB_OK);
                        assert_int_equal(info.algorithm, algs[ai]);
                        assert_null(info.tree);
                        assert_true(info.family >= 0);
                        char desc[512];
                        assert_int_equal(mcast_plan_describe(p, desc, sizeof(desc)), KB_OK);
                        if (MCAST_ALG_SCATTER_ALLGATHER == algs[ai]) {
                            assert_int_equal(info.variant, f.allgather - 1);
                            assert_non_null(strstr(desc, f.allgather == 1 ? "allgather=ring"
                                                                           : "allgather=recursive_doubling"));
                        }
                        size_t B;
                        uint32_t m;
                        assert_int_equal(mcast_plan_blocks(p, M, &B, &m), KB_OK);
                        assert_true(B >= 1);
                        assert_int_equal(m, M == 0 ? 0 : (uint32_t) ((M + B - 1) / B));
                        if (MCAST_ALG_SCATTER_ALLGATHER == algs[ai]) {
                            assert_true(m <= (uint32_t) n);
                        }
                        if (segs[gi] != 0 && M > 0 && (MCAST_ALG_SCATTER_ALLGATHER != algs[ai] ||
                                                       (M + segs[gi] - 1) / segs[gi] <= (size_t) n)) {
                            assert_int_equal(B, segs[gi] < M ? segs[gi] : M);
                        }
                        mcast_sched_t **sc = calloc((size_t) n, sizeof(*sc));
                        for (int r = 0; r < n; ++r) {
                            assert_int_equal(mcast_plan_schedule(p, r, M, &sc[r]), KB_OK);
                        }
                        mcast_engine_params_t ep;
                        assert_int_equal(mcast_plan_engine_params(p, 0, M, &ep), KB_OK);
                        assert_true(ep.window >= info.window && ep.max_sends >= 1);
                        char err[256] = "";
                        if (KB_OK != mcast_sched_check(n, roots[ri], sc, ep.window, ep.max_sends,
                                                       NULL, err, sizeof(err))) {
                            fail_msg("%s n=%d M=%zu: %s", info.name, n, M, err);
                        }
                        mcast_simnet_params_t sp;
                        memset(&sp, 0, sizeof(sp));
                        sp.net = mach.net;
                        sp.fail_rank = -1;
                        sp.shuffle_seed = (uint64_t) (cases + 1);
                        mcast_simnet_result_t res;
                        if (KB_OK != mcast_simnet_run(n, roots[ri], sc, &ep, &sp, NULL, NULL, &res,
                                                      err, sizeof(err))) {
                            fail_msg("%s n=%d M=%zu simnet: %s", info.name, n, M, err);
                        }
                        assert_int_equal(res.status, 0);
                        assert_true(res.max_sends_in_flight <= ep.max_sends);
                        for (int r = 0; r < n; ++r) {
                            mcast_sched_free(sc[r]);
                        }
                        free(sc);
                        mcast_plan_free(p);
                        ++cases;
                    }
                }
            }
        }
    }
    printf("# family plans: %d cases checked and simulated\n", cases);
    /* scatter_allgather: n blocks of at most 16 MiB */
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.algorithm = MCAST_ALG_SCATTER_ALLGATHER;
    mcast_plan_input_t big = input(4, 0, (size_t) 4 * (16 << 20), &mach, &f);
    mcast_plan_t *p = NULL;
    char e[256] = "";
    assert_int_equal(mcast_plan_select(&big, &p, e, sizeof(e)), KB_ERR_ARG);
    assert_null(p);
    assert_non_null(strstr(e, "scatter_allgather"));
    f.algorithm = MCAST_ALG_AUTO;
    p = select_ok(&big);
    mcast_plan_info_t info;
    mcast_plan_get_info(p, &info);
    assert_int_not_equal(info.algorithm, MCAST_ALG_SCATTER_ALLGATHER);
    mcast_plan_free(p);
}

/* Checks a plan's schedules for every rank and runs them on the simulated network. */
static void check_and_run(const mcast_plan_t *p, int n, int root, size_t M, const mcast_machine_t *mach)
{
    mcast_sched_t **sc = calloc((size_t) n, sizeof(*sc));
    for (int r = 0; r < n; ++r) {
        assert_int_equal(mcast_plan_schedule(p, r, M, &sc[r]), KB_OK);
    }
    mcast_engine_params_t ep;
    assert_int_equal(mcast_plan_engine_params(p, root, M, &ep), KB_OK);
    char err[256] = "";
    if (KB_OK != mcast_sched_check(n, root, sc, ep.window, ep.max_sends, NULL, err, sizeof(err))) {
        fail_msg("n=%d M=%zu: %s", n, M, err);
    }
    mcast_simnet_params_t sp;
    memset(&sp, 0, sizeof(sp));
    sp.net = mach->net;
    sp.fail_rank = -1;
    sp.shuffle_seed = 7;
    mcast_simnet_result_t res;
    if (KB_OK != mcast_simnet_run(n, root, sc, &ep, &sp, NULL, NULL, &res, err, sizeof(err))) {
        fail_msg("n=%d M=%zu simnet: %s", n, M, err);
    }
    assert_int_equal(res.status, 0);
    for (int r = 0; r < n; ++r) {
        mcast_sched_free(sc[r]);
    }
    free(sc);
}

/* twolevel: between the node leaders a k-binomial tree or a family (circulant, two-tree),
 * inside the nodes a tree; many nodes and a large message make it a family.  Every plan's
 * schedules pass the checker and run on the simulated network. */
static void test_two_level_plans(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    int families = 0, trees = 0;
    const int shapes[][2] = {{2, 3}, {3, 2}, {4, 3}, {16, 3}, {5, 4}};
    const size_t sizes[] = {1000, 100000, 1 << 20, 8 << 20};
    for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); ++si) {
        const int nodes = shapes[si][0], ppn = shapes[si][1], n = nodes * ppn;
        int *node = malloc(sizeof(int) * (size_t) n);
        for (int r = 0; r < n; ++r) {
            node[r] = r % nodes; /* interleaved: nodes are not contiguous in rank order */
        }
        for (size_t mi = 0; mi < sizeof(sizes) / sizeof(sizes[0]); ++mi) {
            for (int root = 0; root < n; root += n / 2) {
                mcast_forced_t f;
                mcast_forced_default(&f);
                f.algorithm = MCAST_ALG_TWOLEVEL;
                mcast_plan_input_t in = input(n, root, sizes[mi], &mach, &f);
                in.node_of_rank = node;
                in.nnodes = nodes;
                mcast_plan_t *p = select_ok(&in);
                mcast_plan_info_t info;
                mcast_plan_get_info(p, &info);
                assert_int_equal(info.algorithm, MCAST_ALG_TWOLEVEL);
                char desc[512];
                mcast_plan_describe(p, desc, sizeof(desc));
                if (NULL == info.tree) {
                    assert_true(info.family == MCAST_FAM_CIRCULANT || info.family == MCAST_FAM_TWOTREE);
                    assert_non_null(strstr(desc, "inter="));
                    ++families;
                } else {
                    ++trees;
                }
                check_and_run(p, n, root, sizes[mi], &mach);
                mcast_plan_free(p);
            }
        }
        free(node);
    }
    printf("# twolevel plans: %d with a family between the leaders, %d trees\n", families, trees);
    assert_true(families > 0 && trees > 0);
}

/* Bandwidth: on a large flat network at 16 MiB the planner's choice is a family, not a
 * tree (the round-optimal circulant pipeline needs m - 1 + log2 n rounds, the best
 * pipelined tree about 2m or more), and the choice is predicted faster than any forced
 * tree. */
static void test_family_wins_bandwidth(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    mcast_forced_t f;
    mcast_forced_default(&f);
    mcast_plan_input_t in = input(1024, 0, 16 << 20, &mach, &f);
    mcast_plan_t *p = select_ok(&in);
    mcast_plan_info_t info;
    mcast_plan_get_info(p, &info);
    assert_true(info.family >= 0);
    const double t_auto = info.predicted_us;
    printf("# n=1024 16 MiB: auto %s %.1f us", info.name, t_auto);
    mcast_plan_free(p);
    const int trees[] = {MCAST_ALG_KBINOMIAL, MCAST_ALG_POSTAL, MCAST_ALG_BINOMIAL};
    for (int i = 0; i < 3; ++i) {
        f.algorithm = trees[i];
        p = select_ok(&in);
        mcast_plan_get_info(p, &info);
        printf(", %s %.1f us", info.name, info.predicted_us);
        assert_true(t_auto < info.predicted_us);
        mcast_plan_free(p);
    }
    printf("\n");
}

/* A network the built-in model does not describe (input.unmodelled_network, header
 * "Unmodelled networks"): under auto every class is Open MPI's own, handed to the module
 * below, or, with compare_previous = 0, our copy of tuned's choice on rank order (whole
 * messages, copies at once), of libnbc's for a nonblocking decision; from 1 MiB where
 * tuned's choice is the linear tree or the chain, our copy by default too; forced
 * algorithms and a rule still decide. */
static void test_unmodelled(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    /* tuned 4.1's table for 4-7 ranks: binomial below 8 KiB... linear to 1 MiB, chain
     * above; copy: auto runs our copy (1 MiB and more, linear or chain) */
    static const struct {
        int n;
        size_t bytes;
        int alg;
        int copy;
    } cases[] = {{4, 65536, MCAST_ALG_LINEAR, 0},    {4, 262144, MCAST_ALG_LINEAR, 0},
                 {4, 900000, MCAST_ALG_LINEAR, 0},   {4, 1048576, MCAST_ALG_CHAIN, 1},
                 {4, 4194304, MCAST_ALG_CHAIN, 1},   {8, 20000, MCAST_ALG_BINOMIAL, 0},
                 {8, 800000, MCAST_ALG_LINEAR, 0},   {8, 2000000, MCAST_ALG_LINEAR, 1},
                 {3, 4194304, MCAST_ALG_KBINOMIAL, 0}, {20, 4000000, MCAST_ALG_SCATTER_ALLGATHER, 0}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
        for (int root = 0; root < cases[i].n; root += cases[i].n - 1) {
            mcast_forced_t f;
            mcast_forced_default(&f);
            mcast_plan_input_t in = input(cases[i].n, root, cases[i].bytes, &mach, &f);
            in.unmodelled_network = 1;
            mcast_plan_t *p = select_ok(&in);
            mcast_plan_info_t info;
            mcast_plan_get_info(p, &info);
            assert_int_equal(info.defer, !cases[i].copy);
            assert_string_equal(info.selected_by, cases[i].copy ? "unmodelled" : "previous:unmodelled");
            assert_int_equal(info.algorithm, cases[i].alg);
            mcast_plan_free(p);
            f.compare_previous = 0; /* our copy of it */
            p = select_ok(&in);
            mcast_plan_get_info(p, &info);
            assert_int_equal(info.defer, 0);
            assert_string_equal(info.selected_by, "unmodelled");
            assert_int_equal(info.algorithm, cases[i].alg);
            if (MCAST_ALG_SCATTER_ALLGATHER != cases[i].alg) {
                assert_int_equal(info.segment_bytes, 0); /* whole */
                /* copies at once, as tuned posts them: every child's in flight */
                for (int r = 0; r < cases[i].n; ++r) {
                    mcast_engine_params_t ep;
                    assert_int_equal(mcast_plan_engine_params(p, r, cases[i].bytes, &ep), KB_OK);
                    assert_true(ep.max_sends >= cases[i].n - 1);
                }
                assert_int_equal(info.chain[0], root);
                for (int r = 1; r < cases[i].n; ++r) { /* rank order from the root */
                    assert_int_equal(info.chain[r], (root + r) % cases[i].n);
                }
            }
            mcast_plan_free(p);
            /* forced: the forced algorithm */
            f.compare_previous = 1;
            f.algorithm = MCAST_ALG_TWOTREE;
            p = select_ok(&in);
            mcast_plan_get_info(p, &info);
            assert_int_equal(info.algorithm, MCAST_ALG_TWOTREE);
            assert_int_equal(info.defer, 0);
            mcast_plan_free(p);
        }
    }
    /* off: the model's choice as before (4 ranks, 256 KiB: not Open MPI's linear) */
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.compare_previous = 0;
    mcast_plan_input_t in = input(4, 0, 262144, &mach, &f);
    mcast_plan_t *p = select_ok(&in);
    mcast_plan_info_t info;
    mcast_plan_get_info(p, &info);
    assert_string_equal(info.selected_by, "model");
    mcast_plan_free(p);
    /* the nonblocking decision (input.nonblocking, compare_previous 0): of Open MPI's two
     * choices, tuned's (MPI_Bcast's table) and libnbc's (a linear tree up to 4 ranks, a
     * binomial tree above), the one the model predicts faster, libnbc's on a tie (E-TCP-6);
     * whole messages, copies at once, rank order.  The model ranks the shallower tree
     * first for small messages and the one whose root sends fewer copies for large ones:
     * 4 ranks, 8 B: libnbc's linear, not tuned's binary tree; 8 ranks, 4 B: tuned's
     * radix-4 tree (two levels), not libnbc's binomial (three); 8 ranks, 16 B: libnbc's
     * binomial, not tuned's binary tree; 8 ranks, 1 MiB: the binomial, not tuned's linear
     * tree (seven copies from the root); 2 ranks: one send either way, libnbc's */
    static const struct {
        int n;
        size_t bytes;
        int alg;
    } nbc[] = {{4, 8, MCAST_ALG_LINEAR},     {8, 4, MCAST_ALG_KNOMIAL},
               {8, 16, MCAST_ALG_BINOMIAL},  {8, 1048576, MCAST_ALG_BINOMIAL},
               {2, 8, MCAST_ALG_LINEAR},     {2, 4194304, MCAST_ALG_LINEAR}};
    for (size_t i = 0; i < sizeof(nbc) / sizeof(nbc[0]); ++i) {
        const int n = nbc[i].n, root = n - 1;
        mcast_forced_default(&f);
        f.compare_previous = 0;
        in = input(n, root, nbc[i].bytes, &mach, &f);
        in.unmodelled_network = 1;
        p = select_ok(&in);
        mcast_plan_get_info(p, &info);
        const int blocking_alg = info.algorithm; /* tuned's */
        mcast_plan_free(p);
        in.nonblocking = 1;
        p = select_ok(&in);
        mcast_plan_get_info(p, &info);
        assert_int_equal(info.defer, 0);
        assert_string_equal(info.selected_by, "unmodelled");
        assert_int_equal(info.algorithm, nbc[i].alg);
        assert_true(info.algorithm == blocking_alg ||
                    info.algorithm == (n <= 4 ? MCAST_ALG_LINEAR : MCAST_ALG_BINOMIAL));
        assert_int_equal(info.segment_bytes, 0);
        for (int r = 0; r < n; ++r) {
            mcast_engine_params_t ep;
            assert_int_equal(mcast_plan_engine_params(p, r, nbc[i].bytes, &ep), KB_OK);
            assert_true(ep.max_sends >= n - 1);
            assert_int_equal(info.chain[r], (root + r) % n);
        }
        mcast_plan_free(p);
        /* a model of the network (a machine file): the model decides as for a blocking
         * call, nonblocking or not */
        in.unmodelled_network = 0;
        p = select_ok(&in);
        mcast_plan_get_info(p, &info);
        assert_string_equal(info.selected_by, "model");
        mcast_plan_free(p);
    }
}

/* Under auto the planner compares its best plan with what the module below would run
 * (Open MPI 4.1's tuned fixed decision, modelled) and defers unless ours is predicted more
 * than 5 % faster; never with compare_previous = 0, a forced algorithm or a rule. */
static void test_previous(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    const int ns[] = {2, 3, 4, 7, 8, 15, 20, 40, 100, 200, 600};
    const size_t sizes[] = {1, 100, 1500, 6000, 20000, 100000, 400000, 2000000};
    int deferred = 0, ours = 0;
    for (size_t ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ++ni) {
        for (size_t mi = 0; mi < sizeof(sizes) / sizeof(sizes[0]); ++mi) {
            for (int all_local = 0; all_local <= 1; ++all_local) {
                mcast_forced_t f;
                mcast_forced_default(&f);
                assert_int_equal(f.compare_previous, 1);
                mcast_plan_input_t in = input(ns[ni], ns[ni] / 2, sizes[mi], &mach, &f);
                in.all_local = all_local;
                in.nnodes = all_local ? 1 : ns[ni];
                mcast_plan_t *p = select_ok(&in);
                mcast_plan_info_t info;
                mcast_plan_get_info(p, &info);
                assert_true(info.previous_us >= 0.0);
                assert_true(strlen(info.previous) > 0);
                const int expect = info.previous_us <= info.predicted_us * 1.05;
                assert_int_equal(info.defer, expect);
                assert_string_equal(info.selected_by, expect ? "previous" : "model");
                deferred += expect;
                ours += !expect;
                char desc[512];
                mcast_plan_describe(p, desc, sizeof(desc));
                assert_non_null(strstr(desc, "previous="));
                mcast_plan_free(p);
                /* switched off, forced: ours */
                f.compare_previous = 0;
                p = select_ok(&in);
                mcast_plan_get_info(p, &info);
                assert_int_equal(info.defer, 0);
                assert_true(info.previous_us < 0.0);
                mcast_plan_free(p);
                f.compare_previous = 1;
                f.algorithm = MCAST_ALG_KBINOMIAL;
                p = select_ok(&in);
                mcast_plan_get_info(p, &info);
                assert_int_equal(info.defer, 0);
                mcast_plan_free(p);
            }
        }
    }
    printf("# previous: %d classes deferred, %d ours\n", deferred, ours);
    assert_true(deferred > 0 && ours > 0);
    /* the modelled table: 2 ranks run the same tree whatever the algorithm: a tie defers;
     * 4 ranks, 64 KiB: tuned's basic linear; 20 ranks, 2 MB: scatter + allgather */
    mcast_forced_t f;
    mcast_forced_default(&f);
    mcast_plan_input_t in = input(2, 0, 65536, &mach, &f);
    mcast_plan_t *p = select_ok(&in);
    mcast_plan_info_t info;
    mcast_plan_get_info(p, &info);
    assert_int_equal(info.defer, 1);
    mcast_plan_free(p);
    in = input(4, 0, 65536, &mach, &f);
    p = select_ok(&in);
    mcast_plan_get_info(p, &info);
    assert_string_equal(info.previous, "linear");
    mcast_plan_free(p);
    in = input(20, 0, 2000000, &mach, &f);
    p = select_ok(&in);
    mcast_plan_get_info(p, &info);
    assert_string_equal(info.previous, "scatter_allgather");
    mcast_plan_free(p);
}

/* The decision API (mcast_decide_class, mcast_plan_on_root): the class's choice comes from
 * root 0's input at the class's size, every root's plan is that choice on the root's own
 * chain (what the glue, mcast-inspect and perf/sim call). */
typedef struct {
    int n, calls, last_root, fail, unmodelled;
    size_t last_bytes;
    const mcast_machine_t *m;
    mcast_forced_t forced;
    int chain[64];
} decide_ctx_t;

static int decide_input(void *ctx, int root, size_t bytes, mcast_plan_input_t *in,
                        mcast_forced_t *f)
{
    decide_ctx_t *c = ctx;
    c->calls++;
    c->last_root = root;
    c->last_bytes = bytes;
    if (c->fail) {
        return KB_ERR_ARG;
    }
    *f = c->forced;
    *in = input(c->n, root, bytes, c->m, f);
    in->unmodelled_network = c->unmodelled;
    for (int i = 0; i < c->n; ++i) { /* a chain of its own per root: reversed from it */
        c->chain[i] = (root - i + c->n) % c->n;
    }
    in->chain = c->chain;
    return KB_OK;
}

/* The runner-up (mcast_decide_runner_up): under auto, where the model chose our plan, the
 * best plan of another algorithm: a different algorithm, predicted no faster than the
 * choice, as that algorithm forced predicts (its plan on any root is that choice), never
 * faster than the cheapest forced one (auto evaluates a subset of the registry); offered
 * only within the given fraction; none for a deferred or forced choice. */
/* Whether algorithm alg forced on c's input at cb builds the tree of the plan `info`
 * describes (every rank's parent), in the same segments (the test's own comparison,
 * through the C API). */
static int same_tree_as_forced(const decide_ctx_t *c, size_t cb, const mcast_plan_info_t *info,
                               int alg)
{
    decide_ctx_t fc = *c;
    fc.forced.algorithm = alg;
    mcast_class_choice_t ch;
    mcast_plan_t *pf = NULL;
    assert_int_equal(mcast_decide_class(decide_input, &fc, cb, &ch, &pf, NULL, 0), KB_OK);
    mcast_plan_info_t fi;
    mcast_plan_get_info(pf, &fi);
    int same = NULL != info->tree && NULL != fi.tree && info->family < 0 && fi.family < 0 &&
               info->segment_bytes == fi.segment_bytes && info->max_sends == fi.max_sends &&
               info->window == fi.window && info->tree->n == fi.tree->n;
    for (int r = 0; same && r < fi.tree->n; ++r) { /* (the order of a rank's sends aside) */
        same = info->tree->parent[r] == fi.tree->parent[r];
    }
    mcast_plan_free(pf);
    return same;
}

static void test_runner_up(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    const size_t sizes[] = {100, 8192, 65536, 2000000};
    const int ns[] = {5, 12, 33};
    int offered = 0, same_trees = 0;
    for (size_t ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ++ni) {
        for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); ++si) {
            decide_ctx_t c = {.n = ns[ni], .m = &mach};
            mcast_forced_default(&c.forced);
            c.forced.compare_previous = 0; /* ours always: selected_by model */
            const size_t cb = mcast_class_bytes(mcast_size_class(sizes[si]));
            mcast_class_choice_t choice, ru;
            mcast_plan_t *p0 = NULL;
            char why[256] = "";
            assert_int_equal(mcast_decide_class(decide_input, &c, cb, &choice, &p0, why,
                                                sizeof(why)), KB_OK);
            mcast_plan_info_t info;
            mcast_plan_get_info(p0, &info);
            assert_string_equal(info.selected_by, "model");
            assert_true(info.runner_up != MCAST_ALG_AUTO);
            assert_true(info.runner_up != info.algorithm);
            assert_true(info.runner_up_us >= info.predicted_us * (1.0 - 1e-9));
            const double gap = info.runner_up_us / info.predicted_us - 1.0;
            printf("# runner-up: n=%d class_bytes=%zu %s %.1f us, %s +%.1f %%\n", c.n, cb,
                   info.name, info.predicted_us, mcast_registry_get(info.runner_up)->name,
                   100.0 * gap);
            /* the cheapest forced algorithm other than the choice is no slower */
            double cheapest = -1.0;
            for (int a = 1; a < mcast_registry_count(); ++a) {
                const mcast_alg_info_t *ai = mcast_registry_get(a);
                if (a == info.algorithm || 0 == (ai->component & MCAST_COMP_KBINOMIAL)) {
                    continue;
                }
                decide_ctx_t fc = c;
                fc.forced.algorithm = a;
                mcast_plan_t *pf = NULL;
                if (KB_OK != mcast_decide_class(decide_input, &fc, cb, &ru, &pf, NULL, 0)) {
                    continue;
                }
                mcast_plan_info_t fi;
                mcast_plan_get_info(pf, &fi);
                if (cheapest < 0.0 || fi.predicted_us < cheapest) {
                    cheapest = fi.predicted_us;
                }
                if (a == info.runner_up) { /* the same prediction as forced */
                    assert_true(fabs(fi.predicted_us - info.runner_up_us) <=
                                1e-9 * info.runner_up_us);
                }
                mcast_plan_free(pf);
            }
            assert_true(cheapest >= 0.0 && cheapest <= info.runner_up_us * (1.0 + 1e-9));
            /* offered within the fraction only, and only where it sends otherwise than the
             * choice (not the same tree in the same segments: postal and k-nomial trees of
             * 5 ranks at 100 B) */
            const int distinct = !same_tree_as_forced(&c, cb, &info, info.runner_up);
            assert_int_equal(mcast_decide_runner_up(decide_input, &c, p0, 0.0, &ru, why,
                                                    sizeof(why)), 0);
            if (gap > 1e-6) {
                assert_int_equal(mcast_decide_runner_up(decide_input, &c, p0, gap * 0.99, &ru,
                                                        why, sizeof(why)), 0);
            }
            assert_int_equal(mcast_decide_runner_up(decide_input, &c, p0, gap * 1.01 + 1e-9,
                                                    &ru, why, sizeof(why)), distinct);
            same_trees += !distinct;
            if (!distinct) {
                mcast_plan_free(p0);
                continue;
            }
            offered++;
            assert_int_equal(ru.algorithm, info.runner_up);
            assert_int_equal(ru.defer, 0);
            assert_string_equal(ru.selected_by, "model:runner-up");
            for (int root = 0; root < c.n; root += c.n - 1) { /* built on any root */
                mcast_plan_t *p = NULL;
                assert_int_equal(mcast_plan_on_root(&ru, decide_input, &c, root, cb, &p, why,
                                                    sizeof(why)), KB_OK);
                mcast_plan_info_t ri;
                mcast_plan_get_info(p, &ri);
                assert_int_equal(ri.algorithm, info.runner_up);
                assert_string_equal(ri.selected_by, "model:runner-up");
                assert_int_equal(ri.runner_up, MCAST_ALG_AUTO); /* (forced: no runner-up) */
                if (0 == root) {
                    assert_true(fabs(ri.predicted_us - info.runner_up_us) <=
                                1e-9 * info.runner_up_us);
                }
                mcast_plan_free(p);
            }
            mcast_plan_free(p0);
        }
    }
    printf("# runner-up: %d offered, %d the same tree as the choice\n", offered, same_trees);
    assert_true(offered >= 6 && same_trees >= 1 && offered + same_trees == 12);
    /* none for a deferred choice (2 ranks: the module below), a forced one, a bad call */
    decide_ctx_t c = {.n = 2, .m = &mach};
    mcast_forced_default(&c.forced);
    mcast_class_choice_t choice, ru;
    mcast_plan_t *p0 = NULL;
    assert_int_equal(mcast_decide_class(decide_input, &c, 65536, &choice, &p0, NULL, 0), KB_OK);
    assert_int_equal(choice.defer, 1);
    assert_int_equal(mcast_decide_runner_up(decide_input, &c, p0, 10.0, &ru, NULL, 0), 0);
    mcast_plan_free(p0);
    c.n = 12;
    c.forced.algorithm = MCAST_ALG_KBINOMIAL;
    assert_int_equal(mcast_decide_class(decide_input, &c, 65536, &choice, &p0, NULL, 0), KB_OK);
    mcast_plan_info_t info;
    mcast_plan_get_info(p0, &info);
    assert_int_equal(info.runner_up, MCAST_ALG_AUTO);
    assert_int_equal(mcast_decide_runner_up(decide_input, &c, p0, 10.0, &ru, NULL, 0), 0);
    assert_int_equal(mcast_decide_runner_up(decide_input, &c, NULL, 10.0, &ru, NULL, 0), KB_ERR_ARG);
    assert_int_equal(mcast_decide_runner_up(NULL, &c, p0, 10.0, &ru, NULL, 0), KB_ERR_ARG);
    mcast_plan_free(p0);
}

static void test_decision_api(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    const size_t sizes[] = {100, 65536, 2000000};
    int ours = 0, deferred = 0;
    for (int compare = 0; compare <= 1; ++compare) {
        for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); ++si) {
            decide_ctx_t c = {.n = 12, .m = &mach};
            mcast_forced_default(&c.forced);
            c.forced.compare_previous = compare;
            const size_t cb = mcast_class_bytes(mcast_size_class(sizes[si]));
            mcast_class_choice_t choice;
            mcast_plan_t *p0 = NULL;
            char why[256] = "";
            assert_int_equal(mcast_decide_class(decide_input, &c, cb, &choice, &p0, why,
                                                sizeof(why)), KB_OK);
            assert_int_equal(c.calls, 1);
            assert_int_equal(c.last_root, 0);
            assert_true(c.last_bytes == cb);
            mcast_plan_info_t i0;
            mcast_plan_get_info(p0, &i0);
            assert_int_equal(choice.defer, i0.defer);
            assert_int_equal(choice.algorithm, i0.algorithm);
            assert_string_equal(choice.selected_by, i0.selected_by);
            mcast_plan_free(p0);
            mcast_plan_t *p = NULL;
            if (choice.defer) {
                deferred++;
                assert_int_equal(mcast_plan_on_root(&choice, decide_input, &c, 5, cb, &p, why,
                                                    sizeof(why)), KB_ERR_ARG);
                assert_null(p);
                continue;
            }
            ours++;
            for (int root = 0; root < c.n; ++root) {
                assert_int_equal(mcast_plan_on_root(&choice, decide_input, &c, root, cb, &p, why,
                                                    sizeof(why)), KB_OK);
                assert_int_equal(c.last_root, root);
                mcast_plan_info_t info;
                mcast_plan_get_info(p, &info);
                assert_int_equal(info.algorithm, choice.algorithm);
                assert_int_equal(info.k, choice.k);
                assert_true((info.segment_bytes == 0 ? SIZE_MAX : info.segment_bytes) ==
                            choice.segment_bytes);
                assert_string_equal(info.selected_by, choice.selected_by);
                assert_int_equal(info.defer, 0);
                assert_int_equal(info.root, root);
                if (NULL != info.chain) { /* built on this root's chain */
                    assert_int_equal(info.chain[0], root);
                    assert_int_equal(info.chain[1], (root - 1 + c.n) % c.n);
                }
                mcast_plan_free(p);
                p = NULL;
            }
        }
    }
    assert_true(ours > 0);
    { /* 2 ranks run the same tree whatever the algorithm: the class goes to the module
       * below (test_previous), and no root has a plan of ours */
        decide_ctx_t c = {.n = 2, .m = &mach};
        mcast_forced_default(&c.forced);
        mcast_class_choice_t choice;
        assert_int_equal(mcast_decide_class(decide_input, &c, 65536, &choice, NULL, NULL, 0),
                         KB_OK);
        assert_int_equal(choice.defer, 1);
        assert_string_equal(choice.selected_by, "previous");
        deferred++;
        mcast_plan_t *p = NULL;
        assert_int_equal(mcast_plan_on_root(&choice, decide_input, &c, 1, 65536, &p, NULL, 0),
                         KB_ERR_ARG);
        assert_null(p);
    }
    assert_true(deferred > 0);
    { /* the unmodelled copy of tuned's linear (compare_previous 0) keeps its copies at
       * once on every root, rendezvous sizes too (header, "Unmodelled networks") */
        decide_ctx_t u = {.n = 4, .m = &mach, .unmodelled = 1};
        mcast_forced_default(&u.forced);
        u.forced.compare_previous = 0;
        mcast_class_choice_t ch;
        assert_int_equal(mcast_decide_class(decide_input, &u, 262144, &ch, NULL, NULL, 0), KB_OK);
        assert_int_equal(ch.defer, 0);
        assert_int_equal(ch.algorithm, MCAST_ALG_LINEAR);
        assert_true(262144 > mach.net.eager_bytes);
        for (int root = 0; root < u.n; ++root) {
            mcast_plan_t *p = NULL;
            assert_int_equal(mcast_plan_on_root(&ch, decide_input, &u, root, 262144, &p, NULL, 0),
                             KB_OK);
            mcast_engine_params_t ep;
            assert_int_equal(mcast_plan_engine_params(p, root, 262144, &ep), KB_OK);
            assert_true(ep.max_sends >= u.n - 1);
            mcast_plan_free(p);
        }
    }
    /* a forced algorithm is the class's choice on every root */
    decide_ctx_t c = {.n = 7, .m = &mach};
    mcast_forced_default(&c.forced);
    c.forced.algorithm = MCAST_ALG_CHAIN;
    mcast_class_choice_t choice;
    assert_int_equal(mcast_decide_class(decide_input, &c, 4096, &choice, NULL, NULL, 0), KB_OK);
    assert_int_equal(choice.algorithm, MCAST_ALG_CHAIN);
    assert_string_equal(choice.selected_by, "forced");
    mcast_plan_t *p = NULL;
    assert_int_equal(mcast_plan_on_root(&choice, decide_input, &c, 3, 4096, &p, NULL, 0), KB_OK);
    mcast_plan_info_t info;
    mcast_plan_get_info(p, &info);
    assert_int_equal(info.algorithm, MCAST_ALG_CHAIN);
    mcast_plan_free(p);
    /* bad arguments, and the input's own failure, come back as they are */
    assert_int_equal(mcast_decide_class(NULL, &c, 4096, &choice, NULL, NULL, 0), KB_ERR_ARG);
    assert_int_equal(mcast_decide_class(decide_input, &c, 4096, NULL, NULL, NULL, 0), KB_ERR_ARG);
    assert_int_equal(mcast_plan_on_root(&choice, decide_input, &c, 3, 4096, NULL, NULL, 0),
                     KB_ERR_ARG);
    assert_int_equal(mcast_plan_on_root(NULL, decide_input, &c, 3, 4096, &p, NULL, 0), KB_ERR_ARG);
    c.fail = 1;
    assert_int_equal(mcast_decide_class(decide_input, &c, 4096, &choice, NULL, NULL, 0), KB_ERR_ARG);
    assert_int_equal(mcast_plan_on_root(&choice, decide_input, &c, 3, 4096, &p, NULL, 0),
                     KB_ERR_ARG);
}

/* The built-in model with a TCP network's per-message, latency and per-byte figures. */
static mcast_machine_t tcp_machine(double o_us, double latency_us, double ns_per_byte)
{
    mcast_machine_t m;
    mcast_machine_default(&m);
    m.net.o_send_us = m.net.o_recv_us = o_us;
    m.net.latency_us = latency_us;
    m.net.gap_ns_per_byte = m.net.wire_ns_per_byte = ns_per_byte;
    return m;
}

/* Hardware multicast (mcast, coll/pathmc): forced without a group fails with the reason;
 * with one, the plan names its transport and is no schedule; under auto it is a candidate
 * only across nodes, and wins on a 1 Gbit/s network at 1 MiB where its root writes M once
 * (the cluster's machine model), never on one node. */
static void test_mcast_plans(void **state)
{
    (void) state;
    const mcast_machine_t gige = tcp_machine(5.0, 55.0, 10.8);
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.algorithm = MCAST_ALG_MCAST;
    mcast_plan_input_t in = input(8, 3, 1 << 20, &gige, &f);
    in.component = MCAST_COMP_PATHMC;
    mcast_plan_t *p = NULL;
    char err[256] = "";
    assert_int_equal(mcast_plan_select(&in, &p, err, sizeof(err)), KB_ERR_ARG);
    assert_non_null(strstr(err, "no multicast group"));
    in.mcast_transport = MCAST_TRANSPORT_IP;
    in.mcast_chunk_bytes = 1432;
    p = select_ok(&in);
    mcast_plan_info_t info;
    mcast_plan_get_info(p, &info);
    assert_int_equal(info.algorithm, MCAST_ALG_MCAST);
    assert_string_equal(info.transport, "ip");
    assert_null(info.tree);
    char desc[512];
    mcast_plan_describe(p, desc, sizeof(desc));
    assert_non_null(strstr(desc, "transport=ip"));
    mcast_sched_t *s = NULL;
    assert_int_equal(mcast_plan_schedule(p, 0, 1 << 20, &s), KB_ERR_ARG);
    mcast_engine_params_t ep;
    assert_int_equal(mcast_plan_engine_params(p, 0, 1 << 20, &ep), KB_ERR_ARG);
    /* the model: L + max(M x 10.8 ns, 733 datagrams x 5 us) + 3 ACK hops of 65 us */
    const double M = (double) mcast_class_bytes(mcast_size_class(1 << 20));
    const double want = 55.0 + fmax(M * 10.8e-3, ceil(M / 1432.0) * 5.0) + 3 * 65.0;
    assert_true(fabs(info.predicted_us - want) < 1e-6 * want);
    mcast_plan_free(p);
    in.mcast_transport = MCAST_TRANSPORT_IB;
    p = select_ok(&in);
    mcast_plan_get_info(p, &info);
    assert_string_equal(info.transport, "ib");
    mcast_plan_free(p);
    /* auto across 8 nodes at 1 MiB on 1 Gbit/s: multicast; on one node: never */
    f.algorithm = MCAST_ALG_AUTO;
    in.mcast_transport = MCAST_TRANSPORT_IP;
    p = select_ok(&in);
    mcast_plan_get_info(p, &info);
    assert_int_equal(info.algorithm, MCAST_ALG_MCAST);
    assert_int_equal(info.defer, 0);
    mcast_plan_free(p);
    in.all_local = 1;
    in.nnodes = 1;
    p = select_ok(&in);
    mcast_plan_get_info(p, &info);
    assert_int_not_equal(info.algorithm, MCAST_ALG_MCAST);
    assert_string_equal(info.transport, "pml");
    mcast_plan_free(p);
}

/* pathlg (coll/pathmc): the Less-Greedy worm plan rendered as a tree on generated
 * irregular networks (seed 001 sec. 6.3's generator), several ranks per host on some:
 * a valid spanning tree whose schedules pass the checker and run on the simulated
 * network; forced without a switch network it is refused with the reason; under auto
 * it is a candidate only with one. */
static void test_pathlg_plans(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    int cases = 0;
    for (unsigned seed = 1; seed <= 6; ++seed) {
        char *text = NULL;
        assert_int_equal(pm_generate_irregular(8, 8, 16, 60, seed, &text), PM_OK);
        pm_topology_t *topo = NULL;
        char err[256] = "";
        if (PM_OK != pm_topology_parse_string(text, PM_FMT_AUTO, "gen", &topo, err, sizeof(err))) {
            fail_msg("generated network %u: %s", seed, err);
        }
        pm_free(text);
        const int nh = pm_topology_nhosts(topo);
        const int n = seed % 2 ? nh : nh + nh / 2; /* odd seeds one rank per host, else some share */
        const char **hosts = malloc(sizeof(char *) * (size_t) n);
        for (int r = 0; r < n; ++r) {
            hosts[r] = pm_topology_host_name(topo, (int) ((r * 7u + seed) % (unsigned) nh));
        }
        const size_t sizes[] = {1000, 65536, 1 << 20};
        for (int si = 0; si < 3; ++si) {
            mcast_forced_t f;
            mcast_forced_default(&f);
            f.algorithm = MCAST_ALG_PATHLG;
            const int root = (int) (seed * 5u) % n;
            mcast_plan_input_t in = input(n, root, sizes[si], &mach, &f);
            in.component = MCAST_COMP_PATHMC;
            in.switch_net = topo;
            in.hosts = hosts;
            mcast_plan_t *p = select_ok(&in);
            mcast_plan_info_t info;
            mcast_plan_get_info(p, &info);
            assert_int_equal(info.algorithm, MCAST_ALG_PATHLG);
            assert_non_null(info.tree);
            assert_int_equal(kb_tree_check(info.tree), KB_OK);
            assert_int_equal(info.tree->root, root);
            check_and_run(p, n, root, sizes[si], &mach);
            mcast_plan_free(p);
            ++cases;
        }
        free(hosts);
        pm_topology_free(topo);
    }
    printf("# pathlg plans on generated irregular networks: %d checked and simulated\n", cases);
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.algorithm = MCAST_ALG_PATHLG;
    mcast_plan_input_t in = input(4, 0, 1000, &mach, &f);
    in.component = MCAST_COMP_PATHMC;
    mcast_plan_t *p = NULL;
    char err[256] = "";
    assert_int_equal(mcast_plan_select(&in, &p, err, sizeof(err)), KB_ERR_ARG);
    assert_non_null(strstr(err, "pathlg needs an irregular switch network"));
    assert_null(p);
}

/* Link sharing (mcast_planner.h): two switches joined by one link, hosts a0 a1 on s0 and
 * b0 b1 on s1.  The chain a0 b0 a1 b1 crosses s0 -> s1 twice, so the plan needs at least
 * 2 M wire + o_send + L + o_recv, and its pipeline passes a block to b0 and to b1 every
 * 2 S wire at best: the prediction is the chain's recurrence with that period (three hops
 * to fill, m - 1 periods), or the bound where larger; the chain a0 a1 b0 b1 crosses once
 * and is predicted as without a topology. */
/* The information of the plan selected for `in`. */
static mcast_plan_info_t info_of(const mcast_plan_input_t *in)
{
    mcast_plan_t *p = select_ok(in);
    mcast_plan_info_t info;
    assert_int_equal(mcast_plan_get_info(p, &info), KB_OK);
    mcast_plan_free(p);
    return info;
}

static double predict_chain(const int *chain, size_t M, const pm_topology_t *topo,
                            const char *const *hosts, const mcast_machine_t *mach)
{
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.algorithm = MCAST_ALG_CHAIN;
    f.segment_bytes = 8192;
    mcast_plan_input_t in = input(4, 0, M, mach, &f);
    in.chain = chain;
    in.exact_bytes = 1;
    in.topology = topo;
    in.hosts = hosts;
    const mcast_plan_info_t info = info_of(&in);
    assert_int_equal(info.class_bytes, M);
    return info.predicted_us;
}

/* Two switches joined by one link: a0 a1 on s0, b0 b1 on s1. */
static pm_topology_t *two_switches(void)
{
    static const char *net = "switch s0 4\nswitch s1 4\nhost a0\nhost a1\nhost b0\nhost b1\n"
                             "link a0 s0\nlink a1 s0\nlink b0 s1\nlink b1 s1\nlink s0 s1\n";
    pm_topology_t *topo = NULL;
    char err[256] = "";
    if (PM_OK != pm_topology_parse_string(net, PM_FMT_AUTO, "two-switches", &topo, err, sizeof(err))) {
        fail_msg("topology: %s", err);
    }
    return topo;
}

static void test_link_sharing(void **state)
{
    (void) state;
    pm_topology_t *topo = two_switches();
    const char *hosts[4] = {"a0", "a1", "b0", "b1"};
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    const mcast_loggp_t g = mach.net;
    const int crossing_twice[4] = {0, 2, 1, 3};
    const int crossing_once[4] = {0, 1, 2, 3};
    const size_t sizes[] = {1 << 20, 4 << 20, 3000000};
    for (int i = 0; i < 3; ++i) {
        const size_t M = sizes[i];
        const double bound = 2.0 * (double) M * g.wire_ns_per_byte * 1e-3 + g.o_send_us +
                             g.latency_us + g.o_recv_us;
        const double free_twice = predict_chain(crossing_twice, M, NULL, NULL, &mach);
        const double twice = predict_chain(crossing_twice, M, topo, hosts, &mach);
        const double S = 8192.0, m = ceil((double) M / S);
        const double sigma = g.o_send_us + S * g.gap_ns_per_byte * 1e-3;
        const double rho = g.o_recv_us + S * g.recv_ns_per_byte * 1e-3;
        const double delta = g.o_send_us + g.latency_us + S * g.wire_ns_per_byte * 1e-3 + rho;
        const double shared = 2.0 * S * g.wire_ns_per_byte * 1e-3;
        const double piped = 3.0 * delta + (m - 1.0) * fmax(fmax(sigma, rho), shared);
        assert_true(free_twice < bound);
        assert_true(shared > fmax(sigma, rho)); /* the link, not a rank, sets the period */
        assert_true(fabs(twice - fmax(bound, piped)) < 1e-6 * bound);
        assert_true(twice > bound); /* the pipeline's fill comes on top of the link's time */
        /* net.switch_links: the link between the switches at half the hosts' rate carries
         * the chain's bytes in twice the time (bound and period); at twice their rate it
         * no longer binds: the chain as without a topology */
        mach.switch_links = 0.5;
        const double slow_bound = 4.0 * (double) M * g.wire_ns_per_byte * 1e-3 + g.o_send_us +
                                  g.latency_us + g.o_recv_us;
        const double slow_piped = 3.0 * delta + (m - 1.0) * fmax(fmax(sigma, rho), 2.0 * shared);
        const double slow = predict_chain(crossing_twice, M, topo, hosts, &mach);
        assert_true(fabs(slow - fmax(slow_bound, slow_piped)) < 1e-6 * slow_bound);
        mach.switch_links = 2.0;
        const double fast = predict_chain(crossing_twice, M, topo, hosts, &mach);
        assert_true(fabs(fast - free_twice) < 1e-9 * free_twice);
        mach.switch_links = 0.0;
        const double free_once = predict_chain(crossing_once, M, NULL, NULL, &mach);
        const double once = predict_chain(crossing_once, M, topo, hosts, &mach);
        assert_true(fabs(once - free_once) < 1e-9 * free_once);
        assert_true(free_twice == free_once); /* no topology: the order is invisible */
        /* auto sees it too: the best plan on the bad chain is no faster than the bound
         * of the one-crossing chain would allow, and never faster than without links */
        mcast_forced_t f;
        mcast_forced_default(&f);
        f.compare_previous = 0;
        mcast_plan_input_t in = input(4, 0, M, &mach, &f);
        in.chain = crossing_twice;
        in.exact_bytes = 1;
        mcast_plan_t *p = select_ok(&in);
        mcast_plan_info_t info;
        mcast_plan_get_info(p, &info);
        const double t_free = info.predicted_us;
        mcast_plan_free(p);
        in.topology = topo;
        in.hosts = hosts;
        p = select_ok(&in);
        mcast_plan_get_info(p, &info);
        assert_true(info.predicted_us >= t_free - 1e-9);
        /* every family's prediction is at least its link bound: M must cross s0 -> s1 */
        const double one_crossing = (double) M * g.wire_ns_per_byte * 1e-3;
        assert_true(info.predicted_us >= one_crossing);
        mcast_plan_free(p);
        static const int fams[] = {MCAST_ALG_SCATTER_ALLGATHER, MCAST_ALG_TWOTREE, MCAST_ALG_CIRCULANT};
        for (int a = 0; a < 3; ++a) {
            f.algorithm = fams[a];
            p = select_ok(&in);
            mcast_plan_get_info(p, &info);
            assert_true(info.predicted_us >= one_crossing);
            check_and_run(p, 4, 0, M, &mach);
            mcast_plan_free(p);
        }
        f.algorithm = MCAST_ALG_AUTO;
    }
    /* exact_bytes: at the class's representative it is the class decision */
    mcast_forced_t f;
    mcast_forced_default(&f);
    const size_t rep = mcast_class_bytes(mcast_size_class(1 << 20));
    mcast_plan_input_t in = input(16, 0, rep, &mach, &f);
    mcast_plan_t *p = select_ok(&in), *q;
    in.exact_bytes = 1;
    q = select_ok(&in);
    mcast_plan_info_t a, b;
    mcast_plan_get_info(p, &a);
    mcast_plan_get_info(q, &b);
    assert_int_equal(a.algorithm, b.algorithm);
    assert_true(a.predicted_us == b.predicted_us);
    mcast_plan_free(p);
    mcast_plan_free(q);
    pm_topology_free(topo);
}

/* The predicted time of the plan the planner selects for `in`. */
static double predicted_of(const mcast_plan_input_t *in)
{
    return info_of(in).predicted_us;
}

/* How many of ranks 0..n-1 of the plan selected for `in` send synchronously. */
static int ranks_sync(const mcast_plan_input_t *in, size_t M)
{
    mcast_plan_t *p = select_ok(in);
    int count = 0;
    for (int r = 0; r < in->n; ++r) {
        mcast_engine_params_t ep;
        assert_int_equal(mcast_plan_engine_params(p, r, M, &ep), KB_OK);
        count += ep.sync_sends ? 1 : 0;
    }
    mcast_plan_free(p);
    return count;
}

/* The family models' edge model across nodes: overheads folded into the send, and
 * synchronous sends as no eager limit. */
static mcast_loggp_t family_edge_sync(const mcast_loggp_t *net)
{
    mcast_loggp_t g = *net;
    g.o_send_us += g.o_recv_us;
    g.o_recv_us = 0;
    g.eager_bytes = 0;
    return g;
}

/* An nx x ny torus of hosts t0 .. t(nx ny - 1), x fastest; names holds the host names. */
/* Forced parameters for alg as the model plans it (no comparison with the module below). */
static mcast_forced_t forced_model(int alg)
{
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.compare_previous = 0;
    f.algorithm = alg;
    return f;
}

static pm_topology_t *grid_torus(int nx, int ny, char (*names)[8], const char **hosts)
{
    const int n = nx * ny;
    int *coords = calloc((size_t) (2 * n), sizeof(int));
    assert_non_null(coords);
    for (int r = 0; r < n; ++r) {
        snprintf(names[r], 8, "t%d", r);
        hosts[r] = names[r];
        coords[2 * r] = r % nx;
        coords[2 * r + 1] = r / nx;
    }
    const int shape[2] = {nx, ny};
    pm_topology_t *torus = NULL;
    char err[256] = "";
    assert_int_equal(pm_topology_from_coords(n, hosts, 2, coords, shape, &torus, err, sizeof(err)), PM_OK);
    free(coords);
    return torus;
}

/* The two-tree's route latency (mcast_planner.h, "Route latency"; evidence E-ROUTE-2): a
 * block's fill runs down its tree, so a small message's prediction covers, on the slowest
 * path to a deepest rank, its routes' latencies and a send and a receive overhead a hop.
 * The rounds' mean latency counts every edge alike and most are the short ones near the
 * leaves: on this torus it is under the slowest deepest path's per hop.  The prediction
 * is the one without the topology at that path's latency per hop everywhere. */
static void test_twotree_path_latency(void **state)
{
    (void) state;
    const char *hosts[64];
    char names[64][8];
    pm_topology_t *torus = grid_torus(8, 8, names, hosts);
    mcast_forced_t f = forced_model(MCAST_ALG_TWOTREE);
    f.sync_sends = 0;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    mach.net.latency_us = 1.0;
    mach.hop_latency_us = 0.5;
    mach.latency_links = 4;
    const size_t M = 8;
    mcast_plan_input_t in = input(64, 0, M, &mach, &f);
    in.exact_bytes = 1;
    in.hosts = hosts;
    in.topology = torus;
    mcast_plan_t *p = select_ok(&in);
    mcast_plan_info_t info;
    assert_int_equal(mcast_plan_get_info(p, &info), KB_OK);
    size_t B;
    uint32_t m;
    assert_int_equal(mcast_plan_blocks(p, M, &B, &m), KB_OK);
    assert_true(m >= 1 && m <= 2);
    int parent[2][64];
    for (uint32_t b = 0; b < m; ++b) {
        for (int r = 0; r < 64; ++r) {
            parent[b][r] = -1;
        }
    }
    double sum = 0.0;
    long edges = 0;
    for (int r = 0; r < 64; ++r) {
        mcast_sched_t *s = NULL;
        assert_int_equal(mcast_plan_schedule(p, r, M, &s), KB_OK);
        for (size_t i = 0; i < mcast_sched_count(s, MCAST_OP_SEND); ++i) {
            mcast_op_t op;
            assert_int_equal(mcast_sched_op(s, MCAST_OP_SEND, i, &op), KB_OK);
            for (uint32_t b = op.block; b < op.block + op.nblocks; ++b) {
                parent[b][op.peer] = r;
            }
        }
        mcast_sched_free(s);
    }
    /* L(u, c) = max(0, latency_us + (links - latency_links) * hop_latency_us) */
    double worst = 0.0; /* the slowest deepest path: its latency and hops */
    int worst_hops = 0;
    for (uint32_t b = 0; b < m; ++b) {
        int deepest = 0;
        double slowest = 0.0;
        for (int v = 0; v < 64; ++v) {
            double lat = 0.0;
            int hops = 0;
            for (int c = v; c != 0; c = parent[b][c]) {
                const int u = parent[b][c];
                assert_true(u >= 0 && hops < 64);
                int route[64], len = 0;
                assert_int_equal(pm_route(torus, PM_ROUTE_DEFAULT, hosts[u], hosts[c], route, 64, &len), PM_OK);
                const double l = fmax(0.0, mach.net.latency_us + (len - mach.latency_links) * mach.hop_latency_us);
                lat += l;
                ++hops;
                if (b == 0 && c == v) {
                    sum += l;
                    ++edges;
                }
            }
            if (hops > deepest || (hops == deepest && lat > slowest)) {
                deepest = hops;
                slowest = lat;
            }
        }
        if (slowest / deepest > worst / (worst_hops > 0 ? worst_hops : 1)) {
            worst = slowest;
            worst_hops = deepest;
        }
    }
    assert_true(edges == 63 && worst_hops >= 3);
    /* the test tells the two apart: the edges' mean is under the path's per hop */
    assert_true(sum / (double) edges < 0.9 * worst / worst_hops);
    const double floor = worst + worst_hops * (mach.net.o_send_us + mach.net.o_recv_us);
    assert_true(info.predicted_us >= floor * (1 - 1e-9));
    mcast_plan_free(p);
    /* the same as without the topology at that per-hop latency everywhere */
    in.hosts = NULL;
    in.topology = NULL;
    mach.hop_latency_us = 0.0;
    mach.net.latency_us = worst / worst_hops;
    const double flat = predicted_of(&in);
    assert_true(fabs(info.predicted_us - flat) <= 1e-9 * flat);
    pm_topology_free(torus);
}

/* The two-tree where the links bind (mcast_planner.h, "Blocks under the links' bound"): on
 * an 8x8 torus its prediction is the links' bound, the same for every block size the
 * family model puts under it; the planner then takes the finest of them, here the floor
 * between nodes (8 KiB), where one switch takes the family model's own best (coarser). */
static void test_twotree_blocks_under_bound(void **state)
{
    (void) state;
    const char *hosts[64];
    char names[64][8];
    pm_topology_t *torus = grid_torus(8, 8, names, hosts);
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    const size_t M = 1u << 20;
    mcast_forced_t f = forced_model(MCAST_ALG_TWOTREE);
    mcast_plan_input_t in = input(64, 0, M, &mach, &f);
    in.exact_bytes = 1;
    const mcast_plan_info_t free_info = info_of(&in); /* no topology: no links' bound */
    const double t_free = predicted_of(&in);
    in.hosts = hosts;
    in.topology = torus;
    const mcast_plan_info_t torus_info = info_of(&in);
    const double t_torus = predicted_of(&in);
    assert_true(t_torus > t_free); /* the bound binds */
    assert_int_equal(torus_info.segment_bytes, 8192);
    assert_true(free_info.segment_bytes > torus_info.segment_bytes);
    /* the family model's own block, forced on the torus: the same bound */
    f.segment_bytes = free_info.segment_bytes;
    assert_true(fabs(predicted_of(&in) - t_torus) <= 1e-9 * t_torus);
    /* a forced block is planned as given */
    f.segment_bytes = 16384;
    assert_int_equal(info_of(&in).segment_bytes, 16384);
    f.segment_bytes = 0;
    mcast_plan_t *p = select_ok(&in);
    check_and_run(p, 64, 0, M, &mach);
    mcast_plan_free(p);
    /* where flows share a link the synchronous two-tree is evaluated too; here both are
     * the links' bound and the tie goes to the faster own model (mcast_planner.h, "Ties
     * under the links' bound"): synchronous; without the torus it is faster outright */
    mach.net.shared_flows = 1;
    assert_int_equal(ranks_sync(&in, M), 64);
    assert_true(fabs(predicted_of(&in) - t_torus) <= 1e-9 * t_torus);
    /* the two modes' own models, forced: the synchronous one is the faster */
    in.hosts = NULL;
    in.topology = NULL;
    f.sync_sends = 0;
    const double own_std = predicted_of(&in);
    f.sync_sends = 1;
    const double own_sync = predicted_of(&in);
    f.sync_sends = -1;
    assert_true(own_sync < own_std);
    assert_true(own_sync < t_torus);
    in.hosts = hosts;
    in.topology = torus;
    mach.net.shared_flows = 0;
    assert_int_equal(ranks_sync(&in, M), 0); /* FIFO connections: standard sends only */
    mach.net.shared_flows = 1;
    in.hosts = NULL;
    in.topology = NULL;
    assert_int_equal(ranks_sync(&in, M), 64);
    pm_topology_free(torus);
}

/* The two-tree's edges on the directed links of topo for the ordering chain (two blocks:
 * every edge once): the busiest link's edge count, *at_max the links carrying it. */
static int twotree_busiest(const pm_topology_t *topo, const char **hosts, int n, int root,
                           const int *chain, int *at_max)
{
    const int nl = pm_topology_ndirected_links(topo);
    int *load = calloc((size_t) nl, sizeof(int));
    assert_non_null(load);
    int route[64];
    for (int r = 0; r < n; ++r) {
        mcast_sched_t *s = NULL;
        assert_int_equal(mcast_sched_twotree(n, root, r, chain, 2, 0, &s), KB_OK);
        for (size_t i = 0; i < mcast_sched_count(s, MCAST_OP_SEND); ++i) {
            mcast_op_t op;
            assert_int_equal(mcast_sched_op(s, MCAST_OP_SEND, i, &op), KB_OK);
            int len = 0;
            assert_int_equal(pm_route(topo, PM_ROUTE_DEFAULT, hosts[r], hosts[op.peer], route, 64, &len),
                             PM_OK);
            for (int j = 0; j < len; ++j) {
                ++load[route[j]];
            }
        }
        mcast_sched_free(s);
    }
    int mx = 0;
    *at_max = 0;
    for (int l = 0; l < nl; ++l) {
        if (load[l] > mx) {
            mx = load[l];
            *at_max = 0;
        }
        *at_max += load[l] == mx;
    }
    free(load);
    return mx;
}

/* A plan input on topo with its hosts, exact bytes, chain = the topology's ordering from root. */
static mcast_plan_input_t topo_input(int n, int root, size_t M, const mcast_machine_t *mach,
                                     const mcast_forced_t *f, const pm_topology_t *topo,
                                     const char **hosts, int *chain)
{
    char err[256] = "";
    assert_int_equal(pm_order_hosts(topo, PM_ORDER_AUTO, n, hosts, root, chain, err, sizeof(err)), PM_OK);
    mcast_plan_input_t in = input(n, root, M, mach, f);
    in.exact_bytes = 1;
    in.chain = chain;
    in.topology = topo;
    in.hosts = hosts;
    return in;
}

/* Transit through a node's interface (mcast_machine_t.host_transit): perf/sim's
 * torus-16x16 machine (SimGrid's torus charges a node's limiter on every hop that leaves
 * it and at the destination).  At 256 KiB the two-tree's edges cross the torus through
 * other nodes' interfaces, edst's trees use links between neighbours only: charged for
 * transit the planner takes edst, which SimGrid runs faster than the two-tree (evidence
 * E-EDST-2).  The two-tree forced is predicted later
 * with transit, edst the same either way (since edst's lag, fam_multitree.cpp "Lag",
 * auto takes edst here without transit too: 256 KiB is 32 blocks). */
static void test_host_transit(void **state)
{
    (void) state;
    enum { X = 16, N = X * X };
    static const char *hosts[N];
    static char names[N][8];
    pm_topology_t *torus = grid_torus(X, X, names, hosts);
    pm_torus_shape_t shape = {2, {X, X}, 1, 1};
    static int coords[2 * N], chain[N];
    for (int r = 0; r < N; ++r) {
        coords[2 * r] = r % X;
        coords[2 * r + 1] = r / X;
    }
    mcast_machine_t mach;
    char err[256] = "";
    assert_int_equal(mcast_machine_parse("version 1\nnet.o_send_us 0.5\nnet.o_recv_us 0.5\n"
                                         "net.latency_us 0.8\nnet.gap_ns_per_byte 0.08\n"
                                         "net.wire_ns_per_byte 0.08\nnet.recv_ns_per_byte 0\n"
                                         "net.eager_bytes 65535\nnet.sync_wait_us 0\n"
                                         "net.shared_flows 1\nnet.segment_min_bytes 4096\n"
                                         "net.hop_latency_us 0.1\nnet.latency_links 10\n"
                                         "net.host_links 2\n",
                                         "torus-16x16", &mach, err, sizeof(err)),
                     KB_OK);
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.compare_previous = 0;
    const size_t M = 256u << 10;
    /* coll/pathmc decides first (with the torus), coll/kbinomial when it defers */
    mcast_plan_input_t pm = topo_input(N, 0, M, &mach, &f, torus, hosts, chain);
    pm.component = MCAST_COMP_PATHMC;
    pm.torus = &shape;
    pm.torus_coords = coords;
    mcast_plan_input_t kb = pm;
    kb.component = MCAST_COMP_KBINOMIAL;
    kb.torus = NULL;
    kb.torus_coords = NULL;
    double twotree[2], edst[2];
    for (int transit = 0; transit < 2; ++transit) {
        mach.host_transit = transit;
        f.algorithm = MCAST_ALG_AUTO;
        const mcast_plan_info_t info = info_of(&pm);
        if (transit) {
            assert_int_equal(info.defer, 0);
            assert_int_equal(info.algorithm, MCAST_ALG_EDST);
        }
        f.algorithm = MCAST_ALG_TWOTREE;
        twotree[transit] = predicted_of(&kb);
        f.algorithm = MCAST_ALG_EDST;
        edst[transit] = predicted_of(&pm);
    }
    assert_true(twotree[1] > twotree[0] * 1.05);
    assert_true(fabs(edst[1] - edst[0]) <= 1e-9 * edst[0]);
    pm_topology_free(torus);
}

/* Two-tree placement (mcast_planner.h): on the irregular network of perf/sim's
 * irregular-64 (16 switches, 64 hosts, up*-down* routes) the planner's two-tree plan
 * carries its own chain, a permutation with the root first, whose busiest directed link
 * carries fewer of the trees' edges than the switch tour's (root 0: 2 edges, M bytes, the
 * floor, against 3; root 37: 3 against 4, where 400000 swaps find no better); its
 * prediction carries what the busiest link carries beyond M (none at the floor); the
 * same input gives the same chain, and the plan's schedules pass the checker and run.
 * A torus keeps the ordering. */
static void test_twotree_placement(void **state)
{
    (void) state;
    char *text = NULL;
    assert_int_equal(pm_generate_irregular(16, 8, 64, 100, 0, &text), PM_OK);
    pm_topology_t *topo = NULL;
    char err[256] = "";
    if (PM_OK != pm_topology_parse_string(text, PM_FMT_AUTO, "gen", &topo, err, sizeof(err))) {
        fail_msg("generated network: %s", err);
    }
    pm_free(text);
    const int n = 64;
    const char *hosts[64];
    for (int r = 0; r < n; ++r) {
        hosts[r] = pm_topology_host_name(topo, r);
    }
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.compare_previous = 0;
    f.algorithm = MCAST_ALG_TWOTREE;
    const size_t M = 4u << 20;
    const int roots[2] = {0, 37};
    for (int ri = 0; ri < 2; ++ri) {
        const int root = roots[ri];
        int chain[64];
        mcast_plan_input_t in = topo_input(n, root, M, &mach, &f, topo, hosts, chain);
        int at_tour = 0, at_placed = 0;
        const int tour = twotree_busiest(topo, hosts, n, root, chain, &at_tour);
        mcast_plan_t *p = select_ok(&in);
        mcast_plan_info_t info;
        mcast_plan_get_info(p, &info);
        assert_int_equal(info.algorithm, MCAST_ALG_TWOTREE);
        assert_int_equal(info.chain[0], root);
        char seen[64] = {0};
        for (int i = 0; i < n; ++i) {
            assert_true(info.chain[i] >= 0 && info.chain[i] < n && !seen[info.chain[i]]);
            seen[info.chain[i]] = 1;
        }
        const int placed = twotree_busiest(topo, hosts, n, root, info.chain, &at_placed);
        printf("# two-tree placement, root %d: busiest link %d edges (%d links) on the tour, "
               "%d (%d) placed\n", root, tour, at_tour, placed, at_placed);
        assert_true(placed < tour);
        if (root == 0) {
            assert_int_equal(tour, 3);
            assert_int_equal(placed, 2); /* M bytes: the floor */
        }
        mcast_plan_t *q = select_ok(&in);
        mcast_plan_info_t qi;
        mcast_plan_get_info(q, &qi);
        assert_memory_equal(qi.chain, info.chain, sizeof(int) * (size_t) n);
        mcast_plan_free(q);
        /* the links beyond M bytes stretch the trees' stream: the prediction without the
         * topology (the same chain, no links) differs by what the busiest link carries
         * beyond M, 0 at the floor, M / 2 x wire with three edges (the default machine
         * has no per-hop latency) */
        const double wire_us = (double) M * mach.net.wire_ns_per_byte * 1e-3;
        mcast_plan_input_t free_in = input(n, root, M, &mach, &f);
        free_in.exact_bytes = 1;
        free_in.chain = info.chain;
        const double t_free = predicted_of(&free_in);
        printf("# root %d: predicted %.1f us on the topology, %.1f without (M wire %.1f)\n", root,
               info.predicted_us, t_free, wire_us);
        assert_true(fabs(info.predicted_us - t_free - (placed - 2) * 0.5 * wire_us) < 0.05 * wire_us);
        check_and_run(p, n, root, M, &mach);
        mcast_plan_free(p);
    }
    pm_topology_free(topo);
    /* a torus: the ordering stays */
    char names[64][8];
    pm_topology_t *torus = grid_torus(8, 8, names, hosts);
    int chain[64];
    mcast_plan_input_t in = topo_input(n, 0, M, &mach, &f, torus, hosts, chain);
    mcast_plan_t *p = select_ok(&in);
    mcast_plan_info_t info;
    mcast_plan_get_info(p, &info);
    assert_memory_equal(info.chain, chain, sizeof(chain));
    mcast_plan_free(p);
    pm_topology_free(torus);
}

/* edst (pathmc.h, pm_torus_edst): forced on a 2D torus of one rank per router it plans
 * its four trees, every rank's schedule passes the checker and runs on the simulated
 * network (roots 0, 7, 14; 1 KiB to 4 MiB) and the prediction is the trees' model; where the
 * torus does not qualify (a router with two ranks, no torus, three dimensions) a forced
 * edst fails with the reason and auto goes on without it. */
static void test_edst_plans(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.compare_previous = 0;
    f.algorithm = MCAST_ALG_EDST;
    const char *hosts[20];
    char names[20][8];
    pm_topology_t *topo = grid_torus(5, 4, names, hosts);
    pm_torus_shape_t shape = {2, {5, 4}, 1, 1};
    int coords[40];
    for (int r = 0; r < 20; ++r) {
        coords[2 * r] = r % 5;
        coords[2 * r + 1] = r / 5;
    }
    mcast_plan_input_t in = input(20, 0, 1 << 20, &mach, &f);
    in.component = MCAST_COMP_PATHMC;
    in.exact_bytes = 1;
    in.torus = &shape;
    in.torus_coords = coords;
    in.topology = topo;
    in.hosts = hosts;
    const size_t sizes[] = {1024, 100000, 1 << 20, 4 << 20};
    for (size_t mi = 0; mi < sizeof(sizes) / sizeof(sizes[0]); ++mi) {
        for (int root = 0; root < 20; root += 7) {
            in.root = root;
            in.bytes = sizes[mi];
            mcast_plan_t *p = select_ok(&in);
            mcast_plan_info_t info;
            assert_int_equal(mcast_plan_get_info(p, &info), KB_OK);
            assert_int_equal(info.algorithm, MCAST_ALG_EDST);
            assert_int_equal(info.ntrees, 4);
            assert_null(info.tree);
            size_t B;
            uint32_t m;
            assert_int_equal(mcast_plan_blocks(p, sizes[mi], &B, &m), KB_OK);
            mcast_loggp_t g = mach.net;
            g.o_send_us += g.o_recv_us;
            g.o_recv_us = 0;
            const double model = mcast_multitree_predict_us(info.trees, 4, sizes[mi], m, &g,
                                                            info.window, info.max_sends);
            assert_true(model > 0.0 && info.predicted_us >= model * (1 - 1e-9));
            check_and_run(p, 20, root, sizes[mi], &mach);
            mcast_plan_free(p);
        }
    }
    /* a flow-level network (shared flows): the blocks stay eager unless forced; the
     * model runs on the machine's own edge model (o_recv not folded into the sends) */
    mach.net.shared_flows = 1;
    mach.net.eager_bytes = 12000;
    in.root = 0;
    in.bytes = 4 << 20;
    {
        mcast_plan_t *q = select_ok(&in);
        size_t B;
        uint32_t m;
        assert_int_equal(mcast_plan_blocks(q, in.bytes, &B, &m), KB_OK);
        assert_true(B <= 12000 && m > 1);
        mcast_plan_info_t info;
        assert_int_equal(mcast_plan_get_info(q, &info), KB_OK);
        mcast_engine_params_t ep;
        assert_int_equal(mcast_plan_engine_params(q, 1, in.bytes, &ep), KB_OK);
        /* standard sends: the machine's edge model (eager_bytes 12000); synchronous ones,
         * taken where their model is faster: no eager limit, and a send waits for the
         * receiver's match (sync_wait_us < 0: o_recv), which is the receiver's overhead
         * (plan_candidates.cpp edst_sync_net) */
        mcast_loggp_t gm = mach.net;
        if (ep.sync_sends) {
            gm.eager_bytes = 0;
            gm.o_send_us += mach.net.o_recv_us;
            gm.o_recv_us = 0.0;
        }
        const double model = mcast_multitree_predict_us(info.trees, 4, in.bytes, m, &gm,
                                                        info.window, info.max_sends);
        assert_true(model > 0.0 && info.predicted_us >= model * (1 - 1e-9));
        mcast_plan_free(q);
        /* synchronous sends forced (fam_multitree.cpp, "synchronous sends"): the engine
         * sends synchronously, at least 2 in flight, and the model is the edge model with
         * no eager limit, the receiver's match (o_recv, sync_wait_us < 0) after a send */
        f.sync_sends = 1;
        q = select_ok(&in);
        assert_int_equal(mcast_plan_blocks(q, in.bytes, &B, &m), KB_OK);
        assert_int_equal(mcast_plan_get_info(q, &info), KB_OK);
        assert_int_equal(info.algorithm, MCAST_ALG_EDST);
        assert_int_equal(mcast_plan_engine_params(q, 1, in.bytes, &ep), KB_OK);
        assert_int_equal(ep.sync_sends, 1);
        assert_true(ep.max_sends >= 2);
        {
            mcast_loggp_t gs = mach.net;
            gs.eager_bytes = 0;
            gs.o_send_us += mach.net.o_recv_us;
            gs.o_recv_us = 0.0;
            const double ms = mcast_multitree_predict_us(info.trees, 4, in.bytes, m, &gs,
                                                         info.window, info.max_sends);
            assert_true(ms > 0.0 && info.predicted_us >= ms * (1 - 1e-9));
        }
        check_and_run(q, 20, 0, in.bytes, &mach);
        mcast_plan_free(q);
        /* one synchronous block: its hops cost o_send + L + B w + W and no receive
         * overhead (mcast_planner.h, "Synchronous sends"; edst_sync_net, E-EDST-4): the
         * plan's model is the folded one, not the one that also charges o_recv a link */
        in.bytes = 1024;
        q = select_ok(&in);
        assert_int_equal(mcast_plan_blocks(q, in.bytes, &B, &m), KB_OK);
        assert_int_equal(m, 1);
        assert_int_equal(mcast_plan_get_info(q, &info), KB_OK);
        {
            mcast_loggp_t gs = mach.net, gr = mach.net;
            gs.eager_bytes = gr.eager_bytes = 0;
            gs.o_send_us += mach.net.o_recv_us;
            gr.o_send_us += mach.net.o_recv_us;
            gs.o_recv_us = 0.0;
            const double folded = mcast_multitree_predict_us(info.trees, 4, in.bytes, 1, &gs,
                                                             info.window, info.max_sends);
            const double charged = mcast_multitree_predict_us(info.trees, 4, in.bytes, 1, &gr,
                                                              info.window, info.max_sends);
            assert_true(fabs(info.predicted_us - folded) <= 1e-9 * folded);
            assert_true(charged >= folded + mach.net.o_recv_us);
        }
        mcast_plan_free(q);
        in.bytes = 4 << 20;
        f.sync_sends = -1;
        f.segment_bytes = 65536; /* forced: taken as it is */
        q = select_ok(&in);
        assert_int_equal(mcast_plan_blocks(q, in.bytes, &B, &m), KB_OK);
        assert_int_equal(B, 65536);
        mcast_plan_free(q);
        f.segment_bytes = 0;
    }
    mach.net.shared_flows = 0;
    mcast_machine_default(&mach);
    /* under auto the pathmc component weighs it with the others */
    f.algorithm = MCAST_ALG_AUTO;
    mcast_plan_free(select_ok(&in));
    /* does not qualify */
    f.algorithm = MCAST_ALG_EDST;
    mcast_plan_t *p = NULL;
    char err[256] = "";
    coords[2] = 0; /* rank 1 on rank 0's router */
    assert_int_equal(mcast_plan_select(&in, &p, err, sizeof(err)), KB_ERR_ARG);
    assert_null(p);
    assert_non_null(strstr(err, "edst"));
    f.algorithm = MCAST_ALG_AUTO;
    mcast_plan_free(select_ok(&in));
    coords[2] = 1;
    f.algorithm = MCAST_ALG_EDST;
    in.torus = NULL;
    assert_int_equal(mcast_plan_select(&in, &p, err, sizeof(err)), KB_ERR_ARG);
    pm_torus_shape_t three = {3, {5, 2, 2}, 1, 1};
    int c3[60];
    for (int r = 0; r < 20; ++r) {
        c3[3 * r] = r % 5;
        c3[3 * r + 1] = (r / 5) % 2;
        c3[3 * r + 2] = r / 10;
    }
    in.torus = &three;
    in.torus_coords = c3;
    assert_int_equal(mcast_plan_select(&in, &p, err, sizeof(err)), KB_ERR_ARG);
    /* the kbinomial component does not run it */
    in.torus = &shape;
    in.torus_coords = coords;
    in.component = MCAST_COMP_KBINOMIAL;
    assert_int_equal(mcast_plan_select(&in, &p, err, sizeof(err)), KB_ERR_ARG);
    pm_topology_free(topo);
}

/* The circulant pipeline on a 4x4 torus, chain in dimension order (x fastest): its skips
 * 1, 2 load the x rings with 1 and 2 blocks per link in their rounds, skips 4, 8 the y
 * rings.  Over the whole broadcast no link carries more than about 0.75 M, but the rounds
 * that load x and those that load y do not overlap: the prediction charges the sum of
 * every round's busiest link, about 1.5 M on the wire, where the same ranks on one
 * switch are charged about M (and exactly what they are charged without a topology). */
static void test_round_link_sharing(void **state)
{
    (void) state;
    const char *hosts[16];
    char names[16][8];
    pm_topology_t *torus = grid_torus(4, 4, names, hosts), *star = NULL;
    char err[256] = "";
    char net[2048];
    size_t o = (size_t) snprintf(net, sizeof(net), "switch s 32\n");
    for (int r = 0; r < 16; ++r) {
        o += (size_t) snprintf(net + o, sizeof(net) - o, "host t%d\nlink t%d s\n", r, r);
    }
    assert_int_equal(pm_topology_parse_string(net, PM_FMT_NATIVE, "star", &star, err, sizeof(err)), PM_OK);
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    const size_t M = 8u << 20;
    const double wire_us = (double) M * mach.net.wire_ns_per_byte * 1e-3;
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.compare_previous = 0;
    f.algorithm = MCAST_ALG_CIRCULANT;
    mcast_plan_input_t in = input(16, 0, M, &mach, &f);
    in.exact_bytes = 1;
    in.hosts = hosts;
    in.topology = star;
    const double t_star = predicted_of(&in);
    /* one switch: no link term at all (the models charge what a host link carries) */
    in.topology = NULL;
    in.hosts = NULL;
    assert_true(predicted_of(&in) == t_star);
    in.hosts = hosts;
    in.topology = torus;
    const double t_torus = predicted_of(&in);
    mcast_plan_t *p = select_ok(&in);
    check_and_run(p, 16, 0, M, &mach);
    mcast_plan_free(p);
    assert_true(t_star < 1.3 * wire_us);
    assert_true(t_torus > 1.4 * wire_us);
    assert_true(t_torus < 1.8 * wire_us);
    /* the circulant's rounds also cost one message's overheads and latency each: with two
     * sends in flight the family model alone charges about half a hop per round */
    const size_t M2 = 64 << 10;
    f.max_sends = 2;
    f.segment_bytes = 1024;
    in.bytes = M2;
    mcast_level_t l;
    memset(&l, 0, sizeof(l));
    l.family = MCAST_FAM_CIRCULANT;
    const double alpha = mach.net.o_send_us + mach.net.latency_us + mach.net.o_recv_us;
    const double rounds_alpha = (double) mcast_level_rounds(&l, 16, 64) * alpha;
    assert_true(predicted_of(&in) >= rounds_alpha - 1e-9);
    /* and on any network (no topology) each round is at least a hop of one block, where
     * the family model alone charges about half of that */
    const double serial = (double) mcast_level_rounds(&l, 16, 64) *
                          (alpha + 1024.0 * mach.net.wire_ns_per_byte * 1e-3);
    in.topology = NULL;
    in.hosts = NULL;
    assert_true(predicted_of(&in) >= serial - 1e-9);
    const mcast_loggp_t g = family_edge_sync(&mach.net);
    assert_true(mcast_level_predict_us(&l, 16, M2, 64, &g, 4, 2) < 0.8 * serial);
    /* scatter + recursive doubling: its rounds follow one another too (each level sends
     * what the last brought), so on the torus they cost at least one alpha each */
    f.algorithm = MCAST_ALG_SCATTER_ALLGATHER;
    f.allgather = 1 + MCAST_SAG_RD;
    f.max_sends = -1;
    f.segment_bytes = 1024; /* 16 blocks, one a rank */
    in.bytes = 16 << 10;
    in.hosts = hosts;
    in.topology = torus;
    mcast_level_t rd;
    memset(&rd, 0, sizeof(rd));
    rd.family = MCAST_FAM_SCATTER_ALLGATHER;
    rd.variant = MCAST_SAG_RD;
    const double rd_rounds = (double) mcast_level_rounds(&rd, 16, 16) * alpha;
    const double t_rd = predicted_of(&in);
    assert_true(t_rd >= rd_rounds - 1e-9);
    in.hosts = NULL;
    in.topology = NULL;
    assert_true(predicted_of(&in) < t_rd);
    pm_topology_free(torus);
    pm_topology_free(star);
}

/* Route latency (mcast_planner.h): two switches, a0 a1 on s0, b0 b1 on s1; routes of 2
 * links inside a switch, 3 across.  Machine: overheads 0.5 us, latency 1.0 us for a route
 * of 2 links, 0.25 us per link more, no per-byte costs.  An 8-byte chain is the sum of its
 * hops, o_send + L(u, c) + o_recv each; the circulant family on 1 block is what its model
 * gives for the mean over its rounds of their sends' latency. */
static void test_route_latency(void **state)
{
    (void) state;
    pm_topology_t *topo = two_switches();
    const char *hosts[4] = {"a0", "a1", "b0", "b1"};
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    const mcast_loggp_t g = {0.5, 0.5, 1.0, 0.0, 0.0, (size_t) -1, 0.0, 0};
    mach.net = g;
    mach.hop_latency_us = 0.25;
    mach.latency_links = 2;
    const int once[4] = {0, 1, 2, 3};   /* a0 a1 | b0 b1: one hop of 3 links */
    const int thrice[4] = {0, 2, 1, 3}; /* a0 b0 a1 b1: three */
    assert_true(fabs(predict_chain(once, 8, topo, hosts, &mach) - 6.25) < 1e-9);
    assert_true(fabs(predict_chain(thrice, 8, topo, hosts, &mach) - 6.75) < 1e-9);
    assert_true(fabs(predict_chain(thrice, 8, NULL, NULL, &mach) - 6.0) < 1e-9);
    mcast_machine_t flat = mach;
    flat.hop_latency_us = 0;
    assert_true(fabs(predict_chain(thrice, 8, topo, hosts, &flat) - 6.0) < 1e-9);
    /* circulant, 1 block on a0 a1 b0 b1: round 0 a0 -> a1 (1.0), round 1 a0 -> b0 and
     * a1 -> b1 (1.25 each): mean latency (1.0 + 1.25) / 2 */
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.compare_previous = 0;
    f.algorithm = MCAST_ALG_CIRCULANT;
    mcast_plan_input_t in = input(4, 0, 8, &mach, &f);
    in.exact_bytes = 1;
    in.chain = once;
    in.topology = topo;
    in.hosts = hosts;
    const double t_routes = predicted_of(&in);
    flat.net.latency_us = 1.125;
    in.machine = &flat;
    in.topology = NULL;
    in.hosts = NULL;
    assert_true(fabs(predicted_of(&in) - t_routes) < 1e-9);
    flat.net.latency_us = 1.0;
    assert_true(predicted_of(&in) < t_routes - 0.1);
    pm_topology_free(topo);
    /* a round of synchronous sends waits for its slowest transfer: a0 a1 a2 | b0, chain
     * a0 b0 a1 a2: round 0 a0 -> b0 (1.25), round 1 a0 -> a1 (1.0) and b0 -> a2 (1.25): the
     * circulant (synchronous) is charged 1.25 a round; with standard sends the routes'
     * mean, (1.25 + 1.125) / 2 */
    static const char *net3 = "switch s0 4\nswitch s1 4\nhost a0\nhost a1\nhost a2\nhost b0\n"
                              "link a0 s0\nlink a1 s0\nlink a2 s0\nlink b0 s1\nlink s0 s1\n";
    char err[256] = "";
    assert_int_equal(pm_topology_parse_string(net3, PM_FMT_AUTO, "three-one", &topo, err, sizeof(err)), PM_OK);
    const char *hosts3[4] = {"a0", "b0", "a1", "a2"};
    in.machine = &mach;
    in.chain = NULL; /* rank order: a0 b0 a1 a2 */
    in.topology = topo;
    in.hosts = hosts3;
    const double t_sync = predicted_of(&in);
    f.sync_sends = 0;
    const double t_std = predicted_of(&in);
    in.topology = NULL;
    in.hosts = NULL;
    flat = mach;
    flat.hop_latency_us = 0;
    flat.net.latency_us = 1.25;
    in.machine = &flat;
    f.sync_sends = -1;
    assert_true(fabs(predicted_of(&in) - t_sync) < 1e-9);
    flat.net.latency_us = 1.1875;
    f.sync_sends = 0;
    assert_true(fabs(predicted_of(&in) - t_std) < 1e-9);
    pm_topology_free(topo);
}

/* Sends in flight under max_sends = -1 (mcast_planner.h): a rank with children on other
 * nodes sends a message sent whole at once when it is eager or small (M * wire <= o_send,
 * also above a small eager limit), a rendezvous or a segmented message's one after the
 * other; forced values stay; copies at once overlap one's overhead with the previous
 * one's bytes (the predictions' closed forms). */
static void test_small_whole_sends(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.algorithm = MCAST_ALG_LINEAR;
    f.compare_previous = 0;
    const int n = 8;
    /* the largest small message with the defaults: o_send / wire */
    const size_t edge = (size_t) (mach.net.o_send_us * 1e3 / mach.net.wire_ns_per_byte);
    const size_t eager = mach.net.eager_bytes;
    assert_true(edge + 64 < eager);
    const struct {
        size_t M, seg;
        int forced, want; /* want: -2 = every copy at once */
    } cases[] = {
        {1, 0, -1, -2},          {1024, 0, -1, -2},     {edge, 0, -1, -2},
        {edge + 64, 0, -1, -2},  {eager, 0, -1, -2},    {eager + 1, 0, -1, 1},
        {1 << 20, 0, -1, 1},     {4096, 1024, -1, 1},   {1024, 0, 1, 1},
        {1024, 0, 2, 2},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
        f.segment_bytes = cases[i].seg;
        f.max_sends = cases[i].forced;
        mcast_plan_input_t in = input(n, 0, cases[i].M, &mach, &f);
        in.exact_bytes = 1;
        mcast_plan_t *p = select_ok(&in);
        mcast_engine_params_t ep;
        assert_int_equal(mcast_plan_engine_params(p, 0, cases[i].M, &ep), KB_OK);
        const int all = ep.window * (n - 1);
        assert_int_equal(ep.max_sends, cases[i].want == -2 ? all : cases[i].want);
        /* a leaf has no copies to send: its bound is moot but valid */
        assert_int_equal(mcast_plan_engine_params(p, n - 1, cases[i].M, &ep), KB_OK);
        assert_true(ep.max_sends >= 1);
        mcast_plan_info_t info;
        mcast_plan_get_info(p, &info);
        /* the prediction (mcast_planner.h, "Copies at once"): the root's n - 1 copies
         * leave every max(o_send, M gap) at once, every o_send + M gap one after the other;
         * the last child holds the message one edge (delta) after its copy left */
        const mcast_loggp_t *g = &mach.net;
        const double M = (double) cases[i].M;
        const double delta = g->o_send_us + g->latency_us + M * g->wire_ns_per_byte * 1e-3 +
                             g->o_recv_us + M * g->recv_ns_per_byte * 1e-3;
        const double one = g->o_send_us + M * g->gap_ns_per_byte * 1e-3;
        const double at_once = fmax(g->o_send_us, M * g->gap_ns_per_byte * 1e-3);
        if (cases[i].seg == 0 && cases[i].want == -2) {
            assert_true(fabs(info.predicted_us - ((n - 2) * at_once + delta)) < 1e-9);
        }
        if (cases[i].seg == 0 && cases[i].want == 1 && cases[i].M <= g->eager_bytes) {
            assert_true(fabs(info.predicted_us - ((n - 2) * one + delta)) < 1e-9);
        }
        if (cases[i].want == -2 && cases[i].seg == 0) {
            /* one after the other: each copy's bytes wait for its overhead */
            mcast_forced_t g1 = f;
            g1.max_sends = 1;
            mcast_plan_input_t in1 = input(n, 0, cases[i].M, &mach, &g1);
            in1.exact_bytes = 1;
            mcast_plan_t *p1 = select_ok(&in1);
            mcast_plan_info_t i1;
            mcast_plan_get_info(p1, &i1);
            assert_true(fabs(i1.predicted_us - ((n - 2) * one + delta)) < 1e-9);
            assert_true(i1.predicted_us > info.predicted_us - 1e-9);
            if (cases[i].want == -2 && M * g->gap_ns_per_byte > 1.0) {
                assert_true(i1.predicted_us > info.predicted_us + 1e-6);
            }
            mcast_plan_free(p1);
        }
        mcast_plan_free(p);
    }
}

/* Whole messages on a network whose flows share the sender's link (net.shared_flows 1,
 * mcast_planner.h "Shared flows"): the root's copies leave its CPU o_send apart and their
 * bytes share its link; when a copy's wire time is at least o_send the link is busy from
 * the first copy on, so the last child of a flat tree holds the message o_send + (n - 1)
 * copies' wire time + latency + o_recv after the start (o_send + M gap per copy, one
 * after the other, without sharing: fails on the model before). */
static void test_shared_flows_whole(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    mach.net.shared_flows = 1;
    mach.net.eager_bytes = 65535;
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.algorithm = MCAST_ALG_LINEAR;
    f.compare_previous = 0;
    const mcast_loggp_t *g = &mach.net;
    for (int n = 2; n <= 9; n += 7) {
        for (size_t M = 16384; M <= 65535; M *= 2) {
            const double w = (double) M * g->wire_ns_per_byte * 1e-3;
            assert_true(w >= g->o_send_us);
            mcast_plan_input_t in = input(n, 0, M, &mach, &f);
            in.exact_bytes = 1;
            mcast_plan_t *p = select_ok(&in);
            mcast_plan_info_t info;
            mcast_plan_get_info(p, &info);
            const double want = g->o_send_us + (n - 1) * w + g->latency_us + g->o_recv_us +
                                (double) M * g->recv_ns_per_byte * 1e-3;
            assert_true(fabs(info.predicted_us - want) < 1e-6);
            mcast_plan_free(p);
            /* FIFO connections, eager and whole: copies at once, a copy every
             * max(o_send, M gap) (test_small_whole_sends) */
            mach.net.shared_flows = 0;
            in = input(n, 0, M, &mach, &f);
            in.exact_bytes = 1;
            p = select_ok(&in);
            mcast_plan_get_info(p, &info);
            const double at_once = fmax(g->o_send_us, (double) M * g->gap_ns_per_byte * 1e-3);
            const double delta = g->o_send_us + g->latency_us + w + g->o_recv_us +
                                 (double) M * g->recv_ns_per_byte * 1e-3;
            assert_true(fabs(info.predicted_us - ((n - 2) * at_once + delta)) < 1e-6);
            mcast_plan_free(p);
            mach.net.shared_flows = 1;
        }
    }
}

/* Two flows of w us each on one bottleneck, weighted max-min (mcast_planner.h, "Shared
 * flows"): A alone from sa, B joins at sb > sa, rates in proportion to ka and kb. */
static void two_flows(double sa, double sb, double ka, double kb, double w, double *ea, double *eb)
{
    const double p = sb - sa; /* A's work before B starts */
    assert_true(p >= 0.0 && p < w);
    const double ra = ka / (ka + kb), rb = kb / (ka + kb);
    if ((w - p) / ra <= w / rb) {
        *ea = sb + (w - p) / ra;
        *eb = *ea + (w - rb * (*ea - sb));
    } else {
        *eb = sb + w / rb;
        *ea = *eb + (w - p - ra * (*eb - sb));
    }
}

/* Whole messages as flows over a topology (mcast_planner.h, "Shared flows"): a binomial
 * tree on 4 ranks, h0 sends to h2 (switch c), then to h1 (switch b), and h2 forwards to
 * h3 (switch d, behind c).  Star a - b, a - c: h0's copies meet only on h0's own link;
 * line a - b - c: also on a -> b, and h2's route is a link longer.  A copy leaves the CPU
 * o_send after the previous one, its bytes start to move after its route's latency, and
 * copies sharing a link get rates in proportion to 1 / latency; with net.host_links 2
 * h0's link carries both at full rate.  h2 forwards when its copy is in, plus o_recv. */
static void test_flows_whole_weighted(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    const mcast_loggp_t g = {0.5, 0.5, 0.4, 0.08, 0.08, 65535, 0.0, 1};
    mach.net = g;
    mach.hop_latency_us = 0.3;
    mach.latency_links = 3;
    const char *nets[2] = {"switch a 4\nswitch b 4\nswitch c 4\nswitch d 4\nhost h0\nhost h1\nhost h2\n"
                           "host h3\nlink h0 a\nlink h1 b\nlink h2 c\nlink h3 d\nlink a b\nlink a c\n"
                           "link c d\n",
                           "switch a 4\nswitch b 4\nswitch c 4\nswitch d 4\nhost h0\nhost h1\nhost h2\n"
                           "host h3\nlink h0 a\nlink h1 b\nlink h2 c\nlink h3 d\nlink a b\nlink b c\n"
                           "link c d\n"};
    const char *hosts[4] = {"h0", "h1", "h2", "h3"};
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.algorithm = MCAST_ALG_KNOMIAL;
    f.k = 2;
    f.segment_bytes = 32768;
    f.compare_previous = 0;
    const size_t M = 32768;
    const double w = (double) M * g.wire_ns_per_byte * 1e-3; /* 2.62 us */
    for (int shape = 0; shape < 2; ++shape) {
        pm_topology_t *topo = NULL;
        char err[256] = "";
        assert_int_equal(pm_topology_parse_string(nets[shape], PM_FMT_AUTO, "t", &topo, err,
                                                  sizeof(err)),
                         PM_OK);
        const double lat2 = g.latency_us + (shape == 0 ? 0.0 : 0.3), lat1 = g.latency_us;
        for (int hl = 1; hl <= 2; ++hl) {
            mach.host_links = hl;
            mcast_plan_input_t in = input(4, 0, M, &mach, &f);
            in.exact_bytes = 1;
            in.topology = topo;
            in.hosts = hosts;
            mcast_plan_t *p = select_ok(&in);
            mcast_plan_info_t x;
            mcast_plan_get_info(p, &x);
            /* the order the closed form assumes: 0 -> {2, 1}, 2 -> {3} */
            assert_int_equal(x.tree->child_off[1] - x.tree->child_off[0], 2);
            assert_int_equal(x.tree->children[x.tree->child_off[0]], 2);
            assert_int_equal(x.tree->children[x.tree->child_off[2]], 3);
            const double s2 = g.o_send_us + lat2, s1 = 2 * g.o_send_us + lat1;
            double e2 = s2 + w, e1 = s1 + w; /* alone */
            if (shape == 1 || hl == 1) {
                two_flows(s2, s1, 1.0 / lat2, 1.0 / lat1, w, &e2, &e1);
            }
            const double h3 = e2 + g.o_recv_us + g.o_send_us + g.latency_us + w + g.o_recv_us;
            const double want = fmax(e1 + g.o_recv_us, h3);
            printf("# flows %s host_links %d: %.4f us (want %.4f)\n", shape == 0 ? "star" : "line", hl,
                   x.predicted_us, want);
            assert_true(fabs(x.predicted_us - want) < 1e-6);
            mcast_plan_free(p);
        }
        pm_topology_free(topo);
    }
}

/* A D x D torus of switches, one host on each (h0 .. h(D*D-1), row-major). */
static pm_topology_t *torus_switches(int D)
{
    char *net = malloc((size_t) D * D * 96 + 64);
    assert_non_null(net);
    size_t len = 0;
    for (int i = 0; i < D * D; ++i) {
        len += (size_t) sprintf(net + len, "switch t%d 6\nhost h%d\nlink h%d t%d\n", i, i, i, i);
    }
    for (int i = 0; i < D * D; ++i) {
        const int r = i / D, c = i % D;
        len += (size_t) sprintf(net + len, "link t%d t%d\nlink t%d t%d\n", i, r * D + (c + 1) % D, i,
                                ((r + 1) % D) * D + c);
    }
    pm_topology_t *topo = NULL;
    char err[256] = "";
    if (PM_OK != pm_topology_parse_string(net, PM_FMT_AUTO, "torus", &topo, err, sizeof(err))) {
        fail_msg("topology: %s", err);
    }
    free(net);
    return topo;
}

/* The postal tree's lambda under the model (mcast_forced_t.lambda = 0): no half-integer
 * lambda from 1 to 8 is predicted faster than the one chosen, the chosen one forced
 * predicts the same, and a forced lambda is the plan's.  On a flat network the edge
 * model's lambda is the recurrence's best; with route latencies (a torus, 0.1 us a
 * link) it is not everywhere, and the search finds a half-integer lambda (fails without
 * the search). */
static void test_postal_lambda_search(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    const mcast_loggp_t g = {0.5, 0.5, 0.8, 0.08, 0.08, 65536, 0.0, 0};
    mach.net = g;
    mach.hop_latency_us = 0.1;
    mach.latency_links = 6;
    const int D = 8, n = D * D;
    pm_topology_t *topo = torus_switches(D);
    char names[64][8];
    const char *hosts[64];
    for (int i = 0; i < n; ++i) {
        sprintf(names[i], "h%d", i);
        hosts[i] = names[i];
    }
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.algorithm = MCAST_ALG_POSTAL;
    f.compare_previous = 0;
    const size_t sizes[] = {8, 1024, 4096, 65536};
    int half = 0;
    for (int with_topo = 0; with_topo < 2; ++with_topo) {
        for (size_t b = 0; b < sizeof(sizes) / sizeof(sizes[0]); ++b) {
            f.lambda = 0;
            mcast_plan_input_t in = input(n, 0, sizes[b], &mach, &f);
            in.exact_bytes = 1;
            if (with_topo) {
                in.topology = topo;
                in.hosts = hosts;
            }
            const mcast_plan_info_t best = info_of(&in);
            assert_string_equal(best.name, "postal");
            assert_true(best.lambda >= 1.0);
            for (double lam = 1.0; lam <= 8.0; lam += 0.5) {
                f.lambda = lam;
                const mcast_plan_info_t x = info_of(&in);
                assert_true(fabs(x.lambda - lam) < 1e-12);
                assert_true(x.predicted_us >= best.predicted_us - 1e-9);
            }
            f.lambda = best.lambda;
            assert_true(fabs(info_of(&in).predicted_us - best.predicted_us) < 1e-9);
            printf("# postal %s M=%zu: lambda %.3f, %.3f us\n", with_topo ? "torus" : "flat",
                   sizes[b], best.lambda, best.predicted_us);
            half += with_topo && fabs(2.0 * best.lambda - floor(2.0 * best.lambda + 0.5)) < 1e-9;
        }
    }
    assert_true(half > 0);
    pm_topology_free(topo);
}

/* Timed link sharing (mcast_planner.h): a message sent whole waits on a link between
 * switches for the bytes of another message already on it.  Two switches, ranks 0 and 2 on
 * sA, 1 and 3 on sB, a binomial tree with every copy at once: the root sends to rank 2
 * (sA) at 0 and to rank 1 (sB) at sigma = max(o_send, S gap); rank 2 forwards to rank 3
 * (sB) as its message arrives at delta, and meets the root's second copy on sA -> sB
 * (taken from sigma + o_send for d = S wire), so it arrives at delta + sigma + d instead of
 * 2 delta.  Without the topology, and on one switch, the recurrence's 2 delta. */
static void test_timed_link_sharing(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    const mcast_loggp_t g = {0.5, 0.5, 1.0, 0.08, 0.08, 1 << 20, 0.0, 0};
    mach.net = g;
    mach.hop_latency_us = 0.0;
    const char *two = "switch sA 4\nswitch sB 4\nhost a0\nhost a1\nhost b0\nhost b1\n"
                      "link a0 sA\nlink a1 sA\nlink b0 sB\nlink b1 sB\nlink sA sB\n";
    const char *one = "switch sA 4\nhost a0\nhost a1\nhost b0\nhost b1\n"
                      "link a0 sA\nlink a1 sA\nlink b0 sA\nlink b1 sA\n";
    const char *hosts[4] = {"a0", "b0", "a1", "b1"};
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.algorithm = MCAST_ALG_BINOMIAL;
    f.max_sends = 0;
    f.compare_previous = 0;
    const size_t M = 100000;
    const double d = (double) M * g.wire_ns_per_byte * 1e-3;
    const double delta = g.o_send_us + g.latency_us + d + g.o_recv_us;
    const double sigma = fmax(g.o_send_us, (double) M * g.gap_ns_per_byte * 1e-3);
    for (int topo_kind = 0; topo_kind < 3; ++topo_kind) {
        pm_topology_t *topo = NULL;
        char err[256] = "";
        if (topo_kind > 0 &&
            PM_OK != pm_topology_parse_string(topo_kind == 1 ? one : two, PM_FMT_AUTO, "t", &topo,
                                              err, sizeof(err))) {
            fail_msg("topology: %s", err);
        }
        mcast_plan_input_t in = input(4, 0, M, &mach, &f);
        in.exact_bytes = 1;
        in.topology = topo;
        in.hosts = topo != NULL ? hosts : NULL;
        const mcast_plan_info_t x = info_of(&in);
        assert_string_equal(x.name, "binomial");
        assert_int_equal(x.segment_bytes, 0);
        const double want = topo_kind == 2 ? delta + sigma + d : 2.0 * delta;
        printf("# timed links, %s: %.3f us (want %.3f)\n",
               topo_kind == 0 ? "no topology" : topo_kind == 1 ? "one switch" : "two switches",
               x.predicted_us, want);
        assert_true(fabs(x.predicted_us - want) < 1e-6);
        pm_topology_free(topo);
    }
}

/* Synchronous sends (mcast_planner.h): across nodes the circulant's ranks send
 * synchronously (but over TCP) and its model is the family model without an eager limit; the same
 * ranks on one node, and the trees and other families, send standard.  The engine runs
 * the synchronous plan to completion on the simulated network, and there it costs more
 * than standard sends (a flow-level network punishes those instead). */
static void test_sync_sends(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.algorithm = MCAST_ALG_CIRCULANT;
    f.segment_bytes = 8192;
    f.max_sends = 1;
    f.compare_previous = 0;
    const int n = 9;
    const size_t M = 65536;
    mcast_plan_input_t in = input(n, 0, M, &mach, &f);
    in.exact_bytes = 1;
    assert_int_equal(ranks_sync(&in, M), n);
    mcast_plan_t *p = select_ok(&in);
    mcast_engine_params_t ep;
    assert_int_equal(mcast_plan_engine_params(p, 0, M, &ep), KB_OK);
    mcast_plan_info_t info;
    mcast_plan_get_info(p, &info);
    mcast_level_t l;
    memset(&l, 0, sizeof(l));
    l.family = MCAST_FAM_CIRCULANT;
    mcast_loggp_t g = family_edge_sync(&mach.net);
    assert_true(fabs(info.predicted_us - mcast_level_predict_us(&l, n, M, 8, &g, ep.window, 1)) < 1e-9);
    {
        /* a synchronous send that waits for nothing after its bytes arrived (SMPI's): the
         * rounds one after the other, o_send + L + B w each */
        mcast_machine_t smpi = mach;
        smpi.sync_wait_us = 0.0;
        mcast_plan_input_t in0 = in;
        in0.machine = &smpi;
        const double rounds = (double) mcast_level_rounds(&l, n, 8);
        const double want = rounds * (mach.net.o_send_us + mach.net.latency_us +
                                      8192.0 * mach.net.wire_ns_per_byte * 1e-3);
        const double t0 = info_of(&in0).predicted_us;
        assert_true(t0 >= want - 1e-9);
        assert_true(t0 < info.predicted_us - 0.5 * rounds * mach.net.o_recv_us);
    }
    g.eager_bytes = mach.net.eager_bytes;
    assert_true(mcast_level_predict_us(&l, n, M, 8, &g, ep.window, 1) < info.predicted_us - 1.0);
    const double sync_us = plan_sim(p, n, M, &mach); /* checks every block's delivery */
    mcast_plan_free(p);
    /* one node: standard sends */
    in.all_local = 1;
    assert_int_equal(ranks_sync(&in, M), 0);
    /* trees and the other families: standard sends */
    in.all_local = 0;
    static const int others[] = {MCAST_ALG_LINEAR, MCAST_ALG_KBINOMIAL, MCAST_ALG_TWOTREE,
                                 MCAST_ALG_SCATTER_ALLGATHER};
    for (size_t a = 0; a < sizeof(others) / sizeof(others[0]); ++a) {
        f.algorithm = others[a];
        assert_int_equal(ranks_sync(&in, M), 0);
    }
    /* the parameter: none (and the model keeps the eager limit), or every family */
    const double standard_us = mcast_level_predict_us(&l, n, M, 8, &g, ep.window, 1);
    f.sync_sends = 0;
    f.algorithm = MCAST_ALG_CIRCULANT;
    assert_int_equal(ranks_sync(&in, M), 0);
    assert_true(fabs(info_of(&in).predicted_us - standard_us) < 1e-9);
    f.sync_sends = 1;
    f.algorithm = MCAST_ALG_TWOTREE;
    assert_int_equal(ranks_sync(&in, M), n);
    /* nodes over TCP: the circulant sends standard by default, with the standard model
     * (the parameter's 1 still sends synchronously) */
    f.algorithm = MCAST_ALG_CIRCULANT;
    in.nodes_over_tcp = 1;
    assert_int_equal(ranks_sync(&in, M), n);
    f.sync_sends = -1;
    assert_int_equal(ranks_sync(&in, M), 0);
    assert_true(fabs(info_of(&in).predicted_us - standard_us) < 1e-9);
    in.nodes_over_tcp = 0;
    assert_int_equal(ranks_sync(&in, M), n);
    /* the circulant with standard sends on the simulated network (FIFO ports: no sharing
     * to punish them) is faster than with synchronous ones */
    f.algorithm = MCAST_ALG_CIRCULANT;
    in.machine = &mach;
    p = select_ok(&in);
    assert_true(simnet_own_params(p, n, M, &mach, 0) < sync_us - 1.0);
    mcast_plan_free(p);
}

/* Eager blocks over TCP (header): under auto on a model of the network, where the nodes
 * talk over TCP, the blocks auto cuts stay 1 KiB below net.eager_bytes; a
 * message sent whole stays whole; without TCP, or with a forced segment, the blocks are
 * the model's or the user's as before. */
static void test_tcp_eager_blocks(void **state)
{
    (void) state;
    /* what self-calibration measured on 1 Gbit/s hosts (E-CAL-3) */
    const mcast_machine_t mach = tcp_machine(6.5, 25.0, 8.5);
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.compare_previous = 0;
    const size_t limit = mach.net.eager_bytes - 1024; /* (PLAN_TCP_BLOCK_MARGIN: E-TCP-7) */
    int capped = 0, forced_capped = 0;
    for (int n = 4; n <= 8; n += 4) {
        for (size_t M = (size_t) 1 << 20; M <= (size_t) 4 << 20; M *= 2) {
            mcast_plan_input_t in = input(n, 0, M, &mach, &f);
            in.exact_bytes = 1;
            /* the same model without the cap: not TCP, standard sends as over TCP */
            mcast_forced_t fs = f;
            fs.sync_sends = 0;
            in.forced = &fs;
            in.nodes_over_tcp = 0;
            const mcast_plan_info_t free_info = info_of(&in);
            in.forced = &f;
            in.nodes_over_tcp = 1;
            const mcast_plan_info_t tcp = info_of(&in);
            assert_true(tcp.segment_bytes == 0 || tcp.segment_bytes >= M ||
                        tcp.segment_bytes <= limit);
            if (free_info.segment_bytes > limit && free_info.segment_bytes < M) {
                ++capped; /* the cap changed this plan */
                assert_true(tcp.predicted_us >= free_info.predicted_us - 1e-6);
            }
            /* a forced algorithm's blocks, the planner's to cut, stay eager too */
            mcast_forced_t fc = f;
            fc.algorithm = MCAST_ALG_CIRCULANT;
            in.forced = &fc;
            const mcast_plan_info_t forced_tcp = info_of(&in);
            assert_true(forced_tcp.segment_bytes == 0 || forced_tcp.segment_bytes >= M ||
                        forced_tcp.segment_bytes <= limit);
            mcast_forced_t fcs = fc;
            fcs.sync_sends = 0;
            in.forced = &fcs;
            in.nodes_over_tcp = 0;
            const size_t forced_free = info_of(&in).segment_bytes;
            forced_capped += forced_free > limit && forced_free < M;
            in.nodes_over_tcp = 1;
            /* a forced segment is the user's */
            mcast_forced_t fr = f;
            in.forced = &fr;
            fr.segment_bytes = 2 * mach.net.eager_bytes;
            fr.algorithm = MCAST_ALG_CIRCULANT;
            assert_int_equal(info_of(&in).segment_bytes, fr.segment_bytes);
        }
    }
    assert_true(capped > 0); /* at 1 Gbit/s the model alone cuts larger blocks */
    assert_true(forced_capped > 0); /* and the forced circulant's */
    /* A fast link (what self-calibration fitted on unshaped emulated hosts under Open MPI
     * 5.0, E-TCP-7: o 2.48 us, 0.222 ns/B, the default eager size): the model wants the
     * largest blocks it may cut, so the cap binds, 1 KiB below the eager size (blocks of
     * 65472 went rendezvous under 5.0; blocks of 65408, eager, ran 4 - 12x slower at 2 -
     * 4 MiB under both). */
    const mcast_machine_t fast = tcp_machine(2.48, 2.35, 0.222);
    int bound = 0;
    for (size_t M = (size_t) 256 << 10; M <= (size_t) 4 << 20; M *= 4) {
        mcast_plan_input_t in = input(4, 0, M, &fast, &f);
        in.exact_bytes = 1;
        in.nodes_over_tcp = 1;
        const mcast_plan_info_t i = info_of(&in);
        assert_true(i.segment_bytes <= fast.net.eager_bytes - 1024);
        bound += i.segment_bytes > fast.net.eager_bytes - 2048;
    }
    assert_true(bound > 0);
    /* an eager size under the margin (a machine file's): the circulant's blocks (the
     * planner's to cut; scatter + allgather's shares are not) of the search's smallest
     * size, 8 KiB across nodes, not uncut */
    mcast_machine_t tiny = fast;
    tiny.net.eager_bytes = 1000;
    mcast_forced_t fcirc = f;
    fcirc.algorithm = MCAST_ALG_CIRCULANT;
    mcast_plan_input_t ti = input(4, 0, (size_t) 4 << 20, &tiny, &fcirc);
    ti.exact_bytes = 1;
    ti.nodes_over_tcp = 1;
    const mcast_plan_info_t tinfo = info_of(&ti);
    assert_true(tinfo.segment_bytes > 0 && tinfo.segment_bytes <= 8192);
}

/* The two-tree on a network whose flows share a link (net.shared_flows 1) sends
 * synchronously with enough sends in flight to cover a send's slot (header, "Synchronous
 * sends"); its model then paces a rank's sends by max(o_send, B gap), not their sum. */
static void test_twotree_sync_sends(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    mach.net.shared_flows = 1;
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.algorithm = MCAST_ALG_TWOTREE;
    f.segment_bytes = 8192;
    f.compare_previous = 0;
    const int n = 9;
    const size_t M = 1 << 20;
    const uint32_t nb = (uint32_t) (M / 8192);
    mcast_plan_input_t in = input(n, 0, M, &mach, &f);
    in.exact_bytes = 1;
    assert_int_equal(ranks_sync(&in, M), n);
    mcast_plan_t *p = select_ok(&in);
    mcast_plan_info_t info;
    mcast_plan_get_info(p, &info);
    /* in flight: ceil(slot / pace) + 2, the slot a send's until delivery (the receiver's
     * overhead replaced by what the synchronous send waits for, here o_recv) */
    const double b = 8192.0 * 1e-3;
    const double slot = mach.net.o_send_us + mach.net.latency_us +
                        b * fmax(mach.net.gap_ns_per_byte, mach.net.wire_ns_per_byte) +
                        mach.net.o_recv_us;
    const double pace = fmax(mach.net.o_send_us, b * mach.net.gap_ns_per_byte);
    const int k = (int) ceil(slot / pace) + 2;
    assert_true(k >= 3 && k <= 16);
    assert_int_equal(info.max_sends, k);
    mcast_engine_params_t ep;
    assert_int_equal(mcast_plan_engine_params(p, 1, M, &ep), KB_OK);
    assert_int_equal(ep.max_sends, k);
    assert_int_equal(ep.sync_sends, 1);
    mcast_level_t l;
    memset(&l, 0, sizeof(l));
    l.family = MCAST_FAM_TWOTREE;
    mcast_loggp_t g = mach.net;
    g.eager_bytes = 0;
    const double tk = mcast_level_predict_us(&l, n, M, nb, &g, ep.window, k);
    assert_true(fabs(info.predicted_us - tk) < 1e-9);
    /* the same time as with the most in flight; one in flight pays the whole slot */
    assert_true(fabs(mcast_level_predict_us(&l, n, M, nb, &g, ep.window, 16) - tk) < 1e-9);
    const double t1 = mcast_level_predict_us(&l, n, M, nb, &g, ep.window, 1);
    assert_true(t1 > tk + (double) (nb / 2 - 2) * (slot - pace));
    /* the steady state: a tree's blocks two sends apart, each at the pace */
    const double t2m = mcast_level_predict_us(&l, n, 2 * M, 2 * nb, &g, ep.window, k);
    assert_true(fabs((t2m - tk) - (double) nb * pace) < 2.0 * slot);
    /* run on the simulated network with the plan's own parameters: every block delivered */
    assert_true(simnet_own_params(p, n, M, &mach, -1) > tk - 1.0);
    mcast_plan_free(p);
    /* forced sends in flight are kept */
    f.max_sends = 3;
    assert_int_equal(info_of(&in).max_sends, 3);
    f.max_sends = -1;
    /* FIFO connections (shared_flows 0): standard sends; one node: standard sends */
    mach.net.shared_flows = 0;
    assert_int_equal(ranks_sync(&in, M), 0);
    mach.net.shared_flows = 1;
    in.all_local = 1;
    assert_int_equal(ranks_sync(&in, M), 0);
    in.all_local = 0;
    /* the parameter: none */
    f.sync_sends = 0;
    assert_int_equal(ranks_sync(&in, M), 0);
}

static void test_selection_order(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    mcast_forced_t f;
    mcast_forced_default(&f);
    mcast_plan_input_t in = input(8, 3, 100000, &mach, &f);
    mcast_plan_t *p = NULL;
    mcast_plan_info_t info;
    char desc[512];
    /* model */
    p = select_ok(&in);
    assert_int_equal(mcast_plan_get_info(p, &info), KB_OK);
    assert_string_equal(info.selected_by, "model");
    assert_int_equal(info.root, 3);
    assert_int_equal(info.chain[0], 3);
    assert_true(info.predicted_us > 0);
    assert_int_equal(mcast_plan_describe(p, desc, sizeof(desc)), KB_OK);
    assert_non_null(strstr(desc, "selected_by=model"));
    mcast_plan_free(p);
    /* rules */
    kb_rules_t *rules = NULL;
    char err[256];
    assert_int_equal(kb_rules_parse("* 0-1k linear\n* 1k- chain segment_bytes=4k\n", "t", &rules, err,
                                    sizeof(err)), KB_OK);
    in.rules = rules;
    p = select_ok(&in);
    assert_int_equal(mcast_plan_get_info(p, &info), KB_OK);
    assert_string_equal(info.name, "chain");
    assert_string_equal(info.selected_by, "rules:2");
    assert_int_equal(info.segment_bytes, 4096);
    assert_int_equal(info.defer, 0);
    mcast_plan_free(p);
    /* "previous" hands the class to the module below: the model's plan, deferred */
    kb_rules_t *prev = NULL;
    assert_int_equal(kb_rules_parse("* 0-1k linear\n* 1k- previous\n* * chain\n", "t", &prev, err,
                                    sizeof(err)), KB_OK);
    in.rules = prev;
    p = select_ok(&in);
    assert_int_equal(mcast_plan_get_info(p, &info), KB_OK);
    assert_int_equal(info.defer, 1);
    assert_string_equal(info.selected_by, "previous:rules:2");
    mcast_plan_free(p);
    in.bytes = 100; /* the first line still applies below 1 KiB */
    p = select_ok(&in);
    assert_int_equal(mcast_plan_get_info(p, &info), KB_OK);
    assert_int_equal(info.defer, 0);
    assert_string_equal(info.name, "linear");
    mcast_plan_free(p);
    in.bytes = 100000;
    kb_rules_free(prev);
    in.rules = rules;
    /* forced beats rules */
    f.algorithm = MCAST_ALG_POSTAL;
    p = select_ok(&in);
    assert_int_equal(mcast_plan_get_info(p, &info), KB_OK);
    assert_string_equal(info.name, "postal");
    assert_string_equal(info.selected_by, "forced");
    mcast_plan_free(p);
    kb_rules_free(rules);
    in.rules = NULL;
    /* a torus algorithm without a torus, and one of another component */
    f.algorithm = MCAST_ALG_MDTORUS;
    assert_int_equal(mcast_plan_select(&in, &p, err, sizeof(err)), KB_ERR_ARG);
    in.component = MCAST_COMP_PATHMC;
    assert_int_equal(mcast_plan_select(&in, &p, err, sizeof(err)), KB_ERR_ARG);
    assert_null(p);
    /* with a torus it applies, and its prediction is of the tree that runs (r forced) */
    pm_torus_shape_t shape = {2, {4, 2}, 1, 1};
    int coords[16];
    for (int r = 0; r < 8; ++r) {
        coords[2 * r] = r / 2;
        coords[2 * r + 1] = r % 2;
    }
    in.torus = &shape;
    in.torus_coords = coords;
    f.algorithm = MCAST_ALG_MUTORUS;
    f.mu_r = 2;
    p = select_ok(&in);
    assert_int_equal(mcast_plan_get_info(p, &info), KB_OK);
    assert_int_equal(mcast_plan_describe(p, desc, sizeof(desc)), KB_OK);
    assert_non_null(strstr(desc, "r=2"));
    const double direct = mcast_model_tree_us(info.tree, 100000 > info.class_bytes ? info.class_bytes : info.class_bytes,
                                              info.segment_bytes, -1, NULL, 0, &mach);
    assert_true(fabs(direct - info.predicted_us) < 1e-6 * direct);
    mcast_plan_free(p);
    /* bad input */
    f.algorithm = MCAST_ALG_AUTO;
    f.window = -1;
    assert_int_equal(mcast_plan_select(&in, &p, err, sizeof(err)), KB_ERR_ARG);
    f.window = 0;
    in.root = 8;
    assert_int_equal(mcast_plan_select(&in, &p, err, sizeof(err)), KB_ERR_ARG);
}

/* segment_min_bytes = 0 (the default, auto): no block under 8 KiB where the communicator
 * spans nodes, 1 KiB on one node; an explicit value applies everywhere, and a maximum
 * below the auto floor lowers it instead of failing. */
static size_t forced_segment(int alg, int all_local, size_t seg_min, size_t seg_max, int allgather)
{
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.compare_previous = 0;
    f.algorithm = alg;
    f.allgather = allgather;
    f.segment_min_bytes = seg_min;
    f.segment_max_bytes = seg_max;
    mcast_plan_input_t in = input(16, 0, 64 << 10, &mach, &f);
    in.exact_bytes = 1;
    if (all_local) {
        in.all_local = 1;
        in.nnodes = 1;
    }
    return info_of(&in).segment_bytes;
}

static void test_segment_floor(void **state)
{
    (void) state;
    mcast_forced_t d;
    mcast_forced_default(&d);
    assert_int_equal(d.segment_min_bytes, 0);
    const size_t MiB = (size_t) 1 << 20;
    const size_t free_net = forced_segment(MCAST_ALG_CHAIN, 0, 1, MiB, 0);
    assert_true(free_net < 8192); /* the model alone goes below the floor here */
    assert_true(forced_segment(MCAST_ALG_CHAIN, 0, 0, MiB, 0) >= 8192);
    assert_true(forced_segment(MCAST_ALG_CHAIN, 0, 1024, MiB, 0) < 8192);
    assert_true(forced_segment(MCAST_ALG_CHAIN, 1, 0, MiB, 0) < 8192);
    assert_true(forced_segment(MCAST_ALG_CHAIN, 0, 0, 4096, 0) <= 4096);
    /* scatter + recursive doubling's blocks are the ranks' shares (about 64 KiB / 16), not
     * messages: the auto floor is 1 KiB for them, an explicit one applies */
    const size_t sag = forced_segment(MCAST_ALG_SCATTER_ALLGATHER, 0, 0, MiB, 0);
    assert_true(sag < 8192);
    assert_int_equal(sag, forced_segment(MCAST_ALG_SCATTER_ALLGATHER, 0, 1024, MiB, 0));
    assert_true(forced_segment(MCAST_ALG_SCATTER_ALLGATHER, 0, 8192, MiB, 0) >= 8192);
    /* the ring's messages are single blocks: the floor applies (64 KiB / 8 KiB blocks) */
    assert_true(forced_segment(MCAST_ALG_SCATTER_ALLGATHER, 0, 0, MiB, 1 + MCAST_SAG_RING) >= 8192);
    assert_true(forced_segment(MCAST_ALG_SCATTER_ALLGATHER, 0, 1024, MiB, 1 + MCAST_SAG_RING) < 8192);
}

/* A forced tiny segment never makes more than 65536 blocks. */
static void test_block_cap(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.algorithm = MCAST_ALG_KBINOMIAL;
    f.segment_bytes = 1;
    mcast_plan_input_t in = input(4, 0, 1 << 20, &mach, &f);
    mcast_plan_t *p = NULL;
    p = select_ok(&in);
    size_t B;
    uint32_t m;
    assert_int_equal(mcast_plan_blocks(p, (size_t) 1 << 20, &B, &m), KB_OK);
    assert_true(m <= 65536);
    assert_true(B * m >= ((size_t) 1 << 20));
    assert_int_equal(mcast_plan_blocks(p, 100, &B, &m), KB_OK);
    assert_int_equal(B, 1);
    assert_int_equal(m, 100);
    mcast_plan_free(p);
}

/* segment_max_bytes bounds the families' blocks as it bounds tree segments: the circulant
 * and the two-tree take the fewest blocks under it; scatter + allgather's shares stay
 * each rank's share. */
static void test_family_segment_max(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    const int algs[] = {MCAST_ALG_CIRCULANT, MCAST_ALG_TWOTREE};
    const size_t M = (size_t) 64 << 20;
    for (size_t a = 0; a < sizeof(algs) / sizeof(algs[0]); a++) {
        mcast_forced_t f;
        mcast_forced_default(&f);
        f.algorithm = algs[a];
        f.compare_previous = 0;
        mcast_plan_input_t in = input(8, 0, M, &mach, &f);
        in.exact_bytes = 1;
        f.segment_max_bytes = SIZE_MAX;
        const mcast_plan_info_t free_info = info_of(&in);
        f.segment_max_bytes = (size_t) 1 << 20;
        const mcast_plan_info_t one = info_of(&in);
        f.segment_max_bytes = (size_t) 256 << 10;
        const mcast_plan_info_t quarter = info_of(&in);
        assert_true(one.segment_bytes <= ((size_t) 1 << 20));
        assert_true(quarter.segment_bytes <= ((size_t) 256 << 10));
        assert_true(quarter.segment_bytes > 0);
        /* the bound binds (the model alone cuts larger blocks here) */
        assert_true(free_info.segment_bytes > ((size_t) 256 << 10));
        assert_true(quarter.predicted_us >= free_info.predicted_us - 1e-6);
    }
    /* scatter + allgather: n shares whatever the bound */
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.algorithm = MCAST_ALG_SCATTER_ALLGATHER;
    f.compare_previous = 0;
    f.segment_max_bytes = (size_t) 64 << 10;
    mcast_plan_input_t in = input(8, 0, (size_t) 8 << 20, &mach, &f);
    in.exact_bytes = 1;
    assert_int_equal(info_of(&in).segment_bytes, (size_t) 1 << 20);
}

/* One status enum: the headers' names are its values, every error is negative and says
 * what it means in its own words; MCAST_SHM_* are errors too (issue 45). */
static void test_status_enum(void **state)
{
    (void)state;
    assert_int_equal(KB_OK, MCAST_OK);
    assert_int_equal(PM_OK, MCAST_OK);
    assert_int_equal(PM_MC_OK, MCAST_OK);
    assert_int_equal(KB_ERR_ARG, PM_ERR_ARG);
    assert_int_equal(PM_MC_ERR_ARG, MCAST_ERR_ARG);
    assert_int_equal(KB_ERR_NOMEM, PM_MC_ERR_NOMEM);
    assert_int_equal(PM_ERR_IO, MCAST_ERR_IO);
    assert_int_equal(MCAST_SHM_MISMATCH, PM_MC_ERR_SIZE);
    const int all[] = {MCAST_ERR_ARG, MCAST_ERR_NOMEM, MCAST_ERR_INTERNAL, MCAST_ERR_PARSE,
                       MCAST_ERR_IO, MCAST_ERR_NOTFOUND, MCAST_ERR_UNSUPPORTED,
                       MCAST_ERR_PEER_DEAD, MCAST_ERR_ABORTED, MCAST_ERR_SIZE,
                       MCAST_ERR_PROTOCOL, MCAST_ERR_ROOT_FAILED};
    const int n = (int)(sizeof(all) / sizeof(all[0]));
    for (int i = 0; i < n; ++i) {
        assert_true(all[i] < 0);
        assert_string_not_equal(mcast_status_str(all[i]), "unknown error");
        assert_string_equal(pm_mc_strerror(all[i]), mcast_status_str(all[i]));
        for (int j = 0; j < i; ++j) {
            assert_int_not_equal(all[i], all[j]);
            assert_string_not_equal(mcast_status_str(all[i]), mcast_status_str(all[j]));
        }
    }
    assert_true(MCAST_SHM_ROOT_FAILED < 0 && MCAST_SHM_MISMATCH < 0);
    assert_string_equal(mcast_status_str(MCAST_OK), "success");
    assert_string_equal(mcast_status_str(1), "unknown error");
    assert_string_equal(mcast_status_str(-99), "unknown error");
}

/* Every key of the machine file (the core's one table): a value other than the built-in
 * one is parsed, moves the digest ranks compare, and survives write + load when every key is
 * set at once (the writer leaves out only keys at their "unset" values). */
static void test_machine_keys_table(void **state)
{
    (void)state;
    char err[256];
    mcast_machine_t d, m, all, back;
    mcast_machine_default(&d);
    const int n = mcast_machine_key_count();
    assert_true(n >= 23);
    assert_int_equal(mcast_machine_key_get(n, NULL, NULL, NULL), KB_ERR_ARG);
    assert_int_equal(mcast_machine_key_get(-1, NULL, NULL, NULL), KB_ERR_ARG);
    char every[8192] = "version 1\n";
    for (int i = 0; i < n; ++i) {
        const char *name = NULL, *doc = NULL;
        double builtin = -2.0;
        assert_int_equal(mcast_machine_key_get(i, &name, &doc, &builtin), KB_OK);
        assert_non_null(name);
        assert_true(strncmp(name, "net.", 4) == 0 || strncmp(name, "shm.", 4) == 0);
        assert_true(doc != NULL && strlen(doc) > 5);
        for (int j = 0; j < i; ++j) {
            const char *other = NULL;
            assert_int_equal(mcast_machine_key_get(j, &other, NULL, NULL), KB_OK);
            assert_true(strcmp(name, other) != 0);
        }
        double v;
        if (strcmp(name, "net.shared_flows") == 0 || strcmp(name, "net.host_transit") == 0) {
            v = 1.0;
        } else if (strcmp(name, "net.segment_min_bytes") == 0) {
            v = 4096.0;
        } else if (builtin < 0.0) {
            v = 0.5;
        } else {
            v = builtin + 2.0;
        }
        char text[256];
        snprintf(text, sizeof(text), "version 1\n%s %.17g\n", name, v);
        assert_int_equal(mcast_machine_parse(text, "k", &m, err, sizeof(err)), KB_OK);
        if (mcast_forced_digest(NULL, &m) == mcast_forced_digest(NULL, &d)) {
            print_error("machine key %s = %g leaves the digest as it is\n", name, v);
            fail();
        }
        char line[160];
        snprintf(line, sizeof(line), "%s %.17g\n", name, v);
        strcat(every, line);
    }
    assert_int_equal(mcast_machine_parse(every, "all", &all, err, sizeof(err)), KB_OK);
    char path[] = "/tmp/mc_keys_XXXXXX";
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(mcast_machine_write(path, &all, "every key"), KB_OK);
    assert_int_equal(mcast_machine_load(path, &back, err, sizeof(err)), KB_OK);
    assert_int_equal(mcast_forced_digest(NULL, &back), mcast_forced_digest(NULL, &all));
    unlink(path);
    (void)close(fd);
    /* shm has no shared_flows key: refused as unknown */
    assert_int_equal(mcast_machine_parse("version 1\nshm.shared_flows 1\n", "s", &m, err, sizeof(err)),
                     KB_ERR_ARG);
    assert_non_null(strstr(err, "unknown key 'shared_flows'"));
}

static void test_machine_file(void **state)
{
    (void) state;
    mcast_machine_t m;
    char err[256] = "";
    assert_int_equal(mcast_machine_parse("version 1\nprovenance host x 2026-11-23\nnet.latency_us 3.5\n"
                                         "shm.eager_bytes 8192 # comment\n", "f", &m, err, sizeof(err)),
                     KB_OK);
    assert_true(fabs(m.net.latency_us - 3.5) < 1e-12);
    assert_int_equal(m.shm.eager_bytes, 8192);
    assert_non_null(strstr(m.source, "host x"));
    mcast_machine_t d;
    mcast_machine_default(&d);
    assert_true(fabs(m.net.o_send_us - d.net.o_send_us) < 1e-12); /* untouched keys keep defaults */
    assert_int_equal(mcast_machine_parse("net.latency_us 1\n", "f", &m, err, sizeof(err)), KB_ERR_ARG);
    assert_non_null(strstr(err, "f:1:"));
    assert_int_equal(mcast_machine_parse("version 1\n\nnet.latency 1\n", "g", &m, err, sizeof(err)), KB_ERR_ARG);
    assert_non_null(strstr(err, "g:3: unknown key"));
    assert_int_equal(mcast_machine_parse("version 1\nnet.latency_us -1\n", "g", &m, err, sizeof(err)), KB_ERR_ARG);
    assert_int_equal(mcast_machine_parse("version 1\nnet.latency_us 1 2\n", "g", &m, err, sizeof(err)), KB_ERR_ARG);
    assert_int_equal(mcast_machine_parse("version 2\n", "g", &m, err, sizeof(err)), KB_ERR_ARG);
    assert_int_equal(mcast_machine_parse("", "g", &m, err, sizeof(err)), KB_ERR_ARG);
    assert_int_equal(mcast_machine_load("/", &m, err, sizeof(err)), KB_ERR_ARG);
    assert_non_null(strstr(err, "not a regular file"));
    assert_int_equal(mcast_machine_load("/nonexistent/x", &m, err, sizeof(err)), KB_ERR_ARG);
    assert_non_null(strstr(err, "No such file"));
    /* write + load round trip */
    char path[] = "/tmp/mc_machine_XXXXXX";
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    d.net.latency_us = 7.25;
    assert_int_equal(mcast_machine_write(path, &d, "unit test"), KB_OK);
    assert_int_equal(mcast_machine_load(path, &m, err, sizeof(err)), KB_OK);
    assert_true(fabs(m.net.latency_us - 7.25) < 1e-9);
    assert_int_equal(mcast_forced_digest(NULL, &m), mcast_forced_digest(NULL, &d));
    /* the route-length keys: parsed, written back, part of the digest */
    assert_int_equal(mcast_machine_parse("version 1\nnet.hop_latency_us 0.2\nnet.latency_links 3.5\n",
                                         "r", &m, err, sizeof(err)), KB_OK);
    assert_true(fabs(m.hop_latency_us - 0.2) < 1e-12 && fabs(m.latency_links - 3.5) < 1e-12);
    assert_int_not_equal(mcast_forced_digest(NULL, &m), mcast_forced_digest(NULL, &d));
    assert_int_equal(mcast_machine_write(path, &m, "unit test"), KB_OK);
    assert_int_equal(mcast_machine_load(path, &d, err, sizeof(err)), KB_OK);
    assert_true(fabs(d.hop_latency_us - 0.2) < 1e-9 && fabs(d.latency_links - 3.5) < 1e-9);
    assert_int_equal(mcast_machine_parse("version 1\nshm.hop_latency_us 0.2\n", "r", &m, err, sizeof(err)),
                     KB_ERR_ARG);
    /* the synchronous wait: by default o_recv (negative), parsed, written back (only when
     * set), part of the digest; net only */
    mcast_machine_default(&d);
    assert_true(d.sync_wait_us < 0);
    assert_int_equal(mcast_machine_write(path, &d, "unit test"), KB_OK);
    assert_int_equal(mcast_machine_load(path, &m, err, sizeof(err)), KB_OK);
    assert_true(m.sync_wait_us < 0);
    assert_int_equal(mcast_machine_parse("version 1\nnet.sync_wait_us 0\n", "w", &m, err, sizeof(err)), KB_OK);
    assert_true(m.sync_wait_us == 0.0);
    assert_int_not_equal(mcast_forced_digest(NULL, &m), mcast_forced_digest(NULL, &d));
    assert_int_equal(mcast_machine_write(path, &m, "unit test"), KB_OK);
    assert_int_equal(mcast_machine_load(path, &d, err, sizeof(err)), KB_OK);
    assert_true(d.sync_wait_us == 0.0);
    assert_int_equal(mcast_machine_parse("version 1\nshm.sync_wait_us 0.2\n", "w", &m, err, sizeof(err)),
                     KB_ERR_ARG);
    assert_int_equal(mcast_machine_parse("version 1\nnet.sync_wait_us -1\n", "w", &m, err, sizeof(err)),
                     KB_ERR_ARG);
    /* the smallest block across nodes: 0 (8 KiB) by default, whole bytes up to 16 MiB,
     * written back, part of the digest, net only; it sets the auto floor across nodes
     * (a forced segment_min_bytes still wins), not the one on one node */
    mcast_machine_default(&d);
    assert_int_equal(d.net_segment_min_bytes, 0);
    assert_int_equal(mcast_machine_parse("version 1\nnet.segment_min_bytes 2048\n", "s", &m, err, sizeof(err)),
                     KB_OK);
    assert_int_equal(m.net_segment_min_bytes, 2048);
    assert_int_not_equal(mcast_forced_digest(NULL, &m), mcast_forced_digest(NULL, &d));
    assert_int_equal(mcast_machine_write(path, &m, "unit test"), KB_OK);
    assert_int_equal(mcast_machine_load(path, &d, err, sizeof(err)), KB_OK);
    assert_int_equal(d.net_segment_min_bytes, 2048);
    assert_int_equal(mcast_machine_parse("version 1\nshm.segment_min_bytes 2048\n", "s", &d, err, sizeof(err)),
                     KB_ERR_ARG);
    /* net.switch_links: a link between switches in links (0, the default, = 1), kept by
     * the round trip, part of the digest, net only, not negative */
    mcast_machine_default(&d);
    assert_true(d.switch_links == 0.0);
    assert_int_equal(mcast_machine_parse("version 1\nnet.switch_links 3.85\n", "s", &m, err, sizeof(err)), KB_OK);
    assert_true(m.switch_links == 3.85);
    assert_int_not_equal(mcast_forced_digest(NULL, &m), mcast_forced_digest(NULL, &d));
    assert_int_equal(mcast_machine_write(path, &m, "unit test"), KB_OK);
    assert_int_equal(mcast_machine_load(path, &d, err, sizeof(err)), KB_OK);
    assert_true(fabs(d.switch_links - 3.85) < 1e-12);
    assert_int_equal(mcast_machine_parse("version 1\nshm.switch_links 2\n", "s", &d, err, sizeof(err)), KB_ERR_ARG);
    assert_int_equal(mcast_machine_parse("version 1\nnet.switch_links -1\n", "s", &d, err, sizeof(err)), KB_ERR_ARG);
    /* net.host_links: a host's own link in links (0, the default, = 1), kept by the round
     * trip, part of the digest, net only */
    mcast_machine_default(&d);
    assert_true(d.host_links == 0.0);
    assert_int_equal(mcast_machine_parse("version 1\nnet.host_links 2\n", "s", &m, err, sizeof(err)), KB_OK);
    assert_true(m.host_links == 2.0);
    assert_int_not_equal(mcast_forced_digest(NULL, &m), mcast_forced_digest(NULL, &d));
    assert_int_equal(mcast_machine_write(path, &m, "unit test"), KB_OK);
    assert_int_equal(mcast_machine_load(path, &d, err, sizeof(err)), KB_OK);
    assert_true(d.host_links == 2.0);
    assert_int_equal(mcast_machine_parse("version 1\nshm.host_links 2\n", "s", &d, err, sizeof(err)), KB_ERR_ARG);
    assert_int_equal(mcast_machine_parse("version 1\nnet.host_links -1\n", "s", &d, err, sizeof(err)), KB_ERR_ARG);
    assert_int_equal(mcast_machine_parse("version 1\nnet.segment_min_bytes 1.5\n", "s", &d, err, sizeof(err)),
                     KB_ERR_ARG);
    assert_int_equal(mcast_machine_parse("version 1\nnet.segment_min_bytes 16777217\n", "s", &d, err,
                                         sizeof(err)),
                     KB_ERR_ARG);
    {
        mcast_forced_t f;
        mcast_forced_default(&f);
        f.compare_previous = 0;
        f.algorithm = MCAST_ALG_CHAIN;
        mcast_machine_default(&d);
        mcast_plan_input_t in = input(16, 0, 64 << 10, &d, &f);
        in.exact_bytes = 1;
        assert_int_equal(info_of(&in).segment_bytes, 8192); /* the built-in floor binds */
        d.net_segment_min_bytes = 1024;
        assert_true(info_of(&in).segment_bytes < 8192);
        assert_true(info_of(&in).segment_bytes >= 1024);
        f.segment_min_bytes = 16384; /* forced: wins */
        assert_true(info_of(&in).segment_bytes >= 16384);
    }
    /* shared flows: 0 by default, 0 or 1, written back, part of the digest; net only */
    mcast_machine_default(&d);
    assert_int_equal(d.net.shared_flows, 0);
    assert_int_equal(mcast_machine_parse("version 1\nnet.shared_flows 1\n", "f", &m, err, sizeof(err)), KB_OK);
    assert_int_equal(m.net.shared_flows, 1);
    assert_int_equal(m.shm.shared_flows, 0);
    assert_int_not_equal(mcast_forced_digest(NULL, &m), mcast_forced_digest(NULL, &d));
    assert_int_equal(mcast_machine_write(path, &m, "unit test"), KB_OK);
    assert_int_equal(mcast_machine_load(path, &d, err, sizeof(err)), KB_OK);
    assert_int_equal(d.net.shared_flows, 1);
    assert_int_equal(mcast_machine_parse("version 1\nnet.shared_flows 0.5\n", "f", &m, err, sizeof(err)),
                     KB_ERR_ARG);
    assert_non_null(strstr(err, "0 or 1"));
    assert_int_equal(mcast_machine_parse("version 1\nnet.shared_flows 2\n", "f", &m, err, sizeof(err)),
                     KB_ERR_ARG);
    assert_int_equal(mcast_machine_parse("version 1\nshm.shared_flows 1\n", "f", &m, err, sizeof(err)),
                     KB_ERR_ARG);
    /* the shared segment's keys: parsed, written back, part of the digest; shm only */
    mcast_machine_default(&d);
    assert_int_equal(mcast_machine_parse("version 1\nshm.copy_ns_per_byte 0.125\nshm.handover_us 0.75\n",
                                         "s", &m, err, sizeof(err)), KB_OK);
    assert_true(fabs(m.shm_copy_ns_per_byte - 0.125) < 1e-12 && fabs(m.shm_handover_us - 0.75) < 1e-12);
    assert_int_not_equal(mcast_forced_digest(NULL, &m), mcast_forced_digest(NULL, &d));
    assert_int_equal(mcast_machine_write(path, &m, "unit test"), KB_OK);
    assert_int_equal(mcast_machine_load(path, &d, err, sizeof(err)), KB_OK);
    assert_true(fabs(d.shm_copy_ns_per_byte - 0.125) < 1e-9 && fabs(d.shm_handover_us - 0.75) < 1e-9);
    assert_int_equal(mcast_machine_parse("version 1\nnet.copy_ns_per_byte 0.2\n", "s", &m, err, sizeof(err)),
                     KB_ERR_ARG);
    /* transit through a node's interface: 0 by default, 0 or 1, net only, written back
     * when set, part of the digest */
    mcast_machine_default(&d);
    assert_int_equal(d.host_transit, 0);
    assert_int_equal(mcast_machine_parse("version 1\nnet.host_transit 1\n", "h", &m, err, sizeof(err)), KB_OK);
    assert_int_equal(m.host_transit, 1);
    assert_int_not_equal(mcast_forced_digest(NULL, &m), mcast_forced_digest(NULL, &d));
    assert_int_equal(mcast_machine_write(path, &m, "unit test"), KB_OK);
    assert_int_equal(mcast_machine_load(path, &d, err, sizeof(err)), KB_OK);
    assert_int_equal(d.host_transit, 1);
    assert_int_equal(mcast_machine_parse("version 1\nnet.host_transit 2\n", "h", &m, err, sizeof(err)), KB_ERR_ARG);
    assert_int_equal(mcast_machine_parse("version 1\nshm.host_transit 1\n", "h", &m, err, sizeof(err)), KB_ERR_ARG);
    remove(path);
}

/* The shared segment (shm): a candidate only for kbinomial with every rank on one node
 * and a segment offered; its plan is the core's model, names transport "shm", has no
 * schedule; forced where it does not apply, the planner says why. */
static void test_shm_plans(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.compare_previous = 0;
    mcast_plan_input_t in = input(4, 1, 1 << 20, &mach, &f);
    in.all_local = 1;
    in.nnodes = 1;
    in.exact_bytes = 1;
    in.shm_slot_bytes = 262144;
    in.shm_chunk_bytes = 32768;
    in.shm_slots = 8;
    in.node_cores = 2;
    mcast_plan_info_t info = info_of(&in);
    assert_int_equal(info.algorithm, MCAST_ALG_SHM);
    assert_string_equal(info.transport, "shm");
    assert_int_equal(info.shm_slots, 8);
    assert_int_equal(info.shm_slot_bytes, 262144);
    assert_int_equal(info.shm_chunk_bytes, 32768);
    /* 4 ranks on 2 cores: 1 MiB fills the ring's 8 slots, chunks of 128 KiB */
    assert_int_equal(info.segment_bytes, 131072);
    assert_int_equal(info.shm_fit_ring, 1); /* the glue's chunks follow the plan */
    assert_null(info.tree);
    assert_float_equal(info.predicted_us,
                       mcast_shm_predict_us(4, 1 << 20, 131072, 2, mach.shm_copy_ns_per_byte,
                                            mach.shm_handover_us), 1e-9);
    /* a core for every rank: the smallest chunk */
    mcast_plan_input_t own = in;
    own.node_cores = 0;
    assert_int_equal(info_of(&own).segment_bytes, 32768);
    assert_int_equal(info_of(&own).shm_fit_ring, 0);
    mcast_plan_t *p = select_ok(&in);
    mcast_sched_t *sched = NULL;
    mcast_engine_params_t ep;
    assert_int_equal(mcast_plan_schedule(p, 0, 1 << 20, &sched), KB_ERR_ARG);
    assert_int_equal(mcast_plan_engine_params(p, 0, 1 << 20, &ep), KB_ERR_ARG);
    mcast_plan_free(p);
    /* the model decides: copies so slow that the PML's trees win */
    mcast_machine_t slow = mach;
    slow.shm_copy_ns_per_byte = 50.0;
    in.machine = &slow;
    assert_int_not_equal(info_of(&in).algorithm, MCAST_ALG_SHM);
    in.machine = &mach;
    /* coll/pathmc compares its plans with kbinomial's segment and defers to it (E-CART-1):
     * on a 2x2 torus of one node's ranks too; it cannot force it */
    mcast_plan_input_t pm = in;
    pm.component = MCAST_COMP_PATHMC;
    const pm_torus_shape_t shape = {2, {2, 2}, 1, 1};
    const int coords[8] = {0, 0, 1, 0, 0, 1, 1, 1};
    for (int torus = 0; torus < 2; ++torus) {
        pm.torus = torus ? &shape : NULL;
        pm.torus_coords = torus ? coords : NULL;
        const mcast_plan_info_t pi = info_of(&pm);
        assert_int_equal(pi.algorithm, MCAST_ALG_SHM);
        assert_int_equal(pi.defer, 1);
    }
    pm.torus = &shape;
    pm.torus_coords = coords;
    pm.shm_slot_bytes = 0; /* without it: a torus plan of its own */
    assert_int_equal(info_of(&pm).defer, 0);
    /* not a candidate without a segment, across nodes, for one rank; pathmc cannot force it */
    char err[256];
    mcast_plan_input_t off[4] = {in, in, in, in};
    off[0].shm_slot_bytes = 0;
    off[1].all_local = 0;
    off[1].nnodes = 4;
    off[2].n = 1;
    off[2].root = 0;
    off[3].component = MCAST_COMP_PATHMC;
    for (int i = 0; i < 4; ++i) {
        if (i < 3) {
            assert_int_not_equal(info_of(&off[i]).algorithm, MCAST_ALG_SHM);
        }
        mcast_forced_t g = f;
        g.algorithm = MCAST_ALG_SHM;
        off[i].forced = &g;
        assert_int_equal(mcast_plan_select(&off[i], &p, err, sizeof(err)), KB_ERR_ARG);
        assert_true(strstr(err, i == 3 ? "another component" : "shm: needs every rank on one node") != NULL);
    }
}

/* Across nodes with a segment in every node (the glue offers one: input.shm_slot_bytes):
 * twolevel runs the leaders' schedule over the PML and hands every block on through the
 * node's segment (transport "pml+shm"); members have no op; each node's leader is its
 * first rank on the chain (the root leads its own node); the prediction is the model's
 * (leaders' level + the last chunk, or the segment's pipeline). */
static void test_two_level_segment_plans(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    const int nodes = 4, ppn = 3, n = nodes * ppn;
    int node[12];
    for (int r = 0; r < n; ++r) {
        node[r] = r % nodes;
    }
    mcast_forced_t f;
    mcast_forced_default(&f);
    f.compare_previous = 0;
    for (int root = 0; root < n; root += 5) {
        mcast_plan_input_t in = input(n, root, 1 << 20, &mach, &f);
        in.node_of_rank = node;
        in.nnodes = nodes;
        in.exact_bytes = 1;
        in.shm_slot_bytes = 262144;
        in.shm_chunk_bytes = 32768;
        in.shm_slots = 8;
        mcast_plan_t *p = select_ok(&in);
        mcast_plan_info_t info;
        mcast_plan_get_info(p, &info);
        assert_int_equal(info.algorithm, MCAST_ALG_TWOLEVEL);
        assert_string_equal(info.transport, "pml+shm");
        assert_int_equal(info.shm_slots, 8);
        assert_int_equal(info.shm_slot_bytes, 262144);
        assert_int_equal(info.shm_fit_ring, 0);
        assert_non_null(info.node_of_rank);
        char desc[512];
        mcast_plan_describe(p, desc, sizeof(desc));
        assert_non_null(strstr(desc, "intra=shm"));
        int leaders = 0;
        for (int r = 0; r < n; ++r) {
            const int l = mcast_plan_node_leader(p, r);
            assert_true(l >= 0 && l < n);
            assert_int_equal(node[l], node[r]);
            assert_int_equal(mcast_plan_node_leader(p, l), l);
            leaders += l == r;
            mcast_sched_t *sc = NULL;
            assert_int_equal(mcast_plan_schedule(p, r, 1 << 20, &sc), KB_OK);
            const size_t ops = mcast_sched_count(sc, MCAST_OP_RECV) + mcast_sched_count(sc, MCAST_OP_SEND);
            if (l == r) {
                assert_true(ops > 0);
                for (size_t i = 0; i < mcast_sched_count(sc, MCAST_OP_SEND); ++i) {
                    mcast_op_t o;
                    mcast_sched_op(sc, MCAST_OP_SEND, i, &o);
                    assert_int_not_equal(node[o.peer], node[r]); /* no local op */
                }
            } else {
                assert_int_equal(ops, 0);
            }
            mcast_sched_free(sc);
        }
        assert_int_equal(leaders, nodes);
        assert_int_equal(mcast_plan_node_leader(p, root), root);
        assert_int_equal(mcast_plan_node_leader(p, n), -1);
        mcast_plan_free(p);
        /* no segment offered: the PML inside the nodes */
        in.shm_slot_bytes = 0;
        p = select_ok(&in);
        mcast_plan_get_info(p, &info);
        assert_string_not_equal(info.transport, "pml+shm");
        assert_int_equal(mcast_plan_node_leader(p, 0), -1);
        mcast_plan_free(p);
    }
    /* the model: slow copies make the segment lose to the PML inside the nodes */
    mcast_machine_t slow = mach;
    slow.shm_copy_ns_per_byte = 50.0;
    mcast_plan_input_t in = input(n, 0, 1 << 20, &slow, &f);
    in.node_of_rank = node;
    in.nnodes = nodes;
    in.shm_slot_bytes = 262144;
    in.shm_chunk_bytes = 32768;
    in.shm_slots = 8;
    mcast_plan_info_t info = info_of(&in);
    assert_string_not_equal(info.transport, "pml+shm");
}

static void test_digest(void **state)
{
    (void) state;
    mcast_forced_t a, b;
    mcast_forced_default(&a);
    mcast_machine_t m;
    mcast_machine_default(&m);
    const uint64_t h = mcast_forced_digest(&a, &m);
    b = a; b.k = 3; assert_int_not_equal(h, mcast_forced_digest(&b, &m));
    b = a; b.window = 2; assert_int_not_equal(h, mcast_forced_digest(&b, &m));
    b = a; b.segment_bytes = 5; assert_int_not_equal(h, mcast_forced_digest(&b, &m));
    b = a; b.lambda = 1.5; assert_int_not_equal(h, mcast_forced_digest(&b, &m));
    b = a; b.algorithm = MCAST_ALG_CHAIN; assert_int_not_equal(h, mcast_forced_digest(&b, &m));
    b = a; b.sync_sends = 0; assert_int_not_equal(h, mcast_forced_digest(&b, &m));
    mcast_machine_t m2 = m;
    m2.shm.eager_bytes++;
    assert_int_not_equal(h, mcast_forced_digest(&a, &m2));
    assert_int_equal(h, mcast_forced_digest(&a, &m));
}

/* window = 0 (the default, auto): the circulant keeps one receive posted (each round's block
 * comes from another rank), every other plan 4; a forced window is every plan's. */
static void test_window_auto(void **state)
{
    (void) state;
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    mcast_forced_t f;
    mcast_forced_default(&f);
    assert_int_equal(f.window, 0);
    f.compare_previous = 0;
    const size_t M = 1u << 20;
    const int algs[] = {MCAST_ALG_CIRCULANT, MCAST_ALG_KBINOMIAL, MCAST_ALG_CHAIN, MCAST_ALG_TWOTREE,
                        MCAST_ALG_SCATTER_ALLGATHER};
    for (int forced_window = 0; forced_window <= 3; forced_window += 3) {
        f.window = forced_window;
        for (size_t a = 0; a < sizeof(algs) / sizeof(algs[0]); ++a) {
            f.algorithm = algs[a];
            mcast_plan_input_t in = input(16, 3, M, &mach, &f);
            mcast_plan_t *p = select_ok(&in);
            mcast_plan_info_t info;
            assert_int_equal(mcast_plan_get_info(p, &info), KB_OK);
            /* auto: the circulant 1; the two-tree a block's rounds to its deepest rank and
             * two (n = 16: 8 + 2); the others 4 */
            mcast_level_t tt;
            memset(&tt, 0, sizeof(tt));
            tt.family = MCAST_FAM_TWOTREE;
            const long depth = mcast_level_rounds(&tt, 16, 1);
            assert_true(depth >= 4 && depth <= 2 * 4 + 2);
            const int want = forced_window != 0                   ? forced_window
                             : algs[a] == MCAST_ALG_CIRCULANT     ? 1
                             : algs[a] == MCAST_ALG_TWOTREE       ? (int) depth + 2
                                                                  : 4;
            assert_int_equal(info.window, want);
            mcast_engine_params_t ep;
            assert_int_equal(mcast_plan_engine_params(p, 5, M, &ep), KB_OK);
            if (algs[a] != MCAST_ALG_TWOTREE) { /* the two-tree may need its skew's window */
                assert_int_equal(ep.window, want);
            } else {
                assert_true(ep.window >= want);
            }
            char desc[512];
            char word[32];
            snprintf(word, sizeof(word), " window=%d ", want);
            assert_int_equal(mcast_plan_describe(p, desc, sizeof(desc)), KB_OK);
            assert_non_null(strstr(desc, word));
            mcast_plan_free(p);
        }
    }
    /* auto over the families keeps the resolution: whatever it picks, a circulant has 1 */
    f.window = 0;
    f.algorithm = MCAST_ALG_AUTO;
    for (size_t bytes = 1u << 16; bytes <= (16u << 20); bytes <<= 2) {
        mcast_plan_input_t in = input(64, 0, bytes, &mach, &f);
        mcast_plan_t *p = select_ok(&in);
        mcast_plan_info_t info;
        assert_int_equal(mcast_plan_get_info(p, &info), KB_OK);
        if (info.algorithm == MCAST_ALG_TWOTREE) {
            mcast_level_t tt;
            memset(&tt, 0, sizeof(tt));
            tt.family = MCAST_FAM_TWOTREE;
            assert_true(info.window >= mcast_level_rounds(&tt, 64, 1) + 2); /* and its skew's */
        } else {
            assert_int_equal(info.window, info.algorithm == MCAST_ALG_CIRCULANT ? 1 : 4);
        }
        mcast_plan_free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_size_classes),
        cmocka_unit_test(test_model_unit_steps),
        cmocka_unit_test(test_model_loggp),
        cmocka_unit_test(test_auto_near_best),
        cmocka_unit_test(test_family_plans),
        cmocka_unit_test(test_pairs_every_size),
        cmocka_unit_test(test_family_wins_bandwidth),
        cmocka_unit_test(test_two_level_plans),
        cmocka_unit_test(test_previous),
        cmocka_unit_test(test_decision_api),
        cmocka_unit_test(test_runner_up),
        cmocka_unit_test(test_unmodelled),
        cmocka_unit_test(test_mcast_plans),
        cmocka_unit_test(test_pathlg_plans),
        cmocka_unit_test(test_link_sharing),
        cmocka_unit_test(test_round_link_sharing),
        cmocka_unit_test(test_route_latency),
        cmocka_unit_test(test_sync_sends),
        cmocka_unit_test(test_tcp_eager_blocks),
        cmocka_unit_test(test_small_whole_sends),
        cmocka_unit_test(test_shared_flows_whole),
        cmocka_unit_test(test_flows_whole_weighted),
        cmocka_unit_test(test_selection_order),
        cmocka_unit_test(test_segment_floor),
        cmocka_unit_test(test_block_cap),
        cmocka_unit_test(test_family_segment_max),
        cmocka_unit_test(test_machine_file),
        cmocka_unit_test(test_machine_keys_table),
        cmocka_unit_test(test_status_enum),
        cmocka_unit_test(test_shm_plans),
        cmocka_unit_test(test_two_level_segment_plans),
        cmocka_unit_test(test_digest),
        cmocka_unit_test(test_postal_lambda_search),
        cmocka_unit_test(test_timed_link_sharing),
        cmocka_unit_test(test_window_auto),
        cmocka_unit_test(test_twotree_path_latency),
        cmocka_unit_test(test_twotree_blocks_under_bound),
        cmocka_unit_test(test_twotree_placement),
        cmocka_unit_test(test_host_transit),
        cmocka_unit_test(test_edst_plans),
        cmocka_unit_test(test_twotree_sync_sends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
