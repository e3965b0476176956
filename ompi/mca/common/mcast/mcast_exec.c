/*
 * The schedule executor (see mcast_exec.h for the model).
 *
 * Segment j covers bytes [j*S, min((j+1)*S, M)) of the packed signature.  A rank:
 *
 *   root      pack j (if staged) -> isend j to children[0..]          (FPFS)
 *   interior  wait recv j -> post recv j+W -> isend j to children -> unpack j
 *   leaf      wait recv j -> post recv j+W -> unpack j
 *
 * Sends live in a ring of max_sends requests (W*children by default): only when the
 * ring is full does a rank wait, and then only for its oldest send, never for "all
 * children of segment j" (the lock-step of Open MPI's generic engine).
 */
#include "mcast_exec.h"

#include <stdlib.h>
#include <string.h>
#include <limits.h>

#include "ompi/constants.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/mca/coll/base/coll_tags.h"
#include "ompi/request/request.h"
#include "opal/datatype/opal_convertor.h"

#define MCAST_RING_ON_STACK 64

typedef struct mcast_stream {
    char *data;            /* packed bytes: the user buffer in place, or staging */
    size_t bytes;
    size_t seg;
    size_t nseg;
    bool staged;
    size_t staged_upto;    /* bytes packed (root) or unpacked (receiver) so far */
    opal_convertor_t conv;
} mcast_stream_t;

typedef struct mcast_ring {
    ompi_request_t **req;
    size_t cap, head, used;
} mcast_ring_t;

bool mcast_signature_bytes(int count, struct ompi_datatype_t *dtype, size_t *bytes)
{
    size_t tsize = 0;
    if (count < 0) {
        return false;
    }
    ompi_datatype_type_size(dtype, &tsize);
    if (0 != tsize && (size_t) count > SIZE_MAX / tsize) {
        return false;
    }
    *bytes = tsize * (size_t) count;
    return true;
}

static inline size_t seg_len(const mcast_stream_t *s, size_t j)
{
    size_t off = j * s->seg;
    return (s->bytes - off < s->seg) ? s->bytes - off : s->seg;
}

static inline void note_error(int *first_err, int rc)
{
    if (OMPI_SUCCESS == *first_err && OMPI_SUCCESS != rc) {
        *first_err = rc;
    }
}

/* Wait for one request.  ompi_request_wait() returns the request's error (e.g.
 * MPI_ERR_TRUNCATE) without filling status.MPI_ERROR and without freeing a failed
 * request: record the error and free it here. */
static void wait_one(ompi_request_t **req, int *first_err)
{
    int rc = ompi_request_wait(req, MPI_STATUS_IGNORE);
    if (OMPI_SUCCESS != rc) {
        note_error(first_err, rc);
        if (MPI_REQUEST_NULL != *req) {
            ompi_request_free(req);
        }
    }
}

static void ring_wait_oldest(mcast_ring_t *r, int *first_err)
{
    wait_one(&r->req[r->head], first_err);
    r->head = (r->head + 1) % r->cap;
    r->used--;
}

static int ring_isend(mcast_ring_t *r, const mcast_stream_t *s, size_t j, int dst,
                      struct ompi_communicator_t *comm, int *first_err)
{
    if (r->used == r->cap) {
        ring_wait_oldest(r, first_err);
    }
    size_t slot = (r->head + r->used) % r->cap;
    int rc = MCA_PML_CALL(isend(s->data + j * s->seg, (int) seg_len(s, j), MPI_BYTE, dst,
                                MCA_COLL_BASE_TAG_BCAST, MCA_PML_BASE_SEND_STANDARD, comm,
                                &r->req[slot]));
    if (OMPI_SUCCESS != rc) {
        note_error(first_err, rc);
        return rc;
    }
    r->used++;
    return OMPI_SUCCESS;
}

static void ring_drain(mcast_ring_t *r, int *first_err)
{
    while (r->used > 0) {
        ring_wait_oldest(r, first_err);
    }
}

/* Keep the staging buffer in step with the stream (no-op when in place).
 *   root      pack until at least `upto` bytes are packed (segment j's end);
 *   receiver  unpack what has arrived, up to `upto`.
 * The convertor works in whole basic elements: it may stop short of a segment end
 * that cuts an element.  The root then packs a little further; a receiver keeps the
 * cut element for the next segment.  At the end of the stream everything must be
 * through. */
static void stage_upto(mcast_stream_t *s, size_t upto, bool pack, int *first_err)
{
    if (!s->staged) {
        return;
    }
    while (s->staged_upto < upto) {
        size_t want = upto - s->staged_upto;
        if (pack && want < 64 && s->bytes - s->staged_upto > want) {
            want = (s->bytes - s->staged_upto < 64) ? s->bytes - s->staged_upto : 64;
        }
        struct iovec iov = {.iov_base = s->data + s->staged_upto, .iov_len = want};
        uint32_t iov_count = 1;
        size_t max_data = want;
        int32_t rc = pack ? opal_convertor_pack(&s->conv, &iov, &iov_count, &max_data)
                          : opal_convertor_unpack(&s->conv, &iov, &iov_count, &max_data);
        if (rc < 0 || max_data > want) {
            note_error(first_err, MPI_ERR_INTERN);
            return;
        }
        if (0 == max_data) {
            if (pack || upto == s->bytes) {
                note_error(first_err, MPI_ERR_INTERN); /* no progress possible */
            }
            return; /* a cut element: finish it with the next segment */
        }
        s->staged_upto += max_data;
    }
}

static inline size_t seg_end(const mcast_stream_t *s, size_t j)
{
    return j * s->seg + seg_len(s, j);
}

static int post_recv(mcast_stream_t *s, size_t j, int parent, struct ompi_communicator_t *comm,
                     ompi_request_t **req)
{
    return MCA_PML_CALL(irecv(s->data + j * s->seg, (int) seg_len(s, j), MPI_BYTE, parent,
                              MCA_COLL_BASE_TAG_BCAST, comm, req));
}

int mcast_exec_bcast(void *buf, int count, struct ompi_datatype_t *dtype,
                     const mcast_local_plan_t *plan, struct ompi_communicator_t *comm)
{
    mcast_stream_t s;
    ompi_request_t *ring_stack[MCAST_RING_ON_STACK];
    ompi_request_t *rrecv_stack[MCAST_RING_ON_STACK];
    ompi_request_t **rrecv = rrecv_stack, **sring = ring_stack;
    mcast_ring_t sends = {0};
    int err = OMPI_SUCCESS;
    const bool is_root = (plan->parent < 0);
    const size_t window = (plan->window < 1) ? 1 : (size_t) plan->window;

    memset(&s, 0, sizeof(s));
    if (!mcast_signature_bytes(count, dtype, &s.bytes)) {
        return MPI_ERR_COUNT;
    }
    if (0 == s.bytes || (is_root && 0 == plan->nchildren)) {
        return OMPI_SUCCESS;
    }
    s.seg = plan->seg_bytes;
    if (s.seg < 1 || s.seg > (size_t) INT_MAX) {
        s.seg = (s.bytes < (size_t) INT_MAX) ? s.bytes : (size_t) INT_MAX;
    }
    s.nseg = (s.bytes + s.seg - 1) / s.seg;

    if (ompi_datatype_is_contiguous_memory_layout(dtype, count)) {
        ptrdiff_t true_lb = 0, true_extent = 0;
        ompi_datatype_get_true_extent(dtype, &true_lb, &true_extent);
        s.data = (char *) buf + true_lb;
    } else {
        s.staged = true;
        s.data = malloc(s.bytes);
        if (NULL == s.data) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        OBJ_CONSTRUCT(&s.conv, opal_convertor_t);
        int rc = is_root
            ? opal_convertor_copy_and_prepare_for_send(ompi_mpi_local_convertor, &dtype->super,
                                                       count, buf, 0, &s.conv)
            : opal_convertor_copy_and_prepare_for_recv(ompi_mpi_local_convertor, &dtype->super,
                                                       count, buf, 0, &s.conv);
        if (OMPI_SUCCESS != rc) {
            err = rc;
            goto exit;
        }
    }

    sends.cap = (plan->max_sends > 0)
                    ? (size_t) plan->max_sends
                    : window * (size_t) (plan->nchildren > 0 ? plan->nchildren : 1);
    if (sends.cap > MCAST_RING_ON_STACK) {
        sring = malloc(sends.cap * sizeof(*sring));
    }
    if (window > MCAST_RING_ON_STACK) {
        rrecv = malloc(window * sizeof(*rrecv));
    }
    if (NULL == sring || NULL == rrecv) {
        err = OMPI_ERR_OUT_OF_RESOURCE;
        goto exit;
    }
    sends.req = sring;

    if (!is_root) {
        for (size_t j = 0; j < window && j < s.nseg; j++) {
            int rc = post_recv(&s, j, plan->parent, comm, &rrecv[j]);
            if (OMPI_SUCCESS != rc) {
                /* Nothing can be received: wait for what was posted, then give up. */
                for (size_t i = 0; i < j; i++) {
                    wait_one(&rrecv[i], &err);
                }
                err = rc;
                goto exit;
            }
        }
    }

    const int eager_children = (MCAST_DISC_FPFS == plan->discipline)
                                   ? plan->nchildren
                                   : (plan->nchildren > 0 ? 1 : 0);
    for (size_t j = 0; j < s.nseg; j++) {
        if (is_root) {
            stage_upto(&s, seg_end(&s, j), true, &err);
        } else {
            wait_one(&rrecv[j % window], &err);
            if (j + window < s.nseg) {
                int rc = post_recv(&s, j + window, plan->parent, comm, &rrecv[j % window]);
                if (OMPI_SUCCESS != rc) {
                    note_error(&err, rc);
                    rrecv[j % window] = MPI_REQUEST_NULL;
                }
            }
        }
        for (int c = 0; c < eager_children; c++) {
            ring_isend(&sends, &s, j, plan->children[c], comm, &err);
        }
        if (!is_root) {
            stage_upto(&s, seg_end(&s, j), false, &err);
        }
    }
    /* FCFS: the remaining children get every segment, one child after the other. */
    for (int c = eager_children; c < plan->nchildren; c++) {
        for (size_t j = 0; j < s.nseg; j++) {
            ring_isend(&sends, &s, j, plan->children[c], comm, &err);
        }
    }
    ring_drain(&sends, &err);

exit:
    if (s.staged) {
        OBJ_DESTRUCT(&s.conv);
        free(s.data);
    }
    if (sring != ring_stack) {
        free(sring);
    }
    if (rrecv != rrecv_stack) {
        free(rrecv);
    }
    return err;
}
