/*
 * Schedules: trees as per-rank op lists (FPFS / FCFS), stored lists, and the checker.
 *
 * Tree schedule of rank v with parent p, children c0..ck-1, m blocks, FPFS (Kesavan &
 * Panda's First-Packet-First-Served):
 *
 *   receives  (p, 0) (p, 1) ... (p, m-1)
 *   sends     (c0, 0) (c1, 0) ... (ck-1, 0) (c0, 1) ... (ck-1, m-1)
 *
 * FCFS (First-Child-First-Served) sends (c0, 0..m-1) then (c1, 0..m-1) ...  Op i is
 * computed from i in O(1): i / k and i % k (FPFS) or i / m and i % m (FCFS).
 *
 * Checker (mcast_sched_check): a unit-step execution of all ranks in list order.  In a
 * round every rank may post up to max_sends sends (head of its list, whose blocks it
 * held before the round) to receivers whose matching receive is posted (at most
 * `window` incomplete receives ahead, list order): the strict rendezvous reading, so a
 * schedule that passes cannot deadlock on a network that waits for receivers either.
 * A notice (an op of no blocks, mc::with_pairs_of) is held at once; one sent `after` a
 * peer's stream waits, as in the engine, until every receive from that peer completed.
 *
 *   n = 4, m = 2, binomial tree 0 -> {2, 1}, 2 -> {3}, FPFS, max_sends 1:
 *     round 1  0 -(b0)-> 2
 *     round 2  0 -(b0)-> 1   2 -(b0)-> 3
 *     round 3  0 -(b1)-> 2
 *     round 4  0 -(b1)-> 1   2 -(b1)-> 3        4 rounds = L1 + (m-1)k = 2 + 1*2
 */
#include "sched/mc_core.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace mc {

size_t TreeSched::count(mcast_op_kind_t kind) const
{
    if (kind == MCAST_OP_RECV) {
        return parent == KB_NO_PEER ? 0 : nblocks;
    }
    return children.size() * size_t(nblocks);
}

mcast_op_t TreeSched::op(mcast_op_kind_t kind, size_t i) const
{
    mcast_op_t o{};
    o.nblocks = 1;
    const uint32_t m = nblocks;
    if (kind == MCAST_OP_RECV) {
        o.peer = parent;
        o.block = uint32_t(i);
        o.step = uint32_t(i) + uint32_t(depth);
        o.last = (o.block + 1 == m) ? 1 : 0;
        return o;
    }
    const size_t k = children.size();
    size_t c;
    if (disc == KB_DISC_FPFS) {
        o.block = uint32_t(i / k);
        c = i % k;
        o.step = o.block + uint32_t(depth) + 1;
    } else {
        o.block = uint32_t(i % m);
        c = i / m;
        o.step = uint32_t(i) + uint32_t(depth) + 1;
    }
    o.peer = children[c];
    o.last = (o.block + 1 == m) ? 1 : 0;
    return o;
}

void mark_last(Ops &ops)
{
    std::map<int, size_t> last;
    for (size_t i = 0; i < ops.size(); ++i) {
        ops[i].last = 0;
        last[ops[i].peer] = i;
    }
    for (const auto &pi : last) {
        ops[pi.second].last = 1;
    }
}

namespace {

struct PairsSched final : mcast_sched {
    std::unique_ptr<mcast_sched> inner;
    Ops notices[2]; /* appended after inner's ops, per kind */
    size_t count(mcast_op_kind_t kind) const override
    {
        return inner->count(kind) + notices[kind].size();
    }
    mcast_op_t op(mcast_op_kind_t kind, size_t i) const override
    {
        const size_t c = inner->count(kind);
        return i < c ? inner->op(kind, i) : notices[kind][i - c];
    }
};

} // namespace

std::unique_ptr<mcast_sched> with_pairs_of(std::unique_ptr<mcast_sched> s, const mcast_sched &full,
                                          bool after)
{
    kb::require(s != nullptr && s->n == full.n && s->rank == full.rank,
                "pairs of another rank's schedule");
    auto w = std::make_unique<PairsSched>();
    bool any = false;
    /* Who brings each block in `full`: a notice to P waits for the stream of the peer
     * that brought the first block this rank sends P there (its data precede P's in
     * `full`, so the waits never close a cycle), and carries the error that stream
     * showed (E-PAIRS-1). */
    std::vector<int> from(full.nblocks, -1);
    for (size_t i = 0; i < full.count(MCAST_OP_RECV); ++i) {
        const mcast_op_t f = full.op(MCAST_OP_RECV, i);
        for (uint32_t b = f.block; b < f.block + f.nblocks && b < full.nblocks; ++b) {
            from[b] = f.peer;
        }
    }
    for (int kind = 0; kind < 2; ++kind) {
        const mcast_op_kind_t k = mcast_op_kind_t(kind);
        std::vector<char> has(size_t(s->n), 0);
        uint32_t step = 0;
        const size_t c = s->count(k);
        for (size_t i = 0; i < c; ++i) {
            const mcast_op_t o = s->op(k, i);
            has[size_t(o.peer)] = 1;
            step = o.step;
        }
        const size_t cf = full.count(k);
        for (size_t i = 0; i < cf; ++i) {
            const mcast_op_t f = full.op(k, i);
            if (!has[size_t(f.peer)]) {
                has[size_t(f.peer)] = 1;
                mcast_op_t o{};
                o.peer = f.peer;
                o.step = step;
                o.last = 1;
                if (after && k == MCAST_OP_SEND && f.block < from.size() && from[f.block] >= 0) {
                    o.after = from[f.block] + 1;
                }
                w->notices[kind].push_back(o);
                any = true;
            }
        }
    }
    if (!any) {
        return s;
    }
    w->n = s->n;
    w->rank = s->rank;
    w->nblocks = s->nblocks;
    w->inner = std::move(s);
    return w;
}

void check_ops(int n, int rank, uint32_t nblocks, const Ops &ops)
{
    uint32_t prev_step = 0;
    for (const mcast_op_t &o : ops) {
        kb::require(o.peer >= 0 && o.peer < n, "op peer out of range");
        kb::require(o.peer != rank, "op with itself");
        kb::require(o.nblocks >= 1 || (o.block == 0 && o.last), "op without blocks (a notice is block 0, last)");
        kb::require(uint64_t(o.block) + o.nblocks <= nblocks, "op blocks out of range");
        kb::require(o.step >= prev_step, "steps decrease along a list");
        prev_step = o.step;
    }
}

namespace {

/* Per-rank state of the unit-step execution. */
struct RankRun {
    const mcast_sched *s = nullptr;
    size_t nrecv = 0, nsend = 0;
    size_t send_next = 0;            /* sends executed so far (list order) */
    std::vector<char> recv_done;     /* per receive op */
    std::vector<long> recv_round;    /* per receive op: the round it completed */
    size_t recv_first_open = 0;      /* first incomplete receive */
    size_t recv_open_before = 0;     /* incomplete receives among [0, recv_posted) */
    std::vector<long> held_round;    /* per block: round it arrives (0 = before round 1), -1 not */
    std::map<int, size_t> pair_recv; /* sender -> receives from it consumed so far */
    std::map<int, std::vector<size_t>> recv_from; /* sender -> receive op indices in order */
};

std::string describe(const char *what, int rank, size_t i)
{
    return std::string(what) + " (rank " + std::to_string(rank) + ", op " + std::to_string(i) + ")";
}

} // namespace

long check_schedules(int n, int root, const std::vector<const mcast_sched *> &s, int window,
                     int max_sends)
{
    kb::require(n >= 1 && int(s.size()) == n, "need one schedule per rank");
    kb::require(root >= 0 && root < n, "root out of range");
    kb::require(window >= 1 && max_sends >= 1, "window and max_sends must be >= 1");
    const uint32_t m = s[0]->nblocks;
    std::vector<RankRun> run(static_cast<size_t>(n));
    for (int r = 0; r < n; ++r) {
        kb::require(s[size_t(r)] != nullptr, "missing schedule");
        RankRun &R = run[size_t(r)];
        R.s = s[size_t(r)];
        kb::require(R.s->rank == r && R.s->n == n, "schedule of another rank or group");
        kb::require(R.s->nblocks == m, "schedules disagree on the number of blocks");
        R.nrecv = R.s->count(MCAST_OP_RECV);
        R.nsend = R.s->count(MCAST_OP_SEND);
        R.recv_done.assign(R.nrecv, 0);
        R.recv_round.assign(R.nrecv, 0);
        R.held_round.assign(m, r == root ? 0 : -1);
        Ops all;
        for (int kind = 0; kind < 2; ++kind) {
            const size_t cnt = R.s->count(mcast_op_kind_t(kind));
            Ops ops;
            ops.reserve(cnt);
            for (size_t i = 0; i < cnt; ++i) {
                ops.push_back(R.s->op(mcast_op_kind_t(kind), i));
            }
            check_ops(n, r, m, ops);
            if (kind == MCAST_OP_RECV) {
                for (size_t i = 0; i < cnt; ++i) {
                    R.recv_from[ops[i].peer].push_back(i);
                }
            }
        }
        kb::require(r != root || R.nrecv == 0, "the root receives");
        /* every block exactly once */
        std::vector<int> got(m, 0);
        for (size_t i = 0; i < R.nrecv; ++i) {
            const mcast_op_t o = R.s->op(MCAST_OP_RECV, i);
            for (uint32_t b = o.block; b < o.block + o.nblocks; ++b) {
                ++got[b];
            }
        }
        for (uint32_t b = 0; b < m; ++b) {
            kb::require(r == root || got[b] == 1,
                        describe("a block is not received exactly once", r, b).c_str());
        }
    }
    long round = 0, data_round = 0; /* (notices carry no blocks: not counted) */
    size_t remaining = 0;
    for (const RankRun &R : run) {
        remaining += R.nsend;
    }
    while (remaining > 0) {
        ++round;
        /* Receives posted at the start of this round: the first `window` incomplete ones. */
        struct Delivery {
            int to;
            size_t recv_index;
        };
        std::vector<Delivery> deliveries;
        size_t progress = 0;
        for (int r = 0; r < n; ++r) {
            RankRun &R = run[size_t(r)];
            for (int k = 0; k < max_sends && R.send_next < R.nsend; ++k) {
                const mcast_op_t o = R.s->op(MCAST_OP_SEND, R.send_next);
                bool held = true;
                for (uint32_t b = o.block; b < o.block + o.nblocks; ++b) {
                    held = held && R.held_round[b] >= 0 && R.held_round[b] < round;
                }
                if (o.nblocks == 0 && o.after > 0) { /* a notice after a peer's stream */
                    const auto q = R.recv_from.find(o.after - 1);
                    kb::require(q != R.recv_from.end(),
                                describe("a notice waits for a peer that sends nothing", r,
                                         R.send_next).c_str());
                    for (const size_t ri : q->second) {
                        held = held && R.recv_done[ri] && R.recv_round[ri] < round;
                    }
                }
                if (!held) {
                    break;
                }
                RankRun &D = run[size_t(o.peer)];
                const auto from = D.recv_from.find(r);
                size_t &used = D.pair_recv[r];
                kb::require(from != D.recv_from.end() && used < from->second.size(),
                            describe("a send has no matching receive", r, R.send_next).c_str());
                const size_t ri = from->second[used];
                /* posted: fewer than `window` incomplete receives before it */
                size_t open_before = 0;
                for (size_t j = D.recv_first_open; j < ri && open_before < size_t(window); ++j) {
                    open_before += D.recv_done[j] ? 0 : 1;
                }
                if (open_before >= size_t(window)) {
                    break;
                }
                const mcast_op_t ro = D.s->op(MCAST_OP_RECV, ri);
                kb::require(ro.block == o.block && ro.nblocks == o.nblocks,
                            describe("send and receive carry different blocks", r, R.send_next)
                                .c_str());
                ++used;
                ++R.send_next;
                --remaining;
                ++progress;
                deliveries.push_back({o.peer, ri});
                if (o.nblocks > 0) {
                    data_round = round;
                }
            }
        }
        kb::require(progress > 0, "the schedules deadlock (no send possible in a round)");
        for (const Delivery &d : deliveries) {
            RankRun &D = run[size_t(d.to)];
            D.recv_done[d.recv_index] = 1;
            D.recv_round[d.recv_index] = round;
            const mcast_op_t ro = D.s->op(MCAST_OP_RECV, d.recv_index);
            for (uint32_t b = ro.block; b < ro.block + ro.nblocks; ++b) {
                D.held_round[b] = round;
            }
            while (D.recv_first_open < D.nrecv && D.recv_done[D.recv_first_open]) {
                ++D.recv_first_open;
            }
        }
    }
    for (int r = 0; r < n; ++r) {
        const RankRun &R = run[size_t(r)];
        kb::require(R.recv_first_open == R.nrecv,
                    describe("a receive is never matched", r, R.recv_first_open).c_str());
    }
    return data_round;
}

} // namespace mc
