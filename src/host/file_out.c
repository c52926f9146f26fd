/* Output files that are complete or absent (see berth/outfile.h for the rules). */
#define _XOPEN_SOURCE 700
#include "berth/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef enum out_kind {
  OUT_REPLACE,  /* a temporary file renamed over target (missing or regular) */
  OUT_IN_PLACE, /* a stream written where it is */
} out_kind_t;

struct berth_outfile {
  out_kind_t kind;
  FILE *fp;
  bool failed;  /* close failed: the temporary file is gone */
  char *path;   /* as the caller gave it (for messages) */
  char *target; /* what is replaced: path, or a symbolic link's resolved target */
  char *tmp;    /* the temporary file (OUT_REPLACE) */
};

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

static void outfile_free(berth_outfile_t *o) {
  free(o->path);
  free(o->target);
  free(o->tmp);
  free(o);
}

/* Links into /proc/<pid>/fd (/dev/stdout, /dev/fd/1, /proc/self/fd/1) name an open file of
 * some process: a pipe, a terminal, or a file a shell opened for us. They are streams, and
 * replacing what they resolve to would destroy what the shell wrote before. */
static bool is_fd_link(const char *path) {
  char link[PATH_MAX];
  ssize_t n = readlink(path, link, sizeof link - 1);
  if (n >= 0) {
    link[n] = '\0';
    if (strncmp(link, "/proc/", 6) == 0) return true;
  }
  /* the link itself inside /proc (a /dev/fd/N resolves its directory to /proc/self/fd) */
  char *dir = dup_str(path);
  if (!dir) return false;
  char *slash = strrchr(dir, '/');
  bool in_proc = false;
  if (slash) {
    *(slash == dir ? slash + 1 : slash) = '\0';
    char real[PATH_MAX];
    if (realpath(dir, real)) in_proc = strncmp(real, "/proc/", 6) == 0 || strcmp(real, "/proc") == 0;
  }
  free(dir);
  return in_proc;
}

static const char *kind_name(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file, FIFO or character device";
}

static berth_status_t open_in_place(berth_outfile_t *o, berth_diag_t *diag) {
  int fd = open(o->path, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "cannot write %s: %s", o->path, strerror(errno));
  o->fp = fdopen(fd, "ab");
  if (!o->fp) {
    int e = errno;
    close(fd);
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "cannot write %s: %s", o->path, strerror(e));
  }
  o->kind = OUT_IN_PLACE;
  return BERTH_OK;
}

/* A new temporary file next to o->target; existing (a regular file's stat) or NULL. */
static berth_status_t open_replace(berth_outfile_t *o, const struct stat *existing, berth_diag_t *diag) {
  if (existing && access(o->target, W_OK) != 0)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "cannot write %s: %s", o->path, strerror(errno));
  const char *slash = strrchr(o->target, '/');
  size_t dlen = slash ? (size_t)(slash - o->target) + 1 : 0; /* with the '/' */
  const char *base = slash ? slash + 1 : o->target;
  size_t cap = dlen + 1 + strlen(base) + 8;
  o->tmp = malloc(cap);
  if (!o->tmp) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "cannot write %s: out of memory", o->path);
  memcpy(o->tmp, o->target, dlen);
  snprintf(o->tmp + dlen, cap - dlen, ".%.200s.XXXXXX", base); /* within NAME_MAX */
  int fd = mkstemp(o->tmp); /* O_CREAT | O_EXCL, mode 0600 */
  if (fd < 0) {
    int e = errno;
    char dir[PATH_MAX];
    if (!slash) berth_snprintf(dir, sizeof dir, ".");
    else if (slash == o->target) berth_snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(dlen - 1), o->target);
    free(o->tmp);
    o->tmp = NULL;
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "cannot write %s: cannot create a temporary file in %s (berth writes a new file there "
                      "and renames it over %s): %s",
                      o->path, dir, o->path, strerror(e));
  }
  mode_t mode;
  if (existing) {
    mode = existing->st_mode & 0777;
    if (existing->st_uid != geteuid() || existing->st_gid != getegid())
      if (fchown(fd, existing->st_uid, existing->st_gid) != 0) { /* allowed to fail: then ours */
      }
  } else {
    mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask;
  }
  if (fchmod(fd, mode) != 0 || !(o->fp = fdopen(fd, "wb"))) {
    int e = errno;
    close(fd);
    unlink(o->tmp);
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "cannot write %s: %s", o->path, strerror(e));
  }
  o->kind = OUT_REPLACE;
  return BERTH_OK;
}

berth_status_t berth_outfile_open(const char *path, berth_outfile_t **out, berth_diag_t *diag) {
  if (!path || !*path || !out) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "no output file name given");
  berth_outfile_t *o = calloc(1, sizeof *o);
  if (!o || !(o->path = dup_str(path))) {
    free(o);
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "cannot write %s: out of memory", path);
  }
  berth_status_t st = BERTH_OK;
  struct stat ls, ts;
  bool replace = false, exists = false;
  if (lstat(path, &ls) != 0) {
    if (errno == ENOENT) replace = true;
    else st = berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "cannot write %s: %s", path, strerror(errno));
  } else if (S_ISREG(ls.st_mode)) {
    replace = exists = true;
    ts = ls;
  } else if (S_ISLNK(ls.st_mode)) {
    if (is_fd_link(path)) st = open_in_place(o, diag);
    else if (stat(path, &ts) != 0) {
      if (errno == ENOENT)
        st = berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "cannot write %s: it is a symbolic link to a missing file (berth does not create files "
                        "through a dangling link)",
                        path);
      else st = berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "cannot write %s: %s", path, strerror(errno));
    } else if (S_ISREG(ts.st_mode)) {
      char real[PATH_MAX];
      if (!realpath(path, real))
        st = berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "cannot write %s: %s", path, strerror(errno));
      else if (!(o->target = dup_str(real)))
        st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "cannot write %s: out of memory", path);
      else replace = exists = true;
    } else if (S_ISFIFO(ts.st_mode) || S_ISCHR(ts.st_mode)) st = open_in_place(o, diag);
    else
      st = berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "cannot write %s: it links to %s", path, kind_name(ts.st_mode));
  } else if (S_ISFIFO(ls.st_mode) || S_ISCHR(ls.st_mode)) {
    st = open_in_place(o, diag);
  } else {
    st = berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "cannot write %s: it is %s", path, kind_name(ls.st_mode));
  }
  if (!st && replace) {
    if (!o->target && !(o->target = dup_str(path)))
      st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "cannot write %s: out of memory", path);
    else st = open_replace(o, exists ? &ts : NULL, diag);
  }
  if (st) {
    outfile_free(o);
    return st;
  }
  *out = o;
  return BERTH_OK;
}

FILE *berth_outfile_stream(berth_outfile_t *o) { return o ? o->fp : NULL; }

bool berth_outfile_is_stream(const berth_outfile_t *o) { return o && o->kind == OUT_IN_PLACE; }

const char *berth_outfile_path(const berth_outfile_t *o) { return o ? o->path : NULL; }

berth_status_t berth_outfile_close(berth_outfile_t *o, berth_diag_t *diag) {
  if (o->failed) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "cannot write %s", o->path);
  if (!o->fp) return BERTH_OK;
  int prior = errno; /* after a failed write, usually that write's reason */
  errno = 0;
  int e = 0;
  bool ok = fflush(o->fp) == 0;
  if (!ok) e = errno;
  if (ok && ferror(o->fp)) { /* an earlier write failed */
    ok = false;
    e = prior;
  }
  if (ok && o->kind == OUT_REPLACE && fsync(fileno(o->fp)) != 0) {
    ok = false;
    e = errno;
  }
  if (fclose(o->fp) != 0 && ok) {
    ok = false;
    e = errno;
  }
  o->fp = NULL;
  if (ok) return BERTH_OK;
  o->failed = true;
  if (o->tmp) unlink(o->tmp);
  if (e) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "cannot write %s: %s", o->path, strerror(e));
  return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "cannot write %s: write error", o->path);
}

berth_status_t berth_outfile_commit(berth_outfile_t *o, berth_diag_t *diag) {
  berth_status_t st = berth_outfile_close(o, diag);
  if (!st && o->kind == OUT_REPLACE && rename(o->tmp, o->target) != 0) {
    st = berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "cannot write %s: %s", o->path, strerror(errno));
    unlink(o->tmp);
  }
  outfile_free(o);
  return st;
}

void berth_outfile_discard(berth_outfile_t *o) {
  if (!o) return;
  if (o->fp) fclose(o->fp);
  if (o->tmp && !o->failed) unlink(o->tmp);
  outfile_free(o);
}

berth_status_t berth_file_write(const char *path, const void *bytes, size_t len, berth_diag_t *diag) {
  berth_outfile_t *o;
  berth_status_t st = berth_outfile_open(path, &o, diag);
  if (st) return st;
  if (len && fwrite(bytes, 1, len, o->fp) != len) { /* close reports it */
  }
  return berth_outfile_commit(o, diag);
}
