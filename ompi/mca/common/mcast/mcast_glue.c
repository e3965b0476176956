/* Shared component glue: see mcast_glue.h. */
#include "mcast_glue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "opal/util/output.h"
#include "mcast_build_config.h"

static const char *const fallback_names[] = {"silent", "warn", "error", NULL};

int mcast_register_enum_param(const mca_base_component_t *comp, const char *name,
                              const char *help, const char *const *names, int *storage,
                              mca_base_var_scope_t scope)
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
        rc = mca_base_component_var_register(comp, name, help, MCA_BASE_VAR_TYPE_INT, new_enum,
                                             0, 0, OPAL_INFO_LVL_5, scope, storage);
        OBJ_RELEASE(new_enum);
        rc = (rc < 0) ? rc : OPAL_SUCCESS;
    }
    /* The enum keeps pointers to the strings, which are static; the array is copied. */
    free(values);
    return rc;
}

int mcast_register_vars(const mca_base_component_t *comp, const mcast_var_t *vars, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int rc = mca_base_component_var_register(comp, vars[i].name, vars[i].help, vars[i].type,
                                                 NULL, 0, 0, vars[i].level, vars[i].scope,
                                                 vars[i].storage);
        if (rc < 0) {
            return rc;
        }
    }
    return OPAL_SUCCESS;
}

int mcast_register_common_params(const mca_base_component_t *comp, const mcast_alg_info_t *registry,
                                 int n, int default_priority, mcast_common_params_t *out)
{
    char help[2048];
    int rc;

    out->priority = default_priority;
    rc = mca_base_component_var_register(comp, "priority",
                                         "Priority of this coll component (its bcast is used when it "
                                         "is the highest priority module providing bcast)",
                                         MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_6,
                                         MCA_BASE_VAR_SCOPE_READONLY, &out->priority);
    if (rc < 0) {
        return rc;
    }
    out->verbose = 0;
    rc = mca_base_component_var_register(comp, "verbose",
                                         "Verbosity: 0 quiet, >= 1 one line on stderr per new plan "
                                         "(comm, size, root, bytes, algorithm, parameters)",
                                         MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_9,
                                         MCA_BASE_VAR_SCOPE_LOCAL, &out->verbose);
    if (rc < 0) {
        return rc;
    }

    /* Enum and help text from the one registry. */
    mca_base_var_enum_value_t *values = calloc((size_t) n + 1, sizeof(*values));
    if (NULL == values) {
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    size_t used = (size_t) snprintf(help, sizeof(help), "Broadcast algorithm:");
    for (int i = 0; i < n; i++) {
        values[i].value = registry[i].id;
        values[i].string = registry[i].name;
        if (used < sizeof(help)) {
            used += (size_t) snprintf(help + used, sizeof(help) - used, " %s (%s)%s",
                                      registry[i].name, registry[i].description,
                                      i + 1 < n ? ";" : "");
        }
    }
    char enum_name[128];
    snprintf(enum_name, sizeof(enum_name), "%s_%s_algorithms", comp->mca_type_name,
             comp->mca_component_name);
    mca_base_var_enum_t *alg_enum = NULL;
    rc = mca_base_var_enum_create(enum_name, values, &alg_enum);
    if (OPAL_SUCCESS == rc) {
        out->algorithm = registry[0].id;
        rc = mca_base_component_var_register(comp, "algorithm", help, MCA_BASE_VAR_TYPE_INT,
                                             alg_enum, 0, 0, OPAL_INFO_LVL_5,
                                             MCA_BASE_VAR_SCOPE_ALL_EQ, &out->algorithm);
        OBJ_RELEASE(alg_enum);
    }
    free(values);
    if (rc < 0) {
        return rc;
    }

    out->fallback = MCAST_FALLBACK_SILENT;
    return mcast_register_enum_param(comp, "fallback",
                                     "What to do when this component declines a bcast call: silent "
                                     "(use the previous module's bcast), warn (same, with a "
                                     "message on stderr), error (the call fails with "
                                     "MPI_ERR_UNSUPPORTED_OPERATION; tests use this)",
                                     fallback_names, &out->fallback, MCA_BASE_VAR_SCOPE_ALL_EQ);
}

const char *mcast_alg_name(const mcast_alg_info_t *registry, int n, int id)
{
    for (int i = 0; i < n; i++) {
        if (registry[i].id == id) {
            return registry[i].name;
        }
    }
    return "?";
}

int mcast_alg_id(const mcast_alg_info_t *registry, int n, const char *name)
{
    for (int i = 0; NULL != name && i < n; i++) {
        if (0 == strcmp(registry[i].name, name)) {
            return registry[i].id;
        }
    }
    return -1;
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

void mcast_print_plan(const char *component, struct ompi_communicator_t *comm, int root,
                      size_t bytes, const char *algorithm, const char *desc)
{
    fprintf(stderr, "coll:%s: comm=%u size=%d root=%d bytes=%zu algorithm=%s%s%s\n", component,
            ompi_comm_get_cid(comm), ompi_comm_size(comm), root, bytes, algorithm,
            (NULL != desc && '\0' != desc[0]) ? " " : "", NULL != desc ? desc : "");
    fflush(stderr);
}

bool mcast_fallback_allowed(const char *component, int policy, struct ompi_communicator_t *comm,
                            const char *why, bool *warned)
{
    if (MCAST_FALLBACK_ERROR == policy) {
        fprintf(stderr, "coll:%s: comm=%u: declined (%s) and coll_%s_fallback=error\n", component,
                ompi_comm_get_cid(comm), why, component);
        return false;
    }
    if (MCAST_FALLBACK_WARN == policy && !*warned && 0 == ompi_comm_rank(comm)) {
        fprintf(stderr, "coll:%s: comm=%u: declined (%s); using the previous bcast (said once "
                        "per communicator)\n", component, ompi_comm_get_cid(comm), why);
        *warned = true;
    }
    return true;
}
