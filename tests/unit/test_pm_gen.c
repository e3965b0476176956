/*
 * Random irregular topology generator (seed 001 sec 6.3): the output parses
 * as ibnetdiscover, has s switches and p hosts, respects k ports per switch
 * (the parser rejects ports beyond the declared count), is connected (every
 * host pair has an up*-down* route), links the requested share of free ports
 * and is deterministic per seed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "pathmc.h"

static void test_generate(void **state)
{
    (void)state;
    const int cfg[][4] = {{8, 8, 32, 80}, {16, 8, 64, 80}, {32, 8, 128, 100}, {16, 12, 40, 50}, {1, 4, 4, 100},
                          {2, 4, 4, 0}};
    for (size_t c = 0; c < sizeof cfg / sizeof *cfg; ++c) {
        int s = cfg[c][0], k = cfg[c][1], p = cfg[c][2], pct = cfg[c][3];
        for (uint64_t seed = 1; seed <= 3; ++seed) {
            char *text, err[256];
            pm_topology_t *t;
            assert_int_equal(pm_generate_irregular(s, k, p, pct, seed, &text), PM_OK);
            if (pm_topology_parse_string(text, PM_FMT_IBNET, "gen", &t, err, sizeof err)) fail_msg("%s", err);
            assert_int_equal(pm_topology_nswitches(t), s);
            assert_int_equal(pm_topology_nhosts(t), p);
            int switch_ports = 0, links[256], nl;
            for (int l = 0; l < pm_topology_ndirected_links(t); l += 2) {
                int cls;
                pm_link_info(t, l, NULL, NULL, &cls);
                if (cls == PM_LINK_SWITCH) switch_ports += 2;
            }
            int target = (s * k - p) * pct / 100;
            int tree = 2 * (s - 1);
            assert_true(switch_ports >= tree);
            assert_true(switch_ports <= (target > tree ? target : tree));
            for (int a = 0; a < p; a += 3)
                for (int b = 0; b < p; b += 5)
                    assert_int_equal(pm_route(t, PM_ROUTE_UPDOWN, pm_topology_host_name(t, a),
                                              pm_topology_host_name(t, b), links, 256, &nl), PM_OK);
            char *again;
            assert_int_equal(pm_generate_irregular(s, k, p, pct, seed, &again), PM_OK);
            assert_string_equal(text, again);
            pm_free(again);
            pm_free(text);
            pm_topology_free(t);
        }
    }
    char *a, *b;
    assert_int_equal(pm_generate_irregular(16, 8, 64, 80, 1, &a), PM_OK);
    assert_int_equal(pm_generate_irregular(16, 8, 64, 80, 2, &b), PM_OK);
    assert_true(strcmp(a, b) != 0);
    pm_free(a);
    pm_free(b);
}

static void test_file_and_errors(void **state)
{
    (void)state;
    char path[] = "/tmp/pm_gen_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(pm_generate_irregular_file(8, 8, 32, 80, 42, path), PM_OK);
    pm_topology_t *t;
    char err[256];
    assert_int_equal(pm_topology_load(path, &t, err, sizeof err), PM_OK);
    assert_int_equal(pm_topology_nhosts(t), 32);
    pm_topology_free(t);
    remove(path);
    char *out;
    assert_int_equal(pm_generate_irregular(0, 8, 1, 80, 1, &out), PM_ERR_ARG);
    assert_int_equal(pm_generate_irregular(4, 1, 1, 80, 1, &out), PM_ERR_ARG);
    assert_int_equal(pm_generate_irregular(4, 4, 9, 80, 1, &out), PM_ERR_ARG);   /* > s*(k-2) hosts */
    assert_int_equal(pm_generate_irregular(4, 4, 4, 101, 1, &out), PM_ERR_ARG);
    assert_int_equal(pm_generate_irregular(4, 4, 4, 80, 1, NULL), PM_ERR_ARG);
    assert_int_equal(pm_generate_irregular_file(4, 4, 4, 80, 1, "/nonexistent-dir/x"), PM_ERR_IO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generate),
        cmocka_unit_test(test_file_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
