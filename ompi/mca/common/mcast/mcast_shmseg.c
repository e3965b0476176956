/* Shared segment of a one-node communicator: see mcast_shmseg.h (glue) and the core's
 * coll_kbinomial/include/mcast_shm.h (protocol, cost model). */
#include "mcast_shmseg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpi.h"
#include "kbinomial.h"
#include "mcast_shm.h"
#include "opal/datatype/opal_convertor.h"
#include "opal/runtime/opal_progress.h"
#include "opal/util/proc.h"
#include "opal/sys/atomic.h"
#include "mcast_pml.h"

struct mcast_shm_seg {
    bool failed;
    void *region;
    size_t region_bytes;
    mcast_shm_t *view;
};

#define MCAST_SHM_NAME_MAX 64

typedef struct {
    int ok;
    char name[MCAST_SHM_NAME_MAX];
} shm_offer_t;

/* Segments this process maps, and how many it may (coll_kbinomial_shm_max_segments): a
 * program with many communicators would otherwise hold 2 MiB of memory per communicator
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

/* rank 0: create, reserve, format; the name in *offer (offer->ok = 0 on failure) */
static void *create_region(struct ompi_communicator_t *comm, int n, int slots, size_t slot_bytes,
                           size_t bytes, shm_offer_t *offer)
{
    snprintf(offer->name, sizeof(offer->name), "/mcast-%u-%u-%ld",
             (unsigned) OPAL_PROC_MY_NAME.jobid, ompi_comm_get_cid(comm), (long) getpid());
    offer->ok = 0;
    const int fd = shm_open(offer->name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) {
        return NULL;
    }
    void *p = MAP_FAILED;
    if (0 == ftruncate(fd, (off_t) bytes) && 0 == posix_fallocate(fd, 0, (off_t) bytes)) {
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

static int setup(mcast_shm_seg_t *s, int slots, size_t slot_bytes,
                 struct ompi_communicator_t *comm, mca_coll_base_module_bcast_fn_t below,
                 mca_coll_base_module_t *below_module)
{
    const int n = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    const size_t bytes = mcast_shm_region_bytes(n, slots, slot_bytes);
    shm_offer_t offer;
    memset(&offer, 0, sizeof(offer));
    const bool room = live_segments < max_segments;
    if (0 == rank && 0 != bytes && room) {
        s->region = create_region(comm, n, slots, slot_bytes, bytes, &offer);
    }
    int rc = below(&offer, (int) sizeof(offer), MPI_BYTE, 0, comm, below_module);
    if (OMPI_SUCCESS != rc) {
        if (0 == rank && offer.ok) {
            shm_unlink(offer.name); /* nothing left behind in /dev/shm */
        }
        unmap(s);
        return rc;
    }
    offer.name[MCAST_SHM_NAME_MAX - 1] = '\0';
    if (0 != rank && offer.ok && 0 != bytes && room) {
        s->region = open_region(&offer, bytes);
    }
    s->region_bytes = bytes;
    int mine = (NULL != s->region &&
                KB_OK == mcast_shm_attach(s->region, bytes, n, rank, &s->view)) ? 1 : 0;
    if (mine) {
        opal_atomic_add_fetch_32(&live_segments, 1);
    }
    int all = 0;
    rc = comm->c_coll->coll_allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm,
                                      comm->c_coll->coll_allreduce_module);
    if (0 == rank && offer.ok) {
        shm_unlink(offer.name);
    }
    if (OMPI_SUCCESS != rc) {
        unmap(s);
        return rc;
    }
    if (!all) {
        unmap(s);
        s->failed = true;
    }
    return OMPI_SUCCESS;
}

/* ---- data through the convertor (non-contiguous) or in place ---------------------- */
typedef struct {
    char *base; /* contiguous: the packed stream in place */
    opal_convertor_t conv;
    bool conv_ready;
    bool send;
    void *buf;
    int count;
    struct ompi_datatype_t *dtype;
} shm_io_ctx_t;

static int conv_ready(shm_io_ctx_t *c)
{
    if (c->conv_ready) {
        return 0;
    }
    OBJ_CONSTRUCT(&c->conv, opal_convertor_t);
    const int rc = c->send ? opal_convertor_copy_and_prepare_for_send(ompi_mpi_local_convertor,
                                                                      &c->dtype->super, c->count,
                                                                      c->buf, 0, &c->conv)
                           : opal_convertor_copy_and_prepare_for_recv(ompi_mpi_local_convertor,
                                                                      &c->dtype->super, c->count,
                                                                      c->buf, 0, &c->conv);
    if (OMPI_SUCCESS != rc) {
        OBJ_DESTRUCT(&c->conv);
        return -1;
    }
    c->conv_ready = true;
    return 0;
}

/* The convertor packs whole basic elements: a chunk may end a few bytes short. */
static int io_pack(void *ctx, size_t off, size_t max, void *dst, size_t *packed)
{
    shm_io_ctx_t *c = ctx;
    if (NULL != c->base) {
        memcpy(dst, c->base + off, max);
        *packed = max;
        return 0;
    }
    if (0 != conv_ready(c) || c->conv.bConverted != off) {
        return -1;
    }
    struct iovec iov = {.iov_base = dst, .iov_len = max};
    uint32_t iov_count = 1;
    size_t max_data = max;
    if (opal_convertor_pack(&c->conv, &iov, &iov_count, &max_data) < 0 || 0 == max_data ||
        max_data > max) {
        return -1;
    }
    *packed = max_data;
    return 0;
}

static int io_unpack(void *ctx, size_t off, size_t len, const void *src)
{
    shm_io_ctx_t *c = ctx;
    if (NULL != c->base) {
        memcpy(c->base + off, src, len);
        return 0;
    }
    if (0 != conv_ready(c) || c->conv.bConverted != off) {
        return -1;
    }
    struct iovec iov = {.iov_base = (void *) src, .iov_len = len};
    uint32_t iov_count = 1;
    size_t max_data = len;
    return (opal_convertor_unpack(&c->conv, &iov, &iov_count, &max_data) >= 0 && max_data == len)
               ? 0
               : -1;
}

static void io_idle(void *ctx)
{
    (void) ctx;
    opal_progress();
}

static void io_init(shm_io_ctx_t *c, void *buf, int count, struct ompi_datatype_t *dtype, bool send)
{
    memset(c, 0, sizeof(*c));
    c->send = send;
    c->buf = buf;
    c->count = count;
    c->dtype = dtype;
    if (ompi_datatype_is_contiguous_memory_layout(dtype, count)) {
        ptrdiff_t true_lb = 0, true_extent = 0;
        ompi_datatype_get_true_extent(dtype, &true_lb, &true_extent);
        c->base = (char *) buf + true_lb;
    }
}

static void io_fini(shm_io_ctx_t *c)
{
    if (c->conv_ready) {
        OBJ_DESTRUCT(&c->conv);
        c->conv_ready = false;
    }
}

static int status_of(int rc)
{
    switch (rc) {
    case KB_OK: return OMPI_SUCCESS;
    case MCAST_SHM_MISMATCH: return MPI_ERR_TRUNCATE;
    case MCAST_SHM_ROOT_FAILED: return MPI_ERR_INTERN;
    case KB_ERR_ARG: return MPI_ERR_ARG;
    default: return MPI_ERR_INTERN;
    }
}

/* The segment of the communicator, set up at its first use (collective); NULL when some
 * rank could not map it (then and from then on). */
static int segment_of(mcast_shm_seg_t **seg, int slots, size_t slot_bytes,
                      struct ompi_communicator_t *comm, mca_coll_base_module_bcast_fn_t below,
                      mca_coll_base_module_t *below_module)
{
    if (NULL == *seg) {
        *seg = calloc(1, sizeof(**seg));
        if (NULL == *seg) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        const int rc = setup(*seg, slots, slot_bytes, comm, below, below_module);
        if (OMPI_SUCCESS != rc) {
            (*seg)->failed = true;
            return rc;
        }
    }
    return (*seg)->failed ? MCAST_SHM_PASS : OMPI_SUCCESS;
}

int mcast_shm_run(mcast_shm_seg_t **seg, int slots, size_t slot_bytes, size_t chunk_min,
                  int fit_ring, void *buf, int count,
                  struct ompi_datatype_t *dtype, size_t bytes, int root,
                  struct ompi_communicator_t *comm, mca_coll_base_module_bcast_fn_t below,
                  mca_coll_base_module_t *below_module)
{
    const int ready = segment_of(seg, slots, slot_bytes, comm, below, below_module);
    if (OMPI_SUCCESS != ready) {
        return ready;
    }
    shm_io_ctx_t c;
    io_init(&c, buf, count, dtype, ompi_comm_rank(comm) == root);
    const mcast_shm_io_t io = {&c, io_pack, io_unpack, io_idle};
    const size_t chunk = mcast_shm_chunk_bytes(bytes, chunk_min, slot_bytes, slots, fit_ring);
    const int rc = mcast_shm_bcast((*seg)->view, root, bytes, chunk, &io);
    io_fini(&c);
    return status_of(rc);
}

/* ---- MPI_Ibcast: the same op, moved on by Open MPI's progress engine --------------- */
typedef struct {
    shm_io_ctx_t io_ctx;
    mcast_shm_t *view;
    mcast_shm_op_t *op;
} shm_ireq_t;

static bool ireq_test(void *state, int *status)
{
    shm_ireq_t *r = state;
    int rc = KB_OK;
    mcast_shm_poll(r->view);
    if (!mcast_shm_op_test(r->op, &rc)) {
        return false;
    }
    *status = status_of(rc);
    return true;
}

static void ireq_release(void *state)
{
    shm_ireq_t *r = state;
    /* released after completion (the request completes only then) */
    mcast_shm_op_free(r->op);
    io_fini(&r->io_ctx);
    free(r);
}

static const mcast_runner_t shm_runner = {ireq_test, ireq_release};

int mcast_shm_irun(mcast_shm_seg_t **seg, int slots, size_t slot_bytes, size_t chunk_min,
                   int fit_ring, void *buf, int count, struct ompi_datatype_t *dtype, size_t bytes, int root,
                   struct ompi_communicator_t *comm, mca_coll_base_module_bcast_fn_t below,
                   mca_coll_base_module_t *below_module, ompi_request_t **request)
{
    const int ready = segment_of(seg, slots, slot_bytes, comm, below, below_module);
    if (OMPI_SUCCESS != ready) {
        return ready;
    }
    shm_ireq_t *r = calloc(1, sizeof(*r));
    if (NULL == r) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    io_init(&r->io_ctx, buf, count, dtype, ompi_comm_rank(comm) == root);
    r->view = (*seg)->view;
    const mcast_shm_io_t io = {&r->io_ctx, io_pack, io_unpack, NULL};
    const size_t chunk = mcast_shm_chunk_bytes(bytes, chunk_min, slot_bytes, slots, fit_ring);
    if (KB_OK != mcast_shm_start(r->view, root, bytes, chunk, &io, &r->op)) {
        free(r);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    mcast_shm_poll(r->view); /* a root's small message is out at once */
    return mcast_ireq_start_runner(comm, dtype, &shm_runner, r, request);
}

void mcast_shm_free(mcast_shm_seg_t *seg)
{
    if (NULL != seg) {
        unmap(seg);
        free(seg);
    }
}

bool mcast_shm_failed(const mcast_shm_seg_t *seg)
{
    return NULL != seg && seg->failed;
}
