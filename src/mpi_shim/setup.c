/*
 * setup.c — the drop-in's life: MPI_Init, the intercom communicator of
 * each MPI communicator (and its memo of the last calls, memo.c),
 * MPI_Finalize.
 *
 * MPI_Init / MPI_Init_thread: after MPI's own, intercom's world is made
 * over MPI_COMM_WORLD with ic_comm_from_mpi (shared memory per host, MPI
 * between hosts; every rank gets the same outcome).  If it cannot be
 * made, every call falls back ("intercom not started") and rank 0 says
 * why on stderr.
 *
 * Another communicator gets its intercom communicator when MPI makes it
 * (comm_wrappers.c) or at its first served call: a sub-communicator of the
 * world over the same processes
 * (ic_comm_create_group_salted: local, no new shared segment), after an
 * MPI_Allreduce over the communicator that agrees on a salt for its id
 * (communicators with the same processes get different ids) and on
 * whether every member is in MPI_COMM_WORLD, and a second one that checks
 * that no member uses that salt already (two threads making communicators
 * at once could propose the same; they then try again).  It is cached on the MPI
 * communicator as an attribute, whose delete callback frees it
 * (MPI_Comm_free; MPI_Finalize frees what is left).  Intercommunicators
 * are remembered as such and fall back.
 *
 * The environment (docs/dropin.md): IC_MPI_VERBOSE=1 prints the report at
 * MPI_Finalize on rank 0; IC_MPI_DISABLE=bcast,alltoallv,... (or all)
 * turns interception off per collective; every IC_* variable of intercom
 * applies as usual.
 */
#include "mpi_shim/shim.h"
#include "mpi_shim/memo.h"

#include "base/status.h"
#include "core/comm.h"
#include "intercom_mpi.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct shim_comm {
    MPI_Comm comm;
    long long salt;    /* agreed by its members; unique among live ones */
    ic_comm_t *ic;     /* NULL: falls back for why */
    shim_reason_t why;
    shim_memo_t *_Atomic memo; /* its last blocking calls (memo.c), made when first needed */
    struct shim_comm *next;
} shim_comm_t;

static ic_comm_t *world;
static shim_memo_t *_Atomic world_memo;
/* Grows whenever a communicator's intercom side goes (delete_attr), so
 * that a handle MPI gives to a new communicator after freeing the old one
 * is never taken for the old one. */
static atomic_ulong comms_gen;
/* This thread's last look-up of a communicator other than MPI_COMM_WORLD,
 * good while comms_gen is still gen: programs call collectives on one
 * communicator again and again, and MPI's attribute look-up costs some
 * 180 instructions (Open MPI 4.1).  Each thread has its own, so threads
 * on different communicators do not share it. */
static _Thread_local struct {
    MPI_Comm comm;
    shim_comm_t *sc; /* NULL: nothing remembered */
    unsigned long gen;
} last_comm;
static MPI_Comm self = MPI_COMM_NULL, poke = MPI_COMM_NULL;
static int keyval = MPI_KEYVAL_INVALID;
static int verbose, world_rank, world_size;
static unsigned disabled; /* bit per function (SHIM_NFUNC) */
static long long next_salt = 1; /* the next salt this process proposes */
static shim_comm_t *comms;
static pthread_mutex_t comms_lock = PTHREAD_MUTEX_INITIALIZER;

MPI_Comm shim_self(void)
{
    return self;
}

MPI_Comm shim_poke_comm(void)
{
    return poke;
}

int shim_disabled(int coll)
{
    return (disabled >> coll) & 1u;
}

static const char *func_name(int f)
{
    return f == SHIM_REDUCE_LOCAL ? "reduce_local" : ic_coll_name((ic_coll_t)f);
}

/* IC_MPI_DISABLE: names separated by commas (or "all"). */
static void read_disable(void)
{
    const char *v = getenv("IC_MPI_DISABLE");
    if (!v || !*v)
        return;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", v);
    for (char *save = NULL, *tok = strtok_r(buf, ", ", &save); tok;
         tok = strtok_r(NULL, ", ", &save)) {
        int found = 0;
        if (strcmp(tok, "all") == 0) {
            disabled = (1u << SHIM_NFUNC) - 1;
            continue;
        }
        for (int f = 0; f < SHIM_NFUNC; f++)
            if (strcmp(tok, func_name(f)) == 0) {
                disabled |= 1u << f;
                found = 1;
            }
        if (!found && world_rank == 0)
            fprintf(stderr, "intercom drop-in: IC_MPI_DISABLE names '%s', which is not a "
                            "collective (bcast, reduce, ..., reduce_local, all)\n", tok);
    }
}

static int delete_attr(MPI_Comm comm, int kv, void *val, void *extra);

void shim_after_init(void)
{
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
    const char *v = getenv("IC_MPI_VERBOSE");
    verbose = v && *v && strcmp(v, "0") != 0;
    read_disable();
    PMPI_Comm_dup(MPI_COMM_SELF, &self);
    PMPI_Comm_dup(MPI_COMM_WORLD, &poke);
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_attr, &keyval, NULL);
    shim_errors_init();
    shim_requests_init();
    if (disabled == (1u << SHIM_NFUNC) - 1)
        return; /* nothing to serve: no intercom world either */
    ic_status_t st = ic_comm_from_mpi(MPI_COMM_WORLD, &world); /* collective */
    if (st != IC_OK) {
        world = NULL;
        if (world_rank == 0)
            fprintf(stderr, "intercom drop-in: intercom could not start (%s); every "
                            "collective falls back to MPI's own\n", ic_last_error());
    }
}

/* The intercom communicator of a new MPI communicator (collective). */
static shim_comm_t *make(MPI_Comm comm)
{
    shim_comm_t *sc = calloc(1, sizeof *sc);
    if (!sc)
        return NULL;
    sc->comm = comm;
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) {
        sc->why = SHIM_R_INTER;
        pthread_mutex_lock(&comms_lock);
        sc->next = comms;
        comms = sc;
        pthread_mutex_unlock(&comms_lock);
        return sc;
    }
    MPI_Group g, wg;
    int n;
    PMPI_Comm_group(comm, &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    PMPI_Group_size(g, &n);
    int *ranks = malloc(sizeof(int) * 2 * (size_t)n);
    long long v[2] = {0, ranks == NULL};
    if (ranks) {
        for (int i = 0; i < n; i++)
            ranks[i] = i;
        PMPI_Group_translate_ranks(g, n, ranks, wg, ranks + n);
        for (int i = 0; i < n; i++)
            v[1] |= ranks[n + i] == MPI_UNDEFINED;
    }
    PMPI_Group_free(&g);
    PMPI_Group_free(&wg);
    for (;;) {
        pthread_mutex_lock(&comms_lock);
        v[0] = next_salt++;
        pthread_mutex_unlock(&comms_lock);
        PMPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_LONG_LONG, MPI_MAX, comm);
        int taken = 0;
        pthread_mutex_lock(&comms_lock); /* claim v[0] here */
        for (shim_comm_t *o = comms; o; o = o->next)
            taken |= o->salt == v[0];
        if (!taken) {
            sc->salt = v[0];
            sc->next = comms;
            comms = sc;
        }
        if (next_salt <= v[0])
            next_salt = v[0] + 1;
        pthread_mutex_unlock(&comms_lock);
        PMPI_Allreduce(MPI_IN_PLACE, &taken, 1, MPI_INT, MPI_MAX, comm);
        if (!taken)
            break;
        pthread_mutex_lock(&comms_lock); /* somebody had it: give it back, again */
        for (shim_comm_t **p = &comms; *p; p = &(*p)->next)
            if (*p == sc) {
                *p = sc->next;
                break;
            }
        sc->salt = 0;
        pthread_mutex_unlock(&comms_lock);
    }
    if (v[1]) {
        sc->why = SHIM_R_OUTSIDE;
    } else if (ic_comm_create_group_salted(world, n, ranks + n, (uint64_t)v[0], &sc->ic) !=
               IC_OK) {
        sc->ic = NULL;
        sc->why = SHIM_R_NOTSTARTED;
    }
    free(ranks);
    return sc;
}

/* comm_of of a communicator that this thread has not just looked up: the
 * attribute, made at the first call, remembered as of comms_gen gen.  Not
 * inlined, so that comm_of's usual case stays a few instructions. */
__attribute__((noinline)) static ic_comm_t *comm_lookup(MPI_Comm comm, unsigned long gen,
                                                        shim_reason_t *why)
{
    if (!world) {
        *why = SHIM_R_NOTSTARTED;
        return NULL;
    }
    if (comm == MPI_COMM_WORLD)
        return world;
    void *val = NULL;
    int flag = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_get_attr(comm, keyval, &val, &flag) != MPI_SUCCESS) {
        *why = SHIM_R_BADCOMM; /* MPI reports it */
        return NULL;
    }
    shim_comm_t *sc = val;
    if (!flag) {
        if (!(sc = make(comm))) {
            *why = SHIM_R_NOTSTARTED;
            return NULL;
        }
        PMPI_Comm_set_attr(comm, keyval, sc);
    }
    last_comm.comm = comm;
    last_comm.sc = sc;
    last_comm.gen = gen;
    *why = sc->why;
    return sc->ic;
}

/* shim_comm of any communicator but a started MPI_COMM_WORLD.  Not
 * inlined: MPI_COMM_WORLD's way stays free of this one's frame. */
__attribute__((noinline)) static ic_comm_t *comm_of(MPI_Comm comm, shim_reason_t *why)
{
    /* Read before any look-up: a communicator freed meanwhile makes what
     * that look-up remembers stale at once. */
    unsigned long gen = atomic_load_explicit(&comms_gen, memory_order_acquire);
    shim_comm_t *sc = last_comm.sc;
    if (world && sc && last_comm.comm == comm && last_comm.gen == gen) {
        *why = sc->why; /* the communicator of this thread's last call */
        return sc->ic;
    }
    return comm_lookup(comm, gen, why);
}

ic_comm_t *shim_comm(MPI_Comm comm, shim_reason_t *why)
{
    if (world && comm == MPI_COMM_WORLD)
        return world; /* the usual case, in a few instructions */
    return comm_of(comm, why);
}

/* *slot's memo, made if missing (a thread that loses the race to make it
 * frees its own). */
static shim_memo_t *memo_of(shim_memo_t *_Atomic *slot)
{
    shim_memo_t *m = atomic_load_explicit(slot, memory_order_acquire);
    if (m)
        return m;
    shim_memo_t *fresh = shim_memo_new(), *none = NULL;
    if (!fresh)
        return NULL;
    if (atomic_compare_exchange_strong(slot, &none, fresh))
        return fresh;
    shim_memo_free(fresh);
    return none;
}

shim_memo_t *shim_comm_memo(MPI_Comm comm, ic_comm_t **ic)
{
    if (!world)
        return NULL;
    if (comm == MPI_COMM_WORLD) {
        *ic = world;
        return memo_of(&world_memo);
    }
    unsigned long gen = atomic_load_explicit(&comms_gen, memory_order_acquire);
    shim_comm_t *sc = last_comm.sc;
    if (!sc || last_comm.comm != comm || last_comm.gen != gen || !sc->ic)
        return NULL;
    *ic = sc->ic;
    return memo_of(&sc->memo);
}

/* MPI_Comm_free (or MPI_Finalize): the communicator's intercom side goes. */
static int delete_attr(MPI_Comm comm, int kv, void *val, void *extra)
{
    (void)comm, (void)kv, (void)extra;
    shim_comm_t *sc = val;
    atomic_fetch_add_explicit(&comms_gen, 1, memory_order_acq_rel); /* before sc goes */
    pthread_mutex_lock(&comms_lock);
    shim_comm_t **p = &comms;
    while (*p && *p != sc)
        p = &(*p)->next;
    if (*p)
        *p = sc->next;
    pthread_mutex_unlock(&comms_lock);
    if (sc->ic) {
        /* Calls still running on it end first (MPI lets a communicator be
         * freed with operations pending); persistent requests that still
         * name it keep it (until the process ends). */
        int np = 0;
        while (shim_requests_using(sc->ic, &np) > 0)
            shim_progress();
        if (np == 0)
            ic_comm_free(&sc->ic);
    }
    shim_memo_free(sc->memo);
    free(sc);
    return MPI_SUCCESS;
}

void shim_before_finalize(void)
{
    if (verbose && world_rank == 0)
        shim_report_print(world_size);
    while (shim_requests_using(NULL, NULL) > 0) /* nothing should be left running */
        shim_progress();
    shim_requests_free();
    for (;;) { /* the communicators the program did not free */
        pthread_mutex_lock(&comms_lock);
        shim_comm_t *sc = comms;
        pthread_mutex_unlock(&comms_lock);
        if (!sc)
            break;
        if (PMPI_Comm_delete_attr(sc->comm, keyval) != MPI_SUCCESS)
            delete_attr(sc->comm, keyval, sc, NULL);
    }
    if (world)
        ic_comm_free_mpi(&world); /* collective: every rank is in MPI_Finalize */
    shim_memo_free(atomic_exchange(&world_memo, NULL));
    shim_ops_free();
    if (self != MPI_COMM_NULL)
        PMPI_Comm_free(&self);
    if (poke != MPI_COMM_NULL)
        PMPI_Comm_free(&poke);
    if (keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_free_keyval(&keyval);
}

/* ---- MPI_Init / MPI_Finalize ------------------------------------------ */

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        shim_after_init();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        shim_after_init();
    return rc;
}

int MPI_Finalize(void)
{
    shim_before_finalize();
    return PMPI_Finalize();
}
