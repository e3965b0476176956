/*
 * Strict reading of parameter text (kb_param.h): the number, its suffix and nothing
 * else, in the type's range.
 */
#include "kb_param.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "kbinomial.h"

#define KB_API extern "C" __attribute__((visibility("default")))

namespace {

const char *skip_space(const char *p)
{
    while (std::isspace((unsigned char) *p)) ++p;
    return p;
}

// The magnitude and sign of "[space] [sign] number [k|m|g [i] [b]] [space]"; false when
// the text is anything else or the magnitude does not fit in 64 bits.
bool read_integer(const char *text, bool allow_minus, bool *negative, uint64_t *magnitude)
{
    const char *p = skip_space(text);
    *negative = false;
    if ('-' == *p || '+' == *p) {
        *negative = '-' == *p;
        ++p;
    }
    if ((*negative && !allow_minus) || !std::isdigit((unsigned char) *p)) return false;
    // Decimal, octal (0...) and hex (0x...) as Open MPI reads them; not C23's binary 0b...,
    // which glibc 2.38 and later accept in C++ (Debian 13) but Open MPI's C parser does not.
    if ('0' == p[0] && ('b' == p[1] || 'B' == p[1])) return false;
    char *end = nullptr;
    errno = 0;
    uint64_t v = std::strtoull(p, &end, 0);
    if (ERANGE == errno) return false;
    int shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    default: break;
    }
    if (0 != shift) {
        ++end;
        if ('i' == *end || 'I' == *end) ++end;
        if ('b' == *end || 'B' == *end) ++end;
        if (v > (UINT64_MAX >> shift)) return false;
        v <<= shift;
    }
    if ('\0' != *skip_space(end)) return false;
    *magnitude = v;
    return true;
}

}  // namespace

KB_API int kb_param_int(const char *text, int *out)
{
    bool negative = false;
    uint64_t v = 0;
    if (nullptr == text || nullptr == out || !read_integer(text, true, &negative, &v)) {
        return KB_ERR_ARG;
    }
    if (negative ? v > (uint64_t) INT_MAX + 1 : v > (uint64_t) INT_MAX) return KB_ERR_ARG;
    *out = negative ? (int) (-(int64_t) v) : (int) v;
    return KB_OK;
}

KB_API int kb_param_size(const char *text, size_t *out)
{
    bool negative = false;
    uint64_t v = 0;
    if (nullptr == text || nullptr == out || !read_integer(text, false, &negative, &v) ||
        v > SIZE_MAX) {
        return KB_ERR_ARG;
    }
    *out = (size_t) v;
    return KB_OK;
}

KB_API int kb_param_double(const char *text, double *out)
{
    if (nullptr == text || nullptr == out) return KB_ERR_ARG;
    char *end = nullptr;
    const double v = std::strtod(text, &end);
    if (end == text || '\0' != *skip_space(end) || !std::isfinite(v)) return KB_ERR_ARG;
    *out = v;
    return KB_OK;
}
