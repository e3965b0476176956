/*
 * Self-calibration across nodes (mcastcore/include/mcast_planner.h, "Self-calibration";
 * docs/machine-model.md): the ping-pongs between the core's pairs of nodes over the PML,
 * and the agreement that gives every rank the same measurements to fit.
 */
#ifndef MCAST_CALIB_H
#define MCAST_CALIB_H

#include "ompi_config.h"

#include <stddef.h>

#include "mcast_planner.h"
#include "ompi/communicator/communicator.h"

/* Blocking and collective: every rank of comm calls it at the same call (a blocking
 * broadcast), node_of[n] the node index of each rank (the same on every rank), topology
 * and hosts[n] as the plans take them (NULL: none; where they name routes of different
 * lengths the probe also fits the per-link latency, where they have links between
 * switches their capacity: mcast_probe_pairs_routed).  On
 * OMPI_SUCCESS *model is the built-in model with the measured network keys; else *why
 * says what failed (the same on every rank) and *model is untouched.  *cost_us: this
 * rank's time in it. */
int mcast_calib_run(struct ompi_communicator_t *comm, const int *node_of,
                    const pm_topology_t *topology, const char *const *hosts,
                    mcast_machine_t *model, double *cost_us, char *why, size_t len);

/* The job's measured model: the first one this process measured, by either component
 * (kept for the rest of the job; later measurements do not replace it).  mcast_calib_known returns its digest
 * (0: none yet) and copies it into *out when out is not NULL; it never blocks beyond a
 * short lock (it runs inside the nonblocking exchange too). */
void mcast_calib_remember(const mcast_machine_t *model);
uint64_t mcast_calib_known(mcast_machine_t *out);

/* This .so's store of the job's model, for its component's common parameters
 * (mcast_common_params_t.job_store): where both components are loaded they use one. */
struct mcast_job_store *mcast_calib_own_store(void);

#endif /* MCAST_CALIB_H */
