/*
 * Routing of the pathmc core.
 *  - up*-down*: on seeded random irregular networks (generator, seed 001
 *    sec 6.3) and a Slurm tree, every host pair gets a connected route that
 *    never goes up after going down and is as short as the shortest legal
 *    route found by an independent BFS here; on a fat-tree given as a switch
 *    graph, the routes to one leaf's hosts spread over the spines.
 *  - DOR: on tori/meshes every route is shortest for its link set and
 *    corrects dimensions in order 0, 1, ...
 *  - fat-tree: routes on IBFT(m,n) have 2 + 2(n-1-gcp) links.
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

#define MAXN 512

/* Node-name interning for the independent BFS. */
typedef struct {
    int n;
    const char *name[MAXN];
} names_t;

static int intern(names_t *nm, const char *s)
{
    for (int i = 0; i < nm->n; ++i)
        if (strcmp(nm->name[i], s) == 0) return i;
    assert_true(nm->n < MAXN);
    nm->name[nm->n] = s;
    return nm->n++;
}

/* Shortest legal up*-down* distance (switch links only) between the switches
 * of two hosts, by BFS over (node, gone_down) states. */
static int legal_distance(const pm_topology_t *t, names_t *nm, const char *src_sw, const char *dst_sw)
{
    int L = pm_topology_ndirected_links(t);
    int *from = malloc(sizeof(int) * L), *to = malloc(sizeof(int) * L), *up = malloc(sizeof(int) * L);
    for (int l = 0; l < L; ++l) {
        const char *f, *tt;
        int cls;
        assert_int_equal(pm_link_info(t, l, &f, &tt, &cls), PM_OK);
        from[l] = cls == PM_LINK_HOST ? -1 : intern(nm, f);
        to[l] = cls == PM_LINK_HOST ? -1 : intern(nm, tt);
        up[l] = pm_updown_is_up(t, l);
    }
    int s = intern(nm, src_sw), d = intern(nm, dst_sw);
    int dist[2 * MAXN], q[2 * MAXN], qh = 0, qt = 0, best = -1;
    for (int i = 0; i < 2 * MAXN; ++i) dist[i] = -1;
    dist[2 * s] = 0;
    q[qt++] = 2 * s;
    while (qh < qt) {
        int st = q[qh++], u = st / 2, down = st % 2;
        if (u == d && (best < 0 || dist[st] < best)) best = dist[st];
        for (int l = 0; l < L; ++l) {
            if (from[l] != u || (up[l] && down)) continue;
            int ns = 2 * to[l] + (up[l] ? 0 : 1);
            if (dist[ns] >= 0) continue;
            dist[ns] = dist[st] + 1;
            q[qt++] = ns;
        }
    }
    free(from);
    free(to);
    free(up);
    return best;
}

static void check_updown_all_pairs(pm_topology_t *t)
{
    int H = pm_topology_nhosts(t);
    int links[256], nl;
    names_t nm = {0, {0}};
    for (int a = 0; a < H; ++a)
        for (int b = 0; b < H; ++b) {
            const char *ha = pm_topology_host_name(t, a), *hb = pm_topology_host_name(t, b);
            assert_int_equal(pm_route(t, PM_ROUTE_UPDOWN, ha, hb, links, 256, &nl), PM_OK);
            if (a == b) {
                assert_int_equal(nl, 0);
                continue;
            }
            assert_true(nl >= 2);
            const char *f, *to, *prev_to = NULL;
            int cls, gone_down = 0;
            for (int i = 0; i < nl; ++i) {
                assert_int_equal(pm_link_info(t, links[i], &f, &to, &cls), PM_OK);
                if (i == 0) assert_string_equal(f, ha);
                else assert_string_equal(f, prev_to);
                if (i == nl - 1) assert_string_equal(to, hb);
                if (i > 0 && i < nl - 1) {
                    int isup = pm_updown_is_up(t, links[i]);
                    assert_false(isup && gone_down);   /* never up after down */
                    if (!isup) gone_down = 1;
                }
                prev_to = to;
            }
            const char *ssw, *dsw;
            pm_link_info(t, links[0], NULL, &ssw, NULL);
            pm_link_info(t, links[nl - 1], &dsw, NULL, NULL);
            assert_int_equal(nl - 2, legal_distance(t, &nm, ssw, dsw));
        }
}

static void test_updown_random(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        char *text, err[256];
        pm_topology_t *t;
        assert_int_equal(pm_generate_irregular(16, 8, 32, 80, seed, &text), PM_OK);
        assert_int_equal(pm_topology_parse_string(text, PM_FMT_AUTO, "gen", &t, err, sizeof err), PM_OK);
        pm_free(text);
        check_updown_all_pairs(t);
        /* a different root changes the up ends but not legality */
        assert_int_equal(pm_topology_set_updown_root(t, "S-sw5"), PM_OK);
        check_updown_all_pairs(t);
        assert_int_equal(pm_topology_set_updown_root(t, "nope"), PM_ERR_NOTFOUND);
        pm_topology_free(t);
    }
}

static void test_updown_up_ends(void **state)
{
    (void)state;
    /* s0 root; s1,s2 level 1; s3 level 2. s1--s2 same level: up end s1 (lower id). */
    const char *g = "switch s0\nswitch s1\nswitch s2\nswitch s3\n"
                    "link s0 s1\nlink s0 s2\nlink s1 s2\nlink s1 s3\nlink s2 s3\n"
                    "host a\nhost b\nlink a s3\nlink b s2\n";
    pm_topology_t *t;
    char err[256];
    assert_int_equal(pm_topology_parse_string(g, PM_FMT_NATIVE, "g", &t, err, sizeof err), PM_OK);
    for (int l = 0; l < pm_topology_ndirected_links(t); ++l) {
        const char *f, *to;
        int cls;
        pm_link_info(t, l, &f, &to, &cls);
        if (cls == PM_LINK_HOST) continue;
        int expect_up = (!strcmp(to, "s0")) || (!strcmp(f, "s2") && !strcmp(to, "s1")) ||
                        (!strcmp(f, "s3") && (!strcmp(to, "s1") || !strcmp(to, "s2")));
        assert_int_equal(pm_updown_is_up(t, l), expect_up);
    }
    int links[16], nl;
    assert_int_equal(pm_route(t, PM_ROUTE_DEFAULT, "a", "b", links, 16, &nl), PM_OK);
    assert_int_equal(nl, 3);   /* a s3 s2 b: s3 -> s2 is up */
    assert_int_equal(pm_route(t, PM_ROUTE_DEFAULT, "a", "b", links, 2, &nl), PM_ERR_ARG);
    assert_int_equal(pm_route(t, PM_ROUTE_DOR, "a", "b", links, 16, &nl), PM_ERR_UNSUPPORTED);
    assert_int_equal(pm_route(t, PM_ROUTE_DEFAULT, "a", "zz", links, 16, &nl), PM_ERR_NOTFOUND);
    check_updown_all_pairs(t);
    pm_topology_free(t);
}

/* A 2-level fat-tree given as a plain switch graph (4 leaves x 4 hosts, 4 spines, every
 * leaf on every spine): up*-down* has 4 shortest legal routes between two leaves, one per
 * spine.  The routes from one host to the 4 hosts of another leaf use 4 different spines
 * (destinations spread as OpenSM balances them), so no spine link carries more than one
 * of them; every route stays shortest and legal (check_updown_all_pairs). */
static void test_updown_spreads_over_spines(void **state)
{
    (void)state;
    char g[4096];
    size_t o = 0;
    for (int l = 0; l < 4; ++l) o += (size_t)snprintf(g + o, sizeof g - o, "switch leaf%d 8\n", l);
    for (int sp = 0; sp < 4; ++sp) o += (size_t)snprintf(g + o, sizeof g - o, "switch spine%d 8\n", sp);
    for (int h = 0; h < 16; ++h)
        o += (size_t)snprintf(g + o, sizeof g - o, "host h%d\nlink h%d leaf%d\n", h, h, h / 4);
    for (int l = 0; l < 4; ++l)
        for (int sp = 0; sp < 4; ++sp) o += (size_t)snprintf(g + o, sizeof g - o, "link leaf%d spine%d\n", l, sp);
    pm_topology_t *t;
    char err[256];
    assert_int_equal(pm_topology_parse_string(g, PM_FMT_NATIVE, "ft", &t, err, sizeof err), PM_OK);
    for (int src_leaf = 0; src_leaf < 4; ++src_leaf)
        for (int dst_leaf = 0; dst_leaf < 4; ++dst_leaf) {
            if (src_leaf == dst_leaf) continue;
            int used[4] = {0, 0, 0, 0};
            char src[16];
            snprintf(src, sizeof src, "h%d", 4 * src_leaf + 1);
            for (int k = 0; k < 4; ++k) {
                char dst[16];
                snprintf(dst, sizeof dst, "h%d", 4 * dst_leaf + k);
                int links[16], nl;
                assert_int_equal(pm_route(t, PM_ROUTE_DEFAULT, src, dst, links, 16, &nl), PM_OK);
                assert_int_equal(nl, 4); /* host, leaf -> spine, spine -> leaf, host */
                const char *f, *to;
                int cls;
                assert_int_equal(pm_link_info(t, links[1], &f, &to, &cls), PM_OK);
                assert_true(strncmp(to, "spine", 5) == 0);
                used[to[5] - '0']++;
            }
            for (int sp = 0; sp < 4; ++sp) assert_int_equal(used[sp], 1);
        }
    check_updown_all_pairs(t);
    pm_topology_free(t);
}

static void check_dor(const char *spec, int wrap, int bidir)
{
    pm_topology_t *t;
    char err[256];
    assert_int_equal(pm_topology_parse_string(spec, PM_FMT_NATIVE, "t", &t, err, sizeof err), PM_OK);
    int nd, dims[8], w, b, H = pm_topology_nhosts(t), links[256], nl;
    pm_topology_torus_shape(t, &nd, dims, 8, &w, &b);
    assert_int_equal(w, wrap);
    assert_int_equal(b, bidir);
    for (int i = 0; i < H; ++i)
        for (int j = 0; j < H; ++j) {
            int ci[8], cj[8], expect = 0;
            const char *hi = pm_topology_host_name(t, i), *hj = pm_topology_host_name(t, j);
            pm_topology_host_coords(t, hi, ci, 8);
            pm_topology_host_coords(t, hj, cj, 8);
            for (int d = 0; d < nd; ++d) {
                int fwd = ((cj[d] - ci[d]) % dims[d] + dims[d]) % dims[d];
                int dist = !wrap ? abs(cj[d] - ci[d]) : !bidir ? fwd : (fwd < dims[d] - fwd ? fwd : dims[d] - fwd);
                expect += dist;
            }
            assert_int_equal(pm_route(t, PM_ROUTE_DEFAULT, hi, hj, links, 256, &nl), PM_OK);
            assert_int_equal(nl, i == j ? 0 : expect + 2);
            int last_dim = -1;
            for (int k = 1; k + 1 < nl; ++k) {
                int cls;
                pm_link_info(t, links[k], NULL, NULL, &cls);
                assert_true(cls >= PM_LINK_TORUS);
                assert_true(cls - PM_LINK_TORUS >= last_dim);   /* dimension order */
                last_dim = cls - PM_LINK_TORUS;
            }
        }
    pm_topology_free(t);
}

/* The route from a (on s2) to b (on s4) on a ring of five switches whose link s2 - s3
 * has the class suffix cls ("" or " N"), the file ending with stmt: its links, and the
 * switch its second link enters into via (when not NULL). */
static int ring_route(const char *cls, const char *stmt, pm_routing_t r, char *via)
{
    char text[512], err[256];
    snprintf(text, sizeof text,
             "switch s0\nswitch s1\nswitch s2\nswitch s3\nswitch s4\n"
             "link s0 s1\nlink s1 s2\nlink s2 s3%s\nlink s3 s4\nlink s4 s0\n"
             "host a\nhost b\nlink a s2\nlink b s4\n%s",
             cls, stmt);
    pm_topology_t *t;
    assert_int_equal(pm_topology_parse_string(text, PM_FMT_NATIVE, "ring", &t, err, sizeof err), PM_OK);
    int links[16], nl;
    assert_int_equal(pm_route(t, r, "a", "b", links, 16, &nl), PM_OK);
    if (via != NULL) {
        const char *f, *to;
        int c;
        pm_link_info(t, links[1], &f, &to, &c);
        snprintf(via, 16, "%s", to);
    }
    pm_topology_free(t);
    return nl;
}

/* Min-hop routes (PM_ROUTE_MINHOP; a graph file's "routing minhop" makes them the
 * default): on a ring of five switches, host a on s2 and b on s4, up*-down* (root s0)
 * forbids s2 -> s3 -> s4 (down, then up) and goes round by s1 and s0 (5 links with the
 * host links), min-hop takes s3 (4).  A link's CLASS is its weight: s2 - s3 at 5 sends
 * the min-hop route round too.  Between two leaves on two spines the routes to a leaf's
 * hosts use both spines.  The statement's errors. */
static void test_minhop(void **state)
{
    (void)state;
    assert_int_equal(ring_route("", "", PM_ROUTE_DEFAULT, NULL), 5);
    char via_s[16] = "";
    assert_int_equal(ring_route("", "", PM_ROUTE_MINHOP, via_s), 4);
    assert_string_equal(via_s, "s3");
    assert_int_equal(ring_route("", "routing minhop\n", PM_ROUTE_DEFAULT, NULL), 4);
    assert_int_equal(ring_route("", "routing minhop\n", PM_ROUTE_UPDOWN, NULL), 5);
    assert_int_equal(ring_route(" 5", "routing minhop\n", PM_ROUTE_DEFAULT, NULL), 5); /* 3 x 1 < 1 + 5 */
    char err[256];
    int links[16], nl;
    pm_topology_t *t;
    const char *f, *to;
    int cls;
    /* two leaves, two spines: a's routes to c0 .. c3 cross both spines */
    const char *ls = "routing minhop\nswitch L0\nswitch L1\nswitch S0\nswitch S1\n"
                     "link L0 S0\nlink L0 S1\nlink L1 S0\nlink L1 S1\n"
                     "host a\nhost c0\nhost c1\nhost c2\nhost c3\nlink a L0\n"
                     "link c0 L1\nlink c1 L1\nlink c2 L1\nlink c3 L1\n";
    assert_int_equal(pm_topology_parse_string(ls, PM_FMT_NATIVE, "ls", &t, err, sizeof err), PM_OK);
    int via[2] = {0, 0};
    for (int i = 0; i < 4; i++) {
        char c[4];
        snprintf(c, sizeof c, "c%d", i);
        assert_int_equal(pm_route(t, PM_ROUTE_DEFAULT, "a", c, links, 16, &nl), PM_OK);
        assert_int_equal(nl, 4);
        pm_link_info(t, links[1], &f, &to, &cls);
        via[strcmp(to, "S0") == 0 ? 0 : 1]++;
    }
    assert_int_equal(via[0], 2);
    assert_int_equal(via[1], 2);
    pm_topology_free(t);
    /* the statement: graph files only, once, updown or minhop */
    const char *bad[] = {"routing fastest\nswitch s\nhost h\nlink h s\n",
                         "routing minhop\nrouting updown\nswitch s\nhost h\nlink h s\n",
                         "torus 4x4\nrouting minhop\n", "routing minhop\ntorus 4x4\n",
                         "fattree 4 2\nrouting minhop\n", "routing\nswitch s\nhost h\nlink h s\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        t = NULL;
        assert_int_not_equal(pm_topology_parse_string(bad[i], PM_FMT_NATIVE, "bad", &t, err, sizeof err), PM_OK);
        assert_null(t);
    }
    assert_int_equal(pm_topology_parse_string("routing updown\nswitch s\nhost h\nlink h s\n", PM_FMT_NATIVE,
                                              "ok", &t, err, sizeof err),
                     PM_OK);
    pm_topology_free(t);
}

static void test_dor(void **state)
{
    (void)state;
    check_dor("torus 8x8\n", 1, 1);
    check_dor("torus 8x8 mesh\n", 0, 1);
    check_dor("torus 5x4 torus unidirectional\n", 1, 0);
    check_dor("torus 4x3x2\n", 1, 1);
    check_dor("torus 2x2x2\n", 1, 1);
}

static void test_fattree(void **state)
{
    (void)state;
    pm_topology_t *t;
    char err[256];
    assert_int_equal(pm_topology_parse_string("fattree 4 3\n", PM_FMT_NATIVE, "f", &t, err, sizeof err), PM_OK);
    int H = pm_topology_nhosts(t), links[64], nl;
    for (int i = 0; i < H; ++i)
        for (int j = 0; j < H; ++j) {
            const char *a = pm_topology_host_name(t, i), *b = pm_topology_host_name(t, j);
            /* names are p<p0>-<p1>-<p2>: gcp over the first n-1 = 2 digits */
            int pa[3], pb[3], g = 0;
            sscanf(a, "p%d-%d-%d", &pa[0], &pa[1], &pa[2]);
            sscanf(b, "p%d-%d-%d", &pb[0], &pb[1], &pb[2]);
            while (g < 2 && pa[g] == pb[g]) ++g;
            assert_int_equal(pm_route(t, PM_ROUTE_DEFAULT, a, b, links, 64, &nl), PM_OK);
            assert_int_equal(nl, i == j ? 0 : 2 + 2 * (2 - g));
            const char *f, *to, *prev = a;
            for (int k = 0; k < nl; ++k) {
                pm_link_info(t, links[k], &f, &to, NULL);
                assert_string_equal(f, prev);
                prev = to;
            }
            if (nl) assert_string_equal(prev, b);
            /* up*-down* on the same graph is legal too */
            assert_int_equal(pm_route(t, PM_ROUTE_UPDOWN, a, b, links, 64, &nl), PM_OK);
        }
    pm_topology_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_updown_up_ends),
        cmocka_unit_test(test_updown_random),
        cmocka_unit_test(test_updown_spreads_over_spines),
        cmocka_unit_test(test_minhop),
        cmocka_unit_test(test_dor),
        cmocka_unit_test(test_fattree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
