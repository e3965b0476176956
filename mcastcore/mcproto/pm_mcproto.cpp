/*
 * Reliable multicast broadcast: wire format and the sans-I/O state machine (the design,
 * the picture and the timeouts are in include/pm_mcproto.h).
 *
 * Per collective a rank holds:
 *   have      bitmap of chunks held (the root: all), contig = first chunk not held,
 *             highest = 1 + the largest chunk seen, status_sent = the root's last STATUS
 *   NACK      chunks below nack_upto were requested at least once; retry_at re-requests
 *             whatever is still missing below it (doubling), so a hole is asked for once
 *             per round however many datagrams reveal it
 *   clients   per repair client a bitmap of requested chunks; a REPAIR carries the
 *             first run of requested chunks this rank holds (up to repair_chunks)
 *   ACK tree  kids' cumulative subtree prefixes; min(contig, kids) goes to the parent
 *             every ack_step chunks and at the end; the root sends within
 *             min(kids) + window
 * Output is pulled: pm_mc_next returns queued deliveries, then queued control messages,
 * then a repair, then (root) the next DATA datagram or a STATUS, else the next wake time.
 */
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <new>
#include <vector>

#include "pm_mcproto.h"
#include "mcproto/pm_mcauth.hpp"

namespace {

constexpr uint64_t kNever = UINT64_MAX;

inline void put16(uint8_t *p, uint32_t v)
{
    p[0] = uint8_t(v >> 8);
    p[1] = uint8_t(v);
}
inline void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (24 - 8 * i));
}
inline void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (56 - 8 * i));
}
inline uint32_t get16(const uint8_t *p) { return uint32_t(p[0]) << 8 | p[1]; }
inline uint32_t get32(const uint8_t *p)
{
    return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}
inline uint64_t get64(const uint8_t *p) { return uint64_t(get32(p)) << 32 | get32(p + 4); }

inline uint64_t sat_add(uint64_t a, uint64_t b) { return (a > kNever - b) ? kNever : a + b; }
inline uint64_t ns(double v) { return v >= 1.8e19 ? kNever : (v < 1.0 ? 1 : uint64_t(v)); }

struct Bitmap {
    std::vector<uint64_t> w;
    uint32_t n = 0;
    void reset(uint32_t bits, bool value)
    {
        n = bits;
        w.assign((size_t(bits) + 63) / 64, value ? ~0ull : 0ull);
        if (value && (bits & 63u)) w.back() = (1ull << (bits & 63u)) - 1;
    }
    bool get(uint32_t i) const { return (w[i >> 6] >> (i & 63u)) & 1u; }
    void set(uint32_t i) { w[i >> 6] |= 1ull << (i & 63u); }
    void clear(uint32_t i) { w[i >> 6] &= ~(1ull << (i & 63u)); }
    /* First i in [from, end) with this bit set and (other == nullptr or other's bit set). */
    uint32_t next_set(uint32_t from, uint32_t end, const Bitmap *other = nullptr) const
    {
        end = std::min(end, n);
        while (from < end) {
            uint64_t v = w[from >> 6] >> (from & 63u);
            if (other) v &= other->w[from >> 6] >> (from & 63u);
            if (v) {
                uint32_t i = from + uint32_t(__builtin_ctzll(v));
                return i < end ? i : end;
            }
            from = (from | 63u) + 1;
        }
        return end;
    }
    /* First i in [from, end) with this bit clear. */
    uint32_t next_clear(uint32_t from, uint32_t end) const
    {
        end = std::min(end, n);
        while (from < end) {
            uint64_t v = ~w[from >> 6] >> (from & 63u);
            if (v) {
                uint32_t i = from + uint32_t(__builtin_ctzll(v));
                return i < end ? i : end;
            }
            from = (from | 63u) + 1;
        }
        return end;
    }
};

struct Neighbour {
    uint32_t rank = 0;
    bool parent = false, kid = false, source = false, client = false;
    uint64_t last_heard = 0, last_sent = 0;
    uint32_t acked = 0;  /* kid: subtree prefix reported */
    Bitmap pending;      /* client: chunks requested and not yet repaired */
    uint32_t npending = 0;
};

struct Ctl {
    bool group;
    uint32_t peer;
    uint8_t type;
    uint32_t seq;
    std::vector<uint8_t> payload;
};

}  // namespace

struct pm_mc {
    pm_mc_params_t p{};
    pm_mc_stats_t st{};
    /* authentication (header): the key's MAC, this rank's counter, a window per sender */
    std::unique_ptr<pm_mc_auth::Mac> mac;
    uint64_t seal_counter = 0;
    std::vector<pm_mc_auth::Window> seen;
    uint32_t repair_chunks = 1;
    size_t max_payload = 0;
    double bw = 0;   /* bytes per ns */
    double rtt = 0;     /* smoothed NACK->REPAIR round trip (ns) */
    double rttvar = 0;  /* its mean deviation (retry = rtt + 4 rttvar, as TCP's RTO) */

    /* collective */
    bool has_epoch = false, active = false, finished = false, prev_has_epoch = false;
    uint32_t prev_epoch = 0;
    int error = 0;
    uint32_t epoch = 0, root = 0, vrank = 0, depth = 0;
    uint8_t *buf = nullptr;
    uint64_t bytes = 0, ready = 0;
    uint32_t nchunks = 0, window_chunks = 1, ack_step = 1;
    uint64_t t_start = 0;
    std::vector<Neighbour> nbs;
    int parent_i = -1, source_i = -1;
    std::vector<int> kid_i, client_i;
    size_t client_rr = 0;

    /* receiver */
    Bitmap have;
    uint32_t have_count = 0, contig = 0, highest = 0, status_sent = 0, hint_sent = 0;
    uint64_t t_progress = 0;
    uint32_t nack_upto = 0, retry_n = 0;
    uint64_t retry_at = kNever, last_nack_t = 0, rtt_probe_t = 0;
    uint32_t rtt_probe_chunk = 0; /* the chunk whose repair times the round trip */
    bool rtt_probe = false;
    uint32_t last_ack_sent = 0;
    uint64_t bw_t0 = 0, bw_t1 = 0, bw_bytes = 0;
    uint32_t bw_n = 0;

    /* root */
    uint32_t next_chunk = 0, status_seq = 0;
    uint64_t next_send_t = 0, status_at = kNever, status_iv = 0;

    /* derived times (ns) */
    uint64_t T_ro = 1, T_nb = 1, T_silent = 1, T_dead = 1, T_ka = 1;

    std::deque<Ctl> ctl;
    std::deque<std::pair<uint64_t, uint64_t>> deliv;

    bool is_root() const { return p.rank == root; }
    uint64_t chunk_off(uint32_t c) const { return uint64_t(c) * p.chunk_bytes; }
    uint32_t chunk_len(uint32_t c) const
    {
        uint64_t off = chunk_off(c);
        return uint32_t(std::min<uint64_t>(p.chunk_bytes, bytes - off));
    }
    uint32_t to_rank(uint32_t v) const { return (v + root) % p.size; }

    int nb_of(uint32_t rank) const
    {
        for (size_t i = 0; i < nbs.size(); ++i)
            if (nbs[i].rank == rank) return int(i);
        return -1;
    }
    int add_nb(uint32_t rank)
    {
        int i = nb_of(rank);
        if (i >= 0) return i;
        nbs.emplace_back();
        nbs.back().rank = rank;
        return int(nbs.size() - 1);
    }

    void setup_relations(uint64_t now);
    void derive_times();
    pm_mc_rx_t check_identity(const pm_mc_hdr_t &h);
    pm_mc_rx_t datagram(const pm_mc_hdr_t &h, const uint8_t *pl, uint64_t now);
    pm_mc_rx_t p2p(uint32_t src, const pm_mc_hdr_t &h, const uint8_t *pl, uint64_t now);
    bool store(uint32_t c, const uint8_t *src, uint64_t now, bool repair);
    void deliver(uint64_t off, uint64_t len);
    void queue(bool group, uint32_t peer, uint8_t type, uint32_t seq, std::vector<uint8_t> pl = {})
    {
        ctl.push_back(Ctl{group, peer, type, seq, std::move(pl)});
    }
    bool queued_to(uint32_t rank) const
    {
        for (const auto &c : ctl)
            if (!c.group && c.peer == rank) return true;
        return false;
    }
    void fail(int err, int skip_rank, bool tell_group);
    void finish_ok();
    void timers(uint64_t now);
    void root_timers(uint64_t now);
    void receiver_timers(uint64_t now);
    uint32_t eligible_end(uint64_t now) const;
    uint32_t known_data() const { return std::max(highest, status_sent); }
    uint32_t known_sent() const { return std::max(known_data(), hint_sent); }
    void send_nacks(uint32_t lo, uint32_t hi);
    uint64_t retry_time(uint32_t below) const;
    void arm_retry(uint64_t now);
    uint32_t subtree_ack() const;
    bool try_repair(pm_mc_action_t *act, uint8_t *out);
    bool try_data(uint64_t now, pm_mc_action_t *act, uint8_t *out);
    uint64_t wake(uint64_t now) const;
    size_t encode(uint8_t type, uint32_t seq, uint64_t off, const uint8_t *pl, size_t len, uint8_t *out) const;
    void update_bw_estimate();
};

/* ---------------------------------------------------------------------------
 * Wire format
 * ------------------------------------------------------------------------- */
extern "C" size_t pm_mc_encode(const pm_mc_hdr_t *h, const void *payload, size_t payload_len, void *out,
                               size_t cap)
{
    if (!h || !out || h->len != payload_len || payload_len > PM_MC_MAX_PAYLOAD || h->offset > PM_MC_MAX_OFFSET ||
        cap < PM_MC_HDR_BYTES + payload_len || (payload_len && !payload))
        return 0;
    uint8_t *o = static_cast<uint8_t *>(out);
    put16(o, PM_MC_MAGIC);
    o[2] = h->version;
    o[3] = h->type;
    put32(o + 4, h->ctx);
    put64(o + 8, h->job);
    put32(o + 16, h->epoch);
    put32(o + 20, h->root);
    put32(o + 24, h->seq);
    put32(o + 28, 0);
    put64(o + 32, h->offset << 16 | h->len);
    if (payload_len) std::memmove(o + PM_MC_HDR_BYTES, payload, payload_len);
    put32(o + 28, pm_mc_crc32c(0, o, PM_MC_HDR_BYTES + payload_len));
    return PM_MC_HDR_BYTES + payload_len;
}

/* check_crc false: the datagram's tag verified already (the MAC covers every byte the CRC
 * does, and more), the CRC is not worth its time again */
static pm_mc_rx_t parse(const void *msg, size_t len, pm_mc_hdr_t *h, const uint8_t **payload,
                        bool check_crc)
{
    const uint8_t *m = static_cast<const uint8_t *>(msg);
    if (!m || len < PM_MC_HDR_BYTES) return PM_MC_RX_TRUNCATED;
    if (get16(m) != PM_MC_MAGIC) return PM_MC_RX_BAD_MAGIC;
    if (m[2] != PM_MC_VERSION) return PM_MC_RX_BAD_VERSION;
    if (m[3] < PM_MC_T_DATA || m[3] > PM_MC_T_PROBE) return PM_MC_RX_BAD_TYPE;
    uint64_t ol = get64(m + 32);
    uint32_t plen = uint32_t(ol & 0xFFFFu);
    if (len < PM_MC_HDR_BYTES + plen) return PM_MC_RX_TRUNCATED;
    if (len > PM_MC_HDR_BYTES + plen) return PM_MC_RX_BAD_LENGTH;
    uint32_t crc = get32(m + 28);
    if (check_crc) {
        static const uint8_t zero[4] = {0, 0, 0, 0};
        uint32_t c = pm_mc_crc32c(0, m, 28);
        c = pm_mc_crc32c(c, zero, 4);
        c = pm_mc_crc32c(c, m + 32, len - 32);
        if (c != crc) return PM_MC_RX_BAD_CRC;
    }
    pm_mc_hdr_t t;
    t.version = m[2];
    t.type = m[3];
    t.ctx = get32(m + 4);
    t.job = get64(m + 8);
    t.epoch = get32(m + 16);
    t.root = get32(m + 20);
    t.seq = get32(m + 24);
    t.crc = crc;
    t.offset = ol >> 16;
    t.len = plen;
    if (h) *h = t;
    if (payload) *payload = m + PM_MC_HDR_BYTES;
    return PM_MC_RX_ACCEPTED;
}

extern "C" pm_mc_rx_t pm_mc_parse(const void *msg, size_t len, pm_mc_hdr_t *h, const uint8_t **payload)
{
    return parse(msg, len, h, payload, true);
}

extern "C" const char *pm_mc_rx_name(pm_mc_rx_t c)
{
    static const char *const names[PM_MC_RX_NCLASSES] = {
        "accepted",  "duplicate",   "truncated",   "bad_magic",    "bad_version", "bad_type",
        "bad_length", "bad_crc",    "foreign_job", "foreign_ctx",  "stale_epoch", "future_epoch", "far_epoch",
        "bad_root",  "bad_range",   "bad_peer",    "bad_auth",     "replay"};
    return (c >= 0 && c < PM_MC_RX_NCLASSES) ? names[c] : "unknown";
}

extern "C" const char *pm_mc_strerror(int err)
{
    return mcast_status_str(err);
}

/* ---------------------------------------------------------------------------
 * Parameters and lifetime
 * ------------------------------------------------------------------------- */
extern "C" void pm_mc_params_default(pm_mc_params_t *p)
{
    if (!p) return;
    std::memset(p, 0, sizeof *p);
    p->size = 1;
    p->chunk_bytes = 1500 - 20 - 8 - PM_MC_HDR_BYTES;
    p->window_bytes = 2u << 20;
    p->ack_fanin = 8;
    p->repair = PM_MC_REPAIR_RING;
    p->repair_chunks = 11;
    p->reorder_chunks = 3;
    p->bandwidth_Bps = 125e6;
    p->rtt_ns = 200e3;
    p->rate_Bps = 0;
    p->dead_factor = 8;
    p->dead_min_ns = 10000000000ull;
}

static bool params_ok(const pm_mc_params_t *p)
{
    return p && p->size >= 1 && p->rank < p->size && p->chunk_bytes >= 16 && p->chunk_bytes <= PM_MC_MAX_PAYLOAD &&
           p->window_bytes >= p->chunk_bytes && p->ack_fanin >= 1 &&
           (p->repair == PM_MC_REPAIR_RING || p->repair == PM_MC_REPAIR_TREE) && p->repair_chunks >= 1 &&
           p->reorder_chunks >= 1 && p->bandwidth_Bps > 0 && p->rtt_ns > 0 && p->rate_Bps >= 0 &&
           p->dead_factor > 0 && p->bandwidth_Bps < 1e15 && p->rtt_ns < 1e15;
}

extern "C" pm_mc_t *pm_mc_create(const pm_mc_params_t *p, int *err)
{
    if (err) *err = PM_MC_OK;
    if (!params_ok(p)) {
        if (err) *err = PM_MC_ERR_ARG;
        return nullptr;
    }
    pm_mc_t *sm = new (std::nothrow) pm_mc_t;
    if (!sm) {
        if (err) *err = PM_MC_ERR_NOMEM;
        return nullptr;
    }
    sm->p = *p;
    sm->st.error_peer = -1;
    sm->repair_chunks = std::max<uint32_t>(1, std::min<uint32_t>(p->repair_chunks, PM_MC_MAX_PAYLOAD / p->chunk_bytes));
    sm->max_payload = std::max<size_t>({size_t(sm->repair_chunks) * p->chunk_bytes, size_t(p->chunk_bytes), 16});
    sm->bw = p->bandwidth_Bps / 1e9;
    sm->rtt = p->rtt_ns;
    sm->rttvar = p->rtt_ns / 2;
    if (p->auth) {
        try {
            sm->mac.reset(new pm_mc_auth::Mac(p->auth_key));
            sm->seen.resize(p->size);
        } catch (...) {
            delete sm;
            if (err) *err = PM_MC_ERR_NOMEM;
            return nullptr;
        }
        if (!sm->mac->ok()) {
            delete sm;
            if (err) *err = PM_MC_ERR_INTERNAL;
            return nullptr;
        }
    }
    return sm;
}

extern "C" void pm_mc_destroy(pm_mc_t *sm) { delete sm; }

extern "C" size_t pm_mc_max_message(const pm_mc_t *sm)
{
    return sm ? PM_MC_HDR_BYTES + sm->max_payload + (sm->mac ? PM_MC_AUTH_BYTES : 0) : 0;
}

extern "C" size_t pm_mc_seal(pm_mc_t *sm, void *msg, size_t len, size_t cap)
{
    if (!sm || !msg) return 0;
    if (!sm->mac) return len <= cap ? len : 0;
    return sm->mac->seal(static_cast<uint8_t *>(msg), len, cap, sm->p.rank, ++sm->seal_counter);
}

/* Authentication of a group datagram (header): PM_MC_RX_ACCEPTED with the parsed header,
 * the payload and the sender; *mark_counter is what to mark in the sender's window once
 * the datagram is used (not kept for the next collective). */
static pm_mc_rx_t open_group(pm_mc_t *sm, const void *msg, size_t len, pm_mc_hdr_t *h,
                             const uint8_t **pl, uint32_t *sender, uint64_t *mark_counter)
{
    const uint8_t *m = static_cast<const uint8_t *>(msg);
    size_t inner = len;
    uint32_t from = 0;
    uint64_t counter = 0;
    if (sm->mac) {
        if (!m || !sm->mac->open(m, len, &inner, &from, &counter)) return PM_MC_RX_BAD_AUTH;
        if (from >= sm->p.size) return PM_MC_RX_BAD_PEER;
        if (sm->seen[from].seen(counter)) return PM_MC_RX_REPLAY;
    }
    pm_mc_rx_t rc = parse(m, inner, h, pl, !sm->mac);
    if (rc != PM_MC_RX_ACCEPTED) return rc;
    if (sm->mac) {
        const uint32_t speaker = (h->type == PM_MC_T_DATA || h->type == PM_MC_T_STATUS) ? h->root : h->seq;
        if (from != speaker) return PM_MC_RX_BAD_PEER;
    } else {
        from = (h->type == PM_MC_T_DATA || h->type == PM_MC_T_STATUS) ? h->root : h->seq;
    }
    *sender = from;
    *mark_counter = counter;
    return PM_MC_RX_ACCEPTED;
}

extern "C" pm_mc_rx_t pm_mc_open_group(pm_mc_t *sm, const void *msg, size_t len, pm_mc_hdr_t *h,
                                       uint32_t *sender)
{
    if (!sm) return PM_MC_RX_TRUNCATED;
    pm_mc_hdr_t t;
    const uint8_t *pl = nullptr;
    uint32_t from = 0;
    uint64_t counter = 0;
    pm_mc_rx_t rc = open_group(sm, msg, len, &t, &pl, &from, &counter);
    if (rc == PM_MC_RX_ACCEPTED) {
        if (sm->mac) sm->seen[from].mark(counter);
        if (h) *h = t;
        if (sender) *sender = from;
    }
    return rc;
}

extern "C" int pm_mc_chunks(const pm_mc_t *sm, uint64_t bytes, uint32_t *nchunks)
{
    if (!sm || !nchunks || bytes > PM_MC_MAX_OFFSET) return PM_MC_ERR_ARG;
    uint64_t c = (bytes + sm->p.chunk_bytes - 1) / sm->p.chunk_bytes;
    if (c > UINT32_MAX - 1) return PM_MC_ERR_ARG;
    *nchunks = uint32_t(c);
    return PM_MC_OK;
}

/* ---------------------------------------------------------------------------
 * Start: relations (ACK tree over vranks, repair source/clients), timeouts
 * ------------------------------------------------------------------------- */
void pm_mc::setup_relations(uint64_t now)
{
    nbs.clear();
    kid_i.clear();
    client_i.clear();
    parent_i = source_i = -1;
    const uint32_t n = p.size, k = p.ack_fanin, v = vrank;
    if (v > 0) {
        parent_i = add_nb(to_rank((v - 1) / k));
        nbs[parent_i].parent = true;
    }
    for (uint64_t c = uint64_t(k) * v + 1; c <= uint64_t(k) * v + k && c < n; ++c) {
        int i = add_nb(to_rank(uint32_t(c)));
        nbs[i].kid = true;
        kid_i.push_back(i);
    }
    if (p.repair == PM_MC_REPAIR_RING) {
        if (v > 0) source_i = add_nb(to_rank(v - 1));
        if (v + 1 < n) client_i.push_back(add_nb(to_rank(v + 1)));
    } else {
        source_i = parent_i;
        client_i = kid_i;
    }
    if (source_i >= 0) nbs[source_i].source = true;
    for (int i : client_i) {
        nbs[i].client = true;
        nbs[i].pending.reset(nchunks, false);
    }
    for (auto &nb : nbs) nb.last_heard = nb.last_sent = now;
    depth = 0;
    for (uint64_t x = n - 1; x > 0; x = (x - 1) / k) ++depth;
}

void pm_mc::derive_times()
{
    double chunk_t = double(p.chunk_bytes) / bw;
    T_ro = ns(p.reorder_chunks * chunk_t);
    T_nb = std::max(T_ro, ns(rtt / 4));
    double E = double(bytes) / bw + (depth + 2) * rtt;
    T_dead = std::max<uint64_t>(p.dead_min_ns, ns(p.dead_factor * E));
    T_ka = std::max<uint64_t>(1, T_dead / 4);
    /* the silent fallback must not fire for a descheduled process: only well beyond the
     * expected transfer (STATUS and keepalive hints cover lost tails anyway) */
    T_silent = std::max({4 * ns(E), 4 * (T_ro + ns(rtt)), T_dead / 16});
}

extern "C" int pm_mc_start(pm_mc_t *sm, uint32_t epoch, uint32_t root, void *buf, uint64_t bytes, uint64_t now)
{
    if (!sm || sm->active || root >= sm->p.size || (bytes && !buf) ||
        (sm->has_epoch && epoch == sm->epoch))
        return PM_MC_ERR_ARG;
    uint32_t nchunks;
    if (pm_mc_chunks(sm, bytes, &nchunks) != PM_MC_OK) return PM_MC_ERR_ARG;
    try {
        sm->prev_epoch = sm->epoch;
        sm->prev_has_epoch = sm->has_epoch;
        sm->has_epoch = true;
        sm->epoch = epoch;
        sm->root = root;
        sm->vrank = (sm->p.rank + sm->p.size - root) % sm->p.size;
        sm->buf = static_cast<uint8_t *>(buf);
        sm->bytes = bytes;
        sm->ready = bytes;
        sm->nchunks = nchunks;
        sm->t_start = now;
        sm->error = 0;
        sm->ctl.clear();
        sm->deliv.clear();
        sm->active = true;
        sm->finished = false;
        if (bytes == 0 || sm->p.size == 1) {
            /* nothing to move: COMPLETE at the next pm_mc_next, and the epoch is not
             * consumed (ranks pass such a collective without each other, so it must not
             * count in "a peer is at most one collective ahead") */
            sm->epoch = sm->prev_epoch;
            sm->has_epoch = sm->prev_has_epoch;
            sm->finished = true;
            sm->nbs.clear();
            return PM_MC_OK;
        }
        sm->window_chunks = uint32_t(std::max<uint64_t>(1, std::min<uint64_t>(sm->p.window_bytes / sm->p.chunk_bytes, UINT32_MAX)));
        sm->have.reset(nchunks, sm->is_root());
        sm->setup_relations(now);
        sm->ack_step = std::max<uint32_t>(1, sm->window_chunks / (4 * (sm->depth + 1)));
        sm->derive_times();
        sm->have_count = sm->is_root() ? nchunks : 0;
        sm->contig = sm->is_root() ? nchunks : 0;
        sm->highest = sm->status_sent = sm->hint_sent = 0;
        sm->t_progress = now;
        sm->nack_upto = sm->retry_n = 0;
        sm->retry_at = kNever;
        sm->last_nack_t = 0;
        sm->rtt_probe = false;
        sm->last_ack_sent = 0;
        sm->bw_n = 0;
        sm->bw_bytes = 0;
        sm->next_chunk = 0;
        sm->next_send_t = now;
        sm->status_at = kNever;
        sm->status_iv = 0;
        sm->client_rr = 0;
    } catch (const std::bad_alloc &) {
        sm->active = false;
        return PM_MC_ERR_NOMEM;
    } catch (...) {
        sm->active = false;
        return PM_MC_ERR_INTERNAL;
    }
    return PM_MC_OK;
}

extern "C" int pm_mc_provide(pm_mc_t *sm, uint64_t ready)
{
    if (!sm || !sm->active || !sm->is_root() || ready > sm->bytes) return PM_MC_ERR_ARG;
    sm->ready = ready;
    return PM_MC_OK;
}

extern "C" int pm_mc_active(const pm_mc_t *sm) { return sm && sm->active; }

extern "C" int pm_mc_abort(pm_mc_t *sm, int err)
{
    if (!sm || !sm->active || err >= 0) return PM_MC_ERR_ARG;
    sm->fail(err, -1, true);
    return PM_MC_OK;
}

extern "C" void pm_mc_get_stats(const pm_mc_t *sm, pm_mc_stats_t *st)
{
    if (!sm || !st) return;
    *st = sm->st;
    st->bandwidth_Bps = sm->bw * 1e9;
    st->rtt_ns = sm->rtt;
}

/* ---------------------------------------------------------------------------
 * Input
 * ------------------------------------------------------------------------- */
pm_mc_rx_t pm_mc::check_identity(const pm_mc_hdr_t &h)
{
    if (h.job != p.job) return PM_MC_RX_FOREIGN_JOB;
    if (h.ctx != p.ctx) return PM_MC_RX_FOREIGN_CTX;
    if (!has_epoch) return PM_MC_RX_FUTURE_EPOCH;
    int32_t d = int32_t(h.epoch - epoch);
    if (d > 1) return PM_MC_RX_FAR_EPOCH;
    if (d == 1) return PM_MC_RX_FUTURE_EPOCH;
    if (d < 0 || !active || finished) return PM_MC_RX_STALE_EPOCH;
    if (h.root != root) return PM_MC_RX_BAD_ROOT;
    return PM_MC_RX_ACCEPTED;
}

void pm_mc::deliver(uint64_t off, uint64_t len)
{
    st.delivered_bytes += len;
    if (!deliv.empty() && deliv.back().first + deliv.back().second == off)
        deliv.back().second += len;
    else
        deliv.emplace_back(off, len);
}

bool pm_mc::store(uint32_t c, const uint8_t *src, uint64_t now, bool repair)
{
    if (have.get(c)) return false;
    if (rtt_probe && c == rtt_probe_chunk) {
        rtt_probe = false;
        if (repair) { /* Karn: only a first request's answer is a sample */
            double sample = double(now - rtt_probe_t), lo = p.rtt_ns / 64, hi = p.rtt_ns * 256;
            rttvar = 0.75 * rttvar + 0.25 * (sample > rtt ? sample - rtt : rtt - sample);
            rtt = std::min(std::max(0.875 * rtt + 0.125 * sample, lo), hi);
            rttvar = std::min(rttvar, hi);
        }
    }
    uint32_t len = chunk_len(c);
    std::memcpy(buf + chunk_off(c), src, len);
    have.set(c);
    ++have_count;
    if (c == contig) contig = have.next_clear(contig, nchunks);
    highest = std::max(highest, c + 1);
    t_progress = now;
    deliver(chunk_off(c), len);
    return true;
}

pm_mc_rx_t pm_mc::datagram(const pm_mc_hdr_t &h, const uint8_t *pl, uint64_t now)
{
    switch (h.type) {
    case PM_MC_T_DATA: {
        if (h.offset % p.chunk_bytes || h.offset / p.chunk_bytes != h.seq || h.seq >= nchunks ||
            h.len != chunk_len(h.seq))
            return PM_MC_RX_BAD_RANGE;
        if (is_root() || !store(h.seq, pl, now, false)) return PM_MC_RX_DUPLICATE;
        if (bw_n++ == 0) {
            bw_t0 = now;
            bw_bytes = 0;
        } else {
            bw_bytes += h.len;
        }
        bw_t1 = now;
        return PM_MC_RX_ACCEPTED;
    }
    case PM_MC_T_STATUS: {
        if (h.len != 16 || h.offset != 0) return PM_MC_RX_BAD_RANGE;
        uint64_t total = get64(pl);
        uint32_t sent = get32(pl + 8), chunk = get32(pl + 12);
        if (is_root()) return PM_MC_RX_DUPLICATE;
        /* the chunk was agreed at the open: another one is nobody's (dropped); a message
         * size other than ours is the root's (an erroneous program): the size error */
        if (chunk != p.chunk_bytes) return PM_MC_RX_BAD_RANGE;
        if (total != bytes) {
            fail(PM_MC_ERR_SIZE, -1, true);
            return PM_MC_RX_ACCEPTED;
        }
        if (sent > nchunks) return PM_MC_RX_BAD_RANGE;
        if (sent <= status_sent) return PM_MC_RX_DUPLICATE;
        status_sent = sent;
        return PM_MC_RX_ACCEPTED;
    }
    case PM_MC_T_ABORT: {
        if (h.len != 4 || h.seq >= p.size || h.seq == p.rank) return PM_MC_RX_BAD_RANGE;
        if (active && !finished) st.error_peer = h.seq;
        fail(PM_MC_ERR_ABORTED, int(h.seq), false);
        return PM_MC_RX_ACCEPTED;
    }
    default:
        return PM_MC_RX_BAD_PEER;
    }
}

pm_mc_rx_t pm_mc::p2p(uint32_t src, const pm_mc_hdr_t &h, const uint8_t *pl, uint64_t now)
{
    int i = nb_of(src);
    if (i < 0) return PM_MC_RX_BAD_PEER;
    Neighbour &nb = nbs[i];
    pm_mc_rx_t rc = PM_MC_RX_BAD_PEER;
    switch (h.type) {
    case PM_MC_T_NACK: {
        if (!nb.client) return PM_MC_RX_BAD_PEER;
        if (h.len == 0 || h.offset != 0 || h.seq >= nchunks) return PM_MC_RX_BAD_RANGE;
        uint64_t nbits = uint64_t(h.len) * 8;
        for (uint64_t b = 0; b < nbits; ++b)
            if (((pl[b >> 3] >> (b & 7)) & 1) && h.seq + b >= nchunks) return PM_MC_RX_BAD_RANGE;
        rc = PM_MC_RX_DUPLICATE;
        uint32_t limit = is_root() ? next_chunk : nchunks;
        for (uint64_t b = 0; b < nbits; ++b) {
            if (!((pl[b >> 3] >> (b & 7)) & 1)) continue;
            uint32_t c = uint32_t(h.seq + b);
            if (c >= limit) continue; /* the root has not multicast it yet */
            if (!nb.pending.get(c)) {
                nb.pending.set(c);
                ++nb.npending;
                rc = PM_MC_RX_ACCEPTED;
            }
            if (!have.get(c)) hint_sent = std::max(hint_sent, c + 1);
        }
        break;
    }
    case PM_MC_T_REPAIR: {
        if (!nb.source) return PM_MC_RX_BAD_PEER;
        if (h.len == 0 || h.seq >= nchunks || h.offset != chunk_off(h.seq)) return PM_MC_RX_BAD_RANGE;
        uint64_t left = h.len;
        uint32_t c = h.seq;
        while (left > 0) {
            if (c >= nchunks || left < chunk_len(c)) return PM_MC_RX_BAD_RANGE;
            left -= chunk_len(c);
            ++c;
        }
        rc = PM_MC_RX_DUPLICATE;
        const uint8_t *q = pl;
        for (uint32_t x = h.seq; x < c; q += chunk_len(x), ++x) {
            if (store(x, q, now, true)) {
                st.repair_bytes_rcvd += chunk_len(x);
                rc = PM_MC_RX_ACCEPTED;
            }
        }
        if (rc == PM_MC_RX_ACCEPTED) {
            if (have.next_clear(contig, nack_upto) >= nack_upto) { /* all requested arrived */
                retry_n = 0;
                retry_at = kNever;
            } else {
                arm_retry(now); /* progress: give the rest its time, at the current backoff */
            }
        }
        break;
    }
    case PM_MC_T_ACK: {
        if (!nb.kid) return PM_MC_RX_BAD_PEER;
        if (h.len || h.seq > nchunks) return PM_MC_RX_BAD_RANGE;
        rc = (h.seq > nb.acked) ? PM_MC_RX_ACCEPTED : PM_MC_RX_DUPLICATE;
        nb.acked = std::max(nb.acked, h.seq);
        break;
    }
    case PM_MC_T_KEEPALIVE:
        /* seq: the chunks the sender knows the root has sent; a rank that missed all of
         * them (multicast broken for it) learns what to NACK from its neighbours */
        if (h.len || h.seq > nchunks) return PM_MC_RX_BAD_RANGE;
        if (have_count < nchunks) hint_sent = std::max(hint_sent, h.seq);
        rc = PM_MC_RX_ACCEPTED;
        break;
    case PM_MC_T_DONE: {
        if (!nb.parent) return PM_MC_RX_BAD_PEER;
        if (h.len || h.seq != nchunks) return PM_MC_RX_BAD_RANGE;
        nb.last_heard = now;
        if (have_count != nchunks) {
            fail(PM_MC_ERR_PROTOCOL, -1, true);
            return PM_MC_RX_ACCEPTED;
        }
        finish_ok();
        return PM_MC_RX_ACCEPTED;
    }
    case PM_MC_T_ABORT:
        if (h.len != 4 || h.seq >= p.size) return PM_MC_RX_BAD_RANGE;
        if (active && !finished) st.error_peer = h.seq;
        fail(PM_MC_ERR_ABORTED, int(src), false);
        return PM_MC_RX_ACCEPTED;
    default:
        return PM_MC_RX_BAD_PEER;
    }
    nb.last_heard = now;
    return rc;
}

extern "C" pm_mc_rx_t pm_mc_on_datagram(pm_mc_t *sm, const void *msg, size_t len, uint64_t now)
{
    if (!sm) return PM_MC_RX_TRUNCATED;
    pm_mc_hdr_t h;
    const uint8_t *pl = nullptr;
    uint32_t sender = 0;
    uint64_t counter = 0;
    pm_mc_rx_t rc = open_group(sm, msg, len, &h, &pl, &sender, &counter);
    if (rc == PM_MC_RX_ACCEPTED) rc = sm->check_identity(h);
    try {
        if (rc == PM_MC_RX_ACCEPTED) rc = sm->datagram(h, pl, now);
    } catch (...) {
        sm->fail(PM_MC_ERR_NOMEM, -1, false);
        rc = PM_MC_RX_ACCEPTED;
    }
    /* authentic and used (a FUTURE one is kept by the engine and comes again) */
    if (sm->mac && rc != PM_MC_RX_FUTURE_EPOCH && rc != PM_MC_RX_BAD_AUTH &&
        rc != PM_MC_RX_REPLAY && rc != PM_MC_RX_BAD_PEER && counter != 0)
        sm->seen[sender].mark(counter);
    sm->st.rx[rc]++;
    return rc;
}

extern "C" pm_mc_rx_t pm_mc_on_p2p(pm_mc_t *sm, uint32_t src, const void *msg, size_t len, uint64_t now)
{
    if (!sm) return PM_MC_RX_TRUNCATED;
    pm_mc_hdr_t h;
    const uint8_t *pl = nullptr;
    pm_mc_rx_t rc = pm_mc_parse(msg, len, &h, &pl);
    if (rc == PM_MC_RX_ACCEPTED) rc = sm->check_identity(h);
    if (rc == PM_MC_RX_ACCEPTED && (src >= sm->p.size || src == sm->p.rank)) rc = PM_MC_RX_BAD_PEER;
    try {
        if (rc == PM_MC_RX_ACCEPTED) rc = sm->p2p(src, h, pl, now);
    } catch (...) {
        sm->fail(PM_MC_ERR_NOMEM, -1, false);
        rc = PM_MC_RX_ACCEPTED;
    }
    sm->st.rx[rc]++;
    return rc;
}

/* ---------------------------------------------------------------------------
 * Completion and failure
 * ------------------------------------------------------------------------- */
void pm_mc::update_bw_estimate()
{
    if (bw_n < 16 || bw_t1 <= bw_t0) return;
    double sample = double(bw_bytes) / double(bw_t1 - bw_t0);
    double init = p.bandwidth_Bps / 1e9;
    bw = std::min(std::max(0.75 * bw + 0.25 * sample, init / 16), init * 64);
}

void pm_mc::finish_ok()
{
    ctl.clear(); /* nothing else is owed to anyone: every rank holds the message */
    for (int i : kid_i) queue(false, nbs[i].rank, PM_MC_T_DONE, nchunks);
    finished = true;
    update_bw_estimate();
}

void pm_mc::fail(int err, int skip_rank, bool tell_group)
{
    if (!active || finished) return;
    error = err;
    finished = true;
    st.failures++;
    ctl.clear();
    std::vector<uint8_t> code(4);
    put32(code.data(), uint32_t(err));
    for (auto &nb : nbs)
        if (int64_t(nb.rank) != skip_rank) queue(false, nb.rank, PM_MC_T_ABORT, p.rank, code);
    if (tell_group) queue(true, 0, PM_MC_T_ABORT, p.rank, code);
}

/* ---------------------------------------------------------------------------
 * Timers
 * ------------------------------------------------------------------------- */
uint32_t pm_mc::subtree_ack() const
{
    uint32_t s = contig;
    for (int i : kid_i) s = std::min(s, nbs[i].acked);
    return s;
}

uint32_t pm_mc::eligible_end(uint64_t now) const
{
    /* Quiet for the silent period although the root has started (we hold a chunk, got a
     * STATUS, or a neighbour told us it holds chunks): ask for what the window let the
     * root send.  Hints from neighbours count only here: their datagrams come through
     * other switch-port queues, which may run milliseconds ahead of ours. */
    if (known_sent() > 0 && now - t_progress >= T_silent)
        return std::max<uint32_t>(known_sent(),
                                  uint32_t(std::min<uint64_t>(nchunks, uint64_t(contig) + window_chunks)));
    /* the group's own path is FIFO: holes below the newest chunk or the root's STATUS
     * (sent after the data) are lost once reorder_chunks later chunks arrived, or the
     * path went quiet for T_ro */
    if (now - t_progress >= T_ro) return known_data();
    uint32_t by_order = highest > p.reorder_chunks ? highest - p.reorder_chunks : 0;
    return std::max(by_order, status_sent);
}

/* Sources keep requested chunks until they serve them (p2p is reliable), so a retry is
 * a safety net (a chunk the root had not multicast yet when the silent fallback asked
 * for it): generous (at least a quarter of the silent period, so a descheduled source
 * does not draw duplicates), doubling per retry until everything requested arrived. */
uint64_t pm_mc::retry_time(uint32_t below) const
{
    uint32_t missing = 0;
    for (uint32_t c = have.next_clear(0, below); c < below; c = have.next_clear(c + 1, below)) ++missing;
    uint64_t t = ns(2 * (rtt + 4 * rttvar) + double(T_ro) + double(missing) * p.chunk_bytes / bw);
    return std::max(t, T_silent / 4);
}

void pm_mc::arm_retry(uint64_t now)
{
    uint64_t t = retry_time(nack_upto);
    for (uint32_t i = 0; i < retry_n && t < T_ka; ++i) t *= 2;
    retry_at = sat_add(now, std::min(t, T_ka));
}

void pm_mc::send_nacks(uint32_t lo, uint32_t hi)
{
    const uint32_t max_bits = uint32_t(max_payload * 8);
    for (uint32_t c = have.next_clear(lo, hi); c < hi;) {
        uint32_t end = std::min<uint64_t>(hi, uint64_t(c) + max_bits);
        /* trim the run to its last missing chunk */
        uint32_t last = c;
        for (uint32_t x = c; x < end; x = have.next_clear(x + 1, end)) last = x;
        std::vector<uint8_t> bm((last - c) / 8 + 1, 0);
        uint32_t count = 0;
        for (uint32_t x = c; x <= last; x = have.next_clear(x + 1, last + 1)) {
            bm[(x - c) >> 3] |= uint8_t(1u << ((x - c) & 7));
            ++count;
        }
        st.nack_chunks += count;
        queue(false, nbs[source_i].rank, PM_MC_T_NACK, c, std::move(bm));
        c = have.next_clear(last + 1, hi);
    }
}

void pm_mc::root_timers(uint64_t now)
{
    (void)now;
    bool all = true;
    for (int i : kid_i) all = all && nbs[i].acked == nchunks;
    if (all) finish_ok();
}

void pm_mc::receiver_timers(uint64_t now)
{
    Neighbour &par = nbs[parent_i];
    /* ACK: subtree prefix every ack_step chunks, and the end; keepalive otherwise */
    uint32_t sub = subtree_ack();
    if (sub > last_ack_sent && (sub == nchunks || sub - last_ack_sent >= ack_step)) {
        queue(false, par.rank, PM_MC_T_ACK, sub);
        last_ack_sent = sub;
    } else if (now - par.last_sent >= T_ka && !queued_to(par.rank)) {
        queue(false, par.rank, PM_MC_T_ACK, last_ack_sent);
    }
    if (have_count == nchunks || source_i < 0) return;
    /* NACK newly lost chunks (batched), retry old ones (doubling) */
    uint32_t elig = eligible_end(now);
    if (elig > nack_upto && have.next_clear(nack_upto, elig) >= elig) nack_upto = elig; /* nothing lost */
    if (elig > nack_upto && now - last_nack_t >= T_nb) {
        if (!rtt_probe) {
            rtt_probe = true;
            rtt_probe_t = now;
            rtt_probe_chunk = have.next_clear(nack_upto, elig);
        }
        send_nacks(nack_upto, elig);
        last_nack_t = now;
        nack_upto = elig;
        arm_retry(now);
    }
    if (now >= retry_at) {
        if (contig < nack_upto && have.next_clear(contig, nack_upto) < nack_upto) {
            send_nacks(contig, nack_upto);
            st.nack_retries++;
            last_nack_t = now;
            if (rtt_probe && rtt_probe_chunk < nack_upto) rtt_probe = false; /* Karn */
            retry_n = std::min<uint32_t>(retry_n + 1, 16);
            arm_retry(now);
        } else {
            retry_at = kNever;
        }
    }
}

void pm_mc::timers(uint64_t now)
{
    if (is_root())
        root_timers(now);
    else
        receiver_timers(now);
    if (finished) return;
    /* liveness and keepalives */
    for (auto &nb : nbs) {
        bool watched = nb.parent || (nb.kid && nb.acked < nchunks) || (nb.source && have_count < nchunks);
        if (watched && now - nb.last_heard > T_dead) {
            st.error_peer = nb.rank;
            fail(PM_MC_ERR_PEER_DEAD, -1, true);
            return;
        }
    }
    for (auto &nb : nbs) {
        if (nb.parent) continue; /* the ACK above is its keepalive */
        if (now - nb.last_sent >= T_ka && !queued_to(nb.rank))
            queue(false, nb.rank, PM_MC_T_KEEPALIVE, is_root() ? next_chunk : known_sent());
    }
}

/* ---------------------------------------------------------------------------
 * Output
 * ------------------------------------------------------------------------- */
size_t pm_mc::encode(uint8_t type, uint32_t seq, uint64_t off, const uint8_t *pl, size_t len, uint8_t *out) const
{
    pm_mc_hdr_t h{};
    h.version = PM_MC_VERSION;
    h.type = type;
    h.ctx = p.ctx;
    h.job = p.job;
    h.epoch = epoch;
    h.root = root;
    h.seq = seq;
    h.offset = off;
    h.len = uint32_t(len);
    return pm_mc_encode(&h, pl, len, out, PM_MC_HDR_BYTES + max_payload);
}

bool pm_mc::try_repair(pm_mc_action_t *act, uint8_t *out)
{
    for (size_t k = 0; k < client_i.size(); ++k) {
        Neighbour &cl = nbs[client_i[(client_rr + k) % client_i.size()]];
        if (!cl.npending) continue;
        uint32_t limit = is_root() ? next_chunk : nchunks;
        uint32_t c = cl.pending.next_set(0, limit, &have);
        if (c >= limit) continue;
        uint32_t e = c;
        while (e < limit && e - c < repair_chunks && cl.pending.get(e) && have.get(e)) {
            cl.pending.clear(e);
            --cl.npending;
            ++e;
        }
        uint64_t off = chunk_off(c), len = chunk_off(e - 1) + chunk_len(e - 1) - off;
        act->kind = PM_MC_ACT_SEND_P2P;
        act->peer = cl.rank;
        act->len = encode(PM_MC_T_REPAIR, c, off, buf + off, len, out);
        st.repair_sent++;
        st.repair_bytes_sent += len;
        client_rr = (client_rr + k + 1) % client_i.size();
        return true;
    }
    return false;
}

bool pm_mc::try_data(uint64_t now, pm_mc_action_t *act, uint8_t *out)
{
    uint32_t acked = nchunks;
    for (int i : kid_i) acked = std::min(acked, nbs[i].acked);
    uint64_t limit = std::min<uint64_t>(nchunks, uint64_t(acked) + window_chunks);
    uint32_t ready_chunks = ready >= bytes ? nchunks : uint32_t(ready / p.chunk_bytes);
    limit = std::min<uint64_t>(limit, ready_chunks);
    if (next_chunk < limit) {
        if (p.rate_Bps > 0 && now < next_send_t) return false;
        uint32_t c = next_chunk++;
        uint64_t off = chunk_off(c);
        uint32_t len = chunk_len(c);
        act->kind = PM_MC_ACT_SEND_GROUP;
        act->len = encode(PM_MC_T_DATA, c, off, buf + off, len, out);
        if (p.rate_Bps > 0)
            next_send_t = std::max(next_send_t, now) + ns((len + PM_MC_HDR_BYTES) * 1e9 / p.rate_Bps);
        st.data_sent++;
        st.data_bytes_sent += len;
        status_at = kNever; /* data flows: no STATUS needed */
        status_iv = 0;
        return true;
    }
    /* all sent, or stalled by the window: announce how far we are, backing off */
    bool stalled = next_chunk == nchunks || next_chunk == uint64_t(acked) + window_chunks;
    if (stalled && status_at == kNever) {
        status_iv = T_ro + ns(rtt);
        status_at = sat_add(now, status_iv);
    }
    if (stalled && now >= status_at) {
        uint8_t pl[16];
        put64(pl, bytes);
        put32(pl + 8, next_chunk);
        put32(pl + 12, p.chunk_bytes);
        act->kind = PM_MC_ACT_SEND_GROUP;
        act->len = encode(PM_MC_T_STATUS, status_seq++, 0, pl, 16, out);
        status_iv = std::min(2 * status_iv, T_ka);
        status_at = sat_add(now, status_iv);
        st.status_sent++;
        return true;
    }
    return false;
}

uint64_t pm_mc::wake(uint64_t now) const
{
    uint64_t w = kNever;
    auto at = [&](uint64_t t) { w = std::min(w, std::max(t, now + 1)); };
    if (is_root()) {
        uint32_t acked = nchunks;
        for (int i : kid_i) acked = std::min(acked, nbs[i].acked);
        if (p.rate_Bps > 0 && next_chunk < std::min<uint64_t>(nchunks, uint64_t(acked) + window_chunks))
            at(next_send_t);
        at(status_at);
    } else if (have_count < nchunks && source_i >= 0) {
        /* when the next NACK can go: a hole becomes eligible (now, or after the quiet
         * period) and the batching interval allows it */
        if (eligible_end(now) > nack_upto)
            at(last_nack_t + T_nb);
        else if (known_data() > nack_upto)
            at(t_progress + T_ro);
        if (known_sent() > 0 && now - t_progress < T_silent) at(sat_add(t_progress, T_silent));
        at(retry_at);
    }
    for (const auto &nb : nbs) {
        at(sat_add(nb.last_sent, T_ka));
        bool watched = nb.parent || (nb.kid && nb.acked < nchunks) || (nb.source && have_count < nchunks);
        if (watched) at(sat_add(sat_add(nb.last_heard, T_dead), 1));
    }
    return w;
}

static int next_action(pm_mc_t *sm, uint64_t now, pm_mc_action_t *act, void *outv)
{
    std::memset(act, 0, sizeof *act);
    act->kind = PM_MC_ACT_NONE;
    act->wake_ns = kNever;
    if (!sm->active) return PM_MC_OK;
    uint8_t *out = static_cast<uint8_t *>(outv);
    try {
        if (!sm->finished) sm->timers(now);
        if (!sm->deliv.empty()) {
            act->kind = PM_MC_ACT_DELIVER;
            act->off = sm->deliv.front().first;
            act->len = sm->deliv.front().second;
            sm->deliv.pop_front();
            return PM_MC_OK;
        }
        if (!sm->ctl.empty()) {
            Ctl c = std::move(sm->ctl.front());
            sm->ctl.pop_front();
            act->kind = c.group ? PM_MC_ACT_SEND_GROUP : PM_MC_ACT_SEND_P2P;
            act->peer = c.peer;
            act->len = sm->encode(c.type, c.seq, 0, c.payload.data(), c.payload.size(), out);
            if (!c.group) {
                int i = sm->nb_of(c.peer);
                if (i >= 0) sm->nbs[i].last_sent = now;
            }
            switch (c.type) {
            case PM_MC_T_NACK: sm->st.nack_sent++; break;
            case PM_MC_T_ACK: sm->st.ack_sent++; break;
            case PM_MC_T_KEEPALIVE: sm->st.keepalive_sent++; break;
            case PM_MC_T_DONE: sm->st.done_sent++; break;
            case PM_MC_T_ABORT: sm->st.abort_sent++; break;
            default: break;
            }
            return PM_MC_OK;
        }
        if (!sm->finished) {
            if (sm->try_repair(act, out)) {
                sm->nbs[sm->nb_of(act->peer)].last_sent = now;
                return PM_MC_OK;
            }
            if (sm->is_root() && sm->try_data(now, act, out)) return PM_MC_OK;
        }
        if (sm->finished) {
            sm->active = false;
            sm->st.collectives++;
            act->kind = sm->error ? PM_MC_ACT_ERROR : PM_MC_ACT_COMPLETE;
            act->error = sm->error;
            return PM_MC_OK;
        }
        act->wake_ns = sm->wake(now);
    } catch (const std::bad_alloc &) {
        sm->fail(PM_MC_ERR_NOMEM, -1, false);
        act->kind = PM_MC_ACT_NONE;
        act->wake_ns = now + 1;
    } catch (...) {
        sm->fail(PM_MC_ERR_INTERNAL, -1, false);
        act->kind = PM_MC_ACT_NONE;
        act->wake_ns = now + 1;
    }
    return PM_MC_OK;
}

extern "C" int pm_mc_next(pm_mc_t *sm, uint64_t now, pm_mc_action_t *act, void *outv, size_t cap)
{
    if (!sm || !act || !outv || cap < pm_mc_max_message(sm)) return PM_MC_ERR_ARG;
    const int rc = next_action(sm, now, act, outv);
    if (rc == PM_MC_OK && act->kind == PM_MC_ACT_SEND_GROUP && sm->mac) {
        act->len = sm->mac->seal(static_cast<uint8_t *>(outv), size_t(act->len), cap, sm->p.rank,
                                 ++sm->seal_counter);
        if (act->len == 0) { /* the library failed: nothing goes out, the call ends */
            sm->fail(PM_MC_ERR_INTERNAL, -1, false);
            act->kind = PM_MC_ACT_NONE;
            act->wake_ns = now + 1;
        }
    }
    return rc;
}
