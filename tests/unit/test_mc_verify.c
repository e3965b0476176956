/*
 * Verification on live calls (mcast_planner.h): the calls alternate chosen / other from
 * the chosen one, 1 + `trials` each (the first pair, warming up, not counted); the agreement is asked for after the last trial call and
 * not before; the local figure is each candidate's median (a stalled call does not move
 * it); the other candidate wins only when faster than the chosen one by more than the
 * margin; the verdict then runs every call; re-checks come after `recheck` calls and the
 * interval doubles; trials are clamped and 0 is off; only the model's choices apply.
 * Nonblocking calls (pick_at / record_at): a call's index names its candidate; trials
 * recorded in any order, each index once, the agreement asked for by the last one to
 * complete; calls after the trials wait (-1) until the verdict, then run it.  With a
 * runner-up the three candidates take turns (chosen, other, runner-up), and the fastest
 * of those beating the chosen one by more than the margin wins.  Above the eager size
 * (mcast_verify_order) each candidate's calls run in a row instead, chosen first, the
 * first of each not counted; mcast_verify_counts(_at) says which calls count.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mcast_planner.h"

/* Runs one round of trials with the given per-call times (chosen, other), returns the
 * number of calls made before the agreement was asked for. */
static int run_trials(mcast_verify_t *v, const double *chosen, const double *other)
{
    int n = 0;
    for (int i = 0;; i++) {
        const int cand = mcast_verify_pick(v);
        assert_int_equal(cand, i % 2 == 0 ? MCAST_VERIFY_CHOSEN : MCAST_VERIFY_OTHER);
        /* the first pair warms up: a huge time there must not count */
        const double t = i < 2 ? 1.0 : cand == MCAST_VERIFY_CHOSEN ? chosen[i / 2 - 1]
                                                                   : other[i / 2 - 1];
        n++;
        if (mcast_verify_record(v, cand, t)) {
            return n;
        }
        assert_true(n < 2 * MCAST_VERIFY_MAX_TRIALS + 4);
    }
}

static void test_alternates_and_asks_once(void **state)
{
    (void) state;
    mcast_verify_t v;
    mcast_verify_init(&v, 3, 0.05, 0);
    const double c[3] = {3e-6, 1e-6, 2e-6}, o[3] = {9e-6, 7e-6, 8e-6};
    assert_int_equal(run_trials(&v, c, o), 8);
    double local[2];
    mcast_verify_local(&v, local);
    assert_true(local[0] == 2e-6); /* medians */
    assert_true(local[1] == 8e-6);
    assert_int_equal(mcast_verify_conclude(&v, local), MCAST_VERIFY_CHOSEN);
    for (int i = 0; i < 100; i++) {
        assert_int_equal(mcast_verify_pick(&v), MCAST_VERIFY_CHOSEN);
        assert_int_equal(mcast_verify_record(&v, MCAST_VERIFY_CHOSEN, 1e-6), 0);
    }
    assert_int_equal(v.rounds, 1);
}

static void test_other_wins_beyond_margin_only(void **state)
{
    (void) state;
    mcast_verify_t v;
    mcast_verify_init(&v, 2, 0.10, 0);
    /* 8 % faster: inside the margin, the chosen one stays */
    double agreed[2] = {100e-6, 92e-6};
    assert_int_equal(mcast_verify_conclude(&v, agreed), MCAST_VERIFY_CHOSEN);
    /* 11 % faster: the other one runs from now on */
    mcast_verify_init(&v, 2, 0.10, 0);
    agreed[1] = 89e-6;
    assert_int_equal(mcast_verify_conclude(&v, agreed), MCAST_VERIFY_OTHER);
    for (int i = 0; i < 10; i++) {
        assert_int_equal(mcast_verify_pick(&v), MCAST_VERIFY_OTHER);
        mcast_verify_record(&v, MCAST_VERIFY_OTHER, 1e-6);
    }
    /* unmeasured figures keep the chosen one */
    mcast_verify_init(&v, 2, 0.10, 0);
    agreed[0] = -1.0;
    assert_int_equal(mcast_verify_conclude(&v, agreed), MCAST_VERIFY_CHOSEN);
    assert_int_equal(mcast_verify_conclude(&v, NULL), MCAST_VERIFY_CHOSEN);
}

static void test_median_ignores_one_stall(void **state)
{
    (void) state;
    mcast_verify_t v;
    mcast_verify_init(&v, 5, 0.0, 0);
    /* the chosen candidate stalls once (a scheduler turn): its median is 10 us */
    const double c[5] = {10e-6, 5000e-6, 10e-6, 11e-6, 9e-6};
    const double o[5] = {12e-6, 12e-6, 12e-6, 12e-6, 12e-6};
    assert_int_equal(run_trials(&v, c, o), 12);
    double local[2];
    mcast_verify_local(&v, local);
    assert_true(local[0] == 10e-6);
    assert_int_equal(mcast_verify_conclude(&v, local), MCAST_VERIFY_CHOSEN);
    /* a failed call counts as slowest, and an even count takes the middle two */
    mcast_verify_init(&v, 2, 0.0, 0);
    const double c2[2] = {-1.0, -1.0}, o2[2] = {4e-6, 6e-6};
    assert_int_equal(run_trials(&v, c2, o2), 6);
    mcast_verify_local(&v, local);
    assert_true(local[1] > 4.999e-6 && local[1] < 5.001e-6);
    assert_true(local[0] > 1e300);
    assert_int_equal(mcast_verify_conclude(&v, local), MCAST_VERIFY_OTHER);
}

static void test_recheck_doubles(void **state)
{
    (void) state;
    mcast_verify_t v;
    mcast_verify_init(&v, 1, 0.0, 4);
    const double fast[1] = {1e-6}, slow[1] = {2e-6};
    assert_int_equal(run_trials(&v, slow, fast), 4);
    double local[2];
    mcast_verify_local(&v, local);
    assert_int_equal(mcast_verify_conclude(&v, local), MCAST_VERIFY_OTHER);
    /* 4 settled calls, then trials again (chosen first) */
    for (int i = 0; i < 4; i++) {
        assert_int_equal(mcast_verify_pick(&v), MCAST_VERIFY_OTHER);
        assert_int_equal(mcast_verify_record(&v, MCAST_VERIFY_OTHER, 1e-6), 0);
    }
    assert_int_equal(run_trials(&v, fast, slow), 4);
    mcast_verify_local(&v, local);
    assert_int_equal(mcast_verify_conclude(&v, local), MCAST_VERIFY_CHOSEN);
    assert_int_equal(v.rounds, 2);
    /* now 8 calls */
    for (int i = 0; i < 8; i++) {
        assert_int_equal(mcast_verify_pick(&v), MCAST_VERIFY_CHOSEN);
        mcast_verify_record(&v, MCAST_VERIFY_CHOSEN, 1e-6);
    }
    assert_int_equal(mcast_verify_pick(&v), MCAST_VERIFY_CHOSEN);
    assert_int_equal(mcast_verify_record(&v, MCAST_VERIFY_CHOSEN, 1e-6), 0);
    assert_int_equal(mcast_verify_pick(&v), MCAST_VERIFY_OTHER); /* the second trial call */
}

static void test_off_clamps_and_applies(void **state)
{
    (void) state;
    mcast_verify_t v;
    mcast_verify_init(&v, 0, 0.05, 0);
    for (int i = 0; i < 20; i++) {
        assert_int_equal(mcast_verify_pick(&v), MCAST_VERIFY_CHOSEN);
        assert_int_equal(mcast_verify_record(&v, MCAST_VERIFY_CHOSEN, 1e-6), 0);
    }
    mcast_verify_init(&v, 1000, 7.0, 0);
    assert_int_equal(v.trials, MCAST_VERIFY_MAX_TRIALS);
    assert_true(v.margin < 1.0);
    double c[MCAST_VERIFY_MAX_TRIALS], o[MCAST_VERIFY_MAX_TRIALS];
    for (int i = 0; i < MCAST_VERIFY_MAX_TRIALS; i++) {
        c[i] = 1e-6;
        o[i] = 1e-9;
    }
    assert_int_equal(run_trials(&v, c, o), 2 * MCAST_VERIFY_MAX_TRIALS + 2);
    double local[2];
    mcast_verify_local(&v, local);
    /* the margin clamped below 1: 1000x faster still wins */
    assert_int_equal(mcast_verify_conclude(&v, local), MCAST_VERIFY_OTHER);
    mcast_verify_init(&v, 2, -3.0, 0);
    assert_true(v.margin == 0.0);

    assert_true(mcast_verify_applies("model"));
    assert_true(mcast_verify_applies("previous"));
    assert_true(mcast_verify_applies("unmodelled"));
    assert_true(mcast_verify_applies("previous:unmodelled"));
    assert_false(mcast_verify_applies("forced"));
    assert_false(mcast_verify_applies("rules:3"));
    assert_false(mcast_verify_applies("previous:rules:2"));
    assert_false(mcast_verify_applies(NULL));
}

static void test_by_index_any_order(void **state)
{
    (void) state;
    mcast_verify_t v;
    mcast_verify_init(&v, 3, 0.05, 1000);
    /* 8 trial calls: 0, 2, 4, 6 chosen; 1, 3, 5, 7 other */
    for (int64_t i = 0; i < 8; i++) {
        assert_int_equal(mcast_verify_pick_at(&v, i), i % 2 == 0 ? MCAST_VERIFY_CHOSEN : MCAST_VERIFY_OTHER);
    }
    assert_int_equal(mcast_verify_pick_at(&v, 8), -1); /* no verdict yet: wait */
    assert_int_equal(mcast_verify_pick_at(&v, 1000000), -1);
    assert_int_equal(mcast_verify_pick_at(&v, -1), MCAST_VERIFY_CHOSEN);
    /* completions out of order; the warm-up pair (0, 1) with huge times that must not count */
    const int64_t order[8] = {3, 0, 2, 7, 1, 6, 5, 4};
    const double t[8] = {9.0, 9.0, 3e-6, 1e-6, 1e-6, 2e-6, 2e-6, 3e-6}; /* by index */
    for (int k = 0; k < 8; k++) {
        const int last = mcast_verify_record_at(&v, order[k], t[order[k]]);
        assert_int_equal(last, k == 7 ? 1 : 0);
        /* an index already recorded, or beyond the trials, changes nothing */
        assert_int_equal(mcast_verify_record_at(&v, order[k], 100.0), 0);
        assert_int_equal(mcast_verify_record_at(&v, 8, 100.0), 0);
        assert_int_equal(mcast_verify_record_at(&v, -1, 100.0), 0);
    }
    double local[2];
    mcast_verify_local(&v, local);
    assert_true(local[0] == 2e-6); /* chosen: indices 2, 4, 6 -> 3, 1, 2 us */
    assert_true(local[1] == 2e-6); /* other: 3, 5, 7 -> 1, 2, 3 us */
    mcast_verify_least(&v, local);
    assert_true(local[0] == 1e-6 && local[1] == 1e-6); /* the warm-up pair's 9 s not among them */
    /* the agreed (slowest rank's) times: the other faster beyond the margin */
    const double agreed[2] = {4e-6, 2e-6};
    assert_int_equal(mcast_verify_conclude(&v, agreed), MCAST_VERIFY_OTHER);
    assert_int_equal(mcast_verify_pick_at(&v, 8), MCAST_VERIFY_OTHER);
    assert_int_equal(mcast_verify_pick_at(&v, 123456), MCAST_VERIFY_OTHER);
    assert_int_equal(mcast_verify_pick_at(&v, 5), MCAST_VERIFY_OTHER); /* a trial's index names its own */
    assert_int_equal(mcast_verify_record_at(&v, 0, 1.0), 0);           /* settled: nothing */
    /* a failed trial counts as slowest */
    mcast_verify_init(&v, 1, 0.05, 0);
    assert_int_equal(mcast_verify_record_at(&v, 2, -1.0), 0);
    assert_int_equal(mcast_verify_record_at(&v, 1, 1e-6), 0);
    assert_int_equal(mcast_verify_record_at(&v, 0, 1e-6), 0);
    assert_int_equal(mcast_verify_record_at(&v, 3, 5e-6), 1);
    mcast_verify_local(&v, local);
    assert_true(local[0] > 1.0 && local[1] == 5e-6);
    /* off: every call the chosen one, nothing recorded */
    mcast_verify_init(&v, 0, 0.05, 0);
    assert_int_equal(mcast_verify_pick_at(&v, 1), MCAST_VERIFY_CHOSEN);
    assert_int_equal(mcast_verify_pick_at(&v, 99), MCAST_VERIFY_CHOSEN);
    assert_int_equal(mcast_verify_record_at(&v, 1, 1e-6), 0);
}

static void test_runner_up_third_candidate(void **state)
{
    (void) state;
    mcast_verify_t v;
    mcast_verify_init(&v, 2, 0.10, 0);
    assert_int_equal(mcast_verify_add_runner_up(&v), 1);
    assert_int_equal(v.candidates, 3);
    /* turns: chosen, other, runner-up; the first three warm up (huge times, not counted) */
    const double t[3][2] = {{10e-6, 12e-6}, {9.5e-6, 9.5e-6}, {7e-6, 8e-6}};
    int n = 0;
    for (int i = 0;; i++) {
        const int cand = mcast_verify_pick(&v);
        assert_int_equal(cand, i % 3);
        n++;
        if (mcast_verify_record(&v, cand, i < 3 ? 5.0 : t[cand][i / 3 - 1])) {
            break;
        }
        assert_true(n < 3 * 3);
    }
    assert_int_equal(n, 9);
    double local[MCAST_VERIFY_CANDIDATES];
    mcast_verify_local(&v, local);
    assert_true(local[0] > 10.99e-6 && local[0] < 11.01e-6); /* even count: the middle two */
    assert_true(local[1] == 9.5e-6);
    assert_true(local[2] > 7.49e-6 && local[2] < 7.51e-6);
    assert_true(mcast_verify_cost(&v) == 0.0); /* (no conclusion yet) */
    /* other 13.6 % and runner-up 31.8 % faster: the fastest of them runs */
    assert_int_equal(mcast_verify_conclude(&v, local), MCAST_VERIFY_RUNNER_UP);
    assert_true(v.agreed[2] == local[2]);
    /* the cost: 3 calls each of the chosen (11 us) and the other (9.5) against 7.5 */
    const double cost = mcast_verify_cost(&v);
    assert_true(cost > 16.49e-6 && cost < 16.51e-6);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(mcast_verify_pick(&v), MCAST_VERIFY_RUNNER_UP);
        mcast_verify_record(&v, MCAST_VERIFY_RUNNER_UP, 1e-6);
    }
    /* a runner-up within the margin keeps the chosen one; the other beyond it still wins */
    mcast_verify_init(&v, 2, 0.10, 0);
    mcast_verify_add_runner_up(&v);
    double agreed[3] = {10e-6, 11e-6, 9.5e-6};
    assert_int_equal(mcast_verify_conclude(&v, agreed), MCAST_VERIFY_CHOSEN);
    mcast_verify_init(&v, 2, 0.10, 0);
    mcast_verify_add_runner_up(&v);
    agreed[1] = 8e-6;
    assert_int_equal(mcast_verify_conclude(&v, agreed), MCAST_VERIFY_OTHER);
    /* an unmeasured runner-up is never picked, and leaves no cost figure */
    mcast_verify_init(&v, 2, 0.10, 0);
    mcast_verify_add_runner_up(&v);
    agreed[1] = 11e-6;
    agreed[2] = -1.0;
    assert_int_equal(mcast_verify_conclude(&v, agreed), MCAST_VERIFY_CHOSEN);
    assert_true(mcast_verify_cost(&v) == 0.0);
    /* two candidates, the chosen one kept: the other's 1 us more, 3 calls */
    mcast_verify_init(&v, 2, 0.10, 0);
    const double two[2] = {10e-6, 11e-6};
    assert_int_equal(mcast_verify_conclude(&v, two), MCAST_VERIFY_CHOSEN);
    assert_true(mcast_verify_cost(&v) > 2.99e-6 && mcast_verify_cost(&v) < 3.01e-6);
    /* not once the calls have started, nor when off */
    mcast_verify_init(&v, 2, 0.10, 0);
    mcast_verify_record(&v, mcast_verify_pick(&v), 1e-6);
    assert_int_equal(mcast_verify_add_runner_up(&v), 0);
    assert_int_equal(v.candidates, 2);
    mcast_verify_init(&v, 0, 0.10, 0);
    assert_int_equal(mcast_verify_add_runner_up(&v), 0);
    /* nonblocking: a call's index names its candidate among the three */
    mcast_verify_init(&v, 1, 0.0, 0);
    mcast_verify_add_runner_up(&v);
    for (int64_t i = 0; i < 6; i++) {
        assert_int_equal(mcast_verify_pick_at(&v, i), (int) (i % 3));
    }
    assert_int_equal(mcast_verify_pick_at(&v, 6), -1);
    const int64_t order[6] = {5, 1, 0, 4, 2, 3};
    const double by_index[6] = {9.0, 9.0, 9.0, 3e-6, 4e-6, 2e-6};
    for (int k = 0; k < 6; k++) {
        assert_int_equal(mcast_verify_record_at(&v, order[k], by_index[order[k]]), k == 5 ? 1 : 0);
    }
    mcast_verify_least(&v, local);
    assert_true(local[0] == 3e-6 && local[1] == 4e-6 && local[2] == 2e-6);
    assert_int_equal(mcast_verify_conclude(&v, local), MCAST_VERIFY_RUNNER_UP);
    assert_int_equal(mcast_verify_pick_at(&v, 6), MCAST_VERIFY_RUNNER_UP);
}

/* Above the eager size: blocks of 1 + trials calls, chosen, other (, runner-up); at or
 * below it (and by default) turns; the order is fixed before the first call. */
static void test_blocks_above_eager(void **state)
{
    (void) state;
    mcast_verify_t v;
    mcast_verify_init(&v, 3, 0.05, 4);
    mcast_verify_order(&v, 65536, 4096);
    const double c[3] = {3e-6, 1e-6, 2e-6}, o[3] = {9e-6, 7e-6, 8e-6};
    for (int i = 0; i < 8; i++) {
        const int cand = mcast_verify_pick(&v);
        assert_int_equal(cand, i < 4 ? MCAST_VERIFY_CHOSEN : MCAST_VERIFY_OTHER);
        const int k = i % 4 - 1; /* (-1: the block's warm-up) */
        assert_int_equal(mcast_verify_counts(&v), k >= 0 ? 1 : 0);
        const double t = k < 0 ? 9.0 : cand == MCAST_VERIFY_CHOSEN ? c[k] : o[k];
        assert_int_equal(mcast_verify_record(&v, cand, t), i == 7 ? 1 : 0);
    }
    assert_int_equal(mcast_verify_counts(&v), 0);
    double local[2];
    mcast_verify_local(&v, local);
    assert_true(local[0] == 2e-6 && local[1] == 8e-6); /* the warm-up calls' 9 s not counted */
    assert_int_equal(mcast_verify_conclude(&v, local), MCAST_VERIFY_CHOSEN);
    /* the re-check's trials come in blocks too */
    for (int i = 0; i < 4; i++) {
        mcast_verify_record(&v, mcast_verify_pick(&v), 1e-6);
    }
    for (int i = 0; i < 8; i++) {
        assert_int_equal(mcast_verify_pick(&v), i < 4 ? MCAST_VERIFY_CHOSEN : MCAST_VERIFY_OTHER);
        mcast_verify_record(&v, mcast_verify_pick(&v), 1e-6);
    }
    /* with a runner-up: three blocks of 2 */
    mcast_verify_init(&v, 1, 0.05, 0);
    mcast_verify_add_runner_up(&v);
    mcast_verify_order(&v, 8192, 4096);
    for (int64_t i = 0; i < 6; i++) {
        assert_int_equal(mcast_verify_pick_at(&v, i), (int) (i / 2));
        assert_int_equal(mcast_verify_counts_at(&v, i), (int) (i % 2));
    }
    assert_int_equal(mcast_verify_counts_at(&v, 6), 0);
    assert_int_equal(mcast_verify_counts_at(&v, -1), 0);
    const int64_t order[6] = {5, 1, 0, 4, 2, 3};
    const double by_index[6] = {9.0, 3e-6, 9.0, 4e-6, 9.0, 2e-6};
    for (int k = 0; k < 6; k++) {
        assert_int_equal(mcast_verify_record_at(&v, order[k], by_index[order[k]]), k == 5 ? 1 : 0);
    }
    mcast_verify_least(&v, local);
    assert_true(local[0] == 3e-6 && local[1] == 4e-6);
    /* at the eager size: turns; turns call by call count from the second turn */
    mcast_verify_init(&v, 2, 0.05, 0);
    mcast_verify_order(&v, 4096, 4096);
    for (int64_t i = 0; i < 6; i++) {
        assert_int_equal(mcast_verify_pick_at(&v, i), (int) (i % 2));
        assert_int_equal(mcast_verify_counts_at(&v, i), i >= 2 ? 1 : 0);
    }
    /* not once the calls have started */
    mcast_verify_init(&v, 2, 0.05, 0);
    mcast_verify_record(&v, mcast_verify_pick(&v), 1e-6);
    mcast_verify_order(&v, 1 << 20, 4096);
    assert_int_equal(mcast_verify_pick(&v), MCAST_VERIFY_OTHER);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alternates_and_asks_once),
        cmocka_unit_test(test_other_wins_beyond_margin_only),
        cmocka_unit_test(test_median_ignores_one_stall),
        cmocka_unit_test(test_recheck_doubles),
        cmocka_unit_test(test_off_clamps_and_applies),
        cmocka_unit_test(test_by_index_any_order),
        cmocka_unit_test(test_runner_up_third_candidate),
        cmocka_unit_test(test_blocks_above_eager),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
