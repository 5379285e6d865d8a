/* mesh.c — logical meshes, prime factors, factorisations (see mesh.h). */
#include "algo/mesh.h"

ic_mesh_t ic_mesh_line(int p)
{
    ic_mesh_t m = {0};
    m.d = 1;
    m.dims[0] = p;
    return m;
}

long ic_mesh_size(const ic_mesh_t *m)
{
    long s = 1;
    for (int k = 0; k < m->d; k++)
        s *= m->dims[k];
    return s;
}

int ic_mesh_stride(const ic_mesh_t *m, int k)
{
    int s = 1;
    for (int j = m->d - 1; j > k; j--)
        s *= m->dims[j];
    return s;
}

void ic_mesh_coords(const ic_mesh_t *m, int rank, int *coords)
{
    for (int k = m->d - 1; k >= 0; k--) {
        coords[k] = rank % m->dims[k];
        rank /= m->dims[k];
    }
}

int ic_mesh_rank(const ic_mesh_t *m, const int *coords)
{
    int r = 0;
    for (int k = 0; k < m->d; k++)
        r = r * m->dims[k] + coords[k];
    return r;
}

ic_view_t ic_mesh_dim_view(const ic_mesh_t *m, int rank, int k)
{
    int stride = ic_mesh_stride(m, k);
    int coord = (rank / stride) % m->dims[k];
    ic_view_t v = {m->dims[k], rank - coord * stride, stride, coord, NULL};
    return v;
}

int ic_prime_factors(int p, int *f)
{
    int n = 0;
    for (int q = 2; (long)q * q <= p; q++)
        while (p % q == 0) {
            f[n++] = q;
            p /= q;
        }
    if (p > 1)
        f[n++] = p;
    return n;
}

ic_mesh_t ic_mesh_prime(int p)
{
    ic_mesh_t m = {0};
    m.d = ic_prime_factors(p, m.dims);
    if (m.d == 0)
        m = ic_mesh_line(p);
    return m;
}

/* Appends every ordered factorisation of rest (factors >= 2) after the
 * first d factors already in cur. */
static void factorize(int rest, int max_d, ic_mesh_t *cur, ic_mesh_t *out, int max_out,
                      int *count)
{
    if (rest == 1) {
        if (cur->d >= 2) { /* {p} itself is out[0] */
            if (*count < max_out)
                out[*count] = *cur;
            ++*count;
        }
        return;
    }
    if (cur->d == max_d)
        return;
    for (int f = 2; f <= rest; f++) {
        if (rest % f)
            continue;
        cur->dims[cur->d++] = f;
        factorize(rest / f, max_d, cur, out, max_out, count);
        cur->d--;
    }
}

int ic_mesh_factorizations(int p, int max_d, ic_mesh_t *out, int max_out)
{
    int count = 1;
    if (max_out > 0)
        out[0] = ic_mesh_line(p);
    if (p <= 1 || max_d < 2)
        return count;
    ic_mesh_t cur = {0};
    factorize(p, max_d < IC_MESH_MAX_DIMS ? max_d : IC_MESH_MAX_DIMS, &cur, out, max_out, &count);
    return count;
}
