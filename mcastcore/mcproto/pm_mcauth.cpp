/*
 * Authentication of the multicast group's datagrams (pm_mcproto.h, "Authentication").
 *
 * AES-128-GMAC through OpenSSL's EVP: GCM with the whole datagram as additional data and
 * nothing to encrypt.  The nonce is (sender rank, sender's counter): a sender never uses
 * a counter twice under one key (its state machine counts every group datagram it seals,
 * retransmissions included), which is what GCM needs.  The receivers keep, per sender, a
 * window of the last 1024 counters they accepted: a datagram seen before (a replay of
 * this communicator's own traffic) is dropped before the protocol looks at it.
 *
 * Why GMAC: with AES-NI and carry-less multiply it is the cheapest MAC per byte that a
 * well-kept library offers on x86-64 and Arm (faster than HMAC-SHA256 and BLAKE2 in
 * OpenSSL 3.0: docs/evidence.md, E-MAC-1), and OpenSSL is on every Debian machine.
 */
#include "mcproto/pm_mcauth.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <cstring>

namespace pm_mc_auth {

namespace {
inline void put32(uint8_t *p, uint32_t v)
{
    p[0] = uint8_t(v >> 24);
    p[1] = uint8_t(v >> 16);
    p[2] = uint8_t(v >> 8);
    p[3] = uint8_t(v);
}
inline void put64(uint8_t *p, uint64_t v)
{
    put32(p, uint32_t(v >> 32));
    put32(p + 4, uint32_t(v));
}
inline uint32_t get32(const uint8_t *p)
{
    return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}
inline uint64_t get64(const uint8_t *p) { return uint64_t(get32(p)) << 32 | get32(p + 4); }
}  // namespace

Mac::Mac(const uint8_t key[PM_MC_AUTH_KEY_BYTES])
{
    ctx_ = EVP_CIPHER_CTX_new();
    if (ctx_ == nullptr) return;
    if (EVP_EncryptInit_ex(ctx_, EVP_aes_128_gcm(), nullptr, nullptr, nullptr) != 1 ||
        EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_GCM_SET_IVLEN, 12, nullptr) != 1 ||
        EVP_EncryptInit_ex(ctx_, nullptr, nullptr, key, nullptr) != 1) {
        EVP_CIPHER_CTX_free(ctx_);
        ctx_ = nullptr;
    }
}

Mac::~Mac()
{
    if (ctx_ != nullptr) EVP_CIPHER_CTX_free(ctx_);
}

bool Mac::tag(const uint8_t *msg, size_t len, uint32_t sender, uint64_t counter,
              uint8_t out[PM_MC_AUTH_TAG_BYTES])
{
    if (ctx_ == nullptr || len > size_t(INT32_MAX)) return false;
    uint8_t iv[12];
    put32(iv, sender);
    put64(iv + 4, counter);
    int n = 0;
    uint8_t none[16];
    return EVP_EncryptInit_ex(ctx_, nullptr, nullptr, nullptr, iv) == 1 &&
           EVP_EncryptUpdate(ctx_, nullptr, &n, msg, int(len)) == 1 &&
           EVP_EncryptFinal_ex(ctx_, none, &n) == 1 &&
           EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_GCM_GET_TAG, PM_MC_AUTH_TAG_BYTES, out) == 1;
}

size_t Mac::seal(uint8_t *msg, size_t len, size_t cap, uint32_t sender, uint64_t counter)
{
    if (cap < len + PM_MC_AUTH_BYTES) return 0;
    put32(msg + len, sender);
    put64(msg + len + 4, counter);
    const size_t covered = len + 12;
    if (!tag(msg, covered, sender, counter, msg + covered)) return 0;
    return len + PM_MC_AUTH_BYTES;
}

bool Mac::open(const uint8_t *msg, size_t len, size_t *inner, uint32_t *sender, uint64_t *counter)
{
    if (len < PM_MC_AUTH_BYTES) return false;
    const size_t covered = len - PM_MC_AUTH_TAG_BYTES;
    const uint32_t s = get32(msg + covered - 12);
    const uint64_t c = get64(msg + covered - 8);
    uint8_t want[PM_MC_AUTH_TAG_BYTES];
    if (!tag(msg, covered, s, c, want) ||
        CRYPTO_memcmp(want, msg + covered, PM_MC_AUTH_TAG_BYTES) != 0)
        return false;
    *inner = len - PM_MC_AUTH_BYTES;
    *sender = s;
    *counter = c;
    return true;
}

bool Window::seen(uint64_t c) const
{
    if (c > top_) return false;
    const uint64_t back = top_ - c;
    if (back >= kBits) return true; /* older than the window: treated as a replay */
    return (bits_[back / 64] >> (back % 64)) & 1u;
}

void Window::mark(uint64_t c)
{
    if (c > top_) {
        const uint64_t shift = c - top_;
        if (shift >= kBits) {
            std::memset(bits_, 0, sizeof bits_);
        } else {
            /* bit i stands for counter top_ - i: every bit moves up by shift */
            const int ws = int(shift / 64), bs = int(shift % 64);
            for (int w = kWords - 1; w >= 0; --w) {
                const int src = w - ws;
                uint64_t v = src >= 0 ? bits_[src] << bs : 0;
                if (bs != 0 && src >= 1) v |= bits_[src - 1] >> (64 - bs);
                bits_[w] = v;
            }
        }
        top_ = c;
    }
    const uint64_t back = top_ - c;
    if (back < kBits) bits_[back / 64] |= uint64_t(1) << (back % 64);
}

}  // namespace pm_mc_auth

extern "C" size_t pm_mc_seal_with(const uint8_t key[PM_MC_AUTH_KEY_BYTES], uint32_t sender,
                                  uint64_t counter, void *msg, size_t len, size_t cap)
{
    if (key == nullptr || msg == nullptr) return 0;
    pm_mc_auth::Mac mac(key);
    return mac.seal(static_cast<uint8_t *>(msg), len, cap, sender, counter);
}
