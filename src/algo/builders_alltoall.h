/*
 * builders_alltoall.h — plan builders and cost functions of the alltoall family
 * (catalog entries in select/catalog_alltoall.inc).
 */
#ifndef IC_ALGO_BUILDERS_ALLTOALL_H
#define IC_ALGO_BUILDERS_ALLTOALL_H

#include "algo/builders.h"

#endif
