/*
 * The module both components instantiate: it serves MPI_Bcast and MPI_Ibcast, keeps the
 * module below it for calls it passes on, and owns the plan cache.  A component describes
 * itself with an mcast_component_ops_t (name, parameters, how to prepare a communicator
 * and fill the planner's input); mcast_module_bcast / _ibcast do the rest the same way for
 * both.
 *
 * Setup never blocks inside a nonblocking call (an MPI_Ibcast, or Open MPI's own
 * nonblocking steps, which call MPI_Ibcast from its progress engine: MPI_Comm_dup of an
 * intercommunicator under MPI_THREAD_MULTIPLE).  Every decision depends only on the
 * sequence of calls, which is the same on every rank:
 *
 *   NEW --first call--> the exchange starts: one nonblocking allgather of every rank's
 *       |               digests of its decision inputs (parameters, machine model, rules,
 *       |               topology files) and its locality record (host, place, fabric)
 *       |   MPI_Ibcast                       MPI_Bcast
 *       v                                        |
 *   PENDING: each MPI_Ibcast is a request of     |
 *       ours; once the exchange is in and the    |
 *       component's setup over (a multicast      |
 *       group opens step by step from the        |
 *       progress engine: mcast_mc_open_start),   |
 *       it runs the NONBLOCKING decision: PML    |
 *       plans, the segment once set up, the      |
 *       multicast group once open, never the     |
 *       module below (a collective started       |
 *       later than its call could take another   |
 *       collective's tags), coll/pathmc handing  |
 *       to coll/kbinomial's nonblocking decision |
 *       where it would pass the call down        |
 *       |  MPI_Bcast                              |
 *       v                                        v
 *   waits for the exchange, then: a parameter set differently on some ranks disables the
 *   module on every rank (DISABLED: a warning from rank 0; the module below serves),
 *   differing rules or topology files are ignored on every rank; then the component's
 *   preparation (discovery, multicast group): READY, or PASS where it does not apply.
 *
 *   READY, every call: size class and root -> cached plan (mcast_plan.h), else the
 *   planner; a plan that cannot be built follows the fallback policy (same outcome on
 *   every rank: the inputs are agreed); the engine runs it over the PML (mcast_pml.h), the
 *   shared segment (mcast_shmseg.h) or the multicast group.  An MPI_Ibcast whose plan
 *   needs a segment that no blocking call has set up yet runs the nonblocking decision.
 *
 *   Order: the segment's ring and the multicast group's epochs count collectives, so their
 *   ops must start in call order on every rank, also the calls whose plan is made after
 *   their call (PENDING).  Each call takes a slot in the module's sequence at the call
 *   (seq_* in mcast_module.c) and resolves it once its op took its place (on the segment,
 *   in the group's queue) or it knows it has none; an op takes its place only when every
 *   earlier slot is resolved, and a blocking call waits (progressing) for that.
 */
#ifndef MCAST_MODULE_H
#define MCAST_MODULE_H

#include "ompi_config.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/mca/common/mcast/mcast_compat.h"
#include "mcast_glue.h"
#include "mcast_locality.h"
#include "mcast_plan.h"
#include "mcast_pml.h"

struct mcast_module;
struct mcast_runner; /* mcast_pml.h */

/* Digests of this rank's decision inputs (0 = none). */
typedef struct mcast_digests {
    uint64_t params;   /* parameters and machine model: must agree, else the module is off */
    uint64_t rules;    /* decision rules: used only where every rank holds the same */
    uint64_t topology; /* topology / coordinates files: idem */
} mcast_digests_t;

typedef struct mcast_component_ops {
    const char *name;                    /* "kbinomial" */
    int component;                       /* MCAST_COMP_* */
    const mcast_common_params_t *params; /* priority, verbose, algorithm, fallback */
    void (*digests)(struct mcast_module *m, mcast_digests_t *d);
    /* After the agreement: discovery and component state.  use_rules / use_topology say
     * whether every rank holds the same rules / topology files.  nonblocking: from the
     * nonblocking decision, never waiting: a collective setup that can run step by step
     * (a multicast group's open) returns MCAST_AGAIN until it is over, and is called
     * again (it runs first on every rank, after the exchange, whatever the first call);
     * else from a blocking call, collectively (every rank is in it).  Called once each
     * way at most (apart from MCAST_AGAIN), the nonblocking one first.  OMPI_SUCCESS;
     * OMPI_ERR_NOT_AVAILABLE: the component does not apply to this communicator (every
     * call goes to the module below, silently). */
    int (*prepare)(struct mcast_module *m, struct ompi_communicator_t *comm, bool use_rules,
                   bool use_topology, bool nonblocking);
    /* The communicator's locality (its records come from the exchange). */
    struct mcast_locality *(*locality)(struct mcast_module *m);
    /* Whether the component offers a shared segment (its slots and slot bytes): set up after
     * the exchange on every rank where the parameters agree.  NULL: never. */
    bool (*segment)(struct mcast_module *m, int *slots, size_t *slot_bytes);
    /* false when, by this rank's own parameters, the component cannot apply to the
     * communicator whatever the agreement says (NULL: it may): its MPI_Ibcast calls then
     * go to the module below at once, before the exchange is in (where ranks disagree on
     * the parameters the outcome is the module below too). */
    bool (*may_apply)(struct mcast_module *m, struct ompi_communicator_t *comm);
    /* The planner input for (root, bytes); `chain` has room for n ranks; `forced` is
     * filled from the parameters. */
    void (*input)(struct mcast_module *m, struct ompi_communicator_t *comm, int root, size_t bytes,
                  mcast_plan_input_t *in, mcast_forced_t *forced, int *chain);
    /* Whether to measure the network (mcast_calib.h) at the communicator's first call if
     * it is a blocking broadcast: on inputs every rank agreed on.  NULL: never. */
    bool (*calibrate_wanted)(struct mcast_module *m, struct ompi_communicator_t *comm);
    /* What the plan line adds about the communicator ("ordering=poc nodes=4"). */
    void (*context)(struct mcast_module *m, char *buf, size_t len);
    /* Runs a plan whose transport is not the PML (mcast_plan_info_t.transport_kind != MCAST_PLAN_PML:
     * hardware multicast); NULL when the component has none. */
    int (*run)(struct mcast_module *m, const mcast_plan_info_t *info, void *buf, int count,
               struct ompi_datatype_t *dtype, size_t bytes, int root,
               struct ompi_communicator_t *comm);
    /* The same plan without waiting (MPI_Ibcast): the call takes its place in the
     * transport's order now (the caller makes sure every earlier call on the communicator
     * has taken its own), *runner and *state then drive it (mcast_pml.h: test moves it on,
     * release frees it).  An error: this rank has no memory for its state (nothing queued;
     * the caller runs the plan with `run` instead, before it returns).  NULL: none. */
    int (*irun)(struct mcast_module *m, const mcast_plan_info_t *info, void *buf, int count,
                struct ompi_datatype_t *dtype, size_t bytes, int root,
                struct ompi_communicator_t *comm, const struct mcast_runner **runner,
                void **state);
} mcast_component_ops_t;

typedef enum {
    MCAST_STATE_NEW = 0,   /* first call not yet made */
    MCAST_STATE_PENDING,   /* exchange started by a nonblocking call; no blocking call yet */
    MCAST_STATE_READY,     /* plans run here */
    MCAST_STATE_PASS,      /* the component does not apply: the module below serves */
    MCAST_STATE_DISABLED   /* inputs differ between ranks: the module below serves */
} mcast_state_t;

/* One rank's part of the exchange. */
typedef struct mcast_xrec {
    mcast_digests_t digests;
    uint64_t short_of_memory; /* no memory for the module's state on this rank */
    uint64_t calib;           /* digest of the job's measured model (mcast_calib.h), 0: none */
    mcast_locality_record_t loc;
} mcast_xrec_t;

typedef struct mcast_exchange {
    ompi_request_t **reqs; /* the nonblocking exchange's messages in flight (nreq) */
    int nreq;
    int tag;               /* its tag (taken at the call) */
    bool p2p;              /* the nonblocking exchange runs */
    mcast_xrec_t *mine;    /* [1] */
    mcast_xrec_t *all;     /* [n] */
    int paged_n;           /* > 0: mine, all and reqs are mapped pages (mcast_pages_map) for
                              this n: the heap refused them */
    bool finished;         /* outcome below known (and the records handed on) */
    int rc;                /* OMPI_SUCCESS or the allgather's error */
    bool same_params;      /* every rank's parameter digest is this rank's */
    bool short_of_memory;  /* some rank had no memory for the module's state */
} mcast_exchange_t;

typedef struct mcast_module {
    mca_coll_base_module_t super;
    const mcast_component_ops_t *ops;
    mca_coll_base_module_bcast_fn_t previous_bcast;
    mca_coll_base_module_t *previous_bcast_module;
    mca_coll_base_module_ibcast_fn_t previous_ibcast;
    mca_coll_base_module_t *previous_ibcast_module;
#if MCAST_HAVE_BCAST_INIT
    mca_coll_base_module_bcast_init_fn_t previous_bcast_init;
    mca_coll_base_module_t *previous_bcast_init_module;
#endif
    mcast_plan_cache_t plans;
    mcast_engine_t *engine;           /* reused by blocking calls */
    mcast_state_t state;
    bool use_rules, use_topology;
    void *comm_state;                 /* component-owned per-communicator data */
    void (*comm_state_free)(void *);
    bool fallback_warned;
    int *chain;                       /* [n] scratch for the planner input */
    struct mcast_shm_seg *shm;        /* one node: the shared segment (mcast_shmseg.h) */
    /* the exchange and the nonblocking decision (header) */
    opal_mutex_t lock;                /* the exchange's end, nb_* and prepare */
    mcast_exchange_t xchg;
    int nb_state;                     /* MCAST_STATE_NEW: not yet; READY / PASS / DISABLED */
    int nb_error;                     /* the nonblocking preparation's error, if any */
    mcast_plan_cache_t nb_plans;
    int *nb_chain;                    /* [n] scratch of the nonblocking decision */
    mcast_machine_t nb_machine;       /* the built-in model, for its default plan */
    int xtags[3];                     /* the segment setup's tags (taken at the exchange) */
    mcast_tags_t tags;                /* this module's tags (mcast_pml.h), taken at each call */
    /* The segment's ops start in the order of the calls (mcast_shm.h: the ring counts chunks
     * across calls), and so do the multicast group's (its epochs), also those that start
     * later than their call: each call takes a slot in this sequence at the call and
     * resolves it once its op started (or took its place in the group's queue) or it knows
     * it has none; an op starts only when every earlier slot is resolved. */
    /* Self-calibration (mcast_calib.h): the network measured at the communicator's first
     * blocking broadcast the component wanted it for (the same call on every rank: the
     * calls' sizes are; the measurements are agreed before the fit), or the job's model
     * when the exchange showed that every rank holds the same one; tried once */
    bool calibrated;
    bool calib_tried;
    bool calib_reused; /* the job's model, measured on an earlier communicator */
    mcast_machine_t calib;
    /* The nonblocking calls made while the module is PENDING start in the order of the
     * calls, also where the exchange ends between two of them: a ticket at the call, and
     * a call starts (or ends without an op) only when every earlier one did (E-IDUP-2) */
    int64_t nb_next, nb_started;
    /* Verification of nonblocking calls on one node (mcast_module.c, "nbv"): each size
     * class's calls counted at the call (saturating; the same on every rank), the trials'
     * state (allocated at the first trial) and the other candidate's plans */
    uint8_t nb_vcount[MCAST_MAX_CLASSES];
    int nb_trials; /* verify_trials_of, read at the nonblocking preparation */
    struct mcast_nbv *nbv;
    mcast_plan_cache_t nb_other;
    int64_t seq_next;                 /* the next call's slot */
    int64_t seq_done;                 /* slots [0, seq_done) resolved */
    int64_t *seq_ahead;               /* resolved slots beyond seq_done */
    int nseq_ahead, seq_ahead_cap;
} mcast_module_t;
OBJ_CLASS_DECLARATION(mcast_module_t);

/* A new module serving bcast and ibcast for the component described by ops. */
mcast_module_t *mcast_module_new(const mcast_component_ops_t *ops,
                                 mca_coll_base_module_bcast_fn_t bcast_fn,
                                 mca_coll_base_module_ibcast_fn_t ibcast_fn);

int mcast_module_bcast(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                       struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mcast_module_ibcast(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                        struct ompi_communicator_t *comm, ompi_request_t **request,
                        mca_coll_base_module_t *module);

/* MPI_Ibcast's path for a call whose verbose plan line is of `kind` (1 ibcast, 2
 * bcast_init: a persistent request's start). */
int mcast_module_istart(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                        struct ompi_communicator_t *comm, ompi_request_t **request,
                        mca_coll_base_module_t *module, int kind);

/* Whether the module below serves a call of (bytes, root) by this module's decision, which
 * is made now (never waiting) when the module can: false while the first call's exchange
 * is not over.  A plan it makes is cached and its verbose line printed as "bcast_init". */
bool mcast_module_passes_now(mcast_module_t *m, struct ompi_communicator_t *comm, size_t bytes,
                             int root);

/* Self-calibration (mcast_calib.h; mcast_planner.h, "Self-calibration"), the same in both
 * components.  `model` is the component's machine file's model (or the built-in one).
 * calibrate_wanted: whether the module measures the network, under auto, across nodes on
 * the built-in model, with self_calibrate on.  machine_input: in->machine (and the TCP
 * flags) for a size class of `bytes`: the measured model for the classes from
 * self_calibrate_from once the communicator measured (or took the job's), else `model`
 * and, across nodes over TCP on the built-in model, the rule (in->unmodelled_network).
 * Every input is agreed (parameters and files by the digest, the nodes by the exchange). */
bool mcast_module_calibrate_wanted(const mcast_module_t *m, const struct mcast_locality *loc,
                                   const mcast_machine_t *model);
void mcast_module_machine_input(const mcast_module_t *m, const struct mcast_locality *loc,
                                const mcast_machine_t *model, size_t bytes,
                                mcast_plan_input_t *in);

/* At the component's close: the progress function that moves started setups on. */
void mcast_module_fini(void);

#if MCAST_HAVE_BCAST_INIT
/* MPI_Bcast_init (mcast_persist.c). */
int mcast_module_bcast_init(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                            struct ompi_communicator_t *comm, struct ompi_info_t *info,
                            ompi_request_t **request, mca_coll_base_module_t *module);
#endif

#endif /* MCAST_MODULE_H */
