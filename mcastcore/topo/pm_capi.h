/*
 * Helpers of the core's C API boundary, shared by pm_api.cpp and
 * pm_worms_api.cpp: error messages, exception translation (no C++ exception
 * leaves a C entry point), host names to node ids.
 */
#ifndef PM_CAPI_H
#define PM_CAPI_H

#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "topo/pm_internal.h"

namespace pm {

static inline void set_err(char *buf, size_t len, const std::string &msg)
{
    if (buf && len > 0) snprintf(buf, len, "%s", msg.c_str());
}

#define PM_GUARD(errbuf, errlen, ...)                                  \
    try {                                                               \
        __VA_ARGS__                                                     \
    } catch (const ParseError &e) {                                     \
        set_err((errbuf), (errlen), e.what());                          \
        return PM_ERR_PARSE;                                            \
    } catch (const ArgError &e) {                                       \
        set_err((errbuf), (errlen), e.what());                          \
        return e.code;                                                  \
    } catch (const std::bad_alloc &) {                                  \
        set_err((errbuf), (errlen), "out of memory");                   \
        return PM_ERR_NOMEM;                                            \
    } catch (const std::exception &e) {                                 \
        set_err((errbuf), (errlen), e.what());                          \
        return PM_ERR_INTERNAL;                                         \
    } catch (...) {                                                     \
        set_err((errbuf), (errlen), "unknown exception");               \
        return PM_ERR_INTERNAL;                                         \
    }

static inline int host_ids(const Topology &t, int n, const char *const *hosts, std::vector<int> &out)
{
    out.resize(n);
    for (int r = 0; r < n; ++r) {
        if (!hosts[r]) throw ArgError(PM_ERR_ARG, "NULL host name for rank " + std::to_string(r));
        int id = t.find(hosts[r]);
        if (id < 0 || !t.nodes[id].is_host)
            throw ArgError(PM_ERR_NOTFOUND, std::string("unknown host '") + hosts[r] + "' (rank " + std::to_string(r) + ")");
        out[r] = id;
    }
    return PM_OK;
}

}  // namespace pm

#endif /* PM_CAPI_H */
