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

#endif /* CUT_TYPES_H */
