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
#include "opal/mca/base/mca_base_var.h"
#include "opal/mca/base/mca_base_var_enum.h"
#include "ompi/communicator/communicator.h"

/* One row of a component's algorithm registry. */
typedef struct mcast_alg_info {
    int id;
    const char *name;
    const char *description;
} mcast_alg_info_t;

typedef enum {
    MCAST_FALLBACK_SILENT = 0,
    MCAST_FALLBACK_WARN = 1,
    MCAST_FALLBACK_ERROR = 2
} mcast_fallback_t;

/* Parameters every component has. */
typedef struct mcast_common_params {
    int priority;
    int verbose;
    int algorithm;
    int fallback;
} mcast_common_params_t;

/* Register <fw>_<comp>_{priority,verbose,algorithm,fallback}.  The algorithm enum and
 * its help text are generated from `registry` (n rows).  Returns OPAL_SUCCESS or error. */
int mcast_register_common_params(const mca_base_component_t *comp, const mcast_alg_info_t *registry,
                                 int n, int default_priority, mcast_common_params_t *out);

/* One MCA parameter of a component's table (the storage holds its default). */
typedef struct mcast_var {
    const char *name;
    const char *help;
    mca_base_var_type_t type;
    void *storage;
    mca_base_var_info_lvl_t level;
    mca_base_var_scope_t scope;
} mcast_var_t;

/* Register a table of parameters; OPAL_SUCCESS or the first error. */
int mcast_register_vars(const mca_base_component_t *comp, const mcast_var_t *vars, size_t n);

/* Register an enum-valued parameter from a NULL-terminated list of names (value = index). */
int mcast_register_enum_param(const mca_base_component_t *comp, const char *name,
                              const char *help, const char *const *names, int *storage,
                              mca_base_var_scope_t scope);

/* Name of registry id (or "?"). */
const char *mcast_alg_name(const mcast_alg_info_t *registry, int n, int id);
/* Registry id of an algorithm name, or -1. */
int mcast_alg_id(const mcast_alg_info_t *registry, int n, const char *name);

/* Compare the runtime Open MPI version with the one we were built against.
 * On mismatch prints a clear message naming both and returns OPAL_ERROR. */
int mcast_check_runtime_version(const char *component);

/* The verbose plan line: "coll:<comp>: comm=<cid> size=<n> root=<r> bytes=<M> algorithm=<a> <desc>" */
void mcast_print_plan(const char *component, struct ompi_communicator_t *comm, int root,
                      size_t bytes, const char *algorithm, const char *desc);

/* Apply the fallback policy for a declined call; returns true when the previous
 * module should serve it, false when the call must fail (policy "error").  "warn"
 * prints once per communicator (*warned). */
bool mcast_fallback_allowed(const char *component, int policy, struct ompi_communicator_t *comm,
                            const char *why, bool *warned);

#endif /* MCAST_GLUE_H */
