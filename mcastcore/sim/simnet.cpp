/*
 * A deterministic simulated network that runs one engine per rank (mcast_simnet_run).
 *
 * Timing (LogGP-like, per rank one injection port and one reception port):
 *
 *   sender   start = max(post time, port free); port busy o_send + len*gap
 *   network  arrival = start + o_send + latency + len*wire
 *   receiver matched with the first posted receive from that sender (FIFO, as MPI),
 *            completes at max(arrival, port free) + o_recv + len*recv; a message above eager_bytes
 *            whose receive was posted late leaves the sender only then (rendezvous)
 *   engine   a send completes at the end of its injection (eager) or at delivery
 *            (rendezvous, or a synchronous send: MCAST_XF_SYNC)
 *
 * Unit steps are o_send = 1, everything else 0.  Every delivery is checked: its bytes
 * are the op's blocks and carry the root's data (a block is valid at a rank once a
 * valid copy arrived); a receive whose length differs from the message completes with
 * MCAST_SIMNET_MISMATCH, as a PML reports truncation or a short message.
 */
#include "sched/mc_core.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <map>
#include <queue>
#include <random>
#include <string>

namespace {

constexpr int MISMATCH = 1001; /* status of a length mismatch */

struct Msg {
    int from = 0;
    size_t off = 0, len = 0;
    bool valid = false;  /* carries the root's data */
    int sender_slot = -1;
    double arrival = 0;
    bool rendezvous = false;
    bool sync = false; /* completes at delivery (MCAST_XF_SYNC) */
};

struct Posted {
    int slot = 0;
    size_t off = 0, len = 0;
    double time = 0;
};

struct Event {
    double t;
    uint64_t key;
    int kind; /* 0 engine completion, 1 arrival */
    int rank;
    int slot;
    int status;
    size_t msg; /* index into msgs for arrivals */
    bool operator>(const Event &o) const { return t != o.t ? t > o.t : key > o.key; }
};

struct Sim;

struct Port {
    Sim *sim = nullptr;
    int rank = 0;
};

struct Sim {
    int n = 0, root = 0;
    mcast_engine_params_t p{};
    mcast_simnet_params_t net{};
    uint32_t m = 0;
    double now = 0;
    uint64_t seq = 0;
    std::mt19937_64 rng;
    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> q;
    std::vector<Msg> msgs;
    std::vector<mcast_engine_t *> eng;
    std::vector<Port> ports;
    std::vector<double> tx_free, rx_free, finish;
    std::vector<std::map<int, std::deque<Posted>>> posted;     /* [rank][from] */
    std::vector<std::map<int, std::deque<size_t>>> unexpected; /* [rank][from] msg ids */
    std::vector<std::vector<uint8_t>> valid, count;          /* [rank][block] */
    std::vector<long> posts;                                  /* per rank */
    std::vector<std::vector<std::pair<size_t, size_t>>> slot_range; /* [rank][slot] */
    mcast_simnet_result_t res{};
    std::string err;

    void push(double t, int kind, int rank, int slot, int status, size_t msg)
    {
        const uint64_t key = net.shuffle_seed ? rng() : seq;
        ++seq;
        q.push(Event{t, key, kind, rank, slot, status, msg});
    }
    bool blocks_valid(int r, size_t off, size_t len) const
    {
        if (len == 0) {
            return true; /* a notice: no blocks */
        }
        const size_t B = p.block_bytes;
        for (size_t b = off / B; b * B < off + len; ++b) {
            if (!valid[size_t(r)][b]) {
                return false;
            }
        }
        return true;
    }
    void deliver(int r, const Posted &po, size_t mi, double t_match)
    {
        Msg &mg = msgs[mi];
        double arrive = mg.arrival;
        if (mg.rendezvous && t_match > mg.arrival) {
            arrive = t_match + net.net.latency_us + double(mg.len) * net.net.wire_ns_per_byte * 1e-3;
        }
        const double done = std::max(arrive, rx_free[size_t(r)]) + net.net.o_recv_us +
                            double(mg.len) * net.net.recv_ns_per_byte * 1e-3;
        rx_free[size_t(r)] = done;
        int status = 0;
        if (mg.len != po.len || (mg.len > 0 && mg.off != po.off)) {
            status = MISMATCH;
        } else if (mg.valid) {
            const size_t B = p.block_bytes;
            for (size_t b = po.off / B; b * B < po.off + po.len; ++b) {
                valid[size_t(r)][b] = 1;
                ++count[size_t(r)][b];
            }
        }
        ++res.deliveries;
        push(done, 0, r, po.slot, status, 0);
        if (mg.rendezvous || mg.sync) {
            push(done, 0, mg.from, mg.sender_slot, 0, 0);
        }
    }
    int post(int r, int slot, mcast_op_kind_t kind, int peer, size_t off, size_t len, unsigned flags)
    {
        const long k = posts[size_t(r)]++;
        const bool injected = net.fail_rank == r && k == net.fail_op;
        slot_range[size_t(r)][size_t(slot)] = {off, len};
        if (kind == MCAST_OP_RECV) {
            Posted po{slot, off, len, now};
            auto &uq = unexpected[size_t(r)][peer];
            if (injected) {
                pending_fail.push_back({r, slot});
            }
            if (!uq.empty()) {
                const size_t mi = uq.front();
                uq.pop_front();
                deliver(r, po, mi, now);
            } else {
                posted[size_t(r)][peer].push_back(po);
            }
            return 0;
        }
        const bool void_send = (flags & MCAST_XF_VOID) != 0 || injected;
        Msg mg;
        mg.from = r;
        mg.off = off;
        /* the engine's void sends are 0 bytes, or 1 in place of a notice; an injected
         * failure sends what the engine would send in error mode */
        mg.len = injected ? (len > 0 ? 0 : 1) : len;
        mg.valid = !void_send && blocks_valid(r, off, len);
        if (!void_send && !mg.valid) {
            err = "rank " + std::to_string(r) + " sent bytes it does not hold";
        }
        mg.sender_slot = slot;
        const double start = std::max(now, tx_free[size_t(r)]);
        const double inj = start + net.net.o_send_us + double(mg.len) * net.net.gap_ns_per_byte * 1e-3;
        tx_free[size_t(r)] = inj;
        mg.arrival = start + net.net.o_send_us + net.net.latency_us +
                     double(mg.len) * net.net.wire_ns_per_byte * 1e-3;
        mg.rendezvous = mg.len > net.net.eager_bytes;
        mg.sync = (flags & MCAST_XF_SYNC) != 0 && !injected;
        msgs.push_back(mg);
        const size_t mi = msgs.size() - 1;
        if (!mg.rendezvous && !mg.sync) {
            push(inj, 0, r, slot, injected ? net.fail_status : 0, 0);
        } else if (injected) {
            err = "injected failure on a rendezvous send is not modelled";
        }
        push(mg.arrival, 1, peer, -1, 0, mi);
        return 0;
    }
    std::vector<std::pair<int, int>> pending_fail; /* injected receive failures: the receive
                                                      consumes its message but fails */
};

int port_post(void *ctx, int slot, mcast_op_kind_t kind, int peer, size_t off, size_t len,
              unsigned flags)
{
    Port *pt = static_cast<Port *>(ctx);
    return pt->sim->post(pt->rank, slot, kind, peer, off, len, flags);
}

void run(Sim &S, mcast_sched *const *scheds, double *finish_us, int *status_out)
{
    const int n = S.n;
    S.rng.seed(S.net.shuffle_seed);
    S.m = mc::nblocks_of(S.p.bytes, S.p.block_bytes);
    kb::require(uint64_t(n) * S.m <= KB_SIM_MAX_CELLS, "simnet: n * nblocks too large");
    S.eng.assign(size_t(n), nullptr);
    S.ports.resize(size_t(n));
    S.tx_free.assign(size_t(n), 0);
    S.rx_free.assign(size_t(n), 0);
    S.finish.assign(size_t(n), -1);
    S.posted.assign(size_t(n), {});
    S.unexpected.assign(size_t(n), {});
    S.valid.assign(size_t(n), std::vector<uint8_t>(S.m, 0));
    S.count.assign(size_t(n), std::vector<uint8_t>(S.m, 0));
    S.valid[size_t(S.root)].assign(S.m, 1);
    S.posts.assign(size_t(n), 0);
    S.slot_range.assign(size_t(n), std::vector<std::pair<size_t, size_t>>(
                                       size_t(S.p.window + S.p.max_sends)));
    struct Guard {
        std::vector<mcast_engine_t *> &e;
        ~Guard()
        {
            for (auto *x : e) {
                mcast_engine_destroy(x);
            }
        }
    } guard{S.eng};
    for (int r = 0; r < n; ++r) {
        S.eng[size_t(r)] = mcast_engine_create();
        kb::require(S.eng[size_t(r)] != nullptr, "simnet: out of memory");
        S.ports[size_t(r)] = Port{&S, r};
    }
    for (int r = 0; r < n; ++r) {
        mcast_xport_t x{&S.ports[size_t(r)], port_post};
        kb::require(mcast_engine_start(S.eng[size_t(r)], scheds[r], &S.p, &x) == KB_OK,
                    "simnet: engine refused the schedule");
        if (mcast_engine_done(S.eng[size_t(r)])) {
            S.finish[size_t(r)] = 0;
        }
    }
    long max_s = 0, max_r = 0;
    while (!S.q.empty()) {
        const Event ev = S.q.top();
        S.q.pop();
        S.now = ev.t;
        if (ev.kind == 1) {
            const Msg &mg = S.msgs[ev.msg];
            auto &pq = S.posted[size_t(ev.rank)][mg.from];
            if (!pq.empty()) {
                const Posted po = pq.front();
                pq.pop_front();
                S.deliver(ev.rank, po, ev.msg, S.now);
            } else {
                S.unexpected[size_t(ev.rank)][mg.from].push_back(ev.msg);
            }
            continue;
        }
        int status = ev.status;
        for (auto it = S.pending_fail.begin(); it != S.pending_fail.end(); ++it) {
            if (it->first == ev.rank && it->second == ev.slot) {
                status = S.net.fail_status;
                /* its data does not count */
                const auto rg = S.slot_range[size_t(ev.rank)][size_t(ev.slot)];
                const size_t B = S.p.block_bytes;
                for (size_t b = rg.first / B; b * B < rg.first + rg.second; ++b) {
                    S.valid[size_t(ev.rank)][b] = 0;
                }
                S.pending_fail.erase(it);
                break;
            }
        }
        mcast_engine_t *e = S.eng[size_t(ev.rank)];
        kb::require(mcast_engine_complete(e, ev.slot, status) == KB_OK,
                    "simnet: completion of a free slot");
        size_t pr, ps, dr, ds;
        mcast_engine_counts(e, &pr, &ps, &dr, &ds);
        max_s = std::max(max_s, long(ps - ds));
        max_r = std::max(max_r, long(pr - dr));
        if (mcast_engine_done(e) && S.finish[size_t(ev.rank)] < 0) {
            S.finish[size_t(ev.rank)] = S.now;
        }
        if (!S.err.empty()) {
            throw kb::ArgError(S.err);
        }
    }
    S.res.max_sends_in_flight = max_s;
    S.res.max_recvs_in_flight = max_r;
    for (int r = 0; r < n; ++r) {
        mcast_engine_t *e = S.eng[size_t(r)];
        if (!mcast_engine_done(e)) {
            throw kb::ArgError("simnet: rank " + std::to_string(r) + " never finished (deadlock)");
        }
        const int st = mcast_engine_status(e);
        if (status_out != nullptr) {
            status_out[r] = st;
        }
        if (st != 0) {
            ++S.res.ranks_with_error;
            if (S.res.status == 0) {
                S.res.status = st;
            }
            continue;
        }
        for (uint32_t b = 0; b < S.m; ++b) {
            const bool ok = r == S.root ? S.count[size_t(r)][b] == 0
                                        : (S.valid[size_t(r)][b] && S.count[size_t(r)][b] == 1);
            if (!ok) {
                throw kb::ArgError("simnet: rank " + std::to_string(r) + " ended without error but block " +
                                   std::to_string(b) + " was received " +
                                   std::to_string(int(S.count[size_t(r)][b])) + " times" +
                                   (S.valid[size_t(r)][b] ? "" : " (invalid data)"));
            }
        }
        S.res.finish_us = std::max(S.res.finish_us, S.finish[size_t(r)]);
    }
    for (int r = 0; r < n; ++r) {
        S.res.finish_us = std::max(S.res.finish_us, S.finish[size_t(r)]);
        if (finish_us != nullptr) {
            finish_us[r] = S.finish[size_t(r)];
        }
    }
}

} // namespace

extern "C" __attribute__((visibility("default"))) int
mcast_simnet_run(int n, int root, mcast_sched_t *const *scheds, const mcast_engine_params_t *p,
                 const mcast_simnet_params_t *net, double *finish_us, int *status_out,
                 mcast_simnet_result_t *result, char *errbuf, size_t errlen)
{
    return mc::guarded(errbuf, errlen, [&] {
        kb::require(n >= 1 && root >= 0 && root < n && scheds != nullptr && p != nullptr &&
                        net != nullptr,
                    "simnet: bad argument");
        for (int r = 0; r < n; ++r) {
            kb::require(scheds[r] != nullptr && scheds[r]->rank == r && scheds[r]->n == n,
                        "simnet: schedule of another rank or group");
        }
        Sim S;
        S.n = n;
        S.root = root;
        S.p = *p;
        S.net = *net;
        run(S, scheds, finish_us, status_out);
        if (result != nullptr) {
            *result = S.res;
        }
    });
}
