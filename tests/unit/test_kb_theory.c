/*
 * k-binomial theory through the C API: N(s,k), L1, T(n,m,k), optimal k and
 * its trends (seed 001 fig. 12), and parameter validation.  (The planner's own
 * (k, segment) choice is tested in test_mc_planner.c against every plan it can build.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "kbinomial.h"

static void test_N_tables(void **state)
{
    (void)state;
    /* Lemma 4 by hand: 2^s up to s = k, then 1 + the k previous values. */
    static const uint64_t N1[] = {1, 2, 3, 4, 5, 6};
    static const uint64_t N2[] = {1, 2, 4, 7, 12, 20, 33, 54};
    static const uint64_t N3[] = {1, 2, 4, 8, 15, 28, 52, 96};
    static const uint64_t N4[] = {1, 2, 4, 8, 16, 31, 60, 116};
    for (int s = 0; s < 6; ++s) {
        assert_int_equal(kb_N(s, 1), N1[s]);
    }
    for (int s = 0; s < 8; ++s) {
        assert_int_equal(kb_N(s, 2), N2[s]);
        assert_int_equal(kb_N(s, 3), N3[s]);
        assert_int_equal(kb_N(s, 4), N4[s]);
        assert_int_equal(kb_N(s, 0), 1);
    }
    assert_int_equal(kb_N(0, 0), 1);
    assert_int_equal(kb_N(-1, 2), 0);
    assert_int_equal(kb_N(3, -1), 0);
    assert_int_equal(kb_N(63, 63), (uint64_t)1 << 63);
    assert_int_equal(kb_N(64, 64), UINT64_MAX);
    assert_int_equal(kb_N(200, 2), UINT64_MAX);
    assert_int_equal(kb_N(INT_MAX, 2), UINT64_MAX);
    assert_int_equal(kb_N(INT_MAX, INT_MAX), UINT64_MAX);
    assert_int_equal(kb_N(INT_MAX, 1), (uint64_t)INT_MAX + 1);
    /* Recurrence holds everywhere it does not saturate. */
    for (int k = 1; k <= 12; ++k) {
        for (int s = k + 1; s < 60; ++s) {
            uint64_t sum = 1;
            for (int i = 1; i <= k; ++i) {
                sum += kb_N(s - i, k);
            }
            if (kb_N(s, k) == UINT64_MAX) {
                break;
            }
            assert_int_equal(kb_N(s, k), sum);
        }
    }
}

static void test_L1_log2_steps(void **state)
{
    (void)state;
    assert_int_equal(kb_L1(1, 1), 0);
    assert_int_equal(kb_L1(1, 7), 0);
    assert_int_equal(kb_L1(2, 1), 1);
    assert_int_equal(kb_L1(16, 1), 15);
    assert_int_equal(kb_L1(16, 2), 5);
    assert_int_equal(kb_L1(16, 3), 5); /* seed fig. 9a: N(4,3) = 15 < 16 <= N(5,3) = 28 */
    assert_int_equal(kb_L1(16, 4), 4); /* seed fig. 9b: N(4,4) = 16 */
    assert_int_equal(kb_L1(10, 2), 4);
    assert_int_equal(kb_L1(257, 9), 9);
    assert_int_equal(kb_L1(1000, 1), 999);
    assert_int_equal(kb_L1(INT_MAX, 1), INT_MAX - 1);
    assert_int_equal(kb_L1(INT_MAX, 31), 31);
    /* L1 is the least s with N(s,k) >= n. */
    for (int n = 1; n <= 300; ++n) {
        for (int k = 1; k <= 10; ++k) {
            const int L = kb_L1(n, k);
            assert_true(kb_N(L, k) >= (uint64_t)n);
            if (L > 0) {
                assert_true(kb_N(L - 1, k) < (uint64_t)n);
            }
        }
    }
    static const int lg[][2] = {{1, 0}, {2, 1}, {3, 2}, {4, 2}, {5, 3}, {16, 4}, {17, 5},
                                {257, 9}, {INT_MAX, 31}};
    for (size_t i = 0; i < sizeof lg / sizeof lg[0]; ++i) {
        assert_int_equal(kb_ceil_log2(lg[i][0]), lg[i][1]);
    }
    assert_int_equal(kb_steps(16, 3, 2), 5 + 2 * 2);
    assert_int_equal(kb_steps(8, 3, 3), 9); /* seed fig. 8: 3 + (3-1)*3 */
    assert_int_equal(kb_steps(4, 3, 1), 5); /* seed fig. 7b */
    assert_int_equal(kb_steps(2, LONG_MAX, 1), LONG_MAX);
}

static void test_optimal_k_values(void **state)
{
    (void)state;
    assert_int_equal(kb_optimal_k(1, 1), 1);
    assert_int_equal(kb_optimal_k(1, 1000), 1);
    assert_int_equal(kb_optimal_k(2, 1), 1);
    /* n = 16: T = 4+3(m-1) (k=4), 5+2(m-1) (k=2), 15+(m-1) (k=1); k=3 never wins. */
    assert_int_equal(kb_optimal_k(16, 1), 4);
    assert_int_equal(kb_optimal_k(16, 2), 2); /* 7 = 7: tie -> smaller k */
    assert_int_equal(kb_optimal_k(16, 10), 2);
    assert_int_equal(kb_optimal_k(16, 11), 1); /* 25 = 25: tie -> smaller k */
    assert_int_equal(kb_optimal_k(16, 1000), 1);
    assert_int_equal(kb_optimal_k(16, LONG_MAX), 1);
    /* The optimum is a true minimum over the whole range. */
    for (int n = 1; n <= 200; n += 7) {
        for (long m = 1; m <= 64; m += 3) {
            const int ko = kb_optimal_k(n, m);
            const int kmax = n > 1 ? kb_ceil_log2(n) : 1;
            assert_in_range(ko, 1, kmax);
            for (int k = 1; k <= kmax; ++k) {
                assert_true(kb_steps(n, m, ko) < kb_steps(n, m, k) ||
                            (kb_steps(n, m, ko) == kb_steps(n, m, k) && ko <= k));
            }
        }
    }
}

/* Seed fig. 12 trends. */
static void test_optimal_k_trends(void **state)
{
    (void)state;
    long cases = 0;
    for (int n = 2; n <= 300; ++n) {
        const int k1 = kb_optimal_k(n, 1);
        assert_int_equal(kb_steps(n, 1, k1), kb_ceil_log2(n));
        int prev = k1;
        for (long m = 2; m <= 2 * n; ++m) {
            const int k = kb_optimal_k(n, m);
            assert_true(k <= prev);
            prev = k;
            ++cases;
        }
        assert_int_equal(kb_optimal_k(n, n), 1); /* m >= n: the chain wins */
    }
    int first_linear = 0;
    for (long m = 1; m < 32 && first_linear == 0; ++m) {
        if (kb_optimal_k(16, m) == 1) {
            first_linear = (int)m;
        }
    }
    assert_int_equal(first_linear, 11);
    printf("[ kb ] optimal-k trends: %ld (n, m) pairs monotone; n=16 linear from m=%d\n", cases,
           first_linear);
}

static void test_theory_validation(void **state)
{
    (void)state;
    assert_int_equal(kb_L1(0, 2), -1);
    assert_int_equal(kb_L1(5, 0), -1);
    assert_int_equal(kb_L1(-3, -3), -1);
    assert_int_equal(kb_ceil_log2(0), -1);
    assert_int_equal(kb_steps(0, 1, 1), -1);
    assert_int_equal(kb_steps(4, 0, 1), -1);
    assert_int_equal(kb_steps(4, 1, 0), -1);
    assert_int_equal(kb_optimal_k(0, 1), -1);
    assert_int_equal(kb_optimal_k(4, 0), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_N_tables),
        cmocka_unit_test(test_L1_log2_steps),
        cmocka_unit_test(test_optimal_k_values),
        cmocka_unit_test(test_optimal_k_trends),
        cmocka_unit_test(test_theory_validation),
    };
    return cmocka_run_group_tests_name("kb_theory", tests, NULL, NULL);
}
