/*
 * coll/pathmc hardware multicast: opening the communicator's multicast group and running
 * an `mcast` plan on it (the reliable protocol of pm_mcproto.h over IP multicast or
 * InfiniBand UD, mcast_mc.h).
 *
 * Opening is collective and happens once per communicator at its first broadcast, when
 * coll_pathmc_mcast_transport is not `none` (every rank holds the same value: the
 * parameter digest is agreed first).  Every rank gets the same answer (mcast_mc_open
 * agrees on it), so every rank gives the planner the same input.
 *
 * A call runs on contiguous packed bytes: a contiguous datatype is sent from (and
 * received into) the user buffer in place; any other is packed by the root into a
 * temporary buffer with Open MPI's convertor and unpacked by every other rank.
 */
#include "ompi_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_pathmc.h"
#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/common/mcast/mcast_mc.h"
#include "ompi/mca/common/mcast/mcast_udp.h"
#include "mcast_build_config.h"
#if MCAST_HAVE_VERBS
#include "ompi/mca/common/mcast/mcast_ib.h"
#endif
#include "opal/datatype/opal_convertor.h"

const char *const mca_coll_pathmc_transport_names[] = {"none", "ip", "ib", "auto", NULL};

void mca_coll_pathmc_mcast_open(struct ompi_communicator_t *comm, mca_coll_pathmc_state_t *st)
{
    const mca_coll_pathmc_component_t *c = &mca_coll_pathmc_component;
    const int want = c->mcast_transport;
    st->mc = NULL;
    st->mc_transport = MCAST_TRANSPORT_NONE;
    if (MCA_COLL_PATHMC_MC_NONE == want) {
        return;
    }
    mcast_mc_params_t p;
    mcast_mc_params_default(&p);
    if (NULL != c->mcast_group_range && '\0' != c->mcast_group_range[0]) {
        p.group_range = c->mcast_group_range;
    }
    p.port = c->mcast_port;
    p.interface = c->mcast_interface;
    p.ttl = c->mcast_ttl;
    p.auth = c->mcast_auth;
    p.verbose = c->common.verbose >= 2 ? 1 : 0;
    char why[256] = "";
    int rc = OMPI_ERR_NOT_AVAILABLE;
    if (MCA_COLL_PATHMC_MC_IB == want || MCA_COLL_PATHMC_MC_AUTO == want) {
#if MCAST_HAVE_VERBS
        rc = mcast_ib_open(comm, &p, &st->mc, why, sizeof(why));
        if (OMPI_SUCCESS == rc) {
            st->mc_transport = MCAST_TRANSPORT_IB;
        }
#else
        snprintf(why, sizeof(why), "InfiniBand: built without rdma-core (libibverbs-dev, "
                                   "librdmacm-dev)");
#endif
    }
    if (OMPI_SUCCESS != rc && (MCA_COLL_PATHMC_MC_IP == want || MCA_COLL_PATHMC_MC_AUTO == want)) {
        char why_ip[256] = "";
        rc = mcast_udp_open(comm, &p, &st->mc, why_ip, sizeof(why_ip));
        if (OMPI_SUCCESS == rc) {
            st->mc_transport = MCAST_TRANSPORT_IP;
        } else {
            size_t used = strlen(why);
            snprintf(why + used, sizeof(why) - used, "%sIP: %s", used ? "; " : "", why_ip);
        }
    }
    if (0 != ompi_comm_rank(comm) || c->common.verbose < 1) {
        return;
    }
    if (NULL != st->mc) {
        pm_mc_stats_t ps;
        mcast_mc_xstats_t xs;
        mcast_mc_stats(st->mc, &ps, &xs);
        fprintf(stderr, "coll:pathmc: comm=%u multicast: transport=%s group %s chunk_bytes=%u "
                        "window_bytes=%llu probe_rounds=%u\n",
                mcast_comm_id(comm), mcast_mc_transport(st->mc), xs.group, xs.chunk_bytes,
                (unsigned long long) xs.window_bytes, xs.probe_rounds);
    } else {
        fprintf(stderr, "coll:pathmc: comm=%u multicast not used (coll_pathmc_mcast_transport=%s): "
                        "%s\n",
                mcast_comm_id(comm), mca_coll_pathmc_transport_names[want], why);
    }
}

size_t mca_coll_pathmc_mcast_chunk(const mca_coll_pathmc_state_t *st)
{
    if (NULL == st->mc) {
        return 0;
    }
    pm_mc_stats_t ps;
    mcast_mc_xstats_t xs;
    mcast_mc_stats(st->mc, &ps, &xs);
    return xs.chunk_bytes;
}

/* Packs (send) or unpacks (!send) the whole message between the user buffer and `bytes`
 * contiguous bytes. */
static int convert_whole(void *buf, int count, struct ompi_datatype_t *dtype, char *bytes,
                         size_t len, bool send)
{
    opal_convertor_t cv;
    OBJ_CONSTRUCT(&cv, opal_convertor_t);
    int rc = send ? opal_convertor_copy_and_prepare_for_send(ompi_mpi_local_convertor,
                                                             &dtype->super, count, buf, 0, &cv)
                  : opal_convertor_copy_and_prepare_for_recv(ompi_mpi_local_convertor,
                                                             &dtype->super, count, buf, 0, &cv);
    if (OMPI_SUCCESS == rc) {
        struct iovec iov = {.iov_base = bytes, .iov_len = len};
        uint32_t iov_count = 1;
        size_t max_data = len;
        rc = (send ? opal_convertor_pack(&cv, &iov, &iov_count, &max_data)
                   : opal_convertor_unpack(&cv, &iov, &iov_count, &max_data)) < 0 || max_data != len
                 ? OMPI_ERROR
                 : OMPI_SUCCESS;
    }
    OBJ_DESTRUCT(&cv);
    return rc;
}

int mca_coll_pathmc_mcast_run(mcast_module_t *m, const mcast_plan_info_t *info, void *buf,
                              int count, struct ompi_datatype_t *dtype, size_t bytes, int root,
                              struct ompi_communicator_t *comm)
{
    (void) info;
    mca_coll_pathmc_state_t *st = m->comm_state;
    if (NULL == st->mc) {
        return MPI_ERR_INTERN; /* the planner offers mcast only with an open group */
    }
    if (ompi_datatype_is_contiguous_memory_layout(dtype, count)) {
        ptrdiff_t true_lb = 0, true_extent = 0;
        ompi_datatype_get_true_extent(dtype, &true_lb, &true_extent);
        return mcast_mc_bcast(st->mc, root, (char *) buf + true_lb, bytes);
    }
    char *tmp = malloc(bytes);
    const bool is_root = ompi_comm_rank(comm) == root;
    if (NULL == tmp || (is_root && OMPI_SUCCESS != convert_whole(buf, count, dtype, tmp, bytes, true))) {
        /* this rank takes its part without data: the peers end with an error at once
         * (never the root's unpacked bytes as if they were data), the epochs stay in step */
        const int why = NULL == tmp ? MPI_ERR_NO_MEM : MPI_ERR_INTERN;
        free(tmp);
        (void) mcast_mc_bcast_failed(st->mc, root, bytes);
        return why;
    }
    int rc = OMPI_SUCCESS;
    const int brc = mcast_mc_bcast(st->mc, root, tmp, bytes);
    if (OMPI_SUCCESS == brc && !is_root) {
        rc = convert_whole(buf, count, dtype, tmp, bytes, false);
    }
    free(tmp);
    return OMPI_SUCCESS != brc ? brc : (OMPI_SUCCESS != rc ? MPI_ERR_INTERN : OMPI_SUCCESS);
}
