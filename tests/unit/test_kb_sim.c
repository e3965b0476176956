/*
 * Unit-step FPFS/FCFS simulator: the seed's worked examples (seed 001 fig. 7
 * and 8), the pipelined model L1 + (m-1) delta_root (Theorem 2), FCFS never
 * faster than FPFS, and parameter validation.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>

#include "kbinomial.h"

static long steps_of(kb_shape_t shape, int n, int k, long m, kb_discipline_t d)
{
    const kb_tree_params_t p = {k, 2.0};
    kb_tree_t *t = NULL;
    assert_int_equal(kb_tree_build(shape, n, 0, NULL, &p, &t), KB_OK);
    const long s = kb_sim_steps(t, m, d);
    kb_tree_free(t);
    return s;
}

static void test_seed_examples(void **state)
{
    (void)state;
    /* Fig. 7: 3 packets to 3 destinations: binomial 6 steps, the "linear tree"
     * 0 -> 1 -> 2 -> 3 (our CHAIN) 5 steps. */
    assert_int_equal(steps_of(KB_SHAPE_BINOMIAL, 4, 0, 3, KB_DISC_FPFS), 6);
    assert_int_equal(steps_of(KB_SHAPE_CHAIN, 4, 0, 3, KB_DISC_FPFS), 5);
    /* Fig. 8: 3 packets to 7 destinations on the binomial tree: 3 + 2*3 = 9. */
    assert_int_equal(steps_of(KB_SHAPE_BINOMIAL, 8, 0, 3, KB_DISC_FPFS), 9);
    /* The flat tree (our LINEAR, separate addressing) sends 3*3 copies. */
    assert_int_equal(steps_of(KB_SHAPE_LINEAR, 4, 0, 3, KB_DISC_FPFS), 9);
    /* FCFS on the 4-node binomial: 0 -> 2 gets p1..p3 in steps 1..3, 2 forwards
     * them to 3 in steps 2..4, then 0 -> 1 in steps 4..6. */
    assert_int_equal(steps_of(KB_SHAPE_BINOMIAL, 4, 0, 3, KB_DISC_FCFS), 6);
    /* One packet: L1 steps; chain with FCFS = FPFS. */
    assert_int_equal(steps_of(KB_SHAPE_KBINOMIAL, 16, 3, 1, KB_DISC_FPFS), 5);
    assert_int_equal(steps_of(KB_SHAPE_CHAIN, 10, 0, 7, KB_DISC_FCFS), 9 + 6);
}

/* Theorem 2 on k-binomial trees: with the root having the largest fan-out the
 * m-packet FPFS broadcast takes exactly L1 + (m-1) delta_root steps; always at
 * most L1 + (m-1) k; FCFS never beats FPFS. */
static void test_fpfs_pipeline_model(void **state)
{
    (void)state;
    long exact = 0, bounded = 0;
    for (int n = 1; n <= 128; ++n) {
        const int kmax = n > 1 ? kb_ceil_log2(n) : 1;
        for (int k = 1; k <= kmax; ++k) {
            const kb_tree_params_t p = {k, 1.0};
            kb_tree_t *t = NULL;
            assert_int_equal(kb_tree_build(KB_SHAPE_KBINOMIAL, n, n / 2, NULL, &p, &t), KB_OK);
            const int L = kb_L1(n, k);
            const int droot = kb_tree_nchildren(t, t->root);
            int dmax = 0;
            for (int v = 0; v < n; ++v) {
                const int d = kb_tree_nchildren(t, v);
                dmax = d > dmax ? d : dmax;
            }
            for (long m = 1; m <= 16; ++m) {
                const long fp = kb_sim_steps(t, m, KB_DISC_FPFS);
                const long fc = kb_sim_steps(t, m, KB_DISC_FCFS);
                if (droot == dmax) {
                    assert_int_equal(fp, L + (m - 1) * droot);
                    ++exact;
                }
                assert_true(fp <= L + (m - 1) * k);
                assert_true(fp <= kb_steps(n, m, k));
                assert_true(fc >= fp);
                ++bounded;
            }
            kb_tree_free(t);
        }
    }
    printf("[ kb ] FPFS pipeline: %ld cases == L1 + (m-1) delta_root, %ld cases <= L1 + (m-1) k, "
           "FCFS >= FPFS\n", exact, bounded);
}

/* The same law on other shapes (single-packet time taken from the simulator). */
static void test_pipeline_other_shapes(void **state)
{
    (void)state;
    static const kb_shape_t shapes[] = {KB_SHAPE_LINEAR, KB_SHAPE_CHAIN, KB_SHAPE_BINOMIAL,
                                        KB_SHAPE_POSTAL};
    static const double lambdas[] = {1.0, 2.0, 3.5};
    for (int n = 2; n <= 64; ++n) {
        for (size_t s = 0; s < 4; ++s) {
            for (size_t il = 0; il < 3; ++il) {
                const kb_tree_params_t p = {1, lambdas[il]};
                kb_tree_t *t = NULL;
                assert_int_equal(kb_tree_build(shapes[s], n, 0, NULL, &p, &t), KB_OK);
                int dmax = 0;
                for (int v = 0; v < n; ++v) {
                    const int d = kb_tree_nchildren(t, v);
                    dmax = d > dmax ? d : dmax;
                }
                const long one = kb_sim_steps(t, 1, KB_DISC_FPFS);
                for (long m = 1; m <= 8; ++m) {
                    const long fp = kb_sim_steps(t, m, KB_DISC_FPFS);
                    if (kb_tree_nchildren(t, 0) == dmax) {
                        assert_int_equal(fp, one + (m - 1) * dmax);
                    }
                    assert_true(kb_sim_steps(t, m, KB_DISC_FCFS) >= fp);
                }
                kb_tree_free(t);
            }
        }
    }
}

/* The optimal k-binomial tree of Theorem 3 is what the simulator finds best. */
static void test_optimal_k_simulated(void **state)
{
    (void)state;
    for (int n = 2; n <= 64; n += 3) {
        for (long m = 1; m <= 24; m += 5) {
            const int ko = kb_optimal_k(n, m);
            long best = -1;
            for (int k = 1; k <= kb_ceil_log2(n); ++k) {
                const long s = steps_of(KB_SHAPE_KBINOMIAL, n, k, m, KB_DISC_FPFS);
                best = (best < 0 || s < best) ? s : best;
            }
            assert_int_equal(steps_of(KB_SHAPE_KBINOMIAL, n, ko, m, KB_DISC_FPFS), best);
            assert_int_equal(best, kb_steps(n, m, ko));
        }
    }
}

static void test_sim_validation(void **state)
{
    (void)state;
    kb_tree_t *t = NULL;
    assert_int_equal(kb_tree_build(KB_SHAPE_BINOMIAL, 8, 0, NULL, NULL, &t), KB_OK);
    assert_int_equal(kb_sim_steps(NULL, 1, KB_DISC_FPFS), -1);
    assert_int_equal(kb_sim_steps(t, 0, KB_DISC_FPFS), -1);
    assert_int_equal(kb_sim_steps(t, -3, KB_DISC_FCFS), -1);
    assert_int_equal(kb_sim_steps(t, 1, (kb_discipline_t)7), -1);
    assert_int_equal(kb_sim_steps(t, (long)(KB_SIM_MAX_CELLS / 8) + 1, KB_DISC_FPFS), -1);
    assert_int_equal(kb_sim_steps(t, 1000, KB_DISC_FPFS), 3 + 999 * 3);
    t->parent[1] = 5; /* corrupt: simulators refuse */
    assert_int_equal(kb_sim_steps(t, 1, KB_DISC_FPFS), -1);
    assert_true(kb_sim_postal(t, 1.0) == -1);
    kb_tree_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_examples),
        cmocka_unit_test(test_fpfs_pipeline_model),
        cmocka_unit_test(test_pipeline_other_shapes),
        cmocka_unit_test(test_optimal_k_simulated),
        cmocka_unit_test(test_sim_validation),
    };
    return cmocka_run_group_tests_name("kb_sim", tests, NULL, NULL);
}
