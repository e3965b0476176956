/*
 * Shared glue for the kbinomial and pathmc components: algorithm registries turned
 * into MCA enums, the common parameters, the fallback policy, the runtime version
 * check and the verbose plan line.
 */
#ifndef MCAST_GLUE_H
#define MCAST_GLUE_H

#include "ompi_config.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "opal/mca/base/mca_base_var.h"
#include "opal/mca/base/mca_base_var_enum.h"
#include "ompi/communicator/communicator.h"
#include "ompi/mca/common/mcast/mcast_compat.h"
#include "mcast_planner.h"

typedef enum {
    MCAST_FALLBACK_SILENT = 0,
    MCAST_FALLBACK_WARN = 1,
    MCAST_FALLBACK_ERROR = 2
} mcast_fallback_t;

/* verify_trials: MCAST_VERIFY_AUTO_TRIALS on a communicator of one node whose ranks
 * each have a core, else off (E-VERIFY-3) */
#define MCAST_VERIFY_TRIALS_AUTO (-1)
#define MCAST_VERIFY_AUTO_TRIALS 4

/* Parameters every component has, right after the component's Open MPI part in both of
 * our component structures (mcast_component_head_t). */
#define MCAST_COMMON_ABI 0x6d63617374763101ULL /* this layout ("mcastv1", 1) */
struct mcast_job_store;
typedef struct mcast_common_params {
    /* MCAST_COMMON_ABI: the other component of ours reads job_store only where it finds
     * it (a build of another layout is never read further) */
    uint64_t abi;
    /* the process's job model (mcast_calib.h): this .so's own store; both components use
     * the one of the first of ours Open MPI lists (mcast_calib.c, job_store) */
    struct mcast_job_store *job_store;
    int priority;
    int verbose;
    int algorithm;
    int fallback;
    /* Verification on live calls (mcast_planner.h): trials per candidate (0 = off,
     * MCAST_VERIFY_TRIALS_AUTO = by the communicator: mcast_module.c, verify_trials_of),
     * the margin another candidate must win by, calls until a re-check (0 = never) */
    int verify_trials;
    double verify_margin;
    int verify_recheck;
    /* our runner-up is a third candidate where predicted within this fraction of our
     * choice (mcast_decide_runner_up; 0 = never) */
    double verify_runner_up;
    /* Self-calibration across nodes (mcast_calib.h): 1 = measure the network at a
     * communicator's first blocking broadcast of at least self_calibrate_from bytes where
     * the built-in model would be used over TCP, and plan the size classes from there on
     * with it, 0 = off */
    int self_calibrate;
    size_t self_calibrate_from;
    /* Digest of the names and texts of this process's parameters that must agree between
     * ranks (scope other than LOCAL) but whose value it could not read (each holds its
     * default instead); 0 when there are none.  The component's parameter digest
     * includes it: a rank given such a value disagrees with every rank given a readable
     * one, as for a value set differently on some ranks. */
    uint64_t unparsed;
} mcast_common_params_t;

/* The start both component structures share (coll_kbinomial.h, coll_pathmc.h). */
typedef struct mcast_component_head {
    mcast_coll_component_t super;
    mcast_common_params_t common;
} mcast_component_head_t;

/* The registration functions below: a value this process cannot read (one Open MPI
 * refuses, such as an unknown enum name or an int out of range, or one it would read
 * leniently, such as "12abc" for an int: kb_param.h) leaves the parameter at its default
 * with a message from this process and is recorded in out->unparsed; the component then
 * still registers, opens and takes part in the first call's agreement on every rank.
 * They return an error only when a parameter cannot be registered at all. */

/* Register <fw>_<comp>_{priority,verbose,algorithm,fallback}.  The algorithm enum (values
 * are the core registry's ids) and its help text are generated from the core's one
 * registry, rows of `component` (mcast_component_t).  Resets out->unparsed: call it
 * first.  Returns OPAL_SUCCESS or error. */
int mcast_register_common_params(const mca_base_component_t *comp, int component,
                                 int default_priority, mcast_common_params_t *out);

/* One MCA parameter of a component's table (the storage holds its default).  Type
 * MCA_BASE_VAR_TYPE_BOOL: an int holding 0 or 1, registered as an int whose text is
 * read as Open MPI reads booleans (true/false, yes/no, 1/0, ...). */
typedef struct mcast_var {
    const char *name;
    const char *help;
    mca_base_var_type_t type;
    void *storage;
    mca_base_var_info_lvl_t level;
    mca_base_var_scope_t scope;
} mcast_var_t;

/* Register a table of parameters; OPAL_SUCCESS or the first error. */
int mcast_register_vars(const mca_base_component_t *comp, const mcast_var_t *vars, size_t n,
                        mcast_common_params_t *out);

/* Register an enum-valued parameter from a NULL-terminated list of names (value = index). */
int mcast_register_enum_param(const mca_base_component_t *comp, const char *name,
                              const char *help, const char *const *names, int *storage,
                              mca_base_var_scope_t scope, mcast_common_params_t *out);

/* Checks an integer parameter's range after registration: out of [lo, hi] it is reset to
 * `dflt` with a message (once per process, rank 0 of the job).  Every rank applies the
 * same rule to the same value, so ranks given the same value still agree. */
void mcast_param_range(const char *component, const char *name, int *value, int lo, int hi,
                       int dflt);
void mcast_param_range_size(const char *component, const char *name, size_t *value, size_t lo,
                            size_t hi, size_t dflt);

/* The machine model of a machine file (NULL or "" = built-in defaults), read once per
 * process and path; a file that cannot be used gives the defaults and a message;
 * oversubscribed: with the costs of a node that runs more ranks than cores (the
 * communicator's agreed mcast_locality_t.oversubscribed; false for the file's own model,
 * which the parameter digests compare).  The model returned never changes (another
 * thread may plan with it). */
const mcast_machine_t *mcast_machine_of(const char *component, const char *path,
                                        bool oversubscribed);

/* mpi_yield_when_idle as Open MPI set it (oversubscribed node), also while a probe of ours
 * has it turned off; and the pair that turns it off around a PML probe (nested and
 * concurrent probes restore the setting once, the last one). */
bool mcast_yield_when_idle(void);
void mcast_noyield_begin(void);
void mcast_noyield_end(void);
/* A blocking call's wait between polls where Open MPI yields when idle: after
 * idle_spin_us of polls that found nothing (idle_polls: how many in a row), sleep
 * idle_sleep_us per poll (coll_kbinomial_idle_*; mcast_glue.c says why).  One per wait
 * loop, zeroed. */
#define MCAST_IDLE_SPIN_US_DEFAULT 200
#define MCAST_IDLE_SLEEP_US_DEFAULT 50
typedef struct mcast_idle {
    double since_us;
} mcast_idle_t;
void mcast_idle_wait(mcast_idle_t *w, long idle_polls);

/* 64-bit digest of a file's bytes (0 when path is NULL or ""; a constant when it cannot be
 * read, so that ranks that cannot read it disagree with those that can). */
uint64_t mcast_file_digest(const char *path);
uint64_t mcast_digest_str(uint64_t h, const char *s);
uint64_t mcast_digest_bytes(uint64_t h, const void *p, size_t n);

/* Compare the runtime Open MPI version with the one we were built against.
 * On mismatch prints a clear message naming both and returns OPAL_ERROR. */
int mcast_check_runtime_version(const char *component);

/* Apply the fallback policy for a declined call; returns true when the previous
 * module should serve it, false when the call must fail (policy "error").  "warn"
 * prints once per communicator (*warned). */
bool mcast_fallback_allowed(const char *component, int policy, struct ompi_communicator_t *comm,
                            const char *why, bool *warned);

/* Whether this process reaches other nodes only over TCP (pml ob1, no BTL but tcp, self
 * and shared memory): a network the built-in machine model does not describe
 * (mcast_planner.h, "Unmodelled networks").  A property of the process: it goes into the
 * parameter digest, so ranks that differ disagree and the module below serves. */
bool mcast_network_tcp(void);

/* The process's PML is ucx (chosen once per process). */
bool mcast_pml_ucx(void);

#endif /* MCAST_GLUE_H */
