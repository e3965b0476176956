/* Topology files parsed once per process: see mcast_topo_cache.h. */
#include "mcast_topo_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ompi/mca/common/mcast/mcast_compat.h"
#include "kb_file.h"
#include "pathmc.h"

typedef struct mcast_topo_entry {
    struct mcast_topo_entry *next;
    char *key;                 /* the path (topology entries) or a warning key */
    bool is_topology;
    pm_topology_t *topo;       /* NULL: the file cannot be used (err says why) */
    uint64_t digest;           /* kb_digest64 of the bytes, 0 when unreadable */
    char err[256];
} mcast_topo_entry_t;

static mcast_topo_entry_t *entries = NULL;
static opal_mutex_t cache_lock = OPAL_MUTEX_STATIC_INIT;

static mcast_topo_entry_t *find(const char *key, bool is_topology)
{
    for (mcast_topo_entry_t *e = entries; NULL != e; e = e->next) {
        if (e->is_topology == is_topology && 0 == strcmp(e->key, key)) {
            return e;
        }
    }
    return NULL;
}

static mcast_topo_entry_t *add(const char *key, bool is_topology)
{
    mcast_topo_entry_t *e = calloc(1, sizeof(*e));
    if (NULL == e || NULL == (e->key = strdup(key))) {
        free(e);
        return NULL;
    }
    e->is_topology = is_topology;
    e->next = entries;
    entries = e;
    return e;
}

/* Read once, digest the bytes, parse the same bytes (no second read that could see
 * a different file). */
static void load(mcast_topo_entry_t *e)
{
    char *text = NULL;
    size_t len = 0;
    if (KB_OK != kb_file_read(e->key, PM_MAX_FILE_BYTES, &text, &len, e->err, sizeof(e->err))) {
        return;
    }
    e->digest = kb_digest64(text, len);
    if (PM_OK != pm_topology_parse_string(text, PM_FMT_AUTO, e->key, &e->topo, e->err,
                                          sizeof(e->err))) {
        e->topo = NULL;
    }
    free(text);
}

const struct pm_topology *mcast_topo_cache_get(const char *path, uint64_t *digest, char *err,
                                               size_t errlen)
{
    const pm_topology_t *topo = NULL;
    OPAL_THREAD_LOCK(&cache_lock);
    mcast_topo_entry_t *e = find(path, true);
    if (NULL == e && NULL != (e = add(path, true))) {
        load(e);
    }
    if (NULL == e) {
        snprintf(err, errlen, "%s:0: out of memory", path);
    } else {
        topo = e->topo;
        if (NULL == topo) {
            snprintf(err, errlen, "%s", e->err);
        }
    }
    if (NULL != digest) {
        *digest = (NULL != e) ? e->digest : 0;
    }
    OPAL_THREAD_UNLOCK(&cache_lock);
    return topo;
}

bool mcast_warn_once(const char *key)
{
    OPAL_THREAD_LOCK(&cache_lock);
    bool first = NULL == find(key, false);
    if (first) {
        (void) add(key, false); /* out of memory: warn again next time */
    }
    OPAL_THREAD_UNLOCK(&cache_lock);
    return first;
}

void mcast_topo_cache_fini(void)
{
    OPAL_THREAD_LOCK(&cache_lock);
    while (NULL != entries) {
        mcast_topo_entry_t *e = entries;
        entries = e->next;
        pm_topology_free(e->topo);
        free(e->key);
        free(e);
    }
    OPAL_THREAD_UNLOCK(&cache_lock);
}

uint64_t mcast_topo_file_digest(const char *path)
{
    if (NULL == path || '\0' == path[0]) {
        return 0;
    }
    uint64_t digest = 0;
    char err[256];
    (void) mcast_topo_cache_get(path, &digest, err, sizeof(err));
    return 0 != digest ? digest : 0x6e6f7420726561ull; /* "cannot read" */
}
