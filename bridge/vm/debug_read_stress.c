/* eevdf-check: /init of a QEMU boot that reads /sys/kernel/debug/sched/debug
 * in a loop on CPU 0 while tasks on CPU 1 wake, sleep and spin
 * (docs/findings/K2.md; scripts/vm-debug-read.sh boots it).
 *
 * On 6.12.118, print_cfs_rq() runs avg_vruntime() on every cfs_rq without the
 * rq lock, and that avg_vruntime() writes the queue's weighted sum and zero
 * point: a scheduler update on CPU 1 between its loads and stores is lost.
 * What a lost update shows from outside: the kernel's own eligibility test,
 * which print_task() prints for every runnable task (column "eligible", E or
 * N), goes wrong. Two CPU-bound tasks of equal weight on CPU 1 are never both
 * N while the sum is right and nothing else is runnable there (V is their
 * weighted average, one of them is at or below it); both N means V is below
 * both (and the next pick_eevdf() returns NULL); both E, again and again,
 * means V is above both. The check phase reads it; the crash needs no reading:
 * with oops=panic the boot ends with the kernel's NULL dereference.
 *
 * Phases: the two spinners start on CPU 1 (nice from dr.nice=, default 0) with
 * dr.pairs= ping-pong pairs (default 2: each pair passes a byte through two
 * pipes, so CPU 1 switches and wakes tasks all the time); for dr.seconds=
 * (default 60) CPU 0 reads the file as fast as it can (dr.read=0: it does not
 * read, the control); then the pairs are killed and the file is read
 * dr.checks= times (default 200), 10 ms apart, each read classified by the
 * spinners' E/N. JSON lines on the second serial port (/dev/ttyS1), one
 * summary line per phase; the kernel's console on the first.
 *
 * Built static by scripts/vm-debug-read.sh: gcc -static -O2.
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
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe_common.h"



/* The E/N column of task `pid` in CPU 1's runnable-task list, 0 if absent. */
static char eligible_of(const char *text, pid_t pid) {
  const char *cpu1 = strstr(text, "\ncpu#1");
  if (!cpu1) return 0;
  const char *list = strstr(cpu1, "runnable tasks:");
  if (!list) return 0;
  const char *line = list;
  while ((line = strchr(line, '\n')) != NULL) {
    line++;
    if (strncmp(line, "cpu#", 4) == 0 || *line == 0) break;
    char state[4], comm[64];
    int p;
    long long vs, vns;
    char e;
    /* " S task PID vruntime eligible ...": the state is one or two characters (">R") */
    if (sscanf(line, " %3s %63s %d %lld.%lld %c", state, comm, &p, &vs, &vns, &e) == 6 && p == pid) return e;
  }
  return 0;
}

/* "  .avg_vruntime  : 123.456789" of the cfs_rq[1]:/ section, in ns; 0 if absent */
static long long cpu1_avg_vruntime(const char *text) {
  const char *sec = strstr(text, "cfs_rq[1]:/\n");
  if (!sec) return 0;
  const char *key = strstr(sec, ".avg_vruntime");
  if (!key) return 0;
  const char *colon = strchr(key, ':');
  long long s = 0, ns = 0;
  if (!colon || sscanf(colon + 1, " %lld.%lld", &s, &ns) != 2) return 0;
  return s * 1000000LL + (s < 0 ? -ns : ns);
}

static void spin(void) {
  for (;;) __asm__ __volatile__("" ::: "memory");
}

static void pingpong(int rd, int wr, int first) {
  char c = 0;
  if (first && write(wr, &c, 1) < 0) _exit(1);
  for (;;) {
    if (read(rd, &c, 1) != 1) _exit(1);
    if (write(wr, &c, 1) != 1) _exit(1);
  }
}

int main(void) {
  char cmdline[4096];
  probe_init(cmdline, sizeof cmdline);
  dbg = malloc(dbg_cap + 1);
  const long seconds = param(cmdline, "dr.seconds=", 60);
  const long pairs = param(cmdline, "dr.pairs=", 2);
  const long nice_spin = param(cmdline, "dr.nice=", 0);
  const long reading = param(cmdline, "dr.read=", 1);
  const long checks = param(cmdline, "dr.checks=", 200);
  struct { char s[256]; } rel = {{0}};
  int vfd = open("/proc/sys/kernel/osrelease", O_RDONLY);
  if (vfd >= 0) {
    if (read(vfd, rel.s, sizeof rel.s - 1) < 0) rel.s[0] = 0;
    close(vfd);
    rel.s[strcspn(rel.s, "\n")] = 0;
  }
  emit("{\"type\":\"hello\",\"release\":\"%s\",\"seconds\":%ld,\"pairs\":%ld,\"nice\":%ld,\"read\":%ld}", rel.s,
       seconds, pairs, nice_spin, reading);

  pin(0);
  pid_t spinner[2];
  for (int i = 0; i < 2; i++) {
    spinner[i] = fork();
    if (spinner[i] == 0) {
      pin(1);
      setpriority(PRIO_PROCESS, 0, (int)nice_spin);
      spin();
    }
  }
  pid_t pp[64];
  int npp = 0;
  for (long i = 0; i < pairs && npp + 2 <= 64; i++) {
    int a[2], b[2];
    if (pipe(a) || pipe(b)) break;
    for (int side = 0; side < 2; side++) {
      pid_t p = fork();
      if (p == 0) {
        pin(1);
        if (side == 0) pingpong(b[0], a[1], 1);
        else pingpong(a[0], b[1], 0);
      }
      pp[npp++] = p;
    }
    close(a[0]); close(a[1]); close(b[0]); close(b[1]);
  }
  usleep(200000);

  /* the stress: read as fast as possible (or not at all); a console line
   * (level 3, shown with loglevel=4) marks its start in the kernel's time */
  int kmsg = open("/dev/kmsg", O_WRONLY);
  if (kmsg >= 0) {
    const char *mark = reading ? "<3>eevdf-check: reading sched/debug from now on\n"
                               : "<3>eevdf-check: the control starts (no reads)\n";
    if (write(kmsg, mark, strlen(mark)) < 0) { /* the marker is optional */ }
    close(kmsg);
  }
  long long start = now_ns(), end = start + seconds * 1000000000LL;
  long reads = 0;
  long long last_report = start;
  while (now_ns() < end) {
    if (!reading) {
      usleep(100000);
      continue;
    }
    if (read_debug() < 0) {
      emit("{\"type\":\"error\",\"what\":\"open /sys/kernel/debug/sched/debug\",\"errno\":%d}", errno);
      break;
    }
    reads++;
    /* (the E/N column says nothing here: the pairs' tasks are runnable too) */
    if (now_ns() - last_report > 5000000000LL) {
      last_report = now_ns();
      emit("{\"type\":\"progress\",\"t_ms\":%lld,\"reads\":%ld}", (last_report - start) / 1000000, reads);
    }
  }
  emit("{\"type\":\"stress\",\"ms\":%lld,\"reads\":%ld}", (now_ns() - start) / 1000000, reads);

  /* the check: only the two spinners on CPU 1 */
  for (int i = 0; i < npp; i++) kill(pp[i], SIGKILL);
  for (int i = 0; i < npp; i++) waitpid(pp[i], NULL, 0);
  usleep(200000);
  long c_n = 0, c_e = 0, c_split = 0, c_missing = 0;
  long long v_first = 0, v_last = 0;
  for (long i = 0; i < checks; i++) {
    if (read_debug() < 0) break;
    const char a = eligible_of(dbg, spinner[0]), b = eligible_of(dbg, spinner[1]);
    const long long v = cpu1_avg_vruntime(dbg);
    if (i == 0) v_first = v;
    v_last = v;
    if (!a || !b) c_missing++;
    else if (a == 'N' && b == 'N') c_n++;
    else if (a == 'E' && b == 'E') c_e++;
    else c_split++;
    usleep(10000);
  }
  emit("{\"type\":\"check\",\"reads\":%ld,\"both_N\":%ld,\"both_E\":%ld,\"one_each\":%ld,\"missing\":%ld,"
       "\"V_first_ns\":%lld,\"V_last_ns\":%lld}",
       checks, c_n, c_e, c_split, c_missing, v_first, v_last);
  emit("{\"type\":\"done\"}");
  sync();
  reboot(RB_POWER_OFF);
  return 0;
}
