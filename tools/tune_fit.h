/*
 * tune_fit.h — intercom-tune's fit of the ping-pong times to the cost
 * model's message time (docs/tuning.md section 2): alpha, beta and, where
 * the transport has a rendezvous, rndv_alpha, by weighted least squares on
 * the relative residuals.
 */
#ifndef IC_TOOLS_TUNE_FIT_H
#define IC_TOOLS_TUNE_FIT_H

#include <stddef.h>

#define MAX_PP_SIZES 16

typedef struct pp_result {
    int nsizes;
    size_t size[MAX_PP_SIZES];
    double t[MAX_PP_SIZES]; /* one-way time: half the median round trip */
    double tmin[MAX_PP_SIZES];
    int iters[MAX_PP_SIZES];
    double alpha, beta;
    /* The transport's protocols (ic_comm_get_model; 0: none) and the
     * start-up the fit finds for a rendezvous message. */
    double rndv_bytes, share_bytes, rndv_alpha;
    double max_resid; /* largest |relative residual| of the fit */
    const char *note; /* NULL, or how the fit had to be corrected */
} pp_result_t;

/* The model's one-way time of an n-byte message under r's fit. */
double ic_tune_predict(const pp_result_t *r, size_t n);

/* Fits r->alpha, r->beta, r->rndv_alpha to r->t over r->size; sets
 * r->max_resid and r->note (NULL, or how the fit had to be corrected). */
void ic_tune_fit(pp_result_t *r);

#endif
