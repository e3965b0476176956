/*
 * Where the ranks of a communicator are, and the chain the tree builders take.
 *
 * At communicator creation (no communication): whether every rank is on this node
 * (Open MPI's locality flags, symmetric, so every rank agrees).
 * At the first broadcast (all ranks are in that call): one allgather of a small
 * record per rank -- its own host name (gethostname) and its package/NUMA/core from
 * its PMIx locality string -- so that every rank derives the chain from identical
 * data.  In order of preference:
 *   topology file    DOR on tori, fat-tree labels, POC on up*-down* (pathmc core),
 *                    relative to each broadcast's root
 *   PMIx fabric      PMIX_FABRIC_COORDINATES of every rank's node (with
 *                    PMIX_FABRIC_SHAPE: a torus; without: a mesh), DOR as above
 *   hierarchy        node-major, then package (socket), NUMA node, core
 *   node-major       ranks grouped by host
 *   identity
 */
#ifndef MCAST_LOCALITY_H
#define MCAST_LOCALITY_H

#include "ompi_config.h"
#include <stdbool.h>
#include "ompi/communicator/communicator.h"

#define MCAST_HOST_NAME_LEN 64

typedef struct mcast_locality {
    int n;
    bool all_local;      /* every rank on this node (shared memory only) */
    bool discovered;     /* the allgather below has run */
    int nnodes;          /* distinct hosts (after discovery) */
    int *ordering;       /* [n] absolute chain (identity before discovery) */
    int *node_of;        /* [n] node index of each rank (after discovery) */
    const char *ordering_name; /* "dor", "tour", "fattree", "hierarchy", "node-major", "identity" */
    double discovery_us; /* what discovery cost this process (allgather included) */
    struct pm_topology *topo;  /* the network topology when one names every host */
    const char *network;       /* where topo came from: "topology_file", "pmix" (or NULL) */
    bool topo_cached;          /* topo belongs to mcast_topo_cache (shared, never freed here) */
    uint64_t topology_digest;  /* kb_digest64 of the topology file's bytes (0: none/unreadable) */
    char *host_names;          /* [n * MCAST_HOST_NAME_LEN] */
    const char **hosts;        /* [n] pointers into host_names */
} mcast_locality_t;

/* At comm_query: locality flags only.  NULL on allocation failure. */
mcast_locality_t *mcast_locality_new(struct ompi_communicator_t *comm);
void mcast_locality_free(void *locality);

/* At the first broadcast, collectively: exchange the records and build the chain.
 * topology_file may be NULL or "".  The file is parsed once per process
 * (mcast_topo_cache.h; its digest in loc->topology_digest).  A topology that cannot
 * be used (bad file, a host it does not name) is reported once per process (by a
 * communicator's rank 0) and the hierarchy is used instead;
 * every rank takes the same decision because every rank sees the same data. */
int mcast_locality_discover(mcast_locality_t *loc, struct ompi_communicator_t *comm,
                            const char *component, const char *topology_file);

/* Drop the per-process place cache and topology cache (component close). */
void mcast_locality_cache_fini(void);

/* The chain for a broadcast from `root` (root first) into chain[n]. */
int mcast_locality_chain(const mcast_locality_t *loc, int root, int *chain);

/* The planner input's communicator part: size, root, bytes, the chain for `root` (into
 * chain[n]), the ranks' nodes and locality.  The caller adds machine, forced, rules,
 * torus. */
struct mcast_plan_input;
void mcast_locality_input(const mcast_locality_t *loc, int component, int root, size_t bytes,
                          struct mcast_plan_input *in, int *chain);

/* "coll:<comp>: comm=<cid> size=<n> nodes=<k> ordering=<name> chain=<r0>,... discovery_us=<t>" */
void mcast_print_chain(const char *component, struct ompi_communicator_t *comm,
                       const mcast_locality_t *loc);

#endif /* MCAST_LOCALITY_H */
