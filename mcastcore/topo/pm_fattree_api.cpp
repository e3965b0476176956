/*
 * C API of the IBFT(m, n) cyclic multicast model (pm_fattree.h): argument
 * checks and exception translation; no C++ exception leaves this file.
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "topo/pm_ft_internal.h"

using namespace pm;
using namespace pm::ft;

namespace {

template <class F>
int guarded(F f, char *errbuf = nullptr, size_t errlen = 0)
{
    auto say = [&](const char *m) {
        if (errbuf && errlen) snprintf(errbuf, errlen, "%s", m);
    };
    try {
        return f();
    } catch (const ParseError &e) {
        say(e.what());
        return PM_ERR_PARSE;
    } catch (const ArgError &e) {
        say(e.what());
        return e.code;
    } catch (const std::bad_alloc &) {
        say("out of memory");
        return PM_ERR_NOMEM;
    } catch (const std::exception &e) {
        say(e.what());
        return PM_ERR_INTERNAL;
    } catch (...) {
        say("unknown exception");
        return PM_ERR_INTERNAL;
    }
}

int copy_text(const std::string &s, char *buf, size_t len)
{
    if (!buf || len <= s.size()) return PM_ERR_ARG;
    memcpy(buf, s.c_str(), s.size() + 1);
    return PM_OK;
}

int dup_text(const std::string &s, char **out)
{
    if (!out) return PM_ERR_ARG;
    char *p = (char *)malloc(s.size() + 1);
    if (!p) return PM_ERR_NOMEM;
    memcpy(p, s.c_str(), s.size() + 1);
    *out = p;
    return PM_OK;
}

std::vector<int> node_list(const pm_ft_t *ft, const int *v, int n)
{
    if (n < 0 || (n > 0 && !v)) throw ArgError(PM_ERR_ARG, "bad node list");
    std::vector<int> out(v, v + n);
    for (int x : out) check_node(ft, x);
    return out;
}

std::vector<int> lid_vector(const pm_ft_t *ft, const int *lids)
{
    if (!lids) return default_switch_lids(ft);
    return std::vector<int>(lids, lids + ft->nswitches);
}

}  // namespace

extern "C" {

int pm_ft_init(pm_ft_t *ft, int m, int n, pm_ft_lid_layout_t layout)
{
    return guarded([&]() -> int { init(ft, m, n, layout); return PM_OK; });
}

int pm_ft_node_digits(const pm_ft_t *ft, int pid, int *digits)
{
    return guarded([&]() -> int {
        check_ft(ft);
        check_node(ft, pid);
        if (!digits) return PM_ERR_ARG;
        digits_of(ft, pid, digits);
        return PM_OK;
    });
}

int pm_ft_node_pid(const pm_ft_t *ft, const int *digits)
{
    return guarded([&]() -> int {
        check_ft(ft);
        if (!digits) return PM_ERR_ARG;
        return pid_of(ft, digits);
    });
}

int pm_ft_node_parse(const pm_ft_t *ft, const char *text)
{
    return guarded([&]() -> int {
        check_ft(ft);
        if (!text) return PM_ERR_ARG;
        return node_parse(ft, text);
    });
}

int pm_ft_node_label(const pm_ft_t *ft, int pid, char *buf, size_t len)
{
    return guarded([&]() -> int { check_ft(ft); check_node(ft, pid); return copy_text(node_label(ft, pid), buf, len); });
}

int pm_ft_node_name(const pm_ft_t *ft, int pid, char *buf, size_t len)
{
    return guarded([&]() -> int { check_ft(ft); check_node(ft, pid); return copy_text(node_name(ft, pid), buf, len); });
}

int pm_ft_switch_id(const pm_ft_t *ft, int level, const int *w)
{
    return guarded([&]() -> int {
        check_ft(ft);
        if (!w && ft->n > 1) return PM_ERR_ARG;
        int none = 0;
        return switch_id(ft, level, w ? w : &none);
    });
}

int pm_ft_switch_coords(const pm_ft_t *ft, int sw, int *level, int *w)
{
    return guarded([&]() -> int {
        check_ft(ft);
        check_switch(ft, sw);
        int l, tmp[PM_FT_MAX_N];
        switch_coords(ft, sw, &l, tmp);
        if (level) *level = l;
        if (w)
            for (int i = 0; i < ft->n - 1; ++i) w[i] = tmp[i];
        return PM_OK;
    });
}

int pm_ft_switch_label(const pm_ft_t *ft, int sw, char *buf, size_t len)
{
    return guarded([&]() -> int { check_ft(ft); check_switch(ft, sw); return copy_text(switch_label(ft, sw), buf, len); });
}

int pm_ft_switch_name(const pm_ft_t *ft, int sw, char *buf, size_t len)
{
    return guarded([&]() -> int { check_ft(ft); check_switch(ft, sw); return copy_text(switch_name(ft, sw), buf, len); });
}

int pm_ft_switch_parse(const pm_ft_t *ft, const char *text)
{
    return guarded([&]() -> int {
        check_ft(ft);
        if (!text) return PM_ERR_ARG;
        return switch_parse(ft, text);
    });
}

int pm_ft_port_peer(const pm_ft_t *ft, int sw, int port, pm_ft_peer_t *peer)
{
    return guarded([&]() -> int {
        check_ft(ft);
        check_switch(ft, sw);
        if (!peer) return PM_ERR_ARG;
        *peer = port_peer(ft, sw, port);
        return PM_OK;
    });
}

int pm_ft_port_is_up(const pm_ft_t *ft, int sw, int port)
{
    return guarded([&]() -> int {
        check_ft(ft);
        check_switch(ft, sw);
        if (port < 1 || port > ft->m) return PM_ERR_ARG;
        int l, w[PM_FT_MAX_N];
        switch_coords(ft, sw, &l, w);
        return port_is_up(ft, l, port) ? 1 : 0;
    });
}

int pm_ft_node_attach(const pm_ft_t *ft, int pid, int *sw, int *port)
{
    return guarded([&]() -> int {
        check_ft(ft);
        check_node(ft, pid);
        if (!sw || !port) return PM_ERR_ARG;
        node_attach(ft, pid, sw, port);
        return PM_OK;
    });
}

int pm_ft_gcp(const pm_ft_t *ft, int a, int b)
{
    return guarded([&]() -> int { check_ft(ft); check_node(ft, a); check_node(ft, b); return gcp(ft, a, b); });
}

int pm_ft_lca(const pm_ft_t *ft, int a, int b, int *ids, int max, int *count)
{
    return guarded([&]() -> int {
        check_ft(ft);
        check_node(ft, a);
        check_node(ft, b);
        if (a == b) throw ArgError(PM_ERR_ARG, "a node has no least common ancestor with itself");
        int alpha = gcp(ft, a, b), d[PM_FT_MAX_N];
        digits_of(ft, a, d);
        /* all w with w0..w_alpha-1 = a's prefix: enumerate the free digits */
        int nfree = ft->n - 1 - alpha;
        long total = ipow(ft->half, nfree);
        if (count) *count = (int)total;
        if (max < total || (total > 0 && !ids)) return PM_ERR_ARG;
        int w[PM_FT_MAX_N];
        for (long k = 0; k < total; ++k) {
            long r = k;
            for (int i = ft->n - 2; i >= alpha; --i) {
                w[i] = (int)(r % ft->half);
                r /= ft->half;
            }
            for (int i = 0; i < alpha; ++i) w[i] = d[i];
            ids[k] = switch_id(ft, alpha, w);
        }
        return alpha;
    });
}

long pm_ft_gcpg_rank(const pm_ft_t *ft, int pid, int alpha)
{
    return guarded([&]() -> int {
        check_ft(ft);
        check_node(ft, pid);
        if (alpha < 0 || alpha > ft->n) return (int)PM_ERR_ARG;
        return (int)gcpg_rank(ft, pid, alpha);
    });
}

long pm_ft_gcpg_size(const pm_ft_t *ft, int alpha)
{
    return guarded([&]() -> int {
        check_ft(ft);
        if (alpha < 0 || alpha > ft->n) return (int)PM_ERR_ARG;
        return alpha == 0 ? ft->nnodes : (int)ipow(ft->half, ft->n - alpha);
    });
}

int pm_ft_base_lid(const pm_ft_t *ft, int pid)
{
    return guarded([&]() -> int { check_ft(ft); check_node(ft, pid); return ft->lid_origin + pid * ft->lids_per_node; });
}

int pm_ft_lid_owner(const pm_ft_t *ft, int lid, int *pid, int *rank)
{
    return guarded([&]() -> int {
        check_ft(ft);
        int p, r;
        lid_owner(ft, lid, &p, &r);
        if (pid) *pid = p;
        if (rank) *rank = r;
        return PM_OK;
    });
}

int pm_ft_cyclic_group(const pm_ft_t *ft, int dst, int src, int *level, int *suffix, int *suffix_len)
{
    return guarded([&]() -> int {
        check_ft(ft);
        check_node(ft, dst);
        check_node(ft, src);
        if (src == dst) throw ArgError(PM_ERR_ARG, "a node is in no cyclic group of itself");
        int l = gcp(ft, dst, src);
        if (level) *level = l;
        if (suffix) *suffix = (int)gcpg_rank(ft, src, l + 1);
        if (suffix_len) *suffix_len = ft->n - l - 1;
        return PM_OK;
    });
}

int pm_ft_cyclic_group_members(const pm_ft_t *ft, int dst, int level, int suffix, int *out, int max, int *count)
{
    return guarded([&]() -> int {
        check_ft(ft);
        check_node(ft, dst);
        if (level < 0 || level >= ft->n) return PM_ERR_ARG;
        int c = 0;
        for (int s = 0; s < ft->nnodes; ++s) {
            if (s == dst || gcp(ft, dst, s) != level || gcpg_rank(ft, s, level + 1) != suffix) continue;
            if (c < max && out) out[c] = s;
            ++c;
        }
        if (count) *count = c;
        return c <= max ? PM_OK : PM_ERR_ARG;
    });
}

int pm_ft_select_rank(const pm_ft_t *ft, int src, int dst)
{
    return guarded([&]() -> int { check_ft(ft); check_node(ft, src); check_node(ft, dst); return select_rank(ft, src, dst); });
}

int pm_ft_select_lid(const pm_ft_t *ft, int src, int dst)
{
    return guarded([&]() -> int {
        check_ft(ft);
        check_node(ft, src);
        check_node(ft, dst);
        return ft->lid_origin + dst * ft->lids_per_node + select_rank(ft, src, dst);
    });
}

int pm_ft_lft_port(const pm_ft_t *ft, int sw, int dst, int rank)
{
    return guarded([&]() -> int {
        check_ft(ft);
        check_switch(ft, sw);
        check_node(ft, dst);
        if (rank < 0 || rank >= ft->lids_per_node) return PM_ERR_ARG;
        return lft_port(ft, sw, dst, rank);
    });
}

int pm_ft_lft_port_lid(const pm_ft_t *ft, int sw, int lid)
{
    return guarded([&]() -> int {
        check_ft(ft);
        check_switch(ft, sw);
        int p, r;
        lid_owner(ft, lid, &p, &r);
        return lft_port(ft, sw, p, r);
    });
}

int pm_ft_switch_route_ports(const pm_ft_t *ft, int target, unsigned char *port_at)
{
    return guarded([&]() -> int {
        check_ft(ft);
        check_switch(ft, target);
        if (!port_at) return PM_ERR_ARG;
        std::vector<int> dist = switch_distances(ft, target);
        for (int s = 0; s < ft->nswitches; ++s) port_at[s] = s == target ? 0 : (unsigned char)toward(ft, dist, s);
        return PM_OK;
    });
}

int pm_ft_route(const pm_ft_t *ft, int src, int lid, pm_ft_hop_t *hops, int max, int *nhops)
{
    return guarded([&]() -> int {
        check_ft(ft);
        check_node(ft, src);
        std::vector<pm_ft_hop_t> r = route(ft, src, lid);
        if (nhops) *nhops = (int)r.size();
        if ((int)r.size() > max || (!r.empty() && !hops)) return PM_ERR_ARG;
        std::copy(r.begin(), r.end(), hops);
        return PM_OK;
    });
}

int pm_ft_mft_cyclic(const pm_ft_t *ft, int src, const int *members, int nmembers, pm_ft_mft_form_t form,
                     uint64_t *mft)
{
    return guarded([&]() -> int {
        check_ft(ft);
        check_node(ft, src);
        if (!mft || (form != PM_FT_MFT_UNION && form != PM_FT_MFT_TREE)) return PM_ERR_ARG;
        mft_cyclic(ft, src, node_list(ft, members, nmembers), form, mft);
        return PM_OK;
    });
}

int pm_ft_mft_group(const pm_ft_t *ft, const int *sources, int nsources, const int *members, int nmembers,
                    uint64_t *mft, int *tree_src)
{
    return guarded([&]() -> int {
        check_ft(ft);
        if (!mft) return PM_ERR_ARG;
        int t = mft_group(ft, node_list(ft, sources, nsources), node_list(ft, members, nmembers), mft);
        if (tree_src) *tree_src = t;
        return PM_OK;
    });
}

int pm_ft_mft_opensm(const pm_ft_t *ft, const int *members, int nmembers, uint64_t *mft, int *root)
{
    return guarded([&]() -> int {
        check_ft(ft);
        if (!mft || nmembers < 1) return PM_ERR_ARG;
        int r = mft_opensm(ft, node_list(ft, members, nmembers), mft);
        if (root) *root = r;
        return PM_OK;
    });
}

int pm_ft_ndlinks(const pm_ft_t *ft)
{
    return guarded([&]() -> int { check_ft(ft); return ft->nswitches * ft->m + ft->nnodes; });
}

int pm_ft_dlink_info(const pm_ft_t *ft, int dlink, int *is_node, int *id, int *port)
{
    return guarded([&]() -> int {
        check_ft(ft);
        int sw_links = ft->nswitches * ft->m;
        if (dlink < 0 || dlink >= sw_links + ft->nnodes) return PM_ERR_ARG;
        int node = dlink >= sw_links;
        if (is_node) *is_node = node;
        if (id) *id = node ? dlink - sw_links : dlink / ft->m;
        if (port) *port = node ? 1 : dlink % ft->m + 1;
        return PM_OK;
    });
}

int pm_ft_mft_check(const pm_ft_t *ft, const uint64_t *mft, int src, const int *members, int nmembers,
                    pm_ft_check_t *res, long *load)
{
    return guarded([&]() -> int {
        check_ft(ft);
        check_node(ft, src);
        if (!mft || !res) return PM_ERR_ARG;
        *res = mft_check(ft, mft, src, node_list(ft, members, nmembers), load);
        return PM_OK;
    });
}

int pm_ft_route_load(const pm_ft_t *ft, int src, int lid, long *load)
{
    return guarded([&]() -> int {
        check_ft(ft);
        check_node(ft, src);
        if (!load) return PM_ERR_ARG;
        std::vector<pm_ft_hop_t> r = route(ft, src, lid);
        if (r.empty()) return PM_OK;
        ++load[(long)ft->nswitches * ft->m + src];
        for (const pm_ft_hop_t &h : r) ++load[(long)h.sw * ft->m + h.out_port - 1];
        return PM_OK;
    });
}

static const char *const kSchemeNames[PM_FT_NSCHEMES] = {"cyclic", "cyclic-group", "opensm", "unicast"};

const char *pm_ft_scheme_name(pm_ft_scheme_t scheme)
{
    return scheme >= 0 && scheme < PM_FT_NSCHEMES ? kSchemeNames[scheme] : nullptr;
}

int pm_ft_scheme_lookup(const char *name)
{
    for (int i = 0; name && i < PM_FT_NSCHEMES; ++i)
        if (!strcmp(name, kSchemeNames[i])) return i;
    return PM_ERR_NOTFOUND;
}

int pm_ft_scheme_load(const pm_ft_t *ft, pm_ft_scheme_t scheme, const int *sources, int nsources,
                      const int *members, int nmembers, long *load, pm_ft_check_t *total)
{
    return guarded([&]() -> int {
        check_ft(ft);
        if (nsources < 1 || !pm_ft_scheme_name(scheme)) return PM_ERR_ARG;
        pm_ft_check_t t = scheme_load(ft, scheme, node_list(ft, sources, nsources), node_list(ft, members, nmembers),
                                      load);
        if (total) *total = t;
        return PM_OK;
    });
}

uint64_t pm_ft_switch_guid(const pm_ft_t *ft, int sw)
{
    return (ft && sw >= 0 && sw < ft->nswitches) ? switch_guid(sw) : 0;
}

uint64_t pm_ft_node_port_guid(const pm_ft_t *ft, int pid)
{
    return (ft && pid >= 0 && pid < ft->nnodes) ? node_port_guid(pid) : 0;
}

int pm_ft_guid_lookup(const pm_ft_t *ft, uint64_t guid, int *is_node, int *id)
{
    return guarded([&]() -> int {
        check_ft(ft);
        int a, b;
        if (!guid_lookup(ft, guid, &a, &b)) return PM_ERR_NOTFOUND;
        if (is_node) *is_node = a;
        if (id) *id = b;
        return PM_OK;
    });
}

int pm_ft_write_ibnet(const pm_ft_t *ft, char **out)
{
    return guarded([&]() -> int { check_ft(ft); return dup_text(write_ibnet(ft), out); });
}

int pm_ft_write_guid2lid(const pm_ft_t *ft, const int *lids, char **out)
{
    return guarded([&]() -> int { check_ft(ft); return dup_text(write_guid2lid(ft, lid_vector(ft, lids)), out); });
}

int pm_ft_read_guid2lid(const pm_ft_t *ft, const char *text, int *lids, char *errbuf, size_t errlen)
{
    return guarded(
        [&]() -> int {
            check_ft(ft);
            if (!text || !lids) return PM_ERR_ARG;
            std::vector<int> v = read_guid2lid(ft, text);
            std::copy(v.begin(), v.end(), lids);
            return PM_OK;
        },
        errbuf, errlen);
}

int pm_ft_write_lfts(const pm_ft_t *ft, const int *lids, char **out)
{
    return guarded([&]() -> int { check_ft(ft); return dup_text(write_lfts(ft, lid_vector(ft, lids)), out); });
}

int pm_ft_write_mfts(const pm_ft_t *ft, const int *lids, int ngroups, const int *mlids, const uint64_t *mfts,
                     char **out)
{
    return guarded([&]() -> int {
        check_ft(ft);
        if (ngroups < 0 || (ngroups > 0 && (!mlids || !mfts))) return PM_ERR_ARG;
        return dup_text(write_mfts(ft, lid_vector(ft, lids), ngroups, mlids, mfts), out);
    });
}

}  // extern "C"
