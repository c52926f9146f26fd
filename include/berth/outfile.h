/* Output files that are complete or absent: every file the berth tool (and the fuzzer) writes
 * goes through here. Host side, in libberth_testing with the fuzzer and the host session (it
 * is not installed, as berth/testing.h is not).
 *
 *   berth_outfile_t *o;
 *   if (berth_outfile_open("plan.svg", &o, &diag)) return fail(msg);
 *   fprintf(berth_outfile_stream(o), "<svg ...");
 *   if (berth_outfile_commit(o, &diag)) return fail(msg);   // "cannot write plan.svg: ..."
 *
 * What PATH is decides how it is written:
 *   - missing, or a regular file: the bytes go to a new temporary file in the same directory
 *     (".NAME.XXXXXX", created with O_EXCL by mkstemp, so nothing of the user's is touched),
 *     which is flushed, fsync'd and renamed over PATH only when every write succeeded. A
 *     replaced file keeps its permission bits (and, where allowed, its owner and group); a
 *     new one gets 0666 less the umask. A read-only regular file is refused, as a shell
 *     redirection would refuse it. (A replaced file with other hard links is a new inode: the
 *     other names keep the old bytes.)
 *   - a symbolic link to a regular file: the link stays, its target is replaced as above (in
 *     the target's directory). A link to a missing file is refused (nothing is created
 *     through a dangling link).
 *   - a FIFO, a character device (/dev/null, /dev/full, a terminal) or a /proc/.../fd link
 *     (/dev/stdout, /dev/fd/N): written in place, opened for appending, never replaced or
 *     truncated. Such a stream cannot be made atomic: a failed write is reported, and what
 *     was written before stays written.
 *   - a directory, a block device, a socket: refused.
 * Errors name PATH, never the temporary file. An interrupted process (a signal) may leave the
 * hidden temporary file behind, never a partial PATH.
 *
 * This is host-side code (stdio, malloc); it never prints: messages go into diag. */
#ifndef BERTH_OUTFILE_H
#define BERTH_OUTFILE_H

#include "berth/status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct berth_outfile berth_outfile_t;

/* Opens PATH for writing as described above. *out is owned by the caller until it passes it
 * to berth_outfile_commit or berth_outfile_discard. Errors: BERTH_ERR_INVALID_ARGUMENT (PATH
 * cannot be written: what it is, or the system's reason), BERTH_ERR_RESOURCE_EXHAUSTED. */
berth_status_t berth_outfile_open(const char *path, berth_outfile_t **out, berth_diag_t *diag);

/* The stream to write to (NULL after berth_outfile_close). Write errors are collected and
 * reported by close/commit, so callers need not check every fprintf. */
FILE *berth_outfile_stream(berth_outfile_t *o);

/* True if PATH is written in place (a FIFO, a character device, /dev/stdout): a stream. */
bool berth_outfile_is_stream(const berth_outfile_t *o);

/* The path as the caller gave it. */
const char *berth_outfile_path(const berth_outfile_t *o);

/* Ends writing: flushes, checks the stream's error flag, fsyncs a temporary file and closes
 * it; PATH is not touched yet (the output is staged). Idempotent. On failure the temporary
 * file is removed, and commit fails too. Errors: BERTH_ERR_INVALID_ARGUMENT ("cannot write
 * PATH: No space left on device"). */
berth_status_t berth_outfile_close(berth_outfile_t *o, berth_diag_t *diag);

/* Closes (if still open) and puts the output in place (renames the temporary file over PATH;
 * nothing for a stream). Frees o, also on failure (the temporary file is then removed).
 * Errors: those of berth_outfile_close, BERTH_ERR_INVALID_ARGUMENT (the rename failed). */
berth_status_t berth_outfile_commit(berth_outfile_t *o, berth_diag_t *diag);

/* Drops the output: closes and removes the temporary file (PATH keeps its old contents or
 * stays absent; a stream keeps what was already written). Frees o. o may be NULL. */
void berth_outfile_discard(berth_outfile_t *o);

/* Writes len bytes to PATH through the above (open, write, commit). */
berth_status_t berth_file_write(const char *path, const void *bytes, size_t len, berth_diag_t *diag);

#ifdef __cplusplus
}
#endif
#endif
