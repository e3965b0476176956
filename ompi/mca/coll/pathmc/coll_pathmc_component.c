/* coll/pathmc component: parameters, open, close. */
#include "ompi_config.h"

#include "coll_pathmc.h"
#include "ompi/mca/common/mcast/mcast_pml.h"
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
    int rc = mcast_register_common_params(v, MCAST_COMP_PATHMC, 50, &c->common);
    if (OPAL_SUCCESS != rc) {
        return rc;
    }
    mcast_forced_default(&c->forced);
    c->topology_file = NULL;
    c->coords_file = NULL;
    c->mcast_transport = MCA_COLL_PATHMC_MC_NONE;
    c->mcast_group_range = NULL;
    c->mcast_port = 47470;
    c->mcast_interface = NULL;
    c->mcast_ttl = 1;
    c->mcast_auth = 1;
    const mcast_var_t vars[] = {
        {"topology_file", "Network topology file (native, ibnetdiscover or Slurm topology.conf); "
         "when it describes a torus or mesh that names every rank's host, the torus algorithms "
         "use its coordinates (before a periodic Cartesian communicator's)",
         MCA_BASE_VAR_TYPE_STRING, &c->topology_file, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"coords_file", "Torus coordinates file (native format: 'torus 4x4' then 'host NAME x y "
         "...' lines); used after topology_file and the Cartesian topology",
         MCA_BASE_VAR_TYPE_STRING, &c->coords_file, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"mu_r", "Mu-torus partition length r, 1..4096; 0 = the largest torus dimension "
         "(default 0)",
         MCA_BASE_VAR_TYPE_INT, &c->forced.mu_r, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"segment_bytes", "Segment size in bytes of the packed signature for the torus "
         "schedules; 0 = chosen by the planner",
         MCA_BASE_VAR_TYPE_SIZE_T, &c->forced.segment_bytes, OPAL_INFO_LVL_5,
         MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"window", "Segments received ahead, 0..1024; 0 (default) = auto: 1 for the circulant, the two-tree's depth in rounds + 2, 4 for the others",
         MCA_BASE_VAR_TYPE_INT, &c->forced.window, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"sync_sends", "Synchronous sends of edst's blocks between nodes (the PML's synchronous mode: a send "
         "completes when its receiver has matched it, and a rank keeps ceil(slot / pace) + 2 "
         "in flight, at most 16): -1 = where the machine model's flows share a link "
         "(net.shared_flows 1) and the model says they are faster, 0 = never, 1 = always "
         "(default -1)",
         MCA_BASE_VAR_TYPE_INT, &c->forced.sync_sends, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"mcast_group_range", "Administratively scoped IPv4 range the communicators' multicast "
         "groups are taken from (one group per communicator, from the job and context id); "
         "empty = 239.255.0.0/16",
         MCA_BASE_VAR_TYPE_STRING, &c->mcast_group_range, OPAL_INFO_LVL_5,
         MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"mcast_port", "UDP port of the multicast groups (default 47470)",
         MCA_BASE_VAR_TYPE_INT, &c->mcast_port, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"mcast_interface", "Interface for IP multicast: a name (eth0) or a CIDR (10.77.0.0/16); "
         "empty = the route to the group",
         MCA_BASE_VAR_TYPE_STRING, &c->mcast_interface, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"mcast_ttl", "IP multicast TTL, 1..255 (1: the local network only; more to cross "
         "multicast routers)",
         MCA_BASE_VAR_TYPE_INT, &c->mcast_ttl, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"mcast_auth", "1 (default): every multicast datagram carries an AES-128-GMAC tag under "
         "a key of the communicator that travels only over the PML; forged or replayed "
         "datagrams are dropped and counted. 0: no tag (only to measure its cost on a network "
         "nobody else can reach: anyone who can then fails or corrupts broadcasts)",
         MCA_BASE_VAR_TYPE_INT, &c->mcast_auth, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_ALL_EQ},
    };
    rc = mcast_register_vars(v, vars, sizeof(vars) / sizeof(vars[0]), &c->common);
    if (OPAL_SUCCESS != rc) {
        return rc;
    }
    return mcast_register_enum_param(v, "mcast_transport",
                                     "Hardware multicast for MPI_Bcast (algorithm mcast): none "
                                     "(default: never open a group), ip (UDP to an IP multicast "
                                     "group), ib (InfiniBand UD multicast), auto (ib, else ip). "
                                     "Opening is collective at a communicator's first broadcast "
                                     "and includes a probe round; where it fails (no route, "
                                     "filtered, no IB port) every rank goes on without it and "
                                     "verbose >= 1 says why. The planner then chooses mcast when "
                                     "its model wins, or coll_pathmc_algorithm mcast forces it",
                                     mca_coll_pathmc_transport_names, &c->mcast_transport,
                                     MCA_BASE_VAR_SCOPE_ALL_EQ, &c->common);
}


static int pathmc_open(void)
{
    mcast_forced_t *f = &mca_coll_pathmc_component.forced;
    mcast_param_range("pathmc", "mu_r", &f->mu_r, 0, 4096, 0);
    mcast_param_range("pathmc", "window", &f->window, 0, 1024, 0);
    mcast_param_range("pathmc", "sync_sends", &f->sync_sends, -1, 1, -1);
    mcast_param_range("pathmc", "mcast_port", &mca_coll_pathmc_component.mcast_port, 1, 65535, 47470);
    mcast_param_range("pathmc", "mcast_ttl", &mca_coll_pathmc_component.mcast_ttl, 1, 255, 1);
    mcast_param_range("pathmc", "mcast_auth", &mca_coll_pathmc_component.mcast_auth, 0, 1, 1);
    return mcast_check_runtime_version("pathmc");
}

static int pathmc_close(void)
{
    mcast_locality_cache_fini();
    mcast_pml_fini();
    mcast_module_fini();
    return OMPI_SUCCESS;
}
