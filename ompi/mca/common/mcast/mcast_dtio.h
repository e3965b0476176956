/*
 * Byte ranges of a broadcast's packed stream moved between a staging buffer and the
 * user buffer (buf, count, dtype) of a non-contiguous datatype, through Open MPI's
 * convertor.  Used by the PML engine (a block per op, in any order) and the shared
 * segment (consecutive chunks).
 *
 * Blocks and chunks are cut by bytes of the type signature, never by element, so a range
 * may start or end inside a predefined element (a 40-byte block of 32-byte long double
 * complex numbers).  Open MPI's convertor copes with such a cut only partly:
 *   - a send convertor positioned inside an element moves back to the element's start
 *     (opal_convertor_set_position_nocheck) and packs whole elements only;
 *   - a receive convertor keeps the cut (partial_length) and completes the element in
 *     opal_unpack_partial_datatype, whose two buffers hold 16 bytes: a larger element
 *     (MPI_C_LONG_DOUBLE_COMPLEX, 32) overflows them ("buffer overflow detected" in
 *     opal_generic_simple_unpack; the later opal_unpack_partial_predefined has the same).
 * So the convertors here start and stop on element boundaries only:
 *
 *     stream   |..e0..|....e1....|..e2..|....e3....|
 *     range          [off                     end)
 *     unpack         |head|  whole elements   |tail|
 *
 *   the whole elements are unpacked straight from the range; a cut element (head, tail,
 *   or one element holding the whole range) is packed from the user buffer, the range's
 *   bytes are copied over its part, and it is unpacked whole (the element's other bytes
 *   are written back as they were: ranges of one call are unpacked one after the other).
 *   Packing starts at the element holding `off` and copies out the range's bytes.
 * A data-representation convertor that changes bytes would break this; the convertor
 * here is always the local (homogeneous) one.
 */
#ifndef MCAST_DTIO_H
#define MCAST_DTIO_H

#include "ompi_config.h"
#include "ompi/datatype/ompi_datatype.h"
#include "opal/datatype/opal_convertor.h"

/* More room than any predefined element takes: whole elements packed from a boundary
 * into (the bytes wanted) + this much always reach past the bytes wanted. */
#define MCAST_DTIO_SLACK 64

typedef struct mcast_dtio {
    void *buf;
    int count;
    struct ompi_datatype_t *dtype;
    /* pack, unpack, and a send convertor that finds element boundaries for unpacking (a
     * rank that forwards packs the ranges it unpacked: separate convertors continue) */
    opal_convertor_t cv[3];
    bool ready[3];
    /* the bytes of a cut element before the range, and MCAST_DTIO_SLACK more (an
     * element is at most 32 bytes: long double complex, Open MPI's largest) */
    char tmp[2 * MCAST_DTIO_SLACK];
} mcast_dtio_t;

void mcast_dtio_init(mcast_dtio_t *io, void *buf, int count, struct ompi_datatype_t *dtype);
void mcast_dtio_fini(mcast_dtio_t *io);

/* Packs bytes [off, off + n) of the stream into dst, min_len <= n <= len: with
 * min_len < len it may stop early where an element ends.  OMPI_SUCCESS or an error. */
int mcast_dtio_pack(mcast_dtio_t *io, size_t off, size_t min_len, size_t len, void *dst,
                    size_t *n);

/* Unpacks bytes [off, off + len) of the stream from src.  OMPI_SUCCESS or an error. */
int mcast_dtio_unpack(mcast_dtio_t *io, size_t off, size_t len, const void *src);

#endif /* MCAST_DTIO_H */
