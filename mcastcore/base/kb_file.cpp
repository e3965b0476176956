/*
 * Bounded text-file reader and byte digest (kb_file.h).  open(O_NONBLOCK) +
 * fstat() before reading: only regular files are read, and never more than
 * max_bytes + 1 bytes of them.
 */
#include "kb_file.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include "kbinomial.h"

#define KB_API extern "C" __attribute__((visibility("default")))

namespace {

void set_err(char *err, size_t len, const std::string &msg)
{
    if (err && len) std::snprintf(err, len, "%s", msg.c_str());
}

const char *kind_of(mode_t m)
{
    if (S_ISDIR(m)) return "a directory";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
}

}  // namespace

KB_API int kb_file_read(const char *path, size_t max_bytes, char **text, size_t *len, char *err,
                        size_t errlen)
{
    if (!path || !text || !len) return KB_ERR_ARG;
    *text = nullptr;
    *len = 0;
    const std::string where = std::string(path) + ":0: ";
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        set_err(err, errlen, where + "cannot open file: " + std::strerror(errno));
        return KB_FILE_ERR_IO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        set_err(err, errlen, where + "cannot stat file: " + std::strerror(errno));
        close(fd);
        return KB_FILE_ERR_IO;
    }
    if (!S_ISREG(st.st_mode)) {
        set_err(err, errlen, where + "not a regular file (" + kind_of(st.st_mode) + ")");
        close(fd);
        return KB_FILE_ERR_IO;
    }
    const std::string too_big = where + "file larger than " + std::to_string(max_bytes) + " bytes";
    if ((unsigned long long) st.st_size > (unsigned long long) max_bytes) {
        set_err(err, errlen, too_big);
        close(fd);
        return KB_FILE_ERR_IO;
    }
    /* Read up to max_bytes + 1: one byte more than allowed means the file grew. */
    size_t cap = (size_t) st.st_size + 1, got = 0;
    char *buf = (char *) std::malloc(cap + 1);
    if (!buf) {
        close(fd);
        set_err(err, errlen, where + "out of memory");
        return KB_ERR_NOMEM;
    }
    for (;;) {
        if (got == cap) {
            if (cap > max_bytes) break;
            size_t ncap = cap * 2 > max_bytes + 1 ? max_bytes + 1 : cap * 2;
            char *nb = (char *) std::realloc(buf, ncap + 1);
            if (!nb) {
                std::free(buf);
                close(fd);
                set_err(err, errlen, where + "out of memory");
                return KB_ERR_NOMEM;
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t r = read(fd, buf + got, cap - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            set_err(err, errlen, where + "cannot read file: " + std::strerror(errno));
            std::free(buf);
            close(fd);
            return KB_FILE_ERR_IO;
        }
        if (r == 0) break;
        got += (size_t) r;
    }
    close(fd);
    if (got > max_bytes) {
        std::free(buf);
        set_err(err, errlen, too_big);
        return KB_FILE_ERR_IO;
    }
    const void *nul = std::memchr(buf, '\0', got);
    if (nul) {
        size_t line = 1;
        for (const char *p = buf; p < (const char *) nul; ++p) line += *p == '\n';
        set_err(err, errlen, std::string(path) + ":" + std::to_string(line) + ": binary file (NUL byte)");
        std::free(buf);
        return KB_FILE_ERR_BINARY;
    }
    buf[got] = '\0';
    *text = buf;
    *len = got;
    return KB_OK;
}

KB_API uint64_t kb_digest64_more(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = (const unsigned char *) data;
    for (size_t i = 0; p && i < len; ++i) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

KB_API uint64_t kb_digest64(const void *data, size_t len)
{
    return kb_digest64_more(KB_DIGEST64_INIT, data, len);
}
