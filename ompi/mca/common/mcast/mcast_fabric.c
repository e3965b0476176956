/*
 * This process's fabric coordinates from PMIx (PMIX_FABRIC_COORDINATES, and the
 * fabric's shape from PMIX_FABRIC_SHAPE or PMIX_FABRIC_SHAPE_STRING), where the
 * resource manager gives them.  Kept apart from the Open MPI headers: it talks to the
 * PMIx library directly, and only when that library is the one Open MPI initialised
 * (PMIx_Initialized(): Open MPI's external-PMIx component shares libpmix; with an
 * internal PMIx the copy we link is not initialised and nothing is read).
 */
#include "mcast_fabric.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcast_build_config.h"

#if MCAST_HAVE_PMIX
#include <pmix.h>
#endif

/* PMIx >= 4 (fabric keys, pmix_geometry_t) */
#if MCAST_HAVE_PMIX && defined(PMIX_FABRIC_COORDINATES) && defined(PMIX_GEOMETRY) && \
    defined(PMIX_COORD_LOGICAL_VIEW)

/* First coordinate of a value: a pmix_coord_t, a pmix_geometry_t (logical view
 * preferred), an array of either, or an array of uint32. */
static int from_coord(const pmix_coord_t *c, int32_t *coord, int max)
{
    if (NULL == c || 0 == c->dims || c->dims > (size_t) max || NULL == c->coord) {
        return 0;
    }
    for (size_t d = 0; d < c->dims; d++) {
        coord[d] = (int32_t) c->coord[d];
    }
    return (int) c->dims;
}

static int from_geometry(const pmix_geometry_t *g, int32_t *coord, int max)
{
    if (NULL == g || 0 == g->ncoords || NULL == g->coordinates) {
        return 0;
    }
    for (size_t i = 0; i < g->ncoords; i++) { /* the logical view when there is one */
        if (PMIX_COORD_LOGICAL_VIEW == g->coordinates[i].view) {
            return from_coord(&g->coordinates[i], coord, max);
        }
    }
    return from_coord(&g->coordinates[0], coord, max);
}

static int from_array(const pmix_data_array_t *a, int32_t *out, int max)
{
    if (NULL == a || 0 == a->size || NULL == a->array) {
        return 0;
    }
    switch (a->type) {
    case PMIX_COORD:
        return from_coord((const pmix_coord_t *) a->array, out, max);
    case PMIX_GEOMETRY:
        return from_geometry((const pmix_geometry_t *) a->array, out, max);
    case PMIX_UINT32:
        if (a->size > (size_t) max) {
            return 0;
        }
        for (size_t d = 0; d < a->size; d++) {
            out[d] = (int32_t) ((const uint32_t *) a->array)[d];
        }
        return (int) a->size;
    default:
        return 0;
    }
}

static int from_value(const pmix_value_t *v, int32_t *out, int max)
{
    switch (v->type) {
    case PMIX_COORD:
        return from_coord(v->data.coord, out, max);
    case PMIX_GEOMETRY:
        return from_geometry(v->data.geometry, out, max);
    case PMIX_DATA_ARRAY:
        return from_array(v->data.darray, out, max);
    case PMIX_STRING: { /* "8x8x4": numbers >= 1 joined by single x's */
        int nd = 0;
        const char *p = v->data.string;
        while (NULL != p && nd < max) {
            char *end = NULL;
            if (*p < '0' || *p > '9') {
                return 0;
            }
            long x = strtol(p, &end, 10);
            if (x < 1 || x > 1 << 20) {
                return 0;
            }
            out[nd++] = (int32_t) x;
            if ('\0' == *end) {
                return nd;
            }
            if ('x' != *end && 'X' != *end) {
                return 0;
            }
            p = end + 1;
        }
        return 0;
    }
    default:
        return 0;
    }
}

int mcast_fabric_parse(const void *pmix_value, int32_t *out, int max)
{
    return NULL == pmix_value ? 0 : from_value((const pmix_value_t *) pmix_value, out, max);
}

static int get(const pmix_proc_t *me, const char *key, int32_t *out, int max)
{
    pmix_info_t info;
    pmix_value_t *val = NULL;
    bool yes = true;
    int nd = 0;
    PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &yes, PMIX_BOOL); /* no server round trip */
    if (PMIX_SUCCESS == PMIx_Get(me, key, &info, 1, &val) && NULL != val) {
        nd = from_value(val, out, max);
        PMIX_VALUE_RELEASE(val);
    }
    PMIX_INFO_DESTRUCT(&info);
    return nd;
}

bool mcast_fabric_available(void)
{
    return PMIx_Initialized();
}

int mcast_fabric_own_coords(int32_t *coord, int32_t *shape, int max)
{
    pmix_proc_t me;
    if (!PMIx_Initialized() || PMIX_SUCCESS != PMIx_Init(&me, NULL, 0)) {
        return 0;
    }
    int nd = get(&me, PMIX_FABRIC_COORDINATES, coord, max);
    if (nd > 0) {
        int ns = get(&me, PMIX_FABRIC_SHAPE, shape, max);
        if (ns != nd) {
            ns = get(&me, PMIX_FABRIC_SHAPE_STRING, shape, max);
        }
        if (ns != nd) {
            memset(shape, 0, sizeof(*shape) * (size_t) max); /* shape unknown */
        }
    }
    PMIx_Finalize(NULL, 0); /* drops our reference only */
    return nd;
}

#else

bool mcast_fabric_available(void)
{
    return false;
}

int mcast_fabric_parse(const void *pmix_value, int32_t *out, int max)
{
    (void) pmix_value;
    (void) out;
    (void) max;
    return 0;
}

int mcast_fabric_own_coords(int32_t *coord, int32_t *shape, int max)
{
    (void) coord;
    (void) shape;
    (void) max;
    return 0;
}

#endif
