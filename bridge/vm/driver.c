/* eevdf-vm-driver: /init of the QEMU machine of `eevdf-check vm` (docs/bridges.md).
 *
 * Runs a plan (/plan, written by the host from a scenario, one operation a
 * line) on the booted kernel: the scenario's tasks are user processes pinned
 * to CPU 1, this driver stays on CPU 0. After every operation it reads the
 * kernel's own values (/sys/kernel/debug/sched/debug, /proc/PID/sched) and
 * writes one JSON line to the second serial port (/dev/ttyS1); the host
 * parses them. At the end it powers the machine off.
 *
 * Built static (gcc -static) by scripts/vm-run.sh, with driver_io.h (output,
 * file reads, the parsing of the kernel's text); needs nothing else in the
 * initramfs. Every operation maps to a kernel entry point reachable from user
 * space:
 *   task NAME NICE POLICY SLICE_NS  fork(); the child blocks in futex_wait() on
 *                                    CPU 0, then sched_setaffinity({1}) and
 *                                    sched_setattr(policy, nice, runtime) while
 *                                    it sleeps (TASK_NEW is not reachable: the
 *                                    first wake is a try_to_wake_up())
 *   wake NAME                        futex_wake(): try_to_wake_up() from CPU 0
 *   sleep NAME / yield NAME / exit NAME
 *                                    the task, when it next runs, blocks in
 *                                    futex_wait() / calls sched_yield() / exits
 *   nice NAME N                      setpriority(): set_user_nice()
 *   policy NAME P                    sched_setscheduler(SCHED_NORMAL/BATCH/IDLE)
 *   slice NAME NS                    sched_setattr(sched_runtime = NS)
 *   run NS / tick                    the driver sleeps (the kernel ticks at its HZ)
 *   schedule                         nothing (a real CPU acts on need_resched itself)
 *   group NAME SHARES PARENT|- / move NAME GROUP|root / shares GROUP N /
 *   group_idle GROUP 0|1             cgroup v1 cpu controller: mkdir, cpu.shares,
 *                                    tasks, cpu.idle
 *   quota GROUP QUOTA_US|max PERIOD_US|- BURST_US|-
 *                                    cgroup v1 cpu controller: cpu.cfs_burst_us 0
 *                                    (when a burst is given), cpu.cfs_period_us,
 *                                    cpu.cfs_quota_us, then cpu.cfs_burst_us:
 *                                    one tg_set_cfs_bandwidth() a file
 *   base_slice NS                    debugfs sched/base_slice_ns
 *   group_destroy NAME               cgroup v1 cpu controller: rmdir (the
 *                                    kernel refuses a group in use: EBUSY)
 *   features F,...                   debugfs sched/features
 *   ticker NAME PERIOD_NS RUN_NS     a task on CPU 1 that runs RUN_NS of CPU
 *                                    every PERIOD_NS ("other activity")
 *   watch DUR_NS PERIOD_NS           samples /proc/PID/schedstat of every task
 *                                    every PERIOD_NS for DUR_NS: CPU time, share,
 *                                    longest stretch without the CPU
 *   kill NAME                        SIGKILL (between measurements)
 *   note TEXT                        printed as is (a label for the host)
 * Each line may start with "@LINE " (the scenario's line number). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define MAX_TASKS 64
#define MAX_GROUPS 32
#define TASK_CPU 1
#define DRIVER_CPU 0
#define WAIT_LIMIT_NS (10LL * 1000000000LL) /* how long an operation waits for its task */

enum { CMD_SLEEP = 0, CMD_RUN = 1, CMD_YIELD = 2, CMD_EXIT = 3 };

struct slot {
  volatile int cmd;
  volatile int sleeping;   /* 1 while the child is in (or entering) futex_wait */
  volatile int yields;     /* sched_yield() calls made */
  volatile int ticker;     /* ticker: period/run follow */
  long long period_ns, run_ns;
};

struct task {
  char name[40];
  pid_t pid;
  int alive;
};

static struct slot* slots;
static struct task tasks[MAX_TASKS];
static int ntasks;
static char groups[MAX_GROUPS][40];
static char group_path[MAX_GROUPS][256];
static int ngroups;
static long long t0;
static int step_no;

#include "driver_io.h"

static void error_line(const char* what, const char* detail) {
  emit("{\"type\":\"error\",\"step\":%d,\"what\":", step_no);
  emit_str(what);
  emit(",\"detail\":");
  emit_str(detail ? detail : "");
  flush_line();
}

/* ---- the tasks ---- */
static void child_main(int i) {
  struct slot* s = &slots[i];
  prctl(PR_SET_NAME, tasks[i].name);
  if (s->ticker) {
    /* other activity: RUN_NS of CPU, then sleep PERIOD_NS, for ever */
    for (;;) {
      struct timespec a, b;
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
      for (;;) {
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
        if ((b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec) >= s->run_ns) break;
      }
      sleep_ns(s->period_ns);
    }
  }
  for (;;) {
    s->sleeping = 1;
    while (__atomic_load_n(&s->cmd, __ATOMIC_SEQ_CST) == CMD_SLEEP) futex((int*)&s->cmd, FUTEX_WAIT, CMD_SLEEP);
    s->sleeping = 0;
    for (;;) {
      int c = __atomic_load_n(&s->cmd, __ATOMIC_RELAXED);
      if (c == CMD_RUN) continue;
      if (c == CMD_SLEEP) break;
      if (c == CMD_EXIT) _exit(0);
      if (c == CMD_YIELD) {
        int expected = CMD_YIELD;
        __atomic_compare_exchange_n(&s->cmd, &expected, CMD_RUN, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        __atomic_add_fetch(&s->yields, 1, __ATOMIC_SEQ_CST);
        sched_yield();
      }
    }
  }
}

static int find_task(const char* name) {
  for (int i = 0; i < ntasks; ++i)
    if (strcmp(tasks[i].name, name) == 0) return i;
  return -1;
}

static char proc_state(pid_t pid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  if (read_file(path, buf, sizeof buf) <= 0) return '?';
  char* p = strrchr(buf, ')');
  return p && p[1] && p[2] ? p[2] : '?';
}

/* waits until the task is asleep in futex_wait (state S); 0 on success */
static int wait_asleep(int i) {
  long long limit = now_ns() + WAIT_LIMIT_NS;
  while (now_ns() < limit) {
    if (slots[i].sleeping && proc_state(tasks[i].pid) == 'S') return 0;
    sleep_ns(100000);
  }
  return -1;
}

struct sched_attr_k {
  uint32_t size, sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;
  uint32_t sched_priority;
  uint64_t sched_runtime, sched_deadline, sched_period;
  uint32_t sched_util_min, sched_util_max;
};

static int get_attr(pid_t pid, struct sched_attr_k* a) {
  memset(a, 0, sizeof *a);
  return (int)syscall(SYS_sched_getattr, pid, a, sizeof *a, 0);
}
static int set_attr(pid_t pid, int policy, int nice, long long runtime) {
  struct sched_attr_k a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.sched_policy = (uint32_t)policy;
  a.sched_nice = nice;
  a.sched_runtime = (uint64_t)runtime;
  return (int)syscall(SYS_sched_setattr, pid, &a, 0);
}

static int create_task(const char* name, int nice, int policy, long long slice, long long period, long long run) {
  if (ntasks == MAX_TASKS) return -1;
  int i = ntasks++;
  snprintf(tasks[i].name, sizeof tasks[i].name, "%s", name);
  memset((void*)&slots[i], 0, sizeof slots[i]);
  slots[i].cmd = CMD_SLEEP;
  if (period > 0) {
    slots[i].ticker = 1;
    slots[i].period_ns = period;
    slots[i].run_ns = run;
  }
  pid_t pid = fork();
  if (pid == 0) child_main(i);
  tasks[i].pid = pid;
  tasks[i].alive = 1;
  if (slots[i].ticker) {
    pin(pid, TASK_CPU);
    return 0;
  }
  if (wait_asleep(i) != 0) return -2;
  pin(pid, TASK_CPU);  /* asleep: it moves to CPU 1 at its first wake-up */
  if (set_attr(pid, policy, nice, slice) != 0) return -3;
  return 0;
}

/* ---- cgroups (v1 cpu controller at /cg) ---- */
static int cg_mounted;
static int cg_mount(void) {
  if (cg_mounted) return 0;
  mkdir("/cg", 0755);
  if (mount("cgroup", "/cg", "cgroup", 0, "cpu") != 0) return -errno;
  cg_mounted = 1;
  return 0;
}
static const char* cg_path(const char* name) {
  if (strcmp(name, "root") == 0 || strcmp(name, "-") == 0) return "/cg";
  for (int g = 0; g < ngroups; ++g)
    if (strcmp(groups[g], name) == 0) return group_path[g];
  return NULL;
}

/* ---- the kernel's values ---- */
static void emit_cfs_rqs(const char* cpu_sec, const char* cpu_end) {
  /* every "cfs_rq[1]:PATH" section of the CPU: V and the counts the host compares */
  emit(",\"cfs\":{");
  int first = 1;
  char header[32];
  snprintf(header, sizeof header, "cfs_rq[%d]:", TASK_CPU);
  for (const char* p = strstr(cpu_sec, header); p && p < cpu_end; p = strstr(p + 1, header)) {
    const char* path = p + strlen(header);
    const char* nl = strchr(path, '\n');
    if (!nl) break;
    const char* next = strstr(nl, header);
    const char* rt = strstr(nl, "rt_rq[");
    const char* sec_end = next && next < cpu_end ? next : cpu_end;
    if (rt && rt < sec_end) sec_end = rt;
    char pbuf[256];
    size_t pl = (size_t)(nl - path) < sizeof pbuf - 1 ? (size_t)(nl - path) : sizeof pbuf - 1;
    memcpy(pbuf, path, pl);
    pbuf[pl] = 0;
    if (!first) emit(",");
    first = 0;
    emit_str(pbuf);
    /* the values print as ms.ns; the counts as integers (parse_split_ns scales them: divided back) */
    emit(":{\"zero_vruntime\":%lld,\"avg_vruntime\":%lld,\"left_vruntime\":%lld,\"left_deadline\":%lld,"
         "\"nr_running\":%lld,\"h_nr_queued\":%lld,\"h_nr_delayed\":%lld,\"load\":%lld,"
         "\"se_vruntime\":%lld,\"se_weight\":%lld,\"throttle_count\":%lld}",
         field_after(nl, sec_end, "zero_vruntime"), field_after(nl, sec_end, "avg_vruntime"),
         field_after(nl, sec_end, "left_vruntime"), field_after(nl, sec_end, "left_deadline"),
         field_after(nl, sec_end, "nr_running") / 1000000, field_after(nl, sec_end, "h_nr_queued") / 1000000,
         field_after(nl, sec_end, "h_nr_delayed") / 1000000, field_after(nl, sec_end, "load") / 1000000,
         field_after(nl, sec_end, "se->vruntime"), field_after(nl, sec_end, "se->load.weight") / 1000000,
         field_after(nl, sec_end, "throttle_count") / 1000000);  /* CONFIG_CFS_BANDWIDTH */
  }
  emit("}");
}


static void emit_task(int i, const char* dbg) {
  const char* row = NULL;
  int cpu = find_row(dbg, tasks[i].pid, &row);
  emit("\"%s\":{\"pid\":%d,\"alive\":%d", tasks[i].name, tasks[i].pid, tasks[i].alive);
  if (!tasks[i].alive) {
    emit("}");
    return;
  }
  emit(",\"cpu\":%d,\"sleeping\":%d", cpu, slots[i].sleeping);
  if (row) {
    char comm[64], elig = '?';
    int rpid;
    const char* p = row + 2;
    emit(",\"running\":%s,\"state\":\"%c\"", row[0] == '>' ? "true" : "false", row[1]);
    if (sscanf(p, "%63s %d", comm, &rpid) == 2) {
      p = strstr(p, comm) + strlen(comm);
      while (*p == ' ') ++p;
      while (*p >= '0' && *p <= '9') ++p; /* pid */
      long long vr = parse_split_ns(p, &p);
      while (*p == ' ') ++p;
      elig = *p++;
      long long dl = parse_split_ns(p, &p);
      while (*p == ' ') ++p;
      int custom = 0;
      if (*p == 'S') custom = 1, ++p;
      long long slice = parse_split_ns(p, &p);
      long long sum = parse_split_ns(p, &p);
      long long switches = strtoll(p, (char**)&p, 10);
      long long prio = strtoll(p, (char**)&p, 10);
      emit(",\"vruntime\":%lld,\"eligible\":%s,\"deadline\":%lld,\"custom_slice\":%s,\"slice\":%lld,"
           "\"sum_exec\":%lld,\"switches\":%lld,\"prio\":%lld",
           vr, elig == 'E' ? "true" : "false", dl, custom ? "true" : "false", slice, sum, switches, prio);
      /* the task group's path ends the row (CONFIG_CGROUP_SCHED) */
      const char* eol = strchr(p, '\n');
      if (!eol) eol = p + strlen(p);
      const char* g = eol;
      while (g > p && g[-1] != ' ') --g;
      if (*g == '/') {
        char path[256];
        size_t n = (size_t)(eol - g) < sizeof path - 1 ? (size_t)(eol - g) : sizeof path - 1;
        memcpy(path, g, n);
        path[n] = 0;
        emit(",\"group\":");
        emit_str(path);
      }
    }
  }
  char path[64], buf[8192];
  snprintf(path, sizeof path, "/proc/%d/sched", tasks[i].pid);
  if (read_file(path, buf, sizeof buf) > 0)
    emit(",\"weight\":%lld,\"policy\":%lld", proc_sched_value(buf, "se.load.weight"), proc_sched_value(buf, "policy"));
  emit("}");
}

static void emit_state(int line, const char* op, long long extra_ns) {
  const char* dbg = read_big("/sys/kernel/debug/sched/debug");
  emit("{\"type\":\"step\",\"step\":%d,\"line\":%d,\"op\":", step_no, line);
  emit_str(op);
  emit(",\"t_ns\":%lld,\"op_ns\":%lld", now_ns() - t0, extra_ns);
  if (!dbg) {
    emit(",\"debugfs\":false}");
    flush_line();
    return;
  }
  char hdr[16];
  snprintf(hdr, sizeof hdr, "cpu#%d", TASK_CPU);
  const char* sec = strstr(dbg, hdr);
  char hdr2[16];
  snprintf(hdr2, sizeof hdr2, "cpu#%d", TASK_CPU + 1);
  const char* end = sec ? strstr(sec, hdr2) : NULL;
  if (!end) end = dbg + strlen(dbg);
  if (sec) {
    long long curr_pid = field_after(sec, end, "curr->pid") / 1000000;
    const char* curr = "idle";
    static char other[80];
    if (curr_pid) {
      curr = NULL;
      for (int i = 0; i < ntasks; ++i)
        if (tasks[i].alive && tasks[i].pid == curr_pid) curr = tasks[i].name;
      if (!curr) {
        const char* row = NULL;
        char comm[64] = "?";
        if (find_row(sec, (pid_t)curr_pid, &row) >= 0 && row) sscanf(row + 2, "%63s", comm);
        snprintf(other, sizeof other, "other:%s", comm);
        curr = other;
      }
    }
    emit(",\"curr\":");
    emit_str(curr);
    emit(",\"rq_clock\":%lld,\"nr_switches\":%lld", field_after(sec, end, "clock"),
         field_after(sec, end, "nr_switches") / 1000000);
    emit_cfs_rqs(sec, end);
  }
  emit(",\"tasks\":{");
  for (int i = 0; i < ntasks; ++i) {
    if (i) emit(",");
    emit_task(i, dbg);
  }
  emit("}}");
  flush_line();
}

/* the kernel's other tasks on CPU 1 and their context switches (incidental activity) */
static void emit_cpu_tasks(const char* label) {
  const char* dbg = read_big("/sys/kernel/debug/sched/debug");
  if (!dbg) return;
  char hdr[16], hdr2[16];
  snprintf(hdr, sizeof hdr, "cpu#%d", TASK_CPU);
  snprintf(hdr2, sizeof hdr2, "cpu#%d", TASK_CPU + 1);
  const char* sec = strstr(dbg, hdr);
  if (!sec) return;
  const char* end = strstr(sec, hdr2);
  if (!end) end = dbg + strlen(dbg);
  const char* rt = strstr(sec, "runnable tasks:");
  emit("{\"type\":\"cpu_tasks\",\"label\":");
  emit_str(label);
  emit(",\"nr_switches\":%lld,\"tasks\":[", field_after(sec, end, "nr_switches") / 1000000);
  int first = 1;
  for (const char* p = rt; p && p < end; p = strchr(p, '\n')) {
    if (*p == '\n') ++p;
    if (p >= end) break;
    if ((p[0] == ' ' || p[0] == '>') && p[1] != ' ' && p[1] != '-' && p[2] == ' ') {
      char comm[64];
      int pid;
      const char* q = p + 2;
      if (sscanf(q, "%63s %d", comm, &pid) != 2) continue;
      q = strstr(q, comm) + strlen(comm);
      while (*q == ' ') ++q;
      while (*q >= '0' && *q <= '9') ++q;
      parse_split_ns(q, &q);
      while (*q == ' ') ++q;
      ++q;
      parse_split_ns(q, &q);
      while (*q == ' ') ++q;
      if (*q == 'S') ++q;
      parse_split_ns(q, &q);
      long long sum = parse_split_ns(q, &q);
      long long sw = strtoll(q, (char**)&q, 10);
      long long prio = strtoll(q, (char**)&q, 10);
      if (!first) emit(",");
      first = 0;
      emit("{\"comm\":");
      emit_str(comm);
      emit(",\"pid\":%d,\"state\":\"%c\",\"sum_exec\":%lld,\"switches\":%lld,\"prio\":%lld}", pid, p[1], sum, sw, prio);
    }
  }
  emit("]}");
  flush_line();
}

/* ---- watch: CPU time of every task from /proc/PID/schedstat ---- */
static long long schedstat_exec(pid_t pid) {
  char path[64], buf[128];
  snprintf(path, sizeof path, "/proc/%d/schedstat", pid);
  if (read_file(path, buf, sizeof buf) <= 0) return -1;
  return strtoll(buf, NULL, 10);
}

static void watch(long long dur, long long period) {
  long long first[MAX_TASKS], last[MAX_TASKS], last_progress[MAX_TASKS], longest[MAX_TASKS], longest_at[MAX_TASKS];
  int stretches_100ms[MAX_TASKS];
  long long gap_start[MAX_TASKS][8], gap_len[MAX_TASKS][8];
  int ngaps[MAX_TASKS];
  emit_cpu_tasks("before watch");
  long long start = now_ns();
  for (int i = 0; i < ntasks; ++i) {
    first[i] = last[i] = tasks[i].alive ? schedstat_exec(tasks[i].pid) : -1;
    last_progress[i] = start;
    longest[i] = 0;
    longest_at[i] = 0;
    stretches_100ms[i] = 0;
    ngaps[i] = 0;
  }
  long long samples = 0, next = start + period, late_max = 0;
  while (next <= start + dur) {
    long long n = now_ns();
    sleep_ns(next - n);
    long long t = now_ns();
    if (t - next > late_max) late_max = t - next;
    ++samples;
    for (int i = 0; i < ntasks; ++i) {
      if (!tasks[i].alive) continue;
      long long v = schedstat_exec(tasks[i].pid);
      if (v > last[i]) {
        long long gap = t - last_progress[i];
        if (gap > longest[i]) longest[i] = gap, longest_at[i] = last_progress[i] - start;
        if (gap >= 100000000LL) {
          ++stretches_100ms[i];
          /* keep the 8 longest */
          int k = ngaps[i] < 8 ? ngaps[i]++ : -1;
          if (k < 0) {
            k = 0;
            for (int j = 1; j < 8; ++j)
              if (gap_len[i][j] < gap_len[i][k]) k = j;
            if (gap_len[i][k] >= gap) k = -1;
          }
          if (k >= 0) gap_start[i][k] = last_progress[i] - start, gap_len[i][k] = gap;
        }
        last_progress[i] = t;
        last[i] = v;
      }
    }
    next += period;
  }
  long long end = now_ns();
  emit("{\"type\":\"watch\",\"step\":%d,\"dur_ns\":%lld,\"period_ns\":%lld,\"samples\":%lld,\"late_max_ns\":%lld,"
       "\"tasks\":{",
       step_no, end - start, period, samples, late_max);
  for (int i = 0; i < ntasks; ++i) {
    if (i) emit(",");
    /* a stretch still open at the end counts too */
    long long open_gap = end - last_progress[i];
    int open = open_gap > longest[i];
    if (open) longest[i] = open_gap, longest_at[i] = last_progress[i] - start;
    emit("\"%s\":{\"cpu_ns\":%lld,\"share\":%.4f,\"longest_without_cpu_ns\":%lld,\"longest_starts_at_ns\":%lld,"
         "\"longest_open_at_end\":%s,\"stretches_over_100ms\":%d,\"stretches\":[",
         tasks[i].name, last[i] - first[i], (double)(last[i] - first[i]) / (double)(end - start), longest[i],
         longest_at[i], open ? "true" : "false", stretches_100ms[i]);
    for (int k = 0; k < ngaps[i]; ++k) emit("%s[%lld,%lld]", k ? "," : "", gap_start[i][k], gap_len[i][k]);
    emit("]}");
  }
  emit("}}");
  flush_line();
  emit_cpu_tasks("after watch");
}

/* ---- the plan ---- */
static int policy_code(const char* p) {
  if (strcmp(p, "normal") == 0 || strcmp(p, "0") == 0) return SCHED_OTHER;
  if (strcmp(p, "batch") == 0 || strcmp(p, "3") == 0) return SCHED_BATCH;
  if (strcmp(p, "idle") == 0 || strcmp(p, "5") == 0) return SCHED_IDLE;
  return -1;
}

static void do_line(char* text, int line) {
  char op_text[512];
  snprintf(op_text, sizeof op_text, "%s", text);
  char* save = NULL;
  char* argv[8] = {0};
  int argc = 0;
  for (char* t = strtok_r(text, " \t", &save); t && argc < 8; t = strtok_r(NULL, " \t", &save)) argv[argc++] = t;
  if (argc == 0) return;
  const char* op = argv[0];
  long long started = now_ns();
  char err[640] = "";
  int i = argc > 1 ? find_task(argv[1]) : -1;
  int state = 1; /* print the state after it */
  ++step_no;

  if (strcmp(op, "note") == 0) {
    emit("{\"type\":\"note\",\"step\":%d,\"text\":", step_no);
    emit_str(op_text + 5);
    emit("}");
    flush_line();
    return;
  } else if (strcmp(op, "task") == 0 && argc >= 5) {
    int rc = create_task(argv[1], atoi(argv[2]), policy_code(argv[3]), atoll(argv[4]), 0, 0);
    if (rc) snprintf(err, sizeof err, "create failed (%d): %s", rc, strerror(errno));
  } else if (strcmp(op, "ticker") == 0 && argc >= 4) {
    if (create_task(argv[1], 0, SCHED_OTHER, 0, atoll(argv[2]), atoll(argv[3])))
      snprintf(err, sizeof err, "create failed");
  } else if (strcmp(op, "run") == 0 && argc >= 2) {
    sleep_ns(atoll(argv[1]));
  } else if (strcmp(op, "tick") == 0) {
    sleep_ns(4000000);
  } else if (strcmp(op, "schedule") == 0) {
  } else if (strcmp(op, "base_slice") == 0 && argc >= 2) {
    int rc = write_file("/sys/kernel/debug/sched/base_slice_ns", argv[1]);
    if (rc) snprintf(err, sizeof err, "base_slice_ns: %s", strerror(-rc));
  } else if (strcmp(op, "features") == 0 && argc >= 2) {
    char* s2 = NULL;
    for (char* f = strtok_r(argv[1], ",", &s2); f; f = strtok_r(NULL, ",", &s2)) {
      int rc = write_file("/sys/kernel/debug/sched/features", f);
      if (rc) snprintf(err, sizeof err, "features %s: %s", f, strerror(-rc));
    }
  } else if (strcmp(op, "watch") == 0 && argc >= 3) {
    watch(atoll(argv[1]), atoll(argv[2]));
    state = 0;
  } else if (strcmp(op, "group") == 0 && argc >= 4) {
    int rc = cg_mount();
    const char* parent = cg_path(argv[3]);
    if (rc || !parent || ngroups == MAX_GROUPS) {
      snprintf(err, sizeof err, "group: cgroup v1 cpu controller: %s", rc ? strerror(-rc) : "no parent");
    } else {
      int g = ngroups++;
      snprintf(groups[g], sizeof groups[g], "%s", argv[1]);
      snprintf(group_path[g], sizeof group_path[g], "%s/%s", parent, argv[1]);
      char f[300];
      if (mkdir(group_path[g], 0755) != 0) snprintf(err, sizeof err, "mkdir %s: %s", group_path[g], strerror(errno));
      snprintf(f, sizeof f, "%s/cpu.shares", group_path[g]);
      if ((rc = write_file(f, argv[2]))) snprintf(err, sizeof err, "%s: %s", f, strerror(-rc));
    }
  } else if (strcmp(op, "group_destroy") == 0 && argc >= 2) {
    int g = -1;
    for (int k = 0; k < ngroups; ++k)
      if (strcmp(groups[k], argv[1]) == 0) g = k;
    if (g < 0) {
      snprintf(err, sizeof err, "group_destroy: no group '%s'", argv[1]);
    } else if (rmdir(group_path[g]) != 0) {
      snprintf(err, sizeof err, "rmdir %s: %s", group_path[g], strerror(errno));
    } else {
      groups[g][0] = '\0'; /* the name is gone (a later 'group' of it is a new entry) */
    }
  } else if (strcmp(op, "quota") == 0 && argc >= 5) {
    /* cpu.max of cgroup v2 is one write; v1 has a file a value, each written
     * through tg_set_cfs_bandwidth(): the burst goes to 0 first (it may not
     * exceed the new quota), then the period, the quota and the burst */
    const char* g = cg_path(argv[1]);
    const char* order[4][2] = {{"cpu.cfs_burst_us", strcmp(argv[4], "-") ? "0" : NULL},
                               {"cpu.cfs_period_us", strcmp(argv[3], "-") ? argv[3] : NULL},
                               {"cpu.cfs_quota_us", strcmp(argv[2], "max") ? argv[2] : "-1"},
                               {"cpu.cfs_burst_us", strcmp(argv[4], "-") ? argv[4] : NULL}};
    for (int k = 0; k < 4 && !err[0]; ++k) {
      if (!order[k][1]) continue;
      char f[300];
      snprintf(f, sizeof f, "%s/%s", g ? g : "/nonexistent", order[k][0]);
      int rc = write_file(f, order[k][1]);
      if (rc) snprintf(err, sizeof err, "%s %s: %s", f, order[k][1], strerror(-rc));
    }
  } else if ((strcmp(op, "shares") == 0 || strcmp(op, "group_idle") == 0) && argc >= 3) {
    const char* g = cg_path(argv[1]);
    char f[300];
    snprintf(f, sizeof f, "%s/%s", g ? g : "/nonexistent", strcmp(op, "shares") == 0 ? "cpu.shares" : "cpu.idle");
    int rc = write_file(f, argv[2]);
    if (rc) snprintf(err, sizeof err, "%s: %s", f, strerror(-rc));
  } else if (i < 0 || !tasks[i].alive) {
    snprintf(err, sizeof err, "unknown or dead task '%s'", argc > 1 ? argv[1] : "");
  } else if (strcmp(op, "wake") == 0) {
    if (slots[i].cmd != CMD_SLEEP) snprintf(err, sizeof err, "%s is not asleep", argv[1]);
    __atomic_store_n(&slots[i].cmd, CMD_RUN, __ATOMIC_SEQ_CST);
    futex((int*)&slots[i].cmd, FUTEX_WAKE, 1);
  } else if (strcmp(op, "sleep") == 0) {
    __atomic_store_n(&slots[i].cmd, CMD_SLEEP, __ATOMIC_SEQ_CST);
    if (wait_asleep(i)) snprintf(err, sizeof err, "%s did not run (to block) within 10 s", argv[1]);
  } else if (strcmp(op, "yield") == 0) {
    int before = slots[i].yields;
    __atomic_store_n(&slots[i].cmd, CMD_YIELD, __ATOMIC_SEQ_CST);
    long long limit = now_ns() + WAIT_LIMIT_NS;
    while (slots[i].yields == before && now_ns() < limit) sleep_ns(100000);
    if (slots[i].yields == before) snprintf(err, sizeof err, "%s did not run (to yield) within 10 s", argv[1]);
  } else if (strcmp(op, "exit") == 0 || strcmp(op, "kill") == 0) {
    if (strcmp(op, "exit") == 0) {
      __atomic_store_n(&slots[i].cmd, CMD_EXIT, __ATOMIC_SEQ_CST);
      futex((int*)&slots[i].cmd, FUTEX_WAKE, 1);
    } else {
      kill(tasks[i].pid, SIGKILL);
    }
    long long limit = now_ns() + WAIT_LIMIT_NS;
    int status;
    while (waitpid(tasks[i].pid, &status, WNOHANG) == 0 && now_ns() < limit) sleep_ns(100000);
    tasks[i].alive = 0;
  } else if (strcmp(op, "nice") == 0 && argc >= 3) {
    if (setpriority(PRIO_PROCESS, (id_t)tasks[i].pid, atoi(argv[2])) != 0)
      snprintf(err, sizeof err, "setpriority: %s", strerror(errno));
  } else if (strcmp(op, "policy") == 0 && argc >= 3) {
    struct sched_param sp = {0};
    if (sched_setscheduler(tasks[i].pid, policy_code(argv[2]), &sp) != 0)
      snprintf(err, sizeof err, "sched_setscheduler: %s", strerror(errno));
  } else if (strcmp(op, "slice") == 0 && argc >= 3) {
    struct sched_attr_k a;
    get_attr(tasks[i].pid, &a);
    if (set_attr(tasks[i].pid, (int)a.sched_policy, a.sched_nice, atoll(argv[2])) != 0)
      snprintf(err, sizeof err, "sched_setattr: %s", strerror(errno));
  } else if (strcmp(op, "move") == 0 && argc >= 3) {
    const char* g = cg_path(argv[2]);
    char f[300], pid[32];
    int rc = cg_mount();
    snprintf(f, sizeof f, "%s/tasks", g ? g : "/nonexistent");
    snprintf(pid, sizeof pid, "%d", tasks[i].pid);
    if (rc || (rc = write_file(f, pid))) snprintf(err, sizeof err, "%s: %s", f, strerror(-rc));
  } else {
    snprintf(err, sizeof err, "unknown operation");
  }
  if (err[0]) error_line(op_text, err);
  if (state) emit_state(line, op_text, now_ns() - started);
}

static void setup_console(void) {
  mkdir("/dev", 0755);
  mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
  int con = open("/dev/console", O_RDWR);
  if (con >= 0) {
    dup2(con, 0);
    dup2(con, 1);
    dup2(con, 2);
    if (con > 2) close(con);
  }
  out_fd = open("/dev/ttyS1", O_WRONLY | O_NOCTTY);
  if (out_fd < 0) {
    out_fd = 1;
    return;
  }
  struct termios tio;
  if (tcgetattr(out_fd, &tio) == 0) {
    cfmakeraw(&tio);
    cfsetospeed(&tio, B115200);
    tcsetattr(out_fd, TCSANOW, &tio);
  }
}

int main(void) {
  setup_console();
  mkdir("/proc", 0755);
  mkdir("/sys", 0755);
  mount("proc", "/proc", "proc", 0, NULL);
  mount("sysfs", "/sys", "sysfs", 0, NULL);
  mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
  pin(0, DRIVER_CPU);
  t0 = now_ns();
  slots = mmap(NULL, sizeof(struct slot) * MAX_TASKS, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

  char release[128] = "?", cmdline[1024] = "", features[2048] = "", slice[64] = "";
  read_file("/proc/sys/kernel/osrelease", release, sizeof release);
  read_file("/proc/cmdline", cmdline, sizeof cmdline);
  read_file("/sys/kernel/debug/sched/features", features, sizeof features);
  read_file("/sys/kernel/debug/sched/base_slice_ns", slice, sizeof slice);
  for (char* s = release; *s; ++s)
    if (*s == '\n') *s = 0;
  for (char* s = cmdline; *s; ++s)
    if (*s == '\n') *s = 0;
  for (char* s = features; *s; ++s)
    if (*s == '\n') *s = 0;
  emit("{\"type\":\"hello\",\"release\":");
  emit_str(release);
  emit(",\"cmdline\":");
  emit_str(cmdline);
  emit(",\"cpus\":%ld,\"features\":", sysconf(_SC_NPROCESSORS_ONLN));
  emit_str(features);
  emit(",\"base_slice_ns\":%lld}", atoll(slice));
  flush_line();

  static char plan[1 << 20];
  if (read_file("/plan", plan, sizeof plan) < 0) error_line("plan", "no /plan in the initramfs");
  char* save = NULL;
  for (char* l = strtok_r(plan, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
    int line = 0;
    while (*l == ' ') ++l;
    if (*l == '#' || *l == 0) continue;
    if (*l == '@') {
      line = atoi(l + 1);
      l = strchr(l, ' ');
      if (!l) continue;
      ++l;
    }
    do_line(l, line);
  }
  for (int i = 0; i < ntasks; ++i)
    if (tasks[i].alive) kill(tasks[i].pid, SIGKILL);
  emit("{\"type\":\"done\",\"steps\":%d,\"t_ns\":%lld}", step_no, now_ns() - t0);
  flush_line();
  tcdrain(out_fd);
  sync();
  reboot(RB_POWER_OFF);
  for (;;) pause();
}
