/*
 * dtio_check: the glue's byte ranges of a packed stream (ompi/mca/common/mcast/mcast_dtio.c,
 * what the PML engine and the shared segment pack and unpack non-contiguous datatypes
 * with) against MPI_Pack / MPI_Unpack (cut_unpack: in calls of at most 2 KiB), in one process, for datatypes
 * whose predefined elements ranges cut: long double complex (32 bytes, more than Open
 * MPI's 16-byte buffers for a cut element), long double (16), and ints and doubles in
 * structs with padding, in indexed, vector, struct and resized (gaps between
 * contiguous instances) layouts.
 *   pack      every range [off, off + len) of the stream comes out as the reference
 *             stream's bytes; chunk after chunk with early stops where elements end (as
 *             the shared segment's root packs) it covers the stream exactly
 *   unpack    every range written into a buffer that holds another message gives that
 *             message with the range's bytes replaced (nothing outside the range is
 *             written, gaps included)
 *   order     the stream cut into random pieces, unpacked in a random order with one
 *             context (its convertors continue and jump), gives the reference
 * Prints "dtio_check: N checks, M failures" and exits 1 on a failure.
 */
#include "mcast_dtio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cut_types.h"
#include "mpi.h"

#define SENTINEL 0xA5

static long checks = 0, failures = 0;
static unsigned long rng = 12345;

static unsigned next_rand(unsigned n)
{
    rng = rng * 6364136223846793005ul + 1442695040888963407ul;
    return (unsigned) ((rng >> 33) % n);
}

typedef struct {
    const char *name;
    MPI_Datatype type;
    int count;
    size_t bytes;  /* the stream */
    size_t span;   /* the buffer: [0, span) holds count instances from offset `off` */
    MPI_Aint off;
    unsigned char *ref, *ref2;   /* two streams */
    unsigned char *mem, *mem2;   /* them unpacked into sentinel-filled buffers */
    unsigned char *sdata;        /* [bytes] 1 where the stream holds data (not padding) */
    unsigned char *mcls;         /* [span] the buffer's bytes: cut_byte_classes */
} dcase_t;

/* The first byte of [0, len) where out differs from the stream's data at off; -1: none. */
static ssize_t stream_diff(const dcase_t *d, const unsigned char *out, size_t off, size_t len)
{
    for (size_t k = 0; k < len; k++) {
        if (d->sdata[off + k] && out[k] != d->ref[off + k]) {
            return (ssize_t) k;
        }
    }
    return -1;
}

static void fail(const dcase_t *d, const char *what, size_t off, size_t len)
{
    failures++;
    if (failures <= 20) {
        fprintf(stderr, "FAIL %s: %s off=%zu len=%zu (stream %zu bytes)\n", d->name, what, off,
                len, d->bytes);
    }
}

static void unpack_ref(const dcase_t *d, const unsigned char *stream, unsigned char *mem)
{
    memset(mem, SENTINEL, d->span);
    cut_unpack(stream, d->bytes, mem + d->off, d->count, d->type);
}

/* (type committed; teardown frees it) */
static void setup(dcase_t *d, const char *name, MPI_Datatype type, int count)
{
    MPI_Aint lb, extent, tlb, textent;
    int size;
    MPI_Type_get_extent(type, &lb, &extent);
    MPI_Type_get_true_extent(type, &tlb, &textent);
    MPI_Type_size(type, &size);
    d->name = name;
    d->type = type;
    d->count = count;
    d->bytes = (size_t) size * (size_t) count;
    d->off = 64 - (tlb < 0 ? tlb : 0);
    d->span = (size_t) (d->off + tlb + textent + (MPI_Aint) (count - 1) * extent) + 64;
    d->ref = malloc(d->bytes);
    d->ref2 = malloc(d->bytes);
    d->mem = malloc(d->span);
    d->mem2 = malloc(d->span);
    for (size_t i = 0; i < d->bytes; i++) {
        d->ref[i] = (unsigned char) next_rand(256);
        d->ref2[i] = (unsigned char) ~d->ref[i];
    }
    unpack_ref(d, d->ref, d->mem);
    unpack_ref(d, d->ref2, d->mem2);
    d->sdata = cut_stream_data(type, count, d->span, d->off, d->bytes);
    d->mcls = cut_byte_classes(type, count, d->span, d->off, d->bytes);
}

static void teardown(dcase_t *d)
{
    MPI_Type_free(&d->type);
    free(d->ref);
    free(d->ref2);
    free(d->mem);
    free(d->mem2);
    free(d->sdata);
    free(d->mcls);
}

/* every range, exact; chunk after chunk stopping where elements end */
static void check_pack(const dcase_t *d)
{
    unsigned char *out = malloc(d->bytes + 1);
    for (size_t off = 0; off < d->bytes; off++) {
        for (size_t len = 1; off + len <= d->bytes; len++) {
            mcast_dtio_t io;
            size_t n = 0;
            mcast_dtio_init(&io, d->mem + d->off, d->count, d->type);
            const int rc = mcast_dtio_pack(&io, off, len, len, out, &n);
            mcast_dtio_fini(&io);
            checks++;
            if (OMPI_SUCCESS != rc || n != len || stream_diff(d, out, off, len) >= 0) {
                fail(d, "pack", off, len);
            }
        }
    }
    for (size_t chunk = 1; chunk <= 100; chunk++) {
        mcast_dtio_t io;
        mcast_dtio_init(&io, d->mem + d->off, d->count, d->type);
        size_t off = 0;
        int ok = 1;
        while (ok && off < d->bytes) {
            const size_t max = chunk < d->bytes - off ? chunk : d->bytes - off;
            size_t n = 0;
            ok = OMPI_SUCCESS == mcast_dtio_pack(&io, off, 1, max, out, &n) && n >= 1 &&
                 n <= max && stream_diff(d, out, off, n) < 0;
            off += n;
        }
        mcast_dtio_fini(&io);
        checks++;
        if (!ok) {
            fail(d, "chunked pack", off, chunk);
        }
    }
    free(out);
}

/* every range over the other message */
static void check_unpack(const dcase_t *d)
{
    unsigned char *buf = malloc(d->span), *mix = malloc(d->bytes), *want = malloc(d->span);
    for (size_t off = 0; off < d->bytes; off++) {
        for (size_t len = 1; off + len <= d->bytes; len++) {
            memcpy(buf, d->mem2, d->span);
            mcast_dtio_t io;
            mcast_dtio_init(&io, buf + d->off, d->count, d->type);
            const int rc = mcast_dtio_unpack(&io, off, len, d->ref + off);
            mcast_dtio_fini(&io);
            memcpy(mix, d->ref2, d->bytes);
            memcpy(mix + off, d->ref + off, len);
            unpack_ref(d, mix, want);
            checks++;
            if (OMPI_SUCCESS != rc || cut_first_diff(buf, want, d->mcls, d->span) >= 0) {
                fail(d, "unpack", off, len);
            }
        }
    }
    free(buf);
    free(mix);
    free(want);
}

/* random pieces of up to 3 long double complex numbers, in a random order */
static void check_order(const dcase_t *d)
{
    unsigned char *buf = malloc(d->span);
    size_t *cut = malloc(sizeof(size_t) * (d->bytes + 1));
    for (int round = 0; round < 200; round++) {
        size_t n = 0;
        for (size_t off = 0; off < d->bytes; n++) {
            cut[n] = off;
            off += 1 + next_rand(96);
            off = off < d->bytes ? off : d->bytes;
        }
        cut[n] = d->bytes;
        size_t *order = malloc(sizeof(size_t) * n);
        for (size_t i = 0; i < n; i++) {
            order[i] = i;
        }
        for (size_t i = n; round % 4 != 0 && i > 1; i--) { /* every 4th round in order */
            const size_t j = next_rand((unsigned) i), t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
        memset(buf, SENTINEL, d->span);
        mcast_dtio_t io;
        mcast_dtio_init(&io, buf + d->off, d->count, d->type);
        int rc = OMPI_SUCCESS;
        for (size_t i = 0; i < n && OMPI_SUCCESS == rc; i++) {
            const size_t a = cut[order[i]], b = cut[order[i] + 1];
            rc = mcast_dtio_unpack(&io, a, b - a, d->ref + a);
        }
        mcast_dtio_fini(&io);
        checks++;
        if (OMPI_SUCCESS != rc || cut_first_diff(buf, d->mem, d->mcls, d->span) >= 0) {
            fail(d, "unpack in random order", (size_t) round, n);
        }
        free(order);
    }
    free(buf);
    free(cut);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    dcase_t d;
    MPI_Datatype t;

    MPI_Datatype cut[CUT_NTYPES];
    cut_types_create(cut);
    const int counts[CUT_NTYPES] = {2, 1, 3, 4};
    const char *const names[CUT_NTYPES] = {"indexed_block_ldcomplex", "vector_ldcomplex",
                                           "struct_char_ldcomplex_int", "resized_ldcomplex"};
    for (int i = 0; i < CUT_NTYPES; i++) {
        setup(&d, names[i], cut[i], counts[i]);
        check_pack(&d), check_unpack(&d), check_order(&d), teardown(&d);
    }

    MPI_Type_vector(4, 1, 2, MPI_LONG_DOUBLE, &t);
    MPI_Type_commit(&t);
    setup(&d, "vector_long_double", t, 2);
    check_pack(&d), check_unpack(&d), check_order(&d), teardown(&d);

    int bl2[2] = {1, 1};
    MPI_Aint d2[2] = {0, 8};
    MPI_Datatype ty2[2] = {MPI_INT, MPI_DOUBLE}, s2;
    MPI_Type_create_struct(2, bl2, d2, ty2, &s2);
    MPI_Type_create_resized(s2, 0, 24, &t);
    MPI_Type_free(&s2);
    MPI_Type_commit(&t);
    setup(&d, "struct_int_double", t, 5);
    check_pack(&d), check_unpack(&d), check_order(&d), teardown(&d);

    printf("dtio_check: %ld checks, %ld failures\n", checks, failures);
    MPI_Finalize();
    return failures == 0 ? 0 : 1;
}
