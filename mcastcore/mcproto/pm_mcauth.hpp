/* Authentication of group datagrams: the MAC and the replay window (pm_mcauth.cpp). */
#ifndef PM_MCAUTH_HPP
#define PM_MCAUTH_HPP

#include <cstddef>
#include <cstdint>

#include "pm_mcproto.h"

typedef struct evp_cipher_ctx_st EVP_CIPHER_CTX;

namespace pm_mc_auth {

/* AES-128-GMAC under one key (not thread-safe: one per state machine). */
class Mac {
  public:
    explicit Mac(const uint8_t key[PM_MC_AUTH_KEY_BYTES]);
    ~Mac();
    Mac(const Mac &) = delete;
    Mac &operator=(const Mac &) = delete;
    bool ok() const { return ctx_ != nullptr; }
    /* Appends sender, counter and the tag to msg[0, len); the new length, 0 when cap is
     * too small or the library failed. */
    size_t seal(uint8_t *msg, size_t len, size_t cap, uint32_t sender, uint64_t counter);
    /* Checks the trailer; true with the datagram's length without it, its sender and
     * counter. */
    bool open(const uint8_t *msg, size_t len, size_t *inner, uint32_t *sender, uint64_t *counter);

  private:
    bool tag(const uint8_t *msg, size_t len, uint32_t sender, uint64_t counter,
             uint8_t out[PM_MC_AUTH_TAG_BYTES]);
    EVP_CIPHER_CTX *ctx_ = nullptr;
};

/* The counters accepted from one sender: the highest and the 1023 below it. */
class Window {
  public:
    bool seen(uint64_t counter) const;
    void mark(uint64_t counter);

  private:
    static constexpr int kWords = 16;
    static constexpr uint64_t kBits = 64 * kWords;
    uint64_t top_ = 0;             /* counters start at 1: 0 is never sent */
    uint64_t bits_[kWords] = {1};  /* bit i: counter top_ - i seen (counter 0 counts as seen) */
};

}  // namespace pm_mc_auth

#endif
