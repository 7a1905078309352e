/* What eevdf-vm-driver (driver.c) does with text: the clock, JSON lines on the
 * result port, whole-file reads and writes, and the parsing of the kernel's own
 * text files (sched/debug and /proc/PID/sched); futex() and pinning. No state of
 * the plan. Header-only, included once by driver.c (one static program, built by
 * scripts/vm-run.sh), which defines _GNU_SOURCE (cpu_set_t) before it. */
#ifndef EEVDF_VM_DRIVER_IO_H
#define EEVDF_VM_DRIVER_IO_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int out_fd = 1;   /* where flush_line() writes: stdout until main() opens /dev/ttyS1 */
static char* dbg_buf;    /* read_big()'s buffer, grown as needed */
static size_t dbg_cap;

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ns(long long ns) {
  if (ns <= 0) return;
  struct timespec ts = {ns / 1000000000LL, ns % 1000000000LL};
  while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR) {
  }
}

/* ---- output: JSON lines on the result port ---- */
static char obuf[1 << 16];
static size_t olen;
static void emit(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(obuf + olen, sizeof obuf - olen, fmt, ap);
  va_end(ap);
  if (n > 0) olen += (size_t)n < sizeof obuf - olen ? (size_t)n : sizeof obuf - olen - 1;
}
static void flush_line(void) {
  emit("\n");
  size_t off = 0;
  while (off < olen) {
    ssize_t w = write(out_fd, obuf + off, olen - off);
    if (w <= 0) break;
    off += (size_t)w;
  }
  olen = 0;
}
static void emit_str(const char* s) {
  emit("\"");
  for (; *s; ++s) {
    if (*s == '"' || *s == '\\')
      emit("\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      emit("\\u%04x", *s);
    else
      emit("%c", *s);
  }
  emit("\"");
}

/* ---- small file helpers ---- */
static int write_file(const char* path, const char* text) {
  int fd = open(path, O_WRONLY);
  if (fd < 0) return -errno;
  ssize_t n = write(fd, text, strlen(text));
  int err = n < 0 ? -errno : 0;
  close(fd);
  return err;
}
static ssize_t read_file(const char* path, char* buf, size_t cap) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  size_t len = 0;
  for (;;) {
    ssize_t n = read(fd, buf + len, cap - 1 - len);
    if (n <= 0) break;
    len += (size_t)n;
    if (len + 1 >= cap) break;
  }
  close(fd);
  buf[len] = 0;
  return (ssize_t)len;
}
/* the whole of a file that may be large (sched/debug) */
static char* read_big(const char* path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return NULL;
  size_t len = 0;
  for (;;) {
    if (len + 65536 > dbg_cap) {
      dbg_cap = dbg_cap ? dbg_cap * 2 : 1 << 20;
      dbg_buf = realloc(dbg_buf, dbg_cap);
    }
    ssize_t n = read(fd, dbg_buf + len, dbg_cap - 1 - len);
    if (n <= 0) break;
    len += (size_t)n;
  }
  close(fd);
  dbg_buf[len] = 0;
  return dbg_buf;
}

/* "-12.345678" (SPLIT_NS: ms and ns) -> ns */
static long long parse_split_ns(const char* s, const char** end) {
  while (*s == ' ') ++s;
  int neg = 0;
  if (*s == '-') neg = 1, ++s;
  long long hi = 0, lo = 0;
  while (*s >= '0' && *s <= '9') hi = hi * 10 + (*s++ - '0');
  if (*s == '.') {
    ++s;
    int digits = 0;
    while (*s >= '0' && *s <= '9') lo = lo * 10 + (*s++ - '0'), ++digits;
    while (digits++ < 6) lo *= 10;
  }
  if (end) *end = s;
  long long v = hi * 1000000LL + lo;
  return neg ? -v : v;
}

static int futex(volatile int* addr, int op, int val) {
  return (int)syscall(SYS_futex, addr, op, val, NULL, NULL, 0);
}

static void pin(pid_t pid, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(pid, sizeof set, &set);
}


static long long field_after(const char* sec, const char* end, const char* key) {
  /* "  .key   : value" within [sec, end) */
  size_t kl = strlen(key);
  for (const char* p = sec; p && p < end; p = strchr(p, '\n')) {
    if (*p == '\n') ++p;
    const char* q = p;
    while (*q == ' ') ++q;
    if (*q == '.' && strncmp(q + 1, key, kl) == 0 && (q[1 + kl] == ' ' || q[1 + kl] == ':')) {
      const char* c = strchr(q, ':');
      if (c && c < end) return parse_split_ns(c + 1, NULL);
    }
  }
  return 0;
}

/* one row of "runnable tasks:" for pid, anywhere in the file; returns the CPU or -1 */
static int find_row(const char* text, pid_t pid, const char** row_out) {
  int cpu = -1;
  for (const char* p = text; p; p = strchr(p, '\n')) {
    if (*p == '\n') ++p;
    if (strncmp(p, "cpu#", 4) == 0) cpu = atoi(p + 4);
    if ((p[0] == ' ' || p[0] == '>') && p[1] != ' ' && p[1] != '.' && p[1] != 0 && p[2] == ' ') {
      char comm[64];
      int rpid;
      if (sscanf(p + 2, "%63s %d", comm, &rpid) == 2 && rpid == pid) {
        *row_out = p;
        return cpu;
      }
    }
  }
  return -1;
}

static long long proc_sched_value(const char* text, const char* key) {
  const char* p = strstr(text, key);
  if (!p) return -1;
  const char* c = strchr(p, ':');
  if (!c) return -1;
  return strtoll(c + 1, NULL, 10);
}

#endif
