/*
 * The engine: one state machine that runs any schedule over any transport.
 *
 *   start ──► pump ──► post(recv) ... up to `window` receives outstanding (list order)
 *               │  └─► post(send) ... head of the send list while its blocks are held,
 *               │                   up to `max_sends` outstanding
 *   complete(slot) ──► mark blocks held (receive), free the slot ──► pump
 *   done when every receive and send completed
 *
 * Sends leave strictly in list order (head-of-line): a generator's list order is the
 * order its model counts, and MPI's non-overtaking rule pairs a rank's sends to one
 * peer with that peer's receives in the same order.  The last receive from a peer
 * (MCAST_XF_LAST, which a transport may match by a tag of its own) is posted only once
 * the earlier receives from that peer completed: a peer whose stream is shorter than
 * ours can then never have its last message taken for a later block of ours.  Until then
 * it waits aside (at most one per peer) and the receives after it in the list, from
 * other peers, are posted: a rank fed by two peers (the two-tree's) does not hold one
 * peer's stream behind the other's (E-LAST-1).  Nothing here waits: the caller's
 * progress loop (blocking bcast, Ibcast progress, a simulator) reports completions.
 *
 * Error mode (first failed op, or a peer that ended early): receives go on as
 * scheduled, so senders never block on this rank; every later send is posted with
 * MCAST_XF_VOID (an empty message; one byte in place of a notice, an op of no blocks
 * that is empty anyway), so receivers see a length mismatch and enter the same mode;
 * the engine ends with the first error.  Hence one rank's local failure or a
 * mismatched signature never leaves another rank waiting for data this rank will not
 * send, and never completes a receiver with wrong data and success.  A notice sent
 * `after` a peer waits until that peer's stream to this rank ended (E-PAIRS-1).
 *
 * Costs per op: O(1) besides the held check of its blocks (one bit per block).
 */
#include "sched/mc_core.hpp"

#include <algorithm>
#include <new>

struct mcast_engine {
    const mcast_sched *s = nullptr;
    mcast_engine_params_t p{};
    mcast_xport_t x{};
    size_t nrecv = 0, nsend = 0;
    size_t recv_next = 0, recv_done = 0, recv_out = 0;
    size_t send_next = 0, send_done = 0, send_out = 0;
    std::vector<long> slot_op; /* op index, -1 free */
    std::vector<unsigned> slot_flags;
    std::vector<int> slot_peer;
    std::vector<int> free_recv, free_send;
    std::vector<uint64_t> held;
    uint32_t held_prefix = 0; /* blocks [0, held_prefix) held (a lower bound) */
    uint32_t first_bad = UINT32_MAX; /* the first block whose receive failed */
    std::vector<int> ended; /* peers whose stream ended early */
    std::vector<int> closed; /* peers whose last receive completed (notices wait on them) */
    std::vector<size_t> held_back; /* last receives from a peer with earlier ones open */
    int status = 0;
    bool pumping = false;
    bool repump = false;

    bool is_held(uint32_t b, uint32_t nb) const
    {
        for (uint32_t i = b; i < b + nb; ++i) {
            if (!(held[i >> 6] >> (i & 63) & 1u)) {
                return false;
            }
        }
        return true;
    }
    void set_held(uint32_t b, uint32_t nb)
    {
        for (uint32_t i = b; i < b + nb; ++i) {
            held[i >> 6] |= uint64_t(1) << (i & 63);
        }
    }
    /* A posted receive from `peer` not yet completed. */
    bool recv_pending_from(int peer) const
    {
        for (int i = 0; i < p.window; ++i) {
            if (slot_op[size_t(i)] >= 0 && slot_peer[size_t(i)] == peer) {
                return true;
            }
        }
        return false;
    }
    void fail(int st)
    {
        if (status == 0 && st != 0) {
            status = st;
        }
    }
    bool peer_ended(int peer) const
    {
        return std::find(ended.begin(), ended.end(), peer) != ended.end();
    }
    /* A notice send may go: no peer to wait for, or that peer's stream to us ended. */
    bool notice_ready(const mcast_op_t &o) const
    {
        if (o.nblocks > 0 || o.after <= 0) {
            return true;
        }
        const int q = o.after - 1;
        return peer_ended(q) || std::find(closed.begin(), closed.end(), q) != closed.end();
    }
    void release(int slot)
    {
        const bool is_recv = slot < p.window;
        slot_op[size_t(slot)] = -1;
        slot_peer[size_t(slot)] = -1;
        (is_recv ? free_recv : free_send).push_back(slot);
        if (is_recv) {
            --recv_out;
            ++recv_done;
        } else {
            --send_out;
            ++send_done;
        }
    }
    void post_one(mcast_op_kind_t kind, size_t index, const mcast_op_t &o, unsigned flags)
    {
        std::vector<int> &pool = kind == MCAST_OP_RECV ? free_recv : free_send;
        const int slot = pool.back();
        pool.pop_back();
        slot_op[size_t(slot)] = long(index);
        slot_flags[size_t(slot)] = flags;
        slot_peer[size_t(slot)] = o.peer;
        ++(kind == MCAST_OP_RECV ? recv_out : send_out);
        size_t off = 0, len = 0;
        mc::block_range(p.bytes, p.block_bytes, o.block, o.nblocks, &off, &len);
        if (flags & MCAST_XF_VOID) {
            len = len > 0 ? 0 : 1; /* a notice's error: one byte where none is expected */
        }
        const int rc = x.post(x.ctx, slot, kind, o.peer, off, len, flags);
        if (rc != 0) {
            fail(rc);
            if (kind == MCAST_OP_RECV) {
                set_held(o.block, o.nblocks);
            }
            release(slot);
        }
    }
    /* Receive op i: posted, or failed without posting where its peer ended (nothing
     * will come). */
    void recv_one(size_t i, const mcast_op_t &o)
    {
        if (peer_ended(o.peer)) {
            set_held(o.block, o.nblocks);
            ++recv_done;
            return;
        }
        post_one(MCAST_OP_RECV, i, o, o.last ? MCAST_XF_LAST : 0u);
    }
    void pump()
    {
        if (pumping) { /* a transport completed inside post: loop again below */
            repump = true;
            return;
        }
        pumping = true;
        do {
            repump = false;
            /* the last receives held back, in list order (they precede the rest) */
            for (size_t k = 0; k < held_back.size() && recv_out < size_t(p.window);) {
                const size_t i = held_back[k];
                const mcast_op_t o = s->op(MCAST_OP_RECV, i);
                if (!peer_ended(o.peer) && recv_pending_from(o.peer)) {
                    ++k;
                    continue;
                }
                held_back.erase(held_back.begin() + long(k));
                recv_one(i, o);
            }
            while (recv_out < size_t(p.window) && recv_next < nrecv) {
                const mcast_op_t o = s->op(MCAST_OP_RECV, recv_next);
                const size_t i = recv_next++;
                if (o.last && !peer_ended(o.peer) && recv_pending_from(o.peer)) {
                    held_back.push_back(i); /* waits for the earlier ones from its peer */
                    continue;
                }
                recv_one(i, o);
            }
            while (send_out < size_t(p.max_sends) && send_next < nsend) {
                const mcast_op_t o = s->op(MCAST_OP_SEND, send_next);
                const bool err = status != 0;
                if (!err && (!is_held(o.block, o.nblocks) || !notice_ready(o))) {
                    break;
                }
                const size_t i = send_next++;
                post_one(MCAST_OP_SEND, i, o,
                         (o.last ? MCAST_XF_LAST : 0u) | (err ? MCAST_XF_VOID : 0u) |
                             (p.sync_sends ? MCAST_XF_SYNC : 0u));
            }
        } while (repump);
        pumping = false;
    }
};

namespace {

int start(mcast_engine *e, const mcast_sched *s, const mcast_engine_params_t *p,
          const mcast_xport_t *x)
{
    kb::require(s != nullptr && p != nullptr && x != nullptr && x->post != nullptr,
                "engine: NULL argument");
    kb::require(p->window >= 1 && p->max_sends >= 1, "engine: window and max_sends must be >= 1");
    kb::require(p->block_bytes >= 1 || p->bytes == 0, "engine: block_bytes must be >= 1");
    kb::require(mc::nblocks_of(p->bytes, p->block_bytes ? p->block_bytes : 1) == s->nblocks,
                "engine: schedule's blocks do not cover the message");
    e->s = s;
    e->p = *p;
    e->x = *x;
    e->nrecv = s->count(MCAST_OP_RECV);
    e->nsend = s->count(MCAST_OP_SEND);
    e->recv_next = e->recv_done = e->recv_out = 0;
    e->send_next = e->send_done = e->send_out = 0;
    const size_t slots = size_t(p->window) + size_t(p->max_sends);
    e->slot_op.assign(slots, -1);
    e->slot_flags.assign(slots, 0);
    e->slot_peer.assign(slots, -1);
    e->free_recv.clear();
    e->free_send.clear();
    for (int i = p->window - 1; i >= 0; --i) {
        e->free_recv.push_back(i);
    }
    for (int i = int(slots) - 1; i >= p->window; --i) {
        e->free_send.push_back(i);
    }
    const bool root = e->nrecv == 0;
    e->held.assign((size_t(s->nblocks) + 63) / 64, root ? ~uint64_t(0) : 0);
    e->held_prefix = 0;
    e->first_bad = UINT32_MAX;
    e->ended.clear();
    e->closed.clear();
    e->held_back.clear();
    e->status = 0;
    e->pumping = e->repump = false;
    e->pump();
    return KB_OK;
}

} // namespace

#define MC_API extern "C" __attribute__((visibility("default")))

MC_API mcast_engine_t *mcast_engine_create(void)
{
    return new (std::nothrow) mcast_engine();
}

MC_API void mcast_engine_destroy(mcast_engine_t *e)
{
    delete e;
}

MC_API void mcast_engine_params_fit(mcast_engine_params_t *p, const mcast_sched_t *s)
{
    if (p == nullptr || s == nullptr) {
        return;
    }
    const auto fit = [](int have, size_t ops) {
        const size_t most = std::max<size_t>(ops, 1);
        return have > 1 && size_t(have) > most ? int(most) : have;
    };
    p->window = fit(p->window, s->count(MCAST_OP_RECV));
    p->max_sends = fit(p->max_sends, s->count(MCAST_OP_SEND));
}

MC_API void mcast_op_range(const mcast_engine_params_t *p, const mcast_op_t *o, size_t *off,
                           size_t *len)
{
    mc::block_range(p->bytes, p->block_bytes, o->block, o->nblocks, off, len);
}

MC_API int mcast_engine_start(mcast_engine_t *e, const mcast_sched_t *s,
                              const mcast_engine_params_t *p, const mcast_xport_t *x)
{
    if (e == nullptr) {
        return KB_ERR_ARG;
    }
    int rc = KB_OK;
    const int st = kb::guarded([&] { rc = start(e, s, p, x); });
    return st != KB_OK ? st : rc;
}

MC_API int mcast_engine_complete(mcast_engine_t *e, int slot, int status)
{
    if (e == nullptr || e->s == nullptr || slot < 0 || size_t(slot) >= e->slot_op.size() ||
        e->slot_op[size_t(slot)] < 0) {
        return KB_ERR_ARG;
    }
    const bool is_recv = slot < e->p.window;
    if (is_recv) {
        const mcast_op_t o = e->s->op(MCAST_OP_RECV, size_t(e->slot_op[size_t(slot)]));
        e->set_held(o.block, o.nblocks);
        if (status != 0) {
            e->first_bad = std::min(e->first_bad, o.block);
        }
        if (o.last) {
            e->closed.push_back(o.peer);
        }
    }
    e->fail(status);
    e->release(slot);
    e->pump();
    return KB_OK;
}

MC_API int mcast_engine_peer_ended(mcast_engine_t *e, int peer, int status)
{
    if (e == nullptr || e->s == nullptr) {
        return KB_ERR_ARG;
    }
    if (!e->peer_ended(peer)) {
        e->ended.push_back(peer);
    }
    e->fail(status);
    e->pump();
    return KB_OK;
}

MC_API int mcast_engine_done(const mcast_engine_t *e)
{
    return e != nullptr && e->s != nullptr && e->recv_done == e->nrecv && e->send_done == e->nsend;
}

MC_API size_t mcast_engine_held_bytes(mcast_engine_t *e)
{
    if (e == nullptr || e->s == nullptr) {
        return 0;
    }
    while (e->held_prefix < e->s->nblocks && e->held_prefix < e->first_bad &&
           e->is_held(e->held_prefix, 1)) {
        ++e->held_prefix;
    }
    if (e->held_prefix == e->s->nblocks) {
        return e->p.bytes;
    }
    return std::min(e->p.bytes, size_t(e->held_prefix) * e->p.block_bytes);
}

MC_API int mcast_engine_status(const mcast_engine_t *e)
{
    return e == nullptr ? KB_ERR_ARG : e->status;
}

MC_API void mcast_engine_counts(const mcast_engine_t *e, size_t *posted_recv, size_t *posted_send,
                                size_t *done_recv, size_t *done_send)
{
    if (e == nullptr) {
        return;
    }
    if (posted_recv) *posted_recv = e->recv_next - e->held_back.size();
    if (posted_send) *posted_send = e->send_next;
    if (done_recv) *done_recv = e->recv_done;
    if (done_send) *done_send = e->send_done;
}

MC_API int mcast_engine_slot_peer(const mcast_engine_t *e, int slot, unsigned *flags)
{
    if (e == nullptr || slot < 0 || size_t(slot) >= e->slot_peer.size()) {
        return -1;
    }
    if (flags != nullptr) {
        *flags = e->slot_flags[size_t(slot)];
    }
    return e->slot_peer[size_t(slot)];
}
