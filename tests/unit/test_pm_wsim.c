/*
 * Flit-level network simulator (pm_wsim.h).  On an idle network a single
 * worm's last flit reaches a destination's NI at
 *     t_hs + DMA + t_ns + t_link + h (t_route + t_xbar + t_link) + L - 1
 * and its host has it t_nr + DMA + t_hr later, h = switches the copy
 * crossed: checked for unicast (SSR, one host), multi-drop and tree-based
 * worms on generated irregular networks, over packet sizes, overheads and
 * pipeline latencies; h comes from pm_route (Lemma 5: a multi-drop worm is
 * piecewise minimal) or from decoding the tree header switch by switch,
 * never from the simulator.  Every scheme delivers a one-destination
 * multicast in the unicast time; the tree worm is fastest and the NI-based
 * scheme gains on the path-based one as R grows (seed Fig. 19); traffic runs
 * finish unsaturated at a low load and deterministically.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pm_wsim.h"

static uint64_t rng = 11;
static unsigned rnd(unsigned n)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng >> 33) % n);
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

/* switches on the up*-down* route between two hosts */
static int switches_between(const pm_topology_t *t, int a, int b)
{
    int links[256], nl;
    assert_int_equal(pm_route(t, PM_ROUTE_UPDOWN, pm_topology_host_name(t, a), pm_topology_host_name(t, b), links, 256,
                              &nl),
                     PM_OK);
    return nl - 1;
}

static long dma(const pm_wsim_params_t *p, int L)
{
    double c = (double)L * p->flit_bytes / p->bus_bytes_per_cycle;
    long x = (long)c;
    return x + (c - x > 1e-9);
}

static long closed_ni(const pm_wsim_params_t *p, int h)
{
    return p->t_hs + dma(p, p->packet_flits) + p->t_ns + p->t_link + (long)h * (p->t_route + p->t_xbar + p->t_link) +
           p->packet_flits - 1;
}

static long closed_host(const pm_wsim_params_t *p, int h)
{
    return closed_ni(p, h) + p->t_nr + dma(p, p->packet_flits) + p->t_hr;
}

static void random_params(pm_wsim_params_t *p, int i)
{
    pm_wsim_params_default(p);
    const int L[] = {128, 1, 7, 32, 64, 200};
    p->packet_flits = p->message_flits = L[i % 6];
    p->in_buf_flits = p->packet_flits > 640 ? p->packet_flits : 640;
    p->t_hs = (long)rnd(3000);
    p->t_hr = (long)rnd(3000);
    p->t_ns = (long)rnd(2000);
    p->t_nr = (long)rnd(2000);
    p->t_route = 1 + (int)rnd(3);
    p->t_xbar = 1 + (int)rnd(2);
    p->t_link = 1 + (int)rnd(3);
    p->out_buf_flits = 1 + (int)rnd(8);
    p->bus_bytes_per_cycle = i % 2 ? 266e6 * 5e-9 : 0.5 + rnd(100) / 10.0;
}

/* Tree-based worm: switches crossed to each destination, by decoding */
static void tree_depths(const pm_topology_t *t, const pm_reach_t *r, int src, const uint8_t *hdr, size_t len,
                        int *depth)
{
    struct item {
        int sw, in, d;
        uint8_t h[64];
        size_t len;
    } *q = malloc(sizeof(struct item) * 4096);
    int head = 0, tail = 0, links[64], nl;
    int other = src == 0 ? 1 : 0;
    assert_int_equal(pm_route(t, PM_ROUTE_UPDOWN, pm_topology_host_name(t, src), pm_topology_host_name(t, other),
                              links, 64, &nl),
                     PM_OK);
    q[tail].sw = pm_topology_host_switch(t, src);
    q[tail].in = links[0];
    q[tail].d = 1;
    memcpy(q[tail].h, hdr, len);
    q[tail++].len = len;
    while (head < tail) {
        struct item it = q[head++];
        pm_decode_out_t o[64];
        uint8_t buf[64 * 64];
        int no;
        assert_int_equal(pm_worm_decode(t, r, it.sw, it.in, it.h, it.len, 1, o, 64, &no, buf, sizeof buf), PM_OK);
        for (int i = 0; i < no; ++i) {
            if (o[i].to_host >= 0) {
                depth[o[i].to_host] = it.d;
                continue;
            }
            const char *to;
            pm_link_info(t, o[i].dlink, NULL, &to, NULL);
            int s = -1;
            for (int x = 0; x < pm_topology_nswitches(t); ++x)
                if (!strcmp(pm_topology_switch_name(t, x), to)) s = x;
            assert_true(tail < 4096);
            q[tail].sw = s;
            q[tail].in = o[i].dlink;
            q[tail].d = it.d + 1;
            memcpy(q[tail].h, buf + o[i].hdr_off, o[i].hdr_len);
            q[tail++].len = o[i].hdr_len;
        }
    }
    free(q);
}

static void test_single_worm_closed_form(void **state)
{
    (void)state;
    const int cfg[][3] = {{8, 8, 32}, {16, 8, 64}, {4, 16, 32}, {12, 6, 24}, {32, 8, 128}};
    char err[256];
    long checked = 0;
    for (size_t c = 0; c < sizeof cfg / sizeof *cfg; ++c)
        for (uint64_t seed = 1; seed <= 2; ++seed) {
            pm_topology_t *t = generated(cfg[c][0], cfg[c][1], cfg[c][2], seed);
            int H = pm_topology_nhosts(t);
            long *ni = malloc(sizeof(long) * H), *hd = malloc(sizeof(long) * H);
            int *depth = malloc(sizeof(int) * H), *d = malloc(sizeof(int) * H);
            pm_reach_t *r;
            assert_int_equal(pm_reach_build(t, &r), PM_OK);
            for (int trial = 0; trial < 12; ++trial) {
                pm_wsim_params_t p;
                random_params(&p, trial);
                pm_wsim_t *sim;
                assert_int_equal(pm_wsim_create(t, &p, &sim, err, sizeof err), PM_OK);
                int src = (int)rnd((unsigned)H), dst = (int)rnd((unsigned)H);
                if (dst == src) dst = (dst + 1) % H;
                uint8_t hdr[256];
                size_t len;
                /* unicast = SSR worm to one host */
                int sw = pm_topology_host_switch(t, dst);
                pm_worm_t w = {PM_WORM_SSR, 0, src, 1, &dst, 1, &sw};
                assert_int_equal(pm_worm_encode(t, &w, hdr, sizeof hdr, &len), PM_OK);
                assert_int_equal(pm_wsim_worm(sim, src, hdr, len, ni, hd), PM_OK);
                int h = switches_between(t, src, dst);
                for (int x = 0; x < H; ++x) {
                    assert_int_equal(ni[x], x == dst ? closed_ni(&p, h) : -1);
                    assert_int_equal(hd[x], x == dst ? closed_host(&p, h) : -1);
                }
                ++checked;
                /* multi-drop worms of an LG plan: h = 1 + piecewise minimal distances */
                int k = 1 + (int)rnd((unsigned)(H - 1)), m = 0;
                for (int i = 0; i < H; ++i)
                    if (i != src) d[m++] = i;
                for (int i = 0; i < k; ++i) {
                    int j = i + (int)rnd((unsigned)(m - i)), x = d[i];
                    d[i] = d[j];
                    d[j] = x;
                }
                pm_mcast_plan_t *pl;
                assert_int_equal(pm_mcast_plan(t, PM_WORM_PATH, PM_PHASE_LESS_GREEDY, src, k, d, &pl, err, sizeof err),
                                 PM_OK);
                for (int i = 0; i < pl->nworms; ++i) {
                    pm_worm_t *x = &pl->worms[i];
                    assert_int_equal(pm_worm_encode(t, x, hdr, sizeof hdr, &len), PM_OK);
                    assert_int_equal(pm_wsim_worm(sim, x->sender, hdr, len, ni, hd), PM_OK);
                    int hops = 1, prev = x->sender, j = 0;
                    for (int s = 0; s < x->nswitches; ++s) {
                        int first = x->dests[j];
                        hops += switches_between(t, prev, first) - 1;
                        for (; j < x->ndests && pm_topology_host_switch(t, x->dests[j]) == x->switches[s]; ++j) {
                            assert_int_equal(ni[x->dests[j]], closed_ni(&p, hops));
                            assert_int_equal(hd[x->dests[j]], closed_host(&p, hops));
                            ++checked;
                        }
                        prev = first;
                    }
                    assert_int_equal(j, x->ndests);
                }
                pm_mcast_plan_free(pl);
                /* tree-based worm to the same set */
                assert_int_equal(pm_tree_header_encode(t, k, d, hdr, sizeof hdr, &len), PM_OK);
                assert_int_equal(pm_wsim_worm(sim, src, hdr, len, ni, hd), PM_OK);
                for (int x = 0; x < H; ++x) depth[x] = -1;
                tree_depths(t, r, src, hdr, len, depth);
                for (int x = 0; x < H; ++x) {
                    assert_int_equal(ni[x], depth[x] < 0 ? -1 : closed_ni(&p, depth[x]));
                    if (depth[x] >= 0) ++checked;
                }
                pm_wsim_free(sim);
            }
            pm_reach_free(r);
            free(ni);
            free(hd);
            free(depth);
            free(d);
            pm_topology_free(t);
        }
    printf("  %ld worm deliveries equal the closed form\n", checked);
}

/* Step NI model: m packets to one destination; the NI starts packet i+1
 * when the receiver has processed packet i (the DMA of a packet is shorter
 * than a step here), so the last packet reaches the NI at
 * t_hs + DMA + m (t_ns + net) + (m-1) t_nr; pipelined: the NI sends back to
 * back, t_hs + DMA + m t_ns + net when t_ns >= DMA and t_nr <= t_ns. */
static void test_packets_closed_form(void **state)
{
    (void)state;
    pm_topology_t *t = generated(8, 8, 32, 4);
    char err[256];
    for (int step = 0; step <= 1; ++step)
        for (int m = 1; m <= 6; ++m) {
            pm_wsim_params_t p;
            pm_wsim_params_default(&p);
            p.ni_step = step;
            p.packet_flits = 64;
            p.message_flits = 64 * m;
            pm_wsim_t *sim;
            assert_int_equal(pm_wsim_create(t, &p, &sim, err, sizeof err), PM_OK);
            for (int dst = 1; dst < 32; dst += 6) {
                int h = switches_between(t, 0, dst);
                long net = p.t_link + (long)h * (p.t_route + p.t_xbar + p.t_link) + p.packet_flits - 1;
                long last = p.t_hs + dma(&p, 64) + (step ? m * (p.t_ns + net) + (m - 1) * p.t_nr : m * p.t_ns + net);
                long want = last + p.t_nr + dma(&p, 64) + p.t_hr;
                for (int s = 0; s < PM_WSIM_NSCHEMES; ++s) {
                    if (s == PM_WSIM_TREE) continue;
                    pm_wsim_result_t res;
                    assert_int_equal(pm_wsim_multicast(sim, s, 0, 1, &dst, NULL, &res), PM_OK);
                    assert_int_equal(res.latency, want);
                }
            }
            pm_wsim_free(sim);
        }
    pm_topology_free(t);
}

/* a multicast to one destination costs one unicast under every scheme */
static void test_one_destination(void **state)
{
    (void)state;
    pm_topology_t *t = generated(8, 8, 32, 3);
    pm_wsim_params_t p;
    pm_wsim_params_default(&p);
    pm_wsim_t *sim;
    char err[256];
    assert_int_equal(pm_wsim_create(t, &p, &sim, err, sizeof err), PM_OK);
    for (int src = 0; src < 32; src += 5)
        for (int dst = 1; dst < 32; dst += 7) {
            if (dst == src) continue;
            for (int s = 0; s < PM_WSIM_NSCHEMES; ++s) {
                pm_wsim_result_t res;
                long done;
                assert_int_equal(pm_wsim_multicast(sim, s, src, 1, &dst, &done, &res), PM_OK);
                if (s == PM_WSIM_TREE) continue;   /* goes up to a covering switch: not always minimal */
                assert_int_equal(res.latency, closed_host(&p, switches_between(t, src, dst)));
                assert_int_equal(done, res.latency);
                assert_int_equal(res.phases, 1);
            }
        }
    pm_wsim_result_t res;
    assert_int_equal(pm_wsim_multicast(sim, PM_WSIM_TREE, 0, 0, NULL, NULL, &res), PM_OK);
    assert_int_equal(res.latency, 0);
    pm_wsim_free(sim);
    pm_topology_free(t);
}

/* The model's directions on the default system (32 hosts, eight 8-port
 * switches): the tree worm is fastest; as R grows the NI-based scheme gains
 * on the path-based one; more packets favour the NI-based scheme. */
static void test_trends(void **state)
{
    (void)state;
    pm_topology_t *t = generated(8, 8, 32, 1);
    char err[256];
    int d[31];
    for (int i = 0; i < 31; ++i) d[i] = i + 1;
    long lat[3][PM_WSIM_NSCHEMES];
    const long tns[3] = {2000, 1000, 200};
    for (int i = 0; i < 3; ++i) {
        pm_wsim_params_t p;
        pm_wsim_params_default(&p);
        p.t_ns = p.t_nr = tns[i];
        pm_wsim_t *sim;
        assert_int_equal(pm_wsim_create(t, &p, &sim, err, sizeof err), PM_OK);
        for (int s = 0; s < PM_WSIM_NSCHEMES; ++s) {
            pm_wsim_result_t res;
            assert_int_equal(pm_wsim_multicast(sim, s, 0, 31, d, NULL, &res), PM_OK);
            lat[i][s] = res.latency;
        }
        assert_true(lat[i][PM_WSIM_TREE] < lat[i][PM_WSIM_PATH_LG]);
        assert_true(lat[i][PM_WSIM_TREE] < lat[i][PM_WSIM_NI_KBINOMIAL]);
        assert_true(lat[i][PM_WSIM_PATH_LG] <= lat[i][PM_WSIM_SSR_LG]);
        pm_wsim_free(sim);
    }
    /* NI / path ratio falls as R = t_hs / t_ns rises (0.5, 1, 5) */
    double q0 = (double)lat[0][0] / lat[0][1], q1 = (double)lat[1][0] / lat[1][1], q2 = (double)lat[2][0] / lat[2][1];
    printf("  NI-based / path-based LG at R = 0.5, 1, 5: %.2f %.2f %.2f\n", q0, q1, q2);
    assert_true(q0 > q1 && q1 > q2);
    assert_true(q0 > 1.0 && q2 < 1.0);
    /* 4 packets of 32 flits cost every scheme more than 1 of 128 */
    pm_wsim_params_t p;
    pm_wsim_params_default(&p);
    p.packet_flits = 32;
    pm_wsim_t *sim;
    assert_int_equal(pm_wsim_create(t, &p, &sim, err, sizeof err), PM_OK);
    for (int s = 0; s < PM_WSIM_NSCHEMES; ++s) {
        pm_wsim_result_t r;
        assert_int_equal(pm_wsim_multicast(sim, s, 0, 31, d, NULL, &r), PM_OK);
        assert_true(r.latency > lat[1][s]);
    }
    pm_wsim_free(sim);
    pm_topology_free(t);
}

static void test_load(void **state)
{
    (void)state;
    pm_topology_t *t = generated(8, 8, 32, 2);
    pm_wsim_params_t p;
    pm_wsim_params_default(&p);
    pm_wsim_t *sim;
    char err[256];
    assert_int_equal(pm_wsim_create(t, &p, &sim, err, sizeof err), PM_OK);
    pm_wsim_load_t ld = {3, 0.02, 20000, 60000, 400000, 5};
    for (int s = 0; s < 3; ++s) {
        pm_wsim_load_result_t a, b;
        pm_wsim_result_t idle;
        int d[3] = {1, 2, 3};
        assert_int_equal(pm_wsim_run_load(sim, s, &ld, &a), PM_OK);
        assert_int_equal(pm_wsim_run_load(sim, s, &ld, &b), PM_OK);
        assert_true(a.measured > 10);
        assert_int_equal(a.finished, a.measured);
        assert_false(a.saturated);
        assert_true(a.mean_latency == b.mean_latency && a.flit_hops == b.flit_hops);
        assert_int_equal(pm_wsim_multicast(sim, s, 0, 3, d, NULL, &idle), PM_OK);
        printf("  %-13s degree 3, load 0.02: %ld multicasts, mean latency %.0f cycles\n", pm_wsim_scheme_name(s),
               a.measured, a.mean_latency);
        assert_true(a.mean_latency > 0.5 * idle.latency);
    }
    pm_wsim_load_t bad = ld;
    bad.degree = 40;
    pm_wsim_load_result_t r;
    assert_int_equal(pm_wsim_run_load(sim, 0, &bad, &r), PM_ERR_ARG);
    pm_wsim_free(sim);
    /* parameter checks */
    p.in_buf_flits = p.packet_flits - 1;
    assert_int_equal(pm_wsim_create(t, &p, &sim, err, sizeof err), PM_ERR_ARG);
    pm_wsim_params_default(&p);
    p.t_link = 0;
    assert_int_equal(pm_wsim_create(t, &p, &sim, err, sizeof err), PM_ERR_ARG);
    pm_topology_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_worm_closed_form),
        cmocka_unit_test(test_one_destination),
        cmocka_unit_test(test_packets_closed_form),
        cmocka_unit_test(test_trends),
        cmocka_unit_test(test_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
