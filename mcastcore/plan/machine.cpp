/*
 * The machine model's keys, from one table (issue 45): each row names a key of the
 * machine file, the field of mcast_machine_t it sets, its kind (a real, whole bytes, a
 * 0/1 flag), its built-in value, when mcast_machine_write writes it, and its meaning.
 * mcast_machine_default, the parser, the writer, the digest ranks compare
 * (mcast_machine_digest) and the key list of docs/machine-model.md
 * (mcast-inspect --machine-keys) all walk it: a new key is one row here (and its use).
 * Format and meanings: docs/machine-model.md.
 */
#include "mcast_planner.h"
#include "pathmc.h"
#include "base/kb_core.hpp"
#include "kb_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>

#define MC_API extern "C" __attribute__((visibility("default")))

namespace {

using kb::guarded;
using MachineError = kb::ArgError;

constexpr size_t MACHINE_MAX_BYTES = 64 * 1024;
constexpr double SEGMENT_MAX_BYTES = double(size_t(16) << 20); /* the planner's largest block */

enum class Kind { Real, Bytes, Flag, Segment };
/* When the writer writes a key: always, or only where it differs from "unset". */
enum class Write { Always, IfPositive, IfNonzero, IfNotOne, IfNonNegative, IfHopLatency };

struct MachineKey {
    const char *name; /* "net.o_send_us" */
    Kind kind;
    double builtin;
    Write write;
    void *(*field)(mcast_machine_t &);
    const char *doc;
};

#define FIELD(expr) [](mcast_machine_t &m) -> void * { return &m.expr; }

/* The order is the writer's.  The built-in values (column builtin) describe an
 * InfiniBand-class network; inside a node, copy in/out below 4 KiB (eager) and single
 * copy by the receiver above; the shared segment's copy cost and hand-over are
 * mcast-calibrate's (evidence E-CAL-2). */
const MachineKey KEYS[] = {
    {"net.o_send_us", Kind::Real, 0.5, Write::Always, FIELD(net.o_send_us),
     "time a rank is busy posting one send"},
    {"net.o_recv_us", Kind::Real, 0.5, Write::Always, FIELD(net.o_recv_us),
     "time a rank is busy completing one receive"},
    {"net.latency_us", Kind::Real, 1.5, Write::Always, FIELD(net.latency_us), "wire latency"},
    {"net.gap_ns_per_byte", Kind::Real, 0.1, Write::Always, FIELD(net.gap_ns_per_byte),
     "injection time per byte at the sender (port busy; overlaps the next copy's `o_send` when "
     "copies are posted at once)"},
    {"net.wire_ns_per_byte", Kind::Real, 0.1, Write::Always, FIELD(net.wire_ns_per_byte),
     "transfer time per byte on the way"},
    {"net.recv_ns_per_byte", Kind::Real, 0.0, Write::Always, FIELD(net.recv_ns_per_byte),
     "receiver's per-byte cost"},
    {"net.eager_bytes", Kind::Bytes, 65536, Write::Always, FIELD(net.eager_bytes),
     "messages above it leave the sender only when the receive is posted (rendezvous)"},
    {"shm.o_send_us", Kind::Real, 0.3, Write::Always, FIELD(shm.o_send_us),
     "as `net.o_send_us`, inside a node"},
    {"shm.o_recv_us", Kind::Real, 0.3, Write::Always, FIELD(shm.o_recv_us),
     "as `net.o_recv_us`, inside a node"},
    {"shm.latency_us", Kind::Real, 0.2, Write::Always, FIELD(shm.latency_us),
     "as `net.latency_us`, inside a node"},
    {"shm.gap_ns_per_byte", Kind::Real, 0.1, Write::Always, FIELD(shm.gap_ns_per_byte),
     "as `net.gap_ns_per_byte`, inside a node"},
    {"shm.wire_ns_per_byte", Kind::Real, 0.0, Write::Always, FIELD(shm.wire_ns_per_byte),
     "as `net.wire_ns_per_byte`, inside a node"},
    {"shm.recv_ns_per_byte", Kind::Real, 0.1, Write::Always, FIELD(shm.recv_ns_per_byte),
     "the receiver's copy out of shared memory, per byte"},
    {"shm.eager_bytes", Kind::Bytes, 4096, Write::Always, FIELD(shm.eager_bytes),
     "as `net.eager_bytes`, inside a node"},
    {"net.hop_latency_us", Kind::Real, 0.0, Write::IfPositive, FIELD(hop_latency_us),
     "each link of a route more than `net.latency_links` adds this much, each link less saves "
     "it (0: every route alike; used where a topology names the routes)"},
    {"net.latency_links", Kind::Real, 0.0, Write::IfHopLatency, FIELD(latency_links),
     "the links of the route whose latency is `net.latency_us`"},
    {"net.host_links", Kind::Real, 0.0, Write::IfNotOne, FIELD(host_links),
     "a host's own link to the network carries this many links' worth (0 = 1); used with a "
     "topology, for the links' bound and for whole messages on a flow-level network"},
    {"net.switch_links", Kind::Real, 0.0, Write::IfNotOne, FIELD(switch_links),
     "a link between two switches carries this many links' worth (0 = 1; leaf uplinks faster "
     "than the hosts' links); used with a topology, as `net.host_links`"},
    {"net.sync_wait_us", Kind::Real, -1.0, Write::IfNonNegative, FIELD(sync_wait_us),
     "what a synchronous send waits for after its bytes arrived (the receiver's match and its "
     "acknowledgement; unset = `net.o_recv_us`)"},
    {"net.shared_flows", Kind::Flag, 0, Write::Always, FIELD(net.shared_flows),
     "0 or 1: whether a sender's messages in flight to one peer share its link as flows (1, "
     "SimGrid) or leave one after the other (0: a TCP connection, an InfiniBand queue pair)"},
    {"net.host_transit", Kind::Flag, 0, Write::IfNonzero, FIELD(host_transit),
     "0 or 1: 1 = a node's interface (`net.host_links` wide) is one resource for what its host "
     "sends, receives and what leaves its router in transit (SimGrid's torus); 0 = injection "
     "and ejection are two links and transit passes the router only"},
    {"net.segment_min_bytes", Kind::Segment, 0, Write::IfNonzero, FIELD(net_segment_min_bytes),
     "the smallest block the planner may choose across nodes (whole bytes, at most 16 MiB; "
     "0 = 8 KiB)"},
    {"shm.copy_ns_per_byte", Kind::Real, 0.03, Write::Always, FIELD(shm_copy_ns_per_byte),
     "memcpy into or out of a node's shared segment, per byte"},
    {"shm.handover_us", Kind::Real, 0.1, Write::Always, FIELD(shm_handover_us),
     "a chunk published by one core seen by another"},
};
constexpr int NKEYS = int(sizeof(KEYS) / sizeof(KEYS[0]));

#undef FIELD

double get(const MachineKey &k, const mcast_machine_t &m)
{
    void *p = k.field(const_cast<mcast_machine_t &>(m));
    switch (k.kind) {
    case Kind::Real:
        return *static_cast<double *>(p);
    case Kind::Bytes:
    case Kind::Segment:
        return double(*static_cast<size_t *>(p));
    case Kind::Flag:
        return double(*static_cast<int *>(p));
    }
    return 0.0;
}

void set(const MachineKey &k, mcast_machine_t &m, double v)
{
    void *p = k.field(m);
    switch (k.kind) {
    case Kind::Real:
        *static_cast<double *>(p) = v;
        break;
    case Kind::Bytes:
    case Kind::Segment:
        *static_cast<size_t *>(p) = size_t(v);
        break;
    case Kind::Flag:
        *static_cast<int *>(p) = int(v);
        break;
    }
}

bool written(const MachineKey &k, const mcast_machine_t &m)
{
    const double v = get(k, m);
    switch (k.write) {
    case Write::Always:
        return true;
    case Write::IfPositive:
        return v > 0.0;
    case Write::IfNonzero:
        return v != 0.0;
    case Write::IfNotOne:
        return v > 0.0 && v != 1.0;
    case Write::IfNonNegative:
        return v >= 0.0;
    case Write::IfHopLatency:
        return m.hop_latency_us > 0.0;
    }
    return true;
}

const MachineKey *find_key(const std::string &name)
{
    for (const MachineKey &k : KEYS) {
        if (name == k.name) {
            return &k;
        }
    }
    return nullptr;
}

void parse_machine(const std::string &text, const std::string &name, mcast_machine_t &m)
{
    if (text.size() > MACHINE_MAX_BYTES) {
        throw MachineError(name + ": larger than 64 KiB");
    }
    std::istringstream is(text);
    std::string line;
    int ln = 0;
    bool version = false;
    auto err = [&](const std::string &what) {
        throw MachineError(name + ":" + std::to_string(ln) + ": " + what);
    };
    while (std::getline(is, line)) {
        ++ln;
        const size_t hash = line.find('#');
        if (hash != std::string::npos) {
            line.erase(hash);
        }
        std::istringstream ls(line);
        std::string key;
        if (!(ls >> key)) {
            continue;
        }
        if (key == "version") {
            int v = 0;
            if (!(ls >> v) || v != 1) {
                err("unsupported version (this reader knows version 1)");
            }
            version = true;
            continue;
        }
        if (!version) {
            err("the first statement must be 'version 1'");
        }
        if (key == "provenance") {
            std::string rest;
            std::getline(ls, rest);
            const size_t b = rest.find_first_not_of(" \t");
            rest = b == std::string::npos ? "" : rest.substr(b);
            std::snprintf(m.source, sizeof(m.source), "%s (%s)", name.c_str(), rest.c_str());
            continue;
        }
        const size_t dot = key.find('.');
        if (dot == std::string::npos) {
            err("unknown statement '" + key + "'");
        }
        const std::string part = key.substr(0, dot), field = key.substr(dot + 1);
        if (part != "net" && part != "shm") {
            err("unknown model '" + part + "' (net or shm)");
        }
        const MachineKey *k = find_key(key);
        if (k == nullptr) {
            err("unknown key '" + field + "'");
        }
        std::string val, more;
        if (!(ls >> val) || (ls >> more)) {
            err("expected one value");
        }
        char *end = nullptr;
        errno = 0;
        const double v = std::strtod(val.c_str(), &end);
        if (end == val.c_str() || *end != '\0' || errno != 0 || !std::isfinite(v) || v < 0 ||
            v > 1e12) {
            err("bad value '" + val + "' (a number between 0 and 1e12)");
        }
        if (k->kind == Kind::Flag && v != 0.0 && v != 1.0) {
            err("bad value '" + val + "' (0 or 1)");
        }
        if (k->kind == Kind::Segment && (v != std::floor(v) || v > SEGMENT_MAX_BYTES)) {
            err("bad value '" + val + "' (whole bytes, at most 16 MiB; 0 = 8 KiB)");
        }
        set(*k, m, v);
    }
    if (!version) {
        ln = 1;
        err("empty machine file (expected 'version 1')");
    }
}

/* A regular file of at most `cap` bytes (a directory, a device or a larger file is
 * refused), with errno's text on failure. */
std::string read_small_file(const char *path, size_t cap)
{
    FILE *f = std::fopen(path, "rb");
    if (f == nullptr) {
        throw MachineError(std::string(path) + ": cannot open: " + std::strerror(errno));
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        std::fclose(f);
        throw MachineError(std::string(path) + ": not a regular file");
    }
    std::string text;
    char buf[4096];
    size_t got;
    while ((got = std::fread(buf, 1, sizeof(buf), f)) > 0) {
        text.append(buf, got);
        if (text.size() > cap) {
            std::fclose(f);
            throw MachineError(std::string(path) + ": larger than " + std::to_string(cap) + " bytes");
        }
    }
    std::fclose(f);
    return text;
}

uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    return kb_digest64_more(h, p, n);
}

} // namespace

MC_API void mcast_machine_default(mcast_machine_t *m)
{
    if (m == nullptr) {
        return;
    }
    std::memset(m, 0, sizeof(*m));
    for (const MachineKey &k : KEYS) {
        set(k, *m, k.builtin);
    }
    std::snprintf(m->source, sizeof(m->source), "defaults");
}

MC_API int mcast_machine_parse(const char *text, const char *name, mcast_machine_t *m,
                               char *errbuf, size_t errlen)
{
    if (text == nullptr || m == nullptr) {
        return KB_ERR_ARG;
    }
    return guarded(errbuf, errlen, [&] {
        mcast_machine_t tmp;
        mcast_machine_default(&tmp);
        std::snprintf(tmp.source, sizeof(tmp.source), "%s", name ? name : "machine file");
        parse_machine(text, name ? name : "machine file", tmp);
        *m = tmp;
    });
}

MC_API int mcast_machine_load(const char *path, mcast_machine_t *m, char *errbuf, size_t errlen)
{
    if (path == nullptr || m == nullptr) {
        return KB_ERR_ARG;
    }
    return guarded(errbuf, errlen, [&] {
        const std::string text = read_small_file(path, MACHINE_MAX_BYTES);
        mcast_machine_t tmp;
        mcast_machine_default(&tmp);
        std::snprintf(tmp.source, sizeof(tmp.source), "%s", path);
        parse_machine(text, path, tmp);
        *m = tmp;
    });
}

MC_API int mcast_machine_write(const char *path, const mcast_machine_t *m, const char *provenance)
{
    if (path == nullptr || m == nullptr) {
        return KB_ERR_ARG;
    }
    FILE *f = std::fopen(path, "w");
    if (f == nullptr) {
        return PM_ERR_IO;
    }
    std::fprintf(f, "# mcast machine model (mcast_planner.h)\nversion 1\n");
    if (provenance != nullptr) {
        std::fprintf(f, "provenance %s\n", provenance);
    }
    for (const MachineKey &k : KEYS) {
        if (!written(k, *m)) {
            continue;
        }
        const double v = get(k, *m);
        if (k.kind == Kind::Real) {
            std::fprintf(f, "%s %.6g\n", k.name, v);
        } else {
            std::fprintf(f, "%s %.0f\n", k.name, v);
        }
    }
    return std::fclose(f) == 0 ? int(KB_OK) : int(PM_ERR_IO);
}

MC_API uint64_t mcast_machine_digest(uint64_t h, const mcast_machine_t *m)
{
    if (m == nullptr) {
        return h;
    }
    for (const MachineKey &k : KEYS) {
        const double v = get(k, *m);
        h = fnv(h, &v, sizeof(v));
    }
    return h;
}

MC_API int mcast_machine_key_count(void)
{
    return NKEYS;
}

MC_API int mcast_machine_key_get(int i, const char **name, const char **doc, double *builtin)
{
    if (i < 0 || i >= NKEYS) {
        return KB_ERR_ARG;
    }
    if (name != nullptr) {
        *name = KEYS[i].name;
    }
    if (doc != nullptr) {
        *doc = KEYS[i].doc;
    }
    if (builtin != nullptr) {
        *builtin = KEYS[i].builtin;
    }
    return KB_OK;
}
