/*
 * Compatibility layer over Open MPI's coll component API.
 *
 *   coll API 2.0.0  Open MPI 4.0/4.1   mca_coll_base_component_2_0_0_t, int counts
 *   coll API 2.4.0  Open MPI 5.0       same bcast signature, module struct 2_4_0
 *   coll API 3.0.0  Open MPI main/6.0  size_t counts in the big-count ABI
 *
 * 2.0.0 and 2.4.0 are built and tested (configure refuses 3.0.0); the macros below are
 * the single place the glue names version-specific types and features.
 *   MCAST_HAVE_BCAST_INIT   the module has coll_bcast_init (persistent MPI_Bcast_init)
 */
#ifndef MCAST_COMPAT_H
#define MCAST_COMPAT_H

#include "ompi_config.h"
#include "ompi/mca/coll/coll.h"

#if defined(MCA_COLL_BASE_VERSION_2_4_0)
#define MCAST_COLL_BASE_VERSION MCA_COLL_BASE_VERSION_2_4_0
typedef mca_coll_base_component_2_4_0_t mcast_coll_component_t;
typedef int mcast_count_t;
#define MCAST_HAVE_BCAST_INIT 1
#elif defined(MCA_COLL_BASE_VERSION_2_0_0)
#define MCAST_COLL_BASE_VERSION MCA_COLL_BASE_VERSION_2_0_0
typedef mca_coll_base_component_2_0_0_t mcast_coll_component_t;
typedef int mcast_count_t;
#define MCAST_HAVE_BCAST_INIT 0
#else
#error "unsupported Open MPI coll component API (see mcast_compat.h)"
#endif

/* The component structure every .so exports (OMPI_MODULE_DECLSPEC before 5.0). */
#if defined(OMPI_MODULE_DECLSPEC)
#define MCAST_MODULE_DECLSPEC OMPI_MODULE_DECLSPEC
#else
#define MCAST_MODULE_DECLSPEC __opal_attribute_visibility__("default")
#endif

/* Open MPI 5 moved the thread and PMIx headers and gave communicators an extended id
 * (the local index may differ among ranks there, the extended id never does). */
#include "ompi/communicator/communicator.h"
#if OMPI_MAJOR_VERSION >= 5
#include "opal/mca/threads/mutex.h"
#define MCAST_PMIX_INTERNAL_H "opal/mca/pmix/pmix-internal.h"
#define MCAST_PMIX_LOCALITY_STRING PMIX_LOCALITY_STRING
#define MCAST_PMIX_STRING PMIX_STRING
#define MCAST_PMIX_OK PMIX_SUCCESS
#else
#define MCAST_PMIX_INTERNAL_H "opal/mca/pmix/pmix.h"
#define MCAST_PMIX_LOCALITY_STRING OPAL_PMIX_LOCALITY_STRING
#define MCAST_PMIX_STRING OPAL_STRING
#define MCAST_PMIX_OK OPAL_SUCCESS
#endif

/* What Open MPI's MPI_Ibcast and MPI_Bcast_init write after the ompi_request_t of the
 * request a coll module returns: they take every collective request for an
 * ompi_coll_base_nbc_request_t (its header cannot be included with Debian's devel
 * headers: it pulls a Fortran header they lack).  A callback, its data, the retained
 * objects and, from 5.0 on, the arrays its completion callback frees (up to the first
 * NULL: kept zero, so it frees nothing of ours).  Follows ompi_request_t in every request
 * of ours; zeroed at construction. */
typedef struct {
    void *cb;
    void *cb_data;
#if OMPI_MAJOR_VERSION >= 5
    struct {
        void *p[2];
        int n[2];
    } refcounted;
    void *release_arrays[7]; /* OMPI_REQ_NB_RELEASE_ARRAYS */
#else
    void *objs[2];
#endif
} mcast_nbc_tail_t;

/* The communicator's id, the same on every rank (messages and multicast groups carry it). */
static inline uint32_t mcast_comm_id(const struct ompi_communicator_t *comm)
{
#if OMPI_MAJOR_VERSION >= 5
    const ompi_comm_extended_cid_t x = ompi_comm_get_extended_cid(comm);
    const uint64_t h = x.cid_base ^ (x.cid_sub.u64 * 0x9e3779b97f4a7c15ull);
    return 0 == x.cid_base ? (uint32_t) x.cid_sub.u64 ^ (uint32_t) (x.cid_sub.u64 >> 32)
                           : (uint32_t) (h ^ (h >> 32));
#else
    return ompi_comm_get_cid((struct ompi_communicator_t *) comm);
#endif
}

#endif /* MCAST_COMPAT_H */
