/* Node locality from the runtime's process table: see mcast_locality.h. */
#include "mcast_locality.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/proc/proc.h"
#include "opal/mca/hwloc/base/base.h"

static const char *peer_hostname(struct ompi_communicator_t *comm, int r)
{
    ompi_proc_t *p = ompi_comm_peer_lookup(comm, r);
    return (NULL != p) ? p->super.proc_hostname : NULL;
}

mcast_locality_t *mcast_locality_discover(struct ompi_communicator_t *comm)
{
    const int n = ompi_comm_size(comm);
    mcast_locality_t *loc = calloc(1, sizeof(*loc));
    int *node_of = malloc(sizeof(int) * (size_t) n);
    if (NULL == loc || NULL == node_of || NULL == (loc->ordering = malloc(sizeof(int) * (size_t) n))) {
        free(node_of);
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
    }
    /* Node ids from host names, numbered by first appearance in rank order. */
    bool named = true;
    loc->nnodes = 0;
    for (int r = 0; r < n && named; r++) {
        const char *h = peer_hostname(comm, r);
        if (NULL == h) {
            named = false;
            break;
        }
        node_of[r] = -1;
        for (int q = 0; q < r; q++) {
            if (0 == strcmp(h, peer_hostname(comm, q))) {
                node_of[r] = node_of[q];
                break;
            }
        }
        if (node_of[r] < 0) {
            node_of[r] = loc->nnodes++;
        }
    }
    if (!named) {
        loc->nnodes = loc->all_local ? 1 : -1;
    }
    if (named && loc->nnodes > 1 && loc->nnodes < n) {
        int pos = 0;
        for (int node = 0; node < loc->nnodes; node++) {
            for (int r = 0; r < n; r++) {
                if (node_of[r] == node) {
                    loc->ordering[pos++] = r;
                }
            }
        }
        loc->ordering_name = "node-major";
    } else {
        for (int r = 0; r < n; r++) {
            loc->ordering[r] = r;
        }
        loc->ordering_name = "identity";
    }
    free(node_of);
    return loc;
}

void mcast_locality_free(void *locality)
{
    mcast_locality_t *loc = locality;
    if (NULL != loc) {
        free(loc->ordering);
        free(loc);
    }
}
