/* test_mesh.c — logical meshes: coordinates, dimension views, prime
 * factors, factorisations (src/algo/mesh.c). */
#include "algo/mesh.h"
#include "check.h"

#include <string.h>

static int is_prime(int q)
{
    if (q < 2)
        return 0;
    for (int d = 2; d * d <= q; d++)
        if (q % d == 0)
            return 0;
    return 1;
}

static void check_mesh(const ic_mesh_t *m)
{
    int p = (int)ic_mesh_size(m), c[IC_MESH_MAX_DIMS], c2[IC_MESH_MAX_DIMS];
    for (int r = 0; r < p; r++) {
        ic_mesh_coords(m, r, c);
        CHECK(ic_mesh_rank(m, c) == r, "round trip of rank %d", r);
        for (int k = 0; k < m->d; k++) {
            CHECK(c[k] >= 0 && c[k] < m->dims[k], "coord %d of rank %d in range", k, r);
            ic_view_t v = ic_mesh_dim_view(m, r, k);
            CHECK(v.n == m->dims[k] && v.me == c[k], "view %d of rank %d: n, me", k, r);
            CHECK(ic_view_rank(&v, v.me) == r, "view %d of rank %d contains it", k, r);
            for (int i = 0; i < v.n; i++) {
                /* Members differ from r in coordinate k only, and it is i. */
                ic_mesh_coords(m, ic_view_rank(&v, i), c2);
                int same = 1;
                for (int j = 0; j < m->d; j++)
                    same &= j == k ? c2[j] == i : c2[j] == c[j];
                CHECK(same, "member %d of the dim-%d ring through %d", i, k, r);
            }
        }
    }
    /* Row-major: the last dimension varies fastest. */
    CHECK(ic_mesh_stride(m, m->d - 1) == 1, "last stride is 1");
}

int main(void)
{
    const int shapes[][4] = {{1, 1}, {1, 7}, {2, 5, 7}, {2, 6, 6}, {3, 3, 4, 5}, {3, 4, 4, 4},
                             {3, 3, 5, 7}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        ic_mesh_t m = {0};
        m.d = shapes[i][0];
        memcpy(m.dims, shapes[i] + 1, sizeof(int) * (size_t)m.d);
        check_mesh(&m);
    }
    ic_mesh_t m60 = ic_mesh_prime(60);
    CHECK(m60.d == 4 && m60.dims[0] == 2 && m60.dims[1] == 2 && m60.dims[2] == 3 &&
              m60.dims[3] == 5,
          "60 = 2 x 2 x 3 x 5");
    check_mesh(&m60);
    for (int p = 1; p <= 5000; p++) {
        int f[IC_MESH_MAX_DIMS], n = ic_prime_factors(p, f);
        long prod = 1;
        int ok = 1;
        for (int i = 0; i < n; i++) {
            prod *= f[i];
            ok &= is_prime(f[i]) && (i == 0 || f[i - 1] <= f[i]);
        }
        CHECK(prod == p && ok, "prime factors of %d", p);
    }
    ic_mesh_t out[64];
    CHECK(ic_mesh_factorizations(12, 3, out, 64) == 8, "12 has 8 shapes of <= 3 dims");
    CHECK(out[0].d == 1 && out[0].dims[0] == 12, "the line comes first");
    CHECK(ic_mesh_factorizations(13, 3, out, 64) == 1, "a prime has only the line");
    CHECK(ic_mesh_factorizations(1, 3, out, 64) == 1, "p = 1");
    for (int p = 2; p <= 200; p++) {
        int n = ic_mesh_factorizations(p, 3, out, 64);
        for (int i = 0; i < n && i < 64; i++) {
            CHECK(ic_mesh_size(&out[i]) == p && out[i].d <= 3, "shape %d of %d", i, p);
            for (int j = 0; j < i; j++)
                CHECK(out[j].d != out[i].d ||
                          memcmp(out[j].dims, out[i].dims, sizeof(int) * (size_t)out[i].d),
                      "shapes %d and %d of %d differ", j, i, p);
        }
    }
    printf("test_mesh: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
