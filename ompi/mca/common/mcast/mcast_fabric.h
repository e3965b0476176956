/*
 * Fabric coordinates from PMIx (mcast_fabric.c), without Open MPI headers.
 */
#ifndef MCAST_FABRIC_H
#define MCAST_FABRIC_H

#include <stdbool.h>
#include <stdint.h>

/* Whether fabric coordinates can be read at all: built with PMIx >= 4 and that
 * library initialised by Open MPI.  The same answer in every process of a job. */
bool mcast_fabric_available(void);

/* This process's node coordinates in the fabric (PMIX_FABRIC_COORDINATES) into
 * coord[0..nd-1] and the fabric's shape into shape[] (zeros when the resource manager
 * gives none); returns nd (0: none, or PMIx not available). */
#define MCAST_FABRIC_MAX_DIMS 6

int mcast_fabric_own_coords(int32_t *coord, int32_t *shape, int max);

/* Coordinates (or a shape) from one pmix_value_t: a pmix_coord_t, a pmix_geometry_t
 * (logical view first), an array of either or of uint32, or a string "8x8x4".
 * Returns the number of dimensions, 0 when the value is none of these. */
int mcast_fabric_parse(const void *pmix_value, int32_t *out, int max);

#endif /* MCAST_FABRIC_H */
