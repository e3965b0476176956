/* Byte ranges of the packed stream through the convertor, cut elements included: see
 * mcast_dtio.h. */
#include "mcast_dtio.h"

#include <string.h>

#include "ompi/constants.h"

enum { CV_PACK, CV_UNPACK, CV_PROBE };

void mcast_dtio_init(mcast_dtio_t *io, void *buf, int count, struct ompi_datatype_t *dtype)
{
    memset(io, 0, sizeof(*io));
    io->buf = buf;
    io->count = count;
    io->dtype = dtype;
}

void mcast_dtio_fini(mcast_dtio_t *io)
{
    for (int i = 0; i < 3; i++) {
        if (io->ready[i]) {
            OBJ_DESTRUCT(&io->cv[i]);
            io->ready[i] = false;
        }
    }
}

/* Convertor `which` at byte `off` of the stream; *pos is where it stands: `off`, or for
 * a send convertor inside an element, that element's start.  One that stands elsewhere
 * is prepared afresh and positioned from the stream's start (Open MPI skips whole
 * datatype instances there: a walk of the datatype's description, not of the stream). */
static opal_convertor_t *at(mcast_dtio_t *io, int which, size_t off, size_t *pos)
{
    opal_convertor_t *cv = &io->cv[which];
    *pos = off;
    if (io->ready[which] && cv->bConverted == off) {
        return cv;
    }
    if (io->ready[which]) {
        OBJ_DESTRUCT(cv);
        io->ready[which] = false;
    }
    OBJ_CONSTRUCT(cv, opal_convertor_t);
    io->ready[which] = true;
    const int rc = CV_UNPACK == which
                       ? opal_convertor_copy_and_prepare_for_recv(ompi_mpi_local_convertor,
                                                                  &io->dtype->super, io->count,
                                                                  io->buf, 0, cv)
                       : opal_convertor_copy_and_prepare_for_send(ompi_mpi_local_convertor,
                                                                  &io->dtype->super, io->count,
                                                                  io->buf, 0, cv);
    if (OMPI_SUCCESS != rc || OMPI_SUCCESS != opal_convertor_set_position(cv, pos)) {
        OBJ_DESTRUCT(cv);
        io->ready[which] = false;
        return NULL;
    }
    return cv;
}

/* Whole elements from the send convertor's position `cur` (a boundary) into io->tmp,
 * reaching at least byte `need` of the stream (exclusive): *n bytes. */
static int pack_tmp(mcast_dtio_t *io, opal_convertor_t *cv, size_t cur, size_t need, size_t *n)
{
    const size_t room = (need - cur) + MCAST_DTIO_SLACK;
    if (room > sizeof(io->tmp)) {
        return MPI_ERR_INTERN; /* an element longer than MCAST_DTIO_SLACK */
    }
    struct iovec iov = {.iov_base = io->tmp, .iov_len = room};
    uint32_t iov_count = 1;
    size_t max_data = room;
    if (opal_convertor_pack(cv, &iov, &iov_count, &max_data) < 0 || cur + max_data < need) {
        return MPI_ERR_INTERN;
    }
    *n = max_data;
    return OMPI_SUCCESS;
}

int mcast_dtio_pack(mcast_dtio_t *io, size_t off, size_t min_len, size_t len, void *dst,
                    size_t *n)
{
    size_t cur; /* where the convertor stands: a boundary */
    opal_convertor_t *cv = at(io, CV_PACK, off, &cur);
    if (NULL == cv || cur > off) {
        return MPI_ERR_INTERN;
    }
    char *out = dst;
    const size_t end = off + len;
    size_t done = off; /* bytes [off, done) are in dst */
    while (done < end) {
        if (cur == done) {
            /* on a boundary: whole elements straight into dst */
            struct iovec iov = {.iov_base = out + (done - off), .iov_len = end - done};
            uint32_t iov_count = 1;
            size_t k = end - done;
            if (opal_convertor_pack(cv, &iov, &iov_count, &k) < 0) {
                return MPI_ERR_INTERN;
            }
            cur += k;
            done += k;
            if (done >= off + min_len) {
                break;
            }
        }
        if (done == end) {
            break;
        }
        /* the element holding byte `done` is cut (by `off` or by `end`) */
        size_t k;
        const int rc = pack_tmp(io, cv, cur, done + 1, &k);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        const size_t upto = cur + k < end ? cur + k : end;
        memcpy(out + (done - off), io->tmp + (done - cur), upto - done);
        done = upto;
        cur += k;
    }
    *n = done - off;
    return OMPI_SUCCESS;
}

/* Unpacks `len` bytes from src at `off`, both on element boundaries. */
static int unpack_whole(mcast_dtio_t *io, size_t off, size_t len, const void *src)
{
    size_t pos;
    opal_convertor_t *cv = at(io, CV_UNPACK, off, &pos);
    if (NULL == cv || pos != off || 0 != cv->partial_length) {
        return MPI_ERR_INTERN;
    }
    struct iovec iov = {.iov_base = (void *) src, .iov_len = len};
    uint32_t iov_count = 1;
    size_t max_data = len;
    return (opal_convertor_unpack(cv, &iov, &iov_count, &max_data) >= 0 && max_data == len &&
            0 == cv->partial_length)
               ? OMPI_SUCCESS
               : MPI_ERR_INTERN;
}

/* The element cut at `from` (the probe convertor stands at its start p): packed from the
 * user buffer, bytes [from, *upto) of it taken from src (*upto: the element's end, at
 * most `to`), unpacked whole. */
static int patch(mcast_dtio_t *io, opal_convertor_t *probe, size_t p, size_t from, size_t to,
                 const char *src, size_t *upto)
{
    size_t k;
    int rc = pack_tmp(io, probe, p, from + 1, &k);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    *upto = p + k < to ? p + k : to;
    memcpy(io->tmp + (from - p), src, *upto - from);
    return unpack_whole(io, p, k, io->tmp);
}

int mcast_dtio_unpack(mcast_dtio_t *io, size_t off, size_t len, const void *src)
{
    const char *in = src;
    const size_t end = off + len;
    size_t done = off, p;
    opal_convertor_t *probe;
    int rc = OMPI_SUCCESS;
    if (0 == len) {
        return OMPI_SUCCESS;
    }
    /* the head: the unpack convertor stands on boundaries only, so where it stands
     * needs no probe */
    if (!io->ready[CV_UNPACK] || io->cv[CV_UNPACK].bConverted != off) {
        if (NULL == (probe = at(io, CV_PROBE, off, &p)) || p > off) {
            return MPI_ERR_INTERN;
        }
        if (p < off && OMPI_SUCCESS != (rc = patch(io, probe, p, off, end, in, &done))) {
            return rc;
        }
    }
    if (done == end) {
        return OMPI_SUCCESS;
    }
    /* the tail: the element holding byte `end` starts at p (done <= p <= end) */
    if (NULL == (probe = at(io, CV_PROBE, end, &p)) || p < done || p > end) {
        return MPI_ERR_INTERN;
    }
    if (p > done && OMPI_SUCCESS != (rc = unpack_whole(io, done, p - done, in + (done - off)))) {
        return rc;
    }
    if (p < end) {
        rc = patch(io, probe, p, p, end, in + (p - off), &done);
    }
    return rc;
}
