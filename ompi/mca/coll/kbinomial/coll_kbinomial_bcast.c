/*
 * coll/kbinomial MPI_Bcast / MPI_Ibcast: what the shared module asks of the component.
 * The algorithms, their parameters and the decision are the core planner's
 * (mcastcore/include/mcast_planner.h: registry, model, forced > rules > model); here
 * the component hands it the communicator's chain and locality, its parameters, the
 * machine model and the rules, and says which inputs every rank must agree on.
 */
#include "ompi_config.h"

#include <stdio.h>
#include <string.h>

#include "coll_kbinomial.h"
#include "kbinomial.h"
#include "ompi/mca/common/mcast/mcast_topo_cache.h"
#include "ompi/mca/common/mcast/mcast_shmseg.h"
#include "mcast_shm.h"
#include "ompi/communicator/communicator.h"
#include "opal/runtime/opal_progress.h"

#include <unistd.h>

/* The shared segment's slot (mcast_locality_slot_bytes): shm_chunk_bytes where every rank
 * of the fullest node has a core, shm_max_chunk_bytes where a call's chunks fill the ring.
 * The segment's pages are reserved when it is made, inside the communicator's first call:
 * a region no larger than its chunks need makes that call cheaper (E-FIRST-2).  Every rank
 * reaches the same value (the node's cores and the ranks per node come from the exchange),
 * and the planner plans with the slot the region has. */
static size_t slot_bytes_of(const mcast_locality_t *loc)
{
    const mca_coll_kbinomial_component_t *c = &mca_coll_kbinomial_component;
    return mcast_locality_slot_bytes(loc, c->shm_chunk_bytes, c->shm_max_chunk_bytes);
}

static mcast_forced_t forced_params(void)
{
    mcast_forced_t f = mca_coll_kbinomial_component.forced;
    f.algorithm = mca_coll_kbinomial_component.common.algorithm;
    return f;
}

static void kbinomial_digests(mcast_module_t *m, mcast_digests_t *d)
{
    const mca_coll_kbinomial_component_t *c = &mca_coll_kbinomial_component;
    (void) m;
    const mcast_forced_t f = forced_params();
    uint64_t h = mcast_forced_digest(&f, mcast_machine_of("kbinomial", c->machine_file, false));
    h = mcast_digest_bytes(h, &c->common.fallback, sizeof(c->common.fallback));
    h = mcast_digest_bytes(h, &c->common.priority, sizeof(c->common.priority));
    h = mcast_digest_bytes(h, &c->common.unparsed, sizeof(c->common.unparsed));
    /* (the verification's trials end in an agreement every rank must reach) */
    h = mcast_digest_bytes(h, &c->common.verify_trials, sizeof(c->common.verify_trials));
    h = mcast_digest_bytes(h, &c->common.verify_margin, sizeof(c->common.verify_margin));
    h = mcast_digest_bytes(h, &c->common.verify_recheck, sizeof(c->common.verify_recheck));
    h = mcast_digest_bytes(h, &c->common.verify_runner_up, sizeof(c->common.verify_runner_up));
    /* (a rank that measures the network needs every other rank in the measurement) */
    h = mcast_digest_bytes(h, &c->common.self_calibrate, sizeof(c->common.self_calibrate));
    h = mcast_digest_bytes(h, &c->common.self_calibrate_from, sizeof(c->common.self_calibrate_from));
    h = mcast_digest_bytes(h, &c->shm_chunk_bytes, sizeof(c->shm_chunk_bytes));
    h = mcast_digest_bytes(h, &c->shm_slots, sizeof(c->shm_slots));
    h = mcast_digest_bytes(h, &c->shm_max_chunk_bytes, sizeof(c->shm_max_chunk_bytes));
    d->params = h;
    /* a rules file that did not load counts as "none" (the reason was printed at open) */
    d->rules = (NULL != c->rules) ? kb_rules_checksum(c->rules)
                                  : (NULL != c->rules_file && '\0' != c->rules_file[0] ? 1 : 0);
    d->topology = mcast_topo_file_digest(c->topology_file);
}

/* Discovery from the exchanged records: no communication, the same both ways. */
static int kbinomial_prepare(mcast_module_t *m, struct ompi_communicator_t *comm, bool use_rules,
                             bool use_topology, bool nonblocking)
{
    const mca_coll_kbinomial_component_t *c = &mca_coll_kbinomial_component;
    mcast_locality_t *loc = m->comm_state;
    (void) use_rules;
    if (loc->discovered) {
        return OMPI_SUCCESS;
    }
    (void) nonblocking;
    int rc = mcast_locality_discover(loc, comm, "kbinomial", use_topology ? c->topology_file : NULL);
    if (OMPI_SUCCESS == rc && c->common.verbose >= 2 && 0 == ompi_comm_rank(comm)) {
        mcast_print_chain("kbinomial", comm, loc);
    }
    return rc;
}

static void kbinomial_input(mcast_module_t *m, struct ompi_communicator_t *comm, int root,
                            size_t bytes, mcast_plan_input_t *in, mcast_forced_t *forced,
                            int *chain)
{
    const mca_coll_kbinomial_component_t *c = &mca_coll_kbinomial_component;
    const mcast_locality_t *loc = m->comm_state;
    (void) comm;
    *forced = forced_params();
    mcast_locality_input(loc, MCAST_COMP_KBINOMIAL, root, bytes, in, chain);
    /* Between nodes without a machine file: the size classes from self_calibrate_from plan
     * with what the network measured, on every network; below (or where nothing was
     * measured) the built-in model, which over TCP does not describe the network: Open
     * MPI's own choice under auto (bytes: the class's, the same on every rank) */
    mcast_module_machine_input(m, loc, mcast_machine_of("kbinomial", c->machine_file, loc->oversubscribed),
                               bytes, in);
    in->forced = forced;
    in->rules = m->use_rules ? c->rules : NULL;
    /* A segment per node (one node: shm; across nodes: twolevel's intra=shm).  It is copied
     * with memcpy: an Open MPI built with CUDA support may hand us device buffers on some
     * ranks only (a local property no rank can agree on), so it never plans either. */
    if (!OPAL_CUDA_SUPPORT && 0 != c->shm_chunk_bytes && !mcast_shm_failed(m->shm)) {
        mcast_locality_segment_input(loc, c->shm_chunk_bytes, c->shm_max_chunk_bytes,
                                     c->shm_slots, in);
    }
}

/* The shared segment, where the parameters offer one: every rank sets it up after the
 * exchange (a node of its own: nothing to map).  It is copied with memcpy: an Open MPI
 * built with CUDA support may hand us device buffers on some ranks only (a local property
 * no rank can agree on), so it never plans one. */
static bool kbinomial_segment(mcast_module_t *m, int *slots, size_t *slot_bytes)
{
    const mca_coll_kbinomial_component_t *c = &mca_coll_kbinomial_component;
    if (OPAL_CUDA_SUPPORT || 0 == c->shm_chunk_bytes) {
        return false;
    }
    *slots = c->shm_slots;
    *slot_bytes = slot_bytes_of(m->comm_state);
    return true;
}

/* Measure the network where auto would plan on the built-in model between nodes (no
 * machine file), whatever the network: over TCP the built-in model does not describe it
 * (E-TCP-1), and elsewhere it describes no machine of the user's (E-SIM-4): every input
 * here is agreed (parameters and machine file by the digest, the nodes by the exchange). */
static bool kbinomial_calibrate_wanted(mcast_module_t *m, struct ompi_communicator_t *comm)
{
    (void) comm;
    return mcast_module_calibrate_wanted(
        m, m->comm_state,
        mcast_machine_of("kbinomial", mca_coll_kbinomial_component.machine_file,
                         ((const mcast_locality_t *) m->comm_state)->oversubscribed));
}

static mcast_locality_t *kbinomial_locality(mcast_module_t *m)
{
    return m->comm_state;
}

static void kbinomial_context(mcast_module_t *m, char *buf, size_t len)
{
    const mcast_locality_t *loc = m->comm_state;
    snprintf(buf, len, "ordering=%s nodes=%d", loc->ordering_name, loc->nnodes);
}

const mcast_component_ops_t mca_coll_kbinomial_ops = {
    .name = "kbinomial",
    .component = MCAST_COMP_KBINOMIAL,
    .params = &mca_coll_kbinomial_component.common,
    .digests = kbinomial_digests,
    .prepare = kbinomial_prepare,
    .locality = kbinomial_locality,
    .segment = kbinomial_segment,
    .input = kbinomial_input,
    .calibrate_wanted = kbinomial_calibrate_wanted,
    .context = kbinomial_context,
};
