/*
 * Datatypes whose predefined elements are larger than a small block, in layouts with
 * holes: 32-byte long double complex numbers that blocks of 24 or 40 bytes cut.  Shared
 * by bcast_check (broadcast with every algorithm) and dtio_check (the glue's byte ranges).
 */
#ifndef CUT_TYPES_H
#define CUT_TYPES_H

#include <complex.h>
#include <mpi.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

enum { CUT_INDEXED_BLOCK, CUT_VECTOR, CUT_STRUCT, CUT_RESIZED, CUT_NTYPES };

/* Creates and commits them (long double complex numbers per instance):
 *   CUT_INDEXED_BLOCK  indexed_block(5, 1, {0, 2, 4, 6, 8}): 5, a hole after each
 *   CUT_VECTOR         vector(3, 2, 3): 6, pairs with a hole after each
 *   CUT_STRUCT         {char; long double complex; int} with the C padding, its extent: 1
 *   CUT_RESIZED        one resized to 48 bytes: 1, a 16-byte hole after it (the
 *                      convertor takes it as contiguous with gaps: no element boundaries) */
static inline void cut_types_create(MPI_Datatype t[CUT_NTYPES])
{
    const int disp[5] = {0, 2, 4, 6, 8};
    MPI_Type_create_indexed_block(5, 1, disp, MPI_C_LONG_DOUBLE_COMPLEX, &t[CUT_INDEXED_BLOCK]);
    MPI_Type_vector(3, 2, 3, MPI_C_LONG_DOUBLE_COMPLEX, &t[CUT_VECTOR]);
    struct padded {
        char c;
        long double _Complex z;
        int i;
    };
    int bl[3] = {1, 1, 1};
    MPI_Aint sdisp[3] = {offsetof(struct padded, c), offsetof(struct padded, z),
                         offsetof(struct padded, i)};
    MPI_Datatype types[3] = {MPI_CHAR, MPI_C_LONG_DOUBLE_COMPLEX, MPI_INT}, st;
    MPI_Type_create_struct(3, bl, sdisp, types, &st);
    MPI_Type_create_resized(st, 0, sizeof(struct padded), &t[CUT_STRUCT]);
    MPI_Type_free(&st);
    MPI_Type_create_resized(MPI_C_LONG_DOUBLE_COMPLEX, 0, 48, &t[CUT_RESIZED]);
    for (int i = 0; i < CUT_NTYPES; i++) {
        MPI_Type_commit(&t[i]);
    }
}

/* MPI_Unpack / MPI_Pack of count instances of type at mem, in calls of whole instances
 * and at most CUT_CALL_BYTES of the stream each (at least one instance).  The references
 * of the checks are made so because Open MPI 5.0.7 gets a resized long double complex
 * type wrong in one large call, and right in small ones (evidence E-OMPI5-1). */
#define CUT_CALL_BYTES 2048
static inline void cut_xfer(int pack, void *stream, size_t stream_bytes, void *mem, int count,
                            MPI_Datatype type)
{
    MPI_Aint lb, ext;
    int size, pos = 0;
    MPI_Type_get_extent(type, &lb, &ext);
    MPI_Type_size(type, &size);
    const int per = size > 0 && size < CUT_CALL_BYTES ? CUT_CALL_BYTES / size : 1;
    for (int k = 0; k < count; k += per) {
        const int n = count - k < per ? count - k : per;
        char *at = (char *) mem + (MPI_Aint) k * ext;
        if (pack) {
            MPI_Pack(at, n, type, stream, (int) stream_bytes, &pos, MPI_COMM_SELF);
        } else {
            MPI_Unpack(stream, (int) stream_bytes, &pos, at, n, type, MPI_COMM_SELF);
        }
    }
}
static inline void cut_unpack(const void *stream, size_t stream_bytes, void *mem, int count,
                              MPI_Datatype type)
{
    cut_xfer(0, (void *) stream, stream_bytes, mem, count, type);
}
static inline void cut_pack(const void *mem, int count, MPI_Datatype type, void *stream,
                            size_t room)
{
    cut_xfer(1, stream, room, (void *) mem, count, type);
}

/* Marks in mark[0, span) the bytes of every predefined element of type placed at disp: its
 * whole extent, padding included (a long double's 6 bytes after its 10 of data).  Follows
 * the type constructors down to the predefined types.  1: every element marked; 0: a
 * constructor not listed here was met (its elements are not marked). */
static inline int cut_mark_elements(MPI_Datatype type, MPI_Aint disp, unsigned char *mark,
                                     size_t span)
{
    int ni, na, nd, comb;
    MPI_Type_get_envelope(type, &ni, &na, &nd, &comb);
    MPI_Aint lb, ext;
    if (MPI_COMBINER_NAMED == comb) {
        MPI_Type_get_extent(type, &lb, &ext);
        for (MPI_Aint b = disp + lb; b < disp + lb + ext; b++) {
            if (b >= 0 && (size_t) b < span) {
                mark[b] = 1;
            }
        }
        return 1;
    }
    int complete = 1;
    int *iv = malloc(sizeof(int) * (size_t) (ni + 1));
    MPI_Aint *av = malloc(sizeof(MPI_Aint) * (size_t) (na + 1));
    MPI_Datatype *tv = malloc(sizeof(MPI_Datatype) * (size_t) (nd + 1));
    MPI_Type_get_contents(type, ni, na, nd, iv, av, tv);
    MPI_Aint old = 0;
    if (nd > 0) {
        MPI_Type_get_extent(tv[0], &lb, &old);
    }
    int n = ni > 0 ? iv[0] : 0;
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        complete &= cut_mark_elements(tv[0], disp, mark, span);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        for (int i = 0; i < n; i++) {
            complete &= cut_mark_elements(tv[0], disp + i * old, mark, span);
        }
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR: {
        const MPI_Aint stride = MPI_COMBINER_VECTOR == comb ? iv[2] * old : av[0];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < iv[1]; j++) {
                complete &= cut_mark_elements(tv[0], disp + i * stride + j * old, mark, span);
            }
        }
        break;
    }
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
        for (int i = 0; i < n; i++) {
            const MPI_Aint d = MPI_COMBINER_INDEXED == comb ? iv[1 + n + i] * old : av[i];
            for (int j = 0; j < iv[1 + i]; j++) {
                complete &= cut_mark_elements(tv[0], disp + d + j * old, mark, span);
            }
        }
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int i = 0; i < n; i++) {
            const MPI_Aint d = MPI_COMBINER_INDEXED_BLOCK == comb ? iv[2 + i] * old : av[i];
            for (int j = 0; j < iv[1]; j++) {
                complete &= cut_mark_elements(tv[0], disp + d + j * old, mark, span);
            }
        }
        break;
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < n; i++) {
            MPI_Type_get_extent(tv[i], &lb, &old);
            for (int j = 0; j < iv[1 + i]; j++) {
                complete &= cut_mark_elements(tv[i], disp + av[i] + j * old, mark, span);
            }
        }
        break;
    default:
        complete = 0;
        break;
    }
    for (int i = 0; i < nd; i++) {
        int ni2, na2, nd2, comb2;
        MPI_Type_get_envelope(tv[i], &ni2, &na2, &nd2, &comb2);
        if (MPI_COMBINER_NAMED != comb2) {
            MPI_Type_free(&tv[i]);
        }
    }
    free(iv);
    free(av);
    free(tv);
    return complete;
}

/* What each byte of a buffer of count instances of type (placed at off in span bytes) is:
 * 1 data (a round trip unpack -> pack -> unpack carries it whatever the packing buffer held
 * before), 0 a hole (outside every element, and an unpack never writes it), 2 padding:
 * inside an element but not data (a long double's padding, which Open MPI 5.0 neither
 * packs nor, unpacking whole messages, writes: E-OMPI5-2 in docs/evidence.md), any value.  Found with
 * all-ones and all-zeros streams. */
static inline unsigned char *cut_byte_classes(MPI_Datatype type, int count, size_t span, MPI_Aint off,
                                   size_t stream_bytes)
{
    unsigned char *cls = malloc(span), *m[2], *st[2];
    for (int v = 0; v < 2; v++) {
        const unsigned char fill = v ? 0xFF : 0x00, data = v ? 0x00 : 0xFF;
        m[v] = malloc(span);
        st[v] = malloc(stream_bytes + 1);
        memset(m[v], fill, span);
        memset(st[v], data, stream_bytes + 1);
        if (count > 0 && stream_bytes > 0) {
            cut_unpack(st[v], stream_bytes, m[v] + off, count, type);
        }
    }
    /* The elements' bytes (from the type's constructors): bytes an unpack leaves alone
     * inside an element (Open MPI 5.0 writes 10 of a long double's 16) are its padding,
     * class 2, and bytes outside every element are holes, class 0, even where the
     * library's unpack writes them (Open MPI 5.0.7 does, after a resized type's element:
     * E-OMPI5-1).  A type with a constructor not followed here: class 0 where the unpack
     * writes nothing. */
    unsigned char *elem = calloc(span, 1);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(type, &lb, &ext);
    int known = 1;
    for (int k = 0; k < count; k++) {
        known &= cut_mark_elements(type, off + (MPI_Aint) k * ext, elem, span);
    }
    for (size_t i = 0; i < span; i++) {
        const int untouched = 0x00 == m[0][i] && 0xFF == m[1][i];
        cls[i] = known ? (elem[i] ? 2 : 0) : (untouched ? 0 : 2);
    }
    free(elem);
    for (int v = 0; v < 2 && count > 0 && stream_bytes > 0; v++) {
        const unsigned char fill = v ? 0xFF : 0x00;
        memset(st[v], fill, stream_bytes + 1);
        cut_pack(m[v] + off, count, type, st[v], stream_bytes + 1);
        memset(m[v], fill, span);
        cut_unpack(st[v], stream_bytes, m[v] + off, count, type);
    }
    for (size_t i = 0; i < span; i++) {
        if (2 == cls[i] && 0xFF == m[0][i] && 0x00 == m[1][i]) {
            cls[i] = 1;
        }
    }
    for (int v = 0; v < 2; v++) {
        free(m[v]);
        free(st[v]);
    }
    return cls;
}

/* The first byte where a and b differ among those of class 0 or 1; -1 when none. */
static inline ssize_t cut_first_diff(const unsigned char *a, const unsigned char *b,
                          const unsigned char *cls, size_t span)
{
    for (size_t i = 0; i < span; i++) {
        if (2 != cls[i] && a[i] != b[i]) {
            return (ssize_t) i;
        }
    }
    return -1;
}

/* Which bytes of a stream of count instances of type are data: a round trip pack(unpack(S))
 * gives them back whatever the packing buffer held (Open MPI 5.0 does not pack the padding
 * of a long double: E-OMPI5-2).  1 data, 0 not. */
static inline unsigned char *cut_stream_data(MPI_Datatype type, int count, size_t span,
                                             MPI_Aint off, size_t stream_bytes)
{
    unsigned char *data = malloc(stream_bytes + 1), *m = malloc(span), *st[2];
    for (int v = 0; v < 2; v++) {
        const unsigned char fill = v ? 0xFF : 0x00, val = v ? 0x00 : 0xFF;
        st[v] = malloc(stream_bytes + 1);
        memset(st[v], val, stream_bytes + 1);
        memset(m, fill, span);
        if (count > 0 && stream_bytes > 0) {
            cut_unpack(st[v], stream_bytes, m + off, count, type);
            memset(st[v], fill, stream_bytes + 1);
            cut_pack(m + off, count, type, st[v], stream_bytes + 1);
        }
    }
    for (size_t j = 0; j < stream_bytes; j++) {
        data[j] = 0xFF == st[0][j] && 0x00 == st[1][j];
    }
    free(st[0]);
    free(st[1]);
    free(m);
    return data;
}

#endif /* CUT_TYPES_H */
