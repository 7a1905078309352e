/* A stub of the kSTEP API (kmod/driver.h as documented) and of the kernel types the generated
   drivers use, written for tests/kstep_syntax.sh: a syntax and type check, not kSTEP itself. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
typedef unsigned long long u64; typedef long long s64; typedef unsigned int u32;
#define SCHED_NORMAL 0
#define SCHED_BATCH 3
#define SCHED_IDLE 5
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#define rb_entry(ptr, type, member) container_of(ptr, type, member)
#define __used __attribute__((used))
struct rb_node { struct rb_node *rb_left, *rb_right; };
struct rb_root { struct rb_node *rb_node; };
struct rb_root_cached { struct rb_root rb_root; struct rb_node *rb_leftmost; };
struct load_weight { unsigned long weight; u32 inv_weight; };
struct sched_entity { struct load_weight load; struct rb_node run_node; u64 deadline, min_vruntime, min_slice, max_slice;
  unsigned char on_rq, sched_delayed, rel_deadline, custom_slice; u64 exec_start, sum_exec_runtime, vruntime, vprot;
  s64 vlag; u64 slice; };
struct task_struct { int pid; struct sched_entity se; };
struct cfs_rq { struct sched_entity *curr; u64 zero_vruntime; struct rb_root_cached tasks_timeline; };
struct rq { struct task_struct *curr, *idle; struct cfs_rq cfs; };
struct rq *cpu_rq(int cpu);
#define KSYM_IMPORT(sym) extern unsigned int *KSYM_##sym
#define TRACE_INFO(fmt, ...) printf(fmt "\n", ##__VA_ARGS__)
struct kstep_driver { char name[32]; void (*setup)(void); void (*run)(void); u64 tick_interval_ns; };
#define KSTEP_DRIVER_DEFINE static struct kstep_driver DRIVER __used =
struct kstep_json { size_t len; char buf[504]; };
void kstep_json_begin(struct kstep_json *json);
void kstep_json_field_str(struct kstep_json *json, const char *key, const char *val);
void kstep_json_field_u64(struct kstep_json *json, const char *key, u64 val);
void kstep_json_field_s64(struct kstep_json *json, const char *key, s64 val);
void kstep_json_field_bool(struct kstep_json *json, const char *key, bool val);
void kstep_json_end(struct kstep_json *json);
void kstep_json_print_2kv(const char *key1, const char *val1, const char *key2, const char *val2_fmt, ...);
#define kstep_pass(msg_fmt, ...) kstep_json_print_2kv("status", "pass", "message", "\"" msg_fmt "\"", ##__VA_ARGS__)
#define kstep_fail(msg_fmt, ...) kstep_json_print_2kv("status", "fail", "message", "\"" msg_fmt "\"", ##__VA_ARGS__)
void kstep_tick(void); void kstep_tick_repeat(int n); void kstep_settle(void);
struct task_struct *kstep_task_create(void); void kstep_task_exit(struct task_struct *p);
int kstep_task_set_affinity(struct task_struct *p, const char *cpulist);
void kstep_task_pause(struct task_struct *p); void kstep_task_yield(struct task_struct *p);
void kstep_task_wakeup(struct task_struct *p); void kstep_task_chan_read(struct task_struct *p);
void kstep_task_chan_write(struct task_struct *p);
int kstep_write(const char *path, const char *buf, size_t size);
void kstep_sched_feat_enable(const char *name); void kstep_sched_feat_disable(const char *name);
struct sched_attr; int sched_setattr_nocheck(struct task_struct *p, const struct sched_attr *attr);
void set_user_nice(struct task_struct *p, long nice);
