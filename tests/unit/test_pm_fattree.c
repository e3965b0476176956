/*
 * Cyclic multicast on IBFT(m, n) (seed 004, pm_fattree.h).
 *  - The seed's worked examples on IBFT(4, 3): LIDs of P(300) and P(200), the
 *    LIDs P(000), P(001), P(010), P(011) choose for P(200) (paths Q, R, S, T),
 *    the cyclic groups of P(200), PID / gcp / lca / gcpg ranks, path Q port by
 *    port (eqs. 1, 2), Fig. 6 (one ascending path) and Fig. 7 (the MFT).
 *  - Property sweeps over IBFT(4, 1..4), IBFT(8, 2..3), IBFT(16, 2), IBFT(2, 3):
 *    wiring, LIDs, every (source, destination) route, cyclic groups, the MFT of
 *    every source for random member sets (every member exactly once, never a
 *    split or a turn upwards), the InfiniBand tree form from every member,
 *    OpenSM's single tree, the group policy, link loads and the file writers.
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
#include "pm_fattree.h"

static int node(const pm_ft_t *ft, const char *label)
{
    int pid = pm_ft_node_parse(ft, label);
    assert_true(pid >= 0);
    return pid;
}

static int sw(const pm_ft_t *ft, const char *label)
{
    int id = pm_ft_switch_parse(ft, label);
    assert_true(id >= 0);
    return id;
}

static pm_ft_t ibft(int m, int n, pm_ft_lid_layout_t layout)
{
    pm_ft_t ft;
    assert_int_equal(pm_ft_init(&ft, m, n, layout), PM_OK);
    return ft;
}

/* ------------------------------------------------------------ seed examples */

static void test_seed_lids(void **state)
{
    (void) state;
    pm_ft_t ft = ibft(4, 3, PM_FT_LIDS_SEED);
    assert_int_equal(ft.lmc, 2);
    assert_int_equal(ft.lids_per_node, 4);
    assert_int_equal(ft.nnodes, 16);
    assert_int_equal(ft.nswitches, 20);
    /* Fig. 4: BaseLID(P(300)) = 49, LIDset(P(300)) = {49, 50, 51, 52} */
    int p300 = node(&ft, "300");
    assert_int_equal(pm_ft_base_lid(&ft, p300), 49);
    for (int lid = 49; lid <= 52; ++lid) {
        int pid = -1, rank = -1;
        assert_int_equal(pm_ft_lid_owner(&ft, lid, &pid, &rank), PM_OK);
        assert_int_equal(pid, p300);
        assert_int_equal(rank, lid - 49);
    }
    int pid = -1;
    assert_int_equal(pm_ft_lid_owner(&ft, 53, &pid, NULL), PM_OK);
    assert_int_not_equal(pid, p300);
    assert_int_equal(pm_ft_lid_owner(&ft, 0, &pid, NULL), PM_ERR_NOTFOUND);
    assert_int_equal(pm_ft_lid_owner(&ft, 65, &pid, NULL), PM_ERR_NOTFOUND);
    /* P(200): 33..36 */
    assert_int_equal(pm_ft_base_lid(&ft, node(&ft, "200")), 33);
    /* the IBA layout shifts by one aligned block */
    pm_ft_t iba = ibft(4, 3, PM_FT_LIDS_IBA);
    assert_int_equal(pm_ft_base_lid(&iba, p300), 52);
    assert_int_equal(pm_ft_base_lid(&iba, 0), 4);
}

static void test_seed_definitions(void **state)
{
    (void) state;
    pm_ft_t ft = ibft(4, 3, PM_FT_LIDS_SEED);
    int p200 = node(&ft, "200"), p211 = node(&ft, "211");
    /* Definition 4: PID(P(200)) = 8, PID(P(211)) = 11 */
    assert_int_equal(p200, 8);
    assert_int_equal(p211, 11);
    assert_int_equal(pm_ft_gcpg_rank(&ft, p200, 0), 8);
    assert_int_equal(pm_ft_gcpg_rank(&ft, p211, 0), 11);
    /* gcp(P(200), P(211)) = "2", lca = {SW<20,1>, SW<21,1>} */
    assert_int_equal(pm_ft_gcp(&ft, p200, p211), 1);
    int ids[8], count = 0;
    assert_int_equal(pm_ft_lca(&ft, p200, p211, ids, 8, &count), 1);
    assert_int_equal(count, 2);
    assert_int_equal(ids[0], sw(&ft, "SW<20,1>"));
    assert_int_equal(ids[1], sw(&ft, "SW<21,1>"));
    assert_int_equal(pm_ft_lca(&ft, p200, p200, ids, 8, &count), PM_ERR_ARG);
    /* gcpg(1, 1) holds P(100) and P(111); gcpg(2, 1) = {P(200), P(201), P(210), P(211)}
     * with ranks 0 and 3 for P(200) and P(211) */
    assert_int_equal(pm_ft_gcp(&ft, node(&ft, "100"), node(&ft, "111")), 1);
    assert_int_equal(pm_ft_gcpg_size(&ft, 1), 4);
    assert_int_equal(pm_ft_gcpg_size(&ft, 0), 16);
    assert_int_equal(pm_ft_gcpg_rank(&ft, p200, 1), 0);
    assert_int_equal(pm_ft_gcpg_rank(&ft, p211, 1), 3);
    assert_int_equal(pm_ft_gcpg_rank(&ft, node(&ft, "201"), 1), 1);
    assert_int_equal(pm_ft_gcpg_rank(&ft, node(&ft, "210"), 1), 2);
}

static void test_seed_cyclic_selection(void **state)
{
    (void) state;
    pm_ft_t ft = ibft(4, 3, PM_FT_LIDS_SEED);
    int p200 = node(&ft, "200");
    /* Fig. 5: P(000), P(001), P(010), P(011) choose 33, 34, 35, 36 (paths Q, R, S, T) */
    const char *src[4] = {"000", "001", "010", "011"};
    int top[4];
    for (int i = 0; i < 4; ++i) {
        int s = node(&ft, src[i]);
        assert_int_equal(pm_ft_select_lid(&ft, s, p200), 33 + i);
        pm_ft_hop_t hops[8];
        int nh = 0;
        assert_int_equal(pm_ft_route(&ft, s, 33 + i, hops, 8, &nh), PM_OK);
        assert_int_equal(nh, 5);
        top[i] = hops[2].sw;
        int level = -1;
        assert_int_equal(pm_ft_switch_coords(&ft, top[i], &level, NULL), PM_OK);
        assert_int_equal(level, 0);
        assert_int_equal(hops[4].sw, sw(&ft, "SW<20,2>"));
        assert_int_equal(hops[4].out_port, 1);
    }
    /* the four paths climb to four different top switches */
    for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 4; ++j) assert_int_not_equal(top[i], top[j]);

    /* cyclic groups of P(200) */
    struct { int level; const char *suffix; const char *members[3]; int n; } cg[] = {
        {0, "00", {"000", "100", "300"}, 3}, {0, "01", {"001", "101", "301"}, 3},
        {0, "10", {"010", "110", "310"}, 3}, {0, "11", {"011", "111", "311"}, 3},
        {1, "0", {"210"}, 1},               {1, "1", {"211"}, 1},
        {2, "", {"201"}, 1}};
    int covered = 0;
    for (size_t g = 0; g < sizeof(cg) / sizeof(cg[0]); ++g) {
        int suffix = (int) strtol(cg[g].suffix[0] ? cg[g].suffix : "0", NULL, 2);
        int out[16], count = -1;
        assert_int_equal(pm_ft_cyclic_group_members(&ft, p200, cg[g].level, suffix, out, 16, &count), PM_OK);
        assert_int_equal(count, cg[g].n);
        for (int k = 0; k < count; ++k) {
            assert_int_equal(out[k], node(&ft, cg[g].members[k]));
            int level = -1, suf = -1, len = -1;
            assert_int_equal(pm_ft_cyclic_group(&ft, p200, out[k], &level, &suf, &len), PM_OK);
            assert_int_equal(level, cg[g].level);
            assert_int_equal(suf, suffix);
            assert_int_equal(len, (int) strlen(cg[g].suffix));
            /* one group, one LID */
            assert_int_equal(pm_ft_select_lid(&ft, out[k], p200), pm_ft_select_lid(&ft, out[0], p200));
        }
        covered += count;
    }
    assert_int_equal(covered, 15);   /* every other node is in exactly one group */
}

static void test_seed_path_q(void **state)
{
    (void) state;
    pm_ft_t ft = ibft(4, 3, PM_FT_LIDS_SEED);
    /* sec 3.3.1: DLID 33 from P(000): SW<00,2>_1 _3, SW<00,1>_1 _3, SW<00,0>_1 _3,
     * SW<20,1>_3 _1, SW<20,2>_3 _1 */
    struct { const char *sw; int in, out; } q[] = {
        {"SW<00,2>", 1, 3}, {"SW<00,1>", 1, 3}, {"SW<00,0>", 1, 3}, {"SW<20,1>", 3, 1}, {"SW<20,2>", 3, 1}};
    pm_ft_hop_t hops[8];
    int nh = 0;
    assert_int_equal(pm_ft_route(&ft, node(&ft, "000"), 33, hops, 8, &nh), PM_OK);
    assert_int_equal(nh, 5);
    for (int i = 0; i < 5; ++i) {
        assert_int_equal(hops[i].sw, sw(&ft, q[i].sw));
        assert_int_equal(hops[i].in_port, q[i].in);
        assert_int_equal(hops[i].out_port, q[i].out);
        assert_int_equal(pm_ft_lft_port_lid(&ft, hops[i].sw, 33), q[i].out);
    }
    /* case 2 (up) at SW<00,2> and SW<00,1>, case 1 (down) from SW<00,0> on */
    assert_int_equal(pm_ft_port_is_up(&ft, sw(&ft, "SW<00,2>"), 3), 1);
    assert_int_equal(pm_ft_port_is_up(&ft, sw(&ft, "SW<00,0>"), 3), 0);
    /* too small a buffer is refused, with the length reported */
    assert_int_equal(pm_ft_route(&ft, node(&ft, "000"), 33, hops, 4, &nh), PM_ERR_ARG);
    assert_int_equal(nh, 5);
}

static void test_seed_fig6_fig7(void **state)
{
    (void) state;
    pm_ft_t ft = ibft(4, 3, PM_FT_LIDS_SEED);
    int src = node(&ft, "000");
    int members[4] = {node(&ft, "200"), node(&ft, "201"), node(&ft, "210"), node(&ft, "211")};
    /* Fig. 6: LIDs {33, 37, 41, 45}; all four routes take the same ascending path */
    const int want_lid[4] = {33, 37, 41, 45};
    pm_ft_hop_t first[8];
    for (int i = 0; i < 4; ++i) {
        int lid = pm_ft_select_lid(&ft, src, members[i]);
        assert_int_equal(lid, want_lid[i]);
        pm_ft_hop_t hops[8];
        int nh = 0;
        assert_int_equal(pm_ft_route(&ft, src, lid, hops, 8, &nh), PM_OK);
        assert_int_equal(nh, 5);
        if (i == 0) memcpy(first, hops, sizeof(hops));
        for (int h = 0; h < 3; ++h) {
            assert_int_equal(hops[h].sw, first[h].sw);
            assert_int_equal(hops[h].out_port, first[h].out_port);
        }
    }
    /* Fig. 7: SW<00,2> = SW<00,1> = SW<00,0> = {3}, SW<20,1> = SW<20,2> = SW<21,2> = {1, 2} */
    uint64_t mft[20];
    assert_int_equal(pm_ft_mft_cyclic(&ft, src, members, 4, PM_FT_MFT_UNION, mft), PM_OK);
    struct { const char *sw; uint64_t ports; } fig7[] = {
        {"SW<00,2>", 1u << 3}, {"SW<00,1>", 1u << 3}, {"SW<00,0>", 1u << 3},
        {"SW<20,1>", 1u << 1 | 1u << 2}, {"SW<20,2>", 1u << 1 | 1u << 2}, {"SW<21,2>", 1u << 1 | 1u << 2}};
    int set = 0;
    for (int s = 0; s < ft.nswitches; ++s) set += mft[s] != 0;
    assert_int_equal(set, 6);
    for (int i = 0; i < 6; ++i) assert_int_equal(mft[sw(&ft, fig7[i].sw)], fig7[i].ports);
    pm_ft_check_t c;
    assert_int_equal(pm_ft_mft_check(&ft, mft, src, members, 4, &c, NULL), PM_OK);
    assert_int_equal(c.reached, 4);
    assert_int_equal(c.missed + c.duplicated + c.spurious + c.up_splits + c.down_up + c.revisits + c.loop, 0);
    assert_int_equal(c.copies, 1 + 9);   /* injection + 3 up + 6 down links */
    /* Fig. 3c's failure mode: duplicating while ascending is caught */
    mft[sw(&ft, "SW<00,2>")] |= 1u << 4;
    mft[sw(&ft, "SW<01,1>")] |= 1u << 3;
    mft[sw(&ft, "SW<01,0>")] |= 1u << 3;
    mft[sw(&ft, "SW<21,1>")] |= 1u << 1 | 1u << 2;
    assert_int_equal(pm_ft_mft_check(&ft, mft, src, members, 4, &c, NULL), PM_OK);
    assert_true(c.up_splits > 0);
    assert_int_equal(c.duplicated, 4);
}

/* ------------------------------------------------------------ property sweeps */

static const int kShapes[][2] = {{4, 1}, {4, 2}, {4, 3}, {4, 4}, {8, 2}, {8, 3}, {16, 2}, {2, 3}};
#define NSHAPES (sizeof(kShapes) / sizeof(kShapes[0]))

static uint64_t rng_state;
static unsigned rnd(unsigned below)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned) (rng_state >> 33) % below;
}

static void test_wiring(void **state)
{
    (void) state;
    for (size_t k = 0; k < NSHAPES; ++k) {
        pm_ft_t ft = ibft(kShapes[k][0], kShapes[k][1], PM_FT_LIDS_SEED);
        int h = ft.half, n = ft.n;
        long hn1 = 1;
        for (int i = 0; i < n - 1; ++i) hn1 *= h;
        assert_int_equal(ft.nnodes, 2 * hn1 * h);
        assert_int_equal(ft.nswitches, (2 * n - 1) * hn1);
        assert_int_equal(ft.lids_per_node, hn1);
        int *seen = calloc(ft.nnodes, sizeof(int));
        for (int s = 0; s < ft.nswitches; ++s) {
            int level, w[PM_FT_MAX_N];
            assert_int_equal(pm_ft_switch_coords(&ft, s, &level, w), PM_OK);
            assert_int_equal(pm_ft_switch_id(&ft, level, w), s);
            char name[64];
            assert_int_equal(pm_ft_switch_name(&ft, s, name, sizeof(name)), PM_OK);
            assert_int_equal(pm_ft_switch_parse(&ft, name), s);
            assert_int_equal(pm_ft_switch_label(&ft, s, name, sizeof(name)), PM_OK);
            assert_int_equal(pm_ft_switch_parse(&ft, name), s);
            for (int p = 1; p <= ft.m; ++p) {
                pm_ft_peer_t pe, back;
                assert_int_equal(pm_ft_port_peer(&ft, s, p, &pe), PM_OK);
                int up = pm_ft_port_is_up(&ft, s, p);
                assert_int_equal(up, level > 0 && p > h);
                if (pe.is_node) {
                    assert_int_equal(level, n - 1);
                    int as, ap;
                    assert_int_equal(pm_ft_node_attach(&ft, pe.id, &as, &ap), PM_OK);
                    assert_int_equal(as, s);
                    assert_int_equal(ap, p);
                    ++seen[pe.id];
                    continue;
                }
                int pl;
                pm_ft_switch_coords(&ft, pe.id, &pl, NULL);
                assert_int_equal(pl, up ? level - 1 : level + 1);
                assert_int_equal(pm_ft_port_peer(&ft, pe.id, pe.port, &back), PM_OK);
                assert_int_equal(back.is_node, 0);
                assert_int_equal(back.id, s);
                assert_int_equal(back.port, p);
            }
            assert_int_equal(pm_ft_port_peer(&ft, s, 0, &(pm_ft_peer_t){0}), PM_ERR_ARG);
            assert_int_equal(pm_ft_port_peer(&ft, s, ft.m + 1, &(pm_ft_peer_t){0}), PM_ERR_ARG);
        }
        for (int v = 0; v < ft.nnodes; ++v) {
            assert_int_equal(seen[v], 1);
            int d[PM_FT_MAX_N];
            char label[64];
            assert_int_equal(pm_ft_node_digits(&ft, v, d), PM_OK);
            assert_int_equal(pm_ft_node_pid(&ft, d), v);
            assert_int_equal(pm_ft_node_label(&ft, v, label, sizeof(label)), PM_OK);
            assert_int_equal(pm_ft_node_parse(&ft, label), v);
            assert_int_equal(pm_ft_node_name(&ft, v, label, sizeof(label)), PM_OK);
            assert_int_equal(pm_ft_node_parse(&ft, label), v);
            assert_int_equal(pm_ft_gcpg_rank(&ft, v, 0), v);   /* PID = rank in gcpg(e, 0) */
        }
        free(seen);

        /* the native "fattree M N" topology of pathmc.h has the same nodes and links */
        char text[32], err[256];
        snprintf(text, sizeof(text), "fattree %d %d\n", ft.m, ft.n);
        pm_topology_t *topo = NULL;
        assert_int_equal(pm_topology_parse_string(text, PM_FMT_NATIVE, "t", &topo, err, sizeof(err)), PM_OK);
        assert_int_equal(pm_topology_nhosts(topo), ft.nnodes);
        assert_int_equal(pm_topology_nswitches(topo), ft.nswitches);
        int L = pm_topology_ndirected_links(topo);
        assert_int_equal(L, 2 * (ft.nnodes + (ft.nswitches * ft.m - ft.nnodes) / 2));
        for (int l = 0; l < L; l += 2) {
            const char *a, *b;
            int cls;
            assert_int_equal(pm_link_info(topo, l, &a, &b, &cls), PM_OK);
            int found = 0;
            int sa = a[0] == 's' ? pm_ft_switch_parse(&ft, a) : -1, sb = pm_ft_switch_parse(&ft, b);
            assert_true(sb >= 0);
            for (int p = 1; p <= ft.m && !found; ++p) {
                pm_ft_peer_t pe;
                pm_ft_port_peer(&ft, sb, p, &pe);
                found = sa >= 0 ? (!pe.is_node && pe.id == sa) : (pe.is_node && pe.id == pm_ft_node_parse(&ft, a));
            }
            assert_true(found);
        }
        pm_topology_free(topo);
    }
}

/* Switch chain P(s) climbs: SW<s0..s_l-1 s_l+1..s_n-1, l>. */
static int chain_switch(const pm_ft_t *ft, int s, int level)
{
    int d[PM_FT_MAX_N], w[PM_FT_MAX_N];
    pm_ft_node_digits(ft, s, d);
    for (int i = 0; i < ft->n - 1; ++i) w[i] = i < level ? d[i] : d[i + 1];
    return pm_ft_switch_id(ft, level, w);
}

static void test_routes_all_pairs(void **state)
{
    (void) state;
    for (size_t k = 0; k < NSHAPES; ++k) {
        for (int layout = 0; layout < 2; ++layout) {
            pm_ft_t ft = ibft(kShapes[k][0], kShapes[k][1], (pm_ft_lid_layout_t) layout);
            for (int v = 0; v < ft.nnodes; ++v) {
                int base = pm_ft_base_lid(&ft, v);
                assert_int_equal(base, (layout ? ft.lids_per_node : 1) + v * ft.lids_per_node);
                if (layout == PM_FT_LIDS_IBA) assert_int_equal(base % ft.lids_per_node, 0);
            }
            for (int s = 0; s < ft.nnodes; ++s) {
                for (int d = 0; d < ft.nnodes; ++d) {
                    if (s == d) continue;
                    int alpha = pm_ft_gcp(&ft, s, d);
                    int lid = pm_ft_select_lid(&ft, s, d), owner, rank;
                    assert_int_equal(pm_ft_lid_owner(&ft, lid, &owner, &rank), PM_OK);
                    assert_int_equal(owner, d);
                    assert_int_equal(rank, pm_ft_select_rank(&ft, s, d));
                    assert_int_equal(rank, alpha >= ft.n - 1 ? 0 : pm_ft_gcpg_rank(&ft, s, alpha + 1));
                    pm_ft_hop_t hops[2 * PM_FT_MAX_N];
                    int nh = 0;
                    assert_int_equal(pm_ft_route(&ft, s, lid, hops, 2 * PM_FT_MAX_N, &nh), PM_OK);
                    /* 2(n-1-alpha) + 1 switches: up to level alpha, then down */
                    assert_int_equal(nh, 2 * (ft.n - 1 - alpha) + 1);
                    int top = nh / 2, level;
                    for (int i = 0; i < nh; ++i) {
                        pm_ft_switch_coords(&ft, hops[i].sw, &level, NULL);
                        assert_int_equal(level, i <= top ? ft.n - 1 - i : alpha + (i - top));
                        if (i <= top) assert_int_equal(hops[i].sw, chain_switch(&ft, s, level));
                        assert_int_equal(pm_ft_port_is_up(&ft, hops[i].sw, hops[i].out_port), i < top);
                        assert_int_equal(pm_ft_lft_port_lid(&ft, hops[i].sw, lid), hops[i].out_port);
                    }
                    /* the turning switch is a least common ancestor */
                    int lca[4096], count;
                    assert_int_equal(pm_ft_lca(&ft, s, d, lca, 4096, &count), alpha);
                    int in_lca = 0;
                    for (int i = 0; i < count; ++i) in_lca |= lca[i] == hops[top].sw;
                    assert_true(in_lca);
                    pm_ft_peer_t last;
                    pm_ft_port_peer(&ft, hops[nh - 1].sw, hops[nh - 1].out_port, &last);
                    assert_true(last.is_node && last.id == d);
                }
            }
        }
    }
}

static void test_cyclic_groups_partition(void **state)
{
    (void) state;
    for (size_t k = 0; k < NSHAPES; ++k) {
        pm_ft_t ft = ibft(kShapes[k][0], kShapes[k][1], PM_FT_LIDS_SEED);
        int *buf = malloc(sizeof(int) * ft.nnodes);
        for (int d = 0; d < ft.nnodes; d += 1 + ft.nnodes / 7) {
            int total = 0;
            for (int level = 0; level < ft.n; ++level) {
                long groups = level == ft.n - 1 ? 1 : pm_ft_gcpg_size(&ft, level + 1);
                for (int y = 0; y < groups; ++y) {
                    int count = -1;
                    assert_int_equal(pm_ft_cyclic_group_members(&ft, d, level, y, buf, ft.nnodes, &count), PM_OK);
                    for (int i = 0; i < count; ++i)
                        assert_int_equal(pm_ft_select_lid(&ft, buf[i], d), pm_ft_base_lid(&ft, d) + y);
                    total += count;
                }
            }
            assert_int_equal(total, ft.nnodes - 1);
        }
        free(buf);
    }
}

static int random_members(const pm_ft_t *ft, int *out, int want)
{
    char *in = calloc(ft->nnodes, 1);
    int n = 0;
    while (n < want) {
        int v = (int) rnd((unsigned) ft->nnodes);
        if (in[v]) continue;
        in[v] = 1;
        out[n++] = v;
    }
    free(in);
    return n;
}

static void assert_clean(const pm_ft_check_t *c, int expect)
{
    assert_int_equal(c->reached, expect);
    assert_int_equal(c->missed, 0);
    assert_int_equal(c->duplicated, 0);
    assert_int_equal(c->spurious, 0);
    assert_int_equal(c->up_splits, 0);
    assert_int_equal(c->down_up, 0);
    assert_int_equal(c->revisits, 0);
    assert_int_equal(c->loop, 0);
}

static void test_mft_every_source(void **state)
{
    (void) state;
    rng_state = 4;
    for (size_t k = 0; k < NSHAPES; ++k) {
        pm_ft_t ft = ibft(kShapes[k][0], kShapes[k][1], PM_FT_LIDS_IBA);
        int N = ft.nnodes, L = pm_ft_ndlinks(&ft);
        int *mem = malloc(sizeof(int) * N);
        uint64_t *u = malloc(sizeof(uint64_t) * ft.nswitches), *t = malloc(sizeof(uint64_t) * ft.nswitches);
        long *load = malloc(sizeof(long) * L);
        for (int s = 0; s < N; ++s) {
            for (int rep = 0; rep < 3; ++rep) {
                int G = 1 + (int) rnd((unsigned) N);
                random_members(&ft, mem, G);
                int others = G;
                for (int i = 0; i < G; ++i) others -= mem[i] == s;
                pm_ft_check_t c;
                memset(load, 0, sizeof(long) * L);
                assert_int_equal(pm_ft_mft_cyclic(&ft, s, mem, G, PM_FT_MFT_UNION, u), PM_OK);
                assert_int_equal(pm_ft_mft_check(&ft, u, s, mem, G, &c, load), PM_OK);
                assert_clean(&c, others);
                /* one packet per link: a tree; at most one up port per switch */
                long sum = 0;
                for (int l = 0; l < L; ++l) {
                    assert_true(load[l] <= 1);
                    sum += load[l];
                }
                assert_int_equal(sum, c.copies);
                for (int x = 0; x < ft.nswitches; ++x) {
                    int ups = 0;
                    for (int p = 1; p <= ft.m; ++p) ups += (u[x] >> p & 1) && pm_ft_port_is_up(&ft, x, p);
                    assert_true(ups <= 1);
                    assert_int_equal(u[x] & 1, 0);
                }
                /* InfiniBand form: a superset, usable by every member as the sender */
                assert_int_equal(pm_ft_mft_cyclic(&ft, s, mem, G, PM_FT_MFT_TREE, t), PM_OK);
                for (int x = 0; x < ft.nswitches; ++x) assert_int_equal(u[x] & ~t[x], 0);
                if (rep == 0 && others > 0) {
                    int s_member = others < G;
                    for (int i = 0; i < G; ++i) {
                        assert_int_equal(pm_ft_mft_check(&ft, t, mem[i], mem, G, &c, NULL), PM_OK);
                        assert_int_equal(c.reached, G - 1);
                        /* a source outside the member set still has its port in the table */
                        assert_int_equal(c.spurious, s_member ? 0 : 1);
                        assert_int_equal(c.missed + c.duplicated + c.revisits + c.loop + c.up_splits + c.down_up,
                                         0);
                    }
                }
            }
        }
        free(mem);
        free(u);
        free(t);
        free(load);
    }
}

static void test_opensm_tree(void **state)
{
    (void) state;
    rng_state = 17;
    for (size_t k = 0; k < NSHAPES; ++k) {
        pm_ft_t ft = ibft(kShapes[k][0], kShapes[k][1], PM_FT_LIDS_IBA);
        int N = ft.nnodes;
        int *mem = malloc(sizeof(int) * N);
        uint64_t *t = malloc(sizeof(uint64_t) * ft.nswitches);
        for (int rep = 0; rep < 20; ++rep) {
            int G = 2 + (int) rnd((unsigned) N - 1);
            random_members(&ft, mem, G);
            int root = -1;
            assert_int_equal(pm_ft_mft_opensm(&ft, mem, G, t, &root), PM_OK);
            for (int i = 0; i < G; ++i) {
                pm_ft_check_t c;
                assert_int_equal(pm_ft_mft_check(&ft, t, mem[i], mem, G, &c, NULL), PM_OK);
                assert_int_equal(c.reached, G - 1);
                assert_int_equal(c.missed + c.duplicated + c.spurious + c.revisits + c.loop, 0);
            }
            /* members under more than one top-level subtree (p0 differs): OpenSM roots
             * every such group at the same switch, the lowest top-level one */
            int d0[PM_FT_MAX_N], d1[PM_FT_MAX_N], spread = 0;
            pm_ft_node_digits(&ft, mem[0], d0);
            for (int i = 1; i < G; ++i) {
                pm_ft_node_digits(&ft, mem[i], d1);
                spread |= d1[0] != d0[0];
            }
            if (spread && ft.n > 1) assert_int_equal(root, 0);
        }
        free(mem);
        free(t);
    }
}

static void test_group_policy(void **state)
{
    (void) state;
    pm_ft_t ft = ibft(4, 3, PM_FT_LIDS_IBA);
    int all[16];
    for (int i = 0; i < 16; ++i) all[i] = i;
    uint64_t m[20];
    int used = 0;
    /* P(000), P(100), P(300) share digits 1..n-1: their trees coincide, the union is used */
    int same[3] = {node(&ft, "000"), node(&ft, "100"), node(&ft, "300")};
    assert_int_equal(pm_ft_mft_group(&ft, same, 3, all, 16, m, &used), PM_OK);
    assert_int_equal(used, -1);
    /* P(011) and P(200) climb to different top switches: one tree, the first source's */
    int differ[2] = {node(&ft, "200"), node(&ft, "011")};
    assert_int_equal(pm_ft_mft_group(&ft, differ, 2, all, 16, m, &used), PM_OK);
    assert_int_equal(used, node(&ft, "011"));
    for (int s = 0; s < 16; ++s) {
        pm_ft_check_t c;
        assert_int_equal(pm_ft_mft_check(&ft, m, s, all, 16, &c, NULL), PM_OK);
        assert_int_equal(c.reached, 15);
        assert_int_equal(c.missed + c.duplicated + c.spurious + c.revisits + c.loop, 0);
    }
    /* and that union really would duplicate */
    uint64_t a[20], b[20];
    pm_ft_mft_cyclic(&ft, differ[0], all, 16, PM_FT_MFT_TREE, a);
    pm_ft_mft_cyclic(&ft, differ[1], all, 16, PM_FT_MFT_TREE, b);
    for (int s = 0; s < 20; ++s) a[s] |= b[s];
    pm_ft_check_t c;
    assert_int_equal(pm_ft_mft_check(&ft, a, differ[0], all, 16, &c, NULL), PM_OK);
    assert_true(c.revisits > 0 || c.duplicated > 0 || c.loop);
    /* sweep: random source sets over IBFT(8, 3), the result is always clean for every source */
    rng_state = 99;
    pm_ft_t big = ibft(8, 3, PM_FT_LIDS_IBA);
    int mem[128], src[8];
    uint64_t mm[80];
    for (int rep = 0; rep < 50; ++rep) {
        int G = 2 + (int) rnd(127);
        random_members(&big, mem, G);
        int S = 1 + (int) rnd(G < 8 ? (unsigned) G : 8u);
        for (int i = 0; i < S; ++i) src[i] = mem[i];
        assert_int_equal(pm_ft_mft_group(&big, src, S, mem, G, mm, &used), PM_OK);
        for (int i = 0; i < S; ++i) {
            assert_int_equal(pm_ft_mft_check(&big, mm, src[i], mem, G, &c, NULL), PM_OK);
            assert_int_equal(c.reached, G - 1);
            assert_int_equal(c.missed + c.duplicated + c.spurious + c.revisits + c.loop, 0);
        }
    }
}

static void test_switch_routes(void **state)
{
    (void) state;
    for (size_t k = 0; k < NSHAPES; ++k) {
        pm_ft_t ft = ibft(kShapes[k][0], kShapes[k][1], PM_FT_LIDS_IBA);
        unsigned char *port = malloc(ft.nswitches);
        for (int t = 0; t < ft.nswitches; ++t) {
            assert_int_equal(pm_ft_switch_route_ports(&ft, t, port), PM_OK);
            assert_int_equal(port[t], 0);
            for (int s = 0; s < ft.nswitches; ++s) {
                int cur = s, steps = 0;
                while (cur != t && steps <= 2 * ft.n) {
                    pm_ft_peer_t pe;
                    assert_int_equal(pm_ft_port_peer(&ft, cur, port[cur], &pe), PM_OK);
                    assert_int_equal(pe.is_node, 0);
                    cur = pe.id;
                    ++steps;
                }
                assert_int_equal(cur, t);
            }
        }
        free(port);
    }
}


static void test_scheme_loads(void **state)
{
    (void) state;
    rng_state = 23;
    assert_string_equal(pm_ft_scheme_name(PM_FT_SCHEME_OPENSM), "opensm");
    assert_null(pm_ft_scheme_name(PM_FT_NSCHEMES));
    assert_int_equal(pm_ft_scheme_lookup("cyclic-group"), PM_FT_SCHEME_CYCLIC_GROUP);
    assert_int_equal(pm_ft_scheme_lookup("tree"), PM_ERR_NOTFOUND);
    for (size_t k = 0; k < NSHAPES; ++k) {
        pm_ft_t ft = ibft(kShapes[k][0], kShapes[k][1], PM_FT_LIDS_IBA);
        int N = ft.nnodes, L = pm_ft_ndlinks(&ft), sw_links = ft.nswitches * ft.m;
        int *mem = malloc(sizeof(int) * N), *src = malloc(sizeof(int) * N);
        long *load = malloc(sizeof(long) * L);
        for (int rep = 0; rep < 6; ++rep) {
            int G = 1 + (int) rnd((unsigned) N), S = 1 + (int) rnd((unsigned) N);
            random_members(&ft, mem, G);
            random_members(&ft, src, S);
            char *in = calloc(N, 1);
            long want = 0;
            for (int i = 0; i < G; ++i) in[mem[i]] = 1;
            for (int i = 0; i < S; ++i) want += G - in[src[i]];
            for (int sc = 0; sc < PM_FT_NSCHEMES; ++sc) {
                pm_ft_check_t c;
                memset(load, 0, sizeof(long) * L);
                assert_int_equal(pm_ft_scheme_load(&ft, (pm_ft_scheme_t) sc, src, S, mem, G, load, &c), PM_OK);
                /* every scheme delivers each source's packet to every other member exactly once */
                assert_int_equal(c.reached, want);
                assert_int_equal(c.missed + c.duplicated + c.revisits + c.loop, 0);
                long sum = 0;
                for (int l = 0; l < L; ++l) sum += load[l];
                assert_int_equal(sum, c.copies);
                /* a member's ejection link carries one packet per source other than itself */
                for (int i = 0; i < G; ++i) {
                    int leaf, port, senders = 0;
                    pm_ft_node_attach(&ft, mem[i], &leaf, &port);
                    for (int j = 0; j < S; ++j) senders += src[j] != mem[i];
                    if (sc == PM_FT_SCHEME_CYCLIC || sc == PM_FT_SCHEME_UNICAST)
                        assert_int_equal(load[leaf * ft.m + port - 1], senders);
                    else
                        assert_true(load[leaf * ft.m + port - 1] >= senders);
                }
                /* injection: one packet per source (even with nobody to reach), unicast one per other member */
                for (int j = 0; j < S; ++j)
                    assert_int_equal(load[sw_links + src[j]], sc == PM_FT_SCHEME_UNICAST ? G - in[src[j]] : 1);
                if (sc == PM_FT_SCHEME_CYCLIC) assert_int_equal(c.spurious + c.up_splits + c.down_up, 0);
            }
            free(in);
        }
        free(mem);
        free(src);
        free(load);
    }
    pm_ft_t ft = ibft(4, 3, PM_FT_LIDS_IBA);
    assert_int_equal(pm_ft_scheme_load(&ft, PM_FT_SCHEME_CYCLIC, (int[]){0}, 0, (int[]){1}, 1, NULL, NULL), PM_ERR_ARG);
    assert_int_equal(pm_ft_scheme_load(&ft, PM_FT_NSCHEMES, (int[]){0}, 1, (int[]){1}, 1, NULL, NULL), PM_ERR_ARG);
}

/* ------------------------------------------------------------ files */

static int count_lines(const char *text, const char *prefix)
{
    int c = 0;
    size_t len = strlen(prefix);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        c += strncmp(p, prefix, len) == 0;
    return c;
}

static void test_writers(void **state)
{
    (void) state;
    pm_ft_t ft = ibft(4, 3, PM_FT_LIDS_IBA);
    char *net = NULL, err[256];
    assert_int_equal(pm_ft_write_ibnet(&ft, &net), PM_OK);
    assert_int_equal(count_lines(net, "Switch\t"), 20);
    assert_int_equal(count_lines(net, "Hca\t"), 16);
    assert_int_equal(count_lines(net, "switchguid=0x0053570000000001"), 1);
    pm_topology_t *topo = NULL;
    assert_int_equal(pm_topology_parse_string(net, PM_FMT_IBNET, "net", &topo, err, sizeof(err)), PM_OK);
    assert_int_equal(pm_topology_nhosts(topo), 16);
    assert_int_equal(pm_topology_nswitches(topo), 20);
    assert_int_equal(pm_topology_ndirected_links(topo), 2 * (16 + (20 * 4 - 16) / 2));
    pm_topology_free(topo);
    pm_free(net);

    /* guid2lid round trip; node LIDs other than the model's are refused */
    char *g2l = NULL;
    assert_int_equal(pm_ft_write_guid2lid(&ft, NULL, &g2l), PM_OK);
    assert_non_null(strstr(g2l, "0x0043410000000041 0x0010 0x0013\n"));   /* P(011): PID 3 */
    int lids[20];
    assert_int_equal(pm_ft_read_guid2lid(&ft, g2l, lids, err, sizeof(err)), PM_OK);
    for (int s = 0; s < 20; ++s) assert_int_equal(lids[s], 4 + 64 + s);
    char *bad = strdup(g2l);
    char *hit = strstr(bad, "0x0010 0x0013");
    memcpy(hit, "0x0011 0x0014", 13);
    assert_int_equal(pm_ft_read_guid2lid(&ft, bad, lids, err, sizeof(err)), PM_ERR_PARSE);
    assert_non_null(strstr(err, "P(011)"));
    free(bad);
    pm_free(g2l);
    uint64_t guid = pm_ft_node_port_guid(&ft, 5);
    int is_node = -1, id = -1;
    assert_int_equal(pm_ft_guid_lookup(&ft, guid, &is_node, &id), PM_OK);
    assert_true(is_node == 1 && id == 5);
    assert_int_equal(pm_ft_guid_lookup(&ft, guid + 1, &is_node, &id), PM_ERR_NOTFOUND);

    /* LFTs: one line per LID of every switch, ports as the model says */
    char *lft = NULL;
    int swl[20];
    for (int s = 0; s < 20; ++s) swl[s] = 1000 + s;
    assert_int_equal(pm_ft_write_lfts(&ft, swl, &lft), PM_OK);
    assert_int_equal(count_lines(lft, "Unicast lids"), 20);
    assert_int_equal(count_lines(lft, "0x"), 20 * (16 * 4 + 20));
    char want[128];
    int leaf = sw(&ft, "SW<00,2>");
    snprintf(want, sizeof(want), "0x%04x %03d : ", pm_ft_base_lid(&ft, node(&ft, "200")) + 1,
             pm_ft_lft_port(&ft, leaf, node(&ft, "200"), 1));
    assert_non_null(strstr(lft, want));
    assert_non_null(strstr(lft, "0x03e8 000 : (Switch portguid 0x0053570000000001: 'sw0-0.0')"));
    pm_free(lft);

    /* MFT of Fig. 7: an 'x' under ports 1 and 2 of SW<20,1> */
    uint64_t m[20];
    int members[4] = {node(&ft, "200"), node(&ft, "201"), node(&ft, "210"), node(&ft, "211")};
    pm_ft_mft_cyclic(&ft, node(&ft, "000"), members, 4, PM_FT_MFT_UNION, m);
    int mlid = 0xc001;
    char *mft = NULL;
    assert_int_equal(pm_ft_write_mfts(&ft, swl, 1, &mlid, m, &mft), PM_OK);
    assert_int_equal(count_lines(mft, "Multicast mlids"), 20);
    assert_int_equal(count_lines(mft, "0xc001"), 6);
    char *sec = strstr(mft, "(sw2-0.1):");
    assert_non_null(sec);
    char *ports = strstr(sec, "Ports:"), *row = strstr(sec, "0xc001");
    const char *hdr_line = ports - 5;
    assert_int_equal(hdr_line[12 + 2], '1');
    assert_int_equal(row[12 + 2], 'x');
    assert_int_equal(row[12 + 4], 'x');
    assert_int_equal(row[12 + 6], ' ');
    pm_free(mft);
    assert_int_equal(pm_ft_write_mfts(&ft, swl, 1, (int[]){5}, m, &mft), PM_ERR_ARG);

    /* the seed's unaligned LIDs cannot go into InfiniBand files; IBFT(16, 3) overflows */
    pm_ft_t seed = ibft(4, 3, PM_FT_LIDS_SEED);
    assert_int_equal(pm_ft_write_guid2lid(&seed, NULL, &g2l), PM_ERR_UNSUPPORTED);
    pm_ft_t huge = ibft(16, 3, PM_FT_LIDS_IBA);
    assert_int_equal(pm_ft_write_lfts(&huge, NULL, &lft), PM_ERR_UNSUPPORTED);
}

static void test_errors(void **state)
{
    (void) state;
    pm_ft_t ft;
    assert_int_equal(pm_ft_init(&ft, 6, 3, PM_FT_LIDS_SEED), PM_ERR_ARG);   /* m/2 = 3 */
    assert_int_equal(pm_ft_init(&ft, 5, 3, PM_FT_LIDS_SEED), PM_ERR_ARG);
    assert_int_equal(pm_ft_init(&ft, 4, 0, PM_FT_LIDS_SEED), PM_ERR_ARG);
    assert_int_equal(pm_ft_init(&ft, 64, 2, PM_FT_LIDS_SEED), PM_ERR_ARG);
    assert_int_equal(pm_ft_init(&ft, 4, 9, PM_FT_LIDS_SEED), PM_ERR_ARG);
    assert_int_equal(pm_ft_init(NULL, 4, 3, PM_FT_LIDS_SEED), PM_ERR_ARG);
    ft = ibft(4, 3, PM_FT_LIDS_SEED);
    assert_int_equal(pm_ft_node_parse(&ft, "400"), PM_ERR_ARG);   /* p0 < m */
    assert_int_equal(pm_ft_node_parse(&ft, "320"), PM_ERR_ARG);   /* p1 < m/2 */
    assert_int_equal(pm_ft_node_parse(&ft, "30"), PM_ERR_ARG);
    assert_int_equal(pm_ft_node_parse(&ft, "x"), PM_ERR_ARG);
    assert_int_equal(pm_ft_node_parse(&ft, "P(300)"), 12);
    assert_int_equal(pm_ft_node_parse(&ft, "3.0.0"), 12);
    assert_int_equal(pm_ft_switch_parse(&ft, "SW<40,1>"), PM_ERR_ARG);   /* w0 < m */
    assert_int_equal(pm_ft_switch_parse(&ft, "SW<20,0>"), PM_ERR_ARG);   /* level 0: w0 < m/2 */
    assert_int_equal(pm_ft_switch_parse(&ft, "SW<20,3>"), PM_ERR_ARG);
    assert_int_equal(pm_ft_node_digits(&ft, 16, (int[PM_FT_MAX_N]){0}), PM_ERR_ARG);
    assert_int_equal(pm_ft_lft_port(&ft, 0, 0, 4), PM_ERR_ARG);
    assert_int_equal(pm_ft_cyclic_group(&ft, 3, 3, NULL, NULL, NULL), PM_ERR_ARG);
    uint64_t m[20];
    assert_int_equal(pm_ft_mft_cyclic(&ft, 0, (int[]){99}, 1, PM_FT_MFT_UNION, m), PM_ERR_ARG);
    assert_int_equal(pm_ft_mft_group(&ft, NULL, 0, (int[]){1}, 1, m, NULL), PM_ERR_ARG);
    pm_ft_t zero;
    memset(&zero, 0, sizeof(zero));
    assert_int_equal(pm_ft_base_lid(&zero, 0), PM_ERR_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_lids),
        cmocka_unit_test(test_seed_definitions),
        cmocka_unit_test(test_seed_cyclic_selection),
        cmocka_unit_test(test_seed_path_q),
        cmocka_unit_test(test_seed_fig6_fig7),
        cmocka_unit_test(test_wiring),
        cmocka_unit_test(test_routes_all_pairs),
        cmocka_unit_test(test_cyclic_groups_partition),
        cmocka_unit_test(test_mft_every_source),
        cmocka_unit_test(test_opensm_tree),
        cmocka_unit_test(test_group_policy),
        cmocka_unit_test(test_switch_routes),
        cmocka_unit_test(test_scheme_loads),
        cmocka_unit_test(test_writers),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
