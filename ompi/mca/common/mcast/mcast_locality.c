/* Where the ranks are: see mcast_locality.h. */
#include "mcast_locality.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/proc/proc.h"
#include "opal/class/opal_hash_table.h"
#include "opal/mca/hwloc/base/base.h"
#include "ompi/mca/common/mcast/mcast_compat.h"
#include MCAST_PMIX_INTERNAL_H
#include "pathmc.h"
#include "mcast_fabric.h"
#include "mcast_glue.h"
#include "mcast_planner.h"
#include "mcast_shm.h"
#include "mcast_topo_cache.h"

_Static_assert(MCAST_LOCALITY_MAX_DIMS == MCAST_FABRIC_MAX_DIMS, "one record layout");

/* This node's online cores (sysconf reads a file each time: once per process). */
static int own_cores(void)
{
    static long n = 0;
    if (0 == n) {
        n = sysconf(_SC_NPROCESSORS_ONLN);
    }
    return n > 0 && n < 1 << 20 ? (int) n : 1;
}

/* loc->oversubscribed, loc->cores and loc->tcp from every rank's record (mcast_locality.h). */
static void agree_cores(mcast_locality_t *loc, const mcast_locality_record_t *all)
{
    loc->oversubscribed = loc->tcp = false;
    loc->cores = 1 << 20;
    for (int r = 0; r < loc->n; r++) {
        loc->oversubscribed = loc->oversubscribed || 0 != all[r].yields;
        loc->tcp = loc->tcp || 0 != all[r].tcp;
        if (all[r].cores >= 1 && all[r].cores < loc->cores) {
            loc->cores = all[r].cores;
        }
    }
    if (loc->cores >= 1 << 20) {
        loc->cores = 1;
    }
}

mcast_locality_t *mcast_locality_new(struct ompi_communicator_t *comm)
{
    const int n = ompi_comm_size(comm);
    mcast_locality_t *loc = calloc(1, sizeof(*loc));
    if (NULL == loc || NULL == (loc->ordering = malloc(sizeof(int) * (size_t) n))) {
        mcast_locality_free(loc);
        return NULL;
    }
    loc->n = n;
    loc->all_local = true;
    for (int r = 0; r < n; r++) {
        ompi_proc_t *p = ompi_comm_peer_lookup(comm, r);
        if (NULL == p || !OPAL_PROC_ON_LOCAL_NODE(p->super.proc_flags)) {
            loc->all_local = false;
        }
        loc->ordering[r] = r;
    }
    loc->nnodes = loc->all_local ? 1 : -1;
    loc->fullest_node_ranks = loc->all_local ? n : 1;
    loc->ordering_name = "identity";
    loc->cores = 1; /* (and not oversubscribed, no TCP: nothing plans before the records) */
    return loc;
}

void mcast_locality_free(void *locality)
{
    mcast_locality_t *loc = locality;
    if (NULL != loc) {
        if (!loc->topo_cached) {
            pm_topology_free(loc->topo);
        }
        free((void *) loc->hosts);
        free(loc->host_names);
        free(loc->ordering);
        free(loc->node_of);
        free(loc->records);
        free(loc);
    }
}

/* A process's package, NUMA node and core from its PMIx locality string
 * ("SK0:L30:L20:L10:CR3:HWT3", NUMA as "NM0"); -1 where unknown.  The server gives
 * every process on a node the strings of all of that node's processes. */
static void place_of_modex(const opal_process_name_t *name, mcast_locality_record_t *rec)
{
    char *str = NULL;
    int rc;
    rec->package_id = rec->numa_id = rec->core_id = -1;
    OPAL_MODEX_RECV_VALUE_OPTIONAL(rc, MCAST_PMIX_LOCALITY_STRING, name, &str, MCAST_PMIX_STRING);
    if (MCAST_PMIX_OK != rc || NULL == str) {
        return;
    }
    for (char *tok = str; NULL != tok && '\0' != *tok;) {
        int v;
        if (1 == sscanf(tok, "SK%d", &v)) {
            rec->package_id = v;
        } else if (1 == sscanf(tok, "NM%d", &v)) {
            rec->numa_id = v;
        } else if (1 == sscanf(tok, "CR%d", &v)) {
            rec->core_id = v;
        }
        tok = strchr(tok, ':');
        tok = (NULL != tok) ? tok + 1 : NULL;
    }
    free(str);
}

/* A process's place never changes, and a modex lookup costs tens of microseconds (a
 * hand-off to the PMIx thread): places are cached per process name for the life of
 * the component (mcast_locality_cache_fini at close). */
static opal_hash_table_t *place_cache = NULL;
static opal_mutex_t place_lock = OPAL_MUTEX_STATIC_INIT;
/* This process's record never changes either, and its fabric coordinates open a PMIx
 * session: made once per process (mcast_module_new, E-FIRST-1). */
static mcast_locality_record_t self_record;
static bool self_known = false;

static uint64_t name_key(const opal_process_name_t *name)
{
    uint64_t key;
    memcpy(&key, name, sizeof(key) < sizeof(*name) ? sizeof(key) : sizeof(*name));
    return key;
}

static void place_of(const opal_process_name_t *name, mcast_locality_record_t *rec)
{
    const uint64_t key = name_key(name);
    void *packed = NULL;
    OPAL_THREAD_LOCK(&place_lock);
    if (NULL == place_cache && NULL != (place_cache = OBJ_NEW(opal_hash_table_t)) &&
        OPAL_SUCCESS != opal_hash_table_init(place_cache, 256)) {
        OBJ_RELEASE(place_cache);
        place_cache = NULL;
    }
    bool hit = NULL != place_cache &&
               OPAL_SUCCESS == opal_hash_table_get_value_uint64(place_cache, key, &packed);
    OPAL_THREAD_UNLOCK(&place_lock);
    if (hit) { /* 16 bits each, +1 so that unknown (-1) is 0 */
        const uintptr_t v = (uintptr_t) packed;
        rec->package_id = (int32_t) ((v >> 32) & 0xffff) - 1;
        rec->numa_id = (int32_t) ((v >> 16) & 0xffff) - 1;
        rec->core_id = (int32_t) (v & 0xffff) - 1;
        return;
    }
    place_of_modex(name, rec);
    if (rec->package_id < 0xffff && rec->numa_id < 0xffff && rec->core_id < 0xffff) {
        const uintptr_t v = ((uintptr_t) (rec->package_id + 1) << 32) |
                            ((uintptr_t) (rec->numa_id + 1) << 16) | (uintptr_t) (rec->core_id + 1);
        OPAL_THREAD_LOCK(&place_lock);
        if (NULL != place_cache) {
            opal_hash_table_set_value_uint64(place_cache, key, (void *) v);
        }
        OPAL_THREAD_UNLOCK(&place_lock);
    }
}

void mcast_locality_cache_fini(void)
{
    mcast_topo_cache_fini();
    OPAL_THREAD_LOCK(&place_lock);
    self_known = false;
    if (NULL != place_cache) {
        OBJ_RELEASE(place_cache);
        place_cache = NULL;
    }
    OPAL_THREAD_UNLOCK(&place_lock);
}

/* Take a topology as the network when it orders every host; false (rank 0 says why,
 * once per process and source) otherwise.  `what` names the source in messages and in
 * loc->network.  A cached topology (topology file) is shared, any other is owned. */
static bool use_topology(struct ompi_communicator_t *comm, const char *component, const char *what,
                         const char *path, pm_topology_t *topo, bool cached, char *err,
                         size_t errlen, mcast_locality_t *loc)
{
    if (NULL == topo ||
        PM_OK != pm_order_hosts(topo, PM_ORDER_AUTO, loc->n, loc->hosts, -1, loc->ordering, err,
                                errlen)) {
        char key[512];
        snprintf(key, sizeof(key), "%s not used: %s%s%s", component, what, path ? " " : "",
                 path ? path : "");
        if (0 == ompi_comm_rank(comm) && mcast_warn_once(key)) {
            fprintf(stderr, "coll:%s: comm=%u: %s%s%s not used: %s (reported once per process)\n",
                    component, mcast_comm_id(comm), what, path ? " " : "", path ? path : "",
                    err);
        }
        if (!cached) {
            pm_topology_free(topo);
        }
        return false;
    }
    loc->topo_cached = cached;
    loc->ordering_name = pm_order_name(pm_order_auto(topo));
    loc->topo = topo;
    loc->network = what;
    return true;
}

/* The network from every rank's PMIx fabric coordinates (pathmc core): a torus when
 * every rank got the same shape, else the smallest mesh; NULL (err says why) when
 * some rank has none or the dimensions differ. */
static pm_topology_t *fabric_topology(const mcast_locality_record_t *all, const char **hosts,
                                      int n, char *err, size_t errlen)
{
    const int nd = all[0].fab_ndims;
    int shape[MCAST_FABRIC_MAX_DIMS];
    bool shaped = true;
    pm_topology_t *topo = NULL;
    int *coords = malloc(sizeof(int) * (size_t) n * MCAST_FABRIC_MAX_DIMS);
    if (NULL == coords) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    for (int r = 0; r < n; r++) {
        if (all[r].fab_ndims != nd) {
            snprintf(err, errlen, "rank %d has %d fabric dimensions, rank 0 %d", r,
                     (int) all[r].fab_ndims, nd);
            free(coords);
            return NULL;
        }
        for (int d = 0; d < nd; d++) {
            coords[r * nd + d] = all[r].fab_coord[d];
            shaped = shaped && all[r].fab_shape[d] == all[0].fab_shape[d];
        }
    }
    for (int d = 0; d < nd; d++) {
        shape[d] = all[0].fab_shape[d];
        shaped = shaped && shape[d] >= 2;
    }
    if (PM_OK != pm_topology_from_coords(n, hosts, nd, coords, shaped ? shape : NULL, &topo, err,
                                         errlen)) {
        topo = NULL;
    }
    free(coords);
    return topo;
}

/* What Open MPI decides about this process: read at each record, not kept with the place
 * (the first record is made inside MPI_Init, and Open MPI 4.1 sets yield_when_idle after
 * it has selected MPI_COMM_WORLD's collectives). */
static void record_process(mcast_locality_record_t *rec)
{
    rec->yields = mcast_yield_when_idle() ? 1 : 0;
    rec->cores = own_cores();
    rec->tcp = mcast_network_tcp() ? 1 : 0;
}

void mcast_locality_record_self(mcast_locality_record_t *rec)
{
    OPAL_THREAD_LOCK(&place_lock);
    const bool known = self_known;
    if (known) {
        *rec = self_record;
    }
    OPAL_THREAD_UNLOCK(&place_lock);
    if (known) {
        record_process(rec);
        return;
    }
    memset(rec, 0, sizeof(*rec));
    gethostname(rec->host, sizeof(rec->host) - 1);
    place_of(&OPAL_PROC_MY_NAME, rec);
    rec->fab_ndims = mcast_fabric_own_coords(rec->fab_coord, rec->fab_shape, MCAST_FABRIC_MAX_DIMS);
    OPAL_THREAD_LOCK(&place_lock);
    self_record = *rec;
    self_known = true;
    OPAL_THREAD_UNLOCK(&place_lock);
    record_process(rec);
}

bool mcast_locality_reserve(mcast_locality_t *loc)
{
    if (NULL == loc->records) {
        loc->records = malloc(sizeof(*loc->records) * (size_t) loc->n);
    }
    if (NULL == loc->node_of) {
        loc->node_of = malloc(sizeof(int) * (size_t) loc->n);
    }
    return NULL != loc->records && NULL != loc->node_of;
}

int mcast_locality_nodes_of(const mcast_locality_record_t *all, int n, int *node_of)
{
    int nnodes = 0;
    for (int r = 0; r < n; r++) {
        node_of[r] = -1;
        for (int q = 0; q < r; q++) {
            if (0 == strncmp(all[r].host, all[q].host, MCAST_HOST_NAME_LEN - 1)) {
                node_of[r] = node_of[q];
                break;
            }
        }
        if (node_of[r] < 0) {
            node_of[r] = nnodes++;
        }
    }
    return nnodes;
}

int mcast_locality_set_records(mcast_locality_t *loc, const void *first, size_t stride)
{
    if (!mcast_locality_reserve(loc)) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int r = 0; r < loc->n; r++) {
        memcpy(&loc->records[r], (const char *) first + (size_t) r * stride, sizeof(*loc->records));
    }
    for (int r = 0; r < loc->n; r++) { /* bytes from other ranks: terminated here */
        loc->records[r].host[MCAST_HOST_NAME_LEN - 1] = '\0';
        if (loc->records[r].fab_ndims < 0 || loc->records[r].fab_ndims > MCAST_FABRIC_MAX_DIMS) {
            loc->records[r].fab_ndims = 0;
        }
    }
    agree_cores(loc, loc->records);
    return OMPI_SUCCESS;
}

int mcast_locality_discover(mcast_locality_t *loc, struct ompi_communicator_t *comm,
                            const char *component, const char *topology_file)
{
    if (loc->discovered) { /* once per communicator */
        return OMPI_SUCCESS;
    }
    const double t0 = MPI_Wtime();
    const int n = loc->n;
    mcast_locality_record_t *all = malloc(sizeof(*all) * (size_t) n);
    /* (the module's exchange reserved node_of: mcast_locality_reserve) */
    int *node_of = NULL != loc->node_of ? loc->node_of : malloc(sizeof(int) * (size_t) n);
    pm_locality_t *places = malloc(sizeof(*places) * (size_t) n);
    if (NULL == loc->host_names) {
        loc->host_names = malloc((size_t) n * MCAST_HOST_NAME_LEN);
    }
    if (NULL == loc->hosts) {
        loc->hosts = malloc(sizeof(char *) * (size_t) n);
    }
    int rc = OMPI_ERR_OUT_OF_RESOURCE;
    if (NULL == all || NULL == node_of || NULL == places || NULL == loc->host_names ||
        NULL == loc->hosts) {
        goto out;
    }
    if (NULL != loc->records) { /* the module's exchange brought them */
        memcpy(all, loc->records, sizeof(*all) * (size_t) n);
    } else {
        mcast_locality_record_t self;
        mcast_locality_record_self(&self);
        rc = comm->c_coll->coll_allgather(&self, (int) sizeof(self), MPI_BYTE, all,
                                          (int) sizeof(self), MPI_BYTE, comm,
                                          comm->c_coll->coll_allgather_module);
        if (OMPI_SUCCESS != rc) {
            goto out;
        }
        agree_cores(loc, all);
    }

    /* Host ids by first appearance in rank order; places where every rank has one. */
    bool placed = true;
    loc->nnodes = mcast_locality_nodes_of(all, n, node_of);
    for (int r = 0; r < n; r++) {
        memcpy(loc->host_names + (size_t) r * MCAST_HOST_NAME_LEN, all[r].host, MCAST_HOST_NAME_LEN);
        loc->host_names[(size_t) r * MCAST_HOST_NAME_LEN + MCAST_HOST_NAME_LEN - 1] = '\0';
        loc->hosts[r] = loc->host_names + (size_t) r * MCAST_HOST_NAME_LEN;
        places[r] = (pm_locality_t){node_of[r], all[r].package_id, all[r].numa_id, all[r].core_id};
        placed = placed && all[r].package_id >= 0 && all[r].core_id >= 0;
    }
    /* the fullest node's ranks (node ids are dense: 0 .. nnodes - 1) */
    {
        int *count = calloc((size_t) loc->nnodes, sizeof(int));
        if (NULL == count) {
            rc = OMPI_ERR_OUT_OF_RESOURCE;
            goto out;
        }
        loc->fullest_node_ranks = 1;
        for (int r = 0; r < n; r++) {
            if (++count[node_of[r]] > loc->fullest_node_ranks) {
                loc->fullest_node_ranks = count[node_of[r]];
            }
        }
        free(count);
    }

    char err[256] = "";
    pm_topology_t *topo = NULL;
    bool networked = false;
    if (NULL != topology_file && '\0' != topology_file[0]) {
        topo = (pm_topology_t *) mcast_topo_cache_get(topology_file, &loc->topology_digest, err,
                                                      sizeof(err));
        networked = use_topology(comm, component, "topology_file", topology_file, topo, true, err,
                                 sizeof(err), loc);
    }
    if (!networked && all[0].fab_ndims > 0) { /* the resource manager's fabric coordinates */
        err[0] = '\0';
        topo = fabric_topology(all, loc->hosts, n, err, sizeof(err));
        networked = use_topology(comm, component, "pmix", NULL, topo, false, err, sizeof(err),
                                 loc);
    }
    if (networked) {
        /* ordering and its name come from the network topology */
    } else if (placed && n > 1 && PM_OK == pm_order_hierarchical(n, places, loc->ordering)) {
        loc->ordering_name = "hierarchy";
    } else if (loc->nnodes > 1 && loc->nnodes < n) {
        int pos = 0;
        for (int node = 0; node < loc->nnodes; node++) {
            for (int r = 0; r < n; r++) {
                if (node_of[r] == node) {
                    loc->ordering[pos++] = r;
                }
            }
        }
        loc->ordering_name = "node-major";
    }
    loc->discovered = true;
    loc->node_of = node_of; /* kept */
    rc = OMPI_SUCCESS;
out:
    free(all);
    if (node_of != loc->node_of) {
        free(node_of);
    }
    free(places);
    loc->discovery_us = (MPI_Wtime() - t0) * 1e6;
    return rc;
}

int mcast_locality_chain(const mcast_locality_t *loc, int root, int *chain)
{
    if (NULL != loc->topo) {
        char err[8];
        return PM_OK == pm_order_hosts(loc->topo, PM_ORDER_AUTO, loc->n, loc->hosts, root, chain,
                                       err, sizeof(err))
                   ? OMPI_SUCCESS
                   : OMPI_ERROR;
    }
    int at = 0;
    while (at < loc->n && loc->ordering[at] != root) {
        at++;
    }
    if (at == loc->n) {
        return OMPI_ERR_BAD_PARAM;
    }
    for (int i = 0; i < loc->n; i++) {
        chain[i] = loc->ordering[(at + i) % loc->n];
    }
    return OMPI_SUCCESS;
}

void mcast_locality_input(const mcast_locality_t *loc, int component, int root, size_t bytes,
                          struct mcast_plan_input *in, int *chain)
{
    memset(in, 0, sizeof(*in));
    in->component = component;
    in->n = loc->n;
    in->root = root;
    in->bytes = bytes;
    in->chain = (OMPI_SUCCESS == mcast_locality_chain(loc, root, chain)) ? chain : NULL;
    in->node_of_rank = loc->discovered ? loc->node_of : NULL; /* (reserved before: filled by discovery) */
    in->all_local = loc->all_local;
    in->nnodes = loc->nnodes;
    /* the topology (file or PMIx) names every rank's host: the model charges link sharing */
    in->topology = loc->topo;
    in->hosts = mcast_locality_topo_hosts(loc);
}

size_t mcast_locality_slot_bytes(const mcast_locality_t *loc, size_t chunk_bytes,
                                 size_t max_chunk_bytes)
{
    return mcast_shm_slot_bytes_for(chunk_bytes, max_chunk_bytes,
                                    loc->oversubscribed ? loc->cores : 0, loc->fullest_node_ranks);
}

void mcast_locality_segment_input(const mcast_locality_t *loc, size_t chunk_bytes,
                                  size_t max_chunk_bytes, int slots, struct mcast_plan_input *in)
{
    in->shm_slot_bytes = mcast_locality_slot_bytes(loc, chunk_bytes, max_chunk_bytes);
    in->shm_chunk_bytes = chunk_bytes;
    in->shm_slots = slots;
    in->node_cores = loc->oversubscribed ? loc->cores : 0;
}

bool mcast_locality_across_builtin(const mcast_locality_t *loc, const struct mcast_machine *machine)
{
    return loc->discovered && !loc->all_local && loc->nnodes > 1 &&
           0 == strncmp(machine->source, "defaults", 8);
}

const char *const *mcast_locality_topo_hosts(const mcast_locality_t *loc)
{
    return NULL != loc->topo ? (const char *const *) loc->hosts : NULL;
}

void mcast_print_chain(const char *component, struct ompi_communicator_t *comm,
                       const mcast_locality_t *loc)
{
    fprintf(stderr, "coll:%s: comm=%u size=%d nodes=%d ordering=%s chain=", component,
            mcast_comm_id(comm), loc->n, loc->nnodes, loc->ordering_name);
    for (int i = 0; i < loc->n; i++) {
        fprintf(stderr, "%s%d", i ? "," : "", loc->ordering[i]);
    }
    fprintf(stderr, " discovery_us=%.1f\n", loc->discovery_us);
    fflush(stderr);
}
