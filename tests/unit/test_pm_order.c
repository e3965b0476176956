/*
 * Orderings of the pathmc core: every ordering is a permutation with the root
 * first and the ranks of one host consecutive; the dimension-ordered chain
 * is contention-free for the "everyone sends to its chain successor" step;
 * consecutive snake ranks are one hop apart; hierarchical order; the switch tour's
 * chain loads no directed link more than POC's (and once on perf/sim's irregular-64,
 * where POC's loads one twice); errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pathmc.h"

static pm_topology_t *parse(const char *text)
{
    pm_topology_t *t;
    char err[256];
    if (pm_topology_parse_string(text, PM_FMT_AUTO, "t", &t, err, sizeof err) != PM_OK) fail_msg("%s", err);
    return t;
}

/* n ranks, ppn per host, over the first n/ppn hosts in a scrambled order */
static const char **ranks_hosts(const pm_topology_t *t, int n, int ppn)
{
    const char **h = malloc(sizeof(char *) * n);
    int H = pm_topology_nhosts(t);
    for (int r = 0; r < n; ++r) h[r] = pm_topology_host_name(t, ((r / ppn) * 7) % H);
    return h;
}

static void check_perm(const pm_topology_t *t, pm_order_kind_t kind, int n, int ppn)
{
    const char **h = ranks_hosts(t, n, ppn);
    int *ord = malloc(sizeof(int) * n), *seen = calloc(n, sizeof(int));
    char err[256];
    for (int root = -1; root < n; root += 3) {
        assert_int_equal(pm_order_hosts(t, kind, n, h, root, ord, err, sizeof err), PM_OK);
        memset(seen, 0, sizeof(int) * n);
        for (int i = 0; i < n; ++i) {
            assert_true(ord[i] >= 0 && ord[i] < n);
            assert_false(seen[ord[i]]);
            seen[ord[i]] = 1;
        }
        if (root >= 0) assert_int_equal(ord[0], root);
        /* ranks of one host are consecutive (cyclically, the root's host may wrap) */
        int changes = 0;
        for (int i = 0; i < n; ++i)
            if (strcmp(h[ord[i]], h[ord[(i + 1) % n]]) != 0) ++changes;
        int hosts = 0;
        for (int r = 0; r < n; ++r) {
            int first = 1;
            for (int q = 0; q < r; ++q)
                if (!strcmp(h[q], h[r])) first = 0;
            hosts += first;
        }
        assert_true(changes == hosts || (hosts == 1 && changes == 0));
    }
    free(h);
    free(ord);
    free(seen);
}

static void test_permutations(void **state)
{
    (void)state;
    pm_topology_t *tor = parse("torus 4x4\n"), *mesh = parse("torus 8x8 mesh\n"), *ft = parse("fattree 4 3\n");
    char *text;
    assert_int_equal(pm_generate_irregular(16, 8, 32, 80, 7, &text), PM_OK);
    pm_topology_t *irr = parse(text);
    pm_free(text);
    for (int ppn = 1; ppn <= 3; ++ppn) {
        check_perm(tor, PM_ORDER_DOR, 16 * ppn, ppn);
        check_perm(tor, PM_ORDER_SNAKE, 13 * ppn, ppn);
        check_perm(tor, PM_ORDER_POC, 16 * ppn, ppn);
        check_perm(tor, PM_ORDER_AUTO, 5 * ppn, ppn);
        check_perm(mesh, PM_ORDER_DOR, 64 * ppn, ppn);
        check_perm(ft, PM_ORDER_FATTREE, 16 * ppn, ppn);
        check_perm(ft, PM_ORDER_POC, 16 * ppn, ppn);
        check_perm(irr, PM_ORDER_POC, 32 * ppn, ppn);
        check_perm(irr, PM_ORDER_AUTO, 20 * ppn, ppn);
        check_perm(irr, PM_ORDER_TOUR, 32 * ppn, ppn);
    }
    pm_topology_free(tor);
    pm_topology_free(mesh);
    pm_topology_free(ft);
    pm_topology_free(irr);
}

/* Every member sends to its chain successor in one step. */
static long successor_conflicts(const pm_topology_t *t, pm_order_kind_t kind, int root)
{
    int n = pm_topology_nhosts(t);
    const char **h = malloc(sizeof(char *) * n);
    for (int i = 0; i < n; ++i) h[i] = pm_topology_host_name(t, i);
    int *ord = malloc(sizeof(int) * n);
    pm_msg_t *m = malloc(sizeof(pm_msg_t) * n);
    char err[256];
    long c, total;
    assert_int_equal(pm_order_hosts(t, kind, n, h, root, ord, err, sizeof err), PM_OK);
    for (int i = 0; i + 1 < n; ++i) {
        m[i].step = 0;
        m[i].src = ord[i];
        m[i].dst = ord[i + 1];
    }
    assert_int_equal(pm_check_contention(t, PM_ROUTE_DEFAULT, n, h, n - 1, m, 1, &c, &total, err, sizeof err), PM_OK);
    assert_int_equal(c, total);
    free(h);
    free(ord);
    free(m);
    return total;
}

static void test_dor_chain_successors(void **state)
{
    (void)state;
    const char *specs[] = {"torus 4x4\n", "torus 8x8 mesh\n", "torus 4x4x4\n", "torus 8x8\n",
                           "torus 6x4 torus unidirectional\n"};
    for (size_t s = 0; s < sizeof specs / sizeof *specs; ++s) {
        pm_topology_t *t = parse(specs[s]);
        for (int root = 0; root < pm_topology_nhosts(t); root += 5)
            assert_int_equal(successor_conflicts(t, PM_ORDER_DOR, root), 0);
        pm_topology_free(t);
    }
}

static void test_snake_one_hop(void **state)
{
    (void)state;
    const char *specs[] = {"torus 4x4\n", "torus 8x8\n", "torus 4x4x4\n", "torus 6x4x2\n"};
    for (size_t s = 0; s < sizeof specs / sizeof *specs; ++s) {
        pm_topology_t *t = parse(specs[s]);
        int n = pm_topology_nhosts(t), links[64], nl;
        const char **h = malloc(sizeof(char *) * n);
        int *ord = malloc(sizeof(int) * n);
        for (int i = 0; i < n; ++i) h[i] = pm_topology_host_name(t, i);
        assert_int_equal(pm_order_hosts(t, PM_ORDER_SNAKE, n, h, -1, ord, NULL, 0), PM_OK);
        for (int i = 0; i < n; ++i) {   /* a Hamiltonian cycle: the last wraps to the first */
            assert_int_equal(pm_route(t, PM_ROUTE_DOR, h[ord[i]], h[ord[(i + 1) % n]], links, 64, &nl), PM_OK);
            assert_int_equal(nl, 3);
        }
        free(h);
        free(ord);
        pm_topology_free(t);
    }
}

static void test_hierarchical(void **state)
{
    (void)state;
    /* 8 ranks: 2 hosts x 2 packages x 2 cores, placed round-robin */
    pm_locality_t loc[8];
    int ord[8];
    for (int r = 0; r < 8; ++r) {
        loc[r].host_id = r % 2;
        loc[r].package_id = (r / 2) % 2;
        loc[r].numa_id = loc[r].package_id;
        loc[r].core_id = 7 - r;
    }
    assert_int_equal(pm_order_hierarchical(8, loc, ord), PM_OK);
    for (int i = 0; i + 1 < 8; ++i) {
        const pm_locality_t *a = &loc[ord[i]], *b = &loc[ord[i + 1]];
        assert_true(a->host_id < b->host_id ||
                    (a->host_id == b->host_id && (a->package_id < b->package_id ||
                                                  (a->package_id == b->package_id && a->core_id < b->core_id))));
    }
    assert_int_equal(pm_order_hierarchical(0, loc, ord), PM_ERR_ARG);
    assert_int_equal(pm_order_hierarchical(8, NULL, ord), PM_ERR_ARG);
}

/* Directed-link loads of the chain of every host in `kind` order from `root`: the
 * busiest link's count (returned) and the sum over links (*sum). */
static int chain_max_load(const pm_topology_t *t, pm_order_kind_t kind, int root, long *sum)
{
    const int n = pm_topology_nhosts(t);
    const char **h = malloc(sizeof(char *) * n);
    for (int i = 0; i < n; ++i) h[i] = pm_topology_host_name(t, i);
    int *ord = malloc(sizeof(int) * n), *load = calloc(pm_topology_ndirected_links(t), sizeof(int));
    char err[256];
    assert_int_equal(pm_order_hosts(t, kind, n, h, root, ord, err, sizeof err), PM_OK);
    assert_int_equal(ord[0], root);
    int most = 0, links[64], nl;
    *sum = 0;
    for (int i = 0; i + 1 < n; ++i) {
        assert_int_equal(pm_route(t, PM_ROUTE_DEFAULT, h[ord[i]], h[ord[i + 1]], links, 64, &nl), PM_OK);
        for (int j = 0; j < nl; ++j) {
            if (++load[links[j]] > most) most = load[links[j]];
            ++*sum;
        }
    }
    free(h);
    free(ord);
    free(load);
    return most;
}

static void test_tour_link_load(void **state)
{
    (void)state;
    /* perf/sim's irregular-64: POC's chain crosses one directed switch link twice (a
     * pipelined chain then streams at half rate there), the tour's none */
    char *text;
    assert_int_equal(pm_generate_irregular(16, 8, 64, 100, 0, &text), PM_OK);
    pm_topology_t *t = parse(text);
    pm_free(text);
    assert_int_equal(pm_order_auto(t), PM_ORDER_TOUR);
    for (int root = 0; root < 64; root += 9) {
        long ps, ts;
        const int pm = chain_max_load(t, PM_ORDER_POC, root, &ps);
        const int tm = chain_max_load(t, PM_ORDER_TOUR, root, &ts);
        assert_int_equal(pm, 2);
        assert_int_equal(tm, 1);
        long as;
        assert_int_equal(chain_max_load(t, PM_ORDER_AUTO, root, &as), 1);
        assert_int_equal(as, ts);
    }
    pm_topology_free(t);
    /* random fabrics: never worse than POC (busiest link, then all links), and every
     * directed link once in nearly all (a Hamiltonian path of the switches, or a
     * depth-first preorder whose routes follow its tree; POC: 54 of 75) */
    int ones = 0, cases = 0;
    for (int seed = 1; seed <= 12; ++seed) {
        const int sw = 6 + seed % 5 * 4, pct = 40 + seed * 5 % 60;
        assert_int_equal(pm_generate_irregular(sw, 8, sw * 3, pct, (uint64_t)seed, &text), PM_OK);
        t = parse(text);
        pm_free(text);
        for (int root = 0; root < sw * 3; root += 7) {
            long ps, ts;
            const int pm = chain_max_load(t, PM_ORDER_POC, root, &ps);
            const int tm = chain_max_load(t, PM_ORDER_TOUR, root, &ts);
            assert_true(tm < pm || (tm == pm && ts <= ps));
            ones += tm == 1;
            ++cases;
        }
        pm_topology_free(t);
    }
    print_message("tour chains with every directed link once: %d of %d\n", ones, cases);
    assert_true(ones >= cases - 5);
    /* a ring of switches: its tour is the ring's path */
    t = parse("switch a\nswitch b\nswitch c\nswitch d\nlink a b\nlink b c\nlink c d\nlink d a\n"
              "host h0\nhost h1\nhost h2\nhost h3\nhost h4\nhost h5\n"
              "link h0 a\nlink h1 c\nlink h2 b\nlink h3 d\nlink h4 c\nlink h5 a\n");
    for (int root = 0; root < 6; ++root) {
        long ts;
        assert_int_equal(chain_max_load(t, PM_ORDER_TOUR, root, &ts), 1);
    }
    pm_topology_free(t);
}

static void test_errors(void **state)
{
    (void)state;
    pm_topology_t *t = parse("torus 4x4\n"), *g = parse("switch s\nhost h\nlink h s\n");
    const char *h[3] = {"n0-0", "bogus", "n1-1"};
    int ord[3];
    char err[256] = "";
    assert_int_equal(pm_order_hosts(t, PM_ORDER_DOR, 3, h, 0, ord, err, sizeof err), PM_ERR_NOTFOUND);
    assert_non_null(strstr(err, "bogus"));
    assert_int_equal(pm_order_hosts(t, PM_ORDER_DOR, 3, h, 3, ord, err, sizeof err), PM_ERR_ARG);
    assert_int_equal(pm_order_hosts(t, (pm_order_kind_t)99, 3, h, 0, ord, err, sizeof err), PM_ERR_ARG);
    const char *gh[1] = {"h"};
    assert_int_equal(pm_order_hosts(g, PM_ORDER_DOR, 1, gh, 0, ord, err, sizeof err), PM_ERR_UNSUPPORTED);
    assert_int_equal(pm_order_hosts(g, PM_ORDER_FATTREE, 1, gh, 0, ord, err, sizeof err), PM_ERR_UNSUPPORTED);
    assert_int_equal(pm_order_hosts(g, PM_ORDER_POC, 1, gh, 0, ord, err, sizeof err), PM_OK);
    assert_int_equal(ord[0], 0);
    assert_int_equal(pm_order_hosts(g, PM_ORDER_TOUR, 1, gh, 0, ord, err, sizeof err), PM_OK);
    assert_int_equal(ord[0], 0);
    assert_int_equal(pm_order_hosts(t, PM_ORDER_TOUR, 1, h, 0, ord, err, sizeof err), PM_ERR_UNSUPPORTED);
    assert_int_equal(pm_order_auto(t), PM_ORDER_DOR);
    assert_string_equal(pm_order_name(PM_ORDER_TOUR), "tour");
    assert_string_equal(pm_order_name(PM_ORDER_POC), "poc");
    assert_null(pm_order_name((pm_order_kind_t)99));
    pm_topology_free(t);
    pm_topology_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_permutations), cmocka_unit_test(test_dor_chain_successors),
        cmocka_unit_test(test_snake_one_hop), cmocka_unit_test(test_hierarchical),
        cmocka_unit_test(test_tour_link_load), cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
