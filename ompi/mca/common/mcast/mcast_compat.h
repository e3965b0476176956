/*
 * Compatibility layer over Open MPI's coll component API.
 *
 *   coll API 2.0.0  Open MPI 4.0/4.1   mca_coll_base_component_2_0_0_t, int counts
 *   coll API 2.4.0  Open MPI 5.0       same bcast signature, module struct 2_4_0
 *   coll API 3.0.0  Open MPI main/6.0  size_t counts in the big-count ABI
 *
 * Only 2.0.0 is built and tested today (configure refuses the others); the macros
 * below are the single place the glue names version-specific types, so adding
 * 2.4.0/3.0.0 is a matter of adding branches here.
 */
#ifndef MCAST_COMPAT_H
#define MCAST_COMPAT_H

#include "ompi_config.h"
#include "ompi/mca/coll/coll.h"

#if defined(MCA_COLL_BASE_VERSION_2_0_0)
#define MCAST_COLL_BASE_VERSION MCA_COLL_BASE_VERSION_2_0_0
typedef mca_coll_base_component_2_0_0_t mcast_coll_component_t;
typedef int mcast_count_t;
#else
#error "unsupported Open MPI coll component API (see mcast_compat.h)"
#endif

#endif /* MCAST_COMPAT_H */
