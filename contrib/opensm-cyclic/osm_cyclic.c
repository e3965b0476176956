/*
 * libosmcyclic: an OpenSM event plugin that registers the routing engine
 * "cyclic" (seed 004, cyclic multicast on m-port n-tree fat-trees IBFT(m, n)).
 *
 *   unicast   every switch's LFT from the cyclic tables (pm_ft_lft_port: eq. 1
 *             down towards the owner, eq. 2 up on the digits of the LID's rank);
 *             switch LIDs on min-hop paths (lowest port first)
 *   multicast each group's MFT (OpenSM's mcast_build_stree hook) is the union
 *             of the cyclic trees of its sources (pm_ft_mft_group: a sources
 *             file names them per MGID, else every member is a source; when
 *             their union would duplicate, the first source's tree alone)
 *
 * Cost: LFTs O(switches x LIDs); one group O(sources x members x n).
 * Paper: Zhou, Lin, Chung, "Hardware supported multicast in fat-tree-based
 * InfiniBand networks", J. Supercomputing (seed 004).
 *
 *   opensm.conf:  event_plugin_name osmcyclic      (dlopen("libosmcyclic.so"))
 *                 routing_engine cyclic            (or opensm -R cyclic)
 *                 lmc 4                            (LMC = log2((m/2)^(n-1)), here IBFT(8,3))
 *
 *    OpenSM sweep --> ucast_build_fwd_tables --> map fabric onto IBFT(m,n), check
 *                     |                          cabling and LMC, fill new_lft
 *                     `-> per MLID: mcast_build_stree --> members, sources -> MFT bits
 *
 * The fabric is mapped onto the model by node GUID (a "node GUID NAME" line of
 * the config, else the GUIDs our net-file generator writes), else by node
 * description (p3-0-0, sw2-0.1).  Any mismatch (shape, cabling, LMC) makes the
 * engine fail, and OpenSM falls back to its next engine (minhop by default).
 * Configuration: contrib/opensm-cyclic/README.md.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opensm/osm_config.h>
#include <complib/cl_qmap.h>
#include <opensm/osm_version.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_log.h>
#include <opensm/osm_switch.h>
#include <opensm/osm_node.h>
#include <opensm/osm_port.h>
#include <opensm/osm_multicast.h>
#include <opensm/osm_mcm_port.h>
#include <opensm/osm_mcast_tbl.h>

#include "pm_fattree.h"

#define ENGINE_NAME "cyclic"
#define DEFAULT_CONFIG "/etc/opensm/cyclic.conf"

struct name_map {
    uint64_t guid;
    char name[64];
};

struct cyclic {
    osm_opensm_t *osm;
    char config[PATH_MAX];
    int fixed_m, fixed_n;            /* "fattree M N" in the config, 0 = infer */
    char sources[PATH_MAX];          /* "sources FILE", empty = every member sends */
    struct name_map *names;
    int nnames;
    /* the mapping of the last successful routing */
    int mapped;
    pm_ft_t ft;
    osm_switch_t **sw_of;            /* model switch id -> OpenSM switch */
    uint64_t *port_guid_of;          /* PID -> port GUID (host order) */
};

#define LOG(c, level, ...) OSM_LOG(&(c)->osm->log, level, "cyclic: " __VA_ARGS__)

/* ------------------------------------------------------------------ config */

static int read_config(struct cyclic *c)
{
    FILE *f = fopen(c->config, "r");
    if (!f) {
        LOG(c, OSM_LOG_INFO, "no config file %s: IBFT shape inferred, identities from GUIDs or "
                             "node descriptions, every member a source\n", c->config);
        return 0;
    }
    char line[512];
    int lineno = 0, rc = 0;
    while (fgets(line, sizeof(line), f)) {
        ++lineno;
        char *p = line, key[32], a[PATH_MAX], b[64];
        while (isspace((unsigned char) *p)) ++p;
        if (!*p || *p == '#') continue;
        int got = sscanf(p, "%31s %4095s %63s", key, a, b);
        if (!strcmp(key, "fattree") && got == 3) {
            c->fixed_m = atoi(a);
            c->fixed_n = atoi(b);
        } else if (!strcmp(key, "sources") && got >= 2) {
            snprintf(c->sources, sizeof(c->sources), "%s", a);
        } else if (!strcmp(key, "node") && got == 3) {
            struct name_map *nm = realloc(c->names, sizeof(*nm) * (c->nnames + 1));
            if (!nm) {
                rc = -1;
                break;
            }
            c->names = nm;
            nm[c->nnames].guid = strtoull(a, NULL, 0);
            snprintf(nm[c->nnames].name, sizeof(nm[0].name), "%s", b);
            ++c->nnames;
        } else {
            LOG(c, OSM_LOG_ERROR, "%s:%d: expected 'fattree M N', 'node GUID NAME' or 'sources FILE'\n",
                c->config, lineno);
            rc = -1;
            break;
        }
    }
    fclose(f);
    return rc;
}

static const char *mapped_name(const struct cyclic *c, uint64_t guid)
{
    for (int i = 0; i < c->nnames; ++i)
        if (c->names[i].guid == guid) return c->names[i].name;
    return NULL;
}

/* Model id of a switch (is_node 0, node GUID) or a CA port (is_node 1, port GUID; a
 * "node" line may name the CA's node GUID or its port GUID). */
static int identify(const struct cyclic *c, const pm_ft_t *ft, int is_node, uint64_t guid, uint64_t node_guid,
                    const char *desc)
{
    const char *name = mapped_name(c, guid);
    if (!name) name = mapped_name(c, node_guid);
    if (name) return is_node ? pm_ft_node_parse(ft, name) : pm_ft_switch_parse(ft, name);
    int kind, id;
    if (pm_ft_guid_lookup(ft, guid, &kind, &id) == PM_OK) return kind == is_node ? id : PM_ERR_NOTFOUND;
    char word[64];
    if (sscanf(desc, "%63s", word) != 1) return PM_ERR_NOTFOUND;
    return is_node ? pm_ft_node_parse(ft, word) : pm_ft_switch_parse(ft, word);
}

/* ------------------------------------------------------------------ mapping */

static void unmap(struct cyclic *c)
{
    free(c->sw_of);
    free(c->port_guid_of);
    c->sw_of = NULL;
    c->port_guid_of = NULL;
    c->mapped = 0;
}

static int fabric_shape(struct cyclic *c, pm_ft_t *ft)
{
    osm_subn_t *subn = &c->osm->subn;
    int m = -1, nsw = (int) cl_qmap_count(&subn->sw_guid_tbl), nca = 0;
    for (cl_map_item_t *i = cl_qmap_head(&subn->sw_guid_tbl); i != cl_qmap_end(&subn->sw_guid_tbl);
         i = cl_qmap_next(i)) {
        osm_switch_t *sw = (osm_switch_t *) i;
        if (m < 0) m = sw->num_ports - 1;
        if (m != sw->num_ports - 1) {
            LOG(c, OSM_LOG_ERROR, "switches with %d and %d ports: not an m-port n-tree\n", m, sw->num_ports - 1);
            return -1;
        }
    }
    for (cl_map_item_t *i = cl_qmap_head(&subn->port_guid_tbl); i != cl_qmap_end(&subn->port_guid_tbl);
         i = cl_qmap_next(i))
        nca += osm_node_get_type(((osm_port_t *) i)->p_node) == IB_NODE_TYPE_CA;
    if (c->fixed_m) {
        if (pm_ft_init(ft, c->fixed_m, c->fixed_n, PM_FT_LIDS_IBA) != PM_OK || ft->nswitches != nsw ||
            ft->nnodes != nca) {
            LOG(c, OSM_LOG_ERROR, "config says IBFT(%d, %d); the fabric has %d switches and %d CA ports\n",
                c->fixed_m, c->fixed_n, nsw, nca);
            return -1;
        }
        return 0;
    }
    for (int n = 1; n <= PM_FT_MAX_N; ++n)
        if (pm_ft_init(ft, m, n, PM_FT_LIDS_IBA) == PM_OK && ft->nswitches == nsw && ft->nnodes == nca) return 0;
    LOG(c, OSM_LOG_ERROR, "%d switches with %d ports and %d CA ports are no IBFT(m, n)\n", nsw, m, nca);
    return -1;
}

/* Map every switch and CA port onto the model and check the cabling port by port. */
static int map_fabric(struct cyclic *c)
{
    osm_subn_t *subn = &c->osm->subn;
    pm_ft_t ft;
    unmap(c);
    if (fabric_shape(c, &ft)) return -1;
    osm_switch_t **sw_of = calloc(ft.nswitches, sizeof(*sw_of));
    uint64_t *guid_of = calloc(ft.nnodes, sizeof(*guid_of));
    osm_physp_t **physp_of = calloc(ft.nnodes, sizeof(*physp_of));
    int rc = -1;
    if (!sw_of || !guid_of || !physp_of) goto out;
    for (cl_map_item_t *i = cl_qmap_head(&subn->sw_guid_tbl); i != cl_qmap_end(&subn->sw_guid_tbl);
         i = cl_qmap_next(i)) {
        osm_switch_t *sw = (osm_switch_t *) i;
        uint64_t g = cl_ntoh64(osm_node_get_node_guid(sw->p_node));
        int id = identify(c, &ft, 0, g, g, (const char *) sw->p_node->node_desc.description);
        if (id < 0 || sw_of[id]) {
            LOG(c, OSM_LOG_ERROR, "switch 0x%016" PRIx64 " (%s) is %s\n", g, sw->p_node->print_desc,
                id < 0 ? "not a switch of the model" : "a second copy of a model switch");
            goto out;
        }
        sw_of[id] = sw;
    }
    for (cl_map_item_t *i = cl_qmap_head(&subn->port_guid_tbl); i != cl_qmap_end(&subn->port_guid_tbl);
         i = cl_qmap_next(i)) {
        osm_port_t *port = (osm_port_t *) i;
        if (osm_node_get_type(port->p_node) != IB_NODE_TYPE_CA) continue;
        uint64_t g = cl_ntoh64(osm_port_get_guid(port));
        int id = identify(c, &ft, 1, g, cl_ntoh64(osm_node_get_node_guid(port->p_node)),
                          (const char *) port->p_node->node_desc.description);
        if (id < 0 || guid_of[id]) {
            LOG(c, OSM_LOG_ERROR, "CA port 0x%016" PRIx64 " (%s) is %s\n", g, port->p_node->print_desc,
                id < 0 ? "not a node of the model" : "a second copy of a model node");
            goto out;
        }
        uint16_t lo, hi;
        osm_port_get_lid_range_ho(port, &lo, &hi);
        if (hi - lo + 1 != ft.lids_per_node) {
            LOG(c, OSM_LOG_ERROR, "IBFT(%d, %d) needs LMC %d (2^LMC = %d LIDs per node); port 0x%016" PRIx64
                                  " has %d LIDs: start opensm with -l %d (lmc %d)\n",
                ft.m, ft.n, ft.lmc, ft.lids_per_node, g, hi - lo + 1, ft.lmc, ft.lmc);
            goto out;
        }
        guid_of[id] = g;
        physp_of[id] = port->p_physp;
    }
    for (int s = 0; s < ft.nswitches; ++s) {
        for (int k = 1; k <= ft.m; ++k) {
            pm_ft_peer_t pe;
            pm_ft_port_peer(&ft, s, k, &pe);
            osm_physp_t *p = osm_node_get_physp_ptr(sw_of[s]->p_node, (uint32_t) k);
            osm_physp_t *r = p ? osm_physp_get_remote(p) : NULL;
            int ok = r != NULL;
            if (ok && pe.is_node) ok = r == physp_of[pe.id];
            if (ok && !pe.is_node) ok = r->p_node == sw_of[pe.id]->p_node && r->port_num == pe.port;
            if (!ok) {
                char a[64], b[64];
                pm_ft_switch_name(&ft, s, a, sizeof(a));
                if (pe.is_node) pm_ft_node_name(&ft, pe.id, b, sizeof(b));
                else pm_ft_switch_name(&ft, pe.id, b, sizeof(b));
                LOG(c, OSM_LOG_ERROR, "%s port %d should reach %s port %d: cabling differs from IBFT(%d, %d)\n",
                    a, k, b, pe.port, ft.m, ft.n);
                goto out;
            }
        }
    }
    c->ft = ft;
    c->sw_of = sw_of;
    c->port_guid_of = guid_of;
    c->mapped = 1;
    sw_of = NULL;
    guid_of = NULL;
    rc = 0;
out:
    free(sw_of);
    free(guid_of);
    free(physp_of);
    return rc;
}

/* ------------------------------------------------------------------ unicast */

static int cyclic_build_lfts(void *context)
{
    struct cyclic *c = context;
    if (map_fabric(c)) return -1;
    const pm_ft_t *ft = &c->ft;
    osm_subn_t *subn = &c->osm->subn;
    unsigned char *port_at = malloc(ft->nswitches);
    if (!port_at) return -1;
    for (int s = 0; s < ft->nswitches; ++s) memset(c->sw_of[s]->new_lft, OSM_NO_PATH, c->sw_of[s]->lft_size);
    for (int v = 0; v < ft->nnodes; ++v) {
        osm_port_t *port = osm_get_port_by_guid(subn, cl_hton64(c->port_guid_of[v]));
        uint16_t lo, hi;
        osm_port_get_lid_range_ho(port, &lo, &hi);
        for (int s = 0; s < ft->nswitches; ++s)
            for (int r = 0; r < ft->lids_per_node; ++r)
                if (lo + r < c->sw_of[s]->lft_size)
                    c->sw_of[s]->new_lft[lo + r] = (uint8_t) pm_ft_lft_port(ft, s, v, r);
    }
    for (int t = 0; t < ft->nswitches; ++t) {
        uint16_t lid = cl_ntoh16(osm_node_get_base_lid(c->sw_of[t]->p_node, 0));
        pm_ft_switch_route_ports(ft, t, port_at);
        for (int s = 0; s < ft->nswitches; ++s)
            if (lid < c->sw_of[s]->lft_size) c->sw_of[s]->new_lft[lid] = port_at[s];
    }
    free(port_at);
    LOG(c, OSM_LOG_INFO, "IBFT(%d, %d): cyclic LFTs on %d switches, %d nodes x %d LIDs\n", ft->m, ft->n,
        ft->nswitches, ft->nnodes, ft->lids_per_node);
    return 0;
}

/* ------------------------------------------------------------------ multicast */

static int pid_of_guid(const struct cyclic *c, uint64_t guid)
{
    for (int v = 0; v < c->ft.nnodes; ++v)
        if (c->port_guid_of[v] == guid) return v;
    return -1;
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *) a - *(const int *) b;
}

/* Sources of the group with this MGID from the sources file ("MGID NODE..."). */
static int read_sources(struct cyclic *c, const uint8_t mgid[16], int *out, int max)
{
    if (!c->sources[0]) return 0;
    FILE *f = fopen(c->sources, "r");
    if (!f) {
        LOG(c, OSM_LOG_ERROR, "cannot read sources file %s: every member is a source\n", c->sources);
        return 0;
    }
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof(line), f)) {
        char *save = NULL, *tok = strtok_r(line, " \t\r\n", &save);
        uint8_t g[16];
        if (!tok || *tok == '#' || inet_pton(AF_INET6, tok, g) != 1 || memcmp(g, mgid, 16)) continue;
        while ((tok = strtok_r(NULL, " \t\r\n", &save)) && n < max) {
            int pid = pm_ft_node_parse(&c->ft, tok);
            if (pid < 0) {
                const char *name = NULL;
                uint64_t guid = strtoull(tok, NULL, 0);
                if (guid && (name = mapped_name(c, guid))) pid = pm_ft_node_parse(&c->ft, name);
                if (pid < 0) pid = pid_of_guid(c, guid);
            }
            if (pid < 0) LOG(c, OSM_LOG_ERROR, "%s: '%s' is no node of the fabric\n", c->sources, tok);
            else out[n++] = pid;
        }
    }
    fclose(f);
    return n;
}

static ib_api_status_t cyclic_mcast_stree(void *context, osm_mgrp_box_t *mbox)
{
    struct cyclic *c = context;
    if (!c->mapped) return IB_ERROR;
    const pm_ft_t *ft = &c->ft;
    int *members = malloc(sizeof(int) * ft->nnodes), *sources = malloc(sizeof(int) * ft->nnodes);
    uint64_t *mft = calloc(ft->nswitches, sizeof(uint64_t));
    ib_api_status_t status = IB_INSUFFICIENT_MEMORY;
    if (!members || !sources || !mft) goto out;
    int nm = 0, ns = 0, listed = 0;
    for (cl_list_item_t *li = cl_qlist_head(&mbox->mgrp_list); li != cl_qlist_end(&mbox->mgrp_list);
         li = cl_qlist_next(li)) {
        osm_mgrp_t *mgrp = cl_item_obj(li, mgrp, list_item);
        for (cl_map_item_t *mi = cl_qmap_head(&mgrp->mcm_port_tbl); mi != cl_qmap_end(&mgrp->mcm_port_tbl);
             mi = cl_qmap_next(mi)) {
            osm_mcm_port_t *mp = (osm_mcm_port_t *) mi;
            int pid = pid_of_guid(c, cl_ntoh64(osm_port_get_guid(mp->port)));
            if (pid < 0) LOG(c, OSM_LOG_ERROR, "MLID 0x%x: member %s is not a node of the model: skipped\n",
                             mbox->mlid, mp->port->p_node->print_desc);
            else if (nm < ft->nnodes) members[nm++] = pid;
        }
        listed += read_sources(c, mgrp->mcmember_rec.mgid.raw, sources + listed, ft->nnodes - listed);
    }
    qsort(members, nm, sizeof(int), cmp_int);
    int u = 0;
    for (int i = 0; i < nm; ++i)
        if (!u || members[u - 1] != members[i]) members[u++] = members[i];
    nm = u;
    status = IB_SUCCESS;
    if (nm < 2) goto out;   /* as OpenSM: nothing to route */
    for (int i = 0; i < listed; ++i) {
        if (bsearch(&sources[i], members, nm, sizeof(int), cmp_int)) sources[ns++] = sources[i];
        else LOG(c, OSM_LOG_INFO, "MLID 0x%x: source PID %d has not joined: ignored\n", mbox->mlid, sources[i]);
    }
    if (ns == 0) {
        memcpy(sources, members, sizeof(int) * nm);
        ns = nm;
    }
    qsort(sources, ns, sizeof(int), cmp_int);
    int tree_src = -1;
    if (pm_ft_mft_group(ft, sources, ns, members, nm, mft, &tree_src) != PM_OK) {
        status = IB_ERROR;
        goto out;
    }
    for (int s = 0; s < ft->nswitches; ++s)
        for (int k = 1; k <= ft->m; ++k)
            if (mft[s] >> k & 1) osm_mcast_tbl_set(osm_switch_get_mcast_tbl_ptr(c->sw_of[s]), mbox->mlid, (uint8_t) k);
    char who[64] = "union of the sources' trees";
    if (tree_src >= 0) {
        char label[32];
        pm_ft_node_name(ft, tree_src, label, sizeof(label));
        snprintf(who, sizeof(who), "tree of %s", label);
    }
    LOG(c, OSM_LOG_INFO, "MLID 0x%x: %d members, %d sources%s: %s\n", mbox->mlid, nm, ns,
        listed ? "" : " (all members)", who);
out:
    free(members);
    free(sources);
    free(mft);
    return status;
}

/* ------------------------------------------------------------------ plugin */

static void cyclic_destroy_engine(void *context)
{
    unmap(context);
}

static int cyclic_setup(osm_routing_engine_t *re, osm_opensm_t *osm)
{
    (void) osm;
    re->ucast_build_fwd_tables = cyclic_build_lfts;
    re->mcast_build_stree = cyclic_mcast_stree;
    re->destroy = cyclic_destroy_engine;
    return 0;
}

static void *cyclic_create(osm_opensm_t *osm)
{
    struct cyclic *c = calloc(1, sizeof(*c));
    if (!c) return NULL;
    c->osm = osm;
    const char *opt = osm->subn.opt.event_plugin_options, *env = getenv("OSM_CYCLIC_CONFIG");
    const char *key = opt ? strstr(opt, "cyclic_config=") : NULL;
    if (key) sscanf(key + strlen("cyclic_config="), "%4095s", c->config);
    else snprintf(c->config, sizeof(c->config), "%s", env && *env ? env : DEFAULT_CONFIG);
    if (read_config(c)) goto fail;
    external_routing_engine_module_t module = {ENGINE_NAME, cyclic_setup, c};
    if (osm_register_external_routing_engine(osm, &module, c) != CL_SUCCESS) {
        LOG(c, OSM_LOG_ERROR, "cannot register the routing engine '%s'\n", ENGINE_NAME);
        goto fail;
    }
    LOG(c, OSM_LOG_INFO, "routing engine '%s' registered (config %s)\n", ENGINE_NAME, c->config);
    return c;
fail:
    free(c->names);
    free(c);
    return NULL;
}

static void cyclic_delete(void *data)
{
    struct cyclic *c = data;
    if (!c) return;
    unmap(c);
    free(c->names);
    free(c);
}

static void cyclic_report(void *data, osm_epi_event_id_t id, void *event)
{
    (void) data;
    (void) id;
    (void) event;
}

osm_event_plugin_t osm_event_plugin = {OSM_VERSION, cyclic_create, cyclic_delete, cyclic_report};
