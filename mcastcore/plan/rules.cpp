/*
 * Decision rules: a small text table that overrides the cost model's choice per
 * communicator size, message size and locality (kbinomial.h, "Decision rules").
 *
 *   # comment
 *   RANKS  BYTES  ALGORITHM  [k=K] [segment_bytes=S] [where=node|net|any]
 *
 * RANKS and BYTES: '*', a value, 'A-B' or 'A-' (inclusive); byte values take the
 * suffixes k/K (1024) and m/M (1048576).  The first matching line wins.
 */
#include "base/kb_core.hpp"
#include "kb_file.h"

#include <cctype>
#include <climits>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

struct kb_rules {
    struct Rule {
        int line;
        long rmin, rmax;           /* ranks */
        unsigned long long bmin, bmax;   /* bytes */
        std::string alg;
        int k;
        size_t seg;
        int where;                 /* 0 any, 1 node, 2 net */
    };
    std::vector<Rule> rules;
    uint64_t checksum = 1469598103934665603ull;
};

namespace {

struct ParseError {
    std::string msg;
};

[[noreturn]] void fail(const std::string &name, int line, const std::string &what)
{
    throw ParseError{name + ":" + std::to_string(line) + ": " + what};
}

unsigned long long number(const std::string &tok, bool bytes, const std::string &name, int line)
{
    if (tok.empty() || !std::isdigit((unsigned char) tok[0])) fail(name, line, "bad number '" + tok + "'");
    char *end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(tok.c_str(), &end, 10);
    unsigned long long mult = 1;
    if (bytes && (*end == 'k' || *end == 'K')) mult = 1024ull, ++end;
    else if (bytes && (*end == 'm' || *end == 'M')) mult = 1048576ull, ++end;
    if (*end != '\0' || errno == ERANGE || v > (~0ull) / mult) fail(name, line, "bad number '" + tok + "'");
    return v * mult;
}

void range(const std::string &tok, bool bytes, unsigned long long top, unsigned long long &lo,
           unsigned long long &hi, const std::string &name, int line)
{
    if (tok == "*") {
        lo = 0;
        hi = top;
        return;
    }
    size_t dash = tok.find('-');
    if (dash == std::string::npos) {
        lo = hi = number(tok, bytes, name, line);
    } else {
        lo = number(tok.substr(0, dash), bytes, name, line);
        hi = dash + 1 == tok.size() ? top : number(tok.substr(dash + 1), bytes, name, line);
    }
    if (lo > hi) fail(name, line, "empty range '" + tok + "'");
}

}  // namespace

static kb_rules *parse_rules(const std::string &text, const std::string &name)
{
    auto *r = new kb_rules;
    try {
        std::istringstream in(text);
        std::string raw;
        int line = 0;
        while (std::getline(in, raw)) {
            if (line == INT_MAX) fail(name, line, "too many lines");
            ++line;
            if (raw.size() > KB_RULES_MAX_LINE_BYTES)
                fail(name, line, "line too long (limit " + std::to_string(KB_RULES_MAX_LINE_BYTES) + ")");
            size_t hash = raw.find('#');
            if (hash != std::string::npos) raw.erase(hash);
            std::istringstream ls(raw);
            std::vector<std::string> tok;
            for (std::string t; ls >> t;) tok.push_back(t);
            if (tok.empty()) continue;
            if (tok.size() < 3) fail(name, line, "need RANKS BYTES ALGORITHM");
            if (r->rules.size() >= KB_RULES_MAX_RULES)
                fail(name, line, "too many rules (limit " + std::to_string(KB_RULES_MAX_RULES) + ")");
            kb_rules::Rule rule{line, 0, 0, 0, 0, tok[2], 0, 0, 0};
            unsigned long long lo, hi;
            range(tok[0], false, 0x7fffffffull, lo, hi, name, line);
            if (hi > 0x7fffffffull) fail(name, line, "rank count out of range");
            rule.rmin = (long) lo;
            rule.rmax = (long) hi;
            range(tok[1], true, ~0ull, rule.bmin, rule.bmax, name, line);
            for (char c : rule.alg)
                if (!std::isalnum((unsigned char) c) && c != '_' && c != '-')
                    fail(name, line, "bad algorithm name '" + rule.alg + "'");
            for (size_t i = 3; i < tok.size(); ++i) {
                size_t eq = tok[i].find('=');
                std::string key = tok[i].substr(0, eq), val = eq == std::string::npos ? "" : tok[i].substr(eq + 1);
                if (eq == std::string::npos || val.empty()) fail(name, line, "expected key=value, got '" + tok[i] + "'");
                if (key == "k") {
                    unsigned long long k = number(val, false, name, line);
                    if (k < 1 || k > 1024) fail(name, line, "k must be 1..1024");
                    rule.k = (int) k;
                } else if (key == "segment_bytes") {
                    unsigned long long s = number(val, true, name, line);
                    if (s < 1) fail(name, line, "segment_bytes must be >= 1");
                    rule.seg = (size_t) s;
                } else if (key == "where") {
                    if (val == "any") rule.where = 0;
                    else if (val == "node") rule.where = 1;
                    else if (val == "net") rule.where = 2;
                    else fail(name, line, "where must be node, net or any");
                } else {
                    fail(name, line, "unknown key '" + key + "'");
                }
            }
            r->rules.push_back(rule);
            for (const std::string &t : tok)   /* FNV-1a over the tokens */
                for (unsigned char c : t + "\x1f") r->checksum = (r->checksum ^ c) * 1099511628211ull;
            r->checksum = (r->checksum ^ '\n') * 1099511628211ull;
        }
        return r;
    } catch (...) {
        delete r;
        throw;
    }
}

static void set_err(char *err, size_t len, const std::string &msg)
{
    if (err && len) {
        std::snprintf(err, len, "%s", msg.c_str());
    }
}

/* Runs f() (which returns a status); exceptions become a status and a message. */
template <class F> static int guarded(char *err, size_t errlen, F &&f) noexcept
{
    try {
        return f();
    } catch (const ParseError &e) {
        set_err(err, errlen, e.msg);
        return KB_ERR_ARG;
    } catch (const std::bad_alloc &) {
        set_err(err, errlen, "out of memory");
        return KB_ERR_NOMEM;
    } catch (...) {
        set_err(err, errlen, "internal error");
        return KB_ERR_INTERNAL;
    }
}

extern "C" __attribute__((visibility("default"))) int kb_rules_parse(const char *text, const char *name,
                                                                      kb_rules_t **out, char *err,
                                                                      size_t errlen)
{
    if (!out) return KB_ERR_ARG;
    *out = nullptr;
    if (!text) {
        set_err(err, errlen, "no text");
        return KB_ERR_ARG;
    }
    return guarded(err, errlen, [&] {
        *out = parse_rules(text, name ? name : "<rules>");
        return (int) KB_OK;
    });
}

extern "C" __attribute__((visibility("default"))) int kb_rules_load(const char *path, kb_rules_t **out,
                                                                     char *err, size_t errlen)
{
    if (!out) return KB_ERR_ARG;
    *out = nullptr;
    if (!path) return KB_ERR_ARG;
    char *text = nullptr;
    size_t len = 0;
    int rc = kb_file_read(path, KB_RULES_MAX_FILE_BYTES, &text, &len, err, errlen);
    if (rc != KB_OK) return rc == KB_ERR_NOMEM ? (int) KB_ERR_NOMEM : (int) KB_ERR_ARG;
    rc = guarded(err, errlen, [&] {
        *out = parse_rules(std::string(text, len), path);
        return (int) KB_OK;
    });
    std::free(text);
    return rc;
}

extern "C" __attribute__((visibility("default"))) int kb_rules_count(const kb_rules_t *rules)
{
    return rules ? (int) rules->rules.size() : KB_ERR_ARG;
}

extern "C" __attribute__((visibility("default"))) int kb_rules_get(const kb_rules_t *rules, int i,
                                                                    kb_rule_t *out)
{
    if (!rules || !out || i < 0 || i >= (int) rules->rules.size()) return KB_ERR_ARG;
    const auto &r = rules->rules[(size_t) i];
    *out = kb_rule_t{r.line, r.alg.c_str(), r.k, r.seg};
    return KB_OK;
}

extern "C" __attribute__((visibility("default"))) int kb_rules_match(const kb_rules_t *rules, int n,
                                                                      size_t bytes, int single_node,
                                                                      kb_rule_t *out)
{
    if (!rules || !out || n < 1) return KB_ERR_ARG;
    for (const auto &r : rules->rules) {
        if (n < r.rmin || n > r.rmax) continue;
        if ((unsigned long long) bytes < r.bmin || (unsigned long long) bytes > r.bmax) continue;
        if ((r.where == 1 && !single_node) || (r.where == 2 && single_node)) continue;
        *out = kb_rule_t{r.line, r.alg.c_str(), r.k, r.seg};
        return 1;
    }
    return 0;
}

extern "C" __attribute__((visibility("default"))) int
kb_rules_match_from(const kb_rules_t *rules, int from, int n, size_t bytes, int single_node,
                    kb_rule_t *out, int *index)
{
    if (!rules || !out || n < 1 || from < 0) return KB_ERR_ARG;
    for (size_t i = size_t(from); i < rules->rules.size(); ++i) {
        const auto &r = rules->rules[i];
        if (n < r.rmin || n > r.rmax) continue;
        if ((unsigned long long) bytes < r.bmin || (unsigned long long) bytes > r.bmax) continue;
        if ((r.where == 1 && !single_node) || (r.where == 2 && single_node)) continue;
        *out = kb_rule_t{r.line, r.alg.c_str(), r.k, r.seg};
        if (index) *index = int(i);
        return 1;
    }
    return 0;
}

extern "C" __attribute__((visibility("default"))) uint64_t kb_rules_checksum(const kb_rules_t *rules)
{
    return rules ? rules->checksum : 0;
}

extern "C" __attribute__((visibility("default"))) void kb_rules_free(kb_rules_t *rules)
{
    delete rules;
}
