/*
 * The reliable-multicast protocol (pm_mcproto.h): CRC32C vectors, the wire format
 * (round trip, every truncation and every single-bit flip rejected), the state machine's
 * API rules, and the protocol on the simulated lossy network: group sizes 2..64, messages
 * 0 B..16 MiB, loss 0/1/5/20 %, duplicates, reordering, slow receivers with small socket
 * buffers, start skew, foreign datagrams, dead receivers.  Properties checked on every
 * run: no hang; every live rank completes (or, with a dead peer, every live rank ends
 * with an error); every byte reaches every receiver's buffer exactly once (DELIVER ranges
 * tile [0, M) without overlap) and equals the root's; foreign datagrams are counted in
 * their class and never reach a buffer; the root's uplink carries M (1 + H/C) bytes
 * whatever the group size.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pm_mcproto.h"

/* ---------------------------------------------------------------------------
 * Helpers: delivery log per rank, buffers
 * ------------------------------------------------------------------------- */
typedef struct range {
    uint64_t off, len;
} range_t;

typedef struct log_s {
    uint32_t n;
    range_t **r;
    size_t *cnt, *cap;
} log_t;

static void log_init(log_t *l, uint32_t n)
{
    l->n = n;
    l->r = calloc(n, sizeof *l->r);
    l->cnt = calloc(n, sizeof *l->cnt);
    l->cap = calloc(n, sizeof *l->cap);
    assert_non_null(l->r);
    assert_non_null(l->cnt);
    assert_non_null(l->cap);
}

static void log_free(log_t *l)
{
    for (uint32_t i = 0; i < l->n; ++i) free(l->r[i]);
    free(l->r);
    free(l->cnt);
    free(l->cap);
}

static void on_deliver(void *ctx, uint32_t rank, uint64_t off, uint64_t len)
{
    log_t *l = ctx;
    if (l->cnt[rank] == l->cap[rank]) {
        l->cap[rank] = l->cap[rank] ? 2 * l->cap[rank] : 64;
        l->r[rank] = realloc(l->r[rank], l->cap[rank] * sizeof(range_t));
        assert_non_null(l->r[rank]);
    }
    l->r[rank][l->cnt[rank]++] = (range_t){off, len};
}

static int by_off(const void *a, const void *b)
{
    const range_t *x = a, *y = b;
    return (x->off > y->off) - (x->off < y->off);
}

/* Deliveries of one rank tile [0, M) exactly once. */
static void check_tiling(log_t *l, uint32_t rank, uint64_t bytes, const char *what)
{
    if (l->cnt[rank] > 0) /* qsort(NULL, 0, ...) is undefined */
        qsort(l->r[rank], l->cnt[rank], sizeof(range_t), by_off);
    uint64_t at = 0;
    for (size_t i = 0; i < l->cnt[rank]; ++i) {
        if (l->r[rank][i].off != at || l->r[rank][i].len == 0)
            fail_msg("%s: rank %u delivery %zu is [%llu,+%llu), expected offset %llu (overlap or gap)", what, rank, i,
                     (unsigned long long)l->r[rank][i].off, (unsigned long long)l->r[rank][i].len,
                     (unsigned long long)at);
        at += l->r[rank][i].len;
    }
    if (at != bytes) fail_msg("%s: rank %u got %llu of %llu bytes", what, rank, (unsigned long long)at,
                              (unsigned long long)bytes);
}

static uint8_t **make_bufs(uint32_t n, uint32_t root, uint64_t bytes, uint64_t seed)
{
    uint8_t **b = calloc(n, sizeof *b);
    assert_non_null(b);
    for (uint32_t r = 0; r < n; ++r) {
        b[r] = malloc(bytes ? bytes : 1);
        assert_non_null(b[r]);
        memset(b[r], 0xA5, bytes); /* poison: equals neither the data nor a foreign payload */
    }
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (uint64_t i = 0; i < bytes; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        b[root][i] = (uint8_t)(x >> 24);
    }
    return b;
}

static void free_bufs(uint8_t **b, uint32_t n)
{
    for (uint32_t r = 0; r < n; ++r) free(b[r]);
    free(b);
}

typedef struct outcome {
    pm_mcsim_rank_t ranks[64];
    pm_mcsim_result_t res;
} outcome_t;

/* Runs one simulated broadcast and checks the success properties; returns the outcome. */
static void run_ok(const pm_mcsim_params_t *p, outcome_t *o, const char *what)
{
    log_t l;
    log_init(&l, p->n);
    uint8_t **b = make_bufs(p->n, p->root, p->bytes, p->seed);
    assert_true(p->n <= 64);
    assert_int_equal(pm_mcsim_run(p, (void *const *)b, on_deliver, &l, o->ranks, &o->res), PM_MC_OK);
    if (o->res.hung) fail_msg("%s: hang (simulated time %llu ns)", what, (unsigned long long)o->res.end_ns);
    for (uint32_t r = 0; r < p->n; ++r) {
        if (o->ranks[r].status != PM_MC_OK)
            fail_msg("%s: rank %u ended with %d (%s)", what, r, o->ranks[r].status,
                     pm_mc_strerror(o->ranks[r].status));
        if (r == p->root) {
            if (l.cnt[r] != 0) fail_msg("%s: the root got deliveries", what);
            continue;
        }
        check_tiling(&l, r, p->bytes, what);
        if (p->bytes && memcmp(b[r], b[p->root], p->bytes) != 0)
            fail_msg("%s: rank %u buffer differs from the root's", what, r);
        if (o->ranks[r].stats.delivered_bytes != p->bytes)
            fail_msg("%s: rank %u delivered_bytes %llu", what, r,
                     (unsigned long long)o->ranks[r].stats.delivered_bytes);
    }
    free_bufs(b, p->n);
    log_free(&l);
}

static void sim_defaults(pm_mcsim_params_t *p, uint32_t n, uint32_t root, uint64_t bytes, double loss, uint64_t seed)
{
    pm_mcsim_params_default(p);
    p->n = n;
    p->root = root;
    p->bytes = bytes;
    p->loss = loss;
    p->seed = seed;
    p->sndbuf_bytes = 256 * 1024;
    p->max_time_ns = 60ull * 1000000000ull;
}

/* ---------------------------------------------------------------------------
 * CRC32C and wire format
 * ------------------------------------------------------------------------- */
static void test_crc32c(void **state)
{
    (void)state;
    uint8_t b[32];
    memset(b, 0, 32);
    assert_int_equal(pm_mc_crc32c(0, b, 32), 0x8A9136AAu); /* RFC 3720 B.4 */
    memset(b, 0xFF, 32);
    assert_int_equal(pm_mc_crc32c(0, b, 32), 0x62A8AB43u);
    for (int i = 0; i < 32; ++i) b[i] = (uint8_t)i;
    assert_int_equal(pm_mc_crc32c(0, b, 32), 0x46DD794Eu);
    for (int i = 0; i < 32; ++i) b[i] = (uint8_t)(31 - i);
    assert_int_equal(pm_mc_crc32c(0, b, 32), 0x113FDB5Cu);
    assert_int_equal(pm_mc_crc32c(0, "123456789", 9), 0xE3069283u);
    assert_int_equal(pm_mc_crc32c_soft(0, "123456789", 9), 0xE3069283u);
    /* hardware and table paths agree at every alignment and length; continuation works */
    static uint8_t big[1200];
    for (size_t i = 0; i < sizeof big; ++i) big[i] = (uint8_t)(i * 131 + 7);
    for (size_t a = 0; a < 9; ++a)
        for (size_t len = 0; len + a <= 300; ++len) {
            uint32_t h = pm_mc_crc32c(0, big + a, len), s = pm_mc_crc32c_soft(0, big + a, len);
            assert_int_equal(h, s);
            for (size_t cut = 0; cut <= len; cut += 37)
                assert_int_equal(pm_mc_crc32c(pm_mc_crc32c(0, big + a, cut), big + a + cut, len - cut), h);
        }
}

static void test_wire(void **state)
{
    (void)state;
    uint8_t pl[300], msg[400], bad[401];
    for (size_t i = 0; i < sizeof pl; ++i) pl[i] = (uint8_t)(i ^ 0x3C);
    for (int type = PM_MC_T_DATA; type <= PM_MC_T_PROBE; ++type) {
        for (size_t plen = 0; plen <= 300; plen += 150) {
            pm_mc_hdr_t h = {PM_MC_VERSION, (uint8_t)type, 0xC0FFEE, 0x0123456789ABCDEFull, 77, 5,
                             (uint32_t)type * 1000, 0, PM_MC_MAX_OFFSET - 5, (uint32_t)plen};
            size_t len = pm_mc_encode(&h, pl, plen, msg, sizeof msg);
            assert_int_equal(len, PM_MC_HDR_BYTES + plen);
            pm_mc_hdr_t g;
            const uint8_t *p;
            assert_int_equal(pm_mc_parse(msg, len, &g, &p), PM_MC_RX_ACCEPTED);
            assert_int_equal(g.type, type);
            assert_int_equal(g.ctx, h.ctx);
            assert_true(g.job == h.job);
            assert_int_equal(g.epoch, 77);
            assert_int_equal(g.root, 5);
            assert_int_equal(g.seq, h.seq);
            assert_true(g.offset == h.offset);
            assert_int_equal(g.len, plen);
            assert_ptr_equal(p, msg + PM_MC_HDR_BYTES);
            assert_memory_equal(p, pl, plen);
            /* every truncation */
            for (size_t cut = 0; cut < len; ++cut) assert_int_equal(pm_mc_parse(msg, cut, &g, &p), PM_MC_RX_TRUNCATED);
            /* a trailing byte */
            memcpy(bad, msg, len);
            bad[len] = 0;
            assert_int_equal(pm_mc_parse(bad, len + 1, &g, &p), PM_MC_RX_BAD_LENGTH);
            /* every single-bit flip is rejected (CRC32C detects all 1-bit errors) */
            for (size_t bit = 0; bit < len * 8; ++bit) {
                memcpy(bad, msg, len);
                bad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
                assert_int_not_equal(pm_mc_parse(bad, len, &g, &p), PM_MC_RX_ACCEPTED);
            }
        }
    }
    pm_mc_hdr_t h = {PM_MC_VERSION, PM_MC_T_DATA, 1, 2, 3, 4, 5, 0, 0, 10};
    assert_int_equal(pm_mc_encode(&h, pl, 9, msg, sizeof msg), 0);   /* len mismatch */
    assert_int_equal(pm_mc_encode(&h, pl, 10, msg, 49), 0);          /* cap */
    h.offset = PM_MC_MAX_OFFSET + 1;
    assert_int_equal(pm_mc_encode(&h, pl, 10, msg, sizeof msg), 0);  /* offset */
    h.offset = 0;
    size_t len = pm_mc_encode(&h, pl, 10, msg, sizeof msg);
    msg[0] ^= 1;
    assert_int_equal(pm_mc_parse(msg, len, NULL, NULL), PM_MC_RX_BAD_MAGIC);
    msg[0] ^= 1;
    msg[2] = 2;
    assert_int_equal(pm_mc_parse(msg, len, NULL, NULL), PM_MC_RX_BAD_VERSION);
    msg[2] = 1;
    msg[3] = 0;
    assert_int_equal(pm_mc_parse(msg, len, NULL, NULL), PM_MC_RX_BAD_TYPE);
    msg[3] = 1;
    msg[30] ^= 0x10;
    assert_int_equal(pm_mc_parse(msg, len, NULL, NULL), PM_MC_RX_BAD_CRC);
    assert_int_equal(pm_mc_parse(NULL, 0, NULL, NULL), PM_MC_RX_TRUNCATED);
}

/* ---------------------------------------------------------------------------
 * State machine API rules (no network)
 * ------------------------------------------------------------------------- */
static void test_api(void **state)
{
    (void)state;
    pm_mc_params_t p;
    pm_mc_params_default(&p);
    int err;
    p.size = 4;
    p.rank = 4;
    assert_null(pm_mc_create(&p, &err));
    assert_int_equal(err, PM_MC_ERR_ARG);
    p.rank = 1;
    p.ack_fanin = 0;
    assert_null(pm_mc_create(&p, &err));
    p.ack_fanin = 2;
    p.chunk_bytes = 8;
    assert_null(pm_mc_create(&p, &err));
    p.chunk_bytes = 1432;
    p.window_bytes = 100;
    assert_null(pm_mc_create(&p, &err));
    p.window_bytes = 1 << 20;
    p.bandwidth_Bps = 0;
    assert_null(pm_mc_create(&p, &err));
    p.bandwidth_Bps = 125e6;
    p.job = 42;
    p.ctx = 3;
    pm_mc_t *sm = pm_mc_create(&p, &err);
    assert_non_null(sm);
    size_t cap = pm_mc_max_message(sm);
    assert_true(cap >= PM_MC_HDR_BYTES + 1432);
    uint8_t *out = malloc(cap);
    uint8_t buf[4096], dg[2000];
    pm_mc_action_t a;

    /* before any start: a datagram of this job/communicator is FUTURE */
    pm_mc_hdr_t h = {PM_MC_VERSION, PM_MC_T_DATA, 3, 42, 9, 0, 0, 0, 0, 1432};
    memset(buf, 0x11, sizeof buf);
    size_t len = pm_mc_encode(&h, buf, 1432, dg, sizeof dg);
    assert_int_equal(pm_mc_on_datagram(sm, dg, len, 0), PM_MC_RX_FUTURE_EPOCH);
    assert_int_equal(pm_mc_next(sm, 0, &a, out, cap - 1), PM_MC_ERR_ARG);
    assert_int_equal(pm_mc_next(sm, 0, &a, out, cap), PM_MC_OK);
    assert_int_equal(a.kind, PM_MC_ACT_NONE);

    /* M = 0: complete at once, nothing sent */
    assert_int_equal(pm_mc_start(sm, 8, 0, NULL, 0, 0), PM_MC_OK);
    assert_int_equal(pm_mc_start(sm, 9, 0, NULL, 0, 0), PM_MC_ERR_ARG); /* still active */
    assert_true(pm_mc_active(sm));
    assert_int_equal(pm_mc_next(sm, 1, &a, out, cap), PM_MC_OK);
    assert_int_equal(a.kind, PM_MC_ACT_COMPLETE);
    assert_false(pm_mc_active(sm));
    /* the empty collective consumed no epoch: epoch 8 is still ahead */
    assert_int_equal(pm_mc_on_datagram(sm, dg, len, 0), PM_MC_RX_FUTURE_EPOCH);
    assert_int_equal(pm_mc_start(sm, 9, 4, buf, 10, 0), PM_MC_ERR_ARG); /* root out of range */

    /* epoch 9, root 0, 3000 bytes: identity checks on a receiver */
    uint8_t rbuf[3000];
    memset(rbuf, 0, sizeof rbuf);
    assert_int_equal(pm_mc_start(sm, 9, 0, rbuf, 3000, 0), PM_MC_OK);
    assert_int_equal(pm_mc_provide(sm, 10), PM_MC_ERR_ARG); /* not the root */
    assert_int_equal(pm_mc_on_datagram(sm, dg, len, 1), PM_MC_RX_ACCEPTED);
    assert_int_equal(pm_mc_on_datagram(sm, dg, len, 2), PM_MC_RX_DUPLICATE);
    h.epoch = 8;
    len = pm_mc_encode(&h, buf, 1432, dg, sizeof dg);
    assert_int_equal(pm_mc_on_datagram(sm, dg, len, 3), PM_MC_RX_STALE_EPOCH);
    h.epoch = 10;
    len = pm_mc_encode(&h, buf, 1432, dg, sizeof dg);
    assert_int_equal(pm_mc_on_datagram(sm, dg, len, 3), PM_MC_RX_FUTURE_EPOCH);
    h.epoch = 12;
    len = pm_mc_encode(&h, buf, 1432, dg, sizeof dg);
    assert_int_equal(pm_mc_on_datagram(sm, dg, len, 3), PM_MC_RX_FAR_EPOCH);
    h.epoch = 9;
    h.job = 43;
    len = pm_mc_encode(&h, buf, 1432, dg, sizeof dg);
    assert_int_equal(pm_mc_on_datagram(sm, dg, len, 3), PM_MC_RX_FOREIGN_JOB);
    h.job = 42;
    h.ctx = 4;
    len = pm_mc_encode(&h, buf, 1432, dg, sizeof dg);
    assert_int_equal(pm_mc_on_datagram(sm, dg, len, 3), PM_MC_RX_FOREIGN_CTX);
    h.ctx = 3;
    h.root = 2;
    len = pm_mc_encode(&h, buf, 1432, dg, sizeof dg);
    assert_int_equal(pm_mc_on_datagram(sm, dg, len, 3), PM_MC_RX_BAD_ROOT);
    h.root = 0;
    h.seq = 2; /* offset 0 but seq 2 */
    len = pm_mc_encode(&h, buf, 1432, dg, sizeof dg);
    assert_int_equal(pm_mc_on_datagram(sm, dg, len, 3), PM_MC_RX_BAD_RANGE);
    h.seq = 2;
    h.offset = 2864;
    h.len = 136; /* last chunk: 3000 - 2864 */
    len = pm_mc_encode(&h, buf, 135, dg, sizeof dg);
    assert_int_equal(len, 0);
    len = pm_mc_encode(&h, buf, 136, dg, sizeof dg);
    assert_int_equal(pm_mc_on_datagram(sm, dg, len, 4), PM_MC_RX_ACCEPTED);
    /* a REPAIR over the group, an ACK from a non-child over p2p */
    h.type = PM_MC_T_REPAIR;
    len = pm_mc_encode(&h, buf, 136, dg, sizeof dg);
    assert_int_equal(pm_mc_on_datagram(sm, dg, len, 4), PM_MC_RX_BAD_PEER);
    pm_mc_hdr_t ack = {PM_MC_VERSION, PM_MC_T_ACK, 3, 42, 9, 0, 1, 0, 0, 0};
    len = pm_mc_encode(&ack, NULL, 0, dg, sizeof dg);
    assert_int_equal(pm_mc_on_p2p(sm, 2, dg, len, 5), PM_MC_RX_BAD_PEER); /* rank 2 is a ring client, no kid */
    pm_mc_stats_t st;
    pm_mc_get_stats(sm, &st);
    assert_int_equal(st.rx[PM_MC_RX_ACCEPTED], 2);
    assert_int_equal(st.rx[PM_MC_RX_FOREIGN_JOB], 1);
    /* deliveries so far: the two chunks held, nothing else */
    uint64_t got = 0;
    for (;;) {
        assert_int_equal(pm_mc_next(sm, 6, &a, out, cap), PM_MC_OK);
        if (a.kind != PM_MC_ACT_DELIVER) break;
        got += a.len;
    }
    assert_int_equal(got, 1432 + 136);
    assert_memory_equal(rbuf, buf, 1432);
    /* the caller aborts: ERROR is reported after the ABORT messages */
    assert_int_equal(pm_mc_abort(sm, PM_MC_ERR_INTERNAL), PM_MC_OK);
    int aborts = 0, error = 0;
    for (int i = 0; i < 20 && pm_mc_active(sm); ++i) {
        assert_int_equal(pm_mc_next(sm, 7, &a, out, cap), PM_MC_OK);
        if (a.kind == PM_MC_ACT_SEND_P2P || a.kind == PM_MC_ACT_SEND_GROUP) {
            pm_mc_hdr_t g;
            assert_int_equal(pm_mc_parse(out, a.len, &g, NULL), PM_MC_RX_ACCEPTED);
            assert_int_equal(g.type, PM_MC_T_ABORT);
            aborts++;
        } else if (a.kind == PM_MC_ACT_ERROR) {
            error = a.error;
        }
    }
    assert_true(aborts >= 2); /* the ring source (rank 0) and the group, at least */
    assert_int_equal(error, PM_MC_ERR_INTERNAL);
    assert_int_equal(pm_mc_start(sm, 9, 0, rbuf, 3000, 8), PM_MC_ERR_ARG); /* the same epoch again */
    free(out);
    pm_mc_destroy(sm);
}

/* ---------------------------------------------------------------------------
 * Simulated network: sweeps
 * ------------------------------------------------------------------------- */
static void test_sizes_and_groups(void **state)
{
    (void)state;
    static const uint32_t groups[] = {2, 3, 4, 5, 8, 9, 16, 17, 31, 33, 64};
    static const uint64_t sizes[] = {0, 1, 1431, 1432, 1433, 65536, 1048573};
    char what[160];
    outcome_t *o = malloc(sizeof *o);
    assert_non_null(o);
    for (size_t g = 0; g < sizeof groups / sizeof *groups; ++g)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s) {
            uint32_t n = groups[g];
            if (n > 16 && sizes[s] > 65536 && (n != 64)) continue;
            for (uint32_t repair = 0; repair < 2; ++repair) {
                pm_mcsim_params_t p;
                uint32_t root = (uint32_t)((s * 7 + g * 3) % n);
                sim_defaults(&p, n, root, sizes[s], 0.05, 1000 + g * 10 + s);
                p.proto.repair = repair;
                p.proto.ack_fanin = 2 + (uint32_t)(g % 4) * 2;
                snprintf(what, sizeof what, "n=%u root=%u M=%llu loss=5%% %s k=%u", n, root,
                         (unsigned long long)sizes[s], repair ? "tree" : "ring", p.proto.ack_fanin);
                run_ok(&p, o, what);
                if (sizes[s] == 0) {
                    for (uint32_t r = 0; r < n; ++r) assert_int_equal(o->ranks[r].up_bytes, 0);
                }
            }
        }
    free(o);
}

static void test_loss_levels(void **state)
{
    (void)state;
    static const double losses[] = {0, 0.01, 0.05, 0.20};
    static const uint64_t sizes[] = {1, 100000, 4u << 20, 16u << 20};
    char what[160];
    outcome_t *o = malloc(sizeof *o);
    assert_non_null(o);
    for (size_t li = 0; li < 4; ++li)
        for (size_t si = 0; si < 4; ++si)
            for (uint32_t n = 4; n <= 8; n += 4) {
                if (sizes[si] == (16u << 20) && n == 8 && li != 2 && li != 3) continue;
                pm_mcsim_params_t p;
                sim_defaults(&p, n, (uint32_t)(li + si) % n, sizes[si], losses[li], 17 + li * 4 + si);
                snprintf(what, sizeof what, "n=%u M=%llu loss=%.0f%%", n, (unsigned long long)sizes[si],
                         losses[li] * 100);
                run_ok(&p, o, what);
                uint64_t dropped = o->res.group_copies_dropped, nacked = 0, repaired = 0;
                for (uint32_t r = 0; r < n; ++r) {
                    nacked += o->ranks[r].stats.nack_chunks;
                    repaired += o->ranks[r].stats.repair_bytes_rcvd;
                }
                if (losses[li] == 0) {
                    assert_int_equal(dropped, 0);
                    assert_int_equal(repaired, 0);
                } else if (sizes[si] >= 100000) {
                    assert_true(dropped > 0);
                    assert_true(nacked > 0);
                    assert_true(repaired > 0);
                }
                if (sizes[si] == (16u << 20))
                    print_message("  %s: %.1f ms simulated, %llu copies dropped, %llu chunks NACKed\n", what,
                                  o->res.end_ns / 1e6, (unsigned long long)dropped, (unsigned long long)nacked);
            }
    free(o);
}

/* Duplicates, reordering beyond the reorder allowance, slow receivers whose socket
 * buffers overflow, ranks entering the collective at different times. */
static void test_faults(void **state)
{
    (void)state;
    char what[160];
    outcome_t *o = malloc(sizeof *o);
    assert_non_null(o);
    for (uint32_t seed = 1; seed <= 6; ++seed) {
        pm_mcsim_params_t p;
        sim_defaults(&p, 2 + seed * 2, seed % 3, (seed * 333331u) % (2u << 20) + 1, 0.02 * seed, seed);
        p.dup = 0.05;
        p.reorder = 0.2;
        p.reorder_ns = 20000 * seed;
        snprintf(what, sizeof what, "dup+reorder seed=%u n=%u M=%llu", seed, p.n, (unsigned long long)p.bytes);
        run_ok(&p, o, what);
        uint64_t dups = 0;
        for (uint32_t r = 0; r < p.n; ++r) dups += o->ranks[r].stats.rx[PM_MC_RX_DUPLICATE];
        assert_true(o->res.group_copies_duplicated > 0);
        assert_true(dups >= o->res.group_copies_duplicated / 2);

        sim_defaults(&p, 8, seed % 8, 4u << 20, 0.01, 100 + seed);
        p.rx_cpu_ns = 15000;           /* slower than the line rate (11.6 us per datagram) */
        p.rcvbuf_bytes = 96 * 1024;
        p.proto.window_bytes = 512 * 1024;
        snprintf(what, sizeof what, "slow receivers seed=%u", seed);
        run_ok(&p, o, what);
        uint64_t overflow = 0;
        for (uint32_t r = 0; r < p.n; ++r) overflow += o->ranks[r].rcvbuf_drops;
        assert_true(overflow > 0); /* the case is exercised */

        sim_defaults(&p, 6, seed % 6, 300000, 0.05, 200 + seed);
        p.start_skew_ns = 20000000; /* 20 ms, within the 50 ms dead-peer floor */
        snprintf(what, sizeof what, "skew seed=%u", seed);
        run_ok(&p, o, what);
    }
    free(o);
}

/* Foreign datagrams while a broadcast runs: counted per class, never in a buffer. */
static void test_foreign(void **state)
{
    (void)state;
    outcome_t *o = malloc(sizeof *o);
    assert_non_null(o);
    pm_mcsim_params_t p;
    sim_defaults(&p, 8, 3, 1u << 20, 0.05, 4242);
    p.foreign = 14 * 24; /* 24 of each kind, spread over the transfer */
    run_ok(&p, o, "foreign datagrams");
    assert_int_equal(o->res.foreign_injected, p.foreign);
    uint64_t cls[PM_MC_RX_NCLASSES] = {0};
    for (uint32_t r = 0; r < p.n; ++r)
        for (int c = 0; c < PM_MC_RX_NCLASSES; ++c) cls[c] += o->ranks[r].stats.rx[c];
    static const pm_mc_rx_t expect[] = {PM_MC_RX_FOREIGN_JOB, PM_MC_RX_FOREIGN_CTX, PM_MC_RX_STALE_EPOCH,
                                        PM_MC_RX_FUTURE_EPOCH, PM_MC_RX_FAR_EPOCH,   PM_MC_RX_BAD_CRC,     PM_MC_RX_TRUNCATED,
                                        PM_MC_RX_BAD_MAGIC,    PM_MC_RX_BAD_VERSION, PM_MC_RX_BAD_TYPE,
                                        PM_MC_RX_BAD_ROOT,     PM_MC_RX_BAD_RANGE,   PM_MC_RX_BAD_PEER};
    uint64_t total = 0;
    for (size_t i = 0; i < sizeof expect / sizeof *expect; ++i) {
        print_message("  %-13s %llu\n", pm_mc_rx_name(expect[i]), (unsigned long long)cls[expect[i]]);
        assert_true(cls[expect[i]] > 0);
        total += cls[expect[i]];
    }
    /* most copies arrive while the broadcast runs (some are lost on the way, some reach a
     * rank that already finished) and every one of those is classified as foreign */
    print_message("  %llu of %u copies classified\n", (unsigned long long)total, p.foreign * p.n);
    assert_true(total >= p.foreign * p.n * 80 / 100);
    free(o);
}

/* Authentication (pm_mcproto.h): two state machines of one key, a root and a receiver. */
static void auth_pair(pm_mc_t **root, pm_mc_t **recv, uint64_t bytes, uint8_t *rbuf, uint8_t *sbuf)
{
    pm_mc_params_t p;
    pm_mc_params_default(&p);
    p.job = 77;
    p.ctx = 5;
    p.size = 2;
    p.chunk_bytes = 1000;
    p.auth = 1;
    for (unsigned i = 0; i < PM_MC_AUTH_KEY_BYTES; ++i) p.auth_key[i] = (uint8_t)(i * 29 + 3);
    int err;
    p.rank = 0;
    *root = pm_mc_create(&p, &err);
    p.rank = 1;
    *recv = pm_mc_create(&p, &err);
    assert_non_null(*root);
    assert_non_null(*recv);
    assert_int_equal(pm_mc_start(*root, 9, 0, sbuf, bytes, 0), PM_MC_OK);
    assert_int_equal(pm_mc_start(*recv, 9, 0, rbuf, bytes, 0), PM_MC_OK);
}

/* The root's next group datagram (sealed) into out; its length. */
static size_t next_group(pm_mc_t *sm, uint8_t *out, size_t cap)
{
    for (int i = 0; i < 100; ++i) {
        pm_mc_action_t a;
        assert_int_equal(pm_mc_next(sm, 1000, &a, out, cap), PM_MC_OK);
        if (a.kind == PM_MC_ACT_SEND_GROUP) return (size_t)a.len;
        assert_true(a.kind == PM_MC_ACT_SEND_P2P || a.kind == PM_MC_ACT_DELIVER);
    }
    fail_msg("no group datagram");
    return 0;
}

/* Tags verify only under the key and only for the bytes sealed; the sender is the rank
 * the header speaks for; a datagram is accepted once. */
static void test_auth_wire(void **state)
{
    (void)state;
    enum { M = 5000 };
    static uint8_t sbuf[M], rbuf[M], out[16384], copy[16384];
    for (unsigned i = 0; i < M; ++i) sbuf[i] = (uint8_t)(i * 7);
    memset(rbuf, 0, M);
    pm_mc_t *root, *recv;
    auth_pair(&root, &recv, M, rbuf, sbuf);
    assert_int_equal(pm_mc_max_message(root), PM_MC_HDR_BYTES + 11000 + PM_MC_AUTH_BYTES);
    const size_t len = next_group(root, out, sizeof out);
    assert_int_equal(len, PM_MC_HDR_BYTES + 1000 + PM_MC_AUTH_BYTES);
    /* every single-bit flip anywhere (header, payload, sender, counter, tag) fails */
    for (size_t byte = 0; byte < len; byte += 7) {
        memcpy(copy, out, len);
        copy[byte] ^= 0x10;
        assert_int_equal(pm_mc_on_datagram(recv, copy, len, 2000), PM_MC_RX_BAD_AUTH);
    }
    /* the trailer cut off, or a datagram without one: not authentic */
    assert_int_equal(pm_mc_on_datagram(recv, out, len - PM_MC_AUTH_BYTES, 2000), PM_MC_RX_BAD_AUTH);
    /* sealed under another key, every field right */
    uint8_t other[PM_MC_AUTH_KEY_BYTES] = {1};
    memcpy(copy, out, len - PM_MC_AUTH_BYTES);
    assert_int_equal(pm_mc_seal_with(other, 0, 1, copy, len - PM_MC_AUTH_BYTES, sizeof copy), len);
    assert_int_equal(pm_mc_on_datagram(recv, copy, len, 2000), PM_MC_RX_BAD_AUTH);
    assert_int_equal(memcmp(rbuf, sbuf, 1000) == 0, 0); /* nothing reached the buffer yet */
    /* the genuine one: accepted once, then a replay */
    assert_int_equal(pm_mc_on_datagram(recv, out, len, 2000), PM_MC_RX_ACCEPTED);
    assert_memory_equal(rbuf, sbuf, 1000);
    assert_int_equal(pm_mc_on_datagram(recv, out, len, 2001), PM_MC_RX_REPLAY);
    pm_mc_stats_t st;
    pm_mc_get_stats(recv, &st);
    assert_true(st.rx[PM_MC_RX_BAD_AUTH] >= 3);
    assert_int_equal(st.rx[PM_MC_RX_REPLAY], 1);
    assert_string_equal(pm_mc_rx_name(PM_MC_RX_BAD_AUTH), "bad_auth");
    assert_string_equal(pm_mc_rx_name(PM_MC_RX_REPLAY), "replay");
    pm_mc_destroy(root);
    pm_mc_destroy(recv);
}

/* Replay window: out of order within the last 1024 accepted, each once; older dropped. */
static void test_auth_window(void **state)
{
    (void)state;
    enum { M = 3000 };
    uint8_t sbuf[M], rbuf[M], out[4096];
    uint8_t key[PM_MC_AUTH_KEY_BYTES];
    memset(sbuf, 0x42, M);
    pm_mc_t *root, *recv;
    auth_pair(&root, &recv, M, rbuf, sbuf);
    for (unsigned i = 0; i < PM_MC_AUTH_KEY_BYTES; ++i) key[i] = (uint8_t)(i * 29 + 3);
    /* genuine STATUS datagrams of the root (counters chosen here) */
    pm_mc_hdr_t h = {PM_MC_VERSION, PM_MC_T_STATUS, 5, 77, 9, 0, 0, 0, 0, 16};
    uint8_t pl[16] = {0};
    pl[6] = (uint8_t)(M >> 8);
    pl[7] = (uint8_t)(M & 0xFF);
    pl[11] = 1; /* chunks sent */
    pl[15] = (uint8_t)(1000 & 0xFF);
    pl[14] = (uint8_t)(1000 >> 8);
    const uint64_t order[] = {5, 3, 2000, 1500, 977, 976, 2000, 5};
    const pm_mc_rx_t want[] = {PM_MC_RX_ACCEPTED, PM_MC_RX_DUPLICATE, PM_MC_RX_DUPLICATE,
                               PM_MC_RX_DUPLICATE, PM_MC_RX_DUPLICATE, PM_MC_RX_REPLAY,
                               PM_MC_RX_REPLAY, PM_MC_RX_REPLAY};
    for (size_t i = 0; i < sizeof order / sizeof *order; ++i) {
        size_t l = pm_mc_encode(&h, pl, 16, out, sizeof out);
        l = pm_mc_seal_with(key, 0, order[i], out, l, sizeof out);
        assert_int_equal(l, PM_MC_HDR_BYTES + 16 + PM_MC_AUTH_BYTES);
        pm_mc_rx_t c = pm_mc_on_datagram(recv, out, l, 3000 + i);
        if (c != want[i])
            fail_msg("counter %llu (step %zu): %s, expected %s", (unsigned long long)order[i], i,
                     pm_mc_rx_name(c), pm_mc_rx_name(want[i]));
    }
    /* a sender that is not the rank the header speaks for (STATUS: the root) */
    size_t l = pm_mc_encode(&h, pl, 16, out, sizeof out);
    l = pm_mc_seal_with(key, 1, 3001, out, l, sizeof out);
    assert_int_equal(pm_mc_on_datagram(recv, out, l, 4000), PM_MC_RX_BAD_PEER);
    pm_mc_destroy(root);
    pm_mc_destroy(recv);
}

/* An outsider on the group during broadcasts with loss: forgeries of every kind (DATA
 * right in every field, a STATUS of 2^60 bytes, ABORTs for this collective and the
 * next, all under a key of its own) and replays of captured datagrams are dropped and
 * counted; every rank completes with the root's bytes. */
static void test_auth_forgeries(void **state)
{
    (void)state;
    outcome_t *o = malloc(sizeof *o);
    assert_non_null(o);
    for (int loss = 0; loss <= 5; loss += 5) {
        pm_mcsim_params_t p;
        sim_defaults(&p, 8, 3, 1u << 20, loss / 100.0, 777 + (uint64_t)loss);
        p.proto.auth = 1;
        for (unsigned i = 0; i < PM_MC_AUTH_KEY_BYTES; ++i) p.proto.auth_key[i] = (uint8_t)(i + 100);
        p.proto.chunk_bytes -= PM_MC_AUTH_BYTES;
        p.foreign = 17 * 24;
        char what[64];
        snprintf(what, sizeof what, "authenticated, forgeries, loss %d%%", loss);
        run_ok(&p, o, what);
        uint64_t forged = 0, replayed = 0, aborted = 0;
        for (uint32_t r = 0; r < p.n; ++r) {
            forged += o->ranks[r].stats.rx[PM_MC_RX_BAD_AUTH];
            replayed += o->ranks[r].stats.rx[PM_MC_RX_REPLAY];
            aborted += o->ranks[r].stats.failures;
        }
        print_message("  loss %d%%: %llu injected, %llu copies forged, %llu replayed\n", loss,
                      (unsigned long long)o->res.foreign_injected, (unsigned long long)forged,
                      (unsigned long long)replayed);
        assert_true(o->res.foreign_injected > p.foreign);
        assert_true(forged >= p.foreign * p.n * 80 / 100);
        assert_true(replayed > 0);
        assert_int_equal(aborted, 0);
    }
    free(o);
}

/* A receiver that never runs: every live rank ends with an error within a bounded time. */
static void test_dead_receiver(void **state)
{
    (void)state;
    static const struct { uint32_t n, root; int dead; uint32_t repair, k; uint64_t bytes; } cases[] = {
        {2, 0, 1, 0, 8, 5000},    {4, 0, 1, 0, 2, 100000},  {8, 2, 3, 0, 2, 1u << 20},
        {8, 2, 7, 1, 2, 100000},  {8, 5, 6, 0, 8, 1},       {16, 0, 5, 1, 3, 300000},
        {16, 9, 15, 0, 4, 2u << 20}, {33, 4, 20, 0, 2, 50000}, {8, 2, 2, 0, 2, 100000} /* dead root */};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        pm_mcsim_params_t p;
        sim_defaults(&p, cases[i].n, cases[i].root, cases[i].bytes, 0.05, 77 + i);
        p.dead_rank = cases[i].dead;
        p.proto.repair = cases[i].repair;
        p.proto.ack_fanin = cases[i].k;
        pm_mcsim_rank_t ranks[64];
        pm_mcsim_result_t res;
        uint8_t **b = make_bufs(p.n, p.root, p.bytes, 1);
        assert_int_equal(pm_mcsim_run(&p, (void *const *)b, NULL, NULL, ranks, &res), PM_MC_OK);
        assert_false(res.hung);
        for (uint32_t r = 0; r < p.n; ++r) {
            if ((int)r == p.dead_rank) continue;
            if (ranks[r].status >= 0)
                fail_msg("case %zu: rank %u ended with %d, expected an error", i, r, ranks[r].status);
        }
        /* bounded: a few dead-peer timeouts (floor 50 ms here) plus the transfer */
        double bound_ns = 4.0 * 50e6 + 8.0 * 4 * (double)p.bytes * 8;
        assert_true((double)res.end_ns < bound_ns);
        print_message("  n=%u dead=%d: all live ranks failed by %.1f ms\n", p.n, p.dead_rank, res.end_ns / 1e6);
        free_bufs(b, p.n);
    }
}

/* Root uplink bytes per broadcast: M (1 + (H + frame)/C) + control, independent of n. */
static void test_root_uplink(void **state)
{
    (void)state;
    outcome_t *o = malloc(sizeof *o);
    assert_non_null(o);
    static const uint32_t chunks[] = {1432, 8932};
    for (int ci = 0; ci < 2; ++ci) {
        double lo = 1e9, hi = 0;
        for (uint32_t n = 2; n <= 64; n *= 2) {
            pm_mcsim_params_t p;
            sim_defaults(&p, n, 0, 4u << 20, 0, 5);
            p.proto.chunk_bytes = chunks[ci];
            run_ok(&p, o, "uplink");
            double ratio = (double)o->ranks[0].up_bytes / (double)p.bytes;
            double floor_ratio = (double)(chunks[ci] + PM_MC_HDR_BYTES + p.frame_overhead) / chunks[ci];
            assert_true(ratio >= floor_ratio * 0.999);
            assert_true(ratio <= floor_ratio + 0.002);
            lo = ratio < lo ? ratio : lo;
            hi = ratio > hi ? ratio : hi;
            print_message("  C=%u n=%2u: root uplink %.4f x M (datagram floor %.4f)\n", chunks[ci], n, ratio,
                          floor_ratio);
        }
        assert_true(hi - lo < 0.002);
        if (chunks[ci] == 8932) assert_true(hi <= 1.05);
    }
    free(o);
}

/* 8 hosts at 1 Gbit/s, 16 MiB: simulated completion time at 5 % loss vs loss-free. */
static void test_throughput_under_loss(void **state)
{
    (void)state;
    outcome_t *o = malloc(sizeof *o);
    assert_non_null(o);
    double t[2];
    for (int i = 0; i < 2; ++i) {
        pm_mcsim_params_t p;
        sim_defaults(&p, 8, 0, 16u << 20, i ? 0.05 : 0, 31);
        run_ok(&p, o, "throughput");
        t[i] = (double)o->res.end_ns;
    }
    print_message("  16 MiB on 8 hosts: %.1f ms loss-free, %.1f ms at 5%% loss: ratio %.3f\n", t[0] / 1e6, t[1] / 1e6,
                  t[0] / t[1]);
    assert_true(t[0] / t[1] >= 0.7);
    free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32c),          cmocka_unit_test(test_wire),
        cmocka_unit_test(test_api),             cmocka_unit_test(test_sizes_and_groups),
        cmocka_unit_test(test_loss_levels),     cmocka_unit_test(test_faults),
        cmocka_unit_test(test_foreign),         cmocka_unit_test(test_auth_wire),
        cmocka_unit_test(test_auth_window),     cmocka_unit_test(test_auth_forgeries),
        cmocka_unit_test(test_dead_receiver),
        cmocka_unit_test(test_root_uplink),     cmocka_unit_test(test_throughput_under_loss),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
