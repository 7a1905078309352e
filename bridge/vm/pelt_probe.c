/* eevdf-check: /init of a QEMU boot for docs/findings/F10.md on the booted
 * kernel (scripts/vm-pelt.sh boots it). N busy tasks at nice -20 share CPU 1;
 * the probe, on CPU 0, reads CPU 1's root cfs_rq .load_avg from
 * /sys/kernel/debug/sched/debug, renices the last task to -19, and reads it
 * every millisecond for the next 40 ms; then renices it back and lets the load
 * settle. F10 predicts, with 3 tasks (load about 266 000, sum past 2^32), a
 * drop of about a third within a period of the renice (the sum cut to 32
 * bits); with 2 tasks (sum under 2^32 once one task's part is out), only the
 * reniced task's own share, about 17 000.
 *
 * pp.mode=rmdir instead: one busy task on CPU 1 in a cgroup of cpu.weight
 * 10000 (shares 262144: CPU 1's load about 262 000, its sum past 2^32); each
 * round creates an empty cgroup (its group entities join every CPU's root
 * queue) and removes it (rmdir: unregister_fair_sched_group() leaves their
 * averages for the next update of those queues to take out), the event at
 * T = 0 being the rmdir. F10 predicts a drop to about 82 000 within a
 * period (docs/findings/F10.md, corpus/regressions/v6.18-pelt-load-sum-cut-by-a-
 * cgroup-rmdir.scn); pp.weight=100 as a control (CPU 1's load about 2 600,
 * no drop).
 *
 * Output: JSON lines on the second serial port: {"type":"sample","round":R,
 * "t_us":T,"load_avg":L} (T from the renice or the rmdir; negative before it), then
 * {"type":"done"}. Parameters (kernel command line): pp.tasks=3 pp.rounds=10
 * pp.warm_ms=500 pp.mode=renice|rmdir pp.weight=10000.
 *
 * Built static by scripts/vm-pelt.sh: gcc -static -O2. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "probe_common.h"

static void sleep_us(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
  }
}

/* CPU `cpu`'s root queue's .load_avg in the debug text, or -1 */
static long root_load_avg(int cpu) {
  if (read_debug() < 0) return -1;
  char head[32];
  snprintf(head, sizeof head, "cfs_rq[%d]:/\n", cpu);
  const char *q = strstr(dbg, head);
  if (!q) return -1;
  const char *l = strstr(q, ".load_avg");
  if (!l) return -1;
  const char *colon = strchr(l, ':');
  return colon ? strtol(colon + 1, NULL, 10) : -1;
}

/* write TEXT to PATH; 0 or -1 */
static int write_text(const char *path, const char *text) {
  const int fd = open(path, O_WRONLY);
  if (fd < 0) return -1;
  const ssize_t n = write(fd, text, strlen(text));
  close(fd);
  return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* pp.mode=rmdir: the heavy cgroup's task and the rounds of mkdir/rmdir */
static void rmdir_rounds(long rounds, long warm_ms, long weight) {
  char num[32];
  mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL);
  if (write_text("/sys/fs/cgroup/cgroup.subtree_control", "+cpu") < 0 || mkdir("/sys/fs/cgroup/heavy", 0755) < 0) {
    emit("{\"type\":\"error\",\"what\":\"cgroup setup: %s\"}", strerror(errno));
    return;
  }
  snprintf(num, sizeof num, "%ld", weight);
  if (write_text("/sys/fs/cgroup/heavy/cpu.weight", num) < 0) {
    emit("{\"type\":\"error\",\"what\":\"cpu.weight: %s\"}", strerror(errno));
    return;
  }
  const pid_t c = fork();
  if (c == 0) {
    pin(1);
    for (volatile unsigned long x = 0;; x++) {
    }
  }
  snprintf(num, sizeof num, "%d", (int)c);
  if (write_text("/sys/fs/cgroup/heavy/cgroup.procs", num) < 0) {
    emit("{\"type\":\"error\",\"what\":\"cgroup.procs: %s\"}", strerror(errno));
    kill(c, SIGKILL);
    return;
  }
  emit("{\"type\":\"start\",\"mode\":\"rmdir\",\"weight\":%ld,\"rounds\":%ld}", weight, rounds);
  sleep_us(warm_ms * 1000);
  for (long r = 0; r < rounds; r++) {
    char dir[64];
    snprintf(dir, sizeof dir, "/sys/fs/cgroup/empty%ld", r);
    if (mkdir(dir, 0755) < 0) emit("{\"type\":\"error\",\"what\":\"mkdir: %s\"}", strerror(errno));
    for (int k = 5; k > 0; k--) {
      emit("{\"type\":\"sample\",\"round\":%ld,\"t_us\":%ld,\"load_avg\":%ld}", r, -1000L * k, root_load_avg(1));
      sleep_us(1000);
    }
    const long long t0 = now_ns();
    if (rmdir(dir) < 0) emit("{\"type\":\"error\",\"what\":\"rmdir: %s\"}", strerror(errno));
    for (int k = 0; k < 40; k++) {
      const long l = root_load_avg(1);
      emit("{\"type\":\"sample\",\"round\":%ld,\"t_us\":%lld,\"load_avg\":%ld}", r, (now_ns() - t0) / 1000, l);
      sleep_us(1000);
    }
    sleep_us(warm_ms * 1000);
  }
  kill(c, SIGKILL);
}

int main(void) {
  static char cmdline[4096];
  probe_init(cmdline, sizeof cmdline);
  dbg = malloc(dbg_cap + 1);
  const long tasks = param(cmdline, "pp.tasks=", 3);
  const long rounds = param(cmdline, "pp.rounds=", 10);
  const long warm_ms = param(cmdline, "pp.warm_ms=", 500);
  pin(0);
  if (strstr(cmdline, "pp.mode=rmdir")) {
    rmdir_rounds(rounds, warm_ms, param(cmdline, "pp.weight=", 10000));
    emit("{\"type\":\"done\"}");
    sync();
    reboot(RB_POWER_OFF);
    return 0;
  }
  pid_t child[16];
  for (long i = 0; i < tasks && i < 16; i++) {
    child[i] = fork();
    if (child[i] == 0) {
      pin(1);
      setpriority(PRIO_PROCESS, 0, -20);
      for (volatile unsigned long x = 0;; x++) {
      }
    }
  }
  const pid_t c = child[tasks - 1];
  emit("{\"type\":\"start\",\"tasks\":%ld,\"rounds\":%ld}", tasks, rounds);
  sleep_us(warm_ms * 1000);
  for (long r = 0; r < rounds; r++) {
    for (int k = 5; k > 0; k--) {
      emit("{\"type\":\"sample\",\"round\":%ld,\"t_us\":%ld,\"load_avg\":%ld}", r, -1000L * k, root_load_avg(1));
      sleep_us(1000);
    }
    const long long t0 = now_ns();
    setpriority(PRIO_PROCESS, c, -19);
    for (int k = 0; k < 40; k++) {
      const long l = root_load_avg(1);
      emit("{\"type\":\"sample\",\"round\":%ld,\"t_us\":%lld,\"load_avg\":%ld}", r, (now_ns() - t0) / 1000, l);
      sleep_us(1000);
    }
    setpriority(PRIO_PROCESS, c, -20);
    sleep_us(warm_ms * 1000);
  }
  emit("{\"type\":\"done\"}");
  for (long i = 0; i < tasks && i < 16; i++) kill(child[i], SIGKILL);
  sync();
  reboot(RB_POWER_OFF);
  return 0;
}
