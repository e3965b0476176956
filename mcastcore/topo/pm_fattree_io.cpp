/*
 * Names and files of the IBFT(m, n) model: seed labels (P(300), SW<20,1>),
 * topology names (p3-0-0, sw2-0.1), deterministic GUIDs, and the text files
 * InfiniBand tools read: ibsim net files, OpenSM guid2lid, `dump_fts` unicast
 * tables (also OpenSM's `-R file -U` input) and `dump_fts -M` multicast tables.
 *
 *   GUIDs: switch sw   -> 0x0053570000000000 + sw + 1          ("SW")
 *          node P(pid) -> node 0x0043410000000000 + (pid+1)*16  ("CA"),
 *                         port 1 = node GUID + 1 (ibsim numbers CA ports so)
 *
 *   dump_fts -M layout (m <= 9; wider switches get 3-character columns):
 *        Ports: 0 1 2 3 4
 *    MLid
 *   0xc001          x x        <- an 'x' under every port of the group
 */
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>

#include "topo/pm_ft_internal.h"

namespace pm {
namespace ft {

namespace {
constexpr uint64_t kSwitchGuid = 0x0053570000000000ULL;
constexpr uint64_t kNodeGuid = 0x0043410000000000ULL;
constexpr uint64_t kGuidMask = 0x000000ffffffffffULL;
constexpr int kMaxUnicastLid = 0xbfff;

std::string join_digits(const pm_ft_t *ft, const int *d, int count, const char *sep_wide)
{
    std::string s;
    for (int i = 0; i < count; ++i) {
        if (i && ft->m > 10) s += sep_wide;
        s += std::to_string(d[i]);
    }
    return s;
}

std::string dashed(const char *prefix, const int *d, int count)
{
    std::string s = prefix;
    for (int i = 0; i < count; ++i) s += (i ? "-" : "") + std::to_string(d[i]);
    return s;
}

/* Split "3-0-0" / "3.0.0" / "300" into digits; false if malformed. */
bool split_digits(const pm_ft_t *ft, const std::string &s, int want, std::vector<int> &out)
{
    out.clear();
    if (s.find_first_of("-.,") == std::string::npos && want == 1 && !s.empty() && s.size() <= 6 &&
        s.find_first_not_of("0123456789") == std::string::npos) {
        out.push_back(std::stoi(s));
        return true;
    }
    if (s.find_first_of("-.,") == std::string::npos) {
        if (ft->m > 10 || (int)s.size() != want) return false;
        for (char c : s) {
            if (c < '0' || c > '9') return false;
            out.push_back(c - '0');
        }
        return true;
    }
    std::string cur;
    for (size_t i = 0; i <= s.size(); ++i) {
        if (i == s.size() || s[i] == '-' || s[i] == '.' || s[i] == ',') {
            if (cur.empty() || cur.size() > 6) return false;
            out.push_back(std::stoi(cur));
            cur.clear();
        } else if (s[i] >= '0' && s[i] <= '9') {
            cur += s[i];
        } else {
            return false;
        }
    }
    return (int)out.size() == want;
}

std::string hex_guid(uint64_t g)
{
    char b[32];
    snprintf(b, sizeof(b), "0x%016" PRIx64, g);
    return b;
}

std::string lid4(int lid)
{
    char b[16];
    snprintf(b, sizeof(b), "0x%04x", lid);
    return b;
}

void check_lid_range(const pm_ft_t *ft, const std::vector<int> &swlid)
{
    long top = ft->lid_origin + (long)ft->nnodes * ft->lids_per_node - 1;
    for (int l : swlid) top = std::max<long>(top, l);
    if (top > kMaxUnicastLid)
        throw ArgError(PM_ERR_UNSUPPORTED, "IBFT(" + std::to_string(ft->m) + ", " + std::to_string(ft->n) +
                                               ") needs LIDs up to " + std::to_string(top) +
                                               ", above the unicast range 0xbfff");
    if (ft->layout == PM_FT_LIDS_SEED && ft->lmc > 0)
        throw ArgError(PM_ERR_UNSUPPORTED, "the seed's LIDs (BaseLID = 2^LMC PID + 1) are not LMC-aligned; "
                                           "InfiniBand files need the IBA layout");
}
}  // namespace

std::string node_label(const pm_ft_t *ft, int pid)
{
    int d[PM_FT_MAX_N];
    digits_of(ft, pid, d);
    return join_digits(ft, d, ft->n, ".");
}

std::string node_name(const pm_ft_t *ft, int pid)
{
    int d[PM_FT_MAX_N];
    digits_of(ft, pid, d);
    return dashed("p", d, ft->n);
}

std::string switch_label(const pm_ft_t *ft, int sw)
{
    int l, w[PM_FT_MAX_N];
    switch_coords(ft, sw, &l, w);
    return "SW<" + join_digits(ft, w, ft->n - 1, ".") + "," + std::to_string(l) + ">";
}

std::string switch_name(const pm_ft_t *ft, int sw)
{
    int l, w[PM_FT_MAX_N];
    switch_coords(ft, sw, &l, w);
    return dashed("sw", w, ft->n - 1) + "." + std::to_string(l);
}

int node_parse(const pm_ft_t *ft, const std::string &text)
{
    std::string s = text;
    if (s.size() > 3 && (s[0] == 'P' || s[0] == 'p') && s[1] == '(' && s.back() == ')')
        s = s.substr(2, s.size() - 3);
    else if (!s.empty() && s[0] == 'p')
        s = s.substr(1);
    std::vector<int> d;
    if (!split_digits(ft, s, ft->n, d))
        throw ArgError(PM_ERR_ARG, "'" + text + "' is not a node of IBFT(" + std::to_string(ft->m) + ", " +
                                       std::to_string(ft->n) + ") (expected " + std::to_string(ft->n) +
                                       " digits, e.g. " + node_label(ft, ft->nnodes - 1) + " or " +
                                       node_name(ft, ft->nnodes - 1) + ")");
    try {
        return pid_of(ft, d.data());
    } catch (const ArgError &) {
        throw ArgError(PM_ERR_ARG, "'" + text + "': a digit is out of range (p0 < m, others < m/2)");
    }
}

int switch_parse(const pm_ft_t *ft, const std::string &text)
{
    std::string w, lv;
    if (text.compare(0, 3, "SW<") == 0 && text.back() == '>') {
        size_t comma = text.rfind(',');
        if (comma == std::string::npos) throw ArgError(PM_ERR_ARG, "'" + text + "' is not a switch");
        w = text.substr(3, comma - 3);
        lv = text.substr(comma + 1, text.size() - comma - 2);
    } else if (text.compare(0, 2, "sw") == 0) {
        size_t dot = text.rfind('.');
        if (dot == std::string::npos) throw ArgError(PM_ERR_ARG, "'" + text + "' is not a switch");
        w = text.substr(2, dot - 2);
        lv = text.substr(dot + 1);
    } else {
        throw ArgError(PM_ERR_ARG, "'" + text + "' is not a switch (SW<20,1> or sw2-0.1)");
    }
    std::vector<int> d;
    if (lv.empty() || lv.find_first_not_of("0123456789") != std::string::npos ||
        (ft->n > 1 && !split_digits(ft, w, ft->n - 1, d)) || (ft->n == 1 && !w.empty()))
        throw ArgError(PM_ERR_ARG, "'" + text + "' is not a switch of this fat-tree");
    return switch_id(ft, std::stoi(lv), d.data());
}

uint64_t switch_guid(int sw) { return kSwitchGuid + (uint64_t)sw + 1; }
uint64_t node_port_guid(int pid) { return kNodeGuid + ((uint64_t)pid + 1) * 16 + 1; }

bool guid_lookup(const pm_ft_t *ft, uint64_t guid, int *is_node, int *id)
{
    uint64_t low = guid & kGuidMask;
    if ((guid & ~kGuidMask) == kSwitchGuid && low >= 1 && low <= (uint64_t)ft->nswitches) {
        *is_node = 0;
        *id = (int)low - 1;
        return true;
    }
    if ((guid & ~kGuidMask) == kNodeGuid && (low & 15) == 1 && (low >> 4) >= 1 &&
        (low >> 4) <= (uint64_t)ft->nnodes) {
        *is_node = 1;
        *id = (int)(low >> 4) - 1;
        return true;
    }
    return false;
}

std::vector<int> default_switch_lids(const pm_ft_t *ft)
{
    std::vector<int> v(ft->nswitches);
    for (int s = 0; s < ft->nswitches; ++s) v[s] = ft->lid_origin + ft->nnodes * ft->lids_per_node + s;
    return v;
}

std::string write_ibnet(const pm_ft_t *ft)
{
    std::ostringstream os;
    os << "# IBFT(" << ft->m << ", " << ft->n << "): m-port n-tree (seed 004 sec 2.2), " << ft->nswitches
       << " switches, " << ft->nnodes << " nodes; generated by coll_pathmc (pm_ft_write_ibnet).\n"
       << "# Switch SW<w,l> is S-sw<w>.<l>, node P(p) is H-p<p>; GUIDs are deterministic.\n";
    auto peer_id = [&](const pm_ft_peer_t &pe) {
        return pe.is_node ? "H-" + node_name(ft, pe.id) : "S-" + switch_name(ft, pe.id);
    };
    for (int s = 0; s < ft->nswitches; ++s) {
        std::string nm = switch_name(ft, s);
        os << "\nswitchguid=" << hex_guid(switch_guid(s)) << "\nSwitch\t" << ft->m << " \"S-" << nm << "\"\t\t# \""
           << nm << "\"\n";
        for (int k = 1; k <= ft->m; ++k) {
            pm_ft_peer_t pe = port_peer(ft, s, k);
            os << "[" << k << "]\t\"" << peer_id(pe) << "\"[" << pe.port << "]\n";
        }
    }
    for (int v = 0; v < ft->nnodes; ++v) {
        std::string nm = node_name(ft, v);
        int sw, port;
        node_attach(ft, v, &sw, &port);
        os << "\ncaguid=" << hex_guid(node_port_guid(v) - 1) << "\nHca\t1 \"H-" << nm << "\"\t\t# \"" << nm
           << "\"\n[1]\t\"S-" << switch_name(ft, sw) << "\"[" << port << "]\n";
    }
    return os.str();
}

std::string write_guid2lid(const pm_ft_t *ft, const std::vector<int> &swlid)
{
    check_lid_range(ft, swlid);
    std::ostringstream os;
    for (int v = 0; v < ft->nnodes; ++v) {
        int b = ft->lid_origin + v * ft->lids_per_node;
        os << hex_guid(node_port_guid(v)) << " " << lid4(b) << " " << lid4(b + ft->lids_per_node - 1) << "\n\n";
    }
    for (int s = 0; s < ft->nswitches; ++s)
        os << hex_guid(switch_guid(s)) << " " << lid4(swlid[s]) << " " << lid4(swlid[s]) << "\n\n";
    return os.str();
}

std::vector<int> read_guid2lid(const pm_ft_t *ft, const std::string &text)
{
    std::vector<int> swlid(ft->nswitches, -1);
    std::istringstream is(text);
    std::string line;
    int lineno = 0;
    while (std::getline(is, line)) {
        ++lineno;
        std::string where = "guid2lid:" + std::to_string(lineno) + ": ";
        size_t b = line.find_first_not_of(" \t\r");
        if (b == std::string::npos || line[b] == '#') continue;
        unsigned long long g = 0;
        unsigned lo = 0, hi = 0;
        if (sscanf(line.c_str() + b, "%llx %x %x", &g, &lo, &hi) != 3)
            throw ParseError(where + "expected '0xGUID 0xMINLID 0xMAXLID'");
        int is_node, id;
        if (!guid_lookup(ft, g, &is_node, &id))
            throw ParseError(where + "GUID " + hex_guid(g) + " is not a port of our IBFT(" + std::to_string(ft->m) +
                             ", " + std::to_string(ft->n) + ") net file");
        if (is_node) {
            int base = ft->lid_origin + id * ft->lids_per_node;
            if ((int)lo != base || (int)hi != base + ft->lids_per_node - 1)
                throw ParseError(where + "P(" + node_label(ft, id) + ") has LIDs " + std::to_string(lo) + ".." +
                                 std::to_string(hi) + ", the model gives it " + std::to_string(base) + ".." +
                                 std::to_string(base + ft->lids_per_node - 1));
        } else {
            if (lo != hi) throw ParseError(where + "a switch with more than one LID");
            swlid[id] = (int)lo;
        }
    }
    for (int s = 0; s < ft->nswitches; ++s)
        if (swlid[s] < 0) throw ParseError("guid2lid: no LID for switch " + switch_name(ft, s));
    return swlid;
}

std::string write_lfts(const pm_ft_t *ft, const std::vector<int> &swlid)
{
    check_lid_range(ft, swlid);
    /* port toward switch t at switch s: towards[t][s] */
    std::vector<std::vector<unsigned char>> towards(ft->nswitches);
    for (int t = 0; t < ft->nswitches; ++t) {
        std::vector<int> dist = switch_distances(ft, t);
        towards[t].resize(ft->nswitches);
        for (int s = 0; s < ft->nswitches; ++s) towards[t][s] = s == t ? 0 : (unsigned char)toward(ft, dist, s);
    }
    std::ostringstream os;
    for (int s = 0; s < ft->nswitches; ++s) {
        std::map<int, std::pair<int, std::string>> rows;   /* lid -> port, info */
        for (int v = 0; v < ft->nnodes; ++v) {
            int base = ft->lid_origin + v * ft->lids_per_node;
            for (int r = 0; r < ft->lids_per_node; ++r) {
                std::string info = r == 0 ? "(Channel Adapter portguid " + hex_guid(node_port_guid(v)) + ": '" +
                                                node_name(ft, v) + "')"
                                          : "(path #" + std::to_string(r + 1) + " out of " +
                                                std::to_string(ft->lids_per_node) + ": portguid " +
                                                hex_guid(node_port_guid(v)) + ")";
                rows[base + r] = {lft_port(ft, s, v, r), info};
            }
        }
        for (int t = 0; t < ft->nswitches; ++t)
            rows[swlid[t]] = {towards[t][s],
                              "(Switch portguid " + hex_guid(switch_guid(t)) + ": '" + switch_name(ft, t) + "')"};
        char head[256];
        snprintf(head, sizeof(head), "Unicast lids [0x0-0x%x] of switch Lid %d guid %s (%s):\n", rows.rbegin()->first,
                 swlid[s], hex_guid(switch_guid(s)).c_str(), switch_name(ft, s).c_str());
        os << head << "  Lid  Out   Destination\n       Port     Info \n";
        for (const auto &r : rows) {
            char b[32];
            snprintf(b, sizeof(b), "0x%04x %03d : ", r.first, r.second.first);
            os << b << r.second.second << "\n";
        }
        os << rows.size() << " valid lids dumped \n";
    }
    return os.str();
}

std::string write_mfts(const pm_ft_t *ft, const std::vector<int> &swlid, int ngroups, const int *mlids,
                       const uint64_t *mfts)
{
    check_lid_range(ft, swlid);
    int width = ft->m <= 9 ? 2 : 3, top = 0xc000;
    std::vector<int> order(ngroups);
    for (int g = 0; g < ngroups; ++g) {
        if (mlids[g] < 0xc000 || mlids[g] > 0xfffe)
            throw ArgError(PM_ERR_ARG, "MLID " + lid4(mlids[g]) + " outside the multicast range 0xc000..0xfffe");
        order[g] = g;
        top = std::max(top, mlids[g]);
    }
    std::sort(order.begin(), order.end(), [&](int a, int b) { return mlids[a] < mlids[b]; });
    std::ostringstream os;
    for (int s = 0; s < ft->nswitches; ++s) {
        char head[256];
        snprintf(head, sizeof(head), "Multicast mlids [0xc000-0x%x] of switch Lid %d guid %s (%s):\n", top, swlid[s],
                 hex_guid(switch_guid(s)).c_str(), switch_name(ft, s).c_str());
        os << head << "     Ports:";
        for (int k = 0; k <= ft->m; ++k) {
            char b[16];
            snprintf(b, sizeof(b), "%*d", width, k);
            os << b;
        }
        os << " \n MLid\n";
        int rows = 0;
        for (int g : order) {
            uint64_t set = mfts[(size_t)g * ft->nswitches + s];
            if (!set) continue;
            os << lid4(mlids[g]) << std::string(5, ' ');   /* 'x' under column 11 + width (k + 1) - 1 */
            for (int k = 0; k <= ft->m; ++k) os << std::string(width - 1, ' ') << ((set >> k & 1) ? 'x' : ' ');
            os << " \n";
            ++rows;
        }
        os << rows << " valid mlids dumped \n";
    }
    return os.str();
}

}  // namespace ft
}  // namespace pm
