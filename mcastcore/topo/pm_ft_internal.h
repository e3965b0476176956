/*
 * Internal C++ side of the IBFT(m, n) cyclic multicast model (pm_fattree.h).
 * Functions throw pm::ArgError; pm_fattree_api.cpp turns that into status codes.
 */
#ifndef PM_FT_INTERNAL_H
#define PM_FT_INTERNAL_H

#include <string>
#include <vector>

#include "pm_fattree.h"
#include "topo/pm_internal.h"

namespace pm {
namespace ft {

long ipow(long b, int e);
void check_ft(const pm_ft_t *ft);
void check_node(const pm_ft_t *ft, int pid);
void check_switch(const pm_ft_t *ft, int sw);
void init(pm_ft_t *ft, int m, int n, pm_ft_lid_layout_t layout);

void digits_of(const pm_ft_t *ft, int pid, int *d);
int pid_of(const pm_ft_t *ft, const int *d);
int switches_at(const pm_ft_t *ft, int level);
int switch_id(const pm_ft_t *ft, int level, const int *w);
void switch_coords(const pm_ft_t *ft, int sw, int *level, int *w);
bool port_is_up(const pm_ft_t *ft, int level, int port);
pm_ft_peer_t port_peer(const pm_ft_t *ft, int sw, int port);
void node_attach(const pm_ft_t *ft, int pid, int *sw, int *port);

int gcp(const pm_ft_t *ft, int a, int b);
long gcpg_rank(const pm_ft_t *ft, int pid, int alpha);
int select_rank(const pm_ft_t *ft, int src, int dst);
int lft_port(const pm_ft_t *ft, int sw, int dst, int rank);
void lid_owner(const pm_ft_t *ft, int lid, int *pid, int *rank);
std::vector<pm_ft_hop_t> route(const pm_ft_t *ft, int src, int lid);
std::vector<int> switch_distances(const pm_ft_t *ft, int target);
int toward(const pm_ft_t *ft, const std::vector<int> &dist, int sw);

void mft_cyclic(const pm_ft_t *ft, int src, const std::vector<int> &members, pm_ft_mft_form_t form,
                uint64_t *mft);
pm_ft_check_t mft_check(const pm_ft_t *ft, const uint64_t *mft, int src, const std::vector<int> &members,
                        long *load);
bool check_ok(const pm_ft_check_t &c);
int mft_group(const pm_ft_t *ft, const std::vector<int> &sources, const std::vector<int> &members,
              uint64_t *mft);
int mft_opensm(const pm_ft_t *ft, const std::vector<int> &members, uint64_t *mft);
pm_ft_check_t scheme_load(const pm_ft_t *ft, pm_ft_scheme_t scheme, const std::vector<int> &sources,
                          const std::vector<int> &members, long *load);

/* Names and files (pm_fattree_io.cpp). */
std::string node_label(const pm_ft_t *ft, int pid);
std::string node_name(const pm_ft_t *ft, int pid);
std::string switch_label(const pm_ft_t *ft, int sw);
std::string switch_name(const pm_ft_t *ft, int sw);
int node_parse(const pm_ft_t *ft, const std::string &text);
int switch_parse(const pm_ft_t *ft, const std::string &text);
uint64_t switch_guid(int sw);
uint64_t node_port_guid(int pid);
bool guid_lookup(const pm_ft_t *ft, uint64_t guid, int *is_node, int *id);
std::vector<int> default_switch_lids(const pm_ft_t *ft);
std::string write_ibnet(const pm_ft_t *ft);
std::string write_guid2lid(const pm_ft_t *ft, const std::vector<int> &swlid);
std::vector<int> read_guid2lid(const pm_ft_t *ft, const std::string &text);
std::string write_lfts(const pm_ft_t *ft, const std::vector<int> &swlid);
std::string write_mfts(const pm_ft_t *ft, const std::vector<int> &swlid, int ngroups, const int *mlids,
                       const uint64_t *mfts);

}  // namespace ft
}  // namespace pm

#endif /* PM_FT_INTERNAL_H */
