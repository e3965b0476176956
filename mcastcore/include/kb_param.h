/*
 * Strict reading of a parameter's text.  Open MPI 4.1 reads integer and size
 * parameters with strtoull and ignores what follows the number ("12abc" is 12,
 * "bogus" 0, "1.5M" 1, a size "-1" is 2^64 - 1) and doubles with strtod ("bogus" is
 * 0).  These functions accept a text only when all of it is the value:
 *
 *   [space] [sign] number [k|m|g [i] [b]] [space]
 *
 * number as C writes it (decimal, 0x hex, leading-0 octal: what strtoull reads), the
 * suffix, either case, multiplies by 2^10, 2^20, 2^30 (the suffixes Open MPI reads;
 * "64KB" and "64KiB" are 65536 as there), no minus sign for a size.  For doubles,
 * strtod's syntax, finite.  An accepted text's value is the one Open MPI computes
 * from it; an empty text is refused (Open MPI reads it as 0).
 *
 * Each returns KB_OK with *out set, or KB_ERR_ARG (the text is not one such value,
 * or it is out of the type's range; NULL arguments).
 */
#ifndef KB_PARAM_H
#define KB_PARAM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

int kb_param_int(const char *text, int *out);
int kb_param_size(const char *text, size_t *out);
int kb_param_double(const char *text, double *out);

#ifdef __cplusplus
}
#endif
#endif /* KB_PARAM_H */
