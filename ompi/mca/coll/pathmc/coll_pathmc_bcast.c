/*
 * coll/pathmc MPI_Bcast: the registry of torus algorithms and the plan builder.
 */
#include "ompi_config.h"

#include "coll_pathmc.h"
#include "ompi/communicator/communicator.h"

const mcast_alg_info_t mca_coll_pathmc_registry[PMC_ALG_COUNT] = {
    {PMC_ALG_AUTO, "auto", "chosen per message size by the torus latency model"},
    {PMC_ALG_SEPARATE, "separate", "separate addressing: the root sends to every member"},
    {PMC_ALG_UTORUS, "utorus", "U-torus: binomial recursive doubling on the dimension-ordered chain"},
    {PMC_ALG_STORUS, "storus", "S-torus: one chain along the Hamiltonian (snake) ranking"},
    {PMC_ALG_MDTORUS, "mdtorus", "Md-torus: dimensional partitioning, one phase per dimension"},
    {PMC_ALG_MUTORUS, "mutorus", "Mu-torus: uniform partitions of r consecutive members"},
};

int mca_coll_pathmc_plan_build(mcast_module_t *module, struct ompi_communicator_t *comm,
                               int algorithm, int root, size_t bytes, mcast_plan_t **out)
{
    (void) module;
    (void) comm;
    (void) algorithm;
    (void) root;
    (void) bytes;
    (void) out;
    return OMPI_ERR_NOT_SUPPORTED;
}
