/*
 * Contention checker of the pathmc core, driven by k-binomial trees of the
 * kbinomial core (kb_tree_build, KB_SHAPE_KBINOMIAL) under FPFS single-packet
 * timing (pm_plan_from_tree: a node's j-th send is in step recv + j).
 *
 *  - On the dimension-ordered chain of 4x4, 8x8, 4x8 and 4x4x4 tori, 8x8
 *    meshes and a unidirectional 4x4 torus the trees are contention-free at
 *    every step, for every k and every root.  On bidirectional rings the chain
 *    runs against the routing's tie direction (pm_order.cpp says why).
 *  - Larger tori (8x8x8, 10x10, 16x16, 6x6x6): a strictly shorter wrap-around
 *    route can cross a neighbouring interval; the counts are printed.
 *  - Seeded random irregular networks under up*-down*: the POC ordering has
 *    fewer conflicts than a random ordering (numbers printed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kbinomial.h"
#include "pathmc.h"

static pm_topology_t *parse(const char *text)
{
    pm_topology_t *t;
    char err[256];
    if (pm_topology_parse_string(text, PM_FMT_AUTO, "t", &t, err, sizeof err) != PM_OK) fail_msg("%s", err);
    return t;
}

/* Conflicts (total and worst step) of a k-binomial tree over `ord`. */
static long tree_conflicts(const pm_topology_t *t, int n, const char **h, int root, const int *ord, int k,
                           long *worst_step)
{
    kb_tree_params_t p = {k, 1.0};
    kb_tree_t *tree;
    pm_msg_t *m;
    int nm, ns;
    char err[256];
    assert_int_equal(kb_tree_build(KB_SHAPE_KBINOMIAL, n, root, ord, &p, &tree), KB_OK);
    assert_int_equal(pm_plan_from_tree(tree, &m, &nm, &ns), PM_OK);
    assert_int_equal(nm, n - 1);
    long *c = calloc(ns, sizeof(long)), total;
    assert_int_equal(pm_check_contention(t, PM_ROUTE_DEFAULT, n, h, nm, m, ns, c, &total, err, sizeof err), PM_OK);
    long w = 0, sum = 0;
    for (int s = 0; s < ns; ++s) {
        sum += c[s];
        if (c[s] > w) w = c[s];
    }
    assert_int_equal(sum, total);
    if (worst_step) *worst_step = w;
    free(c);
    pm_free(m);
    kb_tree_free(tree);
    return total;
}

static int ceil_log2(int n)
{
    int l = 0;
    while ((1 << l) < n) ++l;
    return l;
}

/* Sum over roots of the conflicts of k-binomial trees on the DOR chain. */
static long dor_sweep(const char *spec, int k, int root_stride)
{
    pm_topology_t *t = parse(spec);
    int n = pm_topology_nhosts(t);
    const char **h = malloc(sizeof(char *) * n);
    int *ord = malloc(sizeof(int) * n);
    for (int i = 0; i < n; ++i) h[i] = pm_topology_host_name(t, i);
    long sum = 0;
    for (int root = 0; root < n; root += root_stride) {
        assert_int_equal(pm_order_hosts(t, PM_ORDER_DOR, n, h, root, ord, NULL, 0), PM_OK);
        sum += tree_conflicts(t, n, h, root, ord, k, NULL);
    }
    free(h);
    free(ord);
    pm_topology_free(t);
    return sum;
}

static void test_kbinomial_dor_contention_free(void **state)
{
    (void)state;
    const char *specs[] = {"torus 4x4\n", "torus 8x8\n", "torus 4x4x4\n", "torus 8x8 mesh\n",
                           "torus 4x4 torus unidirectional\n", "torus 4x8\n"};
    for (size_t s = 0; s < sizeof specs / sizeof *specs; ++s) {
        pm_topology_t *t = parse(specs[s]);
        int n = pm_topology_nhosts(t);
        pm_topology_free(t);
        for (int k = 1; k <= ceil_log2(n); ++k) {
            long c = dor_sweep(specs[s], k, 1);
            if (c) fail_msg("%s k=%d: %ld conflicts", specs[s], k, c);
        }
    }
}

/* Larger tori: counts printed (every 5th root), the chain (k = 1) asserted. */
static void test_kbinomial_dor_larger_tori(void **state)
{
    (void)state;
    const char *specs[] = {"torus 8x8x8\n", "torus 10x10\n", "torus 16x16\n", "torus 6x6x6\n"};
    for (size_t s = 0; s < sizeof specs / sizeof *specs; ++s) {
        pm_topology_t *t = parse(specs[s]);
        int n = pm_topology_nhosts(t), kmax = ceil_log2(n);
        pm_topology_free(t);
        printf("# bidirectional %.*s, DOR chain, conflicts summed over every 5th root:",
               (int)strlen(specs[s]) - 1, specs[s]);
        for (int k = 1; k <= kmax; ++k) {
            long c = dor_sweep(specs[s], k, 5);
            printf(" k=%d:%ld", k, c);
            if (k == 1) assert_int_equal(c, 0);
        }
        printf("\n");
    }
}

/* A hand-made plan: 0->2 and 1->3 on a 1x8 ring share link 1->2. */
static void test_checker_counts(void **state)
{
    (void)state;
    pm_topology_t *t = parse("torus 8 mesh\n");
    const char *h[4] = {"n0", "n1", "n2", "n3"};
    pm_msg_t m[4] = {{1, 0, 2}, {1, 1, 3}, {0, 0, 1}, {2, 2, 3}};
    long c[3], total;
    assert_int_equal(pm_check_contention(t, PM_ROUTE_DEFAULT, 4, h, 4, m, 3, c, &total, NULL, 0), PM_OK);
    assert_int_equal(c[0], 0);
    assert_int_equal(c[1], 1);
    assert_int_equal(c[2], 0);
    assert_int_equal(total, 1);
    /* 0->3, 1->3, 2->3 in one step: r1->r2 carries 2 (1 pair), r2->r3 and the
     * ejection link r3->n3 carry 3 each (3 pairs each): 7 */
    pm_msg_t m3[3] = {{0, 0, 3}, {0, 1, 3}, {0, 2, 3}};
    assert_int_equal(pm_check_contention(t, PM_ROUTE_DEFAULT, 4, h, 3, m3, 1, c, &total, NULL, 0), PM_OK);
    assert_int_equal(total, 1 + 3 + 3);
    pm_topology_free(t);
}

static void test_checker_errors(void **state)
{
    (void)state;
    pm_topology_t *t = parse("torus 4 mesh\n");
    const char *h[2] = {"n0", "n1"}, *bad[2] = {"n0", "x"};
    pm_msg_t m[1] = {{5, 0, 1}};
    long c[2], total;
    char err[128];
    assert_int_equal(pm_check_contention(t, PM_ROUTE_DEFAULT, 2, h, 1, m, 2, c, &total, err, sizeof err), PM_ERR_ARG);
    m[0].step = 0;
    m[0].dst = 2;
    assert_int_equal(pm_check_contention(t, PM_ROUTE_DEFAULT, 2, h, 1, m, 2, c, &total, err, sizeof err), PM_ERR_ARG);
    m[0].dst = 1;
    assert_int_equal(pm_check_contention(t, PM_ROUTE_DEFAULT, 2, bad, 1, m, 2, c, &total, err, sizeof err),
                     PM_ERR_NOTFOUND);
    assert_int_equal(pm_check_contention(t, PM_ROUTE_FATTREE, 2, h, 1, m, 2, c, &total, err, sizeof err),
                     PM_ERR_UNSUPPORTED);
    assert_int_equal(pm_check_contention(t, PM_ROUTE_DEFAULT, 2, h, 1, m, 0, c, &total, err, sizeof err), PM_ERR_ARG);
    pm_topology_free(t);
}

static uint64_t rng_state = 12345;
static int rnd(int n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int)((rng_state >> 33) % (uint64_t)n);
}

static void test_poc_vs_random(void **state)
{
    (void)state;
    long poc_all = 0, rnd_all = 0;
    for (uint64_t seed = 1; seed <= 5; ++seed) {
        char *text;
        assert_int_equal(pm_generate_irregular(16, 8, 64, 80, seed, &text), PM_OK);
        pm_topology_t *t = parse(text);
        pm_free(text);
        int n = pm_topology_nhosts(t);
        const char **h = malloc(sizeof(char *) * n);
        int *ord = malloc(sizeof(int) * n);
        for (int i = 0; i < n; ++i) h[i] = pm_topology_host_name(t, i);
        long poc = 0, ran = 0;
        for (int root = 0; root < n; root += 4)
            for (int k = 1; k <= ceil_log2(n); ++k) {
                assert_int_equal(pm_order_hosts(t, PM_ORDER_POC, n, h, root, ord, NULL, 0), PM_OK);
                poc += tree_conflicts(t, n, h, root, ord, k, NULL);
                for (int i = 0; i < n; ++i) ord[i] = i;
                for (int i = n - 1; i > 0; --i) {
                    int j = rnd(i + 1), x = ord[i];
                    ord[i] = ord[j];
                    ord[j] = x;
                }
                ran += tree_conflicts(t, n, h, root, ord, k, NULL);
            }
        printf("# irregular 16 switches x 8 ports, 64 hosts, 80%%, seed %d: POC %ld vs random %ld conflicts\n",
               (int)seed, poc, ran);
        poc_all += poc;
        rnd_all += ran;
        free(h);
        free(ord);
        pm_topology_free(t);
    }
    assert_true(poc_all < rnd_all);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checker_counts),
        cmocka_unit_test(test_checker_errors),
        cmocka_unit_test(test_kbinomial_dor_contention_free),
        cmocka_unit_test(test_kbinomial_dor_larger_tori),
        cmocka_unit_test(test_poc_vs_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
