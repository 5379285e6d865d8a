/*
 * tune_fit.c — see tune_fit.h.
 */
#include "tune_fit.h"

#include <math.h>
#include <stdbool.h>

/* The model's terms for an n-byte one-way message (a 2-rank ic_bcast):
 * t(n) = alpha + bytes_term(n)*beta + rndv_term(n)*rndv_alpha, as
 * base/model.h prices it: from share_bytes both ends copy (half the
 * bytes count), above rndv_bytes the rendezvous adds its start-up. */
static double bytes_term(const pp_result_t *r, size_t n)
{
    return r->share_bytes > 0 && (double)n >= r->share_bytes ? 0.5 * (double)n : (double)n;
}

static double rndv_term(const pp_result_t *r, size_t n)
{
    return r->rndv_bytes > 0 && (double)n > r->rndv_bytes ? 1.0 : 0.0;
}

double ic_tune_predict(const pp_result_t *r, size_t n)
{
    return r->alpha + r->beta * bytes_term(r, n) + r->rndv_alpha * rndv_term(r, n);
}

/* Solves the k x k system a x = y (k <= 3) by elimination with partial
 * pivoting; false when it is singular. */
static bool solve(int k, double a[3][3], double y[3], double x[3])
{
    for (int c = 0; c < k; c++) {
        int piv = c;
        for (int i = c + 1; i < k; i++)
            if (fabs(a[i][c]) > fabs(a[piv][c]))
                piv = i;
        if (!(fabs(a[piv][c]) > 0))
            return false;
        for (int j = 0; j < k; j++) {
            double t = a[c][j];
            a[c][j] = a[piv][j];
            a[piv][j] = t;
        }
        double t = y[c];
        y[c] = y[piv];
        y[piv] = t;
        for (int i = c + 1; i < k; i++) {
            double f = a[i][c] / a[c][c];
            for (int j = c; j < k; j++)
                a[i][j] -= f * a[c][j];
            y[i] -= f * y[c];
        }
    }
    for (int c = k - 1; c >= 0; c--) {
        double t = y[c];
        for (int j = c + 1; j < k; j++)
            t -= a[c][j] * x[j];
        x[c] = t / a[c][c];
    }
    return true;
}

/* Weighted least squares of t_i on the columns 1, bytes_term and (with
 * rndv) rndv_term, minimising sum(((fit_i - t_i)/t_i)^2). */
static bool fit_columns(const pp_result_t *r, bool rndv, double x[3])
{
    int k = rndv ? 3 : 2;
    double a[3][3] = {{0}}, y[3] = {0};
    for (int i = 0; i < r->nsizes; i++) {
        double w = 1.0 / (r->t[i] * r->t[i]);
        double col[3] = {1.0, bytes_term(r, r->size[i]), rndv_term(r, r->size[i])};
        for (int u = 0; u < k; u++) {
            y[u] += w * col[u] * r->t[i];
            for (int v = 0; v < k; v++)
                a[u][v] += w * col[u] * col[v];
        }
    }
    x[2] = 0;
    return solve(k, a, y, x);
}

/* Least squares for t(n) = alpha + n*beta (+ the transport's terms, see
 * predict) minimising the sum of squared relative residuals. */
void ic_tune_fit(pp_result_t *r)
{
    int above = 0;
    for (int i = 0; i < r->nsizes; i++)
        above += rndv_term(r, r->size[i]) > 0;
    double x[3] = {0};
    bool rndv = above > 0 && above < r->nsizes; /* else it is the intercept's */
    bool ok = fit_columns(r, rndv, x);
    r->note = NULL;
    if (ok && rndv && !(x[2] >= 0)) { /* a rendezvous no slower: fit without it */
        rndv = false;
        ok = fit_columns(r, false, x);
        r->note = "the fitted rndv_alpha was negative; rndv_alpha set to 0";
    }
    double b = ok ? x[1] : 0;
    r->rndv_alpha = ok && rndv ? x[2] : 0;
    if (!(b >= 0)) {
        b = 0;
        r->note = "the fitted beta was negative; beta set to 0";
    }
    double a = x[0];
    if (b != x[1]) { /* refit the intercept with beta fixed at 0 */
        double sw = 0, swy = 0;
        for (int i = 0; i < r->nsizes; i++) {
            double w = 1.0 / (r->t[i] * r->t[i]);
            sw += w;
            swy += w * (r->t[i] - r->rndv_alpha * rndv_term(r, r->size[i]));
        }
        a = sw > 0 ? swy / sw : 0;
    }
    if (!(a > 0)) {
        /* The smallest message's time less its bytes' share, at least. */
        a = r->t[0] - b * (double)r->size[0];
        if (!(a > 0))
            a = r->t[0];
        r->note = "the fitted alpha was not positive; alpha taken from the smallest message";
    }
    r->alpha = a;
    r->beta = b;
    r->max_resid = 0;
    for (int i = 0; i < r->nsizes; i++) {
        double res = fabs((ic_tune_predict(r, r->size[i]) - r->t[i]) / r->t[i]);
        if (res > r->max_resid)
            r->max_resid = res;
    }
}
