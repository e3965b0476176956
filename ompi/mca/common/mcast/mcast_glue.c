/* Shared component glue: see mcast_glue.h. */
#include "mcast_glue.h"
#include "mcast_calib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "mpi.h"
#include "opal/mca/base/mca_base_vari.h"
#include "opal/mca/btl/base/base.h"
#include "ompi/mca/pml/base/base.h"
#include "opal/runtime/opal_progress.h"
#include <time.h>
#include "ompi/mca/common/mcast/mcast_compat.h"
#include "opal/util/output.h"
#include "opal/util/proc.h"
#include "mcast_build_config.h"
#include "kb_param.h"

#define MCAST_FILE_DIGEST_MAX (64 * 1024 * 1024) /* a larger "file" is not one of ours */

static const char *const fallback_names[] = {"silent", "warn", "error", NULL};

/* The text this process's value of parameter idx was read from, as Open MPI 4.1 finds
 * it (mca_base_var.c, var_set_initial): a parameter file read by this process, else the
 * environment (where mpirun puts --mca values and its own files' values, long name
 * first); NULL for the default. */
static const char *param_text(int idx)
{
    const mca_base_var_t *var = NULL;
    if (OPAL_SUCCESS != mca_base_var_get(idx, &var) || NULL == var) {
        return NULL;
    }
    if ((MCA_BASE_VAR_SOURCE_FILE == var->mbv_source ||
         MCA_BASE_VAR_SOURCE_OVERRIDE == var->mbv_source) && NULL != var->mbv_file_value) {
        return ((const mca_base_var_file_value_t *) var->mbv_file_value)->mbvfv_value;
    }
    if (MCA_BASE_VAR_SOURCE_DEFAULT == var->mbv_source ||
        MCA_BASE_VAR_SOURCE_SET == var->mbv_source) {
        return NULL;
    }
    const char *const names[2] = {var->mbv_long_name, var->mbv_full_name};
    for (int i = 0; i < 2; i++) {
        char *env = NULL;
        if (NULL != names[i] && OPAL_SUCCESS == mca_base_var_env_name(names[i], &env)) {
            const char *v = getenv(env);
            free(env);
            if (NULL != v) {
                return v;
            }
        }
    }
    return NULL;
}

/* Whether text, which Open MPI read into storage, is all one value of the type
 * (kb_param.h): Open MPI takes "12abc" as 12, "bogus" as 0, a size "-1" as 2^64 - 1. */
static bool text_is_value(mca_base_var_type_t type, const mca_base_var_enum_t *enumerator,
                          const char *text, const void *storage)
{
    if (NULL == text) {
        return true; /* the default */
    }
    switch (type) {
    case MCA_BASE_VAR_TYPE_INT: {
        int v = 0;
        if (NULL != enumerator) {
            return '\0' != text[0]; /* Open MPI checked the name (it reads "" as 0) */
        }
        return KB_OK == kb_param_int(text, &v) && v == *(const int *) storage;
    }
    case MCA_BASE_VAR_TYPE_SIZE_T: {
        size_t v = 0;
        return KB_OK == kb_param_size(text, &v) && v == *(const size_t *) storage;
    }
    case MCA_BASE_VAR_TYPE_DOUBLE: {
        double v = 0.0;
        return KB_OK == kb_param_double(text, &v) && v == *(const double *) storage;
    }
    default:
        return true; /* a string: any text */
    }
}

/* "coll_kbinomial_window=\"12abc\" is not an int ...: this process uses the default 0". */
static void report_unparsed(const mca_base_component_t *comp, const char *name,
                            mca_base_var_type_t type, mca_base_var_enum_t *enumerator,
                            const char *text, const void *storage)
{
    char dflt[64] = "";
    char choices[160];
    char *enum_name = NULL;
    const char *what = "a string";
    switch (type) {
    case MCA_BASE_VAR_TYPE_INT:
        if (NULL != enumerator &&
            OPAL_SUCCESS == enumerator->string_from_value(enumerator, *(const int *) storage,
                                                          &enum_name)) {
            snprintf(choices, sizeof(choices),
                     "one of its choices (ompi_info --param %s %s --level 9)",
                     comp->mca_type_name, comp->mca_component_name);
            what = choices;
            snprintf(dflt, sizeof(dflt), "%s", enum_name);
        } else {
            what = "an int (suffixes k, m, g: 2^10, 2^20, 2^30)";
            snprintf(dflt, sizeof(dflt), "%d", *(const int *) storage);
        }
        break;
    case MCA_BASE_VAR_TYPE_SIZE_T:
        what = "a byte count, 0 .. 2^64 - 1 (suffixes k, m, g: 2^10, 2^20, 2^30)";
        snprintf(dflt, sizeof(dflt), "%zu", *(const size_t *) storage);
        break;
    case MCA_BASE_VAR_TYPE_DOUBLE:
        what = "a finite number";
        snprintf(dflt, sizeof(dflt), "%g", *(const double *) storage);
        break;
    default:
        break;
    }
    free(enum_name);
    opal_output(0, "coll:%s: %s_%s_%s=\"%s\" is not %s: this process uses the default %s (a "
                   "communicator whose ranks do not all hold the same values is served by the "
                   "module below)",
                comp->mca_component_name, comp->mca_type_name, comp->mca_component_name, name,
                NULL != text ? text : "?", what, dflt);
}

/* Registers one parameter (storage holds its default).  A value this process cannot
 * read leaves the default in storage, says so, and, for a parameter every rank must
 * hold alike, enters its name and text into out->unparsed, so that the first call's
 * agreement treats it as a value that differs from every readable one.  Open MPI
 * refuses some such values (an unknown enum name, an int out of range: the variable is
 * registered but its registration fails, which would drop the whole component on
 * this process only) and reads others leniently (text_is_value).  Returns an error
 * only when the parameter could not be registered at all. */
static int register_param(const mca_base_component_t *comp, const char *name, const char *help,
                          mca_base_var_type_t type, mca_base_var_enum_t *enumerator,
                          mca_base_var_info_lvl_t level, mca_base_var_scope_t scope,
                          void *storage, mcast_common_params_t *out)
{
    if (MCA_BASE_VAR_TYPE_BOOL == type) {
        /* an int flag (the core's structs hold ints) read as Open MPI reads booleans */
        type = MCA_BASE_VAR_TYPE_INT;
        enumerator = &mca_base_var_enum_bool;
    }
    union {
        int i;
        size_t z;
        double d;
    } dflt;
    const size_t width = MCA_BASE_VAR_TYPE_INT == type      ? sizeof(int)
                         : MCA_BASE_VAR_TYPE_SIZE_T == type ? sizeof(size_t)
                         : MCA_BASE_VAR_TYPE_DOUBLE == type ? sizeof(double)
                                                            : 0;
    memcpy(&dflt, storage, width);
    const int rc = mca_base_component_var_register(comp, name, help, type, enumerator, 0, 0,
                                                   level, scope, storage);
    const int idx = (rc >= 0) ? rc
                              : mca_base_var_find(comp->mca_project_name, comp->mca_type_name,
                                                  comp->mca_component_name, name);
    if (idx < 0) {
        return rc;
    }
    const char *text = param_text(idx);
    if (rc >= 0 && text_is_value(type, enumerator, text, storage)) {
        return OPAL_SUCCESS;
    }
    memcpy(storage, &dflt, width);
    report_unparsed(comp, name, type, enumerator, text, storage);
    if (MCA_BASE_VAR_SCOPE_LOCAL != scope) {
        uint64_t h = (0 != out->unparsed) ? out->unparsed : 1469598103934665603ull;
        h = mcast_digest_str(mcast_digest_str(h, name), text);
        out->unparsed = (0 != h) ? h : 1;
    }
    return OPAL_SUCCESS;
}

int mcast_register_enum_param(const mca_base_component_t *comp, const char *name,
                              const char *help, const char *const *names, int *storage,
                              mca_base_var_scope_t scope, mcast_common_params_t *out)
{
    int n = 0;
    while (NULL != names[n]) {
        n++;
    }
    mca_base_var_enum_value_t *values = calloc((size_t) n + 1, sizeof(*values));
    if (NULL == values) {
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    for (int i = 0; i < n; i++) {
        values[i].value = i;
        values[i].string = names[i];
    }
    char enum_name[128];
    snprintf(enum_name, sizeof(enum_name), "%s_%s_%s", comp->mca_type_name,
             comp->mca_component_name, name);
    mca_base_var_enum_t *new_enum = NULL;
    int rc = mca_base_var_enum_create(enum_name, values, &new_enum);
    if (OPAL_SUCCESS == rc) {
        rc = register_param(comp, name, help, MCA_BASE_VAR_TYPE_INT, new_enum, OPAL_INFO_LVL_5,
                            scope, storage, out);
        OBJ_RELEASE(new_enum);
    }
    /* The enum keeps pointers to the strings, which are static; the array is copied. */
    free(values);
    return rc;
}

int mcast_register_vars(const mca_base_component_t *comp, const mcast_var_t *vars, size_t n,
                        mcast_common_params_t *out)
{
    for (size_t i = 0; i < n; i++) {
        int rc = register_param(comp, vars[i].name, vars[i].help, vars[i].type, NULL,
                                vars[i].level, vars[i].scope, vars[i].storage, out);
        if (OPAL_SUCCESS != rc) {
            return rc;
        }
    }
    return OPAL_SUCCESS;
}

int mcast_register_common_params(const mca_base_component_t *comp, int component,
                                 int default_priority, mcast_common_params_t *out)
{
    char help[4096];
    int rc;

    out->abi = MCAST_COMMON_ABI;
    out->job_store = mcast_calib_own_store();
    out->unparsed = 0;
    out->priority = default_priority;
    out->verbose = 0;
    const mcast_var_t vars[] = {
        {"priority", "Priority of this coll component (its bcast and ibcast are used when it is "
                     "the highest priority module providing them); give every rank the same value",
         MCA_BASE_VAR_TYPE_INT, &out->priority, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"verbose", "Verbosity: 0 quiet, >= 1 one line on stderr (from the root) per new plan: "
                    "comm, size, root, bytes, algorithm, parameters, predicted time, "
                    "selected_by; >= 2 also the chain",
         MCA_BASE_VAR_TYPE_INT, &out->verbose, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_LOCAL},
    };
    rc = mcast_register_vars(comp, vars, sizeof(vars) / sizeof(vars[0]), out);
    if (OPAL_SUCCESS != rc) {
        return rc;
    }

    /* Enum and help text from the core's one registry. */
    const int n = mcast_registry_count();
    mca_base_var_enum_value_t *values = calloc((size_t) n + 1, sizeof(*values));
    if (NULL == values) {
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    size_t used = (size_t) snprintf(help, sizeof(help), "Broadcast algorithm:");
    int nv = 0;
    for (int i = 0; i < n; i++) {
        const mcast_alg_info_t *a = mcast_registry_get(i);
        if (0 == (a->component & component)) {
            continue;
        }
        values[nv].value = a->id;
        values[nv].string = a->name;
        nv++;
        if (used < sizeof(help)) {
            used += (size_t) snprintf(help + used, sizeof(help) - used, "%s %s (%s)",
                                      nv > 1 ? ";" : "", a->name, a->description);
        }
    }
    char enum_name[128];
    snprintf(enum_name, sizeof(enum_name), "%s_%s_algorithms", comp->mca_type_name,
             comp->mca_component_name);
    mca_base_var_enum_t *alg_enum = NULL;
    rc = mca_base_var_enum_create(enum_name, values, &alg_enum);
    if (OPAL_SUCCESS == rc) {
        out->algorithm = MCAST_ALG_AUTO;
        rc = register_param(comp, "algorithm", help, MCA_BASE_VAR_TYPE_INT, alg_enum,
                            OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ, &out->algorithm, out);
        OBJ_RELEASE(alg_enum);
    }
    free(values);
    if (OPAL_SUCCESS != rc) {
        return rc;
    }

    out->fallback = MCAST_FALLBACK_SILENT;
    return mcast_register_enum_param(comp, "fallback",
                                     "What to do when this component has no plan for a call: "
                                     "silent (use the previous module's bcast), warn (same, with a "
                                     "message on stderr), error (the call fails with "
                                     "MPI_ERR_UNSUPPORTED_OPERATION; tests use this)",
                                     fallback_names, &out->fallback, MCA_BASE_VAR_SCOPE_ALL_EQ,
                                     out);
}

void mcast_param_range(const char *component, const char *name, int *value, int lo, int hi,
                       int dflt)
{
    if (*value < lo || *value > hi) {
        if (0 == OPAL_PROC_MY_NAME.vpid) {
            opal_output(0, "coll:%s: coll_%s_%s=%d is outside [%d, %d]; using %d", component,
                        component, name, *value, lo, hi, dflt);
        }
        *value = dflt;
    }
}

void mcast_param_range_size(const char *component, const char *name, size_t *value, size_t lo,
                            size_t hi, size_t dflt)
{
    if (*value < lo || *value > hi) {
        if (0 == OPAL_PROC_MY_NAME.vpid) {
            opal_output(0, "coll:%s: coll_%s_%s=%zu is outside [%zu, %zu]; using %zu", component,
                        component, name, *value, lo, hi, dflt);
        }
        *value = dflt;
    }
}

uint64_t mcast_digest_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t mcast_digest_str(uint64_t h, const char *s)
{
    return (NULL == s) ? mcast_digest_bytes(h, "", 1) : mcast_digest_bytes(h, s, strlen(s) + 1);
}

/* Files digested so far, by path: components digest their files at every new
 * communicator, the file is read once per process. */
#define MCAST_DIGEST_CACHE 8
static char *digest_path[MCAST_DIGEST_CACHE];
static uint64_t digest_value[MCAST_DIGEST_CACHE];
static int digest_next = 0;
static opal_mutex_t digest_lock = OPAL_MUTEX_STATIC_INIT;

uint64_t mcast_file_digest(const char *path)
{
    if (NULL == path || '\0' == path[0]) {
        return 0;
    }
    OPAL_THREAD_LOCK(&digest_lock);
    for (int i = 0; i < MCAST_DIGEST_CACHE; i++) {
        if (NULL != digest_path[i] && 0 == strcmp(digest_path[i], path)) {
            const uint64_t v = digest_value[i];
            OPAL_THREAD_UNLOCK(&digest_lock);
            return v;
        }
    }
    uint64_t h = 1469598103934665603ull;
    struct stat st;
    FILE *f = fopen(path, "rb");
    if (NULL == f || 0 != fstat(fileno(f), &st) || !S_ISREG(st.st_mode) ||
        st.st_size > MCAST_FILE_DIGEST_MAX) {
        h = 0x6e6f7420726561ull; /* "cannot read": differs from any content digest */
    } else {
        char buf[8192];
        size_t got;
        while ((got = fread(buf, 1, sizeof(buf), f)) > 0) {
            h = mcast_digest_bytes(h, buf, got);
        }
    }
    if (NULL != f) {
        fclose(f);
    }
    free(digest_path[digest_next]);
    digest_path[digest_next] = strdup(path);
    digest_value[digest_next] = h;
    digest_next = (digest_next + 1) % MCAST_DIGEST_CACHE;
    OPAL_THREAD_UNLOCK(&digest_lock);
    return h;
}

/* Open MPI's mpi_yield_when_idle as set at MPI_Init.  The PML probes of mcast_pml.c turn
 * it off while they run (mcast_noyield_begin / _end): read directly, another thread would
 * see the probe's value, plan for a node that is not oversubscribed while its peers plan
 * for one that is, and the ranks' schedules would no longer match (docs/architecture.md,
 * "Threads").  Two probes at once (threads) must also not restore each other's value:
 * the first saves the setting, the last restores it. */
static opal_mutex_t yield_lock = OPAL_MUTEX_STATIC_INIT;
static int noyield_depth = 0;
static bool yield_saved = false;

void mcast_noyield_begin(void)
{
    OPAL_THREAD_LOCK(&yield_lock);
    if (0 == noyield_depth++) {
        yield_saved = opal_progress_set_yield_when_idle(false);
    }
    OPAL_THREAD_UNLOCK(&yield_lock);
}

void mcast_noyield_end(void)
{
    OPAL_THREAD_LOCK(&yield_lock);
    if (0 == --noyield_depth) {
        opal_progress_set_yield_when_idle(yield_saved);
    }
    OPAL_THREAD_UNLOCK(&yield_lock);
}

bool mcast_yield_when_idle(void)
{
    OPAL_THREAD_LOCK(&yield_lock);
    const bool y = noyield_depth > 0 ? yield_saved : opal_progress_yield_when_idle;
    OPAL_THREAD_UNLOCK(&yield_lock);
    return y;
}

/* Waiting inside a blocking broadcast where Open MPI yields when idle (a node with more
 * ranks than cores, or mpi_yield_when_idle set).  opal_progress then calls sched_yield
 * when it finds nothing, and a yielding rank stays runnable: with a busy process beside
 * them, the ranks that have nothing to do keep taking turns on the cores from the ones
 * whose data just arrived, and a pipeline whose every block needs its forwarders to run
 * stalls for a scheduler turn per block (evidence E-TCP-2).  A rank idle for
 * idle_spin_us (after at least 64 empty polls) sleeps idle_sleep_us between polls
 * instead: it leaves the run queue, the ranks with work run, and it wakes within about
 * one sleep of its data.  Read once per process from coll/kbinomial's parameters
 * (coll/pathmc uses the same); 0 sleep = yield as Open MPI does. */
#define MCAST_IDLE_MIN_POLLS 64
static int idle_spin_us = -1, idle_sleep_us = -1;

static int kbinomial_int(const char *name, int dflt)
{
    const int idx = mca_base_var_find("ompi", "coll", "kbinomial", name);
    const int *value = NULL;
    if (idx < 0 || OPAL_SUCCESS != mca_base_var_get_value(idx, &value, NULL, NULL) || NULL == value) {
        return dflt;
    }
    return *value;
}

void mcast_idle_wait(mcast_idle_t *w, long idle_polls)
{
    if (idle_polls < MCAST_IDLE_MIN_POLLS) {
        w->since_us = 0;
        return;
    }
    if (idle_sleep_us < 0) { /* (two threads may both read them: the same values) */
        idle_spin_us = kbinomial_int("idle_spin_us", MCAST_IDLE_SPIN_US_DEFAULT);
        idle_sleep_us = kbinomial_int("idle_sleep_us", MCAST_IDLE_SLEEP_US_DEFAULT);
    }
    if (idle_sleep_us <= 0 || !mcast_yield_when_idle()) {
        return;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    const double now = (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
    if (0 == w->since_us) {
        w->since_us = now;
    } else if (now - w->since_us >= idle_spin_us) {
        const struct timespec d = {idle_sleep_us / 1000000, (long) (idle_sleep_us % 1000000) * 1000L};
        nanosleep(&d, NULL);
    }
}

/* A waiting rank on an oversubscribed node (more ranks than cores: Open MPI then sets
 * mpi_yield_when_idle, and opal_progress yields the core when it finds nothing) runs
 * again only after the scheduler picks it: every message a rank must receive before it
 * can go on costs about that much more inside a node.  Measured on 4 ranks on 2 cores
 * (evidence E-RT-1): flat trees beat pipelines at nearly every size there, which this
 * model reproduces. */
#define MCAST_OVERSUBSCRIBED_RECV_US 10.0

/* Machine models by (path, oversubscribed), made once and never changed or freed: a
 * planner on another thread may be reading the one it was given. */
typedef struct machine_entry {
    struct machine_entry *next;
    char *path;
    bool oversubscribed;
    mcast_machine_t model;
} machine_entry_t;
static machine_entry_t *machines = NULL;
static mcast_machine_t machine_fallback; /* no memory for an entry: the defaults */

static void machine_make(const char *component, const char *p, bool oversubscribed,
                         mcast_machine_t *m)
{
    char err[512] = "";
    mcast_machine_default(m);
    if ('\0' != p[0] && KB_OK != mcast_machine_load(p, m, err, sizeof(err))) {
        mcast_machine_default(m);
        if (0 == OPAL_PROC_MY_NAME.vpid) {
            opal_output(0, "coll:%s: machine file not used (built-in model instead): %s",
                        component, err);
        }
    }
    if (oversubscribed) {
        /* the wake-up delay per received message; and the copies are the receivers'
         * (single copy above the eager size, and with fewer cores than ranks a sender's
         * copies do not overlap its receivers' anyway) */
        m->shm.o_recv_us += MCAST_OVERSUBSCRIBED_RECV_US;
        m->shm.recv_ns_per_byte += m->shm.gap_ns_per_byte;
        m->shm.gap_ns_per_byte = 0.0;
        const size_t len = strlen(m->source);
        snprintf(m->source + len, sizeof(m->source) - len,
                 " + oversubscribed node (shm: o_recv_us + %.0f, per-byte cost at the receiver)",
                 MCAST_OVERSUBSCRIBED_RECV_US);
    }
}

const mcast_machine_t *mcast_machine_of(const char *component, const char *path,
                                        bool oversubscribed)
{
    const char *p = (NULL == path) ? "" : path;
    OPAL_THREAD_LOCK(&digest_lock);
    machine_entry_t *e = machines;
    while (NULL != e && (e->oversubscribed != oversubscribed || 0 != strcmp(e->path, p))) {
        e = e->next;
    }
    if (NULL == e && NULL != (e = calloc(1, sizeof(*e)))) {
        if (NULL == (e->path = strdup(p))) {
            free(e);
            e = NULL;
        } else {
            machine_make(component, p, oversubscribed, &e->model);
            e->oversubscribed = oversubscribed;
            e->next = machines;
            machines = e;
        }
    }
    if (NULL == e) {
        mcast_machine_default(&machine_fallback); /* (the same bytes each time) */
    }
    OPAL_THREAD_UNLOCK(&digest_lock);
    return NULL != e ? &e->model : &machine_fallback;
}

int mcast_check_runtime_version(const char *component)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0, major = -1, minor = -1, release = -1;
    MPI_Get_library_version(lib, &len);
    const char *v = strstr(lib, "Open MPI v");
    if (NULL == v || 3 != sscanf(v, "Open MPI v%d.%d.%d", &major, &minor, &release)) {
        opal_output(0, "coll:%s: cannot read the Open MPI version from \"%s\"; not opening "
                       "(built against Open MPI %s)", component, lib, MCAST_OMPI_BUILT_VERSION);
        return OPAL_ERROR;
    }
    if (major != MCAST_OMPI_BUILT_MAJOR || minor != MCAST_OMPI_BUILT_MINOR ||
        release != MCAST_OMPI_BUILT_RELEASE) {
        opal_output(0, "coll:%s: built against Open MPI %s but running under Open MPI "
                       "%d.%d.%d; not opening. Rebuild the component against this Open MPI.",
                    component, MCAST_OMPI_BUILT_VERSION, major, minor, release);
        return OPAL_ERROR;
    }
    return OPAL_SUCCESS;
}

bool mcast_fallback_allowed(const char *component, int policy, struct ompi_communicator_t *comm,
                            const char *why, bool *warned)
{
    if (MCAST_FALLBACK_ERROR == policy) {
        fprintf(stderr, "coll:%s: comm=%u: declined (%s) and coll_%s_fallback=error\n", component,
                mcast_comm_id(comm), why, component);
        return false;
    }
    if (MCAST_FALLBACK_WARN == policy && !*warned && 0 == ompi_comm_rank(comm)) {
        fprintf(stderr, "coll:%s: comm=%u: declined (%s); using the previous bcast (said once "
                        "per communicator)\n", component, mcast_comm_id(comm), why);
        *warned = true;
    }
    return true;
}

bool mcast_pml_ucx(void)
{
    static int known = -1; /* (two threads may both look: the same answer) */
    if (known < 0) {
        known = 0 == strcmp(mca_pml_base_selected_component.pmlm_version.mca_component_name, "ucx");
    }
    return 1 == known;
}

bool mcast_network_tcp(void)
{
    static int known = -1; /* the PML and the BTLs are chosen once per process */
    if (known >= 0) {
        return 1 == known;
    }
    bool tcp = false, other = false;
    if (0 == strcmp(mca_pml_base_selected_component.pmlm_version.mca_component_name, "ob1")) {
        mca_btl_base_selected_module_t *sm;
        OPAL_LIST_FOREACH (sm, &mca_btl_base_modules_initialized, mca_btl_base_selected_module_t) {
            const char *name = sm->btl_component->btl_version.mca_component_name;
            if (0 == strcmp(name, "tcp")) {
                tcp = true;
            } else if (0 != strcmp(name, "self") && 0 != strcmp(name, "vader") &&
                       0 != strcmp(name, "sm") && 0 != strcmp(name, "smcuda")) {
                other = true; /* an RDMA network (openib, uct, ugni, ...): not only TCP */
            }
        }
    }
    known = tcp && !other;
    return 1 == known;
}
