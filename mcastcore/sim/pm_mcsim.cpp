/*
 * Discrete-event simulation of the multicast protocol on a star switch (the model is
 * described in include/pm_mcproto.h, section "Simulated lossy network").
 *
 *   host r --uplink--> [switch: replicate group datagrams, drop/dup/delay per copy]
 *          <--downlink-- each host link FIFO at link_Bps, latency_ns per hop
 *
 * Events in time order (ties: insertion order, so runs are deterministic per seed):
 *   START r          rank r calls pm_mc_start
 *   SWITCH m         message m reached the switch: reserve each destination's downlink
 *   ARRIVE r m       m reached rank r's input queue (dropped there beyond rcvbuf)
 *   RUN r            rank r processes one queued message (rx_cpu_ns), then pulls actions
 *   WAKE r           the state machine's requested wake time
 * A rank pulls pm_mc_next until NONE, or until its uplink holds sndbuf bytes (then it
 * runs again when the uplink drained below that).
 */
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <new>
#include <queue>
#include <vector>

#include "pm_mcproto.h"

namespace {

constexpr uint64_t kNever = UINT64_MAX;
using Bytes = std::shared_ptr<const std::vector<uint8_t>>;

struct Rng {
    uint64_t s;
    uint64_t next()
    {
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform() { return double(next() >> 11) / 9007199254740992.0; }
};

enum Kind { START, SWITCH, ARRIVE, RUN, WAKE };

struct Event {
    uint64_t t, seq;
    Kind kind;
    uint32_t rank;  /* destination (or sender for SWITCH) */
    uint32_t src;   /* sender rank (n = the foreign injector) */
    bool group;
    uint64_t gen;
    Bytes msg;
};

struct Later {
    bool operator()(const Event &a, const Event &b) const { return a.t != b.t ? a.t > b.t : a.seq > b.seq; }
};

struct Input {
    Bytes msg;
    uint32_t src;
    bool group;
};

struct Host {
    pm_mc_t *sm = nullptr;
    bool started = false, finished = false, dead = false;
    int status = 1;
    uint64_t finish = 0;
    uint64_t up_free = 0, down_free = 0, cpu_free = 0;
    uint64_t queued = 0;
    std::deque<Input> in;
    bool run_scheduled = false;
    uint64_t wake_gen = 0;
    uint64_t up_bytes = 0, down_bytes = 0, rcvbuf_drops = 0;
};

struct Sim {
    pm_mcsim_params_t p;
    void *const *bufs;
    pm_mcsim_deliver_fn deliver;
    void *ctx;
    std::vector<Host> h;  /* n ranks + the injector */
    std::priority_queue<Event, std::vector<Event>, Later> q;
    uint64_t seq = 0;
    Rng rng;
    std::vector<uint8_t> out;
    uint64_t dropped = 0, duplicated = 0, injected = 0;
    uint32_t live_running = 0;
    uint32_t replays_left = 0; /* genuine datagrams the injector sends again (auth runs) */
    uint64_t span_ns = 0;

    uint64_t wire_time(size_t bytes) const { return uint64_t(double(bytes) * 1e9 / p.link_Bps + 0.5); }
    void push(uint64_t t, Kind k, uint32_t rank, uint32_t src = 0, bool group = false, Bytes m = nullptr,
              uint64_t gen = 0)
    {
        q.push(Event{t, seq++, k, rank, src, group, gen, std::move(m)});
    }

    void send(uint64_t now, uint32_t from, bool group, uint32_t to, const uint8_t *data, size_t len)
    {
        Host &s = h[from];
        size_t wire = len + p.frame_overhead + (group ? 0 : 24); /* p2p: TCP + PML headers */
        uint64_t start = std::max(now, s.up_free);
        s.up_free = start + wire_time(wire);
        s.up_bytes += wire;
        push(s.up_free + p.latency_ns, SWITCH, to, from, group,
             std::make_shared<const std::vector<uint8_t>>(data, data + len));
    }

    void downlink(uint64_t now, uint32_t to, uint32_t from, bool group, const Bytes &m, uint64_t extra)
    {
        Host &d = h[to];
        size_t wire = m->size() + p.frame_overhead + (group ? 0 : 24);
        uint64_t start = std::max(now, d.down_free);
        d.down_free = start + wire_time(wire);
        d.down_bytes += wire;
        push(d.down_free + p.latency_ns + extra, ARRIVE, to, from, group, m);
    }

    void on_switch(const Event &e)
    {
        if (!e.group) {
            downlink(e.t, e.rank, e.src, false, e.msg, 0);
            return;
        }
        if (replays_left > 0 && e.src < p.n) {
            /* the injector captured this one: it sends it again later, whole */
            --replays_left;
            ++injected;
            const uint64_t later = e.t + 1 + uint64_t(rng.uniform() * double(span_ns));
            send(later, p.n, true, 0, e.msg->data(), e.msg->size());
        }
        for (uint32_t r = 0; r < p.n; ++r) {
            if (r == e.src) continue;
            if (p.loss > 0 && rng.uniform() < p.loss) {
                ++dropped;
                continue;
            }
            uint64_t extra = (p.reorder > 0 && rng.uniform() < p.reorder)
                                 ? 1 + uint64_t(rng.uniform() * double(p.reorder_ns)) : 0;
            downlink(e.t, r, e.src, true, e.msg, extra);
            if (p.dup > 0 && rng.uniform() < p.dup) {
                ++duplicated;
                downlink(e.t, r, e.src, true, e.msg, extra + 1 + uint64_t(rng.uniform() * double(p.reorder_ns)));
            }
        }
    }

    void on_arrive(const Event &e)
    {
        Host &d = h[e.rank];
        if (d.dead) return;
        if (e.group && p.rcvbuf_bytes && d.queued + e.msg->size() > p.rcvbuf_bytes) {
            ++d.rcvbuf_drops;
            return;
        }
        d.queued += e.msg->size();
        d.in.push_back(Input{e.msg, e.src, e.group});
        schedule_run(e.rank, e.t);
    }

    void schedule_run(uint32_t r, uint64_t t)
    {
        Host &x = h[r];
        if (x.run_scheduled || !x.started || x.finished) return;
        x.run_scheduled = true;
        push(std::max(t, x.cpu_free), RUN, r);
    }

    void finish(uint32_t r, uint64_t now, int status)
    {
        Host &x = h[r];
        x.finished = true;
        x.status = status;
        x.finish = now;
        if (live_running) --live_running;
    }

    /* Pull actions until NONE or a full uplink. */
    void pull(uint32_t r, uint64_t now)
    {
        Host &x = h[r];
        while (!x.finished) {
            if (p.sndbuf_bytes) {
                uint64_t backlog_t = x.up_free > now ? x.up_free - now : 0;
                if (double(backlog_t) * p.link_Bps / 1e9 >= double(p.sndbuf_bytes)) {
                    uint64_t t = x.up_free - wire_time(p.sndbuf_bytes) + 1;
                    x.wake_gen++;
                    push(std::max(t, now + 1), WAKE, r, 0, false, nullptr, x.wake_gen);
                    return;
                }
            }
            pm_mc_action_t a;
            if (pm_mc_next(x.sm, now, &a, out.data(), out.size()) != PM_MC_OK) {
                finish(r, now, PM_MC_ERR_INTERNAL);
                return;
            }
            switch (a.kind) {
            case PM_MC_ACT_SEND_GROUP: send(now, r, true, 0, out.data(), a.len); break;
            case PM_MC_ACT_SEND_P2P: send(now, r, false, a.peer, out.data(), a.len); break;
            case PM_MC_ACT_DELIVER:
                if (deliver) deliver(ctx, r, a.off, a.len);
                break;
            case PM_MC_ACT_COMPLETE: finish(r, now, PM_MC_OK); return;
            case PM_MC_ACT_ERROR: finish(r, now, a.error); return;
            default:
                x.wake_gen++;
                if (a.wake_ns != kNever) push(a.wake_ns, WAKE, r, 0, false, nullptr, x.wake_gen);
                return;
            }
        }
    }

    void on_run(const Event &e)
    {
        Host &x = h[e.rank];
        x.run_scheduled = false;
        if (x.finished) return;
        if (!x.in.empty()) {
            Input in = std::move(x.in.front());
            x.in.pop_front();
            x.queued -= in.msg->size();
            if (in.group)
                pm_mc_on_datagram(x.sm, in.msg->data(), in.msg->size(), e.t);
            else
                pm_mc_on_p2p(x.sm, in.src, in.msg->data(), in.msg->size(), e.t);
            x.cpu_free = e.t + p.rx_cpu_ns;
        }
        pull(e.rank, e.t);
        if (!x.in.empty()) schedule_run(e.rank, x.cpu_free);
    }

    void on_start(const Event &e)
    {
        Host &x = h[e.rank];
        x.started = true;
        if (pm_mc_start(x.sm, p.epoch, p.root, bufs ? bufs[e.rank] : nullptr, p.bytes, e.t) != PM_MC_OK) {
            finish(e.rank, e.t, PM_MC_ERR_ARG);
            return;
        }
        pull(e.rank, e.t);
        if (!x.in.empty()) schedule_run(e.rank, e.t);
    }

    /* Foreign datagrams: each has exactly one thing wrong (or a type the group never
     * carries); all would otherwise be accepted as DATA of this collective.  With
     * authentication three more kinds come in turn, each sealed under a key of the
     * injector's own (it does not hold the job's): DATA right in every field, a STATUS
     * that claims a 2^60-byte message in chunks of 0 bytes, and an ABORT for this
     * collective and one for the next. */
    void inject(uint64_t t, uint32_t i, uint32_t nchunks)
    {
        if (nchunks == 0) return;
        const uint32_t chunk = p.proto.chunk_bytes;
        uint32_t c = uint32_t(rng.next() % nchunks);
        uint64_t len = std::min<uint64_t>(chunk, p.bytes - uint64_t(c) * chunk);
        std::vector<uint8_t> pl(len, 0xEE);
        pm_mc_hdr_t hd{};
        hd.version = PM_MC_VERSION;
        hd.type = PM_MC_T_DATA;
        hd.ctx = p.proto.ctx;
        hd.job = p.proto.job;
        hd.epoch = p.epoch;
        hd.root = p.root;
        hd.seq = c;
        hd.offset = uint64_t(c) * chunk;
        hd.len = uint32_t(len);
        const int kinds = p.proto.auth ? 17 : 14;
        int kind = int(i % uint32_t(kinds));
        switch (kind) {
        case 0: hd.job ^= 0x5A5A; break;
        case 1: hd.ctx += 1; break;
        case 2: hd.epoch -= 1; break;
        case 3: hd.epoch += 1; break;
        case 9: hd.root = (p.root + 1) % p.n; break;
        case 10: hd.seq = nchunks + 2; hd.offset = uint64_t(hd.seq) * chunk; break;
        case 11: hd.offset += 1; break;
        case 12: hd.type = PM_MC_T_REPAIR; break;
        case 13: hd.epoch += 7; break;
        case 15: /* STATUS: 2^60 bytes, 2^32 - 1 chunks sent, chunks of 0 bytes */
            hd.type = PM_MC_T_STATUS;
            hd.seq = 0;
            hd.offset = 0;
            pl.assign(16, 0);
            pl[0] = 0x10; /* big-endian 2^60 */
            pl[8] = pl[9] = pl[10] = pl[11] = 0xFF;
            hd.len = 16;
            break;
        case 16: /* ABORT from a rank, for this collective or the next */
            hd.type = PM_MC_T_ABORT;
            hd.seq = (p.root + 1) % p.n;
            hd.offset = 0;
            hd.epoch = p.epoch + (i / uint32_t(kinds)) % 2;
            pl.assign(4, 0xFF);
            hd.len = 4;
            break;
        default: break;
        }
        std::vector<uint8_t> m(PM_MC_HDR_BYTES + pl.size() + PM_MC_AUTH_BYTES);
        size_t ml = pm_mc_encode(&hd, pl.data(), pl.size(), m.data(), m.size());
        if (kind >= 14) {
            uint8_t key[PM_MC_AUTH_KEY_BYTES];
            for (auto &b : key) b = uint8_t(rng.next());
            const uint32_t claimed = hd.type == PM_MC_T_ABORT ? hd.seq : hd.root;
            ml = pm_mc_seal_with(key, claimed, 1 + rng.next() % 1000, m.data(), ml, m.size());
        }
        m.resize(ml);
        switch (kind) {
        case 4: m.back() ^= 0x01; break;                 /* corrupted CRC */
        case 5: m.resize(ml > 41 ? ml - 7 : 20); break;  /* truncated */
        case 6: m[0] ^= 0xFF; break;                     /* bad magic */
        case 7: m[2] = PM_MC_VERSION + 1; break;         /* bad version */
        case 8: m[3] = 200; break;                       /* bad type */
        default: break;
        }
        ++injected;
        send(t, p.n, true, 0, m.data(), m.size());
    }

    int run(pm_mcsim_rank_t *ranks, pm_mcsim_result_t *res)
    {
        const uint32_t n = p.n;
        h.resize(n + 1);
        rng.s = p.seed;
        size_t maxmsg = 0;
        for (uint32_t r = 0; r < n; ++r) {
            pm_mc_params_t pp = p.proto;
            pp.rank = r;
            pp.size = n;
            int err;
            h[r].sm = pm_mc_create(&pp, &err);
            if (!h[r].sm) return err;
            maxmsg = pm_mc_max_message(h[r].sm);
        }
        out.resize(maxmsg);
        uint32_t nchunks = 0;
        if (pm_mc_chunks(h[0].sm, p.bytes, &nchunks) != PM_MC_OK) return PM_MC_ERR_ARG;
        for (uint32_t r = 0; r < n; ++r) {
            if (int(r) == p.dead_rank) {
                h[r].dead = true;
                continue;
            }
            ++live_running;
            uint64_t t = p.start_skew_ns ? rng.next() % (p.start_skew_ns + 1) : 0;
            push(t, START, r);
        }
        if (p.foreign) {
            double span = double(p.bytes) * 1e9 / p.link_Bps + 1e6;
            span_ns = uint64_t(span);
            replays_left = p.proto.auth ? std::max<uint32_t>(1, p.foreign / 8) : 0;
            std::vector<uint64_t> at(p.foreign);
            for (auto &t : at) t = uint64_t(rng.uniform() * span);
            std::sort(at.begin(), at.end()); /* the injector's uplink is a FIFO in time order */
            for (uint32_t i = 0; i < p.foreign; ++i) inject(at[i], i, nchunks);
        }
        uint64_t now = 0;
        while (!q.empty() && live_running > 0) {
            Event e = q.top();
            q.pop();
            if (e.t > p.max_time_ns) break;
            now = e.t;
            switch (e.kind) {
            case START: on_start(e); break;
            case SWITCH: on_switch(e); break;
            case ARRIVE: on_arrive(e); break;
            case RUN: on_run(e); break;
            case WAKE:
                if (e.gen == h[e.rank].wake_gen && h[e.rank].started && !h[e.rank].finished) pull(e.rank, e.t);
                break;
            }
        }
        uint64_t end = 0;
        int hung = 0;
        for (uint32_t r = 0; r < n; ++r) {
            Host &x = h[r];
            if (!x.dead && !x.finished) hung = 1;
            if (x.finished) end = std::max(end, x.finish);
            ranks[r].status = x.dead ? 1 : x.status;
            ranks[r].finish_ns = x.finish;
            ranks[r].up_bytes = x.up_bytes;
            ranks[r].down_bytes = x.down_bytes;
            ranks[r].rcvbuf_drops = x.rcvbuf_drops;
            pm_mc_get_stats(x.sm, &ranks[r].stats);
        }
        res->end_ns = hung ? std::max(now, end) : end;
        res->hung = hung;
        res->group_copies_dropped = dropped;
        res->group_copies_duplicated = duplicated;
        res->foreign_injected = injected;
        return PM_MC_OK;
    }

    ~Sim()
    {
        for (auto &x : h) pm_mc_destroy(x.sm);
    }
};

}  // namespace

extern "C" void pm_mcsim_params_default(pm_mcsim_params_t *p)
{
    if (!p) return;
    std::memset(p, 0, sizeof *p);
    p->n = 2;
    pm_mc_params_default(&p->proto);
    p->proto.job = 0x6a6f622d6964ull;
    p->proto.ctx = 7;
    p->proto.dead_min_ns = 50000000ull; /* 50 ms of simulated time */
    p->link_Bps = 125e6;
    p->latency_ns = 5000;
    p->frame_overhead = 14 + 20 + 8;
    p->reorder_ns = 50000;
    p->dead_rank = -1;
    p->epoch = 1;
    p->seed = 1;
    p->max_time_ns = 600000000000ull;
}

extern "C" int pm_mcsim_run(const pm_mcsim_params_t *p, void *const *bufs, pm_mcsim_deliver_fn deliver, void *ctx,
                            pm_mcsim_rank_t *ranks, pm_mcsim_result_t *res)
{
    if (!p || !ranks || !res || p->n < 1 || p->root >= p->n || !(p->link_Bps > 0) || p->loss < 0 || p->loss > 1 ||
        p->dup < 0 || p->dup > 1 || p->reorder < 0 || p->reorder > 1 || (p->bytes && !bufs))
        return PM_MC_ERR_ARG;
    if (p->bytes)
        for (uint32_t r = 0; r < p->n; ++r)
            if (!bufs[r]) return PM_MC_ERR_ARG;
    std::memset(ranks, 0, sizeof *ranks * p->n);
    std::memset(res, 0, sizeof *res);
    try {
        Sim s;
        s.p = *p;
        s.bufs = bufs;
        s.deliver = deliver;
        s.ctx = ctx;
        return s.run(ranks, res);
    } catch (const std::bad_alloc &) {
        return PM_MC_ERR_NOMEM;
    } catch (...) {
        return PM_MC_ERR_INTERNAL;
    }
}
