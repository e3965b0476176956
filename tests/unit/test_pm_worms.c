/*
 * Multidestination worms on irregular up*-down* networks (seed 001 sec. 5).
 *
 * Seed examples.  The figures are not part of the seed's text, so Fig. 14(a)
 * is rebuilt from what the text says about it: switches 1..10 with two hosts
 * each, root s6 (Fig. 1(c)'s BFS root), source p10.1, destinations both hosts
 * of every switch but s6 and s10; Figs. 15-16 name the chains <5 3 9>, <1 7>,
 * <4 8>, <2> and the worms of every step; sec. 5.3.2 and its footnote say s6
 * has down ports to s1 and s4, s1 down ports to s4 and s7, s2 is below s4,
 * and only s1's side reaches s7 until a link s4-s7 is added.  The network:
 *
 *   level 0                 s6                 T (down links between levels)
 *                        /   |   \             s6 -> s5 s4 s1
 *   level 1           s5    s4 == s1           s5 -> s3 s10 s8
 *                   / | \   | \   | \          s4 -> s8 s2      s1 -> s7 s8
 *   level 2       s3 s10 s8 s8 s2 s7 s8        s3 -> s9  s7 -> s9  s8 -> s9
 *   level 3       s9 (below s3, s7 and s8)     s1 == s4: same-level link, down end s4
 *
 * Asserted: T, T' and the weights (Fig. 14(b)-(c)), the chains (Fig. 14(d)),
 * Greedy in 3 steps with SSR worms and 2 with path-based worms with the
 * worms the text lists (Fig. 15), LG in 4 SSR steps and Fig. 16(b)'s two
 * path-based steps, header bytes and decoding (Fig. 12), the restricted
 * reachability strings of the footnote (Fig. 18), and with the s4-s7 link
 * exactly one copy at s7 with header modification, two without (Fig. 17(b)).
 * Property sweeps on the sec. 6.3 generator: exact cover, legal routes, no
 * cyclic channel dependency per phase, path worms <= SSR worms, Greedy phases
 * <= LG phases, the POC invariants, one copy per destination for tree-based
 * worms; the software rendering is a valid tree, checked with the contention
 * checker.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pm_worms.h"

static const char *fig14 =
    "switch s1 8\nswitch s2 8\nswitch s3 8\nswitch s4 8\nswitch s5 8\n"
    "switch s6 8\nswitch s7 8\nswitch s8 8\nswitch s9 8\nswitch s10 8\n"
    "host p1.1\nhost p1.2\nhost p2.1\nhost p2.2\nhost p3.1\nhost p3.2\nhost p4.1\nhost p4.2\n"
    "host p5.1\nhost p5.2\nhost p6.1\nhost p6.2\nhost p7.1\nhost p7.2\nhost p8.1\nhost p8.2\n"
    "host p9.1\nhost p9.2\nhost p10.1\nhost p10.2\n"
    "link p1.1 s1\nlink p1.2 s1\nlink p2.1 s2\nlink p2.2 s2\nlink p3.1 s3\nlink p3.2 s3\n"
    "link p4.1 s4\nlink p4.2 s4\nlink p5.1 s5\nlink p5.2 s5\nlink p6.1 s6\nlink p6.2 s6\n"
    "link p7.1 s7\nlink p7.2 s7\nlink p8.1 s8\nlink p8.2 s8\nlink p9.1 s9\nlink p9.2 s9\n"
    "link p10.1 s10\nlink p10.2 s10\n"
    "link s6 s5\nlink s6 s4\nlink s6 s1\nlink s5 s3\nlink s5 s10\nlink s5 s8\nlink s4 s1\n"
    "link s4 s8\nlink s4 s2\nlink s1 s7\nlink s1 s8\nlink s3 s9\nlink s7 s9\nlink s8 s9\n";

static pm_topology_t *load_fig14(int with_4_7)
{
    char text[4096], err[256];
    snprintf(text, sizeof text, "%s%s", fig14, with_4_7 ? "link s4 s7\n" : "");
    pm_topology_t *t;
    if (pm_topology_parse_string(text, PM_FMT_NATIVE, "fig14", &t, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(pm_topology_set_updown_root(t, "s6"), PM_OK);
    return t;
}

static int host(const pm_topology_t *t, const char *name)
{
    for (int h = 0; h < pm_topology_nhosts(t); ++h)
        if (!strcmp(pm_topology_host_name(t, h), name)) return h;
    fail_msg("no host %s", name);
    return -1;
}

static int sw(const pm_topology_t *t, int num)
{
    char name[16];
    snprintf(name, sizeof name, "s%d", num);
    for (int s = 0; s < pm_topology_nswitches(t); ++s)
        if (!strcmp(pm_topology_switch_name(t, s), name)) return s;
    fail_msg("no switch %s", name);
    return -1;
}

/* switch number of switch index s ("s7" -> 7) */
static int num(const pm_topology_t *t, int s) { return atoi(pm_topology_switch_name(t, s) + 1); }

/* the seed's multicast: source p10.1, both hosts of every switch but s6, s10 */
static int seed_dests(const pm_topology_t *t, int *d)
{
    int nd = 0;
    for (int h = 0; h < pm_topology_nhosts(t); ++h) {
        const char *n = pm_topology_host_name(t, h);
        if (strncmp(n, "p10.", 4) && strncmp(n, "p6.", 3)) d[nd++] = h;
    }
    return nd;
}

/* "5 3 9" for a list of switch indices */
static void numbers(const pm_topology_t *t, const int *s, int n, char *out, size_t len)
{
    out[0] = 0;
    for (int i = 0; i < n; ++i) snprintf(out + strlen(out), len - strlen(out), "%s%d", i ? " " : "", num(t, s[i]));
}

static void expect_children(const pm_topology_t *t, const int *off, const int *adj, int s, const char *want)
{
    char got[128];
    numbers(t, adj + off[sw(t, s)], off[sw(t, s) + 1] - off[sw(t, s)], got, sizeof got);
    if (strcmp(got, want)) fail_msg("s%d children '%s', expected '%s'", s, got, want);
}

static void test_fig14_poc(void **state)
{
    (void)state;
    pm_topology_t *t = load_fig14(0);
    int d[32], nd = seed_dests(t, d);
    assert_int_equal(nd, 16);
    pm_poc_t *p;
    char err[256], got[128];
    assert_int_equal(pm_poc_find(t, host(t, "p10.1"), nd, d, &p, err, sizeof err), PM_OK);
    /* Fig. 14(b): the DFS over down links between levels, and T */
    numbers(t, p->dfs, p->ndfs, got, sizeof got);
    assert_string_equal(got, "6 5 3 9 10 8 4 2 1 7");
    const char *T[11] = {"", "7 8", "", "9", "8 2", "3 10 8", "5 4 1", "9", "9", "", ""};
    for (int s = 1; s <= 10; ++s) expect_children(t, p->t_off, p->t_adj, s, T[s]);
    /* Fig. 14(c): T' (s6 dropped: it has no parent to reconnect) and the weights */
    const char *Tp[11] = {"", "7 8", "", "9", "8 2", "3 10 8", "", "9", "9", "", ""};
    const int wt[11] = {0, 8, 2, 4, 8, 9, 0, 4, 4, 2, 1};
    const int rho[11] = {0, 2, 2, 2, 2, 2, 0, 2, 2, 2, 1};
    for (int s = 1; s <= 10; ++s) {
        expect_children(t, p->tp_off, p->tp_adj, s, Tp[s]);
        assert_int_equal(p->weight[sw(t, s)], wt[s]);
        assert_int_equal(p->rho[sw(t, s)], rho[s]);
    }
    /* Fig. 14(d): chains in stripping order */
    const char *chains[] = {"5 3 9", "1 7", "4 8", "2", "10"};
    assert_int_equal(p->nchains, 5);
    for (int c = 0; c < 5; ++c) {
        numbers(t, p->chains + p->chain_off[c], p->chain_off[c + 1] - p->chain_off[c], got, sizeof got);
        assert_string_equal(got, chains[c]);
    }
    pm_poc_free(p);
    pm_topology_free(t);
}

/* The plan as "phase:sender_host>switches" lines; sender named by host. */
static void plan_string(const pm_topology_t *t, const pm_mcast_plan_t *pl, char *out, size_t len)
{
    out[0] = 0;
    for (int i = 0; i < pl->nworms; ++i) {
        char s[64];
        numbers(t, pl->worms[i].switches, pl->worms[i].nswitches, s, sizeof s);
        snprintf(out + strlen(out), len - strlen(out), "%d:%s>%s;", pl->worms[i].phase,
                 pm_topology_host_name(t, pl->worms[i].sender), s);
    }
}

static void expect_plan(pm_worm_kind_t kind, pm_phase_alg_t alg, int phases, const char *want)
{
    pm_topology_t *t = load_fig14(0);
    int d[32], nd = seed_dests(t, d), src = host(t, "p10.1");
    pm_mcast_plan_t *pl;
    char err[256], got[1024];
    assert_int_equal(pm_mcast_plan(t, kind, alg, src, nd, d, &pl, err, sizeof err), PM_OK);
    plan_string(t, pl, got, sizeof got);
    if (strcmp(got, want)) fail_msg("plan\n  %s\nexpected\n  %s", got, want);
    assert_int_equal(pl->nphases, phases);
    pm_plan_check_t c;
    assert_int_equal(pm_mcast_plan_check(t, pl, src, nd, d, &c, err, sizeof err), PM_OK);
    assert_int_equal(c.missing + c.duplicates + c.strays + c.not_ready + c.illegal_routes + c.cyclic_phases, 0);
    char *text = pm_mcast_plan_describe(t, pl, 1);
    assert_non_null(text);
    assert_non_null(strstr(text, "phase 0: p10.1 -> s5[p5.1 p5.2]"));
    pm_free(text);
    pm_mcast_plan_free(pl);
    pm_topology_free(t);
}

/* Fig. 15(a): step 1 s5; step 2 the source and each host on s5 cover s3, s9,
 * s1; 3 steps.  Fig. 15(b): <5 3 9>; then the source <1 7>, p5.1 <4 8>, p5.2 <2>. */
static void test_fig15_greedy(void **state)
{
    (void)state;
    expect_plan(PM_WORM_SSR, PM_PHASE_GREEDY, 3,
                "0:p10.1>5;1:p10.1>3;1:p5.1>9;1:p5.2>1;2:p10.1>7;2:p5.1>4;2:p5.2>8;2:p3.1>2;");
    expect_plan(PM_WORM_PATH, PM_PHASE_GREEDY, 2, "0:p10.1>5 3 9;1:p10.1>1 7;1:p5.1>4 8;1:p5.2>2;");
}

/* Fig. 16(a): s5; the source and one host of s5 cover s3, s9; the source s1,
 * one host of s5 s7, and so on; 4 steps.  Fig. 16(b): <5 3 9>; then the
 * source <1 7>, one host of s5 <4 8>, one host of s3 <2>. */
static void test_fig16_less_greedy(void **state)
{
    (void)state;
    expect_plan(PM_WORM_SSR, PM_PHASE_LESS_GREEDY, 4,
                "0:p10.1>5;1:p10.1>3;1:p5.1>9;2:p10.1>1;2:p5.1>7;2:p3.1>4;2:p9.1>8;3:p10.1>2;");
    expect_plan(PM_WORM_PATH, PM_PHASE_LESS_GREEDY, 2, "0:p10.1>5 3 9;1:p10.1>1 7;1:p5.1>4 8;1:p3.1>2;");
}

static int dlink(const pm_topology_t *t, const char *from, const char *to)
{
    for (int l = 0; l < pm_topology_ndirected_links(t); ++l) {
        const char *a, *b;
        pm_link_info(t, l, &a, &b, NULL);
        if (!strcmp(a, from) && !strcmp(b, to)) return l;
    }
    fail_msg("no link %s -> %s", from, to);
    return -1;
}

/* Fig. 12: multi-drop header bytes, decoding at a switch with and without
 * destinations, SSR = one pair. */
static void test_headers(void **state)
{
    (void)state;
    pm_topology_t *t = load_fig14(0);
    int dests[6] = {host(t, "p5.1"), host(t, "p5.2"), host(t, "p3.1"), host(t, "p3.2"), host(t, "p9.1"),
                    host(t, "p9.2")};
    int sws[3] = {sw(t, 5), sw(t, 3), sw(t, 9)};
    pm_worm_t w = {PM_WORM_PATH, 0, host(t, "p10.1"), 6, dests, 3, sws};
    uint8_t h[64], out[256];
    size_t len;
    assert_int_equal(pm_worm_encode(t, &w, h, sizeof h, &len), PM_OK);
    /* tag, 3 pairs of (16-bit switch id, 8-bit port string: the hosts on ports 1-2) */
    const uint8_t want[] = {0x80, 3, 0, 4, 0xc0, 0, 2, 0xc0, 0, 8, 0xc0};
    assert_int_equal(len, sizeof want);
    assert_memory_equal(h, want, sizeof want);
    assert_int_equal(pm_worm_encode(t, &w, h, 4, &len), PM_ERR_ARG);
    assert_int_equal(len, sizeof want);
    /* at s10 (no destination): on towards s5, header unchanged */
    pm_decode_out_t o[8];
    int no;
    assert_int_equal(pm_worm_decode(t, NULL, sw(t, 10), dlink(t, "p10.1", "s10"), want, sizeof want, 1, o, 8, &no, out,
                                    sizeof out),
                     PM_OK);
    assert_int_equal(no, 1);
    assert_int_equal(o[0].dlink, dlink(t, "s10", "s5"));
    assert_int_equal(o[0].to_host, -1);
    assert_memory_equal(out + o[0].hdr_off, want, sizeof want);
    /* at s5: a copy to p5.1 and p5.2, the s5 pair stripped, on to s3 */
    assert_int_equal(pm_worm_decode(t, NULL, sw(t, 5), dlink(t, "s10", "s5"), want, sizeof want, 1, o, 8, &no, out,
                                    sizeof out),
                     PM_OK);
    assert_int_equal(no, 3);
    assert_int_equal(o[0].to_host, host(t, "p5.1"));
    assert_int_equal(o[1].to_host, host(t, "p5.2"));
    assert_int_equal(o[2].dlink, dlink(t, "s5", "s3"));
    const uint8_t rest[] = {0x80, 2, 0, 2, 0xc0, 0, 8, 0xc0};
    assert_int_equal(o[2].hdr_len, sizeof rest);
    assert_memory_equal(out + o[2].hdr_off, rest, sizeof rest);
    assert_int_equal(pm_worm_decode(t, NULL, sw(t, 5), dlink(t, "s10", "s5"), want, sizeof want, 1, o, 2, &no, out,
                                    sizeof out),
                     PM_ERR_ARG);
    /* the whole worm: one copy at each destination, route 10 ^ 5 v 3 v 9 */
    int copies[32], links[64], nl;
    assert_int_equal(pm_worm_trace(t, NULL, w.sender, want, sizeof want, 1, copies, links, 64, &nl), PM_OK);
    for (int i = 0; i < pm_topology_nhosts(t); ++i) {
        int is_dst = 0;
        for (int j = 0; j < 6; ++j) is_dst |= dests[j] == i;
        assert_int_equal(copies[i], is_dst);
    }
    assert_int_equal(pm_route_is_updown(t, links, nl), 1);
    /* SSR: one pair; an SSR worm over two switches is refused */
    pm_worm_t ssr = {PM_WORM_SSR, 0, host(t, "p10.1"), 2, dests, 1, sws};
    assert_int_equal(pm_worm_encode(t, &ssr, h, sizeof h, &len), PM_OK);
    const uint8_t one[] = {0x80, 1, 0, 4, 0xc0};
    assert_int_equal(len, sizeof one);
    assert_memory_equal(h, one, sizeof one);
    ssr.nswitches = 2;
    assert_int_equal(pm_worm_encode(t, &ssr, h, sizeof h, &len), PM_ERR_ARG);
    /* a destination that is not on the worm's switches is refused */
    pm_worm_t bad = {PM_WORM_PATH, 0, 0, 6, dests, 2, sws};
    assert_int_equal(pm_worm_encode(t, &bad, h, sizeof h, &len), PM_ERR_ARG);
    pm_topology_free(t);
}

static int bit(const uint8_t *b, int h) { return (b[h / 8] >> (7 - h % 8)) & 1; }

/* port of switch s leading to switch `to` */
static int port_to(const pm_topology_t *t, int s, const char *to)
{
    int port;
    assert_int_equal(pm_link_ports(t, dlink(t, pm_topology_switch_name(t, s), to), &port, NULL), PM_OK);
    return port;
}

/* Fig. 18 and the footnote of sec. 5.3.2: s6's port to s4 ends up all 0,
 * its port to s1 holds the hosts of s4 and s2; totals are unions. */
static void test_reachability(void **state)
{
    (void)state;
    pm_topology_t *t = load_fig14(0);
    pm_reach_t *r;
    assert_int_equal(pm_reach_build(t, &r), PM_OK);
    size_t nb = pm_reach_bytes(r);
    assert_int_equal(nb, 3);
    uint8_t full[8], restr[8], tot[8], u[8];
    int s6 = sw(t, 6), p4 = port_to(t, s6, "s4"), p1 = port_to(t, s6, "s1");
    assert_true(p4 >= 0 && p1 > p4);
    assert_int_equal(pm_reach_port_full(r, s6, p4, full), PM_OK);
    assert_int_equal(pm_reach_port(r, s6, p4, restr), PM_OK);
    assert_true(bit(full, host(t, "p4.1")) && bit(full, host(t, "p2.2")));
    for (size_t i = 0; i < nb; ++i) assert_int_equal(restr[i], 0);
    assert_int_equal(pm_reach_port(r, s6, p1, restr), PM_OK);
    assert_true(bit(restr, host(t, "p4.1")) && bit(restr, host(t, "p2.1")) && bit(restr, host(t, "p7.2")));
    assert_false(bit(restr, host(t, "p5.1")));
    /* per switch: restricted strings are disjoint and their union is the total */
    for (int s = 0; s < pm_topology_nswitches(t); ++s) {
        assert_int_equal(pm_reach_total(r, s, tot), PM_OK);
        memset(u, 0, sizeof u);
        for (int p = 0; p < 8; ++p) {
            assert_int_equal(pm_reach_port(r, s, p, restr), PM_OK);
            for (size_t i = 0; i < nb; ++i) {
                assert_int_equal(u[i] & restr[i], 0);
                u[i] |= restr[i];
            }
        }
        assert_memory_equal(u, tot, nb);
    }
    assert_int_equal(pm_reach_total(r, s6, tot), PM_OK);
    for (int h = 0; h < 20; ++h) assert_true(bit(tot, h));
    assert_int_equal(pm_reach_total(r, sw(t, 10), tot), PM_OK);
    assert_true(bit(tot, host(t, "p10.1")) && !bit(tot, host(t, "p5.1")));
    pm_reach_free(r);
    pm_topology_free(t);
}

/* Fig. 17: one tree-based worm covers the seed's multicast; with the link
 * s4-s7 a worm for s4 and s7 reaches s7 once with header modification and
 * twice without (s1 -> s4 -> s7 and s1 -> s7). */
static void test_fig17_tree_worm(void **state)
{
    (void)state;
    for (int variant = 0; variant <= 1; ++variant) {
        pm_topology_t *t = load_fig14(variant);
        pm_reach_t *r;
        assert_int_equal(pm_reach_build(t, &r), PM_OK);
        int d[32], nd = seed_dests(t, d), src = host(t, "p10.1"), copies[32], links[256], nl;
        uint8_t h[16];
        size_t len;
        assert_int_equal(pm_tree_header_encode(t, nd, d, h, sizeof h, &len), PM_OK);
        assert_int_equal(len, 1 + 3);
        assert_int_equal(h[0], 0xe0);
        assert_int_equal(pm_worm_trace(t, r, src, h, len, 1, copies, links, 256, &nl), PM_OK);
        for (int i = 0; i < 20; ++i) {
            int is_dst = 0;
            for (int j = 0; j < nd; ++j) is_dst |= d[j] == i;
            assert_int_equal(copies[i], is_dst);
        }
        /* up to s6 (10 ^ 5 ^ 6), then 16 deliveries over down links */
        assert_int_equal(links[1], dlink(t, "s10", "s5"));
        int s7[4] = {host(t, "p4.1"), host(t, "p4.2"), host(t, "p7.1"), host(t, "p7.2")};
        assert_int_equal(pm_tree_header_encode(t, 4, s7, h, sizeof h, &len), PM_OK);
        assert_int_equal(pm_worm_trace(t, r, src, h, len, 1, copies, links, 256, &nl), PM_OK);
        assert_int_equal(copies[s7[2]], 1);
        assert_int_equal(copies[s7[3]], 1);
        assert_int_equal(copies[s7[0]], 1);
        assert_int_equal(pm_worm_trace(t, r, src, h, len, 0, copies, links, 256, &nl), PM_OK);
        assert_int_equal(copies[s7[2]], variant ? 2 : 1);
        assert_int_equal(copies[s7[0]], 1);
        pm_reach_free(r);
        pm_topology_free(t);
    }
}

/* The checks find what is wrong: a worm against the POC order takes an up
 * link after a down link; two such worms close a channel-dependency cycle on
 * a ring; a plan missing a worm leaves destinations uncovered. */
static void test_checks_detect(void **state)
{
    (void)state;
    /* ring s0 - s1 - s2 - s3 - s0, root s0: s0 v s1 v s2, s0 v s3 v s2 */
    const char *ring = "switch s0 4\nswitch s1 4\nswitch s2 4\nswitch s3 4\n"
                       "host h0\nhost h1\nhost h2\nhost h3\nlink h0 s0\nlink h1 s1\nlink h2 s2\nlink h3 s3\n"
                       "link s0 s1\nlink s1 s2\nlink s2 s3\nlink s3 s0\n";
    pm_topology_t *t;
    char err[256];
    assert_int_equal(pm_topology_parse_string(ring, PM_FMT_NATIVE, "ring", &t, err, sizeof err), PM_OK);
    /* W1 from h0 drops at s2 then s3: s0 v s1 v s2 ^ s3 (illegal)
     * W2 from h2 drops at s3, s0, s1: s2 ^ s3 ^ s0 v s1 (legal) */
    int d1[2] = {2, 3}, s1[2] = {2, 3}, d2[3] = {3, 0, 1}, s2[3] = {3, 0, 1};
    pm_worm_t w1 = {PM_WORM_PATH, 0, 0, 2, d1, 2, s1}, w2 = {PM_WORM_PATH, 0, 2, 3, d2, 3, s2};
    uint8_t h1[32], h2[32];
    size_t l1, l2;
    assert_int_equal(pm_worm_encode(t, &w1, h1, sizeof h1, &l1), PM_OK);
    assert_int_equal(pm_worm_encode(t, &w2, h2, sizeof h2, &l2), PM_OK);
    int copies[4], links[32], nl;
    assert_int_equal(pm_worm_trace(t, NULL, 0, h1, l1, 1, copies, links, 32, &nl), PM_OK);
    assert_int_equal(pm_route_is_updown(t, links, nl), 0);
    assert_int_equal(pm_worm_trace(t, NULL, 2, h2, l2, 1, copies, links, 32, &nl), PM_OK);
    assert_int_equal(pm_route_is_updown(t, links, nl), 1);
    const uint8_t *hs[2] = {h1, h2};
    size_t ls[2] = {l1, l2};
    int srcs[2] = {0, 2};
    assert_int_equal(pm_worms_cyclic(t, NULL, 1, srcs, hs, ls), 0);
    assert_int_equal(pm_worms_cyclic(t, NULL, 1, srcs + 1, hs + 1, ls + 1), 0);
    assert_int_equal(pm_worms_cyclic(t, NULL, 2, srcs, hs, ls), 1);
    /* as a plan: W1 illegal, the phase cyclic, h1 covered twice, W2's sender not ready */
    pm_worm_t ws[2] = {w1, w2};
    pm_mcast_plan_t pl = {PM_WORM_PATH, PM_PHASE_GREEDY, 0, 1, 2, ws};
    int dsts[3] = {1, 2, 3};
    pm_plan_check_t c;
    assert_int_equal(pm_mcast_plan_check(t, &pl, 0, 3, dsts, &c, err, sizeof err), PM_OK);
    assert_int_equal(c.illegal_routes, 1);
    assert_int_equal(c.cyclic_phases, 1);
    assert_int_equal(c.not_ready, 1);
    assert_int_equal(c.duplicates, 1);   /* h3 from both worms */
    assert_int_equal(c.strays, 1);       /* h0, the source */
    pl.nworms = 0;
    assert_int_equal(pm_mcast_plan_check(t, &pl, 0, 3, dsts, &c, err, sizeof err), PM_OK);
    assert_int_equal(c.missing, 3);
    /* argument errors */
    pm_mcast_plan_t *p;
    int self[1] = {0};
    assert_int_equal(pm_mcast_plan(t, PM_WORM_PATH, PM_PHASE_GREEDY, 0, 1, self, &p, err, sizeof err), PM_ERR_ARG);
    int twice[2] = {1, 1};
    assert_int_equal(pm_mcast_plan(t, PM_WORM_PATH, PM_PHASE_GREEDY, 0, 2, twice, &p, err, sizeof err), PM_ERR_ARG);
    assert_int_equal(pm_mcast_plan(t, PM_WORM_TREE, PM_PHASE_GREEDY, 0, 1, dsts, &p, err, sizeof err), PM_ERR_ARG);
    assert_int_equal(pm_mcast_plan(t, PM_WORM_PATH, PM_PHASE_GREEDY, 9, 1, dsts, &p, err, sizeof err), PM_ERR_ARG);
    assert_int_equal(pm_mcast_plan(t, PM_WORM_PATH, PM_PHASE_GREEDY, 0, 0, NULL, &p, err, sizeof err), PM_OK);
    assert_int_equal(p->nworms, 0);
    assert_int_equal(p->nphases, 0);
    pm_mcast_plan_free(p);
    pm_topology_free(t);
    pm_topology_t *tor;
    assert_int_equal(pm_topology_parse_string("torus 4x4\n", PM_FMT_NATIVE, "t", &tor, err, sizeof err), PM_OK);
    assert_int_equal(pm_mcast_plan(tor, PM_WORM_PATH, PM_PHASE_GREEDY, 0, 1, dsts, &p, err, sizeof err),
                     PM_ERR_UNSUPPORTED);
    pm_topology_free(tor);
}

/* ---------------------------------------------------------------- sweeps */
static uint64_t rng_state;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng_state >> 33) % n);
}

/* random destination set of size k (not src) */
static void pick(int nhosts, int src, int k, int *d)
{
    int *all = malloc(sizeof(int) * nhosts), m = 0;
    for (int h = 0; h < nhosts; ++h)
        if (h != src) all[m++] = h;
    for (int i = 0; i < k; ++i) {
        int j = i + (int)rnd((unsigned)(m - i));
        int x = all[i];
        all[i] = all[j];
        all[j] = x;
        d[i] = all[i];
    }
    free(all);
}

static pm_topology_t *generated(int s, int k, int p, uint64_t seed)
{
    char *text, err[256];
    pm_topology_t *t;
    assert_int_equal(pm_generate_irregular(s, k, p, 80, seed, &text), PM_OK);
    if (pm_topology_parse_string(text, PM_FMT_IBNET, "gen", &t, err, sizeof err)) fail_msg("%s", err);
    pm_free(text);
    return t;
}

static const int configs[][3] = {{8, 8, 32}, {16, 8, 64}, {32, 8, 128}, {4, 16, 32}, {2, 32, 32}, {12, 6, 24}};

/* POC invariants: chains partition the participating switches, consecutive
 * switches of a chain are T' edges, weights are the T' descendant sums. */
static void check_poc(const pm_topology_t *t, const pm_poc_t *p)
{
    int S = p->nswitches, *seen = calloc(S, sizeof(int));
    for (int c = 0; c < p->nchains; ++c)
        for (int j = p->chain_off[c]; j < p->chain_off[c + 1]; ++j) {
            int s = p->chains[j];
            assert_true(p->rho[s] > 0);
            assert_false(seen[s]);
            seen[s] = 1;
            if (j > p->chain_off[c]) {
                int prev = p->chains[j - 1], edge = 0;
                for (int e = p->tp_off[prev]; e < p->tp_off[prev + 1]; ++e) edge |= p->tp_adj[e] == s;
                assert_true(edge);
            }
        }
    int *mark = malloc(sizeof(int) * S), *stack = malloc(sizeof(int) * S);
    for (int s = 0; s < S; ++s) {
        assert_int_equal(seen[s], p->rho[s] > 0);
        if (!p->rho[s]) continue;
        memset(mark, 0, sizeof(int) * S);
        int top = 0, w = 0;
        stack[top++] = s;
        mark[s] = 1;
        while (top) {
            int u = stack[--top];
            w += p->rho[u];
            for (int e = p->tp_off[u]; e < p->tp_off[u + 1]; ++e)
                if (!mark[p->tp_adj[e]]) {
                    mark[p->tp_adj[e]] = 1;
                    stack[top++] = p->tp_adj[e];
                }
        }
        assert_int_equal(p->weight[s], w);
    }
    (void)t;
    free(seen);
    free(mark);
    free(stack);
}

static void test_sweep_plans(void **state)
{
    (void)state;
    rng_state = 1;
    char err[256];
    long plans = 0, path_worms = 0, ssr_worms = 0;
    for (size_t c = 0; c < sizeof configs / sizeof *configs; ++c)
        for (uint64_t seed = 1; seed <= 3; ++seed) {
            pm_topology_t *t = generated(configs[c][0], configs[c][1], configs[c][2], seed);
            pm_reach_t *r;
            assert_int_equal(pm_reach_build(t, &r), PM_OK);
            int H = pm_topology_nhosts(t), *d = malloc(sizeof(int) * H), *copies = malloc(sizeof(int) * H);
            uint8_t *hdr = malloc(H / 8 + 8);
            for (int trial = 0; trial < 12; ++trial) {
                int src = (int)rnd((unsigned)H), k = trial == 0 ? H - 1 : 1 + (int)rnd((unsigned)(H - 1));
                pick(H, src, k, d);
                pm_poc_t *poc;
                assert_int_equal(pm_poc_find(t, src, k, d, &poc, err, sizeof err), PM_OK);
                check_poc(t, poc);
                pm_poc_free(poc);
                int nworms[2][2], nphases[2][2];
                for (int kind = 0; kind < 2; ++kind)
                    for (int alg = 0; alg < 2; ++alg) {
                        pm_mcast_plan_t *pl;
                        pm_plan_check_t ck;
                        assert_int_equal(pm_mcast_plan(t, kind, alg, src, k, d, &pl, err, sizeof err), PM_OK);
                        assert_int_equal(pm_mcast_plan_check(t, pl, src, k, d, &ck, err, sizeof err), PM_OK);
                        if (ck.missing || ck.duplicates || ck.strays || ck.not_ready || ck.illegal_routes ||
                            ck.cyclic_phases)
                            fail_msg("config %zu seed %d src %d k %d kind %d alg %d: %d %d %d %d %d %d", c, (int)seed,
                                     src, k, kind, alg, ck.missing, ck.duplicates, ck.strays, ck.not_ready,
                                     ck.illegal_routes, ck.cyclic_phases);
                        /* LG: at most one worm starts from a switch per phase */
                        if (alg == PM_PHASE_LESS_GREEDY)
                            for (int i = 0; i < pl->nworms; ++i)
                                for (int j = i + 1; j < pl->nworms; ++j)
                                    if (pl->worms[i].phase == pl->worms[j].phase)
                                        assert_int_not_equal(pm_topology_host_switch(t, pl->worms[i].sender),
                                                             pm_topology_host_switch(t, pl->worms[j].sender));
                        nworms[kind][alg] = pl->nworms;
                        nphases[kind][alg] = pl->nphases;
                        pm_mcast_plan_free(pl);
                        ++plans;
                    }
                assert_true(nworms[PM_WORM_PATH][0] <= nworms[PM_WORM_SSR][0]);
                assert_int_equal(nworms[PM_WORM_PATH][0], nworms[PM_WORM_PATH][1]);
                for (int kind = 0; kind < 2; ++kind) assert_true(nphases[kind][0] <= nphases[kind][1]);
                path_worms += nworms[PM_WORM_PATH][0];
                ssr_worms += nworms[PM_WORM_SSR][0];
                /* one tree-based worm: one copy per destination, legal route */
                size_t len;
                int links[4096], nl;
                assert_int_equal(pm_tree_header_encode(t, k, d, hdr, H / 8 + 8, &len), PM_OK);
                assert_int_equal(pm_worm_trace(t, r, src, hdr, len, 1, copies, links, 4096, &nl), PM_OK);
                int want = 0;
                for (int h = 0; h < H; ++h) {
                    int is_dst = 0;
                    for (int j = 0; j < k; ++j) is_dst |= d[j] == h;
                    assert_int_equal(copies[h], is_dst);
                    want += is_dst;
                }
                assert_int_equal(want, k);
                const uint8_t *hs[1] = {hdr};
                assert_int_equal(pm_worms_cyclic(t, r, 1, &src, hs, &len), 0);
            }
            free(d);
            free(copies);
            free(hdr);
            pm_reach_free(r);
            pm_topology_free(t);
        }
    printf("  %ld plans checked; worms: path-based %ld, SSR %ld\n", plans, path_worms, ssr_worms);
}

/* ---------------------------------------------------------------- rendering */
static long segmented_checks;   /* closed-form comparisons with more than one segment */

static void check_render(const pm_topology_t *t, int n, const char **hosts, int root, long *conflicts_out)
{
    pm_pathlg_params_t prm;
    pm_pathlg_params_default(&prm);
    prm.bytes = 65536;
    prm.min_seg_bytes = 1024;
    prm.max_seg_bytes = 65536;
    pm_pathlg_result_t res;
    char err[256];
    assert_int_equal(pm_pathlg_render(t, n, hosts, root, &prm, &res, err, sizeof err), PM_OK);
    assert_int_equal(kb_tree_check(res.tree), KB_OK);
    assert_int_equal(res.tree->root, root);
    /* every worm is a chain of the tree: sender -> d1 -> d2 ... */
    for (int i = 0; i < res.plan->nworms; ++i) {
        const pm_worm_t *w = &res.plan->worms[i];
        assert_int_equal(res.tree->parent[w->dests[0]], w->sender);
        for (int j = 1; j < w->ndests; ++j) assert_int_equal(res.tree->parent[w->dests[j]], w->dests[j - 1]);
    }
    /* the model: steps x (alpha + beta S) for the chosen S */
    long m = (long)((prm.bytes + res.seg_bytes - 1) / res.seg_bytes);
    assert_int_equal(res.steps, kb_sim_steps(res.tree, m, KB_DISC_FPFS));
    /* the closed form the renderer uses agrees with the unit-step simulator */
    for (long mm = 1; mm <= 70; mm += 3) {
        pm_pathlg_params_t one = prm;
        pm_pathlg_result_t r1;
        char e1[256];
        one.bytes = (size_t)mm * 1024;
        one.min_seg_bytes = one.max_seg_bytes = 1024;
        one.model.beta_ns_per_byte = 1e6;   /* segmenting always wins: S = 1024 */
        assert_int_equal(pm_pathlg_render(t, n, hosts, root, &one, &r1, e1, sizeof e1), PM_OK);
        long used = (long)((one.bytes + r1.seg_bytes - 1) / r1.seg_bytes);
        assert_true(used == 1 || used == mm);   /* unsegmented wins ties */
        assert_int_equal(r1.steps, kb_sim_steps(r1.tree, used, KB_DISC_FPFS));
        segmented_checks += used > 1;
        pm_pathlg_result_free(&r1);
    }
    double us = res.steps * (prm.model.alpha_us + prm.model.beta_ns_per_byte * res.seg_bytes / 1000.0);
    assert_true(res.predicted_us >= 0.999999 * us && res.predicted_us <= 1.000001 * us);
    pm_msg_t *msgs;
    int nm, ns;
    assert_int_equal(pm_plan_from_tree(res.tree, &msgs, &nm, &ns), PM_OK);
    long *conf = calloc(ns, sizeof(long)), total;
    assert_int_equal(pm_check_contention(t, PM_ROUTE_UPDOWN, n, hosts, nm, msgs, ns, conf, &total, err, sizeof err),
                     PM_OK);
    assert_int_equal(total, res.conflicts);
    /* the chain hops (parent is not the worm's sender) never conflict: count
     * the conflicts of the chain hops alone */
    int nc = 0;
    for (int i = 0; i < nm; ++i) {
        int head = 0;
        for (int w = 0; w < res.plan->nworms; ++w) head |= res.plan->worms[w].dests[0] == msgs[i].dst;
        if (!head) msgs[nc++] = msgs[i];
    }
    long chain_total;
    assert_int_equal(pm_check_contention(t, PM_ROUTE_UPDOWN, n, hosts, nc, msgs, ns, conf, &chain_total, err, sizeof err),
                     PM_OK);
    assert_int_equal(chain_total, 0);
    *conflicts_out = total;
    free(conf);
    pm_free(msgs);
    pm_pathlg_result_free(&res);
}

static void test_render_seed(void **state)
{
    (void)state;
    pm_topology_t *t = load_fig14(0);
    /* ranks: the root p10.1 first, then both hosts of every switch but s6,
     * s10; and a second rank on p5.1 */
    const char *names[18] = {"p10.1"};
    int n = 1;
    for (int h = 0; h < pm_topology_nhosts(t); ++h) {
        const char *nm = pm_topology_host_name(t, h);
        if (strncmp(nm, "p10.", 4) && strncmp(nm, "p6.", 3)) names[n++] = nm;
    }
    names[n++] = "p5.1";
    long conflicts;
    check_render(t, n, names, 0, &conflicts);
    assert_int_equal(conflicts, 0);
    pm_pathlg_params_t prm;
    pm_pathlg_params_default(&prm);
    pm_pathlg_result_t res;
    char err[256];
    assert_int_equal(pm_pathlg_render(t, n, names, 0, &prm, &res, err, sizeof err), PM_OK);
    char *text = pm_mcast_plan_describe(t, res.plan, 0);
    /* Fig. 16(b) in ranks: r1..r16 are p1.1 p1.2 p2.1 ... p5.2 p7.1 ... p9.2 */
    assert_string_equal(text, "phase 0: r0 -> r9 r10 r5 r6 r15 r16 via s5 s3 s9\n"
                              "phase 1: r0 -> r1 r2 r11 r12 via s1 s7\n"
                              "phase 1: r9 -> r7 r8 r13 r14 via s4 s8\n"
                              "phase 1: r5 -> r3 r4 via s2\n");
    pm_free(text);
    /* r9 (p5.1): its chain successor, the head of its phase-1 worm, then r17
     * (also on p5.1) */
    assert_int_equal(res.tree->parent[17], 9);
    const int *ch9 = res.tree->children + res.tree->child_off[9];
    assert_int_equal(res.tree->child_off[10] - res.tree->child_off[9], 3);
    assert_int_equal(ch9[0], 10);
    assert_int_equal(ch9[1], 7);
    assert_int_equal(ch9[2], 17);
    /* unsegmented, one step per hop: the deepest chain decides */
    assert_int_equal(res.seg_bytes, 0);
    assert_int_equal(res.steps, kb_sim_steps(res.tree, 1, KB_DISC_FPFS));
    pm_pathlg_result_free(&res);
    /* errors: unknown host, torus topology */
    const char *bad[2] = {"p10.1", "nosuch"};
    assert_int_equal(pm_pathlg_render(t, 2, bad, 0, &prm, &res, err, sizeof err), PM_ERR_NOTFOUND);
    assert_non_null(strstr(err, "nosuch"));
    pm_topology_t *tor;
    assert_int_equal(pm_topology_parse_string("torus 4x4\n", PM_FMT_NATIVE, "t", &tor, err, sizeof err), PM_OK);
    const char *th[2] = {"n0-0", "n1-1"};
    assert_int_equal(pm_pathlg_render(tor, 2, th, 0, &prm, &res, err, sizeof err), PM_ERR_UNSUPPORTED);
    pm_topology_free(tor);
    pm_topology_free(t);
}

static void test_render_sweep(void **state)
{
    (void)state;
    rng_state = 7;
    long total = 0, worst = 0, trees = 0, with = 0;
    for (size_t c = 0; c < sizeof configs / sizeof *configs; ++c)
        for (uint64_t seed = 1; seed <= 3; ++seed) {
            pm_topology_t *t = generated(configs[c][0], configs[c][1], configs[c][2], seed);
            int H = pm_topology_nhosts(t);
            const char **names = malloc(sizeof(char *) * 2 * H);
            for (int trial = 0; trial < 6; ++trial) {
                int ppn = 1 + trial % 2, hosts = 1 + (int)rnd((unsigned)H), *d = malloc(sizeof(int) * H);
                pick(H, -1, hosts, d);
                int n = 0;
                for (int i = 0; i < hosts; ++i)
                    for (int j = 0; j < ppn; ++j) names[n++] = pm_topology_host_name(t, d[i]);
                long conf;
                check_render(t, n, names, (int)rnd((unsigned)n), &conf);
                total += conf;
                worst = conf > worst ? conf : worst;
                with += conf > 0;
                ++trees;
                free(d);
            }
            free(names);
            pm_topology_free(t);
        }
    printf("  %ld rendered trees; link conflicts (FPFS steps): %ld trees with any, %ld in all, worst %ld\n", trees,
           with, total, worst);
    printf("  %ld segmented predictions equal kb_sim_steps\n", segmented_checks);
    assert_true(segmented_checks > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fig14_poc),      cmocka_unit_test(test_fig15_greedy),
        cmocka_unit_test(test_fig16_less_greedy), cmocka_unit_test(test_headers),
        cmocka_unit_test(test_reachability),   cmocka_unit_test(test_fig17_tree_worm),
        cmocka_unit_test(test_checks_detect),  cmocka_unit_test(test_sweep_plans),
        cmocka_unit_test(test_render_seed),    cmocka_unit_test(test_render_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
