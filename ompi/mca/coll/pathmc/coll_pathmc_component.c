/* coll/pathmc component: parameters, open, close. */
#include "ompi_config.h"

#include "coll_pathmc.h"
#include "mpi.h"

const char *mca_coll_pathmc_component_version_string =
    "Open MPI pathmc collective MCA component version " OMPI_VERSION;

static int pathmc_register(void);
static int pathmc_open(void);
static int pathmc_close(void);

mca_coll_pathmc_component_t mca_coll_pathmc_component = {
    .super = {
        .collm_version = {
            MCAST_COLL_BASE_VERSION,
            .mca_component_name = "pathmc",
            MCA_BASE_MAKE_VERSION(component, OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION,
                                  OMPI_RELEASE_VERSION),
            .mca_open_component = pathmc_open,
            .mca_close_component = pathmc_close,
            .mca_register_component_params = pathmc_register,
        },
        .collm_data = {MCA_BASE_METADATA_PARAM_CHECKPOINT},
        .collm_init_query = mca_coll_pathmc_init_query,
        .collm_comm_query = mca_coll_pathmc_comm_query,
    },
};

static int pathmc_register(void)
{
    mca_coll_pathmc_component_t *c = &mca_coll_pathmc_component;
    const mca_base_component_t *v = &c->super.collm_version;
    int rc = mca_coll_pathmc_registry_init();
    if (OPAL_SUCCESS != rc) {
        return rc;
    }
    rc = mcast_register_common_params(v, mca_coll_pathmc_registry, mca_coll_pathmc_nalgorithms,
                                      50, &c->common);
    if (OPAL_SUCCESS != rc) {
        return rc;
    }
    /* Defaults, then the table that documents and registers them.  The model's
     * defaults are of the order perf/fit-torus-model finds on a shared-memory node;
     * the seed's SCI values are o = 1.994, t_process = 7,629,265,206,201. */
    c->topology_file = NULL;
    c->coords_file = NULL;
    c->mu_r = 0;
    c->segment_bytes = 0;
    c->window = 4;
    c->o_us = 2.0;
    c->t_process_us = "5,5,5,5,5";
    c->beta_ns_per_byte = 0.1;
    const mcast_var_t vars[] = {
        {"topology_file", "Network topology file (native, ibnetdiscover or Slurm topology.conf); "
         "when it describes a torus or mesh that names every rank's host, the torus algorithms "
         "use its coordinates (before a periodic Cartesian communicator's)",
         MCA_BASE_VAR_TYPE_STRING, &c->topology_file, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"coords_file", "Torus coordinates file (native format: 'torus 4x4' then 'host NAME x y "
         "...' lines); used after topology_file and the Cartesian topology",
         MCA_BASE_VAR_TYPE_STRING, &c->coords_file, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"mu_r", "Mu-torus partition length r >= 1; 0 = the largest torus dimension",
         MCA_BASE_VAR_TYPE_INT, &c->mu_r, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"segment_bytes", "Segment size in bytes of the packed signature for the torus "
         "schedules; 0 = unsegmented",
         MCA_BASE_VAR_TYPE_SIZE_T, &c->segment_bytes, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"window", "Segments received ahead; >= 1",
         MCA_BASE_VAR_TYPE_INT, &c->window, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_LOCAL},
        {"o_us", "Torus model (Oral & George eqs. 8-12): per-message send/receive overhead o "
         "in microseconds",
         MCA_BASE_VAR_TYPE_DOUBLE, &c->o_us, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"t_process_us", "Torus model: processing time per relay in microseconds, one value per "
         "algorithm in the order separate, utorus, storus, mdtorus, mutorus (fit with "
         "perf/fit-torus-model)",
         MCA_BASE_VAR_TYPE_STRING, &c->t_process_us, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"beta_ns_per_byte", "Torus model: time per byte per serialised send (nanoseconds), the "
         "bandwidth term for large messages",
         MCA_BASE_VAR_TYPE_DOUBLE, &c->beta_ns_per_byte, OPAL_INFO_LVL_6,
         MCA_BASE_VAR_SCOPE_ALL_EQ},
    };
    return mcast_register_vars(v, vars, sizeof(vars) / sizeof(vars[0]));
}

static int pathmc_open(void)
{
    return mcast_check_runtime_version("pathmc");
}

static int pathmc_close(void)
{
    mcast_locality_cache_fini();
    return OMPI_SUCCESS;
}
