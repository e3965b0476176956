/* Shared segment of a one-node communicator: see mcast_shmseg.h (glue) and the core's
 * mcastcore/include/mcast_shm.h (protocol, cost model). */
#include "mcast_shmseg.h"
#include "mcast_glue.h"
#include "mcast_status_mpi.h"

#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "mpi.h"
#include "ompi/mca/common/mcast/mcast_compat.h"
#include "kbinomial.h"
#include "mcast_shm.h"
#include "opal/runtime/opal_progress.h"
#include "opal/util/proc.h"
#include "opal/sys/atomic.h"
#include "mcast_pml.h"
#include "mcast_dtio.h"
#include "ompi/mca/coll/base/coll_tags.h"
#include "ompi/mca/pml/pml.h"

/* The setup's steps (mcast_shm_setup_start / _test). */
typedef enum {
    SETUP_OFFER = 0, /* waiting for the creator's offer (the creator: its offers sent) */
    SETUP_FLAGS,     /* this rank's flag sent and the verdict awaited (rank 0: gathering
                        every flag) */
    SETUP_VERDICT,   /* rank 0: the verdict sent */
    SETUP_DONE
} setup_step_t;

struct mcast_shm_seg {
    bool failed;
    void *region;
    size_t region_bytes;
    mcast_shm_t *view;
    int *local_of; /* [n] each rank's index in its node's region */
    /* the setup while it runs */
    struct ompi_communicator_t *comm;
    int tags[3];               /* offer, flag, verdict */
    setup_step_t step;
    int nlocal, creator;
    int slots;
    size_t slot_bytes;
    bool room;
    bool decline;              /* mcast_shm_setup_decline: flag 0 whatever the offer */
    struct shm_offer *offer;   /* [1] */
    int mine, all;             /* this rank's flag; the verdict (min over ranks) */
    int *flags;                /* rank 0: [n] every rank's flag */
    ompi_request_t **reqs;     /* [2 n] */
    int nreqs;
    int rc;                    /* a failed send or receive */
    bool abandon;              /* mcast_shm_seg_abandon before the setup was done */
};

#define MCAST_SHM_NAME_MAX 64

typedef struct shm_offer {
    int ok;
    char name[MCAST_SHM_NAME_MAX];
} shm_offer_t;

/* Segments this process maps, and how many it may (coll_kbinomial_shm_max_segments): a
 * program with many communicators would otherwise hold a segment per communicator
 * (a rank over the limit maps none; the agreement then sends the communicator to PML plans). */
static volatile int32_t live_segments = 0;
static int max_segments = 64;

void mcast_shmseg_set_max_segments(int n)
{
    max_segments = n;
}

static void unmap(mcast_shm_seg_t *s)
{
    if (NULL != s->view) {
        opal_atomic_add_fetch_32(&live_segments, -1);
    }
    mcast_shm_detach(s->view);
    s->view = NULL;
    if (NULL != s->region) {
        munmap(s->region, s->region_bytes);
        s->region = NULL;
    }
}

/* Whether the creator reserves the region's pages at the setup (mcast_shm_reserve_at_setup,
 * E-FIRST-4): from the free space of the file system under fd, as Open MPI's own mmap
 * segment checks its file's; where that cannot be read, reserved. */
static bool reserve_now(int fd, int n, size_t bytes)
{
    struct statvfs sv;
    if (0 != fstatvfs(fd, &sv)) {
        return true;
    }
    const double avail = (double) sv.f_bavail * (double) sv.f_frsize;
    const uint64_t free_bytes = avail >= 1.8e19 ? UINT64_MAX : (uint64_t) avail;
    return 0 != mcast_shm_reserve_at_setup(free_bytes, bytes, n, max_segments);
}

/* the node's creator: create, reserve, format; the name in *offer (offer->ok = 0 on failure).
 * The pages are reserved at once (posix_fallocate: a full /dev/shm then fails the setup, not
 * a later copy with SIGBUS) only where the file system could not hold every segment of the
 * node at its full size; elsewhere each page is allocated when a call first writes it, so
 * that a communicator whose calls use a few slots' first pages does not pay for the whole
 * ring at its first call and again when it is freed (E-FIRST-4). */
static void *create_region(struct ompi_communicator_t *comm, int n, int slots, size_t slot_bytes,
                           size_t bytes, shm_offer_t *offer)
{
    snprintf(offer->name, sizeof(offer->name), "/mcast-%u-%u-%ld",
             (unsigned) OPAL_PROC_MY_NAME.jobid, mcast_comm_id(comm), (long) getpid());
    offer->ok = 0;
    const int fd = shm_open(offer->name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) {
        return NULL;
    }
    void *p = MAP_FAILED;
    if (0 == ftruncate(fd, (off_t) bytes) &&
        (!reserve_now(fd, n, bytes) || 0 == posix_fallocate(fd, 0, (off_t) bytes))) {
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    close(fd);
    if (MAP_FAILED == p || KB_OK != mcast_shm_format(p, bytes, n, slots, slot_bytes)) {
        if (MAP_FAILED != p) {
            munmap(p, bytes);
        }
        shm_unlink(offer->name);
        return NULL;
    }
    offer->ok = 1;
    return p;
}

static void *open_region(const shm_offer_t *offer, size_t bytes)
{
    const int fd = shm_open(offer->name, O_RDWR, 0600);
    if (fd < 0) {
        return NULL;
    }
    struct stat st;
    void *p = MAP_FAILED;
    if (0 == fstat(fd, &st) && (size_t) st.st_size == bytes) {
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    close(fd);
    return MAP_FAILED == p ? NULL : p;
}

/* Every rank's index among the ranks of its node (in rank order; node_of_rank NULL: one
 * node; local_of NULL: not wanted), this node's size and its first rank (the segment's
 * creator). */
static void membership(int n, int rank, const int *node_of_rank, int *local_of, int *nlocal,
                       int *creator)
{
    *nlocal = 0;
    *creator = -1;
    for (int r = 0; r < n; r++) {
        if (NULL != local_of) {
            local_of[r] = 0;
            for (int q = 0; NULL != node_of_rank && q < r; q++) {
                local_of[r] += node_of_rank[q] == node_of_rank[r];
            }
        }
        if (NULL == node_of_rank || node_of_rank[r] == node_of_rank[rank]) {
            if (*creator < 0) {
                *creator = r;
            }
            ++*nlocal;
        }
    }
    for (int r = 0; NULL == node_of_rank && NULL != local_of && r < n; r++) {
        local_of[r] = r;
    }
}

/* The setup, without blocking (mcast_shmseg.h): each node's first rank creates its node's
 * segment and sends the name to the node's other ranks (point to point); each maps it and
 * sends its flag (mapped or not) to rank 0, which sends every rank the minimum; the
 * creators then unlink the names.  Every message has a tag of its own, reserved when the
 * communicator's first call began (the same on every rank), so the steps may run from
 * Open MPI's progress engine at any time. */
static bool reqs_done(mcast_shm_seg_t *s)
{
    for (int i = 0; i < s->nreqs; i++) {
        if (MPI_REQUEST_NULL != s->reqs[i] && !REQUEST_COMPLETE(s->reqs[i])) {
            return false;
        }
    }
    for (int i = 0; i < s->nreqs; i++) {
        if (MPI_REQUEST_NULL != s->reqs[i]) {
            if (OMPI_SUCCESS != s->reqs[i]->req_status.MPI_ERROR && OMPI_SUCCESS == s->rc) {
                s->rc = s->reqs[i]->req_status.MPI_ERROR;
            }
            ompi_request_free(&s->reqs[i]);
        }
    }
    s->nreqs = 0;
    return true;
}

static void post(mcast_shm_seg_t *s, bool send, void *buf, int bytes, int peer, int tag)
{
    ompi_request_t *req = MPI_REQUEST_NULL;
    const int rc = send ? MCA_PML_CALL(isend(buf, bytes, MPI_BYTE, peer, tag,
                                             MCA_PML_BASE_SEND_STANDARD, s->comm, &req))
                        : MCA_PML_CALL(irecv(buf, bytes, MPI_BYTE, peer, tag, s->comm, &req));
    if (OMPI_SUCCESS != rc) {
        s->rc = rc;
        return;
    }
    s->reqs[s->nreqs++] = req;
}

/* After the offer: map, then the flag to rank 0 (rank 0 gathers them). */
static void send_flag(mcast_shm_seg_t *s)
{
    const int n = ompi_comm_size(s->comm), rank = ompi_comm_rank(s->comm);
    if (rank != s->creator && OMPI_SUCCESS == s->rc && s->offer->ok && 0 != s->region_bytes &&
        s->room) {
        s->offer->name[MCAST_SHM_NAME_MAX - 1] = '\0';
        s->region = open_region(s->offer, s->region_bytes);
    }
    /* a rank alone on its node needs no segment (its calls have no op there) */
    s->mine = (!s->decline && OMPI_SUCCESS == s->rc &&
               (1 == s->nlocal ||
                (NULL != s->region && KB_OK == mcast_shm_attach(s->region, s->region_bytes,
                                                                s->nlocal, s->local_of[rank],
                                                                &s->view))))
                  ? 1 : 0;
    if (NULL != s->view) {
        opal_atomic_add_fetch_32(&live_segments, 1);
    }
    if (0 == rank) {
        s->flags[0] = s->mine;
        for (int r = 1; r < n; r++) {
            post(s, false, &s->flags[r], (int) sizeof(int), r, s->tags[1]);
        }
    } else {
        post(s, true, &s->mine, (int) sizeof(int), 0, s->tags[1]);
        post(s, false, &s->all, (int) sizeof(int), 0, s->tags[2]);
    }
    s->step = SETUP_FLAGS;
}

mcast_shm_seg_t *mcast_shm_seg_new(int n)
{
    mcast_shm_seg_t *s = calloc(1, sizeof(*s));
    if (NULL == s) {
        return NULL;
    }
    s->local_of = malloc((size_t) n * sizeof(int));
    s->offer = calloc(1, sizeof(*s->offer));
    s->flags = calloc((size_t) n, sizeof(int));
    s->reqs = malloc((size_t) (2 * n) * sizeof(*s->reqs));
    if (NULL == s->local_of || NULL == s->offer || NULL == s->flags || NULL == s->reqs) {
        free(s->local_of);
        free(s->offer);
        free(s->flags);
        free(s->reqs);
        free(s);
        return NULL;
    }
    s->failed = true; /* until a setup succeeds */
    s->step = SETUP_DONE;
    return s;
}

/* The setup's first step, taking part (decline false) or declining: a declining rank
 * creates and maps nothing and sends the flag 0, so the segment fails on every rank. */
static int start(mcast_shm_seg_t *s, int slots, size_t slot_bytes, const int *node_of_rank,
                 struct ompi_communicator_t *comm, const int tags[3], bool decline)
{
    if (NULL == s->reqs) {
        return OMPI_ERR_BAD_PARAM; /* set up once */
    }
    const int n = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    s->failed = false;
    s->step = SETUP_OFFER;
    s->comm = comm;
    memcpy(s->tags, tags, sizeof(s->tags));
    s->slots = slots;
    s->slot_bytes = slot_bytes;
    s->decline = decline;
    membership(n, rank, node_of_rank, s->local_of, &s->nlocal, &s->creator);
    s->region_bytes = decline ? 0 : mcast_shm_region_bytes(s->nlocal, slots, slot_bytes);
    s->room = !decline && live_segments < max_segments;
    if (rank == s->creator) {
        if (0 != s->region_bytes && s->room && s->nlocal > 1) {
            s->region = create_region(comm, s->nlocal, slots, slot_bytes, s->region_bytes,
                                      s->offer);
        }
        for (int r = rank + 1; r < n; r++) {
            if (NULL == node_of_rank || node_of_rank[r] == node_of_rank[rank]) {
                post(s, true, s->offer, (int) sizeof(shm_offer_t), r, s->tags[0]);
            }
        }
        send_flag(s);
    } else {
        post(s, false, s->offer, (int) sizeof(shm_offer_t), s->creator, s->tags[0]);
        s->step = SETUP_OFFER;
    }
    return OMPI_SUCCESS;
}

int mcast_shm_setup_start(mcast_shm_seg_t *s, int slots, size_t slot_bytes,
                          const int *node_of_rank, struct ompi_communicator_t *comm,
                          const int tags[3])
{
    return start(s, slots, slot_bytes, node_of_rank, comm, tags, false);
}

int mcast_shm_setup_decline(mcast_shm_seg_t *s, const int *node_of_rank,
                            struct ompi_communicator_t *comm, const int tags[3])
{
    return start(s, 2, 1, node_of_rank, comm, tags, true);
}

bool mcast_shm_setup_test(mcast_shm_seg_t *s)
{
    if (SETUP_DONE == s->step) {
        return true;
    }
    if (!reqs_done(s)) {
        return false;
    }
    const int n = ompi_comm_size(s->comm), rank = ompi_comm_rank(s->comm);
    if (SETUP_OFFER == s->step) {
        send_flag(s);
        return false;
    }
    if (SETUP_FLAGS == s->step && 0 == rank) {
        s->all = 1;
        for (int r = 0; r < n; r++) {
            s->all = s->all && 1 == s->flags[r];
        }
        for (int r = 1; r < n; r++) {
            post(s, true, &s->all, (int) sizeof(int), r, s->tags[2]);
        }
        s->step = SETUP_VERDICT;
        return false;
    }
    if (rank == s->creator && s->offer->ok) {
        shm_unlink(s->offer->name); /* nothing left behind in /dev/shm */
    }
    if (OMPI_SUCCESS != s->rc || 1 != s->all) {
        unmap(s);
        s->failed = true;
    }
    free(s->offer);
    free(s->flags);
    free(s->reqs);
    s->offer = NULL;
    s->flags = NULL;
    s->reqs = NULL;
    s->step = SETUP_DONE;
    if (s->abandon && !s->failed) {
        mcast_shm_abandon(s->view); /* (a call of this rank's was lost meanwhile) */
    }
    return true;
}

/* ---- data through the convertor (non-contiguous) or in place ---------------------- */
typedef struct {
    char *base; /* contiguous: the packed stream in place */
    bool convertors; /* io is initialised (a type that is not contiguous) */
    mcast_dtio_t io;
} shm_io_ctx_t;

/* The root packs up to `max` bytes, stopping where an element ends when one ends in
 * them (the receivers then unpack whole elements; a chunk that cuts one is unpacked
 * right too: mcast_dtio.h). */
static int io_pack(void *ctx, size_t off, size_t max, void *dst, size_t *packed)
{
    shm_io_ctx_t *c = ctx;
    if (NULL != c->base) {
        mcast_shm_copy(dst, c->base + off, max); /* (not the libc's: E-COPY-1) */
        *packed = max;
        return 0;
    }
    return OMPI_SUCCESS == mcast_dtio_pack(&c->io, off, 1, max, dst, packed) ? 0 : -1;
}

static int io_unpack(void *ctx, size_t off, size_t len, const void *src)
{
    shm_io_ctx_t *c = ctx;
    if (NULL != c->base) {
        mcast_shm_copy(c->base + off, src, len);
        return 0;
    }
    return OMPI_SUCCESS == mcast_dtio_unpack(&c->io, off, len, src) ? 0 : -1;
}

/* (the convertors only for a type that is not contiguous: a tiny call's cost is what
 * it writes, E-SHM-2) */
static void io_init(shm_io_ctx_t *c, void *buf, int count, struct ompi_datatype_t *dtype)
{
    c->base = NULL;
    c->convertors = false;
    if (ompi_datatype_is_contiguous_memory_layout(dtype, count)) {
        ptrdiff_t true_lb = 0, true_extent = 0;
        ompi_datatype_get_true_extent(dtype, &true_lb, &true_extent);
        c->base = (char *) buf + true_lb;
        return;
    }
    mcast_dtio_init(&c->io, buf, count, dtype);
    c->convertors = true;
}

static void io_fini(shm_io_ctx_t *c)
{
    if (c->convertors) {
        mcast_dtio_fini(&c->io);
        c->convertors = false;
    }
}

/* The communicator's segment, set up by mcast_shm_setup_start / _test: MCAST_SHM_PASS
 * when there is none or some rank could not map it (every rank alike). */
static int segment_of(mcast_shm_seg_t **seg, const mcast_plan_info_t *info,
                      struct ompi_communicator_t *comm)
{
    (void) info;
    (void) comm;
    return NULL != *seg && SETUP_DONE == (*seg)->step && !(*seg)->failed ? OMPI_SUCCESS
                                                                         : MCAST_SHM_PASS;
}

static size_t chunk_of(const mcast_plan_info_t *info, size_t bytes)
{
    return mcast_shm_chunk_bytes(bytes, info->shm_chunk_bytes, info->shm_slot_bytes,
                                 info->shm_slots, info->shm_fit_ring);
}

/* ---- twolevel: the leaders' schedule over the PML, every node's segment beside it ----
 * A node's leader (mcast_plan_node_leader) is its segment's root for the call: it
 * publishes each chunk of the packed stream as soon as the engine holds all of it
 * (mcast_engine_held_bytes), so the node's ranks copy block after block while the rest
 * still crosses the network.  The other ranks of a node have an empty schedule. */
typedef struct {
    shm_io_ctx_t io_ctx;
    mcast_shm_t *view;
    mcast_shm_op_t *op;
    mcast_shm_op_space_t op_space; /* the op lives here: starting it allocates nothing */
    mcast_call_t *call; /* the engine's call (NULL once done and freed) */
    int call_status;
    bool call_done;
} shm_ireq_t;

/* A request's state before ireq_start (no convertor, nothing started): nothing of its
 * ~1 KiB is zeroed beyond these (a small call's cost is its start, E-SHM-3). */
static void ireq_blank(shm_ireq_t *r)
{
    r->io_ctx.base = NULL;
    r->io_ctx.convertors = false;
    r->view = NULL;
    r->op = NULL;
    r->call = NULL;
    r->call_status = OMPI_SUCCESS;
    r->call_done = false;
}

/* a streaming root: what the engine holds; everything once it failed (pack then fails) */
static size_t io_avail(void *ctx)
{
    shm_ireq_t *r = ctx;
    if (r->call_done) {
        return (size_t) -1;
    }
    return mcast_pml_call_held_bytes(r->call); /* stops before a failed block */
}

static int io_pack_fed(void *ctx, size_t off, size_t max, void *dst, size_t *packed)
{
    shm_ireq_t *r = ctx;
    if (r->call_done && OMPI_SUCCESS != r->call_status) {
        return -1; /* the chunks go out marked: the node's ranks report MPI_ERR_INTERN */
    }
    return io_pack(&r->io_ctx, off, max, dst, packed);
}

static int io_unpack_fed(void *ctx, size_t off, size_t len, const void *src)
{
    shm_ireq_t *r = ctx;
    return io_unpack(&r->io_ctx, off, len, src);
}


/* One round of both; true when both are done (*status: the first error). */
static bool ireq_test(void *state, int *status)
{
    shm_ireq_t *r = state;
    if (NULL != r->call && !r->call_done && mcast_pml_call_progress(r->call)) {
        r->call_status = mcast_pml_call_status(r->call);
        r->call_done = true;
    }
    int rc = KB_OK;
    if (NULL != r->op) { /* none for a rank alone on its node */
        mcast_shm_poll(r->view);
        if (!mcast_shm_op_test(r->op, &rc)) {
            return false;
        }
    }
    if (NULL != r->call && !r->call_done) {
        return false;
    }
    *status = OMPI_SUCCESS != r->call_status ? r->call_status : mcast_status_to_mpi(rc);
    return true;
}

static void ireq_fini(shm_ireq_t *r)
{
    mcast_shm_op_free(r->op);
    mcast_pml_call_free(r->call);
    io_fini(&r->io_ctx);
}

/* The nonblocking calls' states, kept for the next (mcast_spare_give) */
static mcast_spares_t spare_ireqs = MCAST_SPARES_INIT;

static shm_ireq_t *ireq_alloc(void)
{
    shm_ireq_t *r = mcast_spare_take(&spare_ireqs);
    if (NULL == r) {
        r = malloc(sizeof(*r));
    }
    if (NULL != r) {
        ireq_blank(r);
    }
    return r;
}

static void ireq_free_state(shm_ireq_t *r)
{
    free(mcast_spare_give(&spare_ireqs, r));
}

static void ireq_release(void *state)
{
    /* released after completion (the request completes only then) */
    ireq_fini(state);
    ireq_free_state(state);
}

static const mcast_runner_t shm_runner = {ireq_test, ireq_release};

/* Starts this rank's part in *r (as ireq_blank left it; the segment is set up at the
 * communicator's first call): the engine's call (twolevel: plan != NULL) and the
 * segment's op.  MCAST_SHM_PASS: no segment.  On failure nothing is left to release.
 * Once the segment is there, this rank's part always starts: an engine call that could
 * not start (it has done its schedule without data: mcast_pml_call_start) is this rank's
 * error, and a node leader then publishes its chunks marked (io_pack_fed fails), so its
 * node's ranks end with MPI_ERR_INTERN instead of waiting for them. */
static int ireq_start(mcast_shm_seg_t **segp, const mcast_plan_t *plan,
                      const mcast_plan_info_t *info, mcast_sched_memo_t *memo,
                      mcast_engine_t *engine, void *buf, int count, struct ompi_datatype_t *dtype,
                      size_t bytes, int root, struct ompi_communicator_t *comm, int tag,
                      shm_ireq_t *r)
{
    const int ready = segment_of(segp, info, comm);
    if (OMPI_SUCCESS != ready) {
        return ready;
    }
    const mcast_shm_seg_t *seg = *segp;
    const int rank = ompi_comm_rank(comm);
    int seg_root = root;
    if (NULL != plan) {
        seg_root = mcast_plan_node_leader(plan, rank);
        if (seg_root < 0) {
            return MPI_ERR_INTERN;
        }
        const int rc = mcast_pml_call_start(plan, memo, engine, buf, count, dtype, bytes, comm,
                                            tag, &r->call);
        if (OMPI_SUCCESS != rc) {
            r->call = NULL;
            r->call_status = rc;
            r->call_done = true;
        }
    }
    io_init(&r->io_ctx, buf, count, dtype);
    r->view = seg->view;
    /* Open MPI's progress runs on the calling thread: without threads (no
     * MPI_THREAD_MULTIPLE) only one thread calls into the view, which then takes no lock
     * (E-SHM-3).  Read at every call: an MPI session initialised later with threads
     * turns it on, at a call no other thread is inside MPI. */
    mcast_shm_one_thread(r->view, !opal_using_threads());
    /* a leader that is not the root streams what the engine receives */
    const bool fed = NULL != plan && rank == seg_root && rank != root;
    const mcast_shm_io_t io = fed ? (mcast_shm_io_t){r, io_pack_fed, io_unpack_fed, NULL, io_avail}
                                  : (mcast_shm_io_t){&r->io_ctx, io_pack, io_unpack, NULL, NULL};
    if (NULL != r->view &&
        KB_OK != mcast_shm_start_in(r->view, seg->local_of[seg_root], bytes, chunk_of(info, bytes),
                                    &io, &r->op_space, &r->op)) {
        r->op = NULL;
        ireq_fini(r);
        return MPI_ERR_INTERN;
    }
    return OMPI_SUCCESS;
}

/* The blocking call: this rank's part on the stack, polled until done.  A rank whose
 * engine is done (a node's other ranks in a twolevel plan have no op in it) waits for the
 * segment only: Open MPI's progress there polls the network (epoll on the TCP BTL), time a
 * leader sharing the core needs; it runs every 64th poll.  One node (no call): every poll. */
static int run(mcast_shm_seg_t **seg, const mcast_plan_t *plan, const mcast_plan_info_t *info,
               mcast_sched_memo_t *memo, mcast_engine_t *engine, void *buf, int count,
               struct ompi_datatype_t *dtype, size_t bytes, int root,
               struct ompi_communicator_t *comm, int tag)
{
    shm_ireq_t r;
    ireq_blank(&r);
    const int calltime = mcast_calltime_suspend(); /* (blocking: it progresses) */
    int rc = ireq_start(seg, plan, info, memo, engine, buf, count, dtype, bytes, root, comm, tag, &r);
    if (OMPI_SUCCESS != rc) {
        mcast_calltime_resume(calltime);
        return rc;
    }
    for (unsigned polls = 1; !ireq_test(&r, &rc); polls++) {
        if (!r.call_done || 0 == polls % 64) {
            opal_progress();
        } else if (mcast_yield_when_idle()) {
            sched_yield();
        }
    }
    ireq_fini(&r);
    mcast_calltime_resume(calltime);
    return rc;
}

int mcast_shm_run(mcast_shm_seg_t **seg, const mcast_plan_info_t *info, void *buf, int count,
                  struct ompi_datatype_t *dtype, size_t bytes, int root,
                  struct ompi_communicator_t *comm)
{
    return run(seg, NULL, info, NULL, NULL, buf, count, dtype, bytes, root, comm, 0); /* (no PML) */
}

int mcast_shm_twolevel_run(mcast_shm_seg_t **seg, const mcast_plan_t *plan,
                           mcast_sched_memo_t *memo, mcast_engine_t *engine, void *buf, int count,
                           struct ompi_datatype_t *dtype, size_t bytes, int root,
                           struct ompi_communicator_t *comm, int tag)
{
    mcast_plan_info_t info;
    mcast_plan_get_info(plan, &info);
    return run(seg, plan, &info, memo, engine, buf, count, dtype, bytes, root, comm, tag);
}

int mcast_shm_begin(mcast_shm_seg_t **seg, const mcast_plan_t *plan,
                    const mcast_plan_info_t *info, void *buf, int count,
                    struct ompi_datatype_t *dtype, size_t bytes, int root,
                    struct ompi_communicator_t *comm, int tag, const mcast_runner_t **runner,
                    void **state)
{
    shm_ireq_t *r = ireq_alloc();
    if (NULL == r) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    int rc = ireq_start(seg, plan, info, NULL, NULL, buf, count, dtype, bytes, root, comm, tag, r);
    if (OMPI_SUCCESS != rc) {
        ireq_free_state(r);
        return rc;
    }
    (void) ireq_test(r, &rc); /* a root's small message is out at once */
    *runner = &shm_runner;
    *state = r;
    return OMPI_SUCCESS;
}

/* plan: twolevel's (NULL: one node's shm plan, described by info).  The request and the
 * state are allocated before anything starts; a rank without memory for them does its
 * part now, blocking (run allocates nothing for the segment; its peers would otherwise
 * wait for its part), and hands back an empty request when that went well. */
static int irun(mcast_shm_seg_t **seg, const mcast_plan_t *plan, const mcast_plan_info_t *info,
                mcast_sched_memo_t *memo, void *buf, int count, struct ompi_datatype_t *dtype,
                size_t bytes, int root, struct ompi_communicator_t *comm, int tag,
                ompi_request_t **request)
{
    shm_ireq_t *r = ireq_alloc();
    ompi_request_t *req = NULL;
    if (NULL == r || OMPI_SUCCESS != mcast_ireq_runner_new(comm, dtype, &req)) {
        ireq_free_state(r);
        const int rc = run(seg, plan, info, memo, NULL, buf, count, dtype, bytes, root, comm, tag);
        if (OMPI_SUCCESS == rc) {
            *request = &ompi_request_empty;
        }
        return rc;
    }
    int rc = ireq_start(seg, plan, info, memo, NULL, buf, count, dtype, bytes, root, comm, tag, r);
    if (OMPI_SUCCESS != rc) {
        mcast_ireq_runner_discard(req);
        ireq_free_state(r);
        return rc;
    }
    /* a root's small message is out at once, and a receiver's may be there already: a
     * call over at its start (and behind no request of ours) hands back a completed one,
     * no request to progress (E-IBC-1) */
    if (ireq_test(r, &rc) && OMPI_SUCCESS == rc && mcast_ireq_none_active()) {
        mcast_ireq_runner_discard(req);
        ireq_release(r);
        *request = &ompi_request_empty;
        return OMPI_SUCCESS;
    }
    mcast_ireq_runner_start(req, &shm_runner, r);
    *request = req;
    return OMPI_SUCCESS;
}

int mcast_shm_twolevel_irun(mcast_shm_seg_t **seg, const mcast_plan_t *plan,
                            mcast_sched_memo_t *memo, void *buf, int count,
                            struct ompi_datatype_t *dtype, size_t bytes, int root,
                            struct ompi_communicator_t *comm, int tag, ompi_request_t **request)
{
    mcast_plan_info_t info;
    mcast_plan_get_info(plan, &info);
    return irun(seg, plan, &info, memo, buf, count, dtype, bytes, root, comm, tag, request);
}

int mcast_shm_irun(mcast_shm_seg_t **seg, const mcast_plan_info_t *info, void *buf, int count,
                   struct ompi_datatype_t *dtype, size_t bytes, int root,
                   struct ompi_communicator_t *comm, ompi_request_t **request)
{
    return irun(seg, NULL, info, NULL, buf, count, dtype, bytes, root, comm, 0, request); /* (no PML) */
}

void mcast_shm_free(mcast_shm_seg_t *seg)
{
    if (NULL != seg) {
        while (!mcast_shm_setup_test(seg)) { /* its messages are on their way: let them land */
            opal_progress();
        }
        unmap(seg);
        free(seg->local_of);
        free(seg->offer); /* (a setup that never started still has its state) */
        free(seg->flags);
        free(seg->reqs);
        free(seg);
    }
}

bool mcast_shm_failed(const mcast_shm_seg_t *seg)
{
    return NULL != seg && seg->failed;
}

static const mcast_shm_seg_t *set_up(const mcast_shm_seg_t *seg)
{
    return NULL != seg && SETUP_DONE == seg->step && !seg->failed && NULL != seg->view ? seg : NULL;
}

int mcast_shm_seg_board_put(mcast_shm_seg_t *seg, int key, const double v[2])
{
    return NULL != set_up(seg) ? mcast_shm_board_put(seg->view, key, v) : -1;
}

int mcast_shm_seg_board_max(const mcast_shm_seg_t *seg, int key, double out[2])
{
    return NULL != set_up(seg) ? mcast_shm_board_max(seg->view, key, out) : -1;
}

int mcast_shm_seg_gate(mcast_shm_seg_t *seg, int key, uint64_t n)
{
    if (NULL == set_up(seg) || KB_OK != mcast_shm_gate_arrive(seg->view, key, n) ||
        mcast_shm_abandoned(seg->view)) {
        return -1; /* (abandoned: the rank that lost a call may never come) */
    }
    return mcast_shm_gate_open(seg->view, key, n);
}

bool mcast_shm_seg_abandoned(const mcast_shm_seg_t *seg)
{
    return NULL != set_up(seg) && mcast_shm_abandoned(seg->view);
}

void mcast_shm_seg_abandon(mcast_shm_seg_t *seg)
{
    if (NULL != set_up(seg)) {
        mcast_shm_abandon(seg->view);
    } else if (NULL != seg) {
        seg->abandon = true; /* (a setup still to come or under way: once it is done) */
    }
}

void mcast_shm_seg_warm(mcast_shm_seg_t *seg, size_t bytes)
{
    if (NULL != set_up(seg)) {
        mcast_shm_warm(seg->view, bytes);
    }
}

void mcast_shmseg_fini(void)
{
    for (void *r; NULL != (r = mcast_spare_take(&spare_ireqs));) {
        free(r);
    }
}
