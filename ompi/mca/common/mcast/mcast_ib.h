/*
 * InfiniBand UD multicast backend of the multicast transport (mcast_mc.h): librdmacm
 * joins the group (rdma_join_multicast on the IPoIB address of an active IB port; the
 * group is the IPv4 address mcast_udp_group() picks, mapped to an MGID by rdma_cm), one
 * UD QP attached to it, datagrams of the port's active MTU (chunk = MTU - 40), receive
 * buffers pre-posted (GRH + MTU each; the window is capped at half of them).
 * Built when rdma-core's headers are present (MCAST_HAVE_VERBS); declines at open, with
 * the reason, when no device has an active InfiniBand port.
 */
#ifndef MCAST_IB_H
#define MCAST_IB_H

#include "mcast_mc.h"

/* Collective.  OMPI_SUCCESS with *mc, or an error (same on every rank) with why filled. */
int mcast_ib_open(struct ompi_communicator_t *comm, const mcast_mc_params_t *params, mcast_mc_t **mc,
                  char *why, size_t whylen);

/* Its local setup, for mcast_mc_open_start (the open without waiting). */
void mcast_ib_setup_fn(struct ompi_communicator_t *comm, const mcast_mc_params_t *params,
                       const mcast_mc_ident_t *id, mcast_mc_setup_t *out);

#endif /* MCAST_IB_H */
