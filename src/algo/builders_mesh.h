/*
 * builders_mesh.h — plan builders and cost functions of the mesh family
 * (catalog entries in select/catalog_mesh.inc).
 */
#ifndef IC_ALGO_BUILDERS_MESH_H
#define IC_ALGO_BUILDERS_MESH_H

#include "algo/builders.h"

#endif
