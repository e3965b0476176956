/*
 * IP multicast backend of the multicast transport (mcast_mc.h): one UDP socket per
 * communicator, joined to a group chosen from params->group_range by a hash of (job,
 * context id), on the interface named by params->interface (name or CIDR) or else the
 * interface of the route to the group (else the only multicast-capable interface);
 * TTL params->ttl, loopback only when another rank of the communicator shares the node,
 * nonblocking, receive buffer sized from the window (SO_RCVBUFFORCE when allowed; the
 * window shrinks to what every rank's buffer holds).  Chunk = interface MTU - 20 - 8 - 40.
 */
#ifndef MCAST_UDP_H
#define MCAST_UDP_H

#include "mcast_mc.h"

/* Collective.  OMPI_SUCCESS with *mc, or an error (same on every rank) with why filled. */
int mcast_udp_open(struct ompi_communicator_t *comm, const mcast_mc_params_t *params, mcast_mc_t **mc,
                   char *why, size_t whylen);

/* The group address (network byte order) a communicator of job `job` with context id
 * `ctx` uses in `range`; 0, or -1 for a range that is not a multicast CIDR (/4../30). */
int mcast_udp_group(const char *range, uint64_t job, uint32_t ctx, uint32_t *addr_be);

/* Its local setup, for mcast_mc_open_start (the open without waiting). */
void mcast_udp_setup_fn(struct ompi_communicator_t *comm, const mcast_mc_params_t *params,
                        const mcast_mc_ident_t *id, mcast_mc_setup_t *out);

#endif /* MCAST_UDP_H */
