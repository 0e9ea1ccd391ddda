/*
 * rules.h — declarations of every rule named in ops.def, generated from it.
 * Included by ops.c and by each family file in analyzer/ops/.
 */
#ifndef OC_RULES_H
#define OC_RULES_H

#include "../ops.h"

#define OC_OP(dom, name, since, imin, imax, omin, omax, fl, buf, inf, cst, fld, rp) OC_RULE(inf); OC_COST(cst); OC_FOLD(fld);
#include "../ops.def"
#undef OC_OP

#endif
