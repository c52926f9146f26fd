/* A minimal test harness: CHECK records a failure with file:line and keeps going;
 * test_finish() returns the process exit code. Every check can fail. */
#ifndef BERTH_TESTS_TEST_UTIL_H
#define BERTH_TESTS_TEST_UTIL_H

#include <stdio.h>

extern int test_failures;
extern int test_checks;

#define CHECK(cond)                                                          \
  do {                                                                       \
    test_checks++;                                                           \
    if (!(cond)) {                                                           \
      test_failures++;                                                       \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                        \
  } while (0)

#define CHECK_MSG(cond, ...)                                              \
  do {                                                                    \
    test_checks++;                                                        \
    if (!(cond)) {                                                        \
      test_failures++;                                                    \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                       \
      fprintf(stderr, "\n");                                              \
    }                                                                     \
  } while (0)

/* Prints a summary and returns 0 if every check passed, else 1. */
int test_finish(const char *name);
/* Reads a whole file into a malloc'd NUL-terminated buffer; NULL if unreadable. */
char *test_read_file(const char *path, size_t *len);

#endif
