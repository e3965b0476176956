/*
 * Torus multicast family of the pathmc core (seed 002): separate, utorus,
 * storus, mdtorus, mutorus.
 *  - Every schedule is a spanning tree: each member reached exactly once, by
 *    a parent that holds the message first (random groups, every root, 1-3
 *    dimensional tori and meshes, unidirectional and bidirectional, shared
 *    routers).
 *  - Phases and intermediate nodes on the deepest path on 4x4 and 8x8 tori,
 *    G = 4..k^2 (canonical group: the first G routers in dimension order,
 *    root (0,0)) match the closed forms of the seed's models (eqs. 8-12).
 *  - mutorus with r = G is a chain; mdtorus on a 2D torus has 2 phases.
 *  - Registry, model and chooser.
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
#include "pathmc.h"

static void check_spanning(const kb_tree_t *t, int n, int root)
{
    assert_int_equal(t->n, n);
    assert_int_equal(t->root, root);
    assert_int_equal(t->parent[root], PM_NO_PEER);
    assert_int_equal(t->child_off[0], 0);
    assert_int_equal(t->child_off[n], n - 1);
    int *seen = calloc(n, sizeof(int)), *stack = malloc(sizeof(int) * n), sp = 0, count = 1;
    seen[root] = 1;
    stack[sp++] = root;
    while (sp) {
        int u = stack[--sp];
        for (int j = t->child_off[u]; j < t->child_off[u + 1]; ++j) {
            int c = t->children[j];
            assert_true(c >= 0 && c < n);
            assert_false(seen[c]);          /* reached exactly once */
            assert_int_equal(t->parent[c], u);
            seen[c] = 1;
            ++count;
            stack[sp++] = c;
        }
    }
    assert_int_equal(count, n);
    free(seen);
    free(stack);
}

static uint64_t rs = 99;
static int rnd(int n)
{
    rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int)((rs >> 33) % (uint64_t)n);
}

static void test_spanning_random(void **state)
{
    (void)state;
    pm_torus_shape_t shapes[] = {
        {2, {4, 4}, 1, 1, }, {2, {4, 4}, 1, 0, }, {2, {8, 8}, 1, 1, }, {2, {5, 3}, 0, 1, },
        {3, {4, 4, 4}, 1, 1, }, {3, {3, 2, 5}, 1, 0, }, {1, {16}, 1, 1, }, {1, {7}, 0, 1, },
    };
    int coords[3 * 200];
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s) {
        const pm_torus_shape_t *sh = &shapes[s];
        for (int trial = 0; trial < 6; ++trial) {
            int n = 1 + rnd(trial < 3 ? 20 : 120);
            for (int m = 0; m < n; ++m)
                for (int d = 0; d < sh->ndims; ++d) coords[m * sh->ndims + d] = rnd(sh->dims[d]);
            for (int root = 0; root < n; ++root)
                for (int a = 0; a < pm_torus_algorithm_count(); ++a) {
                    kb_tree_t *t;
                    pm_torus_stats_t st;
                    int r = a == PM_TORUS_MUTORUS ? rnd(6) : 0;
                    assert_int_equal(pm_torus_build((pm_torus_alg_t)a, sh, n, coords, root, r, &t, &st), PM_OK);
                    check_spanning(t, n, root);
                    assert_int_equal(st.depth, t->depth);
                    assert_int_equal(st.intermediates, t->depth > 0 ? t->depth - 1 : 0);
                    pm_tree_free(t);
                }
        }
    }
}

static int floor_log2(int g)
{
    int l = 0;
    while ((2 << l) <= g) ++l;
    return l;
}
static int ceil_log2(int g)
{
    int l = 0;
    while ((1 << l) < g) ++l;
    return l;
}
static int imax(int a, int b) { return a > b ? a : b; }
static int imin(int a, int b) { return a < b ? a : b; }

/* Canonical group on a k x k torus: the first G routers in dimension order
 * (dimension 0 most significant), root (0,0). */
static void canonical(int k, int G, int *coords)
{
    for (int m = 0; m < G; ++m) {
        coords[2 * m] = m / k;
        coords[2 * m + 1] = m % k;
    }
}

static void test_formulas(void **state)
{
    (void)state;
    int coords[2 * 64];
    for (int k = 4; k <= 8; k += 4)
        for (int bidir = 0; bidir <= 1; ++bidir) {
            pm_torus_shape_t sh = {2, {k, k}, 1, bidir};
            for (int G = 4; G <= k * k; ++G) {
                canonical(k, G, coords);
                for (int a = 0; a < PM_TORUS_NALGS; ++a) {
                    kb_tree_t *t;
                    pm_torus_stats_t st;
                    assert_int_equal(pm_torus_build((pm_torus_alg_t)a, &sh, G, coords, 0, 0, &t, &st), PM_OK);
                    int phases = 0, h = 0, steps = -1, p;
                    switch (a) {
                    case PM_TORUS_SEPARATE:   /* eq. 8: G-1 serial unicasts, no relay */
                        phases = 1; h = 0; steps = G - 1; break;
                    case PM_TORUS_UTORUS:     /* ceil(log2 G) steps (seed sec 3), binomial depth */
                        phases = ceil_log2(G); h = floor_log2(G) - 1; steps = ceil_log2(G); break;
                    case PM_TORUS_STORUS:     /* eq. 12: a chain of G-2 intermediates */
                        phases = 1; h = G - 2; steps = G - 1; break;
                    case PM_TORUS_MDTORUS:    /* eq. 9: N = 2 phases once two rings are used */
                        phases = G > k ? 2 : 1;
                        h = G <= k ? G - 2 : imax(k - 2, imin(G - k, k) - 1);
                        break;
                    case PM_TORUS_MUTORUS:    /* eq. 10 with r = k */
                        p = (G - 1 + k - 1) / k;
                        phases = p >= 2 ? 2 : 1;
                        h = p >= 2 ? k - 1 : G - 2;
                        /* head i hears in step i, its partition of s_i ends in step i + s_i - 1 */
                        steps = p >= 2 ? imax(p - 1 + k - 1, p + (G - 1 - (p - 1) * k) - 1) : G - 1;
                        break;
                    }
                    if (st.phases != phases || st.intermediates != h || (steps >= 0 && st.steps != steps))
                        fail_msg("%s k=%d bidir=%d G=%d: phases %d/%d h %d/%d steps %d/%d",
                                 pm_torus_algorithm_get(a)->name, k, bidir, G, st.phases, phases, st.intermediates,
                                 h, st.steps, steps);
                    pm_tree_free(t);
                }
            }
        }
}

static void test_mutorus_chain_mdtorus_phases(void **state)
{
    (void)state;
    pm_torus_shape_t sh = {2, {8, 8}, 1, 1};
    int coords[2 * 64];
    for (int trial = 0; trial < 50; ++trial) {
        int G = 2 + rnd(63);
        /* distinct random routers */
        int used[64] = {0};
        for (int m = 0; m < G; ++m) {
            int v;
            do v = rnd(64); while (used[v]);   /* G <= 64: terminates */
            used[v] = 1;
            coords[2 * m] = v / 8;
            coords[2 * m + 1] = v % 8;
        }
        int root = rnd(G);
        kb_tree_t *t;
        pm_torus_stats_t st;
        assert_int_equal(pm_torus_build(PM_TORUS_MUTORUS, &sh, G, coords, root, G, &t, &st), PM_OK);
        for (int v = 0; v < G; ++v) assert_true(t->child_off[v + 1] - t->child_off[v] <= 1);   /* a chain */
        assert_int_equal(st.depth, G - 1);
        assert_int_equal(st.phases, 1);
        pm_tree_free(t);
        /* mdtorus: phase 1 iff two x values are used, phase 2 iff some x-ring holds two members */
        assert_int_equal(pm_torus_build(PM_TORUS_MDTORUS, &sh, G, coords, root, 0, &t, &st), PM_OK);
        int xs[8] = {0}, nx = 0, ring[8] = {0}, multi = 0;
        for (int m = 0; m < G; ++m) {
            if (!xs[coords[2 * m]]++) ++nx;
            if (++ring[coords[2 * m]] == 2) multi = 1;
        }
        assert_int_equal(st.phases, (nx > 1) + multi);
        pm_tree_free(t);
    }
    /* full 8x8 and 4x4x4: N phases */
    canonical(8, 64, coords);
    kb_tree_t *t;
    pm_torus_stats_t st;
    assert_int_equal(pm_torus_build(PM_TORUS_MDTORUS, &sh, 64, coords, 27, 0, &t, &st), PM_OK);
    assert_int_equal(st.phases, 2);
    pm_tree_free(t);
    pm_torus_shape_t sh3 = {3, {4, 4, 4}, 1, 0};
    int c3[3 * 64];
    for (int m = 0; m < 64; ++m) {
        c3[3 * m] = m / 16;
        c3[3 * m + 1] = (m / 4) % 4;
        c3[3 * m + 2] = m % 4;
    }
    assert_int_equal(pm_torus_build(PM_TORUS_MDTORUS, &sh3, 64, c3, 5, 0, &t, &st), PM_OK);
    assert_int_equal(st.phases, 3);
    pm_tree_free(t);
}

static void test_registry(void **state)
{
    (void)state;
    const char *names[] = {"separate", "utorus", "storus", "mdtorus", "mutorus"};
    assert_int_equal(pm_torus_algorithm_count(), PM_TORUS_NALGS);
    for (int i = 0; i < pm_torus_algorithm_count(); ++i) {
        const pm_torus_algorithm_t *a = pm_torus_algorithm_get(i);
        assert_non_null(a);
        assert_int_equal(a->id, i);
        assert_string_equal(a->name, names[i]);
        assert_true(strlen(a->description) > 10);
        assert_int_equal(pm_torus_algorithm_lookup(a->name), i);
    }
    assert_null(pm_torus_algorithm_get(-1));
    assert_null(pm_torus_algorithm_get(PM_TORUS_NALGS));
    assert_int_equal(pm_torus_algorithm_lookup("bogus"), PM_ERR_NOTFOUND);
    assert_int_equal(pm_torus_algorithm_lookup(NULL), PM_ERR_ARG);
}

static void test_model_chooser(void **state)
{
    (void)state;
    pm_torus_model_t m;
    pm_torus_model_default(&m);
    pm_torus_shape_t sh = {2, {4, 4}, 1, 0};
    int coords[32];
    canonical(4, 16, coords);
    /* eq. 8 and eq. 12 by hand for G = 16 */
    pm_torus_stats_t st;
    kb_tree_t *t;
    assert_int_equal(pm_torus_build(PM_TORUS_SEPARATE, &sh, 16, coords, 0, 0, &t, &st), PM_OK);
    pm_tree_free(t);
    assert_true(fabs(pm_torus_predict_us(PM_TORUS_SEPARATE, &st, 16, 0, &m) - (15 * (1.994 + 7) + 1.994)) < 1e-9);
    assert_int_equal(pm_torus_build(PM_TORUS_STORUS, &sh, 16, coords, 0, 0, &t, &st), PM_OK);
    pm_tree_free(t);
    assert_true(fabs(pm_torus_predict_us(PM_TORUS_STORUS, &st, 16, 0, &m) -
                     (2 * 1.994 + 14 * (2 * 1.994 + 265))) < 1e-9);
    /* small messages: separate addressing wins (seed sec 4); large: utorus (log steps) */
    pm_torus_alg_t best;
    double pred;
    assert_int_equal(pm_torus_choose(&sh, 16, coords, 0, 128, &m, &best, &pred), PM_OK);
    assert_int_equal(best, PM_TORUS_SEPARATE);
    assert_true(pred > 0);
    assert_int_equal(pm_torus_choose(&sh, 16, coords, 0, 1 << 24, &m, &best, &pred), PM_OK);
    assert_int_equal(best, PM_TORUS_UTORUS);
    /* errors */
    pm_torus_model_t bad = m;
    bad.o_us = -1;
    assert_int_equal(pm_torus_choose(&sh, 16, coords, 0, 128, &bad, &best, &pred), PM_ERR_ARG);
    assert_true(pm_torus_predict_us(PM_TORUS_SEPARATE, NULL, 16, 0, &m) < 0);
}

static void test_bad_args(void **state)
{
    (void)state;
    pm_torus_shape_t sh = {2, {4, 4}, 1, 1};
    int coords[4] = {0, 0, 1, 1}, bad[4] = {0, 0, 4, 1};
    kb_tree_t *t;
    assert_int_equal(pm_torus_build(PM_TORUS_UTORUS, &sh, 2, coords, 2, 0, &t, NULL), PM_ERR_ARG);
    assert_null(t);
    assert_int_equal(pm_torus_build(PM_TORUS_UTORUS, &sh, 0, coords, 0, 0, &t, NULL), PM_ERR_ARG);
    assert_int_equal(pm_torus_build(PM_TORUS_UTORUS, &sh, 2, bad, 0, 0, &t, NULL), PM_ERR_ARG);
    assert_int_equal(pm_torus_build((pm_torus_alg_t)7, &sh, 2, coords, 0, 0, &t, NULL), PM_ERR_ARG);
    assert_int_equal(pm_torus_build(PM_TORUS_MUTORUS, &sh, 2, coords, 0, -1, &t, NULL), PM_ERR_ARG);
    pm_torus_shape_t s2 = {2, {4, 1}, 1, 1}, s3 = {2, {4, 4}, 0, 0}, s4 = {9, {4}, 1, 1};
    assert_int_equal(pm_torus_build(PM_TORUS_UTORUS, &s2, 2, coords, 0, 0, &t, NULL), PM_ERR_ARG);
    assert_int_equal(pm_torus_build(PM_TORUS_UTORUS, &s3, 2, coords, 0, 0, &t, NULL), PM_ERR_ARG);
    assert_int_equal(pm_torus_build(PM_TORUS_UTORUS, &s4, 2, coords, 0, 0, &t, NULL), PM_ERR_ARG);
    assert_int_equal(pm_torus_build(PM_TORUS_UTORUS, NULL, 2, coords, 0, 0, &t, NULL), PM_ERR_ARG);
    /* n = 1 */
    assert_int_equal(pm_torus_build(PM_TORUS_MDTORUS, &sh, 1, coords, 0, 0, &t, NULL), PM_OK);
    assert_int_equal(t->depth, 0);
    pm_tree_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spanning_random), cmocka_unit_test(test_formulas),
        cmocka_unit_test(test_mutorus_chain_mdtorus_phases), cmocka_unit_test(test_registry),
        cmocka_unit_test(test_model_chooser), cmocka_unit_test(test_bad_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
