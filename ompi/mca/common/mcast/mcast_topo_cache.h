/*
 * Topology and coordinates files, read and parsed once per process (not once per
 * communicator): a 16-byte "torus 1024x1024" line builds 2^20 hosts, seconds of work
 * that the first broadcast of every communicator would otherwise repeat.
 *
 * Entries are keyed by path and live until mcast_topo_cache_fini() (component close,
 * through mcast_locality_cache_fini).  A failure is cached too: a bad file is read,
 * and reported, once.  Each component .so links its own copy of the glue, so "once
 * per process" is once per component.  Thread safe (one lock; the parse runs under
 * it).  Cached topologies are shared read-only (pathmc.h: the queries and
 * pm_order_hosts may run concurrently); never pm_topology_free() one.
 */
#ifndef MCAST_TOPO_CACHE_H
#define MCAST_TOPO_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pm_topology;

/* The topology parsed from `path` (format detected), or NULL with err set to the
 * parser's "path:line: message".  *digest (may be NULL) receives kb_digest64 of the
 * file's bytes, 0 when the file could not be read: the value ranks compare to agree
 * that they read the same file. */
const struct pm_topology *mcast_topo_cache_get(const char *path, uint64_t *digest, char *err,
                                               size_t errlen);

/* The digest ranks compare for a topology or coordinates file, from the cache (so the
 * file is opened once per process, for the digest and the parse together): 0 for no
 * file (NULL or ""), a fixed "cannot read" value that differs from every content digest
 * when the file cannot be read. */
uint64_t mcast_topo_file_digest(const char *path);

/* True the first time it is called with `key` in this process: a message about a
 * file (or any other key) is printed once, not once per communicator. */
bool mcast_warn_once(const char *key);

/* Free every entry (component close). */
void mcast_topo_cache_fini(void);

#endif /* MCAST_TOPO_CACHE_H */
