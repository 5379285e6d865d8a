/* phys.c — physical placement and dimension-ordered chains (see phys.h). */
#include "algo/phys.h"

#include "base/status.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int ic_phys_parse(const char *fn, const char *spec, ic_phys_t *out)
{
    static const struct {
        const char *name;
        ic_phys_kind_t kind;
    } kinds[] = {{"mesh", IC_PHYS_MESH},
                 {"torus", IC_PHYS_TORUS},
                 {"utorus", IC_PHYS_TORUS_UNI},
                 {"hypercube", IC_PHYS_HYPERCUBE}};
    const char *colon = spec ? strchr(spec, ':') : NULL;
    ic_phys_kind_t kind = IC_PHYS_NONE;
    for (size_t i = 0; colon && i < sizeof kinds / sizeof kinds[0]; i++)
        if (strlen(kinds[i].name) == (size_t)(colon - spec) &&
            !strncmp(spec, kinds[i].name, (size_t)(colon - spec)))
            kind = kinds[i].kind;
    if (kind == IC_PHYS_NONE)
        return ic_set_error(IC_ERR_ARG, "%s: unknown network \"%s\" (want mesh:AxB.., "
                            "torus:AxB.., utorus:AxB.. or hypercube:D with D <= %d)", fn,
                            spec ? spec : "(null)", IC_PHYS_MAX_DIMS);
    int nd = 0;
    for (const char *s = colon + 1; *s;) {
        char *e;
        long v = strtol(s, &e, 10);
        if (e == s || v < 1 || v > (1L << 24) || nd == IC_PHYS_MAX_DIMS ||
            (*e && *e != 'x') || (*e == 'x' && !e[1]))
            return ic_set_error(IC_ERR_ARG, "%s: bad dimensions in \"%s\" (want AxBx.. with "
                                "each side >= 1, at most %d)", fn, spec, IC_PHYS_MAX_DIMS);
        out->dims[nd++] = (int)v;
        s = *e == 'x' ? e + 1 : e;
    }
    if (nd == 0 || (kind == IC_PHYS_HYPERCUBE && (nd != 1 || out->dims[0] > IC_PHYS_MAX_DIMS)))
        return ic_set_error(IC_ERR_ARG, "%s: bad dimensions in \"%s\"", fn, spec);
    if (kind == IC_PHYS_HYPERCUBE) {
        nd = out->dims[0];
        for (int k = 0; k < nd; k++)
            out->dims[k] = 2;
    }
    out->kind = kind;
    out->ndims = nd;
    return IC_OK;
}

long ic_phys_nodes(const ic_phys_t *ph)
{
    long s = 1;
    for (int k = 0; k < ph->ndims; k++)
        s *= ph->dims[k];
    return s;
}

bool ic_phys_valid(const ic_phys_t *ph, int n)
{
    if (!ph || ph->kind <= IC_PHYS_NONE || ph->kind > IC_PHYS_HYPERCUBE || !ph->node_of ||
        ph->ndims < 1 || ph->ndims > IC_PHYS_MAX_DIMS)
        return false;
    long nodes = 1;
    for (int k = 0; k < ph->ndims; k++) {
        if (ph->dims[k] < 1 || (ph->kind == IC_PHYS_HYPERCUBE && ph->dims[k] != 2))
            return false;
        nodes *= ph->dims[k];
        if (nodes > (1L << 30))
            return false;
    }
    for (int r = 0; r < n; r++)
        if (ph->node_of[r] < 0 || ph->node_of[r] >= nodes)
            return false;
    return true;
}

static int cmp_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* Sort key of member r: its node's coordinates as digits, dimension 0
 * most significant (dual mesh and cube chains: least significant; the
 * dual R-chain keeps the order and is rotated instead), each XORed with the
 * source's for the cube chain, in the high half; then 0 for the source and
 * r + 1 for the rest. */
static uint64_t chain_key(const ic_phys_t *ph, ic_chain_kind_t kind, bool dual, int r,
                          int source)
{
    int c[IC_PHYS_MAX_DIMS], sc[IC_PHYS_MAX_DIMS];
    for (int k = ph->ndims - 1, a = ph->node_of[r], b = ph->node_of[source]; k >= 0; k--) {
        c[k] = a % ph->dims[k];
        sc[k] = b % ph->dims[k];
        a /= ph->dims[k];
        b /= ph->dims[k];
    }
    uint64_t key = 0;
    for (int j = 0; j < ph->ndims; j++) {
        int k = dual && kind != IC_CHAIN_TORUS ? ph->ndims - 1 - j : j;
        int digit = kind == IC_CHAIN_CUBE ? c[k] ^ sc[k] : c[k];
        key = key * (uint64_t)ph->dims[k] + (uint64_t)digit;
    }
    return key << 32 | (r == source ? 0u : (uint32_t)r + 1u);
}

int ic_phys_chain(const ic_phys_t *ph, ic_chain_kind_t kind, bool dual, int n, int source,
                  int *chain, unsigned long long *work)
{
    for (int r = 0; r < n; r++)
        work[r] = chain_key(ph, kind, dual, r, source);
    qsort(work, (size_t)n, sizeof(*work), cmp_u64);
    int s = 0;
    for (int i = 0; i < n; i++) {
        uint32_t tie = (uint32_t)work[i];
        chain[i] = tie == 0 ? source : (int)(tie - 1);
        if (tie == 0)
            s = i;
    }
    if (kind != IC_CHAIN_TORUS)
        return s;
    /* The R-chain: rotate left by s (dual: by s + 1, so the source comes
     * last), in place (three reversals). */
    s = dual ? (s + 1) % n : s;
    if (s == 0)
        return dual ? n - 1 : 0;
    for (int part = 0; part < 3; part++) {
        int lo = part == 0 ? 0 : part == 1 ? s : 0, hi = part == 0 ? s - 1 : n - 1;
        for (; lo < hi; lo++, hi--) {
            int t = chain[lo];
            chain[lo] = chain[hi];
            chain[hi] = t;
        }
    }
    return dual ? n - 1 : 0;
}

unsigned long long ic_phys_hash(const ic_phys_t *ph, int n)
{
    if (!ph)
        return 0;
    uint64_t h = 1469598103934665603ull;
#define MIX(v) (h = (h ^ (uint64_t)(uint32_t)(v)) * 1099511628211ull)
    MIX(ph->kind);
    MIX(ph->ndims);
    for (int k = 0; k < ph->ndims && k < IC_PHYS_MAX_DIMS; k++)
        MIX(ph->dims[k]);
    for (int r = 0; ph->node_of && r < n; r++)
        MIX(ph->node_of[r]);
#undef MIX
    return h ? h : 1;
}
