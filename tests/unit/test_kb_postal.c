/*
 * Postal model (seed 003 sec. 4): F_lambda(t) tables, optimal completion time,
 * lambda from the model, the greedy tree against exhaustive search over all
 * trees for n <= 9, and parameter validation.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kbinomial.h"

/* F at t = 0, 0.5, 1, ..., 8, computed by hand from F(t) = F(t-1) + F(t-lambda). */
static const struct {
    double lambda;
    uint64_t F[17];
} tables[] = {
    {1.0, {1, 1, 2, 2, 4, 4, 8, 8, 16, 16, 32, 32, 64, 64, 128, 128, 256}},
    {2.0, {1, 1, 1, 1, 2, 2, 3, 3, 5, 5, 8, 8, 13, 13, 21, 21, 34}},
    {3.0, {1, 1, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 6, 6, 9, 9, 13}},
    {2.5, {1, 1, 1, 1, 1, 2, 2, 3, 3, 4, 5, 6, 8, 9, 12, 14, 18}},
    {1.5, {1, 1, 1, 2, 2, 3, 4, 5, 7, 9, 12, 16, 21, 28, 37, 49, 65}},
};

static void test_F_tables(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; ++i) {
        for (int j = 0; j <= 16; ++j) {
            assert_int_equal(kb_postal_F(tables[i].lambda, 0.5 * j), tables[i].F[j]);
        }
    }
    /* lambda = 1: F(t) = 2^floor(t). */
    for (int t = 0; t < 64; ++t) {
        assert_int_equal(kb_postal_F(1.0, t), (uint64_t)1 << t);
        assert_int_equal(kb_postal_F(1.0, t + 0.999), (uint64_t)1 << t);
    }
    assert_int_equal(kb_postal_F(1.0, 64), UINT64_MAX);
    assert_int_equal(kb_postal_F(1.0, 1e300), UINT64_MAX);
    assert_int_equal(kb_postal_F(1e6, 1e300), UINT64_MAX);
    assert_int_equal(kb_postal_F(2.0, 3.7), 3); /* = F(3) = F(2) + F(1) */
    assert_int_equal(kb_postal_F(1e9, 1e9 + 5), 7); /* 1 + (5 + 1) */
    /* The recurrence holds at event times a + b*lambda for irrational-ish lambda. */
    static const double ls[] = {1.1, 1.7, 2.5, 3.3, 6.02};
    for (size_t i = 0; i < 5; ++i) {
        const double l = ls[i];
        for (int a = 0; a < 30; ++a) {
            for (int b = 0; b < 12; ++b) {
                const double t = a + b * l;
                const uint64_t f = kb_postal_F(l, t);
                if (f == UINT64_MAX || t < l) {
                    continue;
                }
                assert_int_equal(f, kb_postal_F(l, t - 1) + kb_postal_F(l, t - l));
            }
        }
    }
}

static void test_completion_values(void **state)
{
    (void)state;
    assert_true(kb_postal_completion(1, 2.0) == 0);
    assert_true(kb_postal_completion(2, 2.0) == 2.0);
    assert_true(kb_postal_completion(4, 2.0) == 4.0);  /* flat: sends at 0,1,2 */
    assert_true(kb_postal_completion(10, 2.0) == 6.0); /* F_2(5) = 8 < 10 <= F_2(6) = 13 */
    assert_true(kb_postal_completion(10, 2.5) == 7.0); /* F(6.5) = 9, F(7) = 12 */
    assert_true(kb_postal_completion(9, 2.5) == 6.5);
    assert_true(kb_postal_completion(100, 1e6) == 98 + 1e6);
    for (int n = 1; n <= 4096; ++n) {
        assert_true(kb_postal_completion(n, 1.0) == kb_ceil_log2(n));
    }
    /* Completion is the first event time with F >= n. */
    static const double ls[] = {1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.7, 10.0};
    for (size_t i = 0; i < 8; ++i) {
        for (int n = 2; n <= 2000; n += 13) {
            const double c = kb_postal_completion(n, ls[i]);
            assert_true(kb_postal_F(ls[i], c) >= (uint64_t)n);
            assert_true(kb_postal_F(ls[i], c - 1e-6) < (uint64_t)n);
            if (ls[i] >= n - 1) {
                assert_true(c == n - 2 + ls[i]);
            }
        }
    }
    assert_true(kb_postal_completion(2000000000, 1.0) == 31);
}

static void test_lambda_model(void **state)
{
    (void)state;
    /* send = 1 + 1000*0.5/1000 = 1.5 us; latency = 1.5 + 3 + 1 + 2 = 7.5 us. */
    const kb_postal_model_t m = {1.0, 2.0, 3.0, 1.0, 0.5};
    assert_true(fabs(kb_postal_lambda(1000, &m) - 5.0) < 1e-12);
    /* No wire or receive cost: lambda = 1. */
    const kb_postal_model_t fast = {1.0, 0, 0, 0, 0};
    assert_true(kb_postal_lambda(4096, &fast) == 1.0);
    /* Large segments: lambda -> (gap + beta) / gap. */
    const kb_postal_model_t bw = {0.1, 0, 0, 3.0, 1.0};
    assert_true(fabs(kb_postal_lambda((size_t)1 << 30, &bw) - 4.0) < 1e-6);
    const kb_postal_model_t neg = {1.0, -1, 0, 0, 0};
    const kb_postal_model_t nan_ = {1.0, 0, NAN, 0, 0};
    const kb_postal_model_t zero = {0, 5, 5, 5, 0};
    assert_true(kb_postal_lambda(100, NULL) == -1);
    assert_true(kb_postal_lambda(100, &neg) == -1);
    assert_true(kb_postal_lambda(100, &nan_) == -1);
    assert_true(kb_postal_lambda(100, &zero) == -1);
}

/* Optimal completion of the tree given by parent[] (parent[v] < v), children
 * sent in decreasing order of their own completion (optimal for fixed parents). */
static double best_order_completion(int n, const int *parent, double lambda)
{
    double C[16];
    for (int v = n - 1; v >= 0; --v) {
        double kids[16];
        int nk = 0;
        for (int c = v + 1; c < n; ++c) {
            if (parent[c] == v) {
                kids[nk++] = C[c];
            }
        }
        for (int i = 1; i < nk; ++i) { /* insertion sort, descending */
            for (int j = i; j > 0 && kids[j] > kids[j - 1]; --j) {
                const double x = kids[j];
                kids[j] = kids[j - 1];
                kids[j - 1] = x;
            }
        }
        C[v] = 0;
        for (int i = 0; i < nk; ++i) {
            const double f = i + lambda + kids[i];
            C[v] = f > C[v] ? f : C[v];
        }
    }
    return C[0];
}

/* Every rooted tree shape on n nodes appears among parent arrays with
 * parent[v] in [0, v-1] (label in BFS order), so this is an exhaustive search. */
static void test_greedy_is_optimal(void **state)
{
    (void)state;
    static const double ls[] = {1.0, 1.5, 2.0, 2.5, 3.0, 4.2};
    long trees = 0;
    for (int n = 2; n <= 9; ++n) {
        for (size_t il = 0; il < sizeof ls / sizeof ls[0]; ++il) {
            const double l = ls[il];
            int parent[16] = {-1};
            for (int v = 1; v < n; ++v) {
                parent[v] = 0;
            }
            double best = -1;
            for (;;) {
                const double c = best_order_completion(n, parent, l);
                best = (best < 0 || c < best) ? c : best;
                ++trees;
                int v = n - 1; /* odometer over parent[v] in [0, v-1] */
                while (v >= 1 && ++parent[v] >= v) {
                    parent[v--] = 0;
                }
                if (v < 1) {
                    break;
                }
            }
            const kb_tree_params_t p = {1, l};
            kb_tree_t *t = NULL;
            assert_int_equal(kb_tree_build(KB_SHAPE_POSTAL, n, 0, NULL, &p, &t), KB_OK);
            const double greedy = kb_sim_postal(t, l);
            kb_tree_free(t);
            assert_true(fabs(greedy - best) < 1e-9);
            assert_true(fabs(kb_postal_completion(n, l) - best) < 1e-9);
        }
    }
    printf("[ kb ] postal greedy optimal: %ld (tree, lambda) pairs searched, n <= 9\n", trees);
}

/* kb_sim_postal on fixed shapes. */
static void test_sim_postal_shapes(void **state)
{
    (void)state;
    kb_tree_t *t = NULL;
    assert_int_equal(kb_tree_build(KB_SHAPE_CHAIN, 4, 2, NULL, NULL, &t), KB_OK);
    assert_true(kb_sim_postal(t, 2.0) == 6.0);
    kb_tree_free(t);
    assert_int_equal(kb_tree_build(KB_SHAPE_LINEAR, 4, 1, NULL, NULL, &t), KB_OK);
    assert_true(kb_sim_postal(t, 2.0) == 4.0);
    assert_true(kb_sim_postal(t, 0.5) == -1);
    assert_true(kb_sim_postal(t, NAN) == -1);
    assert_true(kb_sim_postal(NULL, 2.0) == -1);
    kb_tree_free(t);
    /* lambda >= n - 1: the greedy tree is flat. */
    for (int n = 2; n <= 40; ++n) {
        const kb_tree_params_t p = {1, (double)(n - 1)};
        assert_int_equal(kb_tree_build(KB_SHAPE_POSTAL, n, n - 1, NULL, &p, &t), KB_OK);
        assert_int_equal(kb_tree_nchildren(t, n - 1), n - 1);
        assert_int_equal(t->depth, 1);
        kb_tree_free(t);
    }
}

static void test_postal_validation(void **state)
{
    (void)state;
    assert_int_equal(kb_postal_F(0.5, 3), 0);
    assert_int_equal(kb_postal_F(NAN, 3), 0);
    assert_int_equal(kb_postal_F(INFINITY, 3), 0);
    assert_int_equal(kb_postal_F(2.0, NAN), 0);
    assert_int_equal(kb_postal_F(2.0, -0.5), 0);
    assert_true(kb_postal_completion(0, 2.0) == -1);
    assert_true(kb_postal_completion(5, 0.99) == -1);
    assert_true(kb_postal_completion(5, NAN) == -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_F_tables),
        cmocka_unit_test(test_completion_values),
        cmocka_unit_test(test_lambda_model),
        cmocka_unit_test(test_greedy_is_optimal),
        cmocka_unit_test(test_sim_postal_shapes),
        cmocka_unit_test(test_postal_validation),
    };
    return cmocka_run_group_tests_name("kb_postal", tests, NULL, NULL);
}
