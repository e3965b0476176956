/*
 * Self-calibration across nodes (mcast_planner.h, "Self-calibration"): the pairs are one
 * rank per node, disjoint, spread over the nodes and bounded; the fit recovers the LogGP
 * numbers from what ping-pongs and streams on that network would show (the per-byte cost
 * from the streams: their fixed costs drop out), is not moved by one slow pair among
 * three, leaves the keys it does not measure alone, and refuses measurements that
 * cannot be a network.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "mcast_planner.h"

static void check_pairs(int n, const int *node_of, int max_pairs, int want)
{
    mcast_probe_pair_t p[MCAST_PROBE_MAX_PAIRS];
    const int np = mcast_probe_pairs(n, node_of, max_pairs, p);
    assert_int_equal(np, want);
    int used[64] = {0};
    for (int k = 0; k < np; k++) {
        assert_true(p[k].a >= 0 && p[k].a < n && p[k].b >= 0 && p[k].b < n);
        const int na = node_of[p[k].a], nb = node_of[p[k].b];
        assert_int_not_equal(na, nb);
        /* the lowest rank of its node */
        for (int r = 0; r < p[k].a; r++) {
            assert_int_not_equal(node_of[r], na);
        }
        for (int r = 0; r < p[k].b; r++) {
            assert_int_not_equal(node_of[r], nb);
        }
        /* no node in two pairs */
        assert_int_equal(used[na]++, 0);
        assert_int_equal(used[nb]++, 0);
    }
}

static void test_pairs(void **state)
{
    (void) state;
    const int two_per_node[8] = {0, 0, 1, 1, 2, 2, 3, 3};
    mcast_probe_pair_t p[MCAST_PROBE_MAX_PAIRS];
    assert_int_equal(mcast_probe_pairs(8, two_per_node, 8, p), 2);
    /* node i with node i + N/2: across the communicator, not the first hosts */
    assert_int_equal(p[0].a, 0);
    assert_int_equal(p[0].b, 4);
    assert_int_equal(p[1].a, 2);
    assert_int_equal(p[1].b, 6);
    const int odd[5] = {0, 1, 2, 3, 4};
    assert_int_equal(mcast_probe_pairs(5, odd, 8, p), 2);
    assert_int_equal(p[0].b, 3);
    assert_int_equal(p[1].a, 1);
    assert_int_equal(p[1].b, 4);
    const int one_node[4] = {0, 0, 0, 0};
    assert_int_equal(mcast_probe_pairs(4, one_node, 8, p), 0);
    /* bounded, spread: 20 nodes, 8 pairs reach node 8 and its partner 18 */
    int twenty[20];
    for (int i = 0; i < 20; i++) {
        twenty[i] = 19 - i; /* node indices need not follow rank order */
    }
    assert_int_equal(mcast_probe_pairs(20, twenty, 8, p), 8);
    assert_int_equal(p[7].a, 8);
    assert_int_equal(p[7].b, 18);
    for (int n = 1; n <= 40; n++) {
        int nodes[40];
        for (int per = 1; per <= 3; per++) {
            for (int r = 0; r < n; r++) {
                nodes[r] = (r / per) % 64;
            }
            const int nn = (n + per - 1) / per;
            for (int mp = 1; mp <= MCAST_PROBE_MAX_PAIRS + 2; mp++) {
                const int want = nn / 2 < mp ? nn / 2 : mp;
                check_pairs(n, nodes, mp, want > MCAST_PROBE_MAX_PAIRS ? MCAST_PROBE_MAX_PAIRS : want);
            }
        }
    }
    assert_int_equal(mcast_probe_pairs(0, twenty, 8, p), 0);
    assert_int_equal(mcast_probe_pairs(20, NULL, 8, p), 0);
}

/* What pair p of a network with overhead o, latency L and per-byte cost g (ns/B) measures,
 * times `slow` (one pair stalled by other traffic). */
static void sample(mcast_probe_sample_t *s, double o, double L, double g, double slow)
{
    s->post_us = o * slow;
    for (int j = 0; j < MCAST_PROBE_SIZES; j++) {
        s->half_rtt_us[j] = slow * (2 * o + L + 1e-3 * g * (double) mcast_probe_size(j));
    }
    /* a stream: the blocks leave one after the other at g, then the empty answer; its
     * fixed part (here 9 us) drops out of the difference */
    const int k[2] = {MCAST_PROBE_STREAM_SHORT, MCAST_PROBE_STREAM_LONG};
    for (int c = 0; c < 2; c++) {
        s->stream_us[c] = slow * (9.0 + 2 * (2 * o + L) +
                                  1e-3 * g * (double) k[c] * MCAST_PROBE_STREAM_BYTES);
    }
}

static void test_fit_recovers(void **state)
{
    (void) state;
    mcast_machine_t m, ref;
    mcast_machine_default(&m);
    mcast_machine_default(&ref);
    mcast_probe_sample_t s[3];
    sample(&s[0], 7.5, 0.8, 11.3, 1.0);
    sample(&s[1], 7.5, 0.8, 11.3, 3.0); /* a slow pair */
    sample(&s[2], 7.5, 0.8, 11.3, 1.0);
    char why[128] = "";
    assert_int_equal(mcast_probe_fit(s, 3, &m, why, sizeof(why)), KB_OK);
    assert_true(fabs(m.net.o_send_us - 7.5) < 1e-9);
    assert_true(fabs(m.net.o_recv_us - 7.5) < 1e-9);
    assert_true(fabs(m.net.latency_us - 0.8) < 1e-9);
    assert_true(fabs(m.net.wire_ns_per_byte - 11.3) < 1e-9);
    assert_true(fabs(m.net.gap_ns_per_byte - 11.3) < 1e-9);
    assert_true(m.net.recv_ns_per_byte == 0.0);
    assert_true(m.net.eager_bytes == ref.net.eager_bytes); /* not measured: kept */
    assert_memory_equal(&m.shm, &ref.shm, sizeof(m.shm));
    assert_non_null(strstr(m.source, "self-calibrated (3 pairs of nodes)"));
    /* one pair: its numbers */
    sample(&s[0], 2.0, 5.0, 0.5, 1.0);
    assert_int_equal(mcast_probe_fit(s, 1, &m, why, sizeof(why)), KB_OK);
    assert_true(fabs(m.net.o_send_us - 2.0) < 1e-9);
    assert_true(fabs(m.net.latency_us - 5.0) < 1e-9);
    assert_true(fabs(m.net.wire_ns_per_byte - 0.5) < 1e-9);
}

static void test_fit_clamps_overhead(void **state)
{
    (void) state;
    mcast_machine_t m;
    mcast_machine_default(&m);
    mcast_probe_sample_t s;
    sample(&s, 3.0, 1.0, 1.0, 1.0); /* intercept 7 */
    s.post_us = 20.0;                /* posting took longer than the whole message */
    assert_int_equal(mcast_probe_fit(&s, 1, &m, NULL, 0), KB_OK);
    assert_true(fabs(m.net.o_send_us - 3.5) < 1e-9);
    assert_true(fabs(m.net.latency_us) < 1e-9);
}

static void test_fit_refuses(void **state)
{
    (void) state;
    mcast_machine_t m, ref;
    mcast_machine_default(&m);
    mcast_machine_default(&ref);
    mcast_probe_sample_t s;
    char why[128] = "";
    assert_int_equal(mcast_probe_fit(&s, 0, &m, why, sizeof(why)), KB_ERR_ARG);
    assert_string_equal(why, "no pair of nodes measured");
    sample(&s, 3.0, 1.0, 0.0, 1.0); /* flat */
    assert_int_equal(mcast_probe_fit(&s, 1, &m, why, sizeof(why)), KB_ERR_ARG);
    assert_string_equal(why, "the time did not grow with the bytes");
    sample(&s, 3.0, 1.0, 1.0, 1.0);
    s.stream_us[1] = INFINITY;
    assert_int_equal(mcast_probe_fit(&s, 1, &m, why, sizeof(why)), KB_ERR_ARG);
    assert_string_equal(why, "a pair measured no stream");
    sample(&s, 3.0, 1.0, 1.0, 1.0);
    s.half_rtt_us[2] = NAN;
    assert_int_equal(mcast_probe_fit(&s, 1, &m, why, sizeof(why)), KB_ERR_ARG);
    sample(&s, 3.0, 1.0, 1.0, 1.0);
    s.post_us = -1.0;
    assert_int_equal(mcast_probe_fit(&s, 1, &m, why, sizeof(why)), KB_ERR_ARG);
    /* the per-byte part larger than the small messages' whole time */
    sample(&s, 0.0, 0.0, 100.0, 1.0);
    for (int j = 0; j < MCAST_PROBE_SIZES; j++) {
        s.half_rtt_us[j] = 1.0;
    }
    assert_int_equal(mcast_probe_fit(&s, 1, &m, why, sizeof(why)), KB_ERR_ARG);
    /* refused: the model is untouched */
    assert_memory_equal(&m, &ref, sizeof(m));
    double v[4] = {4, 1, 3, 2};
    assert_true(mcast_probe_median(v, 4) == 2.5);
    assert_true(mcast_probe_median(v, 3) == 3.0);
    assert_true(isnan(mcast_probe_median(v, 0)));
    assert_true(mcast_probe_size(MCAST_PROBE_SIZES) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs),
        cmocka_unit_test(test_fit_recovers),
        cmocka_unit_test(test_fit_clamps_overhead),
        cmocka_unit_test(test_fit_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
