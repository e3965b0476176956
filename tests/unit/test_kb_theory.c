/*
 * k-binomial theory through the C API: N(s,k), L1, T(n,m,k), optimal k and
 * its trends (seed 001 fig. 12), the (k, segment) choice against brute force,
 * and parameter validation.
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

/* The formula exactly as the header states it. */
static double formula(int L, int k, size_t M, size_t S, double a, double b)
{
    size_t m = M / S + (M % S != 0);
    if (m == 0) {
        m = 1;
    }
    const double steps = (double)L + (double)(m - 1) * (double)k;
    return steps * (a + b * (double)S / 1000.0);
}

/* Brute force over every (k, S): ties -> smaller k, then larger S. */
static void brute(int n, size_t M, double a, double b, size_t lo, size_t hi_seg, int *bk,
                  size_t *bS)
{
    const size_t hi = hi_seg < (M > lo ? M : lo) ? hi_seg : (M > lo ? M : lo);
    const int kmax = n > 1 ? kb_ceil_log2(n) : 1;
    double best = 0;
    int found = 0;
    for (int k = 1; k <= kmax; ++k) {
        const int L = kb_L1(n, k);
        for (size_t S = lo; S <= hi; ++S) {
            const double c = formula(L, k, M, S, a, b);
            if (!found || c < best || (c == best && k == *bk && S > *bS)) {
                found = 1;
                best = c;
                *bk = k;
                *bS = S;
            }
        }
    }
}

static void test_choose_segment_bruteforce(void **state)
{
    (void)state;
    static const int ns[] = {1, 2, 5, 16, 33};
    static const size_t Ms[] = {1, 7, 100, 1000, 3001};
    static const double models[][2] = {{0, 0}, {0, 1}, {5, 0}, {5, 0.5}, {2.5, 3}, {40, 0.25}};
    static const size_t segs[][2] = {{1, 100000}, {64, 512}, {10, 10}, {2000, 5000}, {3, 97}};
    long cases = 0;
    for (size_t in = 0; in < 5; ++in) {
        for (size_t iM = 0; iM < 5; ++iM) {
            for (size_t im = 0; im < 6; ++im) {
                for (size_t is = 0; is < 5; ++is) {
                    const kb_linear_model_t mod = {models[im][0], models[im][1]};
                    int k = 0, bk = 0;
                    size_t S = 0, bS = 0;
                    assert_int_equal(kb_choose_k_segment(ns[in], Ms[iM], &mod, segs[is][0],
                                                         segs[is][1], &k, &S),
                                     KB_OK);
                    brute(ns[in], Ms[iM], mod.alpha_us, mod.beta_ns_per_byte, segs[is][0],
                          segs[is][1], &bk, &bS);
                    assert_int_equal(k, bk);
                    assert_int_equal(S, bS);
                    assert_true(kb_predict_us(ns[in], Ms[iM], k, S, &mod) ==
                                formula(kb_L1(ns[in], k), k, Ms[iM], S, mod.alpha_us,
                                        mod.beta_ns_per_byte));
                    ++cases;
                }
            }
        }
    }
    /* A large message: 10^9 bytes, S in [1 KiB, 1 MiB], compared with a full scan. */
    const kb_linear_model_t mod = {10, 0.5};
    int k = 0, bk = 0;
    size_t S = 0, bS = 0;
    assert_int_equal(kb_choose_k_segment(64, 1000000000u, &mod, 1024, 1u << 20, &k, &S), KB_OK);
    brute(64, 1000000000u, 10, 0.5, 1024, 1u << 20, &bk, &bS);
    assert_int_equal(k, bk);
    assert_int_equal(S, bS);
    /* Huge M stays fast (the search walks only a few segment counts). */
    assert_int_equal(kb_choose_k_segment(1024, (size_t)1 << 50, &mod, 1, (size_t)1 << 40, &k, &S),
                     KB_OK);
    assert_in_range(k, 1, 10);
    assert_true(S >= 1);
    printf("[ kb ] choose_k_segment: %ld grid cases + 1e9-byte case equal brute force "
           "(k=%d S=%zu)\n", cases, bk, bS);
}

static void test_choose_segment_edges(void **state)
{
    (void)state;
    const kb_linear_model_t mod = {5, 1};
    int k = 0;
    size_t S = 0;
    /* M == 0: S = min_seg, k optimal for one packet. */
    assert_int_equal(kb_choose_k_segment(100, 0, &mod, 512, 4096, &k, &S), KB_OK);
    assert_int_equal(S, 512);
    assert_int_equal(k, kb_optimal_k(100, 1));
    /* M < min_seg: the only S is min_seg. */
    assert_int_equal(kb_choose_k_segment(100, 10, &mod, 512, 4096, &k, &S), KB_OK);
    assert_int_equal(S, 512);
    assert_int_equal(k, kb_optimal_k(100, 1));
    /* Zero cost everywhere: smaller k, larger S. */
    const kb_linear_model_t zero = {0, 0};
    assert_int_equal(kb_choose_k_segment(100, 1 << 20, &zero, 1, 1 << 16, &k, &S), KB_OK);
    assert_int_equal(k, 1);
    assert_int_equal(S, 1 << 16);
    /* Latency only: one segment (m = 1), binomial-latency k. */
    const kb_linear_model_t lat = {3, 0};
    assert_int_equal(kb_choose_k_segment(100, 1 << 20, &lat, 1, 1 << 30, &k, &S), KB_OK);
    assert_int_equal(S, 1 << 20); /* S <= M */
    assert_int_equal(k, kb_optimal_k(100, 1));
    /* predict: M == 0 is one empty segment. */
    assert_true(kb_predict_us(16, 0, 4, 100, &mod) == 4 * (5 + 0.1));
    assert_true(kb_predict_us(16, 1000, 2, 100, &mod) == (5 + 9 * 2) * (5 + 0.1));
}

static void test_theory_validation(void **state)
{
    (void)state;
    const kb_linear_model_t mod = {5, 1};
    const kb_linear_model_t neg = {-1, 1};
    const kb_linear_model_t nan_b = {1, NAN};
    int k = 0;
    size_t S = 0;
    assert_int_equal(kb_L1(0, 2), -1);
    assert_int_equal(kb_L1(5, 0), -1);
    assert_int_equal(kb_L1(-3, -3), -1);
    assert_int_equal(kb_ceil_log2(0), -1);
    assert_int_equal(kb_steps(0, 1, 1), -1);
    assert_int_equal(kb_steps(4, 0, 1), -1);
    assert_int_equal(kb_steps(4, 1, 0), -1);
    assert_int_equal(kb_optimal_k(0, 1), -1);
    assert_int_equal(kb_optimal_k(4, 0), -1);
    assert_int_equal(kb_choose_k_segment(0, 100, &mod, 1, 10, &k, &S), KB_ERR_ARG);
    assert_int_equal(kb_choose_k_segment(4, 100, &mod, 0, 10, &k, &S), KB_ERR_ARG);
    assert_int_equal(kb_choose_k_segment(4, 100, &mod, 11, 10, &k, &S), KB_ERR_ARG);
    assert_int_equal(kb_choose_k_segment(4, 100, &neg, 1, 10, &k, &S), KB_ERR_ARG);
    assert_int_equal(kb_choose_k_segment(4, 100, &nan_b, 1, 10, &k, &S), KB_ERR_ARG);
    assert_int_equal(kb_choose_k_segment(4, 100, NULL, 1, 10, &k, &S), KB_ERR_ARG);
    assert_int_equal(kb_choose_k_segment(4, 100, &mod, 1, 10, NULL, &S), KB_ERR_ARG);
    assert_int_equal(kb_choose_k_segment(4, 100, &mod, 1, 10, &k, NULL), KB_ERR_ARG);
    assert_true(kb_predict_us(0, 100, 1, 10, &mod) == -1);
    assert_true(kb_predict_us(4, 100, 0, 10, &mod) == -1);
    assert_true(kb_predict_us(4, 100, 1, 0, &mod) == -1);
    assert_true(kb_predict_us(4, 100, 1, 10, &neg) == -1);
    assert_true(kb_predict_us(4, 100, 1, 10, NULL) == -1);
}

/* kb_choose_k_segment_ov: overheads decide only whether to segment at all. */
static void test_choose_segment_overhead(void **state)
{
    (void)state;
    /* The SimGrid torus-8x8 case (alpha 1.4 us, beta 0.08 ns/B, o_send + o_recv 1 us):
     * the plain model pipelines 64 KiB in 3 segments with k = 2; with the overheads the
     * unsegmented binomial-depth tree (k = 6) is chosen (1.6x faster in simulation). */
    kb_linear_model_t lm = {1.4, 0.08};
    int k;
    size_t S;
    assert_int_equal(kb_choose_k_segment(64, 65536, &lm, 1024, 1 << 20, &k, &S), KB_OK);
    assert_int_equal(k, 2);
    assert_true(S < 65536);
    assert_int_equal(kb_choose_k_segment_ov(64, 65536, &lm, 1.0, 1024, 1 << 20, &k, &S), KB_OK);
    assert_int_equal(k, 6);
    assert_int_equal(S, 65536);
    /* 4 MiB: segmented either way, so exactly the plain answer */
    int kp;
    size_t Sp;
    assert_int_equal(kb_choose_k_segment(64, 4u << 20, &lm, 1024, 1 << 20, &kp, &Sp), KB_OK);
    assert_int_equal(kb_choose_k_segment_ov(64, 4u << 20, &lm, 1.0, 1024, 1 << 20, &k, &S), KB_OK);
    assert_int_equal(k, kp);
    assert_int_equal(S, Sp);
    /* Sweep: the answer is the plain one, or an unsegmented tree that the model with the
     * overhead in every step prefers; overhead 0 is exactly the plain search. */
    const double ovs[] = {0.0, 0.3, 1.0, 5.0};
    for (int n = 2; n <= 130; n += 4) {
        for (size_t M = 1; M <= (8u << 20); M *= 4) {
            for (size_t o = 0; o < sizeof ovs / sizeof *ovs; o++) {
                assert_int_equal(kb_choose_k_segment(n, M, &lm, 1024, 1 << 20, &kp, &Sp), KB_OK);
                assert_int_equal(kb_choose_k_segment_ov(n, M, &lm, ovs[o], 1024, 1 << 20, &k, &S), KB_OK);
                if (0.0 == ovs[o] || S < M) {
                    assert_int_equal(k, kp);
                    assert_int_equal(S, Sp);
                } else {
                    kb_linear_model_t with = {lm.alpha_us + ovs[o], lm.beta_ns_per_byte};
                    int kw;
                    size_t Sw;
                    assert_int_equal(kb_choose_k_segment(n, M, &with, 1024, 1 << 20, &kw, &Sw), KB_OK);
                    assert_int_equal(k, kw);
                    assert_int_equal(S, Sw);
                    assert_true(Sw >= M);
                }
            }
        }
    }
    assert_int_equal(kb_choose_k_segment_ov(8, 1000, &lm, -1.0, 1024, 1 << 20, &k, &S), KB_ERR_ARG);
    assert_int_equal(kb_choose_k_segment_ov(8, 1000, &lm, NAN, 1024, 1 << 20, &k, &S), KB_ERR_ARG);
    assert_int_equal(kb_choose_k_segment_ov(8, 1000, NULL, 1.0, 1024, 1 << 20, &k, &S), KB_ERR_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_N_tables),
        cmocka_unit_test(test_L1_log2_steps),
        cmocka_unit_test(test_optimal_k_values),
        cmocka_unit_test(test_optimal_k_trends),
        cmocka_unit_test(test_choose_segment_bruteforce),
        cmocka_unit_test(test_choose_segment_edges),
        cmocka_unit_test(test_theory_validation),
        cmocka_unit_test(test_choose_segment_overhead),
    };
    return cmocka_run_group_tests_name("kb_theory", tests, NULL, NULL);
}
