struct sched_attr { unsigned int size, sched_policy; unsigned long long sched_flags; int sched_nice;
  unsigned int sched_priority; unsigned long long sched_runtime, sched_deadline, sched_period; };
