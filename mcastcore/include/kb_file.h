/*
 * Bounded reading of the text files the parsers take (topology, coordinates and
 * rules files) and a digest of their bytes.  Shared by both cores and the glue, so
 * every parser refuses the same things with the same messages:
 *
 *   path:0: cannot open file: <strerror(errno)>
 *   path:0: not a regular file (a directory | a FIFO | a character device | ...)
 *   path:0: file larger than <max> bytes
 *   path:LINE: binary file (NUL byte)
 *
 * The file is opened with O_NONBLOCK (opening a FIFO never waits for a writer)
 * and checked with fstat() before a byte is read: a directory, /dev/zero or a
 * FIFO is refused at once, never read until memory runs out.  A regular file
 * that grows past max_bytes while being read is refused as well.
 */
#ifndef KB_FILE_H
#define KB_FILE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes of kb_file_read (the core's KB_OK / KB_ERR_NOMEM / KB_ERR_ARG, plus): */
#define KB_FILE_ERR_IO (-10)       /* cannot open/read, not a regular file, too large */
#define KB_FILE_ERR_BINARY (-11)   /* a NUL byte: not a text file */

/* Reads the whole file into *text (malloc'ed, NUL-terminated, *len bytes without
 * the NUL; free with free()).  errbuf receives one of the messages above.
 * KB_ERR_ARG for NULL arguments. */
int kb_file_read(const char *path, size_t max_bytes, char **text, size_t *len, char *errbuf,
                 size_t errlen);

/* 64-bit FNV-1a digest of len bytes (0 bytes: the FNV offset basis).  Equal file
 * bytes give equal digests on every process. */
uint64_t kb_digest64(const void *data, size_t len);
/* The same hash continued from h (kb_digest64(d, n) == kb_digest64_more(KB_DIGEST64_INIT, d, n)). */
#define KB_DIGEST64_INIT 1469598103934665603ull
uint64_t kb_digest64_more(uint64_t h, const void *data, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* KB_FILE_H */
