/*
 * CRC32C (Castagnoli): reflected polynomial 0x82F63B78, initial value and final xor
 * 0xFFFFFFFF (RFC 3720 appendix B.4; check value of "123456789" is 0xE3069283).
 *
 * Two implementations with one result: the SSE4.2 crc32 instruction (8 bytes per step)
 * when the CPU has it, else slicing-by-8 over eight 256-entry tables built at compile
 * time (table t maps a byte that is t positions further from the end of the 8-byte
 * block).  Both are checked against each other and the RFC vectors in the unit test.
 */
#include <array>
#include <cstdint>
#include <cstring>

#include "pm_mcproto.h"

namespace {

constexpr uint32_t kPoly = 0x82F63B78u;

constexpr std::array<std::array<uint32_t, 256>, 8> make_tables()
{
    std::array<std::array<uint32_t, 256>, 8> t{};
    for (uint32_t i = 0; i < 256; ++i) {
        uint32_t c = i;
        for (int k = 0; k < 8; ++k) c = (c & 1u) ? (c >> 1) ^ kPoly : c >> 1;
        t[0][i] = c;
    }
    for (int s = 1; s < 8; ++s)
        for (uint32_t i = 0; i < 256; ++i) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFFu];
    return t;
}

constexpr auto kTables = make_tables();

uint32_t crc_soft(uint32_t c, const uint8_t *p, size_t n)
{
    while (n && (reinterpret_cast<uintptr_t>(p) & 7u)) {
        c = (c >> 8) ^ kTables[0][(c ^ *p++) & 0xFFu];
        --n;
    }
    while (n >= 8) {
        uint32_t lo, hi;
        std::memcpy(&lo, p, 4);
        std::memcpy(&hi, p + 4, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        lo = __builtin_bswap32(lo);
        hi = __builtin_bswap32(hi);
#endif
        lo ^= c;
        c = kTables[7][lo & 0xFFu] ^ kTables[6][(lo >> 8) & 0xFFu] ^ kTables[5][(lo >> 16) & 0xFFu] ^
            kTables[4][lo >> 24] ^ kTables[3][hi & 0xFFu] ^ kTables[2][(hi >> 8) & 0xFFu] ^
            kTables[1][(hi >> 16) & 0xFFu] ^ kTables[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--) c = (c >> 8) ^ kTables[0][(c ^ *p++) & 0xFFu];
    return c;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("sse4.2"))) uint32_t crc_hw(uint32_t c, const uint8_t *p, size_t n)
{
    while (n && (reinterpret_cast<uintptr_t>(p) & 7u)) {
        c = __builtin_ia32_crc32qi(c, *p++);
        --n;
    }
    uint64_t c64 = c;
    while (n >= 8) {
        uint64_t w;
        std::memcpy(&w, p, 8);
        c64 = __builtin_ia32_crc32di(c64, w);
        p += 8;
        n -= 8;
    }
    c = static_cast<uint32_t>(c64);
    while (n--) c = __builtin_ia32_crc32qi(c, *p++);
    return c;
}

bool have_hw()
{
    static const bool hw = __builtin_cpu_supports("sse4.2");
    return hw;
}
#else
uint32_t crc_hw(uint32_t c, const uint8_t *p, size_t n) { return crc_soft(c, p, n); }
bool have_hw() { return false; }
#endif

}  // namespace

extern "C" uint32_t pm_mc_crc32c(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = static_cast<const uint8_t *>(data);
    if (len == 0) return crc;
    return ~(have_hw() ? crc_hw(~crc, p, len) : crc_soft(~crc, p, len));
}

extern "C" uint32_t pm_mc_crc32c_soft(uint32_t crc, const void *data, size_t len)
{
    if (len == 0) return crc;
    return ~crc_soft(~crc, static_cast<const uint8_t *>(data), len);
}
