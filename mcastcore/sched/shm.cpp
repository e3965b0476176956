/*
 * Broadcast through a shared segment inside one node: the protocol and its cost model
 * (mcast_shm.h has the picture and the formulas).
 *
 * Region layout, every part on its own 128-byte line (two lines: the adjacent-line
 * prefetcher would otherwise make neighbours share):
 *
 *   [header: magic, version, nranks, slots, abandoned, slot_bytes]
 *   [done[0]] [done[1]] ... [done[n-1]]          chunks rank r has finished with
 *   [slot 0: ready, msg_bytes, len, flags, up to 96 bytes of a small chunk] ... [slot S-1]
 *   [board: rank 0's MCAST_SHM_BOARD_KEYS entries] ... [rank n-1's]   (written once each)
 *   [data 0 (C bytes)] ... [data S-1]
 *
 * Counters are 64-bit and only grow (2^64 chunks do not wrap in practice).  Stores that
 * publish (ready, done) are releases, the loads that wait on them acquires: a receiver
 * that sees ready = g + 1 sees the chunk's bytes, a root that sees done >= g + 1 knows
 * the slot's bytes were read.
 */
#include "mcast_shm.h"
#include "kbinomial.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <new>

namespace {

constexpr size_t LINE = 128;
constexpr uint64_t MAGIC = 0x6d63617374736d31ull; /* "mcastsm1" */
constexpr uint32_t LAYOUT_VERSION = 5; /* 2: chunks of up to INLINE_BYTES on their slot's line;
                                          3: the board; 4: its entries' gate; 5: abandoned */
constexpr uint64_t FLAG_ROOT_FAILED = 1;
constexpr uint64_t FLAG_INLINE = 2; /* the chunk's bytes follow its slot header, on its line */

struct Header {
    uint64_t magic;
    uint32_t version;
    uint32_t nranks;
    uint32_t slots;
    uint32_t abandoned; /* 1: a rank could not follow a call (mcast_shm_abandon) */
    uint64_t slot_bytes;
    uint64_t region_bytes;
};

struct SlotHeader {
    uint64_t ready;     /* chunk number + 1 of the bytes in the slot */
    uint64_t msg_bytes; /* the root's message size */
    uint64_t len;       /* bytes in the slot (1..C) */
    uint64_t flags;
};

/* A chunk this small travels on its slot header's line (FLAG_INLINE): a receiver that
 * sees `ready` has its bytes in the same line, one line from the root's core instead of
 * two.  (A tiny broadcast's cost is those lines: evidence E-SHM-2.) */
constexpr size_t INLINE_BYTES = LINE - sizeof(SlotHeader);

char *inline_data(SlotHeader *sh)
{
    return reinterpret_cast<char *>(sh) + sizeof(SlotHeader);
}

size_t round_line(size_t x)
{
    return (x + LINE - 1) / LINE * LINE;
}

/* One rank's entry of the board (mcast_shm_board_put): ready = 1 once v is written;
 * arrived: the gate (mcast_shm_gate_arrive), only grows. */
struct BoardEntry {
    uint64_t ready;
    double v[2];
    uint64_t arrived;
};

struct Layout {
    size_t done_off, slot_off, board_off, data_off, slot_stride, total;
};

bool layout(int nranks, int slots, size_t slot_bytes, Layout *l)
{
    if (nranks < 1 || slots < 2 || slot_bytes < 1 || slot_bytes > (size_t(1) << 30) ||
        nranks > (1 << 20) || slots > 4096) {
        return false;
    }
    l->done_off = LINE;
    l->slot_off = l->done_off + size_t(nranks) * LINE;
    l->board_off = l->slot_off + size_t(slots) * LINE;
    l->data_off = l->board_off + round_line(size_t(nranks) * MCAST_SHM_BOARD_KEYS * sizeof(BoardEntry));
    l->slot_stride = round_line(slot_bytes);
    l->total = l->data_off + size_t(slots) * l->slot_stride;
    return true;
}

uint64_t load_acquire(const uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

void store_release(uint64_t *p, uint64_t v)
{
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

bool abandoned(const char *base)
{
    return __atomic_load_n(&reinterpret_cast<const Header *>(base)->abandoned, __ATOMIC_ACQUIRE) != 0;
}

} // namespace

struct mcast_shm_op;

struct mcast_shm {
    char *base = nullptr;
    Layout l{};
    int n = 0, me = 0, slots = 0;
    size_t slot_bytes = 0;
    uint64_t g = 0;         /* next chunk number */
    uint64_t min_done = 0;  /* lower bound of every other rank's done (root's cache) */
    /* started, not complete, in order: a list through the ops themselves, so that queueing
     * an op allocates nothing (a blocking call's op lives on its caller's stack) */
    mcast_shm_op *head = nullptr, *tail = nullptr;
    std::atomic_flag busy = ATOMIC_FLAG_INIT; /* one poller at a time */
    bool one_thread = false; /* mcast_shm_one_thread: no lock (nothing else calls in) */
    bool warm_lines = false; /* mcast_shm_warm: the lines before the data written */
    size_t warm_bytes = 0;   /* ... and this many of every slot's data */

    uint64_t *done(int r) const { return reinterpret_cast<uint64_t *>(base + l.done_off + size_t(r) * LINE); }
    SlotHeader *slot(uint64_t chunk) const
    {
        return reinterpret_cast<SlotHeader *>(base + l.slot_off + size_t(chunk % uint64_t(slots)) * LINE);
    }
    BoardEntry *board(int r, int key) const
    {
        return reinterpret_cast<BoardEntry *>(base + l.board_off) + size_t(r) * MCAST_SHM_BOARD_KEYS + size_t(key);
    }
    char *data(uint64_t chunk) const
    {
        return base + l.data_off + size_t(chunk % uint64_t(slots)) * l.slot_stride;
    }
};

/* One broadcast's state on this rank.  Ops of a region run one after the other, in the
 * order they started (collectives on a communicator are ordered): only the queue's head
 * moves, and its chunk numbers start where the op before it ended. */
struct mcast_shm_op {
    mcast_shm_t *s = nullptr;
    mcast_shm_io_t io{};
    int root = 0;
    size_t bytes = 0, chunk = 0;
    bool started = false, failed = false;
    std::atomic<bool> done{false}; /* set by the poll that completes it, on any thread */
    uint64_t g0 = 0, i = 0;   /* first chunk number, chunks handled */
    size_t off = 0;           /* stream bytes handled */
    size_t root_bytes = 1;    /* a receiver learns it from the first chunk */
    int rc = KB_OK;
    bool freed = false;       /* the owner let go before completion */
    bool in_place = false;    /* lives in its caller's mcast_shm_op_space_t */
    mcast_shm_op *next = nullptr; /* the region's queue */
};

static_assert(sizeof(mcast_shm_op) <= sizeof(mcast_shm_op_space_t) &&
                  alignof(mcast_shm_op) <= alignof(mcast_shm_op_space_t),
              "mcast_shm_op_space_t must hold an op");

namespace {

/* The region view's queue is this process's: start, free and poll take turns (poll only
 * tries: a thread finding it busy leaves the work to the one holding it). */
void lock(mcast_shm *s)
{
    while (!s->one_thread && s->busy.test_and_set(std::memory_order_acquire)) {
    }
}

/* A poll's try: false when another thread holds the lock. */
bool try_lock(mcast_shm *s)
{
    return s->one_thread || !s->busy.test_and_set(std::memory_order_acquire);
}

void unlock(mcast_shm *s)
{
    if (!s->one_thread) {
        s->busy.clear(std::memory_order_release);
    }
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) size_t mcast_shm_region_bytes(int nranks, int slots,
                                                                   size_t slot_bytes)
{
    Layout l;
    return layout(nranks, slots, slot_bytes, &l) ? l.total : 0;
}

__attribute__((visibility("default"))) int mcast_shm_format(void *region, size_t region_bytes,
                                                          int nranks, int slots, size_t slot_bytes)
{
    Layout l;
    if (region == nullptr || !layout(nranks, slots, slot_bytes, &l) || region_bytes < l.total) {
        return KB_ERR_ARG;
    }
    char *b = static_cast<char *>(region);
    std::memset(b, 0, l.data_off);
    Header *h = reinterpret_cast<Header *>(b);
    h->version = LAYOUT_VERSION;
    h->nranks = uint32_t(nranks);
    h->slots = uint32_t(slots);
    h->slot_bytes = slot_bytes;
    h->region_bytes = l.total;
    store_release(&h->magic, MAGIC);
    return KB_OK;
}

__attribute__((visibility("default"))) int mcast_shm_attach(void *region, size_t region_bytes,
                                                          int nranks, int me, mcast_shm_t **out)
{
    if (region == nullptr || out == nullptr || me < 0 || me >= nranks || region_bytes < LINE) {
        return KB_ERR_ARG;
    }
    const Header *h = static_cast<const Header *>(region);
    Layout l;
    if (load_acquire(&h->magic) != MAGIC || h->version != LAYOUT_VERSION || h->nranks != uint32_t(nranks) ||
        !layout(nranks, int(h->slots), size_t(h->slot_bytes), &l) || l.total != h->region_bytes ||
        region_bytes < l.total) {
        return KB_ERR_ARG;
    }
    mcast_shm *s = new (std::nothrow) mcast_shm;
    if (s == nullptr) {
        return KB_ERR_NOMEM;
    }
    s->base = static_cast<char *>(region);
    s->l = l;
    s->n = nranks;
    s->me = me;
    s->slots = int(h->slots);
    s->slot_bytes = size_t(h->slot_bytes);
    /* a rank attaching late starts where its own counter says (0 for a fresh region) */
    s->g = load_acquire(s->done(me));
    *out = s;
    return KB_OK;
}

__attribute__((visibility("default"))) void mcast_shm_detach(mcast_shm_t *s)
{
    if (s == nullptr) {
        return;
    }
    for (mcast_shm_op *op = s->head, *next = nullptr; op != nullptr; op = next) {
        next = op->next;
        op->s = nullptr;
        if (op->freed) {
            delete op;
        } else {
            op->rc = KB_ERR_INTERNAL; /* never completed: its owner sees the error */
            op->done.store(true, std::memory_order_release);
        }
    }
    delete s;
}

__attribute__((visibility("default"))) void mcast_shm_one_thread(mcast_shm_t *s, int one)
{
    if (s != nullptr) {
        s->one_thread = one != 0;
    }
}

namespace {

constexpr size_t PAGE = 4096; /* (a larger page is written more than once: no harm) */

/* Writes [p, p + len) once per page with an atomic add of 0: the bytes stay as they are
 * (another rank may be reading or writing them), the page is this process's for writes. */
void write_pages(char *p, size_t len)
{
    for (size_t off = 0; off < len; off += PAGE) {
        (void) __atomic_fetch_add(p + off, 0, __ATOMIC_RELAXED);
    }
    if (len > 0) {
        (void) __atomic_fetch_add(p + len - 1, 0, __ATOMIC_RELAXED);
    }
}

} // namespace

#if defined(__x86_64__)
#include <cpuid.h>
#endif

/* (the header says why not memcpy everywhere: E-COPY-1) */
__attribute__((visibility("default"))) void mcast_shm_copy_large(void *dst, const void *src,
                                                               size_t n)
{
#if defined(__x86_64__)
    /* enhanced rep movsb: cpuid leaf 7, sub-leaf 0, EBX bit 9 */
    static const bool erms = [] {
        unsigned a = 0, b = 0, c = 0, d = 0;
        return __get_cpuid_count(7, 0, &a, &b, &c, &d) != 0 && (b & (1u << 9)) != 0;
    }();
    if (erms) {
        __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
        return;
    }
#endif
    std::memcpy(dst, src, n);
}

__attribute__((visibility("default"))) void mcast_shm_warm(mcast_shm_t *s, size_t bytes)
{
    if (s == nullptr) {
        return;
    }
    if (!s->warm_lines) {
        write_pages(s->base, s->l.data_off);
        s->warm_lines = true;
    }
    /* (a chunk that travels on its slot's line takes no data page) */
    const size_t want = bytes <= INLINE_BYTES ? 0 : std::min(bytes, s->slot_bytes);
    if (want <= s->warm_bytes) {
        return;
    }
    for (int k = 0; k < s->slots; ++k) {
        write_pages(s->data(uint64_t(k)) + s->warm_bytes, want - s->warm_bytes);
    }
    s->warm_bytes = want;
}

__attribute__((visibility("default"))) size_t mcast_shm_slot_bytes(const mcast_shm_t *s)
{
    return s == nullptr ? 0 : s->slot_bytes;
}

__attribute__((visibility("default"))) int mcast_shm_board_put(mcast_shm_t *s, int key, const double v[2])
{
    if (s == nullptr || v == nullptr || key < 0 || key >= MCAST_SHM_BOARD_KEYS) {
        return KB_ERR_ARG;
    }
    BoardEntry *e = s->board(s->me, key);
    if (load_acquire(&e->ready) != 0) {
        return KB_ERR_ARG; /* written once: what the others may have read stays */
    }
    e->v[0] = v[0];
    e->v[1] = v[1];
    store_release(&e->ready, 1);
    return KB_OK;
}

__attribute__((visibility("default"))) int mcast_shm_board_max(const mcast_shm_t *s, int key, double out[2])
{
    if (s == nullptr || out == nullptr || key < 0 || key >= MCAST_SHM_BOARD_KEYS) {
        return -1;
    }
    double m[2] = {0.0, 0.0};
    bool unmeasured[2] = {false, false};
    for (int r = 0; r < s->n; r++) {
        const BoardEntry *e = s->board(r, key);
        if (load_acquire(&e->ready) == 0) {
            return 0;
        }
        for (int c = 0; c < 2; c++) {
            const double x = e->v[c];
            if (!(x >= 0.0)) { /* negative or NaN */
                unmeasured[c] = true;
            } else {
                m[c] = std::max(m[c], x);
            }
        }
    }
    for (int c = 0; c < 2; c++) {
        out[c] = unmeasured[c] ? -1.0 : m[c];
    }
    return 1;
}

__attribute__((visibility("default"))) int mcast_shm_gate_arrive(mcast_shm_t *s, int key, uint64_t n)
{
    if (s == nullptr || key < 0 || key >= MCAST_SHM_BOARD_KEYS || n == 0) {
        return KB_ERR_ARG;
    }
    BoardEntry *e = s->board(s->me, key);
    if (load_acquire(&e->arrived) < n) { /* (only grows: a repeated arrival writes nothing) */
        store_release(&e->arrived, n);
    }
    return KB_OK;
}

__attribute__((visibility("default"))) void mcast_shm_abandon(mcast_shm_t *s)
{
    if (s != nullptr) {
        __atomic_store_n(&reinterpret_cast<Header *>(s->base)->abandoned, 1u, __ATOMIC_RELEASE);
    }
}

__attribute__((visibility("default"))) int mcast_shm_abandoned(const mcast_shm_t *s)
{
    return s != nullptr && abandoned(s->base) ? 1 : 0;
}

__attribute__((visibility("default"))) int mcast_shm_gate_open(const mcast_shm_t *s, int key, uint64_t n)
{
    if (s == nullptr || key < 0 || key >= MCAST_SHM_BOARD_KEYS || n == 0) {
        return -1;
    }
    for (int r = 0; r < s->n; r++) {
        if (load_acquire(&s->board(r, key)->arrived) < n) {
            return 0;
        }
    }
    return 1;
}

__attribute__((visibility("default"))) size_t mcast_shm_chunk_bytes(size_t bytes, size_t chunk_min,
                                                                  size_t slot_bytes, int slots,
                                                                  int fit_ring)
{
    if (slot_bytes == 0 || slots < 1) {
        return 0;
    }
    const size_t lo = (chunk_min == 0) ? slot_bytes : std::min(chunk_min, slot_bytes);
    if (fit_ring == 0) {
        return lo;
    }
    const size_t share = bytes / size_t(slots) + (bytes % size_t(slots) != 0 ? 1 : 0);
    return std::min(slot_bytes, std::max(lo, share));
}

__attribute__((visibility("default"))) int mcast_shm_fit_ring(int node_cores, int node_ranks)
{
    return node_cores > 0 && node_cores < node_ranks ? 1 : 0;
}

__attribute__((visibility("default"))) size_t mcast_shm_slot_bytes_for(size_t chunk_min,
                                                                     size_t max_slot,
                                                                     int node_cores,
                                                                     int node_ranks)
{
    if (max_slot == 0) {
        return 0;
    }
    if (mcast_shm_fit_ring(node_cores, node_ranks) != 0 || chunk_min == 0) {
        return max_slot;
    }
    return std::min(chunk_min, max_slot);
}

__attribute__((visibility("default"))) int mcast_shm_reserve_at_setup(uint64_t free_bytes,
                                                                     size_t region_bytes,
                                                                     int node_ranks,
                                                                     int max_segments)
{
    const uint64_t regions = uint64_t(std::max(node_ranks, 1)) * uint64_t(std::max(max_segments, 1));
    return free_bytes / regions >= uint64_t(region_bytes) ? 0 : 1;
}

namespace {

/* op ends where a rank abandoned the region (mcast_shm_abandon): true, for step's caller. */
bool end_abandoned(mcast_shm_op *op)
{
    op->rc = MCAST_SHM_ABANDONED;
    op->s->g = op->g0 + op->i;
    return true;
}

/* Moves op as far as it goes without waiting; true once it is complete (the caller,
 * mcast_shm_poll, marks it done). */
bool step(mcast_shm_op *op)
{
    mcast_shm *s = op->s;
    const size_t C = s->slot_bytes;
    const uint64_t S = uint64_t(s->slots);
    if (!op->started) {
        op->started = true;
        op->g0 = s->g;
        if (abandoned(s->base)) {
            return end_abandoned(op); /* (nothing read or written: the ring is out of step) */
        }
    }
    if (s->me == op->root) {
        /* a 0-byte call publishes one empty chunk: a receiver that expects bytes sees the
         * root's size there, and a 0-byte receiver has a chunk to wait for */
        while (op->off < op->bytes || op->i == 0) {
            const uint64_t g = op->g0 + op->i;
            if (g >= S) {
                /* the slot's last chunk (g - S) must be read by every other rank */
                const uint64_t need = g - S + 1;
                if (s->min_done < need) {
                    uint64_t lo = UINT64_MAX;
                    for (int r = 0; r < s->n; ++r) {
                        if (r != s->me) {
                            lo = std::min(lo, load_acquire(s->done(r)));
                        }
                    }
                    s->min_done = lo;
                    if (s->min_done < need) {
                        if (abandoned(s->base)) { /* (a rank that will not read: no waiting) */
                            return end_abandoned(op);
                        }
                        return false;
                    }
                }
            }
            const size_t max = std::min(op->chunk, op->bytes - op->off);
            if (op->io.avail != nullptr && op->io.avail(op->io.ctx) < op->off + max) {
                break; /* a streaming root: the chunk is not all there yet */
            }
            size_t len = 0;
            SlotHeader *sh = s->slot(g);
            const bool inl = max <= INLINE_BYTES;
            if (max > 0 && !op->failed &&
                (op->io.pack(op->io.ctx, op->off, max, inl ? inline_data(sh) : s->data(g), &len) != 0 ||
                 len < 1 || len > max)) {
                op->failed = true;
            }
            if (op->failed) {
                len = max; /* the receivers still count the root's bytes */
            }
            sh->msg_bytes = op->bytes;
            sh->len = len;
            sh->flags = (op->failed ? FLAG_ROOT_FAILED : 0) | (inl ? FLAG_INLINE : 0);
            store_release(&sh->ready, g + 1);
            op->off += len;
            ++op->i;
        }
        store_release(s->done(s->me), op->g0 + op->i);
        if (op->off < op->bytes) {
            return false;
        }
    } else {
        /* a receiver: the root's size and chunk lengths decide how many chunks there are
         * (whatever this rank's own size: a receiver that expected another, 0 included,
         * still takes exactly the root's chunks off the ring) */
        while (op->i == 0 || op->off < op->root_bytes) {
            const uint64_t g = op->g0 + op->i;
            SlotHeader *sh = s->slot(g);
            if (load_acquire(&sh->ready) != g + 1) {
                if (abandoned(s->base)) { /* (a root that will not write: no waiting) */
                    return end_abandoned(op);
                }
                return false;
            }
            if (op->i == 0) {
                op->root_bytes = size_t(sh->msg_bytes);
                if (op->root_bytes != op->bytes) {
                    op->rc = MCAST_SHM_MISMATCH;
                }
            }
            if ((sh->flags & FLAG_ROOT_FAILED) != 0 && op->rc == KB_OK) {
                op->rc = MCAST_SHM_ROOT_FAILED;
            }
            /* a root publishes 1..C bytes per chunk of a message (one empty chunk for 0
             * bytes); anything else ends the call here */
            const bool inl = (sh->flags & FLAG_INLINE) != 0;
            const size_t len =
                op->root_bytes == 0
                    ? 0
                    : size_t(std::min<uint64_t>(std::max<uint64_t>(sh->len, 1), inl ? INLINE_BYTES : C));
            if (op->rc == KB_OK && len > 0 &&
                op->io.unpack(op->io.ctx, op->off, std::min(len, op->bytes - op->off),
                              inl ? inline_data(sh) : s->data(g)) != 0) {
                op->rc = KB_ERR_INTERNAL;
            }
            store_release(s->done(s->me), g + 1);
            op->off += len;
            ++op->i;
        }
    }
    s->g = op->g0 + op->i;
    return true; /* (the poll marks it done once it no longer reads it) */
}

} // namespace

} // extern "C"

namespace {

bool start_args_ok(const mcast_shm_t *s, int root, const mcast_shm_io_t *io)
{
    return s != nullptr && io != nullptr && root >= 0 && root < s->n && io->pack != nullptr &&
           io->unpack != nullptr;
}

/* Queues op (fresh, wherever it lives) behind the region's earlier ops. */
void enqueue(mcast_shm *s, mcast_shm_op *op, int root, size_t bytes, size_t chunk_bytes,
             const mcast_shm_io_t *io)
{
    op->s = s;
    op->io = *io;
    op->root = root;
    op->bytes = bytes;
    op->chunk = (chunk_bytes == 0) ? s->slot_bytes : std::min(chunk_bytes, s->slot_bytes);
    lock(s); /* a poll on another thread may be moving the queue (MPI_Wait on an earlier
                Ibcast of the communicator while this thread starts the next one) */
    if (s->tail == nullptr) {
        s->head = op;
    } else {
        s->tail->next = op;
    }
    s->tail = op;
    unlock(s);
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) int mcast_shm_start(mcast_shm_t *s, int root, size_t bytes,
                                                         size_t chunk_bytes, const mcast_shm_io_t *io,
                                                         mcast_shm_op_t **out)
{
    if (!start_args_ok(s, root, io) || out == nullptr) {
        return KB_ERR_ARG;
    }
    mcast_shm_op *op = new (std::nothrow) mcast_shm_op;
    if (op == nullptr) {
        return KB_ERR_NOMEM;
    }
    enqueue(s, op, root, bytes, chunk_bytes, io);
    *out = op;
    return KB_OK;
}

__attribute__((visibility("default"))) int mcast_shm_start_in(mcast_shm_t *s, int root, size_t bytes,
                                                            size_t chunk_bytes,
                                                            const mcast_shm_io_t *io,
                                                            mcast_shm_op_space_t *space,
                                                            mcast_shm_op_t **out)
{
    if (!start_args_ok(s, root, io) || space == nullptr || out == nullptr) {
        return KB_ERR_ARG;
    }
    mcast_shm_op *op = new (space) mcast_shm_op;
    op->in_place = true;
    enqueue(s, op, root, bytes, chunk_bytes, io);
    *out = op;
    return KB_OK;
}

__attribute__((visibility("default"))) int mcast_shm_poll(mcast_shm_t *s)
{
    if (s == nullptr) {
        return 0;
    }
    if (!try_lock(s)) {
        return 0; /* another thread is polling this region */
    }
    int completed = 0;
    while (s->head != nullptr && step(s->head)) {
        mcast_shm_op *op = s->head;
        s->head = op->next;
        if (s->head == nullptr) {
            s->tail = nullptr;
        }
        ++completed;
        if (op->freed) {
            delete op;
        } else {
            /* the poll's last access to op: its owner may destroy it once it sees done,
             * without taking the lock (a locked instruction right after the chunk's
             * stores would wait until they reach the other cores: E-SHM-3) */
            op->done.store(true, std::memory_order_release);
        }
    }
    unlock(s);
    return completed;
}

__attribute__((visibility("default"))) int mcast_shm_op_test(const mcast_shm_op_t *op, int *result)
{
    if (op == nullptr || !op->done.load(std::memory_order_acquire)) {
        return 0;
    }
    if (result != nullptr) {
        *result = op->rc;
    }
    return 1;
}

__attribute__((visibility("default"))) void mcast_shm_op_free(mcast_shm_op_t *op)
{
    if (op == nullptr) {
        return;
    }
    mcast_shm *s = op->s;
    if (op->in_place) {
        /* its space goes with the caller: it must leave the queue first (done is the
         * completing poll's last access to it, whichever thread polled) */
        while (s != nullptr && !op->done.load(std::memory_order_acquire)) {
            mcast_shm_poll(s);
        }
        op->~mcast_shm_op();
        return;
    }
    if (s != nullptr) {
        lock(s); /* a poll on another thread may be completing it */
    }
    const bool done = op->done.load(std::memory_order_acquire);
    if (!done) {
        op->freed = true; /* still queued: the poll that completes it deletes it */
    }
    if (s != nullptr) {
        unlock(s);
    }
    if (done) {
        delete op;
    }
}

__attribute__((visibility("default"))) int mcast_shm_bcast(mcast_shm_t *s, int root, size_t bytes,
                                                         size_t chunk_bytes, const mcast_shm_io_t *io)
{
    if (!start_args_ok(s, root, io) || io->idle == nullptr) {
        return KB_ERR_ARG;
    }
    /* the op lives here: a blocking call allocates nothing, so it cannot fail half-way
     * for want of memory (its peers would wait for chunks it never takes or publishes) */
    mcast_shm_op op;
    enqueue(s, &op, root, bytes, chunk_bytes, io);
    int result = KB_OK;
    for (;;) {
        mcast_shm_poll(s);
        if (mcast_shm_op_test(&op, &result)) {
            break; /* the poll that completed it took it off the queue and let go of it */
        }
        io->idle(io->ctx);
    }
    return result;
}

__attribute__((visibility("default"))) double mcast_shm_predict_us(int nranks, size_t bytes,
                                                                 size_t slot_bytes, int cores,
                                                                 double copy_ns_per_byte,
                                                                 double handover_us)
{
    if (nranks < 2 || bytes == 0 || slot_bytes == 0 || !(copy_ns_per_byte >= 0) || !(handover_us >= 0)) {
        return nranks == 1 || bytes == 0 ? 0.0 : -1.0;
    }
    const double M = double(bytes);
    const double C = std::min(double(slot_bytes), M);
    const double m = std::ceil(M / C);
    const double copy = C * copy_ns_per_byte * 1e-3;
    const double workers = double(nranks);
    const double k = cores <= 0 ? workers : std::min(double(cores), workers);
    const double period = std::max(copy, copy * workers / k) + handover_us;
    return 2.0 * handover_us + copy + (m - 1.0) * period + copy;
}

} // extern "C"
