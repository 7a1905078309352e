/* What the static /init probes of the QEMU measurements share
 * (sched_idle_probe.c, debug_read_stress.c, pelt_probe.c): JSON lines out,
 * pinning to a CPU, the monotonic clock, kernel command-line parameters, and
 * one read of the sched debugfs file. Header-only: each probe is one static program (scripts/vm-lib.sh). */
#ifndef EEVDF_VM_PROBE_COMMON_H
#define EEVDF_VM_PROBE_COMMON_H

#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* where emit() writes: stdout until the probe opens the second serial port */
static int out = 1;

/* As /init: mount /proc, /sys, /dev and debugfs, send emit() to the second
 * serial port (/dev/ttyS1; stdout if it cannot be opened), and read the kernel
 * command line into cmdline (empty if unreadable). */
static void probe_init(char *cmdline, size_t cap) {
  mkdir("/proc", 0755);
  mkdir("/sys", 0755);
  mkdir("/dev", 0755);
  mount("proc", "/proc", "proc", 0, NULL);
  mount("sysfs", "/sys", "sysfs", 0, NULL);
  mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
  mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
  int fd = open("/dev/ttyS1", O_WRONLY | O_NOCTTY);
  if (fd >= 0) out = fd;
  cmdline[0] = 0;
  int cfd = open("/proc/cmdline", O_RDONLY);
  if (cfd < 0) return;
  ssize_t n = read(cfd, cmdline, cap - 1);
  cmdline[n > 0 ? n : 0] = 0;
  close(cfd);
}

/* one line (a newline is added), cut at 8 KiB */
static void emit(const char *fmt, ...) {
  char buf[8192];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if (n > (int)sizeof buf - 2) n = (int)sizeof buf - 2;
  buf[n++] = '\n';
  if (write(out, buf, (size_t)n) < 0) { /* nothing to do */ }
}

/* the calling task on CPU `cpu` only (the probes define _GNU_SOURCE for cpu_set_t) */
static inline void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
}

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* the number after `key` ("dr.seconds=") in the command line, or fallback */
static long param(const char *cmdline, const char *key, long fallback) {
  const char *p = strstr(cmdline, key);
  return p ? strtol(p + strlen(key), NULL, 10) : fallback;
}

/* /sys/kernel/debug/sched/debug, whole, into dbg; its length or -1 */
static char *dbg;
static size_t dbg_cap = 1 << 20;

static ssize_t read_debug(void) {
  int fd = open("/sys/kernel/debug/sched/debug", O_RDONLY);
  if (fd < 0) return -1;
  size_t len = 0;
  for (;;) {
    if (len + 65536 > dbg_cap) {
      dbg_cap *= 2;
      dbg = realloc(dbg, dbg_cap + 1);
      if (!dbg) return -1;
    }
    ssize_t n = read(fd, dbg + len, 65536);
    if (n <= 0) break;
    len += (size_t)n;
  }
  close(fd);
  dbg[len] = 0;
  return (ssize_t)len;
}

#endif
