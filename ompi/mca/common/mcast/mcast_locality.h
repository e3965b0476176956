/*
 * Where the ranks of a communicator are, and the chain the tree builders take.
 *
 * At communicator creation (no communication): whether every rank is on this node
 * (Open MPI's locality flags, symmetric, so every rank agrees).
 * At the first broadcast (all ranks are in that call): every rank's small record --
 * its own host name (gethostname), its package/NUMA/core from its PMIx locality string,
 * its fabric coordinates -- travels in the module's first exchange (mcast_module.c,
 * nonblocking), so that every rank derives the chain from identical data.  In order of
 * preference:
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
#define MCAST_LOCALITY_MAX_DIMS 6 /* = MCAST_FABRIC_MAX_DIMS (mcast_fabric.h) */

/* What each rank contributes to the exchange (plain bytes, the same layout everywhere). */
typedef struct mcast_locality_record {
    char host[MCAST_HOST_NAME_LEN];
    int32_t package_id, numa_id, core_id; /* -1: unknown (unbound) */
    int32_t fab_ndims;                    /* PMIx fabric coordinates: 0 = none */
    int32_t fab_coord[MCAST_LOCALITY_MAX_DIMS];
    int32_t fab_shape[MCAST_LOCALITY_MAX_DIMS]; /* 0 = unknown */
    int32_t yields;                       /* Open MPI yields when idle in this process */
    int32_t cores;                        /* this node's online cores (sysconf) */
    int32_t tcp;                          /* this process reaches other nodes by TCP only */
} mcast_locality_record_t;

typedef struct mcast_locality {
    int n;
    bool all_local;      /* every rank on this node (shared memory only) */
    bool discovered;     /* the allgather below has run */
    int nnodes;          /* distinct hosts (after discovery) */
    int fullest_node_ranks; /* ranks on the node that holds the most (after discovery) */
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
    mcast_locality_record_t *records; /* [n] every rank's record once exchanged, or NULL */
    /* Agreed from the records (until then this process's own values): some rank yields
     * when idle (its node runs more ranks than cores: a job's ranks agree on it, the
     * ranks of a communicator that merges jobs, as MPI_Comm_spawn's, may not), and then
     * the fewest online cores of a rank's node.  What the plans depend on (the machine
     * model's oversubscribed costs, the segment's slot, verification) reads these, so
     * every rank plans alike where the ranks' own values differ.  tcp: some rank reaches
     * other nodes by TCP only (mcast_network_tcp; the built-in model's rule for TCP).
     * E-AGREE-1: a digest of these left merged communicators to the module below. */
    bool oversubscribed;
    int cores;
    bool tcp;
} mcast_locality_t;

/* At comm_query: locality flags only.  NULL on allocation failure. */
mcast_locality_t *mcast_locality_new(struct ompi_communicator_t *comm);
void mcast_locality_free(void *locality);

/* This rank's record (no communication; PMIx lookups of its own data only). */
void mcast_locality_record_self(mcast_locality_record_t *rec);

/* The room for every rank's record and node (node_of), taken before the module's exchange
 * so that a rank without it says so in its own record (false: no memory). */
bool mcast_locality_reserve(mcast_locality_t *loc);
/* Every rank's node from the records all[n] into node_of[n]: dense ids by the host names'
 * first appearance in rank order (what discovery keeps in loc->node_of); returns how many
 * nodes.  Allocates nothing. */
int mcast_locality_nodes_of(const mcast_locality_record_t *all, int n, int *node_of);
/* Every rank's record, as the module's exchange gathered them (copied; rank order: rank
 * r's at first + r * stride).  OMPI_ERR_OUT_OF_RESOURCE when the room was not reserved
 * and cannot be made. */
int mcast_locality_set_records(mcast_locality_t *loc, const void *first, size_t stride);

/* At the first broadcast: build the chain from the exchanged records (no communication
 * then; without them, as a tool without the module would: one blocking allgather).
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

/* A node's shared segment for the planner input (shm on one node, twolevel's intra=shm
 * across nodes), from coll/kbinomial's parameters (chunk, largest chunk, slots): its slot
 * (mcast_shm_slot_bytes_for: the chunk where every rank of the fullest node has a core,
 * max_chunk where the node's ranks outnumber its cores) and the cores the node's ranks
 * share (0 = one each), all from values every rank agreed in the exchange.  coll/pathmc
 * offers it too: kbinomial's segment plans are among the candidates it compares with. */
size_t mcast_locality_slot_bytes(const mcast_locality_t *loc, size_t chunk_bytes,
                                 size_t max_chunk_bytes);
void mcast_locality_segment_input(const mcast_locality_t *loc, size_t chunk_bytes,
                                  size_t max_chunk_bytes, int slots, struct mcast_plan_input *in);

/* Whether the communicator spans nodes (discovered) and the machine model is the built-in
 * one (no machine file): where the built-in model describes no network of the user's, so
 * the components measure it (self-calibration) or, over TCP, defer to Open MPI's own
 * choice.  Every input is agreed: the machine file by the parameter digest, the nodes by
 * the exchange. */
struct mcast_machine;
bool mcast_locality_across_builtin(const mcast_locality_t *loc, const struct mcast_machine *machine);

/* Every rank's host in the network topology's names where a topology names them (the
 * plans' and the probe's routes), else NULL. */
const char *const *mcast_locality_topo_hosts(const mcast_locality_t *loc);

/* "coll:<comp>: comm=<cid> size=<n> nodes=<k> ordering=<name> chain=<r0>,... discovery_us=<t>" */
void mcast_print_chain(const char *component, struct ompi_communicator_t *comm,
                       const mcast_locality_t *loc);

#endif /* MCAST_LOCALITY_H */
