/* eevdf-check: /init of a QEMU boot that measures docs/findings/F9.md on the
 * booted kernel (scripts/vm-sched-idle.sh boots it; results and commands in
 * docs/notes/vm-sched-idle-f9.md).
 *
 * F9: sched_idle_rq() compares rq->nr_running with the root queue's count of
 * SCHED_IDLE tasks; a normal task that blocked with negative lag stays queued
 * ("delayed", DELAY_DEQUEUE) and is still in rq->nr_running, so a CPU that can
 * run only SCHED_IDLE work looks busy to sched_idle_cpu() until that entity is
 * picked (then dequeued) or woken.
 *
 * The tasks (2 CPUs, one LLC):
 *   N  a normal spinner pinned to CPU 0 (CPU 0 is never idle nor idle-only);
 *   H  sip.hogs= SCHED_IDLE spinners pinned to CPU 1 (default 1);
 *   X  a normal task pinned to CPU 1, nice sip.xnice=, slice sip.xslice_us=
 *      (sched_setattr's sched_runtime; 0: the default): spin sip.spin_us
 *      (wall clock), record the time, nanosleep sip.sleep_us, record the time.
 *      When it blocks with negative lag (it ran ahead of the weight-3 H), its
 *      entity stays on CPU 1's queue, delayed, until CPU 1's next pick;
 *   W  a normal task (slice sip.wslice_us=), in one of two modes (sip.mode=):
 *      0, timer: pin itself to {0} (so it is on CPU 0), allow {0,1}, sleep
 *      until an absolute CLOCK_MONOTONIC deadline drawn from [sip.wmin_us,
 *      sip.wmax_us] (xorshift, seed sip.seed), then record sched_getcpu().
 *      Its timer fires on CPU 0 (prev = target = 0, CPU 0 busy), so
 *      select_idle_sibling() scans the LLC (select_idle_cpu()) and takes CPU 1
 *      only if CPU 1 is idle or sched_idle_cpu(1);
 *      1, pipe: pin itself to {1} (prev = 1), allow {0,1}, block in read() on
 *      a pipe; N writes a byte from CPU 0 a pseudo-random time later (WF_SYNC:
 *      target 0), so select_idle_sibling() returns prev only if CPU 1 is idle
 *      or sched_idle_cpu(1); the choice happens inside write(), whose time is
 *      recorded as the "deadline";
 *      2, target (3 CPUs, CPU 2 left idle): as 0 but at home on CPU 1 and
 *      allowed {0,1,2}: the timer fires on CPU 1 (prev = target = 1), which
 *      select_idle_sibling() keeps if sched_idle_cpu(1), else it scans the LLC
 *      and finds CPU 2 idle.
 * X's block/wake times and W's wakes go to MAP_SHARED memory mapped before
 * the forks. After sip.seconds each W wake is classified by X's state at the
 * deadline (timer slack is 1 ns): X running, or X blocked for < 0.5, 0.5-1,
 * 1-1.5, 1.5-2, 2-3, 3-4, 4-6, >= 6 ms; "tight" counts only the wakes that ran
 * within sip.tight_us of the deadline with X in the same state at both ends.
 * Then, X still cycling, sip.diag= reads of /sys/kernel/debug/sched/debug
 * count CPU 1's delayed entities and F9's state (see the diagnostic below);
 * they come last because that reader can crash 6.12.118 (K2).
 *
 * sip.dd=0 writes NO_DELAY_DEQUEUE to /sys/kernel/debug/sched/features (the
 * control), sip.sisutil=0 writes NO_SIS_UTIL (SIS_UTIL can cut the scan to
 * nothing when the LLC is busy). JSON lines on the second serial port
 * (/dev/ttyS1): hello, features, topology, setattr, task, run, table, diag,
 * done.
 *
 * Built static by scripts/vm-sched-idle.sh: gcc -static -O2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe_common.h"

static int set_cpus(int mask) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c = 0; c < 8; c++)
    if (mask & (1 << c)) CPU_SET(c, &set);
  return sched_setaffinity(0, sizeof set, &set);
}


/* a small file's first line (no newline), "" if absent */
static void read_line(const char *path, char *buf, size_t cap) {
  buf[0] = 0;
  int fd = open(path, O_RDONLY);
  if (fd < 0) return;
  ssize_t n = read(fd, buf, cap - 1);
  close(fd);
  if (n < 0) n = 0;
  buf[n] = 0;
  buf[strcspn(buf, "\n")] = 0;
}

static int write_str(const char *path, const char *s) {
  int fd = open(path, O_WRONLY);
  if (fd < 0) return -errno;
  ssize_t n = write(fd, s, strlen(s));
  int e = n < 0 ? -errno : 0;
  close(fd);
  return e;
}

/* JSON-safe copy: quotes and backslashes dropped */
static void clean(char *s) {
  char *w = s;
  for (char *r = s; *r; r++)
    if (*r != '"' && *r != '\\' && (unsigned char)*r >= 0x20) *w++ = *r;
  *w = 0;
}

#define MAX_X (1 << 16)
#define MAX_W (1 << 16)

struct shared {
  volatile long x_n;            /* X's completed cycles */
  long long x_block[MAX_X];     /* just before nanosleep */
  long long x_wake[MAX_X];      /* just after it returns */
  volatile long w_n;
  long long w_deadline[MAX_W];  /* the timer's expiry (absolute) */
  long long w_woke[MAX_W];      /* when W ran again */
  int w_cpu[MAX_W];             /* sched_getcpu() then */
  volatile long w_not_on_0;     /* W was not on its prev CPU (0, or 1 in the pipe mode) before it blocked */
  volatile long w_armed;        /* pipe mode: W is about to block in read() for the n-th time */
  volatile int x_setattr_errno, w_setattr_errno;
};

static void spin_forever(void) {
  for (;;) __asm__ __volatile__("" ::: "memory");
}

static void spin_until(long long t) {
  while (now_ns() < t) __asm__ __volatile__("" ::: "memory");
}

/* sched_setattr() for a fair task: nice, and a slice (sched_runtime, 6.12) when slice_us > 0 */
static int set_fair(long nice, long slice_us) {
  struct { uint32_t size, policy; uint64_t flags; int32_t nice; uint32_t prio; uint64_t runtime, deadline, period; } a;
  memset(&a, 0, sizeof a);
  a.size = 48;
  a.policy = SCHED_OTHER;
  a.nice = (int32_t)nice;
  a.runtime = slice_us > 0 ? (uint64_t)slice_us * 1000 : 0;
  return syscall(SYS_sched_setattr, 0, &a, 0) ? errno : 0;
}

static unsigned long long rng;
static unsigned long long xorshift(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

#define NCLASS 9
static const char *class_name[NCLASS] = {"x_running",           "x_blocked_lt_0.5ms", "x_blocked_0.5_1ms",
                                         "x_blocked_1_1.5ms",   "x_blocked_1.5_2ms",  "x_blocked_2_3ms",
                                         "x_blocked_3_4ms",     "x_blocked_4_6ms",    "x_blocked_ge_6ms"};
static const long long class_upper_ns[NCLASS] = {0, 500000, 1000000, 1500000, 2000000, 3000000, 4000000, 6000000,
                                                 0x7fffffffffffffffLL};

/* X's state at time t: 0 running, 1.. the blocked-age bins, -1 unknown
 * (before X's first block or after its last completed cycle) */
static int classify(const struct shared *s, long n, long long t, long *cycle) {
  *cycle = -1;
  if (n <= 0 || t < s->x_block[0] || t >= s->x_wake[n - 1]) return -1;
  long lo = 0, hi = n - 1; /* the last cycle i with x_block[i] <= t */
  while (lo < hi) {
    long mid = (lo + hi + 1) / 2;
    if (s->x_block[mid] <= t) lo = mid;
    else hi = mid - 1;
  }
  *cycle = lo;
  if (t >= s->x_wake[lo]) return 0;
  const long long age = t - s->x_block[lo];
  int c = 1;
  while (c < NCLASS - 1 && age >= class_upper_ns[c]) c++;
  return c;
}

/* the diagnostic phase (after the measurement, X still cycling): CPU 1's
 * root cfs_rq as /sys/kernel/debug/sched/debug prints it. That file's reader
 * runs avg_vruntime() without CPU 1's lock on 6.12.118 (docs/findings/K2.md),
 * so it is read only after the counts are taken, sip.diag= times
 * (read_debug(), probe_common.h). */

/* ".nr_running : N" of the cpu#1 section (rq->nr_running), -1 if absent */
static long cpu1_rq_nr_running(const char *text) {
  const char *sec = strstr(text, "\ncpu#1");
  if (!sec) return -1;
  const char *k = strstr(sec, ".nr_running");
  const char *colon = k ? strchr(k, ':') : NULL;
  return colon ? strtol(colon + 1, NULL, 10) : -1;
}

/* ".key : N" in the cfs_rq[1]:/ section, -1 if absent */
static long cpu1_field(const char *text, const char *key) {
  const char *sec = strstr(text, "cfs_rq[1]:/\n");
  if (!sec) return -1;
  const char *end = strstr(sec + 1, "\nrt_rq[");
  const char *k = strstr(sec, key);
  if (!k || (end && k > end)) return -1;
  const char *colon = strchr(k, ':');
  return colon ? strtol(colon + 1, NULL, 10) : -1;
}

int main(void) {
  char cmdline[4096];
  probe_init(cmdline, sizeof cmdline);
  const long seconds = param(cmdline, "sip.seconds=", 30);
  const long dd = param(cmdline, "sip.dd=", 1);
  const long sisutil = param(cmdline, "sip.sisutil=", 0);
  const long seed = param(cmdline, "sip.seed=", 1);
  const long spin_us = param(cmdline, "sip.spin_us=", 2000);
  const long sleep_us = param(cmdline, "sip.sleep_us=", 3000);
  const long wmin_us = param(cmdline, "sip.wmin_us=", 500);
  const long wmax_us = param(cmdline, "sip.wmax_us=", 5000);
  const long tight_us = param(cmdline, "sip.tight_us=", 200);
  const long diag = param(cmdline, "sip.diag=", 300);
  const long xnice = param(cmdline, "sip.xnice=", 0);
  const long xslice_us = param(cmdline, "sip.xslice_us=", 0);
  const long wslice_us = param(cmdline, "sip.wslice_us=", 0);
  /* 0 timer (select_idle_cpu), 1 pipe (the prev check), 2 target (3 CPUs: the target check, then the scan) */
  const long mode = param(cmdline, "sip.mode=", 0);
  if (mode == 2 && sysconf(_SC_NPROCESSORS_ONLN) < 3) {
    emit("{\"type\":\"error\",\"what\":\"mode target needs 3 CPUs\"}");
    reboot(RB_POWER_OFF);
  }
  long hogs = param(cmdline, "sip.hogs=", 1);
  if (hogs < 1) hogs = 1;
  if (hogs > 16) hogs = 16;
  char rel[256];
  read_line("/proc/sys/kernel/osrelease", rel, sizeof rel);
  clean(rel);
  emit("{\"type\":\"hello\",\"release\":\"%s\",\"ncpus\":%ld,\"seconds\":%ld,\"dd\":%ld,\"sisutil\":%ld,\"seed\":%ld,"
       "\"spin_us\":%ld,\"sleep_us\":%ld,\"wmin_us\":%ld,\"wmax_us\":%ld,\"tight_us\":%ld,\"xnice\":%ld,\"hogs\":%ld,\"xslice_us\":%ld,\"wslice_us\":%ld,\"mode\":\"%s\"}",
       rel, sysconf(_SC_NPROCESSORS_ONLN), seconds, dd, sisutil, seed, spin_us, sleep_us, wmin_us, wmax_us, tight_us, xnice, hogs, xslice_us, wslice_us, mode == 1 ? "pipe" : mode == 2 ? "target" : "timer");

  const char *feat = "/sys/kernel/debug/sched/features";
  int e1 = dd ? 0 : write_str(feat, "NO_DELAY_DEQUEUE");
  int e2 = sisutil ? write_str(feat, "SIS_UTIL") : write_str(feat, "NO_SIS_UTIL");
  char features[4096];
  read_line(feat, features, sizeof features);
  clean(features);
  char slice[64];
  read_line("/sys/kernel/debug/sched/base_slice_ns", slice, sizeof slice);
  clean(slice);
  emit("{\"type\":\"features\",\"write_dd_errno\":%d,\"write_sisutil_errno\":%d,\"base_slice_ns\":\"%s\",\"now\":\"%s\"}",
       -e1, -e2, slice, features);
  if (!features[0] || e1 || e2) {
    emit("{\"type\":\"error\",\"what\":\"sched/features\"}");
    reboot(RB_POWER_OFF);
  }

  /* the scheduling domains of CPU 0 (names and flags) and the L3's sharing */
  for (int d = 0; d < 4; d++) {
    char path[128], name[64], flags[1024];
    snprintf(path, sizeof path, "/sys/kernel/debug/sched/domains/cpu0/domain%d/name", d);
    read_line(path, name, sizeof name);
    if (!name[0]) break;
    snprintf(path, sizeof path, "/sys/kernel/debug/sched/domains/cpu0/domain%d/flags", d);
    read_line(path, flags, sizeof flags);
    clean(name);
    clean(flags);
    emit("{\"type\":\"topology\",\"cpu\":0,\"domain\":%d,\"name\":\"%s\",\"flags\":\"%s\"}", d, name, flags);
  }
  char l3[64];
  read_line("/sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list", l3, sizeof l3);
  clean(l3);
  emit("{\"type\":\"topology\",\"cpu0_l3_shared_with\":\"%s\"}", l3);

  rng = 0x2545F4914F6CDD1DULL ^ (unsigned long long)seed;
  struct shared *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (s == MAP_FAILED) {
    emit("{\"type\":\"error\",\"what\":\"mmap\",\"errno\":%d}", errno);
    reboot(RB_POWER_OFF);
  }
  memset(s, 0, sizeof *s);

  set_cpus(1);
  pid_t kids[20];
  int nk = 0;
  int pw[2] = {-1, -1};
  if (mode == 1 && pipe(pw)) {
    emit("{\"type\":\"error\",\"what\":\"pipe\",\"errno\":%d}", errno);
    reboot(RB_POWER_OFF);
  }
  const long long t0 = now_ns() + 300000000LL, t_end = t0 + seconds * 1000000000LL;
  /* N; in the pipe mode also W's waker: once W is armed (about to block in
   * read() on CPU 1), N spins a pseudo-random 0.5-5 ms more and writes a byte.
   * The write wakes W right there, on CPU 0, with WF_SYNC: the CPU choice
   * happens inside write(), at the recorded time. */
  if ((kids[nk++] = fork()) == 0) {
    set_cpus(1);
    if (mode != 1) spin_forever();
    rng = 0xD1B54A32D192ED03ULL ^ (unsigned long long)seed;
    for (int i = 0; i < 8; i++) xorshift();
    const char c = 0;
    for (long i = 0; i < MAX_W && now_ns() < t_end; i++) {
      while (__atomic_load_n(&s->w_armed, __ATOMIC_ACQUIRE) <= i)
        if (now_ns() >= t_end + 100000000LL) spin_forever();
      const long span = wmax_us - wmin_us + 1;
      spin_until(now_ns() + (wmin_us + (long long)(xorshift() % (unsigned long long)span)) * 1000LL);
      s->w_deadline[i] = now_ns();
      if (write(pw[1], &c, 1) != 1) break;
    }
    spin_forever();
  }
  /* H (sip.hogs= of them) */
  for (long h = 0; h < hogs; h++)
    if ((kids[nk++] = fork()) == 0) {
      set_cpus(2);
      struct sched_param sp = {0};
      if (sched_setscheduler(0, SCHED_IDLE, &sp)) _exit(1);
      spin_forever();
    }
  usleep(100000);
  /* X */
  if ((kids[nk++] = fork()) == 0) {
    set_cpus(2);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    s->x_setattr_errno = set_fair(xnice, xslice_us);
    /* sleep, not spin, until the start: spinning beside H leaves X with a
     * large positive lag, which its short runs burn only slowly */
    const struct timespec start = {t0 / 1000000000LL, t0 % 1000000000LL};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &start, NULL) == EINTR) {}
    const struct timespec nap = {sleep_us / 1000000, (sleep_us % 1000000) * 1000};
    for (long i = 0; i < MAX_X; i++) {
      spin_until(now_ns() + spin_us * 1000LL);
      s->x_block[i] = now_ns();
      nanosleep(&nap, NULL);
      s->x_wake[i] = now_ns();
      __atomic_store_n(&s->x_n, i + 1, __ATOMIC_RELEASE);
    }
    for (;;) pause();
  }
  /* W */
  if ((kids[nk++] = fork()) == 0) {
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    /* a short slice lets W preempt N at once when it wakes on CPU 0, so its
     * wake-to-run latency does not depend on the CPU it got */
    s->w_setattr_errno = set_fair(0, wslice_us);
    rng = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)seed;
    for (int i = 0; i < 8; i++) xorshift();
    set_cpus(1);
    while (now_ns() < t0) usleep(1000);
    for (long i = 0; mode == 1 && i < MAX_W && now_ns() < t_end; i++) {
      set_cpus(2); /* now on CPU 1: prev = 1; N's write on CPU 0 wakes it */
      set_cpus(3);
      if (sched_getcpu() != 1) s->w_not_on_0++;
      char c;
      __atomic_store_n(&s->w_armed, i + 1, __ATOMIC_RELEASE);
      if (read(pw[0], &c, 1) != 1) break;
      s->w_woke[i] = now_ns();
      s->w_cpu[i] = sched_getcpu();
      __atomic_store_n(&s->w_n, i + 1, __ATOMIC_RELEASE);
    }
    for (long i = 0; mode != 1 && i < MAX_W && now_ns() < t_end; i++) {
      /* timer: on CPU 0, timer armed there, prev = target = 0; target: on
       * CPU 1 (3 CPUs, CPU 2 idle), prev = target = 1 */
      const int home = mode == 2 ? 1 : 0;
      set_cpus(1 << home);
      set_cpus(mode == 2 ? 7 : 3);
      if (sched_getcpu() != home) s->w_not_on_0++;
      const long span = wmax_us - wmin_us + 1;
      const long long d = now_ns() + (wmin_us + (long long)(xorshift() % (unsigned long long)span)) * 1000LL;
      const struct timespec ts = {d / 1000000000LL, d % 1000000000LL};
      while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {}
      s->w_woke[i] = now_ns();
      s->w_cpu[i] = sched_getcpu();
      s->w_deadline[i] = d;
      __atomic_store_n(&s->w_n, i + 1, __ATOMIC_RELEASE);
    }
    for (;;) pause();
  }

  while (now_ns() < t_end + 50000000LL) usleep(200000);

  /* each task's state, CPU, policy and CPU time from /proc/PID/stat */
  for (int i = 0; i < nk; i++) {
    const char *kid_name = i == 0 ? "N" : i <= hogs ? "H" : i == hogs + 1 ? "X" : "W";
    char path[64], st[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)kids[i]);
    read_line(path, st, sizeof st);
    const char *r = strrchr(st, ')');
    char state = '?';
    unsigned long utime = 0, stime = 0;
    int cpu = -1;
    unsigned policy = 99;
    if (r) {
      /* field 3 onwards: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ... */
      char *p = (char *)r + 2;
      state = *p;
      for (int f = 3; p && f <= 41; f++) {
        if (f == 14) utime = strtoul(p, NULL, 10);
        if (f == 15) stime = strtoul(p, NULL, 10);
        if (f == 39) cpu = (int)strtol(p, NULL, 10);
        if (f == 41) policy = (unsigned)strtoul(p, NULL, 10);
        p = strchr(p, ' ');
        if (p) p++;
      }
    }
    if (i == 0) emit("{\"type\":\"setattr\",\"x_errno\":%d,\"w_errno\":%d}", s->x_setattr_errno, s->w_setattr_errno);
    emit("{\"type\":\"task\",\"name\":\"%s\",\"pid\":%d,\"state\":\"%c\",\"cpu\":%d,\"policy\":%u,"
         "\"utime_ticks\":%lu,\"stime_ticks\":%lu}",
         kid_name, (int)kids[i], state, cpu, policy, utime, stime);
  }
  const long xn = s->x_n, wn = s->w_n;
  /* all: by X's state at W's deadline; tight: only the wakes that ran within
   * tight_us of the deadline, X in the same state (same cycle, running or
   * blocked) at both ends: the wake-up's CPU choice lies between the two */
  long count[NCLASS][3] = {{0}}, tight[NCLASS][3] = {{0}}, other_cpu = 0, unknown = 0, n_tight = 0;
  long long lat_sum = 0, lat_max = 0;
  for (long i = 0; i < wn; i++) {
    const long long lat = s->w_woke[i] - s->w_deadline[i];
    lat_sum += lat;
    if (lat > lat_max) lat_max = lat;
    long cyc1, cyc2;
    const int c = classify(s, xn, s->w_deadline[i], &cyc1);
    const int c2 = classify(s, xn, s->w_woke[i], &cyc2);
    if (c < 0) {
      unknown++;
      continue;
    }
    if (s->w_cpu[i] < 0 || s->w_cpu[i] > 2) {
      other_cpu++;
      continue;
    }
    count[c][s->w_cpu[i]]++;
    if (lat < tight_us * 1000LL && c2 >= 0 && cyc1 == cyc2 && (c == 0) == (c2 == 0)) {
      tight[c][s->w_cpu[i]]++;
      n_tight++;
    }
  }
  long long x_spin = 0, x_sleep = 0;
  for (long i = 0; i < xn; i++) {
    x_sleep += s->x_wake[i] - s->x_block[i];
    if (i > 0) x_spin += s->x_block[i] - s->x_wake[i - 1];
  }
  emit("{\"type\":\"run\",\"w_wakes\":%ld,\"w_not_on_prev_before_sleep\":%ld,\"w_mean_wake_latency_us\":%lld,"
       "\"w_max_wake_latency_us\":%lld,\"x_cycles\":%ld,\"x_mean_run_us\":%lld,\"x_mean_blocked_us\":%lld,"
       "\"unclassified\":%ld,\"other_cpu\":%ld,\"tight\":%ld}",
       wn, s->w_not_on_0, wn ? lat_sum / wn / 1000 : 0, lat_max / 1000, xn, xn > 1 ? x_spin / (xn - 1) / 1000 : 0,
       xn ? x_sleep / xn / 1000 : 0, unknown, other_cpu, n_tight);
  for (int c = 0; c < NCLASS; c++)
    emit("{\"type\":\"table\",\"dd\":%ld,\"sisutil\":%ld,\"class\":\"%s\",\"cpu0\":%ld,\"cpu1\":%ld,"
         "\"tight_cpu0\":%ld,\"tight_cpu1\":%ld,\"cpu2\":%ld,\"tight_cpu2\":%ld}",
         dd, sisutil, class_name[c], count[c][0], count[c][1], tight[c][0], tight[c][1], count[c][2], tight[c][2]);

  /* diagnostic: is X's entity delayed on CPU 1 while X sleeps? Per read:
   * h_nr_delayed; sched_idle_cpu(1)'s own test (rq nr_running ==
   * idle_h_nr_running, nonzero); and F9's state: a delayed entity is queued
   * and every other queued task is SCHED_IDLE (nr_running - h_nr_delayed ==
   * idle_h_nr_running), so CPU 1 can run only SCHED_IDLE work, yet the test
   * says no. (The read takes a while under TCG: X's class is at its start.) */
  long dg[NCLASS][3] = {{0}}; /* h_nr_delayed 0, 1, unreadable */
  long dg_idle_only[NCLASS] = {0}, dg_f9[NCLASS] = {0};
  dbg = malloc(dbg_cap + 1);
  for (long r = 0; dbg && r < diag; r++) {
    usleep(3000 + (useconds_t)(xorshift() % 7000));
    const long n = __atomic_load_n(&s->x_n, __ATOMIC_ACQUIRE);
    const long long t = now_ns();
    int c = 0;
    if (n < MAX_X && s->x_block[n] != 0 && s->x_block[n] <= t) {
      const long long age = t - s->x_block[n];
      c = 1;
      while (c < NCLASS - 1 && age >= class_upper_ns[c]) c++;
    }
    if (read_debug() < 0) break;
    const long del = cpu1_field(dbg, ".h_nr_delayed"), nr = cpu1_rq_nr_running(dbg),
               idle = cpu1_field(dbg, ".idle_h_nr_running");
    dg[c][del == 0 ? 0 : del == 1 ? 1 : 2]++;
    if (nr > 0 && nr == idle) dg_idle_only[c]++;
    if (del >= 1 && nr >= 0 && nr - del == idle && idle > 0) dg_f9[c]++;
  }
  for (int c = 0; c < NCLASS; c++)
    emit("{\"type\":\"diag\",\"dd\":%ld,\"class\":\"%s\",\"reads\":%ld,\"h_nr_delayed_0\":%ld,\"h_nr_delayed_1\":%ld,"
         "\"other\":%ld,\"idle_only\":%ld,\"f9_state\":%ld}",
         dd, class_name[c], dg[c][0] + dg[c][1] + dg[c][2], dg[c][0], dg[c][1], dg[c][2], dg_idle_only[c], dg_f9[c]);
  for (int i = 0; i < nk; i++) kill(kids[i], SIGKILL);
  for (int i = 0; i < nk; i++) waitpid(kids[i], NULL, 0);

  emit("{\"type\":\"done\"}");
  sync();
  reboot(RB_POWER_OFF);
  return 0;
}
