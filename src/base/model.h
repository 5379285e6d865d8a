/*
 * model.h — the cost model's machine parameters, as every layer that prices
 * or sizes a message sees them.
 *
 * The type sits in the ground layer, not in select/, because building
 * blocks in algo/ read it too: the pipelines take their segment count from
 * it and the hybrids choose their split by pricing themselves ([Watts94]'s
 * k_i formula and hybrid rule), and algo/ may not include select/
 * (docs/architecture.md).  The cost functions that use it live in
 * select/cost*.c and next to the blocks that decide with it.
 */
#ifndef IC_BASE_MODEL_H
#define IC_BASE_MODEL_H

/* the papers' model: a message of n bytes costs alpha + n*beta, reducing n
 * bytes costs n*gamma, copying n bytes locally n*delta (seconds). */
#define IC_MODEL_LEVELS 2

typedef struct ic_model {
    double alpha, beta, gamma, delta;
    double beta_net; /* per byte of a link of the physical mesh; 0: fully
                        connected (ic_model_params_t) */
    /* A machine of levels (the MPI bridge across hosts, docs/mpi.md): when
     * nlevels > 0, dimension i < nlevels of the communicator's mesh is a
     * level whose messages cost lvl_alpha[i] + n*lvl_beta[i] (dimension 0:
     * between hosts, 1: inside a host), and alpha, beta are the slowest
     * level's, which prices the entries that ignore the mesh. */
    int nlevels;
    /* Messages a node can send (and receive) at once: 0 or 1 one-port (the
     * papers' default and shared memory's), k, or IC_PORTS_ALL for all-
     * port nodes (the simulator's --all-port; --ports K for k).  Priced by
     * the entries whose plans send several messages at once (double_tree,
     * edst). */
    int ports; /* also keeps the struct free of padding: models compare with memcmp */
    double lvl_alpha[IC_MODEL_LEVELS], lvl_beta[IC_MODEL_LEVELS];
    /* The transport's protocols (docs/tuning.md section 1): a message of
     * more than rndv_bytes bytes goes by rendezvous (shm: an RTS, the
     * receiver's pull, a FIN) and costs rndv_alpha more, a shorter one is
     * copied twice (bytes*delta more); a one-way message
     * (its sender receives nothing meanwhile) of at least share_bytes
     * bytes is copied by both ends at once (shm_share.c), at half the
     * per-byte time.  A one-way message goes by rendezvous already above
     * rndv_oneway_bytes (0: the same as rndv_bytes; shm: 4 KiB, the
     * transport's ops->isend_oneway).  rndv_bytes, rndv_oneway_bytes and
     * share_bytes come from the transport (0: no such protocol),
     * rndv_alpha from the tune file or the defaults.  All 0 in the papers'
     * model and in the simulator. */
    double rndv_alpha, rndv_bytes, share_bytes, rndv_oneway_bytes;
    /* The processors the ranks share when they outnumber them (shared
     * memory with more ranks than cores: the transport's, like
     * rndv_bytes; 0: a core per rank, and always in the papers' model and
     * the simulator).  A pipeline with more members than cores cannot run
     * its stages at once: it is not cut into segments (ic_pipe_segments);
     * an exchange step of all ranks takes ceil(ranks/cores) times its
     * per-byte time (ic_model_crowd; docs/perf/oversubscribed.md). */
    double cores;
} ic_model_t;

/* True when ranks ranks running at once would outnumber m's cores. */
static inline int ic_model_crowded(const ic_model_t *m, double ranks)
{
    return m->cores > 0 && ranks > m->cores;
}

/* The model of a step in which ranks ranks copy and combine at once (an
 * exchange: rings, recursive doubling, pairwise, dissemination): with more
 * of them than cores, the cores serve their copies in ceil(ranks / cores)
 * waves (a rank runs its copy through once it has a core), so every
 * per-byte time (beta, gamma, delta) is that many times longer.  alpha
 * stays: scaled too, it moved allreduce and allgather of 1-8 KiB at 3-8
 * ranks on 2 cores to trees that were 1.13-1.26x slower
 * (docs/perf/oversubscribed.md).  m itself otherwise. */
static inline ic_model_t ic_model_crowd(const ic_model_t *m, double ranks)
{
    ic_model_t r = *m;
    if (ic_model_crowded(m, ranks)) {
        double f = (double)(long)(ranks / m->cores - 1e-9) + 1; /* ceil, fractional cores too */
        r.beta *= f;
        r.gamma *= f;
        r.delta *= f;
    }
    return r;
}

/* The start-up of a message that a rank posts in the same step as an
 * earlier one, with nothing to wait for between them (the p - 1 messages
 * of a direct exchange, the m_k - 1 of a dimensional-ring stage), in a
 * step of ranks ranks: alpha with a core per rank (one-port: one after
 * another), 0 when the ranks outnumber the cores.  There a rank that waits
 * gives its core up, so what a round costs is the turns every rank needs
 * to run through it, far more than alpha, and one turn posts all of the
 * step's messages: their start-ups overlap and only the dependent rounds
 * count.  Measured at 8 B - 2 MiB on 4, 8 and 16 ranks on 2 cores,
 * pairwise exchange (one round) was as fast as or faster than Bruck (log p
 * rounds) and the dimensional rings (docs/perf/oversubscribed.md,
 * "All-to-all"). */
static inline double ic_model_alpha_next(const ic_model_t *m, double ranks)
{
    return ic_model_crowded(m, ranks) ? 0.0 : m->alpha;
}

/* What a message of bytes bytes costs beyond alpha + bytes*beta where the
 * transport has an eager limit: above it the rendezvous start-up, up to
 * it the second copy of an eager message (the sender's into the queue;
 * the receiver's out of it is the bytes*beta), bytes*delta.  Exactly 0 in
 * the papers' model, so that adding it keeps the simulator's sums to the
 * bit. */
static inline double ic_msg_extra(const ic_model_t *m, double bytes)
{
    if (!(m->rndv_bytes > 0))
        return 0.0;
    return bytes > m->rndv_bytes ? m->rndv_alpha : bytes * m->delta;
}

/* The same for a one-way message: above rndv_oneway_bytes it goes by
 * rendezvous, and from share_bytes on both ends copy it, so half of
 * bytes*beta is taken back. */
static inline double ic_msg_extra_oneway(const ic_model_t *m, double bytes)
{
    double x = ic_msg_extra(m, bytes);
    if (m->rndv_oneway_bytes > 0 && bytes > m->rndv_oneway_bytes && !(bytes > m->rndv_bytes))
        x = m->rndv_alpha;
    if (m->share_bytes > 0 && bytes >= m->share_bytes)
        x -= bytes * m->beta / 2;
    return x;
}

#endif
