/*
 * Node locality of a communicator, from what the runtime already gave every process
 * (no communication): which ranks share a node, whether all of them do, and the
 * node-major ordering (ranks grouped by node, nodes in order of their lowest rank)
 * that the tree builders take as their chain.  Every rank computes the same result.
 */
#ifndef MCAST_LOCALITY_H
#define MCAST_LOCALITY_H

#include "ompi_config.h"
#include <stdbool.h>
#include "ompi/communicator/communicator.h"

typedef struct mcast_locality {
    int n;
    int nnodes;          /* distinct nodes, -1 if host names are unknown */
    bool all_local;      /* every rank on this node (shared memory only) */
    int *ordering;       /* [n] chain: node-major, or identity when nnodes < 2 */
    const char *ordering_name; /* "node-major" or "identity" */
} mcast_locality_t;

/* NULL on allocation failure. */
mcast_locality_t *mcast_locality_discover(struct ompi_communicator_t *comm);
void mcast_locality_free(void *locality);

#endif /* MCAST_LOCALITY_H */
