/*
 * builders_pipeline.h — plan builders and cost functions of the pipeline family
 * (catalog entries in select/catalog_pipeline.inc).
 */
#ifndef IC_ALGO_BUILDERS_PIPELINE_H
#define IC_ALGO_BUILDERS_PIPELINE_H

#include "algo/builders.h"

#endif
