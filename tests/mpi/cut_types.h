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

/* What each byte of a buffer of count instances of type (placed at off in span bytes) is:
 * 1 data (a round trip unpack -> pack -> unpack carries it whatever the packing buffer held
 * before), 0 untouched (an unpack never writes it: a hole), 2 written but not data (the
 * padding of a long double that Open MPI 5.0 does not pack: E-OMPI5-2 in docs/evidence.md).  Found with
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
        int pos = 0;
        if (count > 0 && stream_bytes > 0) {
            MPI_Unpack(st[v], (int) stream_bytes, &pos, m[v] + off, count, type, MPI_COMM_SELF);
        }
    }
    for (size_t i = 0; i < span; i++) {
        cls[i] = (0x00 == m[0][i] && 0xFF == m[1][i]) ? 0 : 2;
    }
    for (int v = 0; v < 2 && count > 0 && stream_bytes > 0; v++) {
        const unsigned char fill = v ? 0xFF : 0x00;
        int pos = 0;
        memset(st[v], fill, stream_bytes + 1);
        MPI_Pack(m[v] + off, count, type, st[v], (int) stream_bytes + 1, &pos, MPI_COMM_SELF);
        memset(m[v], fill, span);
        pos = 0;
        MPI_Unpack(st[v], (int) stream_bytes, &pos, m[v] + off, count, type, MPI_COMM_SELF);
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
        int pos = 0;
        if (count > 0 && stream_bytes > 0) {
            MPI_Unpack(st[v], (int) stream_bytes, &pos, m + off, count, type, MPI_COMM_SELF);
            memset(st[v], fill, stream_bytes + 1);
            pos = 0;
            MPI_Pack(m + off, count, type, st[v], (int) stream_bytes + 1, &pos, MPI_COMM_SELF);
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
