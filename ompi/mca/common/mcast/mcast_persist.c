/*
 * Persistent broadcast (MPI-4 MPI_Bcast_init / MPI_Start; coll API 2.4.0, Open MPI 5.0).
 *
 * The request remembers the call.  At init (a local call: nothing waits; a new module's
 * exchange starts), on a module whose exchange is over, the size class's plan is decided
 * and cached (the verbose line "bcast_init ... algorithm=", else at the first start);
 * each MPI_Start then runs the call through this module's MPI_Ibcast path, which finds
 * that plan in the cache and runs the engine (PML, shared segment), or hands the call to
 * the module below where the plan is its.  The request completes when that inner request
 * does (a progress callback; nothing here waits).  A module that cannot decide at init
 * (its exchange not over) decides at the first start, as MPI_Ibcast does.  Where the
 * module below will serve every start (this module disabled, or the class deferred at
 * init), init returns the module below's own persistent request.
 */
#include "mcast_module.h"
#include "mcast_pml.h"

#include <stdlib.h>
#include <string.h>

#if MCAST_HAVE_BCAST_INIT

#include "ompi/request/request.h"
#include "opal/runtime/opal_progress.h"

typedef struct mcast_preq {
    ompi_request_t super;
    mcast_nbc_tail_t nbc; /* written by MPI_Bcast_init (mcast_compat.h) */
    mcast_module_t *m;
    void *buf;
    int count;
    struct ompi_datatype_t *dtype;
    int root;
    size_t bytes;
    struct ompi_communicator_t *comm;
    ompi_request_t *inner; /* the running start's request (NULL: inactive) */
    struct mcast_preq *next;
    bool freed; /* MPI_Request_free while active: released when it completes */
} mcast_preq_t;

static void preq_construct(mcast_preq_t *r)
{
    memset(&r->nbc, 0, sizeof(r->nbc));
    r->m = NULL;
    r->buf = NULL;
    r->count = 0;
    r->dtype = NULL;
    r->root = 0;
    r->comm = NULL;
    r->inner = NULL;
    r->next = NULL;
    r->freed = false;
}

OBJ_CLASS_INSTANCE(mcast_preq_t, ompi_request_t, preq_construct, NULL);

static mcast_preq_t *running = NULL;
static opal_mutex_t running_lock = OPAL_MUTEX_STATIC_INIT;
static bool progress_registered = false;
static volatile bool in_progress = false;

static void preq_release(mcast_preq_t *r)
{
    OBJ_RELEASE(r->dtype);
    OBJ_RELEASE(r->comm);
    OMPI_REQUEST_FINI(&r->super);
    OBJ_RELEASE(r);
}

/* Completes the starts whose inner request completed. */
static int preq_progress(void)
{
    if (NULL == running || in_progress || OPAL_THREAD_TRYLOCK(&running_lock)) {
        return 0;
    }
    in_progress = true;
    int n = 0;
    mcast_preq_t **link = &running;
    while (NULL != *link) {
        mcast_preq_t *r = *link;
        if (!REQUEST_COMPLETE(r->inner)) {
            link = &r->next;
            continue;
        }
        *link = r->next;
        n++;
        const int status = r->inner->req_status.MPI_ERROR;
        ompi_request_free(&r->inner);
        r->inner = NULL;
        r->super.req_status.MPI_ERROR = status;
        const bool freed = r->freed;
        ompi_request_complete(&r->super, true);
        if (freed) {
            preq_release(r);
        }
    }
    in_progress = false;
    OPAL_THREAD_UNLOCK(&running_lock);
    return n;
}

static int preq_start(size_t count, ompi_request_t **requests)
{
    for (size_t i = 0; i < count; i++) {
        mcast_preq_t *r = (mcast_preq_t *) requests[i];
        if (NULL != r->inner) {
            return MPI_ERR_REQUEST; /* started again before it completed */
        }
        r->super.req_status.MPI_ERROR = OMPI_SUCCESS;
        r->super.req_status._cancelled = 0;
        r->super.req_status._ucount = 0;
        ompi_request_t *inner = NULL;
        const int rc = mcast_module_istart(r->buf, r->count, r->dtype, r->root, r->comm, &inner,
                                           &r->m->super, 2);
        if (OMPI_SUCCESS != rc) {
            return rc; /* (the request stays inactive) */
        }
        r->super.req_state = OMPI_REQUEST_ACTIVE;
        r->super.req_complete = REQUEST_PENDING;
        OPAL_THREAD_LOCK(&running_lock);
        r->inner = inner;
        r->next = running;
        running = r;
        if (!progress_registered) {
            opal_progress_register(preq_progress);
            progress_registered = true;
        }
        OPAL_THREAD_UNLOCK(&running_lock);
    }
    return OMPI_SUCCESS;
}

static int preq_free(ompi_request_t **request)
{
    mcast_preq_t *r = (mcast_preq_t *) *request;
    *request = MPI_REQUEST_NULL;
    OPAL_THREAD_LOCK(&running_lock);
    const bool active = NULL != r->inner;
    if (active) {
        r->freed = true; /* (erroneous in MPI-4; released when the start completes) */
    }
    OPAL_THREAD_UNLOCK(&running_lock);
    if (!active) {
        preq_release(r);
    }
    return OMPI_SUCCESS;
}

int mcast_module_bcast_init(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                            struct ompi_communicator_t *comm, struct ompi_info_t *info,
                            ompi_request_t **request, mca_coll_base_module_t *module)
{
    mcast_module_t *m = (mcast_module_t *) module;
    size_t bytes = 0;
    if (!mcast_signature_bytes(count, dtype, &bytes)) {
        return MPI_ERR_COUNT;
    }
    /* Decided now where the module can (its plan is cached for every start); where the
     * module below serves, its own persistent request serves every start. */
    if (NULL != m->previous_bcast_init && mcast_module_passes_now(m, comm, bytes, root)) {
        return m->previous_bcast_init(buf, count, dtype, root, comm, info, request,
                                      m->previous_bcast_init_module);
    }
    mcast_preq_t *r = OBJ_NEW(mcast_preq_t);
    if (NULL == r) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    mcast_request_prepare(&r->super, true, preq_free, comm);
    r->super.req_start = preq_start;
    r->m = m;
    r->buf = buf;
    r->count = count;
    r->dtype = dtype;
    r->root = root;
    r->bytes = bytes;
    r->comm = comm;
    OBJ_RETAIN(dtype);
    OBJ_RETAIN(comm);
    *request = &r->super;
    return OMPI_SUCCESS;
}

#endif /* MCAST_HAVE_BCAST_INIT */
